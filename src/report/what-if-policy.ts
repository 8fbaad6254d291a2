/**
 * The cost policy's decisions inside the report's what-if, made as the host makes them (host/turn-handlers.ts,
 * host/flush-policy.ts) through the same weighing (policy/flush-weighing.ts) and the same bound on waiting
 * (economics/deferral-ledger.ts): at a final reply the waiting outputs are summarized when that pays or is
 * due, else they wait on the ledger, and a chain pass that pays or is due takes them along; after a tool
 * turn the run's older outputs are summarized when that pays, and an earlier prompt's waiting ones once the
 * extra reads alone paid what their rewrite owed. Every request charges the ledger. It keeps the bets it made for the bound: each
 * deferral's account, and the one-time cost of each rewrite made before the classic policy would make one.
 * The cache is taken as warm (the caller handles its expiry). Pure.
 */
import { argumentStubsOn } from "../arguments/fields.js";
import type { ToolCallIndexer } from "../archive/indexer.js";
import { DeferralLedger, type SettledDeferral } from "../economics/deferral-ledger.js";
import type { FlushDecision, FlushMoment } from "../economics/flush-decision.js";
import { inRunCandidates, type RequestSize, weighChains, weighFlushBatches } from "../policy/flush-weighing.js";
import { chainItemKey, firstPendingIndex, measureRewrite, pendingKeys } from "../policy/rewrite-figures.js";
import { isTrivialBatch } from "../summarize/flush-batches.js";
import type { CostModel } from "../economics/cost-model.js";
import { LONGEST_PREFIX, type RewriteCacheRule, weighRewrite } from "../economics/rewrite-economics.js";
import type { CapturedBatch } from "../capture/records.js";
import type { ContextPruneConfig } from "../settings/config-shape.js";
import { withoutSummaryOf } from "../policy/summary-split.js";
import type { WriteSight } from "../sight/working-set.js";

/** The cost policy's inputs the what-if cannot read from a session: prices and the cache's lifetime. */
export interface WhatIfPolicy {
  main: CostModel;
  summarizer: CostModel;
  /** The session API's cache rule (default: the longest shared prefix). */
  cacheRule?: RewriteCacheRule;
}

/** The moment a decision is made at: the context as it stands and the policy's counters. */
export interface PolicyMoment {
  messages: readonly unknown[];
  pending: CapturedBatch[];
  requests: number;
  prompts: number;
  runRequests: number;
  contextFraction: number | null;
  /** When the moment happens (the message's time), for the age of a cache entry. */
  time: number;
  /** The request as last sent and its recent growth, in tokens: the price tier it is billed at. */
  size?: RequestSize;
}

/** The closed chains past the window at a moment, as message ranges (what-if-chains.ts). */
export type ChainRanges = (messages: readonly unknown[]) => Array<{ startIndex: number; endIndex: number }>;

/** The bets the policy made: the bound on what they can cost against the classic policy sums over them. */
export interface PolicyBets {
  /** Every deferral account, closed or still open at the end. */
  deferrals: SettledDeferral[];
  /**
   * One-time cost (rewrite and summarizer) of each rewrite the classic policy does not make at that moment: a
   * flush within a run (because it paid, or past the pressure line) or once the cache expired.
   */
  earlyRewrites: number[];
}

export class WhatIfCostPolicy {
  private readonly ledger = new DeferralLedger();
  private readonly early: number[] = [];

  constructor(
    private readonly policy: WhatIfPolicy,
    private readonly config: ContextPruneConfig,
    private readonly indexer: ToolCallIndexer,
    private readonly chainRanges: ChainRanges,
    /** What an archive write of these keys now would do to the working set (none where it is off). */
    private readonly sight?: (messages: readonly unknown[], keys: readonly string[]) => WriteSight,
  ) {}

  /** A main request was sent: the deferrals pay for what still waits. */
  charge(): void {
    const compressed = new Set(this.indexer.getChainEntries().map((entry) => chainItemKey(entry.startUserTimestamp)));
    this.ledger.charge((kind, key) => (kind === "chains" ? !compressed.has(key) : !this.indexer.isSummarized(key)));
  }

  /** At the final reply: whether the waiting outputs are summarized, and whether the chains are compressed with them. */
  atFinalReply(moment: PolicyMoment): { flush: boolean; chains: boolean } {
    const decision = this.weigh(moment, "final-reply", moment.pending, true);
    const basis = decision.record.basis;
    if (decision.apply) return { flush: true, chains: (basis !== "pays" && basis !== "bound") || this.chains(moment, decision, moment.pending, true) };
    return this.chains(moment, decision, moment.pending, false) ? { flush: true, chains: true } : { flush: false, chains: false };
  }

