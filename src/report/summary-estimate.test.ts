import { describe, expect, test } from "bun:test";
import { calibrateSummaryEstimate, DEFAULT_SUMMARY_RATIO, estimateSummaryChars } from "./summary-estimate.js";

let id = 0;
function result(callId: string, chars: number, timestamp: number): any {
  return { type: "message", id: `r${++id}`, parentId: null, timestamp: "", message: { role: "toolResult", toolCallId: callId, toolName: "bash", content: [{ type: "text", text: "x".repeat(chars) }], isError: false, timestamp } };
}
function summary(refs: Array<[string, string, number]>, chars: number): any {
  return {
    type: "custom_message",
    id: `s${++id}`,
    parentId: null,
    timestamp: "",
    customType: "context-prune-summary",
    content: "y".repeat(chars),
    display: false,
    details: { toolCallRefs: refs.map(([shortId, toolCallId, resultTimestamp]) => ({ shortId, toolCallId, resultTimestamp })), toolNames: ["bash"], turnIndex: 0, timestamp: 1 },
  };
}

describe("calibrateSummaryEstimate", () => {
  test("no real summaries: the default ratio, no error figure", () => {
    expect(calibrateSummaryEstimate([result("a", 1000, 1)])).toMatchObject({ ratio: DEFAULT_SUMMARY_RATIO, samples: 0, meanAbsError: undefined });
  });

  test("the ratio is the real summary chars over the outputs their refs name", () => {
    const branch = [result("a", 1000, 1), result("b", 3000, 2), summary([["t1", "a", 1]], 100), summary([["t2", "b", 2]], 300)];
    const estimate = calibrateSummaryEstimate(branch);
    expect(estimate.samples).toBe(2);
    expect(estimate.ratio).toBeCloseTo(0.1, 9);
    expect(estimate.meanAbsError).toBeCloseTo(0, 9);
  });

  test("the error is leave-one-out: each summary predicted from the others", () => {
    const branch = [result("a", 1000, 1), result("b", 1000, 2), summary([["t1", "a", 1]], 100), summary([["t2", "b", 2]], 200)];
    // a predicted at 0.2 (200 vs 100: 100%), b at 0.1 (100 vs 200: 50%).
    expect(calibrateSummaryEstimate(branch).meanAbsError).toBeCloseTo(0.75, 9);
  });

  test("the ratio is capped at 1: a flush never keeps a summary longer than its outputs", () => {
    const estimate = calibrateSummaryEstimate([result("a", 10, 1), summary([["t1", "a", 1]], 500)]);
    expect(estimate.ratio).toBe(1);
    expect(estimateSummaryChars({ ratio: 50 }, 1000)).toBe(1000);
  });

  test("a summary whose refs name no output on the branch is not a sample", () => {
    expect(calibrateSummaryEstimate([summary([["t1", "gone", 1]], 100)]).samples).toBe(0);
  });

  test("an estimate is the ratio times the raw chars, at least one char", () => {
    expect(estimateSummaryChars({ ratio: 0.1 }, 5000)).toBe(500);
    expect(estimateSummaryChars({ ratio: 0.1 }, 1)).toBe(1);
  });
});
