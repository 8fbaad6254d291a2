/**
 * The limit a session's cost is measured against (PRUNING.md "The limit"):
 * the least its requests can cost under the session API's cache rule,
 * whatever a policy prunes and whenever. Fed with the requests of the
 * session as pi alone sent it (no pruning), as the blocks the cache hashes:
 *
 * - every distinct block (by key) is billed once, as the rule bills its first
 *   sending: written to the cache (under the longest-prefix rule, a miss), or
 *   plain input where the rule caches nothing (Anthropic: no marker at or
 *   after it reaching the model's minimum in the request that first sent it);
 * - the tools and system prompt are read from the cache by every request
 *   after the one that first sent them;
 * - the replies' output tokens.
 *
 * Reads of the conversation, writes again after a rewrite or an expiry, and
 * the summarizer are left out: they are what a policy spends above the limit.
 * Summaries and stubs are left out too: the session without pruning never
 * sends them. Sizes are in the blocks' unit (the report: chars; the bench:
 * tokens).
 *
 * Under price tiers the least a block can cost is its first sending in the
 * smallest request that holds it, the tools and system and the block alone:
 * each block is priced at that request's tier, the reads and the output at
 * the tier of the tools and system alone. Pure.
 */
import type { TokenPrices } from "./cost-model.js";
import { flatCard, type RateCard, ratesAt } from "./price-tiers.js";
import type { CacheBlock, CacheRule } from "./prompt-cache.js";

export interface FloorRequest {
  /** In the order the cache hashes them, with the markers the request was sent with. */
  blocks: readonly CacheBlock[];
  /** Leading blocks that are the tools and the system prompt. */
  fixedBlocks: number;
  /** Leading blocks the previous request sent as well (not looked up again); 0 when unknown. */
  sharedBlocks?: number;
  outputTokens: number;
}

export interface CostFloor {
  requests: number;
  /** Distinct blocks whose first sending is a cache write (the longest-prefix rule: a miss). */
  written: number;
  /** Distinct blocks whose first sending is plain input: the rule caches nothing there. */
  uncached: number;
  /** Tools and system prompt read by the requests after the one that first sent them. */
  fixedRead: number;
  outputTokens: number;
  /** Each distinct block billed, with the tools and system of the request that first sent it (the tier it can fall in). */
  blocks?: FloorBlock[];
  /** The tools and system of the last request (the reads and output's tier). */
  fixedSize?: number;
}

export interface FloorBlock {
  size: number;
  /** The tools and system sent with it. */
  fixedSize: number;
  written: boolean;
}

const size = (block: CacheBlock): number => (Number.isFinite(block.tokens) && block.tokens > 0 ? block.tokens : 0);

/** Blocks of the request a first sending writes: up to the last marker whose prefix reaches the minimum. */
function cacheableBlocks(blocks: readonly CacheBlock[], rule: CacheRule, minTokens: number): number {
  if (rule === "longest-prefix") return blocks.length;
  let total = 0;
  let last = 0;
  blocks.forEach((block, i) => {
    total += size(block);
    if (block.breakpoint && total >= minTokens) last = i + 1;
  });
  return last;
}

/** The floor, one request at a time (the report feeds it from its cache pricer). */
export class FloorTally {
  private readonly seen = new Set<string>();
  private readonly floor: CostFloor = { requests: 0, written: 0, uncached: 0, fixedRead: 0, outputTokens: 0, blocks: [], fixedSize: 0 };

  constructor(
    private readonly rule: CacheRule,
    private readonly minTokens: number,
  ) {}

  add(request: FloorRequest): void {
    const { blocks } = request;
    const fixed = Math.min(blocks.length, Math.max(0, request.fixedBlocks));
    const from = Math.max(fixed, Math.min(blocks.length, request.sharedBlocks ?? 0));
    let fixedSize = 0;
    for (let i = 0; i < fixed; i++) fixedSize += size(blocks[i]!);
    this.floor.fixedSize = fixedSize;
    let cacheable: number | undefined;
    const take = (i: number): void => {
      const block = blocks[i]!;
      if (this.seen.has(block.key)) {
        if (i < fixed) this.floor.fixedRead += size(block);
        return;
      }
      this.seen.add(block.key);
      cacheable ??= cacheableBlocks(blocks, this.rule, this.minTokens);
      const written = i < cacheable;
      if (written) this.floor.written += size(block);
      else this.floor.uncached += size(block);
      this.floor.blocks!.push({ size: size(block), fixedSize: i < fixed ? 0 : fixedSize, written });
    };
    for (let i = 0; i < fixed; i++) take(i);
    for (let i = from; i < blocks.length; i++) take(i);
    this.floor.requests += 1;
    this.floor.outputTokens += Number.isFinite(request.outputTokens) && request.outputTokens > 0 ? request.outputTokens : 0;
  }

  result(): CostFloor {
    return { ...this.floor, blocks: [...this.floor.blocks!] };
  }
}

/** The floor of a session's requests under `rule`; `minTokens` in the blocks' unit (Anthropic's minimum cacheable prefix). */
export function costFloor(requests: Iterable<FloorRequest>, rule: CacheRule, minTokens: number): CostFloor {
  const tally = new FloorTally(rule, minTokens);
  for (const request of requests) tally.add(request);
  return tally.result();
}

/**
 * The floor in dollars, priced as the bills it is compared with: a write at `cacheWrite` (under the
 * longest-prefix rule the price of a miss, the input price when the provider has no write premium),
 * plain input at `input`, reads at `cacheRead`, output at `output`; `unitsPerToken` turns block sizes
 * into tokens (the report's calibrated chars per token). With a rate card, each block at the tier of the
 * smallest request that holds it (the module header).
 */
export function floorDollars(floor: CostFloor, prices: TokenPrices | RateCard, unitsPerToken = 1): number {
  const card = "base" in prices ? prices : flatCard(prices);
  if (card.tiers.length === 0 || !floor.blocks) {
    const p = card.base;
    const blocks = floor.written * p.cacheWrite + floor.uncached * p.input + floor.fixedRead * p.cacheRead;
    return blocks / unitsPerToken + floor.outputTokens * p.output;
  }
  let dollars = 0;
  for (const block of floor.blocks) {
    const p = ratesAt(card, (block.fixedSize + block.size) / unitsPerToken);
    dollars += (block.size / unitsPerToken) * (block.written ? p.cacheWrite : p.input);
  }
  const least = ratesAt(card, (floor.fixedSize ?? 0) / unitsPerToken);
  return dollars + (floor.fixedRead / unitsPerToken) * least.cacheRead + floor.outputTokens * least.output;
}
