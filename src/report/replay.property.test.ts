import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { costModelFor } from "../economics/cost-model.js";
import { DEFAULT_CONFIG } from "../settings/config-shape.js";
import { replaySession } from "./replay.js";
import { parseSession } from "./session-parse.js";

const unpriced = () => ({ cost: costModelFor(undefined), contextWindow: 1000 });

/** Lines that look like session entries with random fields, random JSON, and plain text. */
const line = fc.oneof(
  fc.record({
    type: fc.constantFrom("message", "custom", "custom_message", "compaction", "context_edit", "session", "model_change"),
    id: fc.constantFrom("a", "b", "c", "d", "e"),
    parentId: fc.constantFrom(null, "a", "b", "c", "d", "e", "zz"),
    timestamp: fc.oneof(fc.constant("2025-01-01T00:00:00.000Z"), fc.string()),
    message: fc.oneof(
      fc.record({
        role: fc.constantFrom("user", "assistant", "toolResult", "system", "custom", "bashExecution"),
        content: fc.oneof(fc.string(), fc.array(fc.jsonValue(), { maxLength: 3 }), fc.constant(null)),
        toolCallId: fc.constantFrom("c1", "c2"),
        timestamp: fc.oneof(fc.integer(), fc.string()),
        usage: fc.jsonValue(),
      }),
      fc.jsonValue(),
    ),
    customType: fc.constantFrom("context-prune-summary", "context-prune-index", "context-prune-chain", "context-prune-stats", "other"),
    data: fc.jsonValue(),
    details: fc.jsonValue(),
    content: fc.jsonValue(),
    firstKeptEntryId: fc.constantFrom("a", "b", "zz"),
    targetId: fc.constantFrom("a", "b"),
  }).map((value) => JSON.stringify(value)),
  fc.jsonValue().map((value) => JSON.stringify(value)),
  fc.string(),
);

describe("the replay on arbitrary input", () => {
  test("never throws, whatever the lines hold", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(line, { maxLength: 25 }), async (lines) => {
        const parsed = parseSession(lines.join("\n"));
        const report = await replaySession({
          sessionId: parsed.id,
          branch: parsed.branch,
          problems: parsed.problems,
          config: { ...DEFAULT_CONFIG, enabled: true, minBatchChars: 0, autoBudgetThreshold: 0.01 },
          overrides: [],
          costModelOf: unpriced,
        });
        expect(report.scenarios.every((s) => s.context.length === report.requests)).toBe(true);
      }),
      { numRuns: Number(process.env.REPLAY_PROPERTY_RUNS ?? 300), seed: process.env.REPLAY_PROPERTY_SEED ? Number(process.env.REPLAY_PROPERTY_SEED) : undefined },
    );
  });
});
