import { describe, expect, test } from "bun:test";
import type { AssistantMessage, ToolResultMessage } from "@earendil-works/pi-ai";
import { captureBatch } from "../capture/batch-capture.js";
import { DEFAULT_CONFIG, type ContextPruneConfig } from "../settings/config-shape.js";
import { summarySplit, withoutSummaryOf } from "./summary-split.js";

const turn = (calls: Array<{ id: string; name: string; args: Record<string, unknown> }>) => {
  const message = { role: "assistant", content: calls.map((c) => ({ type: "toolCall", id: c.id, name: c.name, arguments: c.args })), timestamp: 1 } as unknown as AssistantMessage;
  const results = calls.map((c) => ({ role: "toolResult", toolCallId: c.id, toolName: c.name, content: [{ type: "text", text: `output of ${c.id}` }], isError: false, timestamp: 2 }) as ToolResultMessage);
  return { message, results, batch: captureBatch(message, results, 0, 1) };
};
const config = (extra: Partial<ContextPruneConfig>) => ({ ...DEFAULT_CONFIG, enabled: true, ...extra }) as ContextPruneConfig;

describe("the what-if's choice of outputs stubbed without a summary", () => {
  test("under the cost policy's auto, a batch of reads the agent can have again goes without a summary", () => {
    const { message, results, batch } = turn([{ id: "r1", name: "read", args: { path: "a.ts" } }, { id: "r2", name: "bash", args: { command: "cat b.ts" } }]);
    const split = summarySplit([message, ...results], [batch], config({ flushPolicy: "cost", summaries: "auto" }))(batch);
    expect(split.summarize.toolCalls).toHaveLength(0);
    expect(split.withoutSummary.toolCalls.map((c) => c.toolCallId)).toEqual(["r1", "r2"]);
  });

  test("a batch with a command that changed something is summarized", () => {
    const { message, results, batch } = turn([{ id: "r1", name: "read", args: { path: "a.ts" } }, { id: "t1", name: "bash", args: { command: "npm test > log" } }]);
    const without = withoutSummaryOf([message, ...results], [batch], config({ flushPolicy: "cost", summaries: "auto" }));
    expect(batch.toolCalls.map(without)).toEqual([false, false]);
  });

  test("the classic policy summarizes everything, as 2.9.1 did", () => {
    const { message, results, batch } = turn([{ id: "r1", name: "read", args: { path: "a.ts" } }]);
    const without = withoutSummaryOf([message, ...results], [batch], config({ flushPolicy: "classic" }));
    expect(without(batch.toolCalls[0]!)).toBe(false);
  });

  test("summaries never stubs every output without one", () => {
    const { message, results, batch } = turn([{ id: "t1", name: "bash", args: { command: "npm test > log" } }]);
    const without = withoutSummaryOf([message, ...results], [batch], config({ flushPolicy: "cost", summaries: "never" }));
    expect(without(batch.toolCalls[0]!)).toBe(true);
  });
});
