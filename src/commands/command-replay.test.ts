import { afterAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_CONFIG } from "../settings/config-shape.js";
import { REPLAY_WIDGET_ID, reportCommand } from "./command-replay.js";
import { pruneStatusText } from "../ui/status-line.js";

const FIXTURE = join(import.meta.dir, "../../test/fixtures/swe-agent/web--i_got_id_demo.jsonl");
const dir = mkdtempSync(join(tmpdir(), "pruner-report-cmd-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function setup(mode: "tui" | "rpc", sessionFile?: string) {
  const notes: Array<{ message: string; type?: string }> = [];
  const widgets: Array<[string, unknown]> = [];
  const appended: Array<{ customType: string; data: any }> = [];
  const ctx: any = {
    mode,
    cwd: dir,
    ui: { notify: (message: string, type?: string) => notes.push({ message, type }), setWidget: (key: string, lines: unknown) => widgets.push([key, lines]) },
    sessionManager: { getSessionFile: () => sessionFile },
    modelRegistry: { find: () => undefined },
  };
  const deps: any = {
    pi: { appendEntry: (customType: string, data: any) => appended.push({ customType, data }) },
    currentConfig: { value: { ...DEFAULT_CONFIG, enabled: true } },
    getLiveReclaim: () => ({ beforeChars: 368_000, afterChars: 56_000, overheadTokens: 6000 }),
  };
  return { ctx, deps, notes, widgets, appended };
}

describe("/pruner report", () => {
  test("a relative path is read from the working directory and the report is shown as a notice outside the TUI", async () => {
    copyFileSync(FIXTURE, join(dir, "a.jsonl"));
    const { ctx, deps, notes } = setup("rpc");
    await reportCommand(deps, ctx, ["a.jsonl"]);
    expect(notes).toHaveLength(1);
    expect(notes[0]!.message).toStartWith("pruner report: a.jsonl");
    expect(notes[0]!.message.replace(/\s+/g, " ")).toContain(`HTML report: ${join(dir, "a.report.html")}`);
  });

  test("without a path it replays this session's file; in the TUI the report is a chat entry and progress a widget that is cleared", async () => {
    copyFileSync(FIXTURE, join(dir, "b.jsonl"));
    const { ctx, deps, appended, widgets } = setup("tui", join(dir, "b.jsonl"));
    await reportCommand(deps, ctx, []);
    expect(appended).toHaveLength(1);
    expect(appended[0]!.customType).toBe("context-prune-report");
    expect(appended[0]!.data.text).toStartWith("pruner report: b.jsonl");
    expect(widgets[0]![1]).toEqual(["pruner report: replaying 0% (0/42 request renders)"]);
    expect(widgets.every(([key]) => key === REPLAY_WIDGET_ID)).toBe(true);
    expect(widgets.at(-1)![1]).toBeUndefined();
  });

  test("for this session it names the context sent as the footer does", async () => {
    copyFileSync(FIXTURE, join(dir, "c.jsonl"));
    const { ctx, deps, notes } = setup("rpc", join(dir, "c.jsonl"));
    await reportCommand(deps, ctx, []);
    const footer = pruneStatusText({ enabled: true } as any, deps.getLiveReclaim());
    expect(footer).toBe("prune: ON · 98.0k->20.0k (-80%)");
    expect(notes[0]!.message).toContain("\n  context sent: 20.0k tokens (98.0k without pruning, -80%)\n");
  });

  test("another session's file gets no live figure", async () => {
    copyFileSync(FIXTURE, join(dir, "d.jsonl"));
    const { ctx, deps, notes } = setup("rpc", join(dir, "b.jsonl"));
    await reportCommand(deps, ctx, ["d.jsonl"]);
    expect(notes[0]!.message).not.toContain("context sent");
  });

  test("a session with no file asks for a path", async () => {
    const { ctx, deps, notes } = setup("rpc", undefined);
    await reportCommand(deps, ctx, []);
    expect(notes[0]).toEqual({ message: "pruner report: this session has no file yet (nothing saved); give a session path: /pruner report <file.jsonl>", type: "warning" });
  });

  test("bad arguments are named and nothing is replayed", async () => {
    const { ctx, deps, notes } = setup("rpc", join(dir, "b.jsonl"));
    await reportCommand(deps, ctx, ["nope=1"]);
    expect(notes[0]).toEqual({ message: "pruner report: nope: not a contextPrune setting", type: "warning" });
  });

  test("--model with a model the catalog lacks is refused with close matches and how to look ids up, and the page beside the session is left as it was", async () => {
    copyFileSync(FIXTURE, join(dir, "m.jsonl"));
    const { ctx, deps, notes } = setup("rpc");
    ctx.modelRegistry = { find: () => undefined, getAll: () => [{ provider: "anthropic", id: "claude-sonnet-4-5" }, { provider: "openai", id: "gpt-5-mini" }] };
    await reportCommand(deps, ctx, ["m.jsonl"]);
    const page = join(dir, "m.report.html");
    const before = readFileSync(page);
    const mtime = statSync(page).mtimeMs;
    await reportCommand(deps, ctx, ["m.jsonl", "--model", "anthropic/claude-sonet-4-5"]);
    expect(notes.at(-1)!.type).toBe("warning");
    expect(notes.at(-1)!.message).toStartWith("pruner report: --model anthropic/claude-sonet-4-5: pi's model catalog has no such model; close matches: anthropic/claude-sonnet-4-5.");
    expect(notes.at(-1)!.message).toContain("`pi --list-models <word>`");
    expect(readFileSync(page).equals(before)).toBe(true);
    expect(statSync(page).mtimeMs).toBe(mtime);
  });

  test("a missing file is a warning, not a throw", async () => {
    const { ctx, deps, notes } = setup("rpc");
    await reportCommand(deps, ctx, ["missing.jsonl"]);
    expect(notes[0]!.message).toBe(`pruner report: there is no file at ${join(dir, "missing.jsonl")}`);
    expect(notes[0]!.type).toBe("warning");
  });
});
