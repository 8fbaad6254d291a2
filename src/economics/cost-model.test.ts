import { describe, expect, test } from "bun:test";
import { costModelFor, DEFAULT_CACHE_TTL_MS } from "./cost-model.js";

const LONG_BREAKPOINTS = { rule: "anthropic-breakpoints", retention: "long" } as const;
const model = (cost: unknown, promptCache?: unknown) => ({ id: "m", provider: "p", api: "anthropic-messages", cost, promptCache }) as any;

describe("costModelFor", () => {
  test("turns the catalog's dollars per million tokens into dollars per token", () => {
    const c = costModelFor(model({ input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }, { short: 300, long: 3600 }));
    expect(c.priced).toBe(true);
    expect(c.prices.input).toBeCloseTo(3e-6);
    expect(c.prices.cacheWrite).toBeCloseTo(3.75e-6);
    expect(c.ttlMs).toBe(300_000);
    expect(c.notes).toEqual([]);
    expect(c.label).toBe("p/m");
  });

  test("long retention on a breakpoint route takes the long lifetime and bills a write at 2x the input price", () => {
    const c = costModelFor(model({ input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }, { short: 300, long: 3600 }), LONG_BREAKPOINTS);
    expect(c.ttlMs).toBe(3_600_000);
    expect(c.prices.cacheWrite).toBeCloseTo(6e-6);
    expect(c.prices.cacheRead).toBeCloseTo(0.3e-6);
    expect(c.longRetention).toBe(true);
    expect(c.notes).toEqual(["long cache retention: a write costs 2x the input price"]);
  });

  test("long retention without a long lifetime in the catalog lives an hour on a breakpoint route", () => {
    expect(costModelFor(model({ input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }, { short: 300 }), LONG_BREAKPOINTS).ttlMs).toBe(3_600_000);
  });

  test("short retention, or no route, keeps the 5-minute write price and lifetime", () => {
    const priced = model({ input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }, { short: 300, long: 3600 });
    for (const c of [costModelFor(priced), costModelFor(priced, { rule: "anthropic-breakpoints", retention: "short" })]) {
      expect(c.ttlMs).toBe(300_000);
      expect(c.prices.cacheWrite).toBeCloseTo(3.75e-6);
      expect(c.longRetention).toBeUndefined();
    }
  });

  test("long retention on a longest-prefix route changes the lifetime the catalog gives, never the write price", () => {
    const openai = model({ input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 0 }, { short: 300, long: 86_400 });
    const c = costModelFor(openai, { rule: "longest-prefix", retention: "long" });
    expect(c.ttlMs).toBe(86_400_000);
    expect(c.prices.cacheWrite).toBeCloseTo(1.25e-6);
    expect(costModelFor(model({ input: 1, cacheRead: 0.1 }), { rule: "longest-prefix", retention: "long" }).ttlMs).toBe(DEFAULT_CACHE_TTL_MS);
  });

  test("the catalog's missing or zero prices are listed, whatever was assumed for them", () => {
    expect(costModelFor(model({ input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 })).missingPrices).toBeUndefined();
    expect(costModelFor(model({ input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 0 })).missingPrices).toEqual(["cacheWrite"]);
    expect(costModelFor(model({ input: 2, output: 6, cacheRead: 0, cacheWrite: 0 })).missingPrices).toEqual(["cacheRead", "cacheWrite"]);
    expect(costModelFor(model({ input: 2 })).missingPrices).toEqual(["cacheRead", "cacheWrite", "output"]);
  });

  test("a model without an input price is unpriced, so the policy can fall back", () => {
    for (const cost of [undefined, {}, { input: 0, output: 1 }, { input: "3" }]) {
      const c = costModelFor(model(cost));
      expect(c.priced).toBe(false);
      expect(c.notes[0]).toContain("no input price");
    }
    expect(costModelFor(undefined).priced).toBe(false);
  });

  test("missing cache and output prices fall back with a note each", () => {
    const c = costModelFor(model({ input: 2 }));
    expect(c.prices.cacheRead).toBeCloseTo(0.2e-6);
    expect(c.prices.cacheWrite).toBeCloseTo(2e-6);
    expect(c.prices.output).toBeCloseTo(10e-6);
    expect(c.notes).toHaveLength(4);
    expect(c.ttlMs).toBe(DEFAULT_CACHE_TTL_MS);
  });
});
