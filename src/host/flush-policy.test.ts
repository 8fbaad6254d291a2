import { describe, expect, test } from "bun:test";
import type { CapturedBatch } from "../types.js";
import { inRunCandidates } from "./flush-policy.js";

const batch = (turnIndex: number, userTurnGroup: number): CapturedBatch => ({ turnIndex, userTurnGroup, timestamp: turnIndex, assistantText: "", toolCalls: [] });
const turns = (batches: CapturedBatch[]) => batches.map((b) => b.turnIndex);

describe("inRunCandidates", () => {
  // Prompt 1 (group 1) left turns 0 and 1 deferred; the run of prompt 2 (group 2) is at turn 6.
  const pending = [batch(0, 1), batch(1, 1), batch(3, 2), batch(4, 2), batch(5, 2), batch(6, 2)];

  test("takes the run's own batches except the two latest tool turns", () => {
    expect(turns(inRunCandidates(pending, 6, false))).toEqual([3, 4]);
  });

  test("with the rewrite forced it takes earlier prompts' deferred batches too", () => {
    expect(turns(inRunCandidates(pending, 6, true))).toEqual([0, 1, 3, 4]);
  });

  test("early in a run nothing is old enough", () => {
    expect(inRunCandidates([batch(0, 1), batch(3, 2)], 3, false)).toEqual([]);
  });
});