  /** After a tool turn of the run (`currentTurn`): the batches summarized now, if any, and whether the chains go along. */
  afterToolTurn(moment: PolicyMoment, currentTurn: number): { batches: CapturedBatch[]; chains: boolean } | undefined {
    const own = inRunCandidates(moment.pending, currentTurn, false);
    if (own.length > 0) {
      const decision = this.weigh(moment, "in-run", own, false);
      if (decision.apply) {
        this.early.push(decision.record.figures?.oneTimeCost ?? 0);
        return { batches: own, chains: decision.record.basis !== "pays" };
      }
    }
    if (!this.ledger.account("reply")) return undefined;
    const older = inRunCandidates(moment.pending, currentTurn, true);
    if (older.length === 0) return undefined;
    const decision = this.weigh(moment, "in-run", older, false, true);
    if (!decision.apply) return undefined;
    // The run's own older outputs go along, summarized before the classic policy would summarize them.
    this.early.push(decision.record.figures?.summarizerCost ?? 0);
    const basis = decision.record.basis;
    return { batches: older, chains: basis === "bound" ? this.chains(moment, decision, older, true) : basis !== "pays" };
  }

  /**
   * A rewrite the classic policy does not make at this moment, made whatever it costs: past the pressure
   * line within a run, or once the cache expired (free to rewrite, the summarizer still paid). Its one-time
   * cost is a bet too.
   */
  forcedRewrite(moment: PolicyMoment, batches: CapturedBatch[], cold: boolean): void {
    const figures = measureRewrite(moment.messages, batches.filter((batch) => !isTrivialBatch(batch, this.config.minBatchChars, argumentStubsOn(this.config))));
    if (!figures) return;
    const rule = { ...(this.policy.cacheRule ?? LONGEST_PREFIX), ttlMs: this.policy.main.ttlMs };
    this.early.push(weighRewrite(figures, this.policy.main, this.policy.summarizer, 0, cold, rule).oneTimeCost);
  }

  bets(): PolicyBets {
    return { deferrals: this.ledger.all(), earlyRewrites: [...this.early] };
  }

  private weigh(moment: PolicyMoment, at: FlushMoment, batches: CapturedBatch[], enter: boolean, rentCheck = false): FlushDecision {
    return weighFlushBatches({
      moment: at,
      batches,
      messages: moment.messages,
      minBatchChars: this.config.minBatchChars,
      stubArguments: argumentStubsOn(this.config),
      withoutSummary: withoutSummaryOf(moment.messages, batches, this.config),
      cache: { temperature: "warm", expiresInMs: this.policy.main.ttlMs, requests: moment.requests },
      main: this.policy.main,
      summarizer: this.policy.summarizer,
      contextFraction: moment.contextFraction,
      pressure: this.config.contextPressure,
      promptsSoFar: moment.prompts,
      runRequests: moment.runRequests,
      cacheRule: this.policy.cacheRule ?? { rule: "longest-prefix", breakpoint: false },
      ...(moment.size ? { size: moment.size } : {}),
      ...(enter || rentCheck ? { bound: { ledger: this.ledger, kind: "reply" as const, enter, rentOnly: rentCheck } } : {}),
      ...(this.sight ? { sight: (keys: readonly string[]) => this.sight!(moment.messages, keys) } : {}),
    });
  }

  private chains(moment: PolicyMoment, decision: FlushDecision, batches: CapturedBatch[], flushApplies: boolean): boolean {
    const pending = flushApplies ? pendingKeys(batches) : new Set<string>();
    const verdict = weighChains({
      messages: moment.messages,
      ranges: this.chainRanges(moment.messages),
      flushStart: flushApplies ? firstPendingIndex(moment.messages, batches) : moment.messages.length,
      stubbed: (key) => pending.has(key) || this.indexer.isSummarized(key),
      expectedRequests: decision.record.figures?.expectedRequests ?? 0,
      now: moment.time,
      fused: this.config.chainCompression.fuseRangeSummary,
      main: this.policy.main,
      summarizer: this.policy.summarizer,
      cacheRule: this.policy.cacheRule ?? { rule: "longest-prefix", breakpoint: false },
      ledger: this.ledger,
      ...(moment.size ? { size: moment.size } : {}),
    });
    return verdict?.apply === true;
  }
}
