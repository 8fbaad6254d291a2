import { describe, expect, test } from "bun:test";
import { CacheTracker, requestUsageOf } from "./cache-tracker.js";

const TTL = 300_000;
const usage = (at: number, input: number, cacheRead: number, cacheWrite: number) => ({ at, input, cacheRead, cacheWrite });

describe("CacheTracker", () => {
  test("no request yet is a cold cache", () => {
    expect(new CacheTracker().state(1_000, TTL).temperature).toBe("cold");
  });

  test("warm until the lifetime has passed since the last request, then cold", () => {
    const t = new CacheTracker();
    t.record(usage(1_000, 100, 0, 900));
    expect(t.state(1_000 + TTL - 1, TTL)).toMatchObject({ temperature: "warm", expiresInMs: 1 });
    expect(t.state(1_000 + TTL, TTL).temperature).toBe("cold");
  });

  test("reports the hit rate of the last and the recent requests", () => {
    const t = new CacheTracker();
    t.record(usage(1, 100, 0, 900));
    t.record(usage(2, 50, 900, 50));
    const s = t.state(3, TTL);
    expect(s.lastHitRate).toBeCloseTo(0.9);
    expect(s.recentHitRate).toBeCloseTo(900 / 2000);
    expect(s.requests).toBe(2);
  });

  test("a provider that never reports cache use leaves the temperature unknown", () => {
    const t = new CacheTracker();
    t.record(usage(1, 1000, 0, 0));
    expect(t.state(2, TTL)).toMatchObject({ temperature: "unknown", reason: "the provider reports no cache use" });
    expect(t.reportsCacheUse).toBe(false);
  });

  test("one request with a cache read or write is enough to report cache use", () => {
    const t = new CacheTracker();
    t.record(usage(1, 1000, 0, 0));
    t.record(usage(2, 10, 0, 500));
    t.record(usage(3, 1000, 0, 0));
    expect(t.reportsCacheUse).toBe(true);
  });

  test("a clock that went backwards leaves the temperature unknown", () => {
    const t = new CacheTracker();
    t.record(usage(5_000, 10, 90, 0));
    expect(t.state(4_000, TTL)).toMatchObject({ temperature: "unknown", reason: "the clock went backwards" });
  });

  test("a cache-warming refresh keeps the cache warm from its time", () => {
    const t = new CacheTracker();
    t.record(usage(1_000, 10, 90, 0));
    t.touch(1_000 + TTL - 10);
    expect(t.state(1_000 + TTL + 100, TTL).temperature).toBe("warm");
  });
});

describe("requestUsageOf", () => {
  test("reads pi's usage fields", () => {
    expect(requestUsageOf({ input: 1, cacheRead: 2, cacheWrite: 3, output: 4 }, 10)).toEqual(usage(10, 1, 2, 3));
  });

  test("zero is a figure, absurd or missing ones are not", () => {
    expect(requestUsageOf({ input: 0, cacheRead: 0, cacheWrite: 0 }, 1)).toEqual(usage(1, 0, 0, 0));
    for (const bad of [{ input: -1, cacheRead: 0, cacheWrite: 0 }, { input: 1e12, cacheRead: 0, cacheWrite: 0 }, { input: 1 }, null, "x"]) {
      expect(requestUsageOf(bad, 1)).toBeUndefined();
    }
    expect(requestUsageOf({ input: 1, cacheRead: 0, cacheWrite: 0 }, "noon")).toBeUndefined();
  });
});
