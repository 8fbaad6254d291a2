import { describe, expect, spyOn, test } from "bun:test";
import { PruneFrontierTracker } from "./frontier.js";
import { ToolCallIndexer } from "../archive/indexer.js";
import { pruneMessages } from "../render/pruner.js";
import { CUSTOM_TYPE_CHAIN, CUSTOM_TYPE_FRONTIER, CUSTOM_TYPE_INDEX, CUSTOM_TYPE_SUMMARY } from "../names.js";
import type { PruneFrontier } from "./records.js";

const full: PruneFrontier = {
  lastAttemptedToolCallId: "bash_9",
  lastAttemptedToolName: "bash",
  lastAttemptedTurnIndex: 4,
  lastAttemptedTimestamp: 2000,
  attemptedBatchCount: 2,
  attemptedToolCallCount: 3,
  rawCharCount: 5000,
  summaryCharCount: 300,
  outcome: "skipped-deduped",
};
const frontierEntry = (data: unknown) => ({ type: "custom", customType: CUSTOM_TYPE_FRONTIER, data });
const ctxOf = (branch: any[]) => ({ sessionManager: { getBranch: () => branch } }) as any;

describe("PruneFrontierTracker", () => {
  test("fromJSON loads a full frontier (33)", () => {
    const tracker = new PruneFrontierTracker();
    tracker.fromJSON(full);
    expect(tracker.get()?.lastAttemptedToolCallId).toBe("bash_9");
    expect(tracker.get()?.outcome).toBe("skipped-deduped");
  });

  test("fromJSON ignores an empty object (34)", () => {
    const tracker = new PruneFrontierTracker();
    tracker.fromJSON({} as PruneFrontier);
    expect(tracker.get()).toBeNull();
  });

  test("a removed legacy field loads and is dropped (35)", () => {
    const tracker = new PruneFrontierTracker();
    tracker.fromJSON({ ...full, thinkingStripBoundaryTimestamp: 1234 } as PruneFrontier);
    expect(tracker.get()).toEqual(full);
    expect(Object.hasOwn(tracker.get()!, "thinkingStripBoundaryTimestamp")).toBe(false);
  });

  test("missing fields take their defaults (F1)", () => {
    const tracker = new PruneFrontierTracker();
    tracker.fromJSON({ lastAttemptedToolCallId: "x" } as PruneFrontier);
    expect(tracker.get()).toEqual({
      lastAttemptedToolCallId: "x",
      lastAttemptedToolName: "unknown",
      lastAttemptedTurnIndex: 0,
      lastAttemptedTimestamp: 0,
      attemptedBatchCount: 0,
      attemptedToolCallCount: 0,
      rawCharCount: 0,
      summaryCharCount: 0,
      outcome: "summarized",
    });
  });

  test("rebuild reads the frontier entry from the branch (36)", () => {
    const tracker = new PruneFrontierTracker();
    tracker.reconstructFromSession(ctxOf([frontierEntry({ ...full, lastAttemptedTimestamp: 2000 })]));
    expect(tracker.get()?.lastAttemptedTimestamp).toBe(2000);
  });

  test("the last valid entry wins and an invalid later one does not clear it (F2)", () => {
    const errors = spyOn(console, "error").mockImplementation(() => {});
    try {
      const tracker = new PruneFrontierTracker();
      tracker.advance({ ...full, lastAttemptedToolCallId: "stale" });
      tracker.reconstructFromSession(
        ctxOf([frontierEntry(full), frontierEntry({ ...full, lastAttemptedToolCallId: "later" }), frontierEntry({}), frontierEntry(undefined)]),
      );
      expect(tracker.get()?.lastAttemptedToolCallId).toBe("later");
      expect(errors).toHaveBeenCalledTimes(1);
    } finally {
      errors.mockRestore();
    }
  });

  test("a later entry with a wrong-typed field is skipped with one diagnostic and the earlier one stays", () => {
    const errors = spyOn(console, "error").mockImplementation(() => {});
    try {
      const tracker = new PruneFrontierTracker();
      tracker.reconstructFromSession(
        ctxOf([
          frontierEntry(full),
          frontierEntry({ ...full, lastAttemptedToolCallId: "bad-turn", lastAttemptedTurnIndex: "7" }),
          frontierEntry({ ...full, lastAttemptedToolCallId: "bad-outcome", outcome: "exploded" }),
          frontierEntry({ ...full, lastAttemptedToolCallId: { toString: 1 } }),
        ]),
      );
      expect(tracker.get()).toEqual(full);
      expect(errors).toHaveBeenCalledTimes(3);
      expect(String(errors.mock.calls[0]![0])).toContain(`${CUSTOM_TYPE_FRONTIER} entry (lastAttemptedTurnIndex is not a finite number)`);
    } finally {
      errors.mockRestore();
    }
  });

  test("rebuild resets to null when the branch has no frontier (F2)", () => {
    const tracker = new PruneFrontierTracker();
    tracker.advance(full);
    tracker.reconstructFromSession(ctxOf([]));
    expect(tracker.get()).toBeNull();
  });

  test("get and advance work on copies (F3)", () => {
    const tracker = new PruneFrontierTracker();
    const input = { ...full };
    tracker.advance(input);
    input.lastAttemptedTurnIndex = 99;
    tracker.get()!.lastAttemptedTurnIndex = 77;
    expect(tracker.get()?.lastAttemptedTurnIndex).toBe(4);
  });

  test("persist appends the current frontier and nothing when null (F3)", () => {
    const calls: [string, unknown][] = [];
    const pi = { appendEntry: (t: string, d: unknown) => calls.push([t, d]) } as any;
    const tracker = new PruneFrontierTracker();
    tracker.persist(pi);
    tracker.advance(full);
    tracker.persist(pi);
    expect(calls).toEqual([[CUSTOM_TYPE_FRONTIER, full]]);
  });

  test("reset clears the frontier", () => {
    const tracker = new PruneFrontierTracker();
    tracker.advance(full);
    tracker.reset();
    expect(tracker.get()).toBeNull();
  });
});

