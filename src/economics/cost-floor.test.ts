import { describe, expect, test } from "bun:test";
import { costFloor, floorDollars, type FloorRequest } from "./cost-floor.js";
import { createPromptCache, type CacheBlock, type CacheRule } from "./prompt-cache.js";
import type { TokenPrices } from "./cost-model.js";

/** claude-sonnet-4-5's prices per token. */
const SONNET: TokenPrices = { input: 3e-6, output: 15e-6, cacheRead: 0.3e-6, cacheWrite: 3.75e-6 };

const block = (key: string, tokens: number, breakpoint = false): CacheBlock => ({ key, tokens, breakpoint });

/** Tools and system as one marked block of 2,000 tokens, then the messages; the last one marked, as pi-ai marks it. */
function request(keys: string[], tokens = 500, outputTokens = 20): FloorRequest {
  const blocks = [block("system", 2000, true), ...keys.map((key, i) => block(key, tokens, i === keys.length - 1))];
  return { blocks, fixedBlocks: 1, outputTokens };
}

/** A session that only appends: request k sends the first k message blocks. */
function appending(count: number): FloorRequest[] {
  const keys = Array.from({ length: count }, (_, i) => `m${i}`);
  return keys.map((_, k) => request(keys.slice(0, k + 1)));
}

/** What the cache rule bills the same requests, one a minute (well within the lifetime unless `gapAt`). */
function billed(requests: FloorRequest[], rule: CacheRule, gapAt = -1): { read: number; write: number; input: number } {
  const cache = createPromptCache(rule, { ttlMs: 300_000, minTokens: 1024 });
  let at = 0;
  const total = { read: 0, write: 0, input: 0 };
  requests.forEach((r, i) => {
    at += i === gapAt ? 600_000 : 60_000;
    const bill = cache.bill({ at, blocks: r.blocks });
    total.read += bill.cacheRead;
    total.write += bill.cacheWrite;
    total.input += bill.input;
  });
  return total;
}

