import { describe, expect, test } from "bun:test";
import { costModelFor, DEFAULT_CACHE_TTL_MS } from "./cost-model.js";

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

  test("PI_CACHE_RETENTION=long takes the long lifetime", () => {
    const previous = process.env.PI_CACHE_RETENTION;
    process.env.PI_CACHE_RETENTION = "long";
    try {
      expect(costModelFor(model({ input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }, { short: 300, long: 3600 })).ttlMs).toBe(3_600_000);
    } finally {
      if (previous === undefined) delete process.env.PI_CACHE_RETENTION;
      else process.env.PI_CACHE_RETENTION = previous;
    }
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
