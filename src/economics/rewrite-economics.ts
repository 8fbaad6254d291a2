/**
 * Whether replacing finished tool output with summaries pays, in dollars.
 *
 * A rewrite at position p makes the provider write every token after p again
 * (S tokens, minus the R removed, plus the summaries) at the cache-write price
 * instead of reading them at the cache-read price, once; from then on each
 * request reads R fewer tokens (less the summaries). The summarizer call is
 * paid once. So, with N further requests expected:
 *
 *   one-time = write * (S - R + summary) - read * S + summarizer
 *   saving   = N * read * (R - summary)
 *
 * and the rewrite is applied when saving > one-time. On a cold cache the
 * suffix is written in full anyway, so the first request alone saves
 * write * (R - summary) and the rewrite costs nothing extra.
 *
 * That one-time cost assumes the provider reads everything before p, which
 * holds for a longest-prefix cache and for Anthropic's with the spare
 * breakpoint before p. Without it, Anthropic finds no entry when the rewrite
 * lies more than LOOKBACK_BLOCKS blocks before the request's last marker, so
 * the P tokens before p (the conversation; tools and system keep their own
 * markers) are written again too: both terms grow by P. The spare breakpoint
 * helps only while an entry right before p is alive: one no request touched
 * for longer than the cache lifetime (an old chain's start) is gone. The
 * first rewrite of a session also declares context_tree_query: the tool list
 * leads every request, so it writes P again whatever the rule.
 *
 * Price tiers (price-tiers.ts): a provider bills every token of a request at
 * the tier its whole input falls in. Given the request's size C (and how much
 * it grows per request, g), the terms above become the difference of two
 * bills per request, each at its own tier: the rewrite's request against the
 * unchanged one, and each later request at C - R + summary against C, both
 * growing by g. A rewrite that keeps the next requests under a threshold saves
 * the tier's premium on every token of each; a wait above it pays that premium;
 * near a threshold, the crossing the growth brings within the expected requests
 * is weighed as well, so the rewrite comes before it when that pays. Without
 * tiers, or without C, the flat formula above at the base prices. Pure.
 */
import { cardOf, type CostModel, pricesAt } from "./cost-model.js";
import { cachedRequestDollars, savingOver, tierIndexAt } from "./price-tiers.js";
import type { CacheRetention, MarkerWire } from "./cache-route.js";
import { type CacheRule, LOOKBACK_BLOCKS } from "./prompt-cache.js";

export interface RewriteFigures {
  /** Tokens of the request from the first rewritten message to its end. */
  suffixTokens: number;
  /** Tokens the rewrite removes (the raw outputs, less their stubs). */
  removedTokens: number;
  /** Tokens of the summaries that replace them. */
  summaryTokens: number;
  /** Tokens the summarizer must read to write them (0 when they are written already). */
  summarizerInputTokens: number;
  /** Tokens of the conversation before the first rewritten message (tools and system left out). */
  prefixTokens?: number;
  /** Tokens of the system prompt (and tools), which lead every request: a change to the tool list writes them again too. */
  systemTokens?: number;
  /** Content blocks from the first rewritten message to the end of the request. */
  suffixBlocks?: number;
  /** Milliseconds since a request last wrote or read a cache entry right before the rewrite point, when known. */
  entryAgeMs?: number;
  /** Per rewritten item (an output's occurrence key, a chain's start): the tokens it removes, less what replaces it. */
  savedTokensByKey?: ReadonlyMap<string, number>;
  /** Tokens of the whole request as last sent (system and tools included), when known: the tier it falls in. */
  contextTokens?: number;
  /** Tokens a request adds to the next, about (0 when unknown): how soon the context crosses a tier. */
  growthTokens?: number;
  /**
   * What the rewrite hides of the working set is expected to cost in recoveries (src/sight/working-set.ts):
   * round trips, each a request over the context read from the cache and its reply, and the tokens they read
   * again, written to the cache.
   */
  recovery?: { roundTrips: number; rereadTokens: number };
}

/** A recovery's reply: a short call, about 100 tokens. */
const RECOVERY_OUTPUT_TOKENS = 100;

/** The expected recoveries of what a rewrite hides, in dollars at the prices of a request of `contextTokens`. */
function recoveryDollars(figures: RewriteFigures, main: CostModel, contextTokens: number): number {
  const recovery = figures.recovery;
  if (!recovery) return 0;
  const p = pricesAt(main, contextTokens);
  return nonNegative(recovery.roundTrips) * (contextTokens * p.cacheRead + RECOVERY_OUTPUT_TOKENS * p.output) + nonNegative(recovery.rereadTokens) * p.cacheWrite;
}

