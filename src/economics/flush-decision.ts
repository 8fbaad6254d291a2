/**
 * The cost policy's verdict on one flush, from what the cache did, the
 * prices, the size of the rewrite and the context's fill. Pure: the host
 * gathers the inputs and acts on the verdict.
 *
 * In order (commands bypass it: `/pruner now` and `compact` always apply): context pressure applies; a cold
 * cache applies (the rewrite is free); without prices, cache figures or a
 * measured rewrite the moment is decided as 2.9.1 did (`fallback`); otherwise
 * the rewrite applies when it pays over the expected remaining requests, and
 * a wait is bounded by `withDeferralBound`.
 */

import type { CacheState } from "./cache-tracker.js";
import type { CostModel } from "./cost-model.js";
import type { DeferralKind, DeferralLedger } from "./deferral-ledger.js";
import { continueChance, dollars, expectedRemainingRequests, LONGEST_PREFIX, type RewriteCacheRule, type RewriteFigures, weighRewrite } from "./rewrite-economics.js";

/** Why the cost policy applied or deferred a flush, with the figures it weighed (dollars, tokens). */
export interface FlushDecisionRecord {
  verdict: "apply" | "defer";
  /**
   * cold: the cache expired; pays: the saving beats the rewrite; wait: it does not yet; bound: waiting has cost
   * what the rewrite would have (economics/deferral-ledger.ts); pressure: near the window; fallback: decided as
   * 2.9.1 (reason says why).
   */
  basis: "cold" | "pays" | "wait" | "bound" | "pressure" | "fallback";
  reason: string;
  cache: { temperature: "warm" | "cold" | "unknown"; expiresInMs?: number; lastHitRate?: number };
  figures?: {
    suffixTokens: number;
    removedTokens: number;
    summaryTokens: number;
    expectedRequests: number;
    oneTimeCost: number;
    savingPerRequest: number;
    summarizerCost: number;
    netSaving: number;
    /** Tokens before the rewrite point the provider's cache rule writes again (0 when it finds them). */
    rereadTokens?: number;
    /** The cache rule the rewrite was priced by, and whether the spare breakpoint was on. */
    cacheRule?: "anthropic-breakpoints" | "longest-prefix" | "uncached";
    breakpoint?: boolean;
    /** What the next request pays for the rewrite itself if it is made now (not weighed by its chance; no summarizer). */
    rewriteCost?: number;
  };
  /** While the work waits: what waiting has cost so far (`paid`, dollars of extra reads) against what the rewrite owed when first put off. */
  bound?: { paid: number; owed: number };
  /** An applied flush that rewrites nothing: every waiting output is under the minimum batch size and stays as it is. */
  nothingRewritten?: true;
  /** A warm flush that pays: whether compressing the closed chains past the window pays too (dollars net). */
  chains?: { verdict: "apply" | "defer"; netSaving: number };
}

/** final-reply: the agent's text reply; in-run: a tool turn's end; cold: the cache has expired. */
export type FlushMoment = "final-reply" | "in-run" | "cold";

export interface DecisionInput {
  moment: FlushMoment;
  cache: CacheState;
  main: CostModel;
  summarizer: CostModel;
  /** Undefined when the rewrite could not be measured. */
  figures: RewriteFigures | undefined;
  /** Context tokens over the window, when pi reports it. */
  contextFraction: number | null;
  /** The `contextPressure` setting. */
  pressure: number | null;
  promptsSoFar: number;
  /** Main requests since the current prompt (the run) started. */
  runRequests: number;
  /** The session API's cache rule (default: the longest shared prefix). */
  cacheRule?: RewriteCacheRule;
}

export interface FlushDecision {
  apply: boolean;
  record: FlushDecisionRecord;
}

function percent(share: number): string {
  return `${Math.round(share * 100)}%`;
}

function cacheOf(cache: CacheState): FlushDecisionRecord["cache"] {
  return {
    temperature: cache.temperature,
    ...(cache.expiresInMs !== undefined ? { expiresInMs: Math.round(cache.expiresInMs) } : {}),
    ...(cache.lastHitRate !== undefined ? { lastHitRate: cache.lastHitRate } : {}),
  };
}

/**
 * Why the moment is decided as the classic policy would, or undefined. The prices a rule needs: every rule
 * reads at the cache-read price; the breakpoint rule also writes at the cache-write price. The longest
 * prefix needs none for writes (OpenAI bills a miss as plain input: a catalog cache-write price of 0 is
 * that rule working, not a gap).
 */
function fallbackReason(input: DecisionInput): string | undefined {
  if (!input.main.priced) return `${input.main.label} has no price in the catalog`;
  if (input.cacheRule?.problem) return input.cacheRule.problem;
  const missing = input.main.missingPrices ?? [];
  if (missing.includes("cacheRead")) return `${input.main.label} has no cache-read price in the catalog`;
  if (input.cacheRule?.rule === "anthropic-breakpoints" && missing.includes("cacheWrite")) {
    return `${input.main.label} has no cache-write price in the catalog, which its breakpoint cache bills`;
  }
  if (input.cache.requests === 0) return "the provider reports no usage";
  if (input.cache.temperature === "unknown") return input.cache.reason ?? "the cache state is unknown";
  if (!input.figures) return "the request could not be measured";
  return undefined;
}