describe("the limit of a session", () => {
  test("one request: every block written once, nothing read, its output", () => {
    const floor = costFloor([request(["a", "b"], 500, 40)], "anthropic-breakpoints", 1024);
    expect(floor).toMatchObject({ requests: 1, written: 3000, uncached: 0, fixedRead: 0, outputTokens: 40 });
  });

  test("a session that only appends: each block written once, tools and system read by every later request", () => {
    const floor = costFloor(appending(10), "anthropic-breakpoints", 1024);
    expect(floor.written).toBe(2000 + 10 * 500);
    expect(floor.fixedRead).toBe(9 * 2000);
    expect(floor.outputTokens).toBe(10 * 20);
  });

  test("a session that only appends costs its limit plus the reads of the conversation", () => {
    const requests = appending(10);
    const bill = billed(requests, "anthropic-breakpoints");
    const floor = costFloor(requests, "anthropic-breakpoints", 1024);
    expect(bill.write).toBe(floor.written);
    // Request k reads the k - 1 messages before its new one.
    expect(bill.read).toBe(floor.fixedRead + 500 * (1 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9));
  });

  test("a rewrite the cache bills twice leaves the limit unchanged", () => {
    const plain = appending(6);
    // The same session with a pause past the cache lifetime before request 4: everything is written again.
    const bill = billed(plain, "anthropic-breakpoints", 3);
    expect(bill.write).toBeGreaterThan(2000 + 6 * 500);
    expect(costFloor(plain, "anthropic-breakpoints", 1024).written).toBe(2000 + 6 * 500);
    // A request that changes a block in the middle and sends the rest again: only the changed block is new.
    const rewritten = [...plain.slice(0, 3), request(["m0", "stub1", "m2", "m3"])];
    const floor = costFloor(rewritten, "anthropic-breakpoints", 1024);
    expect(floor.written).toBe(2000 + 5 * 500);
    expect(billed(rewritten, "anthropic-breakpoints").write).toBe(2000 + 3 * 500 + 3 * 500);
  });

  test("under Anthropic's rule a block after the last marker or under the minimum is plain input; under the longest prefix every first sending is a miss", () => {
    const small = { blocks: [block("system", 200, true), block("a", 300), block("b", 300, true)], fixedBlocks: 1, outputTokens: 0 };
    const unmarked = { blocks: [block("system", 2000, true), block("a", 300), block("b", 300), block("c", 300, true), block("d", 300)], fixedBlocks: 1, outputTokens: 0 };
    expect(costFloor([small], "anthropic-breakpoints", 1024)).toMatchObject({ written: 0, uncached: 800 });
    expect(costFloor([unmarked], "anthropic-breakpoints", 1024)).toMatchObject({ written: 2900, uncached: 300 });
    expect(costFloor([small], "longest-prefix", 1024)).toMatchObject({ written: 800, uncached: 0 });
    expect(costFloor([unmarked], "longest-prefix", 1024)).toMatchObject({ written: 3200, uncached: 0 });
  });

  test("the limit's dollars: writes at the write price, plain input at the input price, reads at the read price, output at the output price", () => {
    const floor = { requests: 3, written: 1_000_000, uncached: 100_000, fixedRead: 400_000, outputTokens: 10_000 };
    expect(floorDollars(floor, SONNET)).toBeCloseTo(3.75 + 0.3 + 0.12 + 0.15, 10);
    // Under the longest-prefix rule a miss is priced as the bills price it: the input price for OpenAI.
    expect(floorDollars(floor, { ...SONNET, cacheWrite: SONNET.input })).toBeCloseTo(3 + 0.3 + 0.12 + 0.15, 10);
    // Sizes in chars become tokens at the calibrated ratio; output tokens stay tokens.
    expect(floorDollars({ ...floor, outputTokens: 0 }, SONNET, 4)).toBeCloseTo((3.75 + 0.3 + 0.12) / 4, 10);
  });

  test("the output tokens are the replies', whatever the blocks", () => {
    const requests = [request(["a"], 500, 100), request(["a", "b"], 500, 250), request(["a", "b", "c"], 500, 0)];
    expect(costFloor(requests, "longest-prefix", 1024).outputTokens).toBe(350);
  });

  test("a new system prompt is written once, then read", () => {
    const first = request(["a"]);
    const changed = { ...request(["a", "b"]), blocks: [block("system v2", 3000, true), block("a", 500), block("b", 500, true)] };
    const floor = costFloor([first, changed, { ...changed, blocks: [...changed.blocks, block("c", 500, true)] }], "anthropic-breakpoints", 1024);
    expect(floor.written).toBe(2000 + 500 + 3000 + 500 + 500);
    expect(floor.fixedRead).toBe(3000);
  });

  test("the blocks a request says it shares with the previous one are not looked up again, and the limit stays the same", () => {
    const requests = appending(8);
    const hinted = requests.map((r, k) => ({ ...r, sharedBlocks: k }));
    expect(costFloor(hinted, "anthropic-breakpoints", 1024)).toEqual(costFloor(requests, "anthropic-breakpoints", 1024));
  });

  test("sizes that are not finite positive numbers count nothing", () => {
    const bad = { blocks: [block("system", Number.NaN, true), block("a", -5), block("b", Number.POSITIVE_INFINITY, true)], fixedBlocks: 1, outputTokens: Number.NaN };
    expect(costFloor([bad, bad], "anthropic-breakpoints", 0)).toMatchObject({ requests: 2, written: 0, uncached: 0, fixedRead: 0, outputTokens: 0 });
  });

  test("under price tiers each block costs its tier in the smallest request that holds it; reads and output the tools and system's", () => {
    const base = { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 };
    const high = { input: 2, output: 10, cacheRead: 0.2, cacheWrite: 2.5 };
    const card = { base, tiers: [{ inputTokensAbove: 10_000, prices: high }] };
    // Tools and system 1,000; blocks of 3,000 and 12,000 tokens: only the second needs a request past 10,000.
    const requests = [
      { blocks: [block("system", 1000, true), block("a", 3000, true)], fixedBlocks: 1, outputTokens: 10 },
      { blocks: [block("system", 1000, true), block("a", 3000), block("b", 12_000, true)], fixedBlocks: 1, outputTokens: 20 },
    ];
    const floor = costFloor(requests, "anthropic-breakpoints", 0);
    expect(floorDollars(floor, card)).toBeCloseTo(1000 * 1.25 + 3000 * 1.25 + 12_000 * 2.5 + 1000 * 0.1 + 30 * 5, 9);
    expect(floorDollars(floor, { base, tiers: [] })).toBeCloseTo(floorDollars(floor, base), 9);
  });
});
