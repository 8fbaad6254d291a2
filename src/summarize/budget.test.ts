import { describe, expect, test } from "bun:test";
import { MAX_BUDGET_WINDOW, shouldBudgetFlush, shouldDeltaFlush, shouldFrontierGapFlush, usageFraction } from "./budget.js";

const usage = (tokens: number | null, contextWindow: number): any => ({ tokens, contextWindow, percent: null });

describe("shouldBudgetFlush", () => {
  test("a null threshold never fires (10)", () => {
    expect(shouldBudgetFlush(usage(900, 1000), null)).toBe(false);
  });

  test("thresholds outside (0, 1] never fire (11)", () => {
    expect(shouldBudgetFlush(usage(900, 1000), 0)).toBe(false);
    expect(shouldBudgetFlush(usage(900, 1000), 1.5)).toBe(false);
    expect(shouldBudgetFlush(usage(900, 1000), -0.5)).toBe(false);
  });

  test("missing usage never fires (12)", () => {
    expect(shouldBudgetFlush(undefined, 0.8)).toBe(false);
  });

  test("unknown tokens after a compaction never fire (13)", () => {
    expect(shouldBudgetFlush(usage(null, 1000), 0.8)).toBe(false);
  });

  test("a zero window never fires (14)", () => {
    expect(shouldBudgetFlush(usage(900, 0), 0.8)).toBe(false);
  });

  test("fires at or above the share of the window (15)", () => {
    expect(shouldBudgetFlush(usage(800, 1000), 0.8)).toBe(true);
    expect(shouldBudgetFlush(usage(900, 1000), 0.8)).toBe(true);
    expect(shouldBudgetFlush(usage(799, 1000), 0.8)).toBe(false);
  });

  test("a threshold of exactly 1 fires only on a full window (16)", () => {
    expect(shouldBudgetFlush(usage(1000, 1000), 1)).toBe(true);
    expect(shouldBudgetFlush(usage(999, 1000), 1)).toBe(false);
  });

  test("the cap is 300000 tokens (17)", () => {
    expect(MAX_BUDGET_WINDOW).toBe(300000);
  });

  test("on a 1M window a high threshold fires at the 300k cap (18)", () => {
    expect(shouldBudgetFlush(usage(300_000, 1_000_000), 0.4)).toBe(true);
    expect(shouldBudgetFlush(usage(299_999, 1_000_000), 0.4)).toBe(false);
    expect(shouldBudgetFlush(usage(300_000, 1_000_000), 0.9)).toBe(true);
  });

  test("windows at or below the cap behave as uncapped (19)", () => {
    expect(shouldBudgetFlush(usage(80_000, 200_000), 0.4)).toBe(true);
    expect(shouldBudgetFlush(usage(79_999, 200_000), 0.4)).toBe(false);
    expect(shouldBudgetFlush(usage(230_400, 256_000), 0.9)).toBe(true);
    expect(shouldBudgetFlush(usage(230_399, 256_000), 0.9)).toBe(false);
    expect(shouldBudgetFlush(usage(300_000, 300_000), 1)).toBe(true);
  });

  test("a low threshold governs below the cap on a large window (20)", () => {
    expect(shouldBudgetFlush(usage(100_000, 1_000_000), 0.1)).toBe(true);
    expect(shouldBudgetFlush(usage(99_999, 1_000_000), 0.1)).toBe(false);
  });
});

describe("usageFraction", () => {
  test("is null without usable usage (21)", () => {
    expect(usageFraction(undefined)).toBeNull();
    expect(usageFraction(usage(null, 1000))).toBeNull();
    expect(usageFraction(usage(500, 0))).toBeNull();
  });

  test("divides tokens by the window (22)", () => {
    expect(usageFraction(usage(750, 1000))).toBe(0.75);
  });

  test("divides by the capped window without clamping (23)", () => {
    expect(usageFraction(usage(600_000, 1_000_000))).toBe(2);
    expect(usageFraction(usage(80_000, 200_000))).toBe(0.4);
  });
});

describe("shouldDeltaFlush", () => {
  test("deltas outside (0, 1] never fire (24)", () => {
    for (const delta of [null, 0, 1.5]) expect(shouldDeltaFlush(usage(900, 1000), 0.5, delta)).toBe(false);
  });

  test("no previous fraction never fires (25)", () => {
    expect(shouldDeltaFlush(usage(900, 1000), null, 0.1)).toBe(false);
  });

  test("missing usage or unknown tokens never fire (26)", () => {
    expect(shouldDeltaFlush(undefined, 0.1, 0.1)).toBe(false);
    expect(shouldDeltaFlush(usage(null, 1000), 0.1, 0.1)).toBe(false);
  });

  test("fires when growth reaches the delta (27)", () => {
    expect(shouldDeltaFlush(usage(700, 1000), 0.5, 0.15)).toBe(true);
    expect(shouldDeltaFlush(usage(650, 1000), 0.5, 0.15)).toBe(true);
    expect(shouldDeltaFlush(usage(640, 1000), 0.5, 0.15)).toBe(false);
    expect(shouldDeltaFlush(usage(600, 1000), 0.5, 0.15)).toBe(false);
  });

  test("growth on a large window is measured against the 300k cap (28)", () => {
    const previous = 100_000 / 300_000;
    expect(shouldDeltaFlush(usage(130_000, 1_000_000), previous, 0.1)).toBe(true);
    expect(shouldDeltaFlush(usage(120_000, 1_000_000), previous, 0.1)).toBe(false);
  });

  test("growth on a small window uses the full window (29)", () => {
    expect(shouldDeltaFlush(usage(100_000, 200_000), 0.2, 0.3)).toBe(true);
    expect(shouldDeltaFlush(usage(99_000, 200_000), 0.2, 0.3)).toBe(false);
  });

  test("keeps re-arming above the cap (30)", () => {
    expect(shouldDeltaFlush(usage(630_000, 1_000_000), 2.0, 0.1)).toBe(true);
    expect(shouldDeltaFlush(usage(620_000, 1_000_000), 2.0, 0.1)).toBe(false);
  });

  test("a null-token turn leaves the baseline alone and fires nothing (31)", () => {
    // Mirrors the host's turn_end gate: both predicates first, then a baseline update only for a known fraction.
    let previousFraction: number | null = 0.4;
    const gate = (u: any) => {
      const hit = shouldBudgetFlush(u, 0.5) || shouldDeltaFlush(u, previousFraction, 0.1);
      const f = usageFraction(u);
      if (f != null) previousFraction = f;
      return hit;
    };
    expect(gate(usage(null, 1000))).toBe(false);
    expect(previousFraction).toBe(0.4);
    expect(gate(usage(450, 1000))).toBe(false);
    expect(previousFraction).toBe(0.45);
  });
});

describe("shouldFrontierGapFlush (spec 70 §5.2)", () => {
  const snapshot = (frontierGapTokens: number) => ({ openCycleThinkingTokens: 0, largestChainSharePct: 0, frontierGapTokens });

  test("a null threshold never fires", () => {
    expect(shouldFrontierGapFlush(snapshot(1_000_000), null)).toBe(false);
  });

  test("no snapshot (a failed computation) never fires", () => {
    expect(shouldFrontierGapFlush(undefined, 1000)).toBe(false);
  });

  test("fires once the gap reaches the threshold, not before", () => {
    expect(shouldFrontierGapFlush(snapshot(999), 1000)).toBe(false);
    expect(shouldFrontierGapFlush(snapshot(1000), 1000)).toBe(true);
    expect(shouldFrontierGapFlush(snapshot(80_001), 80_000)).toBe(true);
  });
});
