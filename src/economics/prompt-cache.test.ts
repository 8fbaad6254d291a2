import { describe, expect, test } from "bun:test";
import { type CacheBlock, createPromptCache, LOOKBACK_BLOCKS } from "./prompt-cache.js";

const TTL = 300_000;
const MIN = 0;

/** Tool and system blocks, then `n` message blocks named `m0`..; `edit` renames block i (a rewrite). */
function request(n: number, opts: { marks?: number[]; edit?: number; tokens?: number } = {}): CacheBlock[] {
  const blocks: CacheBlock[] = [
    { key: "tool", tokens: 100, breakpoint: true },
    { key: "system", tokens: 100, breakpoint: true },
  ];
  for (let i = 0; i < n; i++) blocks.push({ key: i === opts.edit ? `stub${i}` : `m${i}`, tokens: opts.tokens ?? 10, breakpoint: false });
  blocks[blocks.length - 1]!.breakpoint = true;
  for (const m of opts.marks ?? []) blocks[2 + m]!.breakpoint = true;
  return blocks;
}

const anthropic = (minTokens = MIN) => createPromptCache("anthropic-breakpoints", { ttlMs: TTL, minTokens });
const total = (blocks: CacheBlock[]) => blocks.reduce((n, b) => n + b.tokens, 0);

describe("Anthropic's breakpoint rule", () => {
  test("a request that extends the previous one reads everything the previous one cached", () => {
    const cache = anthropic();
    cache.bill({ at: 0, blocks: request(30) });
    const bill = cache.bill({ at: 1000, blocks: request(32) });
    expect(bill.cacheRead).toBe(200 + 300);
    expect(bill.cacheWrite).toBe(20);
    expect(bill.prefixBreak).toBe(false);
  });

  test("a rewrite 5 blocks from the end is found by the last marker's lookback", () => {
    const cache = anthropic();
    cache.bill({ at: 0, blocks: request(40) });
    cache.bill({ at: 1000, blocks: request(44) });
    // Block 39 changes: the entry at 40 messages (written by the first request) is 4 blocks before it.
    const bill = cache.bill({ at: 2000, blocks: request(44, { edit: 40 }) });
    expect(bill.cacheRead).toBe(200 + 400);
    expect(bill.cacheWrite).toBe(40);
  });

  test("a rewrite 40 blocks from the end without a marker before it reads only tools and system", () => {
    const cache = anthropic();
    for (let n = 2; n <= 60; n += 2) cache.bill({ at: n, blocks: request(n) });
    const bill = cache.bill({ at: 100, blocks: request(60, { edit: 20 }) });
    expect(bill.cacheRead).toBe(200);
    expect(bill.cacheWrite).toBe(600);
    expect(bill.prefixBreak).toBe(true);
  });

  test("the same rewrite with a marker on the block before it reads the unchanged prefix", () => {
    const cache = anthropic();
    for (let n = 2; n <= 60; n += 2) cache.bill({ at: n, blocks: request(n) });
    const bill = cache.bill({ at: 100, blocks: request(60, { edit: 20, marks: [19] }) });
    expect(bill.cacheRead).toBe(200 + 200);
    expect(bill.cacheWrite).toBe(400);
  });

  test("a turn that adds more than the lookback misses even without a rewrite", () => {
    const cache = anthropic();
    cache.bill({ at: 0, blocks: request(10) });
    const bill = cache.bill({ at: 1, blocks: request(10 + LOOKBACK_BLOCKS + 5) });
    expect(bill.cacheRead).toBe(200);
  });

  test("an entry older than the lifetime is not read, and the request says the cache expired", () => {
    const cache = anthropic();
    cache.bill({ at: 0, blocks: request(10) });
    const bill = cache.bill({ at: TTL + 1, blocks: request(12) });
    expect(bill.cacheRead).toBe(0);
    expect(bill.cacheWrite).toBe(total(request(12)));
    expect(bill.expired).toBe(true);
  });

  test("a hit refreshes the entry it read, so it outlives its first lifetime", () => {
    const cache = anthropic();
    cache.bill({ at: 0, blocks: request(10) });
    // At 0.8 TTL the last marker (12 messages) looks back and reads the entry at 10 messages: refreshed.
    cache.bill({ at: TTL * 0.8, blocks: request(12) });
    // At 1.5 TTL message 10 is rewritten: only the refreshed entry at 10 messages still matches.
    const bill = cache.bill({ at: TTL * 1.5, blocks: request(25, { edit: 10 }) });
    expect(bill.cacheRead).toBe(200 + 100);
  });

  test("an entry nobody read since it was written expires at the end of its lifetime", () => {
    const cache = anthropic();
    cache.bill({ at: 0, blocks: request(10) });
    cache.bill({ at: TTL * 0.8, blocks: request(12, { edit: 9 }) });
    const bill = cache.bill({ at: TTL * 1.5, blocks: request(25, { edit: 9 }) });
    expect(bill.cacheRead).toBe(200 + 120);
    const late = cache.bill({ at: TTL * 1.5 + 1, blocks: request(25) });
    expect(late.cacheRead).toBe(200);
  });

  test("a clock that goes backwards reads nothing and does not throw", () => {
    const cache = anthropic();
    cache.bill({ at: 10_000, blocks: request(10) });
    const bill = cache.bill({ at: 5_000, blocks: request(12) });
    expect(bill.cacheRead).toBe(0);
  });

  test("a prefix under the model's minimum is neither written nor read", () => {
    const cache = anthropic(1_000);
    cache.bill({ at: 0, blocks: request(10) });
    const bill = cache.bill({ at: 1, blocks: request(12) });
    expect(bill.cacheRead).toBe(0);
    expect(bill.cacheWrite).toBe(0);
    expect(bill.input).toBe(320);
  });

  test("with four markers already (OAuth), the rewrite reads what those markers reach", () => {
    const cache = anthropic();
    const oauth = (n: number, edit?: number) => {
      const blocks = request(n, { edit });
      return [{ key: "identity", tokens: 50, breakpoint: true }, ...blocks];
    };
    for (let n = 2; n <= 60; n += 2) cache.bill({ at: n, blocks: oauth(n) });
    const bill = cache.bill({ at: 100, blocks: oauth(60, 20) });
    expect(bill.cacheRead).toBe(250);
  });
});

