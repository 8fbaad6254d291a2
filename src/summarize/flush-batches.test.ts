import { describe, expect, test } from "bun:test";
import type { CapturedBatch } from "../capture/records.js";
import { classifyBatches, isTrivialBatch } from "./flush-batches.js";

const batchOf = (toolName: string, args: Record<string, unknown>, resultText = "ok"): CapturedBatch => ({
  turnIndex: 0,
  timestamp: 1,
  assistantText: "",
  toolCalls: [{ toolCallId: "c1", toolName, args, resultText, isError: false, resultTimestamp: 2 }],
});
const bigEdit = batchOf("edit", { path: "a.ts", edits: [{ oldText: "o".repeat(300), newText: "n".repeat(300) }] }, "Successfully replaced text in a.ts.");
const classify = (batch: CapturedBatch, stubArguments: boolean) => classifyBatches([{ batch, deduped: [] }], 1000, () => "ready" as const, undefined, stubArguments);

describe("small outputs with bulky arguments (argument stubs)", () => {
  test("a batch under minBatchChars whose edit carries bulky texts is archived without a summary", () => {
    const [prepared] = classify(bigEdit, true);
    expect(prepared!.kind).toBe("unsummarized");
    expect(prepared!.batch.toolCalls[0]!.unsummarized).toBe(true);
  });

  test("with argument stubs off it stays a trivial batch", () => {
    expect(classify(bigEdit, false)[0]!.kind).toBe("trivial");
  });

  test("a small batch with short arguments stays trivial", () => {
    expect(classify(batchOf("edit", { path: "a.ts", oldText: "a", newText: "b" }), true)[0]!.kind).toBe("trivial");
  });

  test("isTrivialBatch agrees, so the cost policy weighs such a batch", () => {
    expect(isTrivialBatch(bigEdit, 1000, true)).toBe(false);
    expect(isTrivialBatch(bigEdit, 1000, false)).toBe(true);
  });
});
