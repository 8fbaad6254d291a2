import { describe, expect, test } from "bun:test";
import { canBeHadAgain, persistedSupersession, splitBatches, summariesMode } from "./summary-choice.js";
import type { Supersession } from "../capture/stale-outputs.js";
import type { CapturedBatch, CapturedToolCall } from "../capture/records.js";

const call = (id: string, toolName: string, args: Record<string, unknown>): CapturedToolCall => ({
  toolCallId: id,
  toolName,
  args,
  resultText: `output of ${id}`,
  isError: false,
  resultTimestamp: 1000 + Number(id.replace(/\D/g, "") || 0),
});
const bash = (id: string, command: string) => call(id, "bash", { command });
const batchOf = (...toolCalls: CapturedToolCall[]): CapturedBatch => ({ turnIndex: 1, timestamp: 1, assistantText: "", toolCalls });
const ids = (calls: CapturedToolCall[]) => calls.map((c) => c.toolCallId);

describe("which outputs the agent can have again", () => {
  test.each(["read", "ls", "find", "grep"])("the %s tool's output", (tool) => {
    expect(canBeHadAgain(call("a1", tool, { path: "src/a.ts" }))).toBe(true);
  });

  test.each(["cat src/a.ts", "head -n 40 src/a.ts", "sed -n '10,20p' src/a.ts", "grep -rn foo src | head -20", "ls -la", "find . -name '*.ts'", "rg parse src | wc -l"])(
    "a read-only shell command: %s",
    (command) => {
      expect(canBeHadAgain(bash("b1", command))).toBe(true);
    },
  );

  test.each(["npm test", "pytest -x", "sed -i 's/a/b/' f", "cat a > b", "cat a && rm b", "find . -delete", "cat $(ls)", "curl https://x", "FOO=1 cat a"])(
    "not a test run, a write, a chained or substituted command, or a fetch: %s",
    (command) => {
      expect(canBeHadAgain(bash("b1", command))).toBe(false);
    },
  );

  test("a shell call without a command string is not a read", () => {
    expect(canBeHadAgain(call("b1", "bash", {}))).toBe(false);
    expect(canBeHadAgain(call("b1", "bash", { command: 42 }))).toBe(false);
  });

  test("an unknown tool's output cannot be had again", () => {
    expect(canBeHadAgain(call("w1", "web_fetch", { url: "https://x" }))).toBe(false);
  });
});

describe("the summaries mode", () => {
  test("classic implies always, whatever the setting", () => {
    expect(summariesMode({ flushPolicy: "classic", summaries: "never" })).toBe("always");
    expect(summariesMode({ flushPolicy: "cost", summaries: "never" })).toBe("never");
  });
});

describe("splitting a batch", () => {
  const none = new Map<string, Supersession>();

  test("under auto a batch of reads goes without a summary, its calls marked", () => {
    const [split] = splitBatches([batchOf(call("r1", "read", { path: "a" }), bash("b2", "cat b"))], "auto", none);
    expect(split!.summarize.toolCalls).toEqual([]);
    expect(ids(split!.withoutSummary.toolCalls)).toEqual(["r1", "b2"]);
    expect(split!.withoutSummary.toolCalls.every((c) => c.unsummarized === true)).toBe(true);
  });

  test("under auto a batch holding a test run is summarized whole", () => {
    const [split] = splitBatches([batchOf(call("r1", "read", { path: "a" }), bash("b2", "npm test"))], "auto", none);
    expect(ids(split!.summarize.toolCalls)).toEqual(["r1", "b2"]);
    expect(split!.withoutSummary.toolCalls).toEqual([]);
  });

  test("a stale output leaves the summarized part and keeps what superseded it", () => {
    const stale = new Map<string, Supersession>([["b1@1001", { rule: "rerun", byKey: "b9@1009", byToolName: "bash", command: "npm test" }]]);
    const [split] = splitBatches([batchOf(bash("b1", "npm test"), bash("b2", "npm run build"))], "auto", stale);
    expect(ids(split!.summarize.toolCalls)).toEqual(["b2"]);
    expect(split!.withoutSummary.toolCalls).toEqual([{ ...bash("b1", "npm test"), unsummarized: true, supersededBy: { rule: "rerun", toolName: "bash", command: "npm test" } }]);
  });

  test("never archives everything without a summary", () => {
    const [split] = splitBatches([batchOf(bash("b1", "npm test"))], "never", none);
    expect(split!.summarize.toolCalls).toEqual([]);
    expect(ids(split!.withoutSummary.toolCalls)).toEqual(["b1"]);
  });

  test("always summarizes everything, stale or not", () => {
    const stale = new Map<string, Supersession>([["r1@1001", { rule: "edited", byKey: "e2@1002", byToolName: "edit", path: "a" }]]);
    const [split] = splitBatches([batchOf(call("r1", "read", { path: "a" }))], "always", stale);
    expect(ids(split!.summarize.toolCalls)).toEqual(["r1"]);
    expect(split!.withoutSummary.toolCalls).toEqual([]);
  });
});

describe("what a stale record keeps", () => {
  test("a path too long to name whole is left out rather than cut", () => {
    const by = persistedSupersession({ rule: "edited", byToolName: "edit", path: `src/${"x".repeat(400)}.ts` });
    expect(by).toEqual({ rule: "edited", toolName: "edit" });
  });

  test("a path with spaces and unicode is kept as it is", () => {
    expect(persistedSupersession({ rule: "edited", byToolName: "write", path: "docs/my notes/ünïcode 文件.md" }).path).toBe("docs/my notes/ünïcode 文件.md");
  });

  test("a multi-line command becomes one bounded line", () => {
    const by = persistedSupersession({ rule: "rerun", byToolName: "bash", command: `npm test\n${"y".repeat(500)}` });
    expect(by.command).not.toContain("\n");
    expect(by.command!.length).toBeLessThanOrEqual(200);
  });
});