/** The cache rule a rewrite is priced by: the session model's route, and whether the spare breakpoint is on. */
export interface RewriteCacheRule {
  rule: CacheRule;
  breakpoint: boolean;
  /** Where the route's markers go (breakpoint rule), for status and reports. */
  wire?: MarkerWire;
  /** The retention pi-ai asks the route for. */
  retention?: CacheRetention;
  /** Why the route cannot be priced (unknown API, a route that caches nothing): the policy falls back. */
  problem?: string;
  /** The cache lifetime: an entry older than this is gone, spare breakpoint or not. */
  ttlMs?: number;
  /** The rewrite also declares the recovery tool: the tool list leads every request, so nothing before the rewrite is found. */
  declaresTool?: boolean;
  /** The recovery tool's definition, in tokens: written once with the first rewrite, then read by every request. */
  declaredToolTokens?: number;
}

export const LONGEST_PREFIX: RewriteCacheRule = { rule: "longest-prefix", breakpoint: false };

/** Tokens before the rewrite point that the provider writes again because its cache cannot find them. */
export function rereadTokens(figures: RewriteFigures, cache: RewriteCacheRule): number {
  if (cache.declaresTool) return nonNegative(figures.prefixTokens ?? 0) + nonNegative(figures.systemTokens ?? 0);
  if (cache.rule !== "anthropic-breakpoints" || nonNegative(figures.suffixBlocks ?? 0) <= LOOKBACK_BLOCKS) return 0;
  const expired = figures.entryAgeMs !== undefined && cache.ttlMs !== undefined && figures.entryAgeMs > cache.ttlMs;
  return !cache.breakpoint || expired ? nonNegative(figures.prefixTokens ?? 0) : 0;
}

export interface RewriteDecision {
  apply: boolean;
  /** The decision in plain words. */
  reason: string;
  expectedRequests: number;
  oneTimeCost: number;
  savingPerRequest: number;
  summarizerCost: number;
  netSaving: number;
  /** Tokens before the rewrite point written again under the cache rule (0 when the cache finds them). */
  rereadTokens: number;
  /** What the next request pays for the rewrite itself if it is made (not weighed by its chance; no summarizer). */
  rewriteCost: number;
}

export type RequestPhase = "in-run" | "after-reply";

/**
 * Requests still to come, from the requests seen so far: something that has lasted k requests is taken
 * to last about k more (the median of a scale-free lifetime), at least 1. After the agent's final reply,
 * k counts the session's requests and the estimate is weighed by the chance the user sends another
 * prompt at all, taken as prompts / (prompts + 1): one finished prompt gives even odds, ten give 91%.
 * Within a run, k counts the run's requests (the run's reply flushes the rest anyway) and the next
 * request is certain.
 */
export function expectedRemainingRequests(requestsSoFar: number, promptsSoFar: number, phase: RequestPhase): number {
  const remaining = Math.max(1, Number.isFinite(requestsSoFar) ? requestsSoFar : 0);
  return phase === "in-run" ? remaining : remaining * continueChance(promptsSoFar);
}

/** The chance another prompt follows the agent's final reply, after `promptsSoFar` prompts: p / (p + 1). */
export function continueChance(promptsSoFar: number): number {
  const prompts = Math.max(0, Number.isFinite(promptsSoFar) ? promptsSoFar : 0);
  return prompts / (prompts + 1);
}

/**
 * How the moment changes what a rewrite costs. After the final reply, `nextRequestChance` is the chance a
 * next request comes at all: only that request pays the cache rewrite. `summarizerPaidAnyway`: the outputs
 * are summarized later in any case (the cost policy summarizes whatever waits once the cache expires), so
 * waiting saves no summarizer cost and the weighing leaves it out.
 */
export interface RewriteMoment {
  nextRequestChance: number;
  summarizerPaidAnyway: boolean;
}

const NOW: RewriteMoment = { nextRequestChance: 1, summarizerPaidAnyway: false };

function nonNegative(value: number): number {
  return Number.isFinite(value) && value > 0 ? value : 0;
}

/**
 * The requests a rewrite is weighed over, in words: the forecast is an expectation (a fraction), but a
 * request is sent whole, so it is said as the nearest whole number.
 */
export function moreRequestsWords(expected: number): string {
  const n = Math.round(nonNegative(expected));
  if (n === 0) return "less than one more request";
  return `about ${n} more ${n === 1 ? "request" : "requests"}`;
}

