import { describe, expect, test } from "bun:test";
import { calculateCost, type Usage } from "@earendil-works/pi-ai";
import { getBuiltinModel } from "@earendil-works/pi-ai/providers/all";
import { costModelFor, type CostModel } from "./cost-model.js";
import { savingOver } from "./price-tiers.js";
import { weighRewrite } from "./rewrite-economics.js";

/** Base: read 0.1, write 1.25 per token; above 100,000 tokens of input every rate doubles. */
const base = { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 };
const high = { input: 2, output: 10, cacheRead: 0.2, cacheWrite: 2.5 };
const TIERED: CostModel = { priced: true, prices: base, ttlMs: 300_000, notes: [], label: "tiered", card: { base, tiers: [{ inputTokensAbove: 100_000, prices: high }] } };
const FLAT: CostModel = { ...TIERED, card: { base, tiers: [] } };
const FREE: CostModel = { ...FLAT, prices: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, card: undefined };

const rewrite = (context: number, growth = 0) => ({ suffixTokens: 30_000, removedTokens: 25_000, summaryTokens: 0, summarizerInputTokens: 0, contextTokens: context, growthTokens: growth });

describe("the cost policy weighs price tiers", () => {
  test("without tiers the weighing is the flat formula, whatever the request's size", () => {
    const flat = weighRewrite({ ...rewrite(120_000), contextTokens: undefined }, FLAT, FREE, 10, false);
    const sized = weighRewrite(rewrite(120_000), FLAT, FREE, 10, false);
    expect(sized.netSaving).toBeCloseTo(flat.netSaving, 9);
    expect(sized.savingPerRequest).toBeCloseTo(0.1 * 25_000, 9);
  });

  test("a rewrite that takes the next requests under the tier saves the tier's premium on every token they keep", () => {
    const d = weighRewrite(rewrite(110_000), TIERED, FREE, 10, false);
    // Each later request: 110k at 0.2 against 85k at 0.1.
    expect(d.savingPerRequest).toBeCloseTo(0.2 * 110_000 - 0.1 * 85_000, 6);
    expect(d.savingPerRequest).toBeGreaterThan(weighRewrite(rewrite(110_000), FLAT, FREE, 10, false).savingPerRequest * 5);
    expect(d.apply).toBe(true);
    expect(d.reason).toContain("(it keeps the requests under the 100k-token price tier)");
  });

  test("a wait above the tier costs the tier's price: the rewrite is weighed at it", () => {
    const above = weighRewrite(rewrite(160_000), TIERED, FREE, 10, false);
    expect(above.savingPerRequest).toBeCloseTo(0.2 * 25_000, 6);
    expect(above.rewriteCost).toBeCloseTo(2.5 * 5_000 - 0.2 * 30_000, 6);
  });

  test("near the tier, growth that crosses it within the expected requests makes the rewrite pay before the crossing", () => {
    // 95k now, 2k more per request: without the rewrite the fourth request on crosses 100k.
    const waiting = weighRewrite({ ...rewrite(95_000), removedTokens: 20_000, suffixTokens: 40_000 }, TIERED, FREE, 8, false);
    const growing = weighRewrite({ ...rewrite(95_000, 2_000), removedTokens: 20_000, suffixTokens: 40_000 }, TIERED, FREE, 8, false);
    expect(waiting.apply).toBe(false);
    expect(growing.apply).toBe(true);
    expect(growing.netSaving).toBeGreaterThan(waiting.netSaving + 10_000);
  });

  test("savingOver sums the requests in closed form, crossings included, as one by one", () => {
    const card = TIERED.card!;
    const oneByOne = (from: number, to: number, g: number, n: number) => {
      let total = 0;
      for (let k = 1; k <= Math.floor(n); k++) total += bill(card, from + (k - 1) * g, g) - bill(card, to + (k - 1) * g, g);
      const k = Math.floor(n) + 1;
      return total + (n - Math.floor(n)) * (bill(card, from + (k - 1) * g, g) - bill(card, to + (k - 1) * g, g));
    };
    for (const [from, to, g, n] of [[95_000, 70_000, 2_000, 30], [99_999, 99_000, 1, 5.5], [50_000, 40_000, 7_000, 12.25], [150_000, 90_000, 0, 3]] as const) {
      expect(savingOver(card, from, to, g, n)).toBeCloseTo(oneByOne(from, to, g, n), 6);
    }
  });

  test("the summarizer's estimate is priced as pi-ai prices its call, at the summarizer model's tier", () => {
    const haiku55 = getBuiltinModel("anthropic", "claude-haiku-5-5" as never);
    const summarizer = costModelFor(haiku55);
    const d = weighRewrite({ suffixTokens: 1, removedTokens: 0, summaryTokens: 900, summarizerInputTokens: 120_000 }, FLAT, summarizer, 0, false);
    const usage = { input: 120_000, output: 900, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } } as Usage;
    expect(d.summarizerCost).toBeCloseTo(calculateCost(haiku55, usage).total, 12);
  });
});

function bill(card: NonNullable<CostModel["card"]>, read: number, write: number): number {
  const r = read + write > card.tiers[0]!.inputTokensAbove ? card.tiers[0]!.prices : card.base;
  return r.cacheRead * read + r.cacheWrite * write;
}
