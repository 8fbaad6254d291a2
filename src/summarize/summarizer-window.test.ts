import { describe, expect, test } from "bun:test";
import {
  clipForSummarizer,
  SUMMARIZER_INPUT_LIMIT,
  serializeBatchForSummarizer,
  serializeBatchWithinLimit,
} from "../capture/batch-capture.js";
import type { CapturedBatch, CapturedToolCall } from "../capture/records.js";

const call = (id: string, resultText: string, args: Record<string, unknown> = { id }): CapturedToolCall => ({
  toolCallId: id,
  toolName: "bash",
  args,
  resultText,
  isError: false,
});
const batch = (toolCalls: CapturedToolCall[]): CapturedBatch => ({ turnIndex: 0, timestamp: 1, assistantText: "", toolCalls });
const resultBody = (text: string) => serializeBatchForSummarizer(batch([call("a", text)])).split("Result (OK): ")[1]!;

describe("the summarizer input window (spec 70 §15)", () => {
  test("a result of 8,000 chars reaches the summarizer whole", () => {
    const raw = "r".repeat(8000);
    expect(resultBody(raw)).toBe(raw);
  });

  test("a result of 8,001 chars keeps its first and last 4,000 chars around the elided marker", () => {
    const raw = `${"h".repeat(4000)}m${"t".repeat(4000)}`;
    const body = resultBody(raw);
    expect(body).toBe(`${"h".repeat(4000)} ...[1 chars elided]... ${"t".repeat(4000)}`);
    expect(body).toHaveLength(8024);
  });

  test("a 20,000-char result keeps head and tail and names the 12,000 elided chars", () => {
    const raw = Array.from({ length: 20000 }, (_, i) => String.fromCharCode(97 + (i % 26))).join("");
    const body = resultBody(raw);
    expect(body.startsWith(raw.slice(0, 4000))).toBe(true);
    expect(body.endsWith(raw.slice(16000))).toBe(true);
    expect(body).toContain(" ...[12000 chars elided]... ");
  });

  test("the body length follows the formula at every boundary", () => {
    for (const length of [0, 1, 7999, 8000, 8001, 65535, 1008000]) {
      const raw = "x".repeat(length);
      const expected = length <= 8000 ? length : 8000 + 23 + String(length - 8000).length;
      expect(clipForSummarizer(raw)).toHaveLength(expected);
    }
  });

  test("an error on the last line of a 5,175-char result survives", () => {
    const raw = `${"ok\n".repeat(1700)}error TS2322: Type 'string' is not assignable to type 'number'.`;
    expect(resultBody(raw)).toContain("error TS2322");
  });

  test("a sentinel in the middle of a 20,000-char result is elided", () => {
    const raw = `${"a".repeat(10000)}SENTINEL${"b".repeat(9992)}`;
    expect(resultBody(raw)).not.toContain("SENTINEL");
  });

  test("two 9,000-char results keep both labels and one marker each", () => {
    const text = serializeBatchForSummarizer(batch([call("a", "x".repeat(9000)), call("b", "y".repeat(9000))]));
    expect(text).toContain("[[1:bash]]");
    expect(text).toContain("[[2:bash]]");
    expect(text.match(/chars elided/g)).toHaveLength(2);
  });

  test("tool-call arguments are windowed like results", () => {
    const huge = call("w", "written", { path: "big.txt", content: "c".repeat(900_000) });
    const text = serializeBatchForSummarizer(batch([huge]));
    expect(text.length).toBeLessThan(9000);
    expect(text).toContain('"path": "big.txt"');
    expect(text).toContain("chars elided");
  });
});

describe("batches too big for one summarizer call", () => {
  test("a batch that fits is serialized with the full window", () => {
    const small = batch([call("a", "x".repeat(9000))]);
    expect(serializeBatchWithinLimit(small)).toBe(serializeBatchForSummarizer(small));
  });

  test("a big batch narrows its window to fit the input limit", () => {
    const many = batch(Array.from({ length: 60 }, (_, i) => call(`c${i}`, "z".repeat(20000))));
    const text = serializeBatchWithinLimit(many)!;
    expect(text.length).toBeLessThanOrEqual(SUMMARIZER_INPUT_LIMIT);
    expect(text.match(/chars elided/g)).toHaveLength(60);
  });

  test("a batch no window can fit is reported as too big", () => {
    const huge = batch(Array.from({ length: 5000 }, (_, i) => call(`c${i}`, "z".repeat(2000))));
    expect(serializeBatchWithinLimit(huge)).toBeUndefined();
  });
});
