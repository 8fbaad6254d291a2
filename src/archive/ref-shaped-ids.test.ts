import { describe, expect, test } from "bun:test";
import { ToolCallIndexer } from "./indexer.js";
import { CUSTOM_TYPE_INDEX, CUSTOM_TYPE_SUMMARY } from "../names.js";
import type { CapturedBatch } from "../capture/records.js";

// Local OpenAI-compatible servers and gateways emit short ids that repeat, some shaped like refs (`t3`).
const noop = () => {};
const batchOf = (calls: Array<[id: string, ts: number, text?: string]>): CapturedBatch => ({
  turnIndex: 0,
  timestamp: 1,
  assistantText: "",
  toolCalls: calls.map(([toolCallId, resultTimestamp, text]) => ({ toolCallId, toolName: "bash", args: { command: toolCallId }, resultText: text ?? `out ${toolCallId}@${resultTimestamp}`, isError: false, resultTimestamp })),
});

/** A flush as the host runs it: refs minted, the batch indexed, the refs registered. */
function archive(indexer: ToolCallIndexer, calls: Array<[string, number, string?]>): string[] {
  const batch = batchOf(calls);
  const refs = indexer.allocateSummaryRefs(batch);
  indexer.addBatch(batch, noop, refs);
  indexer.registerSummaryRefs(refs);
  return refs.map((ref) => ref.shortId);
}

const assistantEntry = (ids: string[]) => ({ type: "message", message: { role: "assistant", content: ids.map((id) => ({ type: "toolCall", id, name: "bash", arguments: {} })), timestamp: 5 } });
const ctxOf = (branch: unknown[]) => ({ sessionManager: { getBranch: () => branch } }) as any;

describe("short refs never equal a raw id of the session", () => {
  test("a batch whose raw ids look like refs gets refs past them", () => {
    const indexer = new ToolCallIndexer();
    expect(archive(indexer, [["t1", 100], ["t3", 101]])).toEqual(["t2", "t4"]);
  });

  test("raw ids the session showed before (calls not archived yet) are skipped", () => {
    const indexer = new ToolCallIndexer();
    indexer.noteCallIds(["t1", "t2", "call_0", 7]);
    expect(archive(indexer, [["c9", 100]])).toEqual(["t3"]);
  });

  test("after a reload the raw ids on the branch are skipped too", () => {
    const indexer = new ToolCallIndexer();
    indexer.reconstructFromSession(ctxOf([assistantEntry(["t1", "t2"])]));
    expect(archive(indexer, [["c9", 100]])).toEqual(["t3"]);
  });

  test("refs of chain backfills and of records without one skip them as well", async () => {
    const indexer = new ToolCallIndexer();
    indexer.noteCallIds(["t1"]);
    const refs = await indexer.backfillChainRecords(
      [{ toolCallId: "c1", toolName: "bash", args: {}, resultText: "x", isError: false, turnIndex: -1, timestamp: 10, resultTimestamp: 10 }],
      { spillThreshold: 1e9, spillPreviewBytes: 10, sessionDir: "", sessionId: "s", appendEntry: noop },
    );
    expect(refs.map((r) => r.shortId)).toEqual(["t2"]);
    indexer.addBatch(batchOf([["t3", 20]]), noop);
    indexer.ensureShortRefs(["t3@20"], noop);
    expect(indexer.getShortRefForToolCallId("t3@20")).toBe("t4");
  });
});

describe("one resolution order: a ref first, for every reader", () => {
  /** A ref `t1` minted for c1, then a call whose raw id is `t1` (the provider chose it later), archived as t2. */
  function collided() {
    const indexer = new ToolCallIndexer();
    archive(indexer, [["c1", 100, "FIRST"]]);
    archive(indexer, [["t1", 200, "RAW T1"]]);
    return indexer;
  }

  test("the render's lookup and the query's lookup both give the ref's output", () => {
    const indexer = collided();
    expect(indexer.getRecord("t1")!.resultText).toBe("FIRST");
    expect(indexer.getRecordsForId("t1").map((r) => r.resultText)).toEqual(["FIRST"]);
  });

  test("the raw id's own output is reached by its own ref and its occurrence key", () => {
    const indexer = collided();
    expect(indexer.getShortRefForToolCallId("t1@200")).toBe("t2");
    expect(indexer.getRecordsForId("t2").map((r) => r.resultText)).toEqual(["RAW T1"]);
    expect(indexer.getRecordsForId("t1@200").map((r) => r.resultText)).toEqual(["RAW T1"]);
  });

  test("the archive check refuses a stub naming the raw id for its own output", () => {
    const indexer = collided();
    const output = { full: () => "RAW T1", capped: () => undefined };
    expect(indexer.answers("t1", "t1@200", output)).toBe("the ref names another output");
    expect(indexer.answers("t2", "t1@200", output)).toBeUndefined();
  });

  test("an older session whose ref equals a legacy bare record's id still loads, and the ref wins", () => {
    const branch = [
      { type: "custom", customType: CUSTOM_TYPE_INDEX, data: { toolCalls: [{ toolCallId: "t1", toolName: "bash", args: {}, resultText: "LEGACY", isError: false, turnIndex: 0, timestamp: 1 }] } },
      { type: "custom", customType: CUSTOM_TYPE_INDEX, data: { toolCalls: [{ toolCallId: "c1", toolName: "bash", args: {}, resultText: "FIRST", isError: false, turnIndex: 1, timestamp: 2, resultTimestamp: 100 }] } },
      { type: "custom_message", customType: CUSTOM_TYPE_SUMMARY, content: "- `t1` ran", details: { toolCallRefs: [{ shortId: "t1", toolCallId: "c1", resultTimestamp: 100 }] } },
    ];
    const indexer = new ToolCallIndexer();
    indexer.reconstructFromSession(ctxOf(branch));
    expect(indexer.getRecord("t1")!.resultText).toBe("FIRST");
    expect(indexer.getRecordsForId("t1").map((r) => r.resultText)).toEqual(["FIRST"]);
    indexer.upgradeLegacyRefs(noop);
    const legacyRef = indexer.getShortRefForToolCallId("t1")!;
    expect(legacyRef).not.toBe("t1");
    expect(indexer.getRecordsForId(legacyRef).map((r) => r.resultText)).toEqual(["LEGACY"]);
  });
});

describe("a recovery of a ref-shaped id the index no longer holds as a ref", () => {
  test("is not trusted: the raw id may not be what the model was shown", () => {
    const indexer = new ToolCallIndexer();
    indexer.addBatch(batchOf([["t1", 200, "RAW T1"]]), noop);
    expect(indexer.archiveCheck().resolves("t1")).toBe(false);
    archive(indexer, [["c1", 300, "FIRST"]]);
    expect(indexer.archiveCheck().resolves("t2")).toBe(true);
  });
});
