/**
 * How a provider's prompt cache bills a sequence of requests, one model per
 * rule (`cache-route.ts` says which rule a model's requests follow; PRUNING.md
 * "How prefix caching works"). A request is a list of
 * blocks in the order the provider hashes them (tools, then system blocks,
 * then each message content block); each block has a content key, a size in
 * tokens and whether it carries a `cache_control` marker.
 *
 * - `anthropic-breakpoints` (Anthropic's Messages API): entries are written
 *   only at marked blocks; each marker looks for a live entry at itself or up
 *   to LOOKBACK_BLOCKS blocks before it, and the longest hit over all markers
 *   is read; a hit refreshes that entry's lifetime; everything from the hit to
 *   the last marker is written; a prefix under the model's minimum is never
 *   cached.
 * - `longest-prefix` (OpenAI, Google and the rest): every request is cached
 *   whole; a request reads the longest prefix it shares with any live cached
 *   request, if that prefix reaches the minimum, rounded down to the
 *   provider's increment; nothing is billed as a write beyond the uncached
 *   rest.
 * - `uncached` (a route that sends no cache markers where the provider caches
 *   only at markers): every token is input.
 *
 * Pure: time comes with each request; a request dated before an entry never
 * reads it (a clock that went backwards is a miss, not an error).
 */

export type CacheRule = "anthropic-breakpoints" | "longest-prefix" | "uncached";

/** Blocks an Anthropic marker looks back for an earlier entry. */
export const LOOKBACK_BLOCKS = 20;
/** Anthropic accepts at most this many `cache_control` markers in one request. */
export const MAX_BREAKPOINTS = 4;

export interface CacheBlock {
  /** Equal content, equal key (the caller decides how: a digest, an interned id). */
  key: string;
  tokens: number;
  /** The block carries a `cache_control` marker (read only by the Anthropic rule). */
  breakpoint: boolean;
}

export interface CacheRequest {
  /** Milliseconds since the epoch. */
  at: number;
  blocks: readonly CacheBlock[];
}

export interface CacheBill {
  /** Tokens billed at the input price: neither read nor written to the cache. */
  input: number;
  cacheRead: number;
  cacheWrite: number;
  /** Blocks read from the cache (the hit position). */
  readBlocks: number;
  /** Within the lifetime of an earlier entry, less was read than the previous request had cached. */
  prefixBreak: boolean;
  /** The cache held entries, but all had expired. */
  expired: boolean;
}

export interface CacheRuleOptions {
  ttlMs: number;
  /** Shorter prefixes are not cached. */
  minTokens: number;
  /** Read sizes are whole multiples of this (OpenAI: 128); 1 for none. */
  increment?: number;
}

export interface PromptCache {
  readonly rule: CacheRule;
  bill(request: CacheRequest): CacheBill;
  /** The longest live entry this request's blocks could read, in blocks, whatever its markers (Anthropic only). */
  bestEntry?(request: CacheRequest): number;
  /** Every entry is gone (the provider evicted them, or a change it keys the cache on): the next request starts cold. */
  evict(): void;
}

export function createPromptCache(rule: CacheRule, options: CacheRuleOptions): PromptCache {
  if (rule === "uncached") return new NoCache();
  return rule === "anthropic-breakpoints" ? new BreakpointCache(options) : new PrefixCache(options);
}

/**
 * Prefix identities: `ids[q]` names the first q blocks (0 for none). Equal prefixes get equal ids across
 * requests; the previous request's ids are reused while its keys match, so a request that extends the
 * last one costs a lookup per new block only.
 */
class PrefixIds {
  private readonly nodes = new Map<string, number>();
  private lastKeys: string[] = [];
  private lastIds: number[] = [0];

  of(blocks: readonly CacheBlock[]): number[] {
    const ids = [0];
    let q = 0;
    while (q < blocks.length && q < this.lastKeys.length && blocks[q]!.key === this.lastKeys[q]) {
      ids.push(this.lastIds[q + 1]!);
      q++;
    }
    for (; q < blocks.length; q++) {
      const name = `${ids[q]}\u0000${blocks[q]!.key}`;
      let id = this.nodes.get(name);
      if (id === undefined) {
        id = this.nodes.size + 1;
        this.nodes.set(name, id);
      }
      ids.push(id);
    }
    this.lastKeys = blocks.map((b) => b.key);
    this.lastIds = ids;
    return ids;
  }
}

function cumulativeTokens(blocks: readonly CacheBlock[]): number[] {
  const sums = [0];
  for (const b of blocks) sums.push(sums[sums.length - 1]! + (Number.isFinite(b.tokens) && b.tokens > 0 ? b.tokens : 0));
  return sums;
}

