import { describe, expect, spyOn, test } from "bun:test";
import {
  StatsAccumulator,
  emitExternalCost,
  formatCharProgress,
  formatCompactCount,
  formatCost,
  formatTokens,
} from "./stats.js";

function usage(input: number, output: number, total: number): any {
  return {
    input,
    output,
    cacheRead: 7,
    cacheWrite: 9,
    totalTokens: input + output,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total },
  };
}

function statsEntry(data: Record<string, unknown>) {
  return { type: "custom", customType: "context-prune-stats", data, id: "e", parentId: null, timestamp: "" };
}

function ctxWithBranch(branch: any[]): any {
  return { sessionManager: { getBranch: () => branch } };
}

function fakePi() {
  const appended: Array<[string, unknown]> = [];
  const emitted: Array<[string, any]> = [];
  const pi: any = {
    appendEntry: (type: string, data: unknown) => appended.push([type, data]),
    events: { emit: (channel: string, data: unknown) => emitted.push([channel, data]) },
  };
  return { pi, appended, emitted };
}

describe("StatsAccumulator", () => {
  test("cache reads and writes are kept beside the input counter, and the billed input sums all three (issue 36, point 3)", () => {
    const acc = new StatsAccumulator();
    acc.add(usage(0, 50, 0.016));
    acc.add(usage(10, 5, 0.001));
    expect(acc.getStats().totalInputTokens).toBe(10);
    expect(acc.getCacheTokens()).toEqual({ cacheReadTokens: 14, cacheWriteTokens: 18 });
    expect(acc.billedInputTokens()).toBe(42);
  });

  test("the cache tokens are written as their own entry only once a call used a cache, and a reload restores them", () => {
    const acc = new StatsAccumulator();
    const written: Array<[string, unknown]> = [];
    acc.persistCacheTokens((type, data) => written.push([type, data]));
    expect(written).toEqual([]);
    acc.add(usage(1, 1, 0));
    acc.persistCacheTokens((type, data) => written.push([type, data]));
    expect(written).toEqual([["context-prune-summarizer-cache", { cacheReadTokens: 7, cacheWriteTokens: 9 }]]);
    const entry = { type: "custom", customType: "context-prune-summarizer-cache", data: written[0]![1], id: "c", parentId: null, timestamp: "" };
    const restored = new StatsAccumulator();
    restored.reconstructFromSession(ctxWithBranch([statsEntry({ totalInputTokens: 1, callCount: 1 }), entry]));
    expect(restored.billedInputTokens()).toBe(17);
  });

  test("add accumulates tokens and cost into the session delta (1)", () => {
    const acc = new StatsAccumulator();
    acc.add(usage(100, 50, 0.01));
    const delta = acc.getSessionDelta();
    expect(delta.totalCost).toBeCloseTo(0.01);
    expect(delta.inputTokens).toBe(100);
    expect(delta.outputTokens).toBe(50);
  });

  test("add counts a call even for zero usage and ignores cache tokens", () => {
    const acc = new StatsAccumulator();
    acc.add(usage(0, 0, 0));
    acc.add({} as any);
    expect(acc.getStats()).toEqual({
      totalInputTokens: 0,
      totalOutputTokens: 0,
      totalCost: 0,
      callCount: 2,
      chainsCompressed: 0,
      rangesSummarized: 0,
    });
  });

  test("reconstruction sets the baseline so only new spend counts toward the delta (2)", () => {
    const acc = new StatsAccumulator();
    acc.reconstructFromSession(
      ctxWithBranch([
        statsEntry({
          totalInputTokens: 500,
          totalOutputTokens: 250,
          totalCost: 0.05,
          callCount: 3,
          chainsCompressed: 1,
          rangesSummarized: 0,
        }),
      ]),
    );
    expect(acc.getSessionDelta()).toEqual({ totalCost: 0, inputTokens: 0, outputTokens: 0 });
    acc.add(usage(200, 80, 0.02));
    const delta = acc.getSessionDelta();
    expect(delta.totalCost).toBeCloseTo(0.02);
    expect(delta.inputTokens).toBe(200);
    expect(delta.outputTokens).toBe(80);
    const stats = acc.getStats();
    expect(stats.totalInputTokens).toBe(700);
    expect(stats.totalOutputTokens).toBe(330);
    expect(stats.totalCost).toBeCloseTo(0.07);
    expect(stats.callCount).toBe(4);
    expect(stats.chainsCompressed).toBe(1);
  });

  test("live reclaim is undefined until set, then holds both sizes (3)", () => {
    const acc = new StatsAccumulator();
    expect(acc.getLiveReclaim()).toBeUndefined();
    acc.setLiveReclaim(1000, 200);
    expect(acc.getLiveReclaim()).toEqual({ beforeChars: 1000, afterChars: 200 });
  });

  test("the last stats entry on the branch wins and nothing is summed (5)", () => {
    const acc = new StatsAccumulator();
    const branch = [
      statsEntry({ totalInputTokens: 10, totalOutputTokens: 1, totalCost: 0.1, callCount: 2 }),
      { type: "message", message: { role: "user", content: [], timestamp: 1 } },
      statsEntry({ totalInputTokens: 30, totalOutputTokens: 3, totalCost: 0.3, callCount: 5 }),
    ];
    acc.reconstructFromSession(ctxWithBranch(branch));
    expect(acc.getStats().callCount).toBe(5);
    expect(acc.getStats().totalInputTokens).toBe(30);

    // An entry on another branch is simply not part of getBranch(): a fresh rebuild ignores it.
    acc.reconstructFromSession(ctxWithBranch(branch.slice(0, 1)));
    expect(acc.getStats().callCount).toBe(2);
  });

  test("legacy entries without chain counters rebuild them as 0 (6)", () => {
    const acc = new StatsAccumulator();
    acc.reconstructFromSession(
      ctxWithBranch([statsEntry({ totalInputTokens: 1, totalOutputTokens: 2, totalCost: 0.5, callCount: 1 })]),
    );
    expect(acc.getStats().chainsCompressed).toBe(0);
    expect(acc.getStats().rangesSummarized).toBe(0);
  });

  test("entries with missing data or other types are ignored", () => {
    const acc = new StatsAccumulator();
    acc.reconstructFromSession(
      ctxWithBranch([
        { type: "custom", customType: "context-prune-stats" },
        null,
        { type: "custom", customType: "context-prune-index", data: { callCount: 99 } },
        statsEntry({ totalInputTokens: 1, totalOutputTokens: null, callCount: 4 }),
      ]),
    );
    expect(acc.getStats()).toEqual({
      totalInputTokens: 1,
      totalOutputTokens: 0,
      totalCost: 0,
      callCount: 4,
      chainsCompressed: 0,
      rangesSummarized: 0,
    });
  });

  test("a damaged later snapshot is skipped with one diagnostic each and the earlier one stays", () => {
    const errors = spyOn(console, "error").mockImplementation(() => {});
    try {
      const acc = new StatsAccumulator();
      acc.reconstructFromSession(
        ctxWithBranch([
          statsEntry({ totalInputTokens: 10, totalOutputTokens: 5, totalCost: 0.5, callCount: 2 }),
          statsEntry({ totalInputTokens: "12", callCount: 9 }),
          statsEntry({ totalCost: Number.POSITIVE_INFINITY, callCount: 9 }),
          statsEntry({ callCount: -1 }),
          statsEntry({ chainsCompressed: { valueOf: 1 } }),
        ]),
      );
      expect(acc.getStats()).toEqual({
        totalInputTokens: 10,
        totalOutputTokens: 5,
        totalCost: 0.5,
        callCount: 2,
        chainsCompressed: 0,
        rangesSummarized: 0,
      });
      expect(acc.getSessionDelta()).toEqual({ totalCost: 0, inputTokens: 0, outputTokens: 0 });
      expect(errors).toHaveBeenCalledTimes(4);
      expect(String(errors.mock.calls[0]![0])).toContain("context-prune-stats entry (totalInputTokens is not a number >= 0)");
    } finally {
      errors.mockRestore();
    }
  });

  test("reconstruction and reset both clear the live reclaim (7)", () => {
    const acc = new StatsAccumulator();
    acc.setLiveReclaim(10, 5);
    acc.reconstructFromSession(ctxWithBranch([]));
    expect(acc.getLiveReclaim()).toBeUndefined();
    acc.setLiveReclaim(10, 5);
    acc.reset();
    expect(acc.getLiveReclaim()).toBeUndefined();
  });

  test("reset returns to the state of a fresh instance", () => {
    const acc = new StatsAccumulator();
    acc.reconstructFromSession(ctxWithBranch([statsEntry({ totalInputTokens: 9, callCount: 1 })]));
    acc.add(usage(1, 1, 1));
    acc.addChainsCompressed(2);
    acc.reset();
    expect(acc.getStats()).toEqual(new StatsAccumulator().getStats());
    acc.add(usage(3, 0, 0));
    expect(acc.getSessionDelta().inputTokens).toBe(3);
  });

  test("persist appends one snapshot copy of the six counters (8)", () => {
    const acc = new StatsAccumulator();
    acc.add(usage(100, 50, 0.01));
    acc.addChainsCompressed(2);
    acc.addRangesSummarized(1);
    const { pi, appended } = fakePi();
    acc.persist(pi);
    expect(appended).toHaveLength(1);
    expect(appended[0][0]).toBe("context-prune-stats");
    expect(appended[0][1]).toEqual({
      totalInputTokens: 100,
      totalOutputTokens: 50,
      totalCost: 0.01,
      callCount: 1,
      chainsCompressed: 2,
      rangesSummarized: 1,
    });
    acc.add(usage(1, 1, 0));
    expect((appended[0][1] as any).callCount).toBe(1);
  });

  test("getStats and toJSON return copies, and fromJSON keeps the baseline", () => {
    const acc = new StatsAccumulator();
    acc.getStats().callCount = 50;
    expect(acc.toJSON().callCount).toBe(0);
    acc.fromJSON({ totalInputTokens: 40, totalOutputTokens: 4, totalCost: 0.4, callCount: 2 } as any);
    expect(acc.getSessionDelta().inputTokens).toBe(40);
  });
});

