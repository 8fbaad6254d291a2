/**
 * The provider's prompt cache over a replayed configuration, one request at a
 * time, under the rule of the session model's route (economics/cache-route.ts,
 * economics/prompt-cache.ts): Anthropic's breakpoints with their 20-block
 * lookback (Anthropic's API, Claude on Bedrock, OpenRouter's Anthropic models:
 * all replayed as the blocks pi-ai sends Anthropic), the longest shared
 * prefix, or no cache at all. Each request becomes its content blocks (request-blocks.ts); with
 * `spareBreakpoint` (pi-condense's `cacheBreakpoint`) the spare marker goes
 * where `spareBreakpointIndex` puts it. Sizes are chars: the rule's minimum
 * and increment are scaled at 4 chars per token, and the caller turns chars
 * into tokens once the ratio is calibrated.
 *
 * Prefix breaks and cold starts keep the replay's meaning whatever the rule:
 * a prefix break is a warm request that does not extend the previous one
 * (something already cached was rewritten, or the system prompt changed); a
 * cold start is the first request, one sent after the TTL, or one the
 * recording says found the cache empty (`coldStart`: a model or thinking-level
 * change, a restart, an eviction), when every entry is dropped before it is
 * billed. Given `recordedRead`, a request that read less than half of what the
 * simulation reads is taken as such a cold start and billed again cold
 * (`recordedCold`). `refresh` bills pi's cache warming: the last request sent
 * again, which reads its entries and keeps them alive. A lookback miss
 * is a warm request that rewrote nothing yet read less than the previous
 * request left cached (Anthropic: a turn that added more than 20 blocks).
 * Messages are compared by reference: each render's messages equal to the
 * previous render's at the same position become those earlier objects
 * (`StableMessages`). Pure.
 */
import { type CacheRoute, cacheRuleOptions } from "../economics/cache-route.js";
import { createPromptCache, LOOKBACK_BLOCKS, type CacheRule, type CacheRuleOptions, type PromptCache } from "../economics/prompt-cache.js";
import { spareMarkerIndex } from "../economics/spare-breakpoint.js";
import type { FloorTally } from "../economics/cost-floor.js";
import type { CacheBlock } from "../economics/prompt-cache.js";
import type { BilledRefresh, BilledStep } from "../bill/series.js";
import { BlockList } from "./request-blocks.js";

/** Structural equality of two JSON-like values; identical references short-cut at every level. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    if (a.length !== other.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameValue(a[i], other[i])) return false;
    return true;
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  // for-in rather than Object.keys: this runs for every rebuilt stub of every request, without allocating.
  let count = 0;
  for (const key in left) {
    if (!Object.hasOwn(right, key) || !sameValue(left[key], right[key])) return false;
    count++;
  }
  for (const _key in right) count--;
  return count === 0;
}

/**
 * A render builds its stubs afresh every time. Replacing each message equal to the one at the same
 * position in the previous render by that earlier object keeps identities stable from request to
 * request, so the cache comparison and the size memo work by reference.
 */
export class StableMessages {
  private previous: unknown[] = [];

  stable(messages: unknown[]): unknown[] {
    const previous = this.previous;
    let out = messages;
    const limit = Math.min(previous.length, messages.length);
    for (let i = 0; i < limit; i++) {
      const message = messages[i];
      if (message === previous[i] || !sameValue(message, previous[i])) continue;
      if (out === messages) out = messages.slice();
      out[i] = previous[i];
    }
    this.previous = out;
    return out;
  }
}

export const CHARS_PER_RULE_TOKEN = 4;

export interface PricedRequest {
  time: number;
  messages: unknown[];
  systemChars: number;
  systemVersion: number;
  /** Tool call ids of the outputs waiting to be summarized (the spare breakpoint anticipates their rewrite); asked only when needed. */
  pending?: () => ReadonlySet<string>;
  /** The reply's output tokens, for the limit (cost-floor.ts). */
  outputTokens?: number;
  /** The recording says this request found the cache empty: every entry is dropped first. */
  coldStart?: boolean;
  /** What the recorded reply read from the cache, in chars: far less than the simulation reads makes it a cold start. */
  recordedRead?: number;
}

/** The recording read less than this share of what the simulation reads: the provider's cache was empty. */
const FAR_LESS = 0.5;

