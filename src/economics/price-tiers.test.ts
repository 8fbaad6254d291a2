import { describe, expect, test } from "bun:test";
import { calculateCost, type Usage } from "@earendil-works/pi-ai";
import { getBuiltinModels, getBuiltinProviders } from "@earendil-works/pi-ai/providers/all";
import { costModelFor, pricesAt } from "./cost-model.js";
import { catalogTiers, ratesAt, tierIndexAt, usageDollars } from "./price-tiers.js";

type AnyModel = Parameters<typeof calculateCost>[0];

function tieredCatalogModels(): AnyModel[] {
  const models: AnyModel[] = [];
  for (const provider of getBuiltinProviders()) {
    for (const model of getBuiltinModels(provider) as AnyModel[]) {
      if ((model as { cost?: { tiers?: unknown[] } }).cost?.tiers?.length) models.push(model);
    }
  }
  return models;
}

function usage(input: number, cacheRead: number, cacheWrite: number, output: number, cacheWrite1h?: number): Usage {
  return {
    input,
    output,
    cacheRead,
    cacheWrite,
    ...(cacheWrite1h === undefined ? {} : { cacheWrite1h }),
    totalTokens: input + output + cacheRead + cacheWrite,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  };
}

/** Usages on both sides of every threshold of the model, and far past them. */
function usagesAround(model: AnyModel): Usage[] {
  const thresholds = ((model as { cost: { tiers: Array<{ inputTokensAbove: number }> } }).cost.tiers ?? []).map((t) => t.inputTokensAbove);
  const sizes = [0, 1, 4_000, 1_000_000, ...thresholds.flatMap((t) => [t - 1, t, t + 1, t + 5_000])].filter((n) => n >= 0);
  const out: Usage[] = [];
  for (const size of sizes) {
    out.push(usage(size, 0, 0, 700));
    out.push(usage(Math.floor(size * 0.1), Math.floor(size * 0.8), size - Math.floor(size * 0.1) - Math.floor(size * 0.8), 1_200));
    out.push(usage(3, size, 0, 40));
    out.push(usage(0, Math.floor(size / 2), size - Math.floor(size / 2), 90, Math.floor((size - Math.floor(size / 2)) / 3)));
  }
  return out;
}

