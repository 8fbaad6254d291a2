import { describe, expect, test } from "bun:test";
import { requestChars } from "../render/message-size.js";
import type { CapturedBatch } from "../capture/records.js";
import { FAILED_EDIT_CHANCE, firstPendingIndex, measureChainRewrite, measureRewrite, NEED_CHANCE, SUMMARY_SHARE } from "./rewrite-figures.js";
import { SUMMARY_FRAME } from "../format/summary-frame.js";

/** One summary message's frame and refs footer. */
const MESSAGE = SUMMARY_FRAME.length + 140;

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

  test("the removed tokens are the outputs less a stub each; summaries are a share of the outputs and a message each batch", () => {
    const f = measureRewrite(messages, [batch("a", 11), batch("b", 21)])!;
    const raw = requestChars(messages[2]) + requestChars(messages[4]);
    expect(f.removedTokens).toBe((raw - 400) / 4);
    expect(f.summaryTokens).toBeCloseTo((raw * SUMMARY_SHARE + 2 * MESSAGE) / 4);
    expect(f.suffixTokens).toBe(messages.slice(2).reduce((n, m) => n + requestChars(m), 0) / 4);
  });

  test("the conversation before the rewrite and the content blocks after it say how far back it lies", () => {
    const closing = { role: "assistant", content: [{ type: "text", text: "done" }], timestamp: 30 };
    const f = measureRewrite(messages, [batch("a", 11)], closing)!;
    expect(f.prefixTokens).toBe((requestChars(user) + requestChars(messages[1])) / 4);
    expect(f.suffixBlocks).toBe(4);
  });

  test("the summarizer reads at most head and tail of a long output", () => {
    expect(measureRewrite(messages, [batch("b", 21)])!.summarizerInputTokens).toBe(8_000 / 4);
  });

  test("an output stubbed as a copy of an archived one removes its tokens without a summary or a summarizer call", () => {
    const f = measureRewrite(messages, [batch("a", 11), batch("b", 21)], undefined, (call) => call.toolCallId === "b")!;
    expect(f.removedTokens).toBe((requestChars(messages[2]) + requestChars(messages[4]) - 400) / 4);
    expect(f.summaryTokens).toBeCloseTo((requestChars(messages[2]) * SUMMARY_SHARE + MESSAGE) / 4);
    expect(f.summarizerInputTokens).toBe(requestChars(messages[2]) / 4);
  });

  test("an output with the same id but another occurrence is not measured", () => {
    expect(measureRewrite(messages, [batch("a", 99)])).toBeUndefined();
  });
});

describe("measureChainRewrite", () => {
  // Chain 1: user 0, call 1, result 2, reply 3; chain 2: user 4, call 5, result 6 (pending), reply 7.
  const messages = [
    user,
    call("a", 10),
    result("a", 11, 4_000),
    { role: "assistant", content: [{ type: "text", text: "read a" }], timestamp: 12 },
    { role: "user", content: [{ type: "text", text: "next" }], timestamp: 13 },
    call("b", 20),
    result("b", 21, 8_000),
    { role: "assistant", content: [{ type: "text", text: "read b" }], timestamp: 22 },
  ];
  const stubbedA = (key: string) => key === "a@11";

  test("removes the chain's middle as the request shows it (a summarized output as its stub)", () => {
    const f = measureChainRewrite(messages, [{ startIndex: 0, endIndex: 3 }], 6, stubbedA)!;
    expect(f.removedTokens).toBe((requestChars(messages[1]) + 200) / 4);
    expect(f.summaryTokens).toBeCloseTo(((requestChars(messages[1]) + 200) * SUMMARY_SHARE + 200) / 4);
  });

  test("the extra rewrite reaches from the chain's start to where the flush's own rewrite begins", () => {
    const f = measureChainRewrite(messages, [{ startIndex: 0, endIndex: 3 }], 6, stubbedA)!;
    const extra = [0, 1, 3, 4, 5].reduce((n, i) => n + requestChars(messages[i]), 200);
    expect(f.suffixTokens).toBe(extra / 4);
  });

  test("the entry before the chain's middle was last written by the request its first reply answered", () => {
    expect(measureChainRewrite(messages, [{ startIndex: 4, endIndex: 7 }], 8, stubbedA)!.entryWrittenAt).toBe(20);
  });

  test("no eligible chain, nothing to weigh", () => {
    expect(measureChainRewrite(messages, [], 6, stubbedA)).toBeUndefined();
  });

  test("the per-batch summary of the chain's outputs, after its reply, is dropped with it", () => {
    const summary = { role: "custom", customType: "context-prune-summary", content: "s".repeat(900), details: { toolCallRefs: [{ shortId: "t1", toolCallId: "a" }] }, timestamp: 12 };
    const other = { ...summary, details: { toolCallRefs: [{ shortId: "t2", toolCallId: "z" }] } };
    const withSummaries = [...messages.slice(0, 4), summary, other, ...messages.slice(4)];
    const f = measureChainRewrite(withSummaries, [{ startIndex: 0, endIndex: 3 }], 8, stubbedA)!;
    expect(f.removedTokens).toBe((requestChars(messages[1]) + 200 + requestChars(summary)) / 4);
  });
});

