import { describe, expect, test } from "bun:test";
import { charsOf, elementSizesOfEach, IMAGE_TOKEN_ESTIMATE, requestChars } from "./message-size.js";
import { pruneMessages, sizeMessages } from "./pruner.js";

const screenshot = (chars: number) => ({ type: "image", data: "A".repeat(chars), mimeType: "image/png" });
const imageResult = (...blocks: unknown[]) => ({
  role: "toolResult",
  toolCallId: "r1",
  toolName: "read",
  content: [{ type: "text", text: "Read image file [image/png]" }, ...blocks],
  isError: false,
  timestamp: 1,
});
const slim = (msg: any) => ({ ...msg, content: msg.content.map((b: any) => (b.type === "image" ? { type: "image" } : b)) });

describe("charsOf", () => {
  test("an image costs 6,400 chars (1,600 tokens) plus its { type: image } stand-in, whatever its data length", () => {
    const msg = imageResult(screenshot(137_000));
    expect(IMAGE_TOKEN_ESTIMATE).toBe(1600);
    expect(charsOf(msg)).toBe(JSON.stringify(slim(msg)).length + 6400);
  });

  test("two images cost twice", () => {
    const msg = imageResult(screenshot(10), screenshot(50_000));
    expect(charsOf(msg)).toBe(JSON.stringify(slim(msg)).length + 2 * 6400);
  });

  test("a text-only message measures exactly its JSON", () => {
    const msg = { role: "user", content: [{ type: "text", text: 'quote " and \n newline' }], timestamp: 3 };
    expect(charsOf(msg)).toBe(JSON.stringify(msg).length);
  });

  test("a message whose content is a string measures its JSON", () => {
    const msg = { role: "user", content: "plain", timestamp: 3 };
    expect(charsOf(msg)).toBe(JSON.stringify(msg).length);
  });

  test("an image block without data or with an unknown mime type is still priced as one image", () => {
    const msg = imageResult({ type: "image" }, { type: "image", data: "QUJD", mimeType: "image/x-unknown" });
    expect(charsOf(msg)).toBe(JSON.stringify(slim(msg)).length + 2 * 6400);
  });

  test("the message itself is left as it was", () => {
    const image = screenshot(100);
    const msg = imageResult(image);
    charsOf(msg);
    expect(msg.content[1]).toBe(image);
    expect(image.data).toHaveLength(100);
  });
});

describe("sizeMessages with images", () => {
  test("a 137k-char base64 screenshot with a short text sizes far below its JSON", () => {
    const m = imageResult(screenshot(137_000));
    expect(sizeMessages([m])).toBe(charsOf(m) + 2);
    expect(sizeMessages([m])).toBeLessThan(JSON.stringify(m).length / 10);
  });

  test("the array punctuation is kept: 2 + sum + commas", () => {
    const a = imageResult(screenshot(500));
    const b = { role: "user", content: "next", timestamp: 2 };
    expect(sizeMessages([a, b])).toBe(2 + charsOf(a) + charsOf(b) + 1);
  });

  test("elementSizesOfEach prices each element like charsOf and requestChars, and a hole like null", () => {
    const a = imageResult(screenshot(500));
    const sizes = elementSizesOfEach([a, , { role: "user", content: "x" }]);
    expect(Array.from(sizes.full)).toEqual([charsOf(a), 4, JSON.stringify({ role: "user", content: "x" }).length]);
    expect(Array.from(sizes.counted)).toEqual([requestChars(a), 4, JSON.stringify({ role: "user", content: "x" }).length]);
  });
});

describe("the reclaim figure of a render", () => {
  const call = { role: "assistant", content: [{ type: "toolCall", id: "r1", name: "read", arguments: { path: "shot.png" } }], timestamp: 0 };
  const summarizedR1 = {
    isSummarized: (key: string) => key === "r1@1",
    hasLegacyBareRecord: () => false,
    getShortRefForToolCallId: (key: string) => (key === "r1@1" ? "t1" : undefined),
    getRecord: () => undefined,
    getChainEntries: () => [],
    getPerBatchSummaryTextForToolCallIds: () => "",
  };

  test("a stubbed screenshot reclaims about 1,600 tokens, not its base64 length", () => {
    const messages = [call, imageResult(screenshot(137_000))];
    const out = pruneMessages(messages, summarizedR1 as any);
    expect(out.pruned).toBe(true);
    expect(out.beforeChars).toBe(sizeMessages(messages));
    expect(out.afterChars).toBe(sizeMessages(out.messages));
    const reclaimedTokens = (out.beforeChars - out.afterChars) / 4;
    expect(reclaimedTokens).toBeGreaterThan(1500);
    expect(reclaimedTokens).toBeLessThan(1700);
  });
});

describe("requestChars", () => {
  test("counts role, content and the result's id, name and status, not details or the timestamp", () => {
    const result = { role: "toolResult", toolCallId: "q", toolName: "read", content: [{ type: "text", text: "out" }], details: { big: "d".repeat(5000) }, isError: false, timestamp: 17 };
    const { details: _d, timestamp: _t, ...sent } = result;
    expect(requestChars(result)).toBe(JSON.stringify(sent).length);
  });

  test("leaves out an assistant's usage, model and stop reason but keeps its tool-call arguments", () => {
    const reply = {
      role: "assistant",
      content: [{ type: "toolCall", id: "c1", name: "write", arguments: { path: "a", content: "x".repeat(300) } }],
      usage: { input: 100, output: 20, cacheRead: 0, cacheWrite: 0, cost: { total: 0.01 } },
      api: "anthropic-messages",
      provider: "anthropic",
      model: "claude",
      stopReason: "toolUse",
      timestamp: 9,
    };
    expect(requestChars(reply)).toBe(JSON.stringify({ role: reply.role, content: reply.content }).length);
  });

  test("prices an image flat in the request view too", () => {
    const msg = imageResult(screenshot(137_000));
    const { timestamp: _t, ...sent } = slim(msg);
    expect(requestChars(msg)).toBe(JSON.stringify(sent).length + 6400);
  });
});