/** A request as billed (bill/series.ts prices it). */
export type CacheStep = BilledStep;

export interface CacheSetup {
  rule: CacheRule;
  /** The rule's options in chars. */
  options: CacheRuleOptions;
}

/** The rule of the model's route, its minimum and increment in chars. */
export function cacheSetup(route: CacheRoute, ttlMs: number): CacheSetup {
  const tokens = cacheRuleOptions(route, ttlMs);
  return {
    rule: route.rule,
    options: {
      ttlMs,
      minTokens: tokens.minTokens * CHARS_PER_RULE_TOKEN,
      ...(tokens.increment === undefined ? {} : { increment: tokens.increment * CHARS_PER_RULE_TOKEN }),
    },
  };
}

const NONE_WAITING: ReadonlySet<string> = new Set();

/** One simulated cache: bills a request's blocks, adding the spare breakpoint first when asked. */
class Bill {
  private readonly cache: PromptCache;
  /** Blocks of the previous request when it wrote an entry at its last block (its conversation marker). */
  private previousEnd: number | undefined;
  /** The last request's blocks with the markers it was sent with, while refreshes may come. */
  private lastSent: readonly CacheBlock[] | undefined;

  constructor(
    private readonly setup: CacheSetup,
    private readonly spareBreakpoint: boolean,
    private readonly keepLast = false,
  ) {
    this.cache = createPromptCache(setup.rule, setup.options);
  }

  evict(): void {
    this.cache.evict();
    this.previousEnd = undefined;
  }

  /** The last request sent again at `time` (pi's cache warming): what it reads and writes. */
  refresh(time: number): { cached: number; written: number; chars: number } | undefined {
    if (!this.lastSent) return undefined;
    const bill = this.cache.bill({ at: time, blocks: this.lastSent });
    return { cached: bill.cacheRead, written: bill.cacheWrite, chars: bill.input + bill.cacheRead + bill.cacheWrite };
  }

  /**
   * `list` holds the request's blocks with pi-ai's markers in place; `shared`: its leading blocks shared with
   * the previous request. The spare marker is set for this bill only and taken off again.
   */
  step(time: number, list: BlockList, shared: number, warm: boolean, endMarked: boolean, pendingOf: (() => ReadonlySet<string>) | undefined): { cached: number; written: number; readLess: boolean } {
    const blocks = list.blocks;
    const n = blocks.length;
    // The common case needs no search: this request extends one that wrote an entry at its end, and its own
    // end marker lies within the lookback of that entry, so a spare marker would read nothing more.
    const withinReach = warm && endMarked && shared === this.previousEnd && n - shared <= LOOKBACK_BLOCKS;
    const spare = this.spareBreakpoint
      ? spareMarkerIndex({
          keys: list.keys,
          marked: blocks.map((b) => b.breakpoint),
          eligible: list.eligible,
          previousKeys: list.keys.slice(0, shared),
          bestEntry: withinReach ? 0 : (this.cache.bestEntry?.({ at: time, blocks }) ?? 0),
          toolUseIds: list.toolCallIds,
          pending: pendingOf ?? (() => NONE_WAITING),
        })
      : undefined;
    const unmarked = spare === undefined ? undefined : blocks[spare]!;
    if (unmarked) blocks[spare!] = { ...unmarked, breakpoint: true };
    const bill = this.cache.bill({ at: time, blocks });
    if (this.keepLast) this.lastSent = blocks.slice();
    if (unmarked) blocks[spare!] = unmarked;
    this.previousEnd = endMarked && list.chars >= this.setup.options.minTokens ? n : undefined;
    return { cached: bill.cacheRead, written: bill.cacheWrite, readLess: bill.prefixBreak };
  }
}

/**
 * Prices one configuration's requests in order. `alternative` bills the same requests once more with the
 * spare breakpoint the other way (the report's with/without line) at the cost of a second cache only.
 * `floor` is fed each request's blocks as billed, pi-ai's markers in place (the limit of the session).
 */
export class CachePricer {
  private readonly stable = new StableMessages();
  private readonly list = new BlockList();
  private readonly main: Bill;
  private readonly other: Bill | undefined;
  private readonly prefix: Bill | undefined;
  private previous: { time: number; messages: number; systemVersion: number } | undefined;

