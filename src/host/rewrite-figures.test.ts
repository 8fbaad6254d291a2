import { describe, expect, test } from "bun:test";
import { requestChars } from "../render/message-size.js";
import type { CapturedBatch } from "../types.js";
import { measureRewrite, SUMMARY_SHARE } from "./rewrite-figures.js";

const user = { role: "user", content: [{ type: "text", text: "go" }], timestamp: 1 };
const call = (id: string, ts: number) => ({ role: "assistant", content: [{ type: "toolCall", id, name: "read", arguments: { path: id } }], timestamp: ts });
const result = (id: string, ts: number, chars: number) => ({ role: "toolResult", toolCallId: id, toolName: "read", content: [{ type: "text", text: "x".repeat(chars) }], isError: false, timestamp: ts });
const batch = (id: string, ts: number): CapturedBatch => ({
  turnIndex: 0,
  timestamp: ts,
  assistantText: "",
  toolCalls: [{ toolCallId: id, toolName: "read", args: {}, resultText: "", isError: false, resultTimestamp: ts }],
});

describe("measureRewrite", () => {
  const messages = [user, call("a", 10), result("a", 11, 4_000), call("b", 20), result("b", 21, 40_000)];

  test("the suffix runs from the first pending output to the end, the closing reply included", () => {
    const closing = { role: "assistant", content: [{ type: "text", text: "done" }], timestamp: 30 };
    const f = measureRewrite(messages, [batch("b", 21)], closing)!;
    expect(f.suffixTokens).toBe((requestChars(messages[4]) + requestChars(closing)) / 4);
  });

  test("the removed tokens are the outputs less a stub each; summaries are a share of the outputs", () => {
    const f = measureRewrite(messages, [batch("a", 11), batch("b", 21)])!;
    const raw = requestChars(messages[2]) + requestChars(messages[4]);
    expect(f.removedTokens).toBe((raw - 400) / 4);
    expect(f.summaryTokens).toBeCloseTo((raw * SUMMARY_SHARE) / 4);
    expect(f.suffixTokens).toBe(messages.slice(2).reduce((n, m) => n + requestChars(m), 0) / 4);
  });

  test("the summarizer reads at most head and tail of a long output", () => {
    expect(measureRewrite(messages, [batch("b", 21)])!.summarizerInputTokens).toBe(8_000 / 4);
  });

  test("an output stubbed as a copy of an archived one removes its tokens without a summary or a summarizer call", () => {
    const f = measureRewrite(messages, [batch("a", 11), batch("b", 21)], undefined, (call) => call.toolCallId === "b")!;
    expect(f.removedTokens).toBe((requestChars(messages[2]) + requestChars(messages[4]) - 400) / 4);
    expect(f.summaryTokens).toBeCloseTo((requestChars(messages[2]) * SUMMARY_SHARE) / 4);
    expect(f.summarizerInputTokens).toBe(requestChars(messages[2]) / 4);
  });

  test("an output with the same id but another occurrence is not measured", () => {
    expect(measureRewrite(messages, [batch("a", 99)])).toBeUndefined();
  });
});