export function weighRewrite(
  figures: RewriteFigures,
  main: CostModel,
  summarizer: CostModel,
  expectedRequests: number,
  cold: boolean,
  cache: RewriteCacheRule = LONGEST_PREFIX,
  moment: RewriteMoment = NOW,
): RewriteDecision {
  const suffix = nonNegative(figures.suffixTokens);
  const removed = Math.min(nonNegative(figures.removedTokens), suffix);
  const summary = nonNegative(figures.summaryTokens);
  const n = nonNegative(expectedRequests);
  const summarizerInput = nonNegative(figures.summarizerInputTokens);
  const summarizerPrices = pricesAt(summarizer, summarizerInput);
  const summarizerCost = summarizerInput * summarizerPrices.input + summary * summarizerPrices.output;
  const reread = cold ? 0 : rereadTokens(figures, cache);
  const chance = Math.min(1, nonNegative(moment.nextRequestChance));
  const tool = cache.declaresTool ? nonNegative(cache.declaredToolTokens ?? 0) : 0;
  // The next request carries the rewrite, whose cost already counts what it reads less: the saving runs after it.
  const after = Math.max(0, n - chance);
  const rewritten = { suffix, removed, summary, reread, tool };
  const terms = figures.contextTokens !== undefined && cardOf(main).tiers.length > 0 ? tieredTerms(figures, main, rewritten, cold, after) : flatTerms(main, rewritten, cold, after);
  const rewrite = chance * terms.rewriteCost;
  const context = figures.contextTokens ?? nonNegative(figures.prefixTokens ?? 0) + suffix;
  const oneTimeCost = rewrite + (moment.summarizerPaidAnyway ? 0 : summarizerCost) + chance * recoveryDollars(figures, main, context);
  const netSaving = terms.firstSaving + terms.laterSaving - oneTimeCost;
  const apply = netSaving > 0;
  const tier = terms.tierNote ?? "";
  const reason = apply
    ? `summarizing pays: about ${dollars(netSaving)} saved over ${moreRequestsWords(n)}${tier}${cold ? " (the cache has expired, so the rewrite costs nothing extra)" : ""}`
    : `summarizing now would cost ${dollars(-netSaving)} more than it saves over ${moreRequestsWords(n)}${reread > 0 ? rereadNote(reread, cache) : ""}; waiting until it pays or the cache expires`;
  return { apply, reason, expectedRequests: n, oneTimeCost, savingPerRequest: terms.savingPerRequest, summarizerCost, netSaving, rereadTokens: reread, rewriteCost: terms.rewriteCost };
}

interface Rewritten {
  suffix: number;
  removed: number;
  summary: number;
  reread: number;
  tool: number;
}

interface Terms {
  /** What the next request pays for the rewrite itself. */
  rewriteCost: number;
  savingPerRequest: number;
  /** The next request's saving when the cache has expired anyway. */
  firstSaving: number;
  /** What the requests after the next save. */
  laterSaving: number;
  tierNote?: string;
}

/** The formula of the module header at the base prices: one rate for every request. */
function flatTerms(main: CostModel, r: Rewritten, cold: boolean, after: number): Terms {
  const { cacheRead, cacheWrite } = main.prices;
  const savingPerRequest = cacheRead * (r.removed - r.summary - r.tool);
  return {
    rewriteCost: cold ? 0 : cacheWrite * (r.reread + r.suffix - r.removed + r.summary + r.tool) - cacheRead * (r.reread + r.suffix),
    savingPerRequest,
    // Cold, the request that follows writes the whole suffix anyway: it already saves at the write price.
    firstSaving: cold ? (cacheWrite - cacheRead) * (r.removed - r.summary) : 0,
    laterSaving: after * savingPerRequest,
  };
}

/** The same terms as bills of whole requests, each at the tier of its size (the module header). */
function tieredTerms(figures: RewriteFigures, main: CostModel, r: Rewritten, cold: boolean, after: number): Terms {
  const card = cardOf(main);
  const context = Math.max(nonNegative(figures.contextTokens ?? 0), r.suffix);
  const growth = nonNegative(figures.growthTokens ?? 0);
  const smaller = Math.max(0, context - r.removed + r.summary + r.tool);
  const kept = Math.max(0, context - r.suffix - r.reread);
  const rewriteCost = cold ? 0 : cachedRequestDollars(card, kept, r.suffix - r.removed + r.summary + r.reread + r.tool + growth) - cachedRequestDollars(card, context, growth);
  const savingPerRequest = savingOver(card, context + growth, smaller + growth, growth, 1);
  const firstSaving = cold ? cachedRequestDollars(card, 0, context + growth) - cachedRequestDollars(card, 0, smaller + growth) - savingPerRequest : 0;
  const laterSaving = savingOver(card, context + growth, smaller + growth, growth, after);
  const horizon = context + growth * (after + 1);
  const below = tierIndexAt(card, smaller + growth * (after + 1)) < tierIndexAt(card, horizon);
  const threshold = card.tiers[tierIndexAt(card, smaller + growth * (after + 1))]?.inputTokensAbove;
  const tierNote = below && threshold !== undefined ? ` (it keeps the requests under the ${Math.round(threshold / 1000)}k-token price tier)` : undefined;
  return { rewriteCost, savingPerRequest, firstSaving, laterSaving, ...(tierNote ? { tierNote } : {}) };
}

function rereadNote(tokens: number, cache: RewriteCacheRule): string {
  if (cache.declaresTool) return ` (the first rewrite also declares context_tree_query, which changes the tool list, so the ${Math.round(tokens)} tokens before it, system prompt included, are written again too)`;
  return ` (the rewrite lies beyond the cache's 20-block reach, so the ${Math.round(tokens)} tokens before it are written again too)`;
}

export function dollars(amount: number): string {
  const abs = Math.abs(amount);
  if (abs >= 1) return `$${amount.toFixed(2)}`;
  if (abs >= 0.01) return `$${amount.toFixed(3)}`;
  return `$${amount.toFixed(4)}`;
}