describe("the token estimate's anchor", () => {
  test("a reclaim without an overhead keeps the two sizes only", () => {
    const acc = new StatsAccumulator();
    acc.setLiveReclaim(1000, 200);
    expect(acc.getLiveReclaim()).toEqual({ beforeChars: 1000, afterChars: 200 });
  });

  test("the system prompt seeds the overhead at characters / 4", () => {
    const acc = new StatsAccumulator();
    acc.noteSystemPrompt(8000);
    acc.setLiveReclaim(1000, 200);
    expect(acc.getLiveReclaim()).toEqual({ beforeChars: 1000, afterChars: 200, overheadTokens: 2000 });
  });

  test("the provider's count for the request last sent becomes the overhead beyond its messages", () => {
    const acc = new StatsAccumulator();
    acc.noteSystemPrompt(8000);
    acc.noteSentRequest(4000);
    acc.calibrate(3500);
    acc.setLiveReclaim(10_000, 4000);
    expect(acc.getLiveReclaim()!.overheadTokens).toBe(2500);
  });

  test("a calibration updates the reclaim already shown", () => {
    const acc = new StatsAccumulator();
    acc.setLiveReclaim(10_000, 4000);
    acc.noteSentRequest(4000);
    acc.calibrate(1600);
    expect(acc.getLiveReclaim()).toEqual({ beforeChars: 10_000, afterChars: 4000, overheadTokens: 600 });
  });

  test("once calibrated, the system prompt no longer moves the overhead", () => {
    const acc = new StatsAccumulator();
    acc.noteSentRequest(4000);
    acc.calibrate(1600);
    acc.noteSystemPrompt(80_000);
    acc.setLiveReclaim(10_000, 4000);
    expect(acc.getLiveReclaim()!.overheadTokens).toBe(600);
  });

  test("a response to a request the render left unchanged calibrates nothing", () => {
    const acc = new StatsAccumulator();
    acc.noteSentRequest(undefined);
    acc.calibrate(1600);
    acc.setLiveReclaim(10_000, 4000);
    expect(acc.getLiveReclaim()).toEqual({ beforeChars: 10_000, afterChars: 4000 });
  });

  test("one request calibrates once, and a zero count never does", () => {
    const acc = new StatsAccumulator();
    acc.noteSentRequest(4000);
    acc.calibrate(0);
    acc.calibrate(1600);
    acc.calibrate(9999);
    acc.setLiveReclaim(10_000, 4000);
    expect(acc.getLiveReclaim()!.overheadTokens).toBe(600);
  });

  test("reset forgets the anchor", () => {
    const acc = new StatsAccumulator();
    acc.noteSentRequest(4000);
    acc.calibrate(1600);
    acc.reset();
    acc.setLiveReclaim(10_000, 4000);
    expect(acc.getLiveReclaim()).toEqual({ beforeChars: 10_000, afterChars: 4000 });
  });
});

