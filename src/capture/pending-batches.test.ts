import { describe, expect, test } from "bun:test";
import { capturePendingBatches, type PendingSource } from "./pending-batches.js";

const entry = (message: any) => ({ type: "message", message });
const user = (ts: number) => entry({ role: "user", content: [{ type: "text", text: "go" }], timestamp: ts });
const turn = (ts: number, calls: Array<{ id: string; name: string; args?: unknown }>) => [
  entry({ role: "assistant", content: calls.map((c) => ({ type: "toolCall", id: c.id, name: c.name, arguments: c.args ?? {} })), timestamp: ts }),
  ...calls.map((c, i) => entry({ role: "toolResult", toolCallId: c.id, toolName: c.name, content: [{ type: "text", text: `out ${c.id}` }], isError: false, timestamp: ts + i + 1 })),
];

function source(protectedTools: string[] = []): PendingSource {
  return {
    indexer: { isSummarized: () => false },
    frontier: { get: () => null },
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