describe("the longest-prefix rule", () => {
  const prefix = (minTokens = 0, increment = 1) => createPromptCache("longest-prefix", { ttlMs: TTL, minTokens, increment });

  test("a deep rewrite still reads everything before it", () => {
    const cache = prefix();
    for (let n = 2; n <= 60; n += 2) cache.bill({ at: n, blocks: request(n) });
    const bill = cache.bill({ at: 100, blocks: request(60, { edit: 20 }) });
    expect(bill.cacheRead).toBe(200 + 200);
    expect(bill.cacheWrite).toBe(400);
    expect(bill.prefixBreak).toBe(true);
  });

  test("reads are rounded down to the provider's increment above its minimum", () => {
    const cache = prefix(256, 128);
    cache.bill({ at: 0, blocks: request(30) });
    const bill = cache.bill({ at: 1, blocks: request(31) });
    expect(bill.cacheRead).toBe(384);
    expect(bill.cacheRead + bill.cacheWrite + bill.input).toBe(total(request(31)));
  });

  test("an expired prompt is not read", () => {
    const cache = prefix();
    cache.bill({ at: 0, blocks: request(10) });
    expect(cache.bill({ at: TTL + 1, blocks: request(11) }).cacheRead).toBe(0);
  });
});

describe("a route that caches nothing", () => {
  test("bills every token as input, reads and writes nothing", () => {
    const cache = createPromptCache("uncached", { ttlMs: TTL, minTokens: MIN });
    cache.bill({ at: 0, blocks: request(5) });
    const bill = cache.bill({ at: 1000, blocks: request(6) });
    expect(bill).toEqual({ input: total(request(6)), cacheRead: 0, cacheWrite: 0, readBlocks: 0, prefixBreak: false, expired: false });
  });
});
