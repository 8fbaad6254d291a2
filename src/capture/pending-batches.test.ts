import { describe, expect, test } from "bun:test";
import { capturePendingBatches, frontierBarrier, type PendingSource } from "./pending-batches.js";
import { PruneFrontierTracker } from "./frontier.js";
import { occKey } from "./occurrence-key.js";

const entry = (message: any) => ({ type: "message", message });
const user = (ts: number) => entry({ role: "user", content: [{ type: "text", text: "go" }], timestamp: ts });
const turn = (ts: number, calls: Array<{ id: string; name: string; args?: unknown }>) => [
  entry({ role: "assistant", content: calls.map((c) => ({ type: "toolCall", id: c.id, name: c.name, arguments: c.args ?? {} })), timestamp: ts }),
  ...calls.map((c, i) => entry({ role: "toolResult", toolCallId: c.id, toolName: c.name, content: [{ type: "text", text: `out ${c.id}` }], isError: false, timestamp: ts + i + 1 })),
];

function source(protectedTools: string[] = [], frontier = new PruneFrontierTracker()): PendingSource {
  return {
    indexer: { isSummarized: () => false },
    frontier,
    pending: [],
    config: { value: { protectedTools, protectedPaths: [], batchingMode: "turn" } },
  };
}
const ctxOf = (branch: any[]) => ({ sessionManager: { getBranch: () => branch } }) as any;
const ids = (batches: ReturnType<typeof capturePendingBatches>) => batches.map((b) => b.toolCalls.map((c) => c.toolCallId));

describe("capturePendingBatches", () => {
  test("a context_tree_query recovery never enters a batch; the calls beside it do", () => {
    const branch = [user(1), ...turn(10, [{ id: "b1", name: "bash" }, { id: "q1", name: "context_tree_query", args: { toolCallIds: ["t1"] } }])];
    expect(ids(capturePendingBatches(source(), ctxOf(branch)))).toEqual([["b1"]]);
  });

  test("a turn that only recovers is no work at all", () => {
    const branch = [user(1), ...turn(10, [{ id: "q1", name: "context_tree_query", args: { toolCallIds: ["t1"] } }])];
    expect(capturePendingBatches(source(), ctxOf(branch))).toEqual([]);
  });

  test("protected calls stay out as before", () => {
    const branch = [user(1), ...turn(10, [{ id: "b1", name: "bash" }, { id: "w1", name: "todowrite" }])];
    expect(ids(capturePendingBatches(source(["todowrite"]), ctxOf(branch)))).toEqual([["b1"]]);
  });
});

describe("outputs a flush handled past where the frontier could move", () => {
  test("are not captured again while the tracker remembers them", () => {
    const frontier = new PruneFrontierTracker();
    frontier.noteAttemptedAhead([occKey("b2", 21)]);
    const branch = [user(1), ...turn(10, [{ id: "b1", name: "bash" }]), ...turn(20, [{ id: "b2", name: "bash" }])];
    expect(ids(capturePendingBatches(source([], frontier), ctxOf(branch)))).toEqual([["b1"]]);
  });

  test("are captured again once the tracker is rebuilt (a reload)", () => {
    const frontier = new PruneFrontierTracker();
    frontier.noteAttemptedAhead([occKey("b2", 21)]);
    frontier.reconstructFromSession(ctxOf([]));
    const branch = [user(1), ...turn(10, [{ id: "b1", name: "bash" }]), ...turn(20, [{ id: "b2", name: "bash" }])];
    expect(ids(capturePendingBatches(source([], frontier), ctxOf(branch)))).toEqual([["b1"], ["b2"]]);
  });
});

describe("frontierBarrier", () => {
  const branch = [user(1), ...turn(10, [{ id: "a1", name: "bash" }]), user(15), ...turn(20, [{ id: "b1", name: "bash" }]), ...turn(30, [{ id: "b2", name: "bash" }])];

  test("is the turn of the earliest waiting output the flush leaves out", () => {
    expect(frontierBarrier(source(), ctxOf(branch), new Set([occKey("b1", 21), occKey("b2", 31)]))).toBe(0);
  });

  test("is a later turn when the flush leaves out only later outputs", () => {
    expect(frontierBarrier(source(), ctxOf(branch), new Set([occKey("a1", 11)]))).toBe(1);
  });

  test("is undefined when the flush takes every waiting output", () => {
    expect(frontierBarrier(source(), ctxOf(branch), new Set([occKey("a1", 11), occKey("b1", 21), occKey("b2", 31)]))).toBeUndefined();
  });
});