export function decideFlush(input: DecisionInput): FlushDecision {
  const cache = cacheOf(input.cache);
  const verdict = (apply: boolean, basis: FlushDecisionRecord["basis"], reason: string, figures?: FlushDecisionRecord["figures"]): FlushDecision => ({
    apply,
    record: { verdict: apply ? "apply" : "defer", basis, reason, cache, ...(figures ? { figures } : {}) },
  });
  const { contextFraction: fraction, pressure } = input;
  if (fraction !== null && pressure !== null && fraction >= pressure) {
    // Weighed all the same: what the forced rewrite costs is on the record (and on a deferral's account).
    const weighed = fallbackReason(input) ? undefined : weigh(input);
    return verdict(true, "pressure", `the context is at ${percent(fraction)} of the window, past the ${percent(pressure)} pressure line`, weighed?.figures);
  }
  if (input.moment === "cold" || (input.cache.temperature === "cold" && input.cache.requests > 0)) {
    return verdict(true, "cold", "the prompt cache has expired, so rewriting costs nothing extra");
  }
  const fallback = fallbackReason(input);
  if (fallback) return verdict(input.moment !== "in-run", "fallback", `${fallback}: summarizing at the agent's final reply, as the classic policy does`);
  const { apply, reason, figures } = weigh(input);
  return verdict(apply, apply ? "pays" : "wait", reason, figures);
}

/** The pay-back test of a measured rewrite at this moment, and the figures the record keeps of it. */
function weigh(input: DecisionInput): { apply: boolean; reason: string; figures: NonNullable<FlushDecisionRecord["figures"]> } {
  const figures = input.figures as RewriteFigures;
  // Within a run the saving lasts until the reply, when the rest of the run is summarized anyway.
  const expected =
    input.moment === "in-run"
      ? expectedRemainingRequests(input.runRequests, input.promptsSoFar, "in-run")
      : expectedRemainingRequests(input.cache.requests, input.promptsSoFar, "after-reply");
  const cacheRule = input.cacheRule ?? LONGEST_PREFIX;
  // After the reply only a next request pays the rewrite, and what waits is summarized at the expiry anyway.
  const after = input.moment === "final-reply" ? { nextRequestChance: continueChance(input.promptsSoFar), summarizerPaidAnyway: true } : undefined;
  const weighed = weighRewrite(figures, input.main, input.summarizer, expected, false, cacheRule, after);
  return {
    apply: weighed.apply,
    reason: weighed.reason,
    figures: {
      suffixTokens: Math.round(figures.suffixTokens),
      removedTokens: Math.round(figures.removedTokens),
      summaryTokens: Math.round(figures.summaryTokens),
      expectedRequests: weighed.expectedRequests,
      oneTimeCost: weighed.oneTimeCost,
      savingPerRequest: weighed.savingPerRequest,
      summarizerCost: weighed.summarizerCost,
      netSaving: weighed.netSaving,
      rereadTokens: Math.round(weighed.rereadTokens),
      cacheRule: cacheRule.rule,
      breakpoint: cacheRule.breakpoint,
      rewriteCost: weighed.rewriteCost,
    },
  };
}

/**
 * The bound on waiting (deferral-ledger.ts) applied to a verdict: an apply closes the kind's account; a
 * wait rewrites instead once waiting has cost what the rewrite owed (`rentOnly`: once the rent alone has,
 * within a run), and otherwise, with `enter`, puts the waiting `items` (key to dollars saved per request) on
 * the account. Other verdicts pass through.
 */
export function withDeferralBound(
  decision: FlushDecision,
  ledger: DeferralLedger,
  kind: DeferralKind,
  wait: { items: ReadonlyMap<string, number>; enter: boolean; rentOnly?: boolean },
): FlushDecision {
  const figures = decision.record.figures;
  if (decision.apply) {
    // The rewrite is made now: what waiting made it dearer is weighed before the account closes.
    if (figures) ledger.due(kind, figures.rewriteCost ?? figures.oneTimeCost);
    ledger.settle(kind);
    return decision;
  }
  if (decision.record.basis !== "wait" || !figures) return decision;
  const cost = figures.rewriteCost ?? figures.oneTimeCost;
  if (wait.rentOnly ? rentPaid(ledger, kind, cost) : ledger.due(kind, cost)) {
    const done = ledger.settle(kind, true)!;
    const record: FlushDecisionRecord = { ...decision.record, verdict: "apply", basis: "bound", reason: boundReason(done.regret, done.owed), bound: { paid: done.paid, owed: done.owed } };
    return { apply: true, record };
  }
  if (wait.enter) ledger.defer(kind, cost, wait.items);
  const open = ledger.account(kind);
  return open ? { ...decision, record: { ...decision.record, bound: { paid: open.paid, owed: open.owed } } } : decision;
}

/** Within a run: the rent alone has paid what the rewrite owed; the rewrite is then weighed too, so its growth is on the account. */
function rentPaid(ledger: DeferralLedger, kind: DeferralKind, cost: number): boolean {
  if (!ledger.dueOnRent(kind)) return false;
  ledger.due(kind, cost);
  return true;
}

function boundReason(regret: number, owed: number): string {
  return `waiting has cost about ${dollars(regret)} in extra reads and a dearer rewrite, as much as summarizing cost when it was put off (${dollars(owed)}): summarizing now, so waiting never costs more than that`;
}
