import { describe, expect, test } from "bun:test";
import { ToolCallIndexer } from "../archive/indexer.js";
import { captureBatch } from "../capture/batch-capture.js";
import { replaceSummarizedResults } from "./stub-replace.js";

const NO_GRACE: ReadonlySet<string> = new Set();
const noop = () => {};

const assistant = (id: string, name: string, args: Record<string, unknown>) => ({
  role: "assistant",
  content: [{ type: "toolCall", id, name, arguments: args }],
  timestamp: 5,
});
const result = (id: string, name: string, text: string, isError = false, timestamp = 10) => ({
  role: "toolResult",
  toolCallId: id,
  toolName: name,
  content: [{ type: "text", text }],
  isError,
  timestamp,
});

/** The transcript of one call and the index holding its archived original under ref t1. */
function archived(name: string, args: Record<string, unknown>, text: string, isError = false) {
  const call = assistant("c1", name, args);
  const res = result("c1", name, text, isError);
  const indexer = new ToolCallIndexer();
  const batch = captureBatch(call, [res], 0, 1);
  indexer.addBatch(batch, noop);
  indexer.registerSummaryRefs([{ shortId: "t1", toolCallId: "c1", resultTimestamp: 10 }]);
  return { messages: [{ role: "user", content: "go", timestamp: 1 }, call, res], indexer };
}

const stubOf = (messages: any[], indexer: ToolCallIndexer) => replaceSummarizedResults(messages, indexer, undefined, NO_GRACE).messages[2].content[0].text;

describe("stubs that keep the outcome (issue 18)", () => {
  test("a failed command's stub names its exit code, first error and totals, and how to search", () => {
    const { messages, indexer } = archived("bash", { command: "npm test" }, "error: boom\n 3 pass\n 1 fail\n\nCommand exited with code 1", true);
    expect(stubOf(messages, indexer)).toBe(
      "[Summarized in pruner summary, ref `t1`. Outcome: exit 1; first error: error: boom; totals: 3 pass | 1 fail. " +
        "Use context_tree_query to retrieve the full output, or pass pattern to search it.]",
    );
  });

  test("the stub is the same text on every render", () => {
    const { messages, indexer } = archived("read", { path: "src/a.ts" }, "a\nb\n");
    const first = stubOf(messages, indexer);
    expect(first).toContain("Outcome: src/a.ts: 2 lines.");
    expect(stubOf(messages, indexer)).toBe(first);
    expect(stubOf(structuredClone(messages), indexer)).toBe(first);
  });

  test("a record without outcome facts keeps the stub text of earlier versions exactly", () => {
    const { messages, indexer } = archived("grep", { pattern: "x" }, "a.ts:1:x");
    expect(stubOf(messages, indexer)).toBe("[Summarized in pruner summary, ref `t1`. Use context_tree_query to retrieve full output.]");
  });

  test("facts persisted on a record are shown as stored, not read again from the output", () => {
    const { messages, indexer } = archived("bash", { command: "ls" }, "a");
    indexer.getIndex().get("c1@10")!.outcome = "exit 7; stored at capture";
    expect(stubOf(messages, indexer)).toContain("Outcome: exit 7; stored at capture.");
  });

  test("a record whose id is not a string (it slipped past validation) gets the stub without facts instead of a throw", () => {
    const { messages, indexer } = archived("bash", { command: "ls" }, "a");
    (indexer.getIndex().get("c1@10") as any).toolCallId = { toString: 1 };
    expect(stubOf(messages, indexer)).toBe("[Summarized in pruner summary, ref `t1`. Use context_tree_query to retrieve full output.]");
  });

  test("a dedup duplicate gets the stub without facts: its original's may name another path", () => {
    const { messages, indexer } = archived("read", { path: "a.ts" }, "same text");
    indexer.registerDuplicate("c2@20", "c1@10", noop, { args: { path: "b.ts" } });
    const copy = [...messages, assistant("c2", "read", { path: "b.ts" }), result("c2", "read", "same text", false, 20)];
    const out = replaceSummarizedResults(copy, indexer, undefined, NO_GRACE).messages;
    expect(out[4].content[0].text).toBe("[Summarized in pruner summary, ref `t1`. Use context_tree_query to retrieve full output.]");
  });

  test("a spilled record's stub carries an Outcome line and the search hint", () => {
    const { messages, indexer } = archived("bash", { command: "make" }, "x\nCommand exited with code 2", true);
    Object.assign(indexer.getIndex().get("c1@10")!, { resultText: "", spillPath: "/s/sid-blobs/c1_10.txt", spillBytes: 99, resultPreview: "x" });
    const lines = stubOf(messages, indexer).split("\n");
    expect(lines[2]).toBe("Outcome: exit 2");
    expect(lines.at(-1)).toEndWith(', or pass pattern to search it, e.g. pattern: "error".');
  });
});