describe("usageDollars", () => {
  test("prices every usage of every tiered catalog model as pi-ai's calculateCost does, to the cent", () => {
    const models = tieredCatalogModels();
    expect(models.length).toBeGreaterThan(100);
    let compared = 0;
    for (const model of models) {
      const card = costModelFor(model as never).catalog!;
      expect(card.tiers.length).toBeGreaterThan(0);
      for (const u of usagesAround(model)) {
        const theirs = calculateCost(model, structuredClone(u)).total;
        const ours = usageDollars(card, u);
        expect(Math.abs(ours - theirs)).toBeLessThan(0.005);
        expect(ours).toBeCloseTo(theirs, 9);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(3_000);
  });

  test("a request one token past the threshold is billed at the tier for every token, output included", () => {
    const card = { base: { input: 1, output: 10, cacheRead: 0.1, cacheWrite: 1.25 }, tiers: [{ inputTokensAbove: 100, prices: { input: 2, output: 20, cacheRead: 0.2, cacheWrite: 2.5 } }] };
    expect(usageDollars(card, { input: 100, output: 1, cacheRead: 0, cacheWrite: 0 })).toBe(110);
    expect(usageDollars(card, { input: 1, output: 1, cacheRead: 50, cacheWrite: 50 })).toBe(2 + 20 + 10 + 125);
  });

  test("a one-hour write costs twice the tier's input rate", () => {
    const card = { base: { input: 1, output: 0, cacheRead: 0, cacheWrite: 1.25 }, tiers: [] };
    expect(usageDollars(card, { input: 0, output: 0, cacheRead: 0, cacheWrite: 10, cacheWrite1h: 4 })).toBe(6 * 1.25 + 4 * 2);
  });

  test("negative, missing or non-numeric token counts count as none", () => {
    const card = { base: { input: 1, output: 1, cacheRead: 1, cacheWrite: 1 }, tiers: [] };
    expect(usageDollars(card, { input: -5, output: Number.NaN, cacheRead: 2, cacheWrite: undefined as never })).toBe(2);
  });
});

describe("tiers", () => {
  const card = {
    base: { input: 1, output: 1, cacheRead: 1, cacheWrite: 1 },
    tiers: [
      { inputTokensAbove: 32_000, prices: { input: 2, output: 2, cacheRead: 2, cacheWrite: 2 } },
      { inputTokensAbove: 128_000, prices: { input: 3, output: 3, cacheRead: 3, cacheWrite: 3 } },
    ],
  };

  test("the highest threshold a request passes sets its rates", () => {
    expect(ratesAt(card, 32_000).input).toBe(1);
    expect(ratesAt(card, 32_001).input).toBe(2);
    expect(ratesAt(card, 500_000).input).toBe(3);
    expect(tierIndexAt(card, 0)).toBe(0);
    expect(tierIndexAt(card, 128_001)).toBe(2);
  });

  test("a tier list out of order is read by threshold, with a note", () => {
    const read = catalogTiers([{ inputTokensAbove: 200, input: 3, output: 3, cacheRead: 3, cacheWrite: 3 }, { inputTokensAbove: 100, input: 2, output: 2, cacheRead: 2, cacheWrite: 2 }], "p/m");
    expect(read.tiers.map((t) => t.inputTokensAbove)).toEqual([100, 200]);
    expect(read.notes).toEqual(["p/m: the catalog's price tiers are out of order, read by threshold"]);
  });

  test("a tier with a missing or negative price is left out, named, and the request priced at the tier below", () => {
    const read = catalogTiers([{ inputTokensAbove: 100, input: 2, output: 2, cacheRead: -1, cacheWrite: 2 }, { inputTokensAbove: 300, input: 4, output: 4, cacheWrite: 4 }], "p/m");
    expect(read.tiers).toEqual([]);
    expect(read.notes[0]).toContain("above 100 tokens has no valid cacheRead price, ignored");
    expect(read.notes[1]).toContain("above 300 tokens has no valid cacheRead price");
    const cost = costModelFor({ id: "m", provider: "p", cost: { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25, tiers: [{ inputTokensAbove: 100, input: 2, output: 2, cacheRead: -1, cacheWrite: 2 }] } } as never);
    expect(pricesAt(cost, 1_000).input).toBeCloseTo(1e-6);
    expect(cost.notes.some((n) => n.includes("ignored"))).toBe(true);
  });

  test("a tier above 0 tokens prices every request, as pi-ai bills it, with a note", () => {
    const read = catalogTiers([{ inputTokensAbove: 0, input: 2, output: 2, cacheRead: 0.2, cacheWrite: 2.5 }], "p/m");
    expect(read.tiers).toHaveLength(1);
    expect(read.notes).toEqual(["p/m: a price tier above 0 tokens prices every request"]);
    expect(ratesAt({ base: { input: 1, output: 1, cacheRead: 1, cacheWrite: 1 }, tiers: read.tiers }, 1).input).toBeCloseTo(2e-6);
  });

  test("a negative or missing threshold, a tier list that is not a list, and a duplicate threshold are named, never thrown", () => {
    expect(catalogTiers([{ inputTokensAbove: -5, input: 1, output: 1, cacheRead: 1, cacheWrite: 1 }, { input: 1 }, null], "p/m").notes).toHaveLength(3);
    expect(catalogTiers("cheap", "p/m")).toEqual({ tiers: [], notes: ["p/m: the catalog's price tiers are not a list, ignored"] });
    const dup = catalogTiers([{ inputTokensAbove: 10, input: 2, output: 2, cacheRead: 2, cacheWrite: 2 }, { inputTokensAbove: 10, input: 3, output: 3, cacheRead: 3, cacheWrite: 3 }], "p/m");
    expect(dup.tiers.map((t) => t.prices.input * 1e6)).toEqual([2]);
  });

  test("the estimate card keeps the fallbacks in each tier and long retention's write price", () => {
    const model = { id: "m", provider: "p", cost: { input: 2, output: 10, cacheRead: 0.2, cacheWrite: 0, tiers: [{ inputTokensAbove: 272_000, input: 4, output: 15, cacheRead: 0.4, cacheWrite: 0 }] } } as never;
    const cost = costModelFor(model);
    expect(pricesAt(cost, 300_000).cacheWrite).toBeCloseTo(4e-6);
    expect(cost.catalog!.tiers[0]!.prices.cacheWrite).toBe(0);
    const long = costModelFor({ ...(model as object), cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75, tiers: [{ inputTokensAbove: 200_000, input: 6, output: 22.5, cacheRead: 0.6, cacheWrite: 7.5 }] } } as never, { rule: "anthropic-breakpoints", retention: "long" });
    expect(pricesAt(long, 250_000).cacheWrite).toBeCloseTo(12e-6);
  });
});