abstract class EntryCache implements PromptCache {
  abstract readonly rule: CacheRule;
  protected readonly ids = new PrefixIds();
  /** Prefix id to the time its entry was last written or read. */
  protected readonly entries = new Map<number, number>();
  /** Tokens the previous request left cached. */
  protected lastCached = 0;

  constructor(protected readonly options: CacheRuleOptions) {}

  protected live(entryAt: number, now: number): boolean {
    return now >= entryAt && now - entryAt <= this.options.ttlMs;
  }

  /** Drops dead entries; says whether there were entries and all were dead. */
  protected expire(now: number): boolean {
    if (this.entries.size === 0) return false;
    let alive = 0;
    for (const [id, at] of this.entries) {
      if (this.live(at, now)) alive++;
      else if (now >= at) this.entries.delete(id);
    }
    return alive === 0;
  }

  abstract bill(request: CacheRequest): CacheBill;

  evict(): void {
    this.entries.clear();
    this.lastCached = 0;
  }
}

class BreakpointCache extends EntryCache {
  readonly rule = "anthropic-breakpoints" as const;

  /** The longest hit the given marker positions (block counts) find. */
  private hitOf(ids: number[], marks: number[], now: number): number {
    let hit = 0;
    for (const b of marks) {
      for (let q = b; q >= Math.max(1, b - LOOKBACK_BLOCKS); q--) {
        const at = this.entries.get(ids[q]!);
        if (at !== undefined && this.live(at, now)) {
          hit = Math.max(hit, q);
          break;
        }
      }
    }
    return hit;
  }

  bestEntry(request: CacheRequest): number {
    const ids = this.ids.of(request.blocks);
    for (let q = request.blocks.length; q >= 1; q--) {
      const at = this.entries.get(ids[q]!);
      if (at !== undefined && this.live(at, request.at)) return q;
    }
    return 0;
  }

  bill(request: CacheRequest): CacheBill {
    const now = request.at;
    const expired = this.expire(now);
    const ids = this.ids.of(request.blocks);
    const sums = cumulativeTokens(request.blocks);
    const marks: number[] = [];
    request.blocks.forEach((b, i) => {
      if (b.breakpoint) marks.push(i + 1);
    });
    const cacheable = marks.filter((q) => sums[q]! >= this.options.minTokens);
    const hit = this.hitOf(ids, marks, now);
    const last = cacheable.at(-1) ?? 0;
    const total = sums[request.blocks.length]!;
    const read = sums[hit]!;
    const written = Math.max(0, sums[last]! - read);
    const hadLive = !expired && this.entries.size > 0;
    if (hit > 0) this.entries.set(ids[hit]!, now);
    for (const q of cacheable) this.entries.set(ids[q]!, now);
    const prefixBreak = hadLive && read < this.lastCached;
    this.lastCached = Math.max(read, sums[last]!);
    return { input: total - read - written, cacheRead: read, cacheWrite: written, readBlocks: hit, prefixBreak, expired };
  }
}

class PrefixCache extends EntryCache {
  readonly rule = "longest-prefix" as const;

  bill(request: CacheRequest): CacheBill {
    const now = request.at;
    const expired = this.expire(now);
    const ids = this.ids.of(request.blocks);
    const sums = cumulativeTokens(request.blocks);
    const hadLive = !expired && this.entries.size > 0;
    let hit = 0;
    for (let q = request.blocks.length; q >= 1; q--) {
      const at = this.entries.get(ids[q]!);
      if (at !== undefined && this.live(at, now)) {
        hit = q;
        break;
      }
    }
    const step = Math.max(1, this.options.increment ?? 1);
    const shared = sums[hit]!;
    const read = shared >= this.options.minTokens ? Math.floor(shared / step) * step : 0;
    const total = sums[request.blocks.length]!;
    if (total >= this.options.minTokens) for (let q = 1; q <= request.blocks.length; q++) this.entries.set(ids[q]!, now);
    const prefixBreak = hadLive && shared < this.lastCached;
    this.lastCached = total >= this.options.minTokens ? total : 0;
    return { input: 0, cacheRead: read, cacheWrite: total - read, readBlocks: read > 0 ? hit : 0, prefixBreak, expired };
  }
}

class NoCache implements PromptCache {
  readonly rule = "uncached" as const;

  evict(): void {}

  bill(request: CacheRequest): CacheBill {
    const total = cumulativeTokens(request.blocks).at(-1)!;
    return { input: total, cacheRead: 0, cacheWrite: 0, readBlocks: 0, prefixBreak: false, expired: false };
  }
}
