import { describe, expect, test } from "bun:test";
import type { Recovery } from "./live-sight.js";
import { NARROW_AT_RECOVERIES, recentRate, SIGHT_WINDOW_REQUESTS, WIDEN_AT_RECOVERIES, windowMove } from "./sight-window.js";

const at = (...requests: number[]): Recovery[] => requests.map((request) => ({ kind: "query", request, refs: ["t1"], contextTokens: 0, returnedChars: 0 }));

describe("recentRate", () => {
  test("counts the requests with a recovery among the last 40, each request once", () => {
    expect(recentRate(at(5, 61, 61, 70), 100)).toEqual({ recoveries: 2, window: SIGHT_WINDOW_REQUESTS, per100: 5 });
  });

  test("a session shorter than the window is counted over the whole window", () => {
    expect(recentRate(at(0, 1), 3).per100).toBe(5);
  });

  test("no recovery is a rate of 0", () => {
    expect(recentRate([], 500)).toEqual({ recoveries: 0, window: SIGHT_WINDOW_REQUESTS, per100: 0 });
  });
});

describe("windowMove", () => {
  const rate = (recoveries: number) => ({ recoveries, window: SIGHT_WINDOW_REQUESTS, per100: (100 * recoveries) / SIGHT_WINDOW_REQUESTS });

  test("a narrow window widens once the recoveries reach the threshold", () => {
    expect(windowMove(false, rate(WIDEN_AT_RECOVERIES - 1))).toBeUndefined();
    expect(windowMove(false, rate(WIDEN_AT_RECOVERIES))).toBe("widen");
  });

  test("a widened window narrows only once they fall to the lower threshold", () => {
    expect(windowMove(true, rate(NARROW_AT_RECOVERIES + 1))).toBeUndefined();
    expect(windowMove(true, rate(NARROW_AT_RECOVERIES))).toBe("narrow");
  });

  test("a widened window at a high rate stays as it is", () => {
    expect(windowMove(true, rate(10))).toBeUndefined();
  });
});
