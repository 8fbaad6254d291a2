import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { replaceSummarizedResults, type StubIndexer } from "./stub-replace.js";
import type { ToolCallRecord } from "./types.js";

const NO_GRACE: ReadonlySet<string> = new Set();

/** Every result is summarized; `spilled` ids get a sidecar record. */
function indexerFor(spilled: ReadonlySet<string> = new Set()): StubIndexer {
  const record = (id: string): ToolCallRecord => ({
    toolCallId: id,
    toolName: "bash",
    args: {},
    resultText: "x",
    isError: false,
    turnIndex: 0,
    timestamp: 1,
    ...(spilled.has(id) ? { spillPath: `/s/${id}-blobs/${id}.txt`, spillBytes: 123, resultPreview: 'head "quoted"\n' } : {}),
  });
  return {
    isSummarized: () => true,
    hasLegacyBareRecord: () => false,
    getRecord: (key) => record(key.split("@")[0]!),
    getShortRefForToolCallId: (key) => `t${key.length}`,
  };
}

const result = (toolCallId: string, extra: Record<string, unknown> = {}) => ({
  role: "toolResult",
  toolCallId,
  toolName: "bash",
  content: [{ type: "text", text: "raw output" }],
  isError: false,
  timestamp: 10,
  ...extra,
});

describe("replaceSummarizedResults", () => {
  test("keeps positions and reports NaN where nothing was stubbed", () => {
    const messages = [{ role: "user", content: "go", timestamp: 1 }, result("a")];
    const { messages: out, stubSizes } = replaceSummarizedResults(messages, indexerFor(), undefined, NO_GRACE);
    expect(out.length).toBe(2);
    expect(out[0]).toBe(messages[0]);
    expect(Number.isNaN(stubSizes![0]!)).toBe(true);
  });

  test("returns the input and no sizes when nothing is summarized", () => {
    const messages = [result("a")];
    const indexer = { ...indexerFor(), isSummarized: () => false };
    const stubbed = replaceSummarizedResults(messages, indexer, undefined, NO_GRACE);
    expect(stubbed.messages).toBe(messages);
    expect(stubbed.stubSizes).toBeNull();
  });

  test("each reported stub size is the stub's exact JSON length, whatever the message carries", () => {
    const oddValue = fc.oneof(fc.string(), fc.double(), fc.constant(undefined), fc.constant(null), fc.object({ maxDepth: 1 }));
    fc.assert(
      fc.property(fc.string(), oddValue, oddValue, fc.boolean(), (id, toolName, timestamp, spill) => {
        const messages = [result(id, { toolName, timestamp })];
        const indexer = indexerFor(spill ? new Set([id]) : new Set());
        const { messages: out, stubSizes } = replaceSummarizedResults(messages, indexer, undefined, NO_GRACE);
        return stubSizes![0] === JSON.stringify(out[0]).length;
      }),
      { numRuns: 1000 },
    );
  });
});
