// `/pruner report` through index.ts on what a user types (issue 45, points 9 and 10): a path with spaces,
// quoted or escaped, and the plain words for a session not written yet, a missing file and a file that is
// not a session.
import { afterAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import piCondense from "../../index.js";
import { makeFakeCtx, makeFakePi } from "../../test/fake-host.js";
import { useTempAgentDirs } from "../../test/temp-agent-dir.js";

const FIXTURE = join(import.meta.dir, "../../test/fixtures/swe-agent/web--i_got_id_demo.jsonl");
const dir = mkdtempSync(join(tmpdir(), "pruner report input-"));
const spaced = join(dir, "my sessions");
mkdirSync(spaced);
copyFileSync(FIXTURE, join(spaced, "s.jsonl"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
useTempAgentDirs("pruner-report-input-");

async function started(sessionFile?: string) {
  const host = makeFakePi();
  piCondense(host.pi as any);
  const fake = makeFakeCtx(host);
  Object.assign(fake.ctx as any, { cwd: dir, mode: "rpc" });
  (fake.ctx as any).sessionManager.getSessionFile = () => sessionFile;
  await host.handlers.get("session_start")!({}, fake.ctx);
  const report = async (args: string) => {
    const before = fake.notices.length;
    await host.commands.get("pruner")!.handler(`report ${args}`.trim(), fake.ctx);
    return fake.notices.slice(before).map((n) => n.message).join("\n");
  };
  return { report };
}

describe("/pruner report: a path with spaces", () => {
  test("in double quotes", async () => {
    const { report } = await started();
    expect(await report(`"my sessions/s.jsonl"`)).toStartWith("pruner report: s.jsonl\n");
  });

  test("in single quotes, an absolute path", async () => {
    const { report } = await started();
    expect(await report(`'${join(spaced, "s.jsonl")}'`)).toStartWith("pruner report: s.jsonl\n");
  });

  test("with the space escaped by a backslash, and a what-if setting after it", async () => {
    const { report } = await started();
    const text = await report(String.raw`my\ sessions/s.jsonl summaries=always`);
    expect(text).toStartWith("pruner report: s.jsonl\n");
    expect(text).toContain("summaries=always");
  });

  test("quoted under the home directory, as ~/...", async () => {
    // Under the real home directory: os.homedir() does not follow a changed HOME in this runtime.
    const home = mkdtempSync(join(homedir(), ".pruner report test-"));
    try {
      mkdirSync(join(home, "my sessions"));
      copyFileSync(FIXTURE, join(home, "my sessions", "s.jsonl"));
      const { report } = await started();
      expect(await report(`"~/${home.slice(homedir().length + 1)}/my sessions/s.jsonl"`)).toStartWith("pruner report: s.jsonl\n");
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  test("unquoted, the refusal says how to give it", async () => {
    const { report } = await started();
    const text = await report("my sessions/s.jsonl");
    expect(text).toContain("sessions/s.jsonl: only one session path is read (a path with spaces goes in quotes");
  });
});

describe("/pruner report: errors in plain words", () => {
  test("before the first prompt, this session's file is not written yet: nothing is recorded yet", async () => {
    const { report } = await started(join(dir, "2026-01-01T00-00-00-000Z_0f3c.jsonl"));
    expect(await report("")).toBe(
      "pruner report: nothing is recorded in this session yet (pi writes it with the first prompt); send a prompt first, or give a session file: /pruner report <file.jsonl>",
    );
  });

  test("a missing file is named once, with no system error text", async () => {
    const { report } = await started();
    const text = await report("missing.jsonl");
    expect(text).toBe(`pruner report: there is no file at ${join(dir, "missing.jsonl")}`);
  });

  test("a folder is named as one", async () => {
    const { report } = await started();
    expect(await report(`"my sessions"`)).toBe(`pruner report: ${spaced} is a folder or a device, not a session file`);
  });

  test("a Markdown file is not a pi session, said once, without the per-line list", async () => {
    writeFileSync(join(dir, "notes.md"), "# notes\n\nnot a session\n");
    const { report } = await started();
    const text = await report("notes.md");
    expect(text).toStartWith(`pruner report: ${join(dir, "notes.md")}: this file is not a pi session (no session header and no message entries; its first line reads: # notes); `);
    expect(text).toContain("~/.pi/agent/sessions/");
    expect(text.split("\n")).toHaveLength(1);
    expect(text).not.toContain("corrupt JSON");
    expect(text).not.toContain("still being written");
  });
});
