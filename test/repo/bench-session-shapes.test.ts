import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { buildShape, type Shape, type ShapeId } from "../../bench/session-shapes.js";

const repoRoot = resolve(import.meta.dir, "../..");
const LOSS: ShapeId[] = ["g", "h", "i", "j"];

/** Builds a shape and hands it to `check` while its work directory (the edited copies) still exists. */
function withShape<T>(id: ShapeId, quick: boolean, check: (s: Shape, workDir: string) => T): T {
  const work = mkdtempSync(join(tmpdir(), `bench-shape-${id}-`));
  try {
    return check(buildShape(id, { repoRoot, workDir: join(work, "files"), idleMs: 0, quick }), work);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const calls = (s: Shape) => s.main.flatMap((r) => r.toolCalls ?? []);
const closing = (s: Shape) => s.main.filter((r) => r.stopped || !r.toolCalls);
const abs = (path: string) => (isAbsolute(path) ? path : join(repoRoot, path));

describe("issue 33's session shapes", () => {
  test.each(LOSS)("shape %s calls only read, bash and edit, on files that exist", (id) => {
    withShape(id, false, (s) => {
      for (const c of calls(s)) {
        expect(["read", "bash", "edit"]).toContain(c.name);
        if (c.name !== "bash") expect(existsSync(abs(String(c.args.path)))).toBe(true);
      }
    });
  });

  test.each(LOSS)("shape %s closes each prompt once, with a reply or an aborted turn carrying tool calls, and ends with a reply", (id) => {
    withShape(id, false, (s) => {
      expect(closing(s)).toHaveLength(s.prompts.length);
      for (const r of s.main.filter((x) => x.stopped)) expect(r.toolCalls?.length).toBeGreaterThan(0);
      const last = s.main[s.main.length - 1]!;
      expect(last.stopped).toBeUndefined();
      expect(last.toolCalls).toBeUndefined();
    });
  });

  test.each(LOSS)("shape %s is the same on every build, and its quick run is shorter", (id) => {
    const strip = (s: Shape) => JSON.stringify(s).replace(/bench-shape-[a-z]-[^/]+/g, "W");
    expect(withShape(id, false, strip)).toBe(withShape(id, false, strip));
    expect(withShape(id, true, (s) => s.main.length)).toBeLessThan(withShape(id, false, (s) => s.main.length));
  });

  test.each(["g", "j"] as ShapeId[])("every edit of shape %s finds its old text exactly once in the file as the edits before it left it", (id) => {
    withShape(id, false, (s) => {
      const files = new Map<string, string>();
      const edits = calls(s).filter((c) => c.name === "edit");
      expect(edits.length).toBeGreaterThan(5);
      for (const c of edits) {
        const path = String(c.args.path);
        const text = files.get(path) ?? readFileSync(path, "utf8");
        const [{ oldText, newText }] = c.args.edits as Array<{ oldText: string; newText: string }>;
        expect(text.split(oldText!).length - 1).toBe(1);
        files.set(path, text.replace(oldText!, () => newText!));
      }
    });
  });

  test("shape g's edits carry 8 KB blocks while its reads stay within 80 lines, and a run of 100 line counts follows", () => {
    withShape("g", false, (s) => {
      for (const c of calls(s).filter((x) => x.name === "edit")) expect(JSON.stringify(c.args).length).toBeGreaterThan(16_000);
      for (const c of calls(s).filter((x) => x.name === "read")) expect(c.args.limit).toBe(80);
      const longest = Math.max(...s.main.reduce<number[]>((runs, r) => (r.toolCalls ? [...runs.slice(0, -1), (runs.at(-1) ?? 0) + 1] : [...runs, 0]), [0]));
      expect(longest).toBe(100);
    });
  });

  test("shape h pastes a whole 10-20 KB file into every prompt, and only its first three prompts call tools", () => {
    withShape("h", false, (s) => {
      expect(s.prompts.length).toBe(23);
      for (const p of s.prompts) {
        const file = /(?:Here is|And) (\S+?)[;:]/.exec(p.text)![1]!;
        const text = readFileSync(abs(file), "utf8");
        expect(text.length).toBeGreaterThanOrEqual(10_000);
        expect(p.text.endsWith(text)).toBe(true);
      }
      expect(s.main.filter((r) => r.toolCalls).length).toBe(6);
      expect(s.main.slice(9).every((r) => !r.toolCalls)).toBe(true);
    });
  });

  test("shape i alternates eight runs ending in an aborted turn with runs of ten reads", () => {
    withShape("i", false, (s) => {
      expect(s.prompts).toHaveLength(16);
      const ends = closing(s).map((r) => (r.stopped ? "aborted" : "reply"));
      expect(ends).toEqual(Array.from({ length: 16 }, (_, i) => (i % 2 === 0 ? "aborted" : "reply")));
    });
  });

  test("shape j: 51 prompts, 400 to 500 main replies, 17 aborted runs, an early read of a 50 KB document, mostly 6-8 KB reads", () => {
    withShape("j", false, (s) => {
      expect(s.prompts).toHaveLength(51);
      expect(s.main.length).toBeGreaterThanOrEqual(400);
      expect(s.main.length).toBeLessThanOrEqual(500);
      expect(s.main.filter((r) => r.stopped)).toHaveLength(17);
      const firstOfSecond = s.main[s.main.indexOf(closing(s)[0]!) + 1]!;
      const doc = String(firstOfSecond.toolCalls![0]!.args.path);
      expect(statSync(abs(doc)).size).toBeGreaterThan(50 * 1024);
      const reads = calls(s).filter((c) => c.name === "read" && !c.args.limit);
      const medium = reads.filter((c) => statSync(abs(String(c.args.path))).size >= 6000 && statSync(abs(String(c.args.path))).size <= 8000);
      expect(medium.length / calls(s).length).toBeGreaterThan(0.5);
    });
  });
});

describe("shape k (issue 35): edits and rewrites", () => {
  test("every edit finds its old text exactly once in the file as the edits and writes before it left it", () => {
    withShape("k", false, (s) => {
      const files = new Map<string, string>();
      let edits = 0;
      for (const c of calls(s)) {
        const path = String(c.args.path);
        if (c.name === "write") files.set(path, String(c.args.content));
        if (c.name !== "edit") continue;
        edits++;
        const text = files.get(path) ?? readFileSync(path, "utf8");
        const [{ oldText, newText }] = c.args.edits as Array<{ oldText: string; newText: string }>;
        expect(text.split(oldText!).length - 1).toBe(1);
        files.set(path, text.replace(oldText!, () => newText!));
      }
      expect(edits).toBe(s.prompts.length);
    });
  });

  test("what the agent writes outweighs what the tools return: 40-line edits and whole-file writes, 30-line reads", () => {
    withShape("k", false, (s) => {
      const size = (name: string) => calls(s).filter((c) => c.name === name).reduce((n, c) => n + JSON.stringify(c.args).length, 0);
      expect(size("write") + size("edit")).toBeGreaterThan(100_000);
      for (const c of calls(s).filter((x) => x.name === "read")) expect(c.args.limit).toBe(30);
      for (const c of calls(s).filter((x) => x.name === "edit")) expect((c.args.edits as Array<{ oldText: string }>)[0]!.oldText.split("\n")).toHaveLength(40);
    });
  });

  test("its quick run is shorter and every build is the same", () => {
    const strip = (s: Shape) => JSON.stringify(s).replace(/bench-shape-[a-z]-[^/]+/g, "W");
    expect(withShape("k", false, strip)).toBe(withShape("k", false, strip));
    expect(withShape("k", true, (s) => s.prompts.length)).toBeLessThan(withShape("k", false, (s) => s.prompts.length));
  });
});