describe("outcome facts across a reload", () => {
  test("the index entry carries the facts, and a rebuilt index stubs with exactly the same text", () => {
    const entries: any[] = [];
    const call = assistant("c1", "bash", { command: "make" });
    const res = result("c1", "bash", "make: *** [all] Error 2\n\nCommand exited with code 2", true);
    const live = new ToolCallIndexer();
    live.addBatch(captureBatch(call, [res], 0, 1), (customType, data) => entries.push({ type: "custom", customType, data }));
    const refs = [{ shortId: "t1", toolCallId: "c1", resultTimestamp: 10 }];
    live.registerSummaryRefs(refs);
    entries.push({ type: "custom_message", customType: "context-prune-summary", content: "- `t1` make failed", details: { toolCallRefs: refs, toolNames: ["bash"], turnIndex: 0, timestamp: 1 } });
    expect(entries[0].data.toolCalls[0].outcome).toBe("exit 2; first error: make: *** [all] Error 2");
    const rebuilt = new ToolCallIndexer();
    rebuilt.reconstructFromSession({ sessionManager: { getBranch: () => entries } } as any);
    const messages = [{ role: "user", content: "go", timestamp: 1 }, call, res];
    expect(stubOf(messages, rebuilt)).toBe(stubOf(messages, live));
  });
});

/** The transcript of one call archived without a summary (as `summaries: "auto"` archives a read), under ref t1. */
function archivedWithoutSummary(name: string, args: Record<string, unknown>, text: string, isError = false) {
  const call = assistant("c1", name, args);
  const res = result("c1", name, text, isError);
  const indexer = new ToolCallIndexer();
  const batch = captureBatch(call, [res], 0, 1);
  batch.toolCalls[0]!.unsummarized = true;
  indexer.addBatch(batch, noop);
  indexer.registerSummaryRefs([{ shortId: "t1", toolCallId: "c1", resultTimestamp: 10 }]);
  return { messages: [{ role: "user", content: "go", timestamp: 1 }, call, res], indexer };
}