describe("firstPendingIndex", () => {
  test("is the index of the first pending output, or the branch's length when none is on it", () => {
    const messages = [user, call("a", 10), result("a", 11, 10)];
    expect(firstPendingIndex(messages, [batch("a", 11)])).toBe(2);
    expect(firstPendingIndex(messages, [batch("z", 99)])).toBe(3);
  });
});

describe("measureRewrite with argument stubs", () => {
  const content = "y".repeat(5_000);
  const writeCall = { role: "assistant", content: [{ type: "toolCall", id: "w", name: "write", arguments: { path: "a.ts", content } }], timestamp: 10 };
  const written = { role: "toolResult", toolCallId: "w", toolName: "write", content: [{ type: "text", text: "ok" }], isError: false, timestamp: 11 };
  const pending: CapturedBatch = {
    turnIndex: 0,
    timestamp: 11,
    assistantText: "",
    toolCalls: [{ toolCallId: "w", toolName: "write", args: { path: "a.ts", content }, resultText: "ok", isError: false, resultTimestamp: 11 }],
  };

  test("a call whose arguments are done with adds what its markers take off, and the rewrite starts at the call", () => {
    const without = measureRewrite([user, writeCall, written], [pending])!;
    const withArgs = measureRewrite([user, writeCall, written], [pending], undefined, () => false, () => true)!;
    expect(withArgs.removedTokens - without.removedTokens).toBe((5_000 - 150) / 4);
    expect(withArgs.prefixTokens).toBe(requestChars(user) / 4);
    expect(without.prefixTokens).toBe((requestChars(user) + requestChars(writeCall)) / 4);
  });

  test("a call not done with adds nothing", () => {
    expect(measureRewrite([user, writeCall, written], [pending], undefined, () => false, () => false)).toEqual(measureRewrite([user, writeCall, written], [pending]));
  });
});

describe("measureRewrite with the working set (issue 42)", () => {
  const messages = [user, call("a", 10), result("a", 11, 4_000), call("b", 20), result("b", 21, 40_000)];
  const none = new Set<string>();

  test("a pending output the working set keeps is neither removed nor where the rewrite starts", () => {
    const f = measureRewrite(messages, [batch("a", 11), batch("b", 21)], undefined, undefined, undefined, { kept: new Set(["a@11"]), released: none, hidden: [] })!;
    expect(f.removedTokens).toBe((requestChars(messages[4]) - 200) / 4);
    expect(f.suffixTokens).toBe(requestChars(messages[4]) / 4);
  });

  test("a kept output the write lets go is removed too, and the rewrite starts at it", () => {
    const f = measureRewrite(messages, [batch("b", 21)], undefined, undefined, undefined, { kept: none, released: new Set(["a@11"]), hidden: [] })!;
    expect(f.removedTokens).toBe((requestChars(messages[2]) - 200 + requestChars(messages[4]) - 200) / 4);
    expect(f.suffixTokens).toBe(messages.slice(2).reduce((n, m) => n + requestChars(m), 0) / 4);
  });

  test("every pending output kept raw makes a rewrite that removes nothing", () => {
    const f = measureRewrite(messages, [batch("a", 11)], undefined, undefined, undefined, { kept: new Set(["a@11"]), released: none, hidden: [] })!;
    expect(f.removedTokens).toBe(0);
  });

  test("what the rewrite hides of a latest view is an expected recovery: a round trip by chance, and a failed edit's for an edited file", () => {
    const f = measureRewrite(messages, [batch("b", 21)], undefined, undefined, undefined, { kept: none, released: none, hidden: [{ key: "b@21", chars: 40_000, edited: true }] })!;
    expect(f.recovery).toEqual({ roundTrips: NEED_CHANCE + FAILED_EDIT_CHANCE, rereadTokens: (NEED_CHANCE * 40_000) / 4 });
  });
});