  /**
   * `alternative`, on an Anthropic setup, also bills the requests under the longest-prefix rule (same minimum).
   * `refreshes`: pi's cache warming may send the last request again (`refresh`).
   */
  constructor(
    private readonly setup: CacheSetup,
    spareBreakpoint: boolean,
    alternative: boolean,
    private readonly floor?: FloorTally,
    refreshes = false,
  ) {
    this.main = new Bill(setup, spareBreakpoint, refreshes);
    this.other = alternative ? new Bill(setup, !spareBreakpoint, refreshes) : undefined;
    const anthropic = setup.rule === "anthropic-breakpoints";
    this.prefix = alternative && anthropic ? new Bill({ rule: "longest-prefix", options: { ttlMs: setup.options.ttlMs, minTokens: setup.options.minTokens } }, false, refreshes) : undefined;
  }

  /** pi's cache warming sent the last request again at `time`: each bill's reads and writes of it. */
  refresh(time: number): { step?: RefreshStep; alternative?: RefreshStep; prefix?: RefreshStep } {
    if (this.previous && time < this.previous.time) return {};
    const step = this.main.refresh(time);
    if (!step) return {};
    if (this.previous) this.previous = { ...this.previous, time };
    const alternative = this.other?.refresh(time);
    const prefix = this.prefix?.refresh(time);
    return { step, ...(alternative ? { alternative } : {}), ...(prefix ? { prefix } : {}) };
  }

  /** The request's step, and the alternative's when there is one. */
  step(request: PricedRequest): { step: CacheStep; alternative?: CacheStep; prefix?: CacheStep } {
    const messages = this.stable.stable(request.messages);
    const list = this.list;
    const previous = this.previous;
    const sharedMessages = list.update(messages, request.systemChars, request.systemVersion);
    const sameSystem = previous !== undefined && previous.systemVersion === request.systemVersion;
    const shared = sameSystem ? list.blocksOf(sharedMessages) : 0;
    const chars = list.chars;
    const warm = previous !== undefined && request.time >= previous.time && request.time - previous.time <= this.setup.options.ttlMs;
    // As before the rules were per API: a warm request that does not extend the previous one rewrote something.
    const prefixBreak = warm && !(sameSystem && sharedMessages === previous.messages);
    this.previous = { time: request.time, messages: messages.length, systemVersion: request.systemVersion };
    const last = list.lastMarked();
    const unmarked = last === undefined || last === 0 ? undefined : list.blocks[last]!;
    if (unmarked) list.blocks[last!] = { ...unmarked, breakpoint: true };
    this.floor?.add({ blocks: list.blocks, fixedBlocks: 1, sharedBlocks: shared, outputTokens: request.outputTokens ?? 0 });
    let coldStart = request.coldStart === true;
    const stepOf = (bill: Bill, detect: boolean): CacheStep => {
      if (coldStart) bill.evict();
      let billed = bill.step(request.time, list, shared, warm && !coldStart, unmarked !== undefined, request.pending);
      const recordedCold = detect && !coldStart && this.recordedColder(request.recordedRead, billed.cached);
      if (recordedCold) {
        coldStart = true;
        bill.evict();
        billed = bill.step(request.time, list, shared, false, unmarked !== undefined, request.pending);
      }
      const cold = !warm || coldStart;
      const broke = prefixBreak && !cold;
      // A cold start the recording shows where the clock alone says warm.
      const shown = recordedCold || (warm && request.coldStart === true);
      return { chars, cachedChars: billed.cached, writtenChars: billed.written, prefixBreak: broke, cold, lookbackMiss: !cold && !broke && billed.readLess, ...(shown ? { recordedCold: true } : {}) };
    };
    const step = stepOf(this.main, true);
    const alternative = this.other ? stepOf(this.other, false) : undefined;
    const prefix = this.prefix ? stepOf(this.prefix, false) : undefined;
    if (unmarked) list.blocks[last!] = unmarked;
    return { step, ...(alternative ? { alternative } : {}), ...(prefix ? { prefix } : {}) };
  }

  /** The recording read far less than the simulation would (and the simulation reads past the rule's minimum). */
  private recordedColder(recordedRead: number | undefined, cached: number): boolean {
    return recordedRead !== undefined && cached >= this.setup.options.minTokens && recordedRead < cached * FAR_LESS;
  }
}

/** What one refresh read and wrote, in chars, and the size of the request it sent again. */
export type RefreshStep = BilledRefresh;