describe("emitExternalCost", () => {
  test("emits one cost:external event with this session's delta (4)", () => {
    const acc = new StatsAccumulator();
    acc.add(usage(100, 50, 0.01));
    const { pi, emitted } = fakePi();
    emitExternalCost(pi, acc);
    expect(emitted).toHaveLength(1);
    const [channel, payload] = emitted[0];
    expect(channel).toBe("cost:external");
    expect(payload.source).toBe("pi-condense");
    expect(payload.totalCost).toBeCloseTo(0.01);
    expect(payload.inputTokens).toBe(100);
    expect(payload.outputTokens).toBe(50);
  });

  test("after a reload the payload excludes spend restored from history", () => {
    const acc = new StatsAccumulator();
    acc.reconstructFromSession(
      ctxWithBranch([statsEntry({ totalInputTokens: 500, totalOutputTokens: 5, totalCost: 2, callCount: 1 })]),
    );
    const { pi, emitted } = fakePi();
    emitExternalCost(pi, acc);
    expect(emitted[0][1]).toEqual({ source: "pi-condense", totalCost: 0, inputTokens: 0, outputTokens: 0 });
  });
});

describe("formatting helpers (9)", () => {
  test("compact counts switch to k and M with one decimal and no promotion", () => {
    expect(formatCompactCount(999)).toBe("999");
    expect(formatCompactCount(340)).toBe("340");
    expect(formatCompactCount(1000)).toBe("1.0k");
    expect(formatCompactCount(1234)).toBe("1.2k");
    expect(formatCompactCount(92000)).toBe("92.0k");
    expect(formatCompactCount(999_999)).toBe("1000.0k");
    expect(formatCompactCount(1_500_000)).toBe("1.5M");
    expect(formatCompactCount(1_234_567)).toBe("1.2M");
  });

  test("formatTokens matches formatCompactCount", () => {
    for (const n of [0, 12, 1000, 45_678, 3_000_000]) expect(formatTokens(n)).toBe(formatCompactCount(n));
  });

  test("costs print three decimals with a floor marker below a tenth of a cent", () => {
    expect(formatCost(0)).toBe("$0.000");
    expect(formatCost(0.0004)).toBe("<$0.001");
    expect(formatCost(0.003)).toBe("$0.003");
    expect(formatCost(1.23456)).toBe("$1.235");
  });

  test("char progress pluralizes each count on its own", () => {
    expect(formatCharProgress(1)).toBe("1 summary char");
    expect(formatCharProgress(0)).toBe("0 summary chars");
    expect(formatCharProgress(1200, 8400)).toBe("1.2k summary chars / 8.4k raw chars");
    expect(formatCharProgress(0, 1)).toBe("0 summary chars / 1 raw char");
  });
});