describe("legacy frontier with a render (37)", () => {
  const user = (ts: number) => ({ role: "user", content: [{ type: "text", text: `u${ts}` }], timestamp: ts });
  const thinking = { type: "thinking", thinking: "hmm" };
  const callTurn = (ts: number, id: string) => ({
    role: "assistant",
    content: [thinking, { type: "toolCall", id, name: "bash", arguments: { cmd: id } }],
    timestamp: ts,
  });
  const reply = (ts: number) => ({ role: "assistant", content: [thinking, { type: "text", text: "done" }], timestamp: ts });
  const result = (ts: number, id: string) => ({ role: "toolResult", toolCallId: id, toolName: "bash", content: [{ type: "text", text: `raw ${id}` }], isError: false, timestamp: ts });

  test("rebuild tolerates the legacy field and rendering still stubs, compresses and keeps thinking", () => {
    const messages = [
      user(100), callTurn(200, "c1"), result(250, "c1"), reply(300),
      user(400), callTurn(500, "s1"), result(550, "s1"), reply(600),
      user(700), reply(800), user(900), reply(1000),
    ];
    const branch = [
      ...messages.map((message) => ({ type: "message", message })),
      { type: "custom", customType: CUSTOM_TYPE_INDEX, data: { toolCalls: [{ toolCallId: "s1", toolName: "bash", args: { cmd: "s1" }, resultText: "raw s1", isError: false, turnIndex: 2, timestamp: 560, resultTimestamp: 550 }] } },
      { type: "custom_message", customType: CUSTOM_TYPE_SUMMARY, content: "- `t1` ran s1", display: false, details: { toolCallRefs: [{ shortId: "t1", toolCallId: "s1", resultTimestamp: 550 }], toolNames: ["bash"], turnIndex: 2, timestamp: 560 } },
      { type: "custom", customType: CUSTOM_TYPE_CHAIN, data: { blockId: "b1", startUserTimestamp: 100, droppedToolCallIds: ["c1"], droppedOccurrenceKeys: ["c1@250"], finalAssistantTimestamp: 300, toolRefs: [], compressedAt: 301, rangeSummaryText: "chain one body" } },
      frontierEntry({ ...full, thinkingStripBoundaryTimestamp: 450 }),
    ];
    const tracker = new PruneFrontierTracker();
    const indexer = new ToolCallIndexer();
    expect(() => {
      tracker.reconstructFromSession(ctxOf(branch));
      indexer.reconstructFromSession(ctxOf(branch));
    }).not.toThrow();
    expect(Object.hasOwn(tracker.get()!, "thinkingStripBoundaryTimestamp")).toBe(false);

    const out = pruneMessages(messages, indexer, { enabled: true, rollingWindow: 3, stripFinalAssistantThinking: false, fuseRangeSummary: false });
    expect(out.pruned).toBe(true);
    const stub = out.messages.find((m: any) => m.role === "toolResult" && m.toolCallId === "s1");
    expect(stub.content[0].text).toContain("`t1`");
    expect(out.messages.some((m: any) => m.role === "user" && m.content[0].text.startsWith("<compressed-chain"))).toBe(true);
    const assistants = out.messages.filter((m: any) => m.role === "assistant");
    expect(assistants).toHaveLength(5);
    expect(assistants.every((m: any) => m.content.some((b: any) => b.type === "thinking"))).toBe(true);
  });
});