describe("digest stubs of outputs archived without a summary (issue 26)", () => {
  const TRACE = 'Traceback (most recent call last):\n  File "/repo/app.py", line 9, in main\nKeyError: \'user\'\n\nCommand exited with code 1';

  test("the stub is the ref, the digest and how to get the output back", () => {
    const { messages, indexer } = archivedWithoutSummary("bash", { command: "python app.py" }, TRACE, true);
    expect(stubOf(messages, indexer)).toBe("[`t1` archived: exit 1; KeyError: 'user'; /repo/app.py:9]");
  });

  test("the digest shown is the one stored at capture, word for word", () => {
    const { messages, indexer } = archivedWithoutSummary("bash", { command: "ls" }, "a");
    indexer.getIndex().get("c1@10")!.digest = "stored at capture";
    expect(stubOf(messages, indexer)).toBe("[`t1` archived: stored at capture]");
  });

  test("a record captured before digests keeps the stub with its outcome facts", () => {
    const { messages, indexer } = archivedWithoutSummary("read", { path: "src/a.ts" }, "a\nb\n");
    delete indexer.getIndex().get("c1@10")!.digest;
    expect(stubOf(messages, indexer)).toBe(
      "[Archived without a summary, ref `t1`. Outcome: src/a.ts: 2 lines. Use context_tree_query to retrieve the full output, or pass pattern to search it.]",
    );
  });

  test("a summarized record's stub never shows the digest", () => {
    const { messages, indexer } = archived("bash", { command: "python app.py" }, TRACE, true);
    expect(indexer.getIndex().get("c1@10")!.digest).toBeDefined();
    expect(stubOf(messages, indexer)).toStartWith("[Summarized in pruner summary, ref `t1`. Outcome: exit 1;");
  });

  test("a dedup duplicate gets no digest: its original's may describe another call", () => {
    const { messages, indexer } = archivedWithoutSummary("read", { path: "a.ts" }, "def same(): pass");
    indexer.registerDuplicate("c2@20", "c1@10", noop, { args: { path: "b.ts" } });
    const copy = [...messages, assistant("c2", "read", { path: "b.ts" }), result("c2", "read", "def same(): pass", false, 20)];
    const out = replaceSummarizedResults(copy, indexer, undefined, NO_GRACE).messages;
    expect(out[4].content[0].text).toBe("[Archived without a summary, ref `t1`. Use context_tree_query to retrieve the full output, or pass pattern to search it.]");
  });
});

describe("digests across a reload", () => {
  const FAIL = 'File "/repo/app.py", line 9, in main\nKeyError: \'user\'\n\nCommand exited with code 1';

  test("the index entry carries the digest, and a rebuilt index stubs with exactly the same text", () => {
    const entries: any[] = [];
    const call = assistant("c1", "bash", { command: "python app.py" });
    const res = result("c1", "bash", FAIL, true);
    const batch = captureBatch(call, [res], 0, 1);
    batch.toolCalls[0]!.unsummarized = true;
    const live = new ToolCallIndexer();
    live.addBatch(batch, (customType, data) => entries.push({ type: "custom", customType, data }));
    live.registerSummaryRefs([{ shortId: "t1", toolCallId: "c1", resultTimestamp: 10 }]);
    entries.push({ type: "custom", customType: "context-prune-index", data: { toolCalls: [], backfilled: true, refs: [{ shortId: "t1", toolCallId: "c1", resultTimestamp: 10 }] } });
    expect(entries[0].data.toolCalls[0].digest).toBe("exit 1; KeyError /repo/app.py:9");
    const rebuilt = new ToolCallIndexer();
    rebuilt.reconstructFromSession({ sessionManager: { getBranch: () => entries } } as any);
    const messages = [{ role: "user", content: "go", timestamp: 1 }, call, res];
    expect(stubOf(messages, rebuilt)).toBe(stubOf(messages, live));
    expect(stubOf(messages, rebuilt)).toContain("exit 1; KeyError /repo/app.py:9");
  });

  test("a record rebuilt from the transcript (its index line lost in a crash) gets the digest the capture read", () => {
    const call = assistant("c1", "bash", { command: "python app.py" });
    const res = result("c1", "bash", FAIL, true);
    const refs = [{ shortId: "t1", toolCallId: "c1", resultTimestamp: 10 }];
    const branch = [
      { type: "message", message: call },
      { type: "message", message: res },
      { type: "custom_message", customType: "context-prune-summary", content: "- `t1` failed", details: { toolCallRefs: refs, toolNames: ["bash"], turnIndex: 0, timestamp: 1 } },
    ];
    const rebuilt = new ToolCallIndexer();
    rebuilt.reconstructFromSession({ sessionManager: { getBranch: () => branch } } as any);
    expect(rebuilt.getIndex().get("c1@10")!.digest).toBe(captureBatch(call, [res], 0, 1).toolCalls[0]!.digest!);
  });
});
