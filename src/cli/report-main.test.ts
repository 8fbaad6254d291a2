import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { reportMain } from "./report-main.js";
import { parseCliArgs } from "./report-cli-args.js";

const dir = mkdtempSync(join(tmpdir(), "pi-condense-cli-"));
process.env.PI_CODING_AGENT_DIR = join(dir, "agent");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let recordedTotal = 0;

/** A small recorded session: three prompts, each a tool turn and a reply, every reply's usage with its cost (summed in `recordedTotal`). */
function sessionFile(name: string): string {
  recordedTotal = 0;
  const lines: unknown[] = [{ type: "session", version: 3, id: "cli-test", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/w" }];
  let time = Date.UTC(2026, 0, 1);
  const add = (message: Record<string, unknown>) => {
    time += 5_000;
    lines.push({ type: "message", id: `e${lines.length}`, parentId: lines.length > 1 ? `e${lines.length - 1}` : null, timestamp: new Date(time).toISOString(), message: { ...message, timestamp: time } });
  };
  const usage = (read: number, write: number) => {
    const total = (read * 0.3 + write * 3.75 + 9 + 600) / 1e6;
    recordedTotal += total;
    return { input: 3, output: 40, cacheRead: read, cacheWrite: write, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total } };
  };
  let context = 1500;
  for (let p = 0; p < 3; p++) {
    add({ role: "user", content: `task ${p} `.padEnd(4000, "y") });
    add({ role: "assistant", content: [{ type: "toolCall", id: `c${p}`, name: "bash", arguments: { command: "ls" } }], api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5", stopReason: "toolUse", usage: usage(context - 1000, 1000) });
    add({ role: "toolResult", toolCallId: `c${p}`, toolName: "bash", content: [{ type: "text", text: "x".repeat(8000) }], isError: false });
    add({ role: "assistant", content: [{ type: "text", text: `done ${p}` }], api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5", stopReason: "stop", usage: usage(context + 1000, 2000) });
    context += 4000;
  }
  const path = join(dir, name);
  writeFileSync(path, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
  return path;
}

async function run(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await reportMain(argv, { out: (t) => (out += `${t}\n`), err: (t) => (err += `${t}\n`), cwd: dir });
  return { code, out, err };
}

describe("pi-condense-report", () => {
  test("--json prints one object with the recorded bill and the three configurations' dollars, and writes no file", async () => {
    const path = sessionFile("json.jsonl");
    const { code, out } = await run([path, "--json"]);
    expect(code).toBe(0);
    const report = JSON.parse(out);
    expect(report.recorded.dollars).toBeCloseTo(recordedTotal, 6);
    expect(typeof report.noPruning.dollars).toBe("number");
    expect(report.asRecorded).toMatchObject({ source: "recorded" });
    expect(report.asRecorded.dollars).toBe(report.recorded.dollars);
    expect(typeof report.whatIf.dollars).toBe("number");
    expect(report.noPruning.simulated).toBe(true);
    expect(report.noPruning.dollars).not.toBe(report.recorded.dollars);
    expect(readdirSync(dir).filter((f) => f.endsWith(".html"))).toEqual([]);
  });

  test("without --json it prints the text /pruner report prints, the recorded bill first, and writes the HTML beside the session", async () => {
    const path = sessionFile("text.jsonl");
    const { code, out } = await run(["text.jsonl"]);
    expect(code).toBe(0);
    expect(out).toStartWith("pruner report: text.jsonl\n");
    expect(out.replace(/\s+/g, " ")).toContain("recorded bill: $");
    expect(out).toContain("context tokens per request");
    expect(readdirSync(dir)).toContain("text.report.html");
    expect(path).toContain(dir);
  });

  test("what-if settings, --policy and --model go through /pruner report's parser", async () => {
    const path = sessionFile("args.jsonl");
    const { code, out } = await run([path, "--json", "--policy", "classic", "summaries=always", "--model", "anthropic/claude-haiku-4-5"]);
    expect(code).toBe(0);
    const report = JSON.parse(out);
    expect(report.whatIf.settings).toEqual(["the classic policy", "summaries=always"]);
    expect(report.notes[0]).toBe("priced as anthropic/claude-haiku-4-5 (--model), not as anthropic/claude-sonnet-4-5");
  });

  test("bad arguments exit 2 with a line saying what is wrong; --help exits 0", async () => {
    expect(await run([])).toMatchObject({ code: 2 });
    expect((await run([])).err).toContain("give a session file: pi-condense-report <session.jsonl> [--json]");
    const model = await run([sessionFile("m.jsonl"), "--model", "nobody/nothing"]);
    expect(model.code).toBe(2);
    expect(model.err).toContain("--model nobody/nothing: pi's model catalog has no such model");
    expect((await run(["a.jsonl", "frobnicate=3"])).err).toContain("frobnicate: not a contextPrune setting");
    const help = await run(["--help"]);
    expect(help.code).toBe(0);
    expect(help.out).toContain("usage: pi-condense-report <session.jsonl> [--json]");
  });

  test("--model with a model the catalog lacks exits 2 naming how to find ids, and the priced page beside the session stays", async () => {
    const path = sessionFile("priced.jsonl");
    expect((await run([path])).code).toBe(0);
    const page = readFileSync(join(dir, "priced.report.html"), "utf8");
    const refused = await run([path, "--model", "nope/nope"]);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain("--model nope/nope: pi's model catalog has no such model. Write it as provider/model: `pi --list-models <word>`");
    expect(readFileSync(join(dir, "priced.report.html"), "utf8")).toBe(page);
    expect((await run([path, "--model", "anthropic/claude-haiku-4"])).err).toContain("close matches: anthropic/claude-haiku-4-5");
  });

  test("a path with spaces, as the shell hands it over in one argument, is read", async () => {
    mkdirSync(join(dir, "my sessions"), { recursive: true });
    renameSync(sessionFile("spaced.jsonl"), join(dir, "my sessions", "spaced.jsonl"));
    const { code, out } = await run(["my sessions/spaced.jsonl", "--json"]);
    expect(code).toBe(0);
    expect(JSON.parse(out).recorded.dollars).toBeCloseTo(recordedTotal, 6);
  });

  test("a file that cannot be read or is not a session exits 1 with the reason", async () => {
    const missing = await run([join(dir, "missing.jsonl"), "--json"]);
    expect(missing.code).toBe(1);
    expect(missing.err).toBe(`pruner report: there is no file at ${join(dir, "missing.jsonl")}\n`);
    writeFileSync(join(dir, "notes.md"), "# notes\n\nnot a session\n");
    const markdown = await run([join(dir, "notes.md")]);
    expect(markdown.code).toBe(1);
    expect(markdown.err).toContain("not a pi session");
  });
});

describe("parseCliArgs", () => {
  test("takes out the CLI's own flags and leaves the rest to /pruner report's parser", () => {
    expect(parseCliArgs(["s.jsonl", "--json", "--policy", "cost", "-h"])).toEqual({ json: true, help: true, report: ["s.jsonl", "--policy", "cost"] });
  });
});
