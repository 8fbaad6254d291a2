/**
 * The cost policy's weighing of a flush and of a chain pass, from figures the caller gathered: the host from
 * the session (host/flush-policy.ts), the report's what-if from its replay (report/what-if.ts), so both
 * decide the same way. Batches under `minBatchChars` are left out of the measure (a flush leaves them as they
 * are), a wait is bounded by the deferral ledger, and the in-run candidates are chosen here. Pure.
 */
import type { CacheState } from "../economics/cache-tracker.js";
import { type CostModel, pricesAt } from "../economics/cost-model.js";
import type { DeferralKind, DeferralLedger } from "../economics/deferral-ledger.js";
import { decideFlush, type FlushDecision, type FlushMoment, withDeferralBound } from "../economics/flush-decision.js";
import { type RewriteCacheRule, type RewriteFigures, weighRewrite } from "../economics/rewrite-economics.js";
import type { CapturedBatch, CapturedToolCall } from "../capture/records.js";
import { isTrivialBatch } from "../summarize/flush-batches.js";
import { measureChainRewrite, measureRewrite, pendingKeys } from "./rewrite-figures.js";
import type { WriteSight } from "../sight/working-set.js";
import { callsDoneWith } from "../arguments/stub.js";

/** Within a run, the outputs of the latest tool turns stay raw: the model is likely still working with them. */
export const IN_RUN_RECENT_TURNS = 2;

/**
 * The batches a run may flush before its reply: all but the latest tool turns, and of those only the
 * run's own unless the rewrite is forced anyway (pressure, cold cache, the bound on waiting). Earlier
 * prompts' deferred batches otherwise wait for a reply: rewriting them now would also rewrite this run's
 * raw outputs, which are written again once they are summarized themselves. `extraTurns`: tool turns live
 * sight keeps raw beyond those while the agent keeps going back for archived output (host/live-sight.ts).
 */
export function inRunCandidates(batches: CapturedBatch[], currentTurn: number, forced: boolean, extraTurns = 0): CapturedBatch[] {
  const older = batches.filter((b) => b.turnIndex <= currentTurn - IN_RUN_RECENT_TURNS - extraTurns);
  if (forced) return older;
  let run = -1;
  for (const b of batches) if (b.userTurnGroup !== undefined && b.userTurnGroup > run) run = b.userTurnGroup;
  return older.filter((b) => b.userTurnGroup === run);
}

/** A request's size and growth, in tokens (rewrite-economics.ts: the price tier it falls in, and how soon it crosses one). */
export interface RequestSize {
  contextTokens: number;
  growthTokens: number;
}

/** What the weighing of one flush reads. */
export interface FlushWeighingInput {
  moment: FlushMoment;
  batches: readonly CapturedBatch[];
  /** The branch as messages; undefined when it could not be read (the moment then falls back). */
  messages: readonly unknown[] | undefined;
  /** The final reply about to be written, not yet on the branch. */
  closing?: unknown;
  /** Tokens of the system prompt, when known: a first rewrite that declares the recovery tool writes it again. */
  systemTokens?: number;
  minBatchChars: number;
  /** Argument stubs on: calls with bulky arguments are archived however small their outputs, and weighed with them. */
  stubArguments?: boolean;
  /** Outputs stubbed with no summary (copies of archived ones, those `summaries` archives without one). */
  withoutSummary: (call: CapturedToolCall) => boolean;
  cache: CacheState;
  main: CostModel;
  summarizer: CostModel;
  contextFraction: number | null;
  pressure: number | null;
  promptsSoFar: number;
  runRequests: number;
  cacheRule: RewriteCacheRule;
  /** The request as last sent, in tokens, and what a request adds to the next: the price tier it is billed at. */
  size?: RequestSize;
  /**
   * At a moment the policy acts on: the ledger, the account a wait goes on, whether it enters the outputs,
   * and whether only the rent is weighed (within a run).
   */
  bound?: { ledger: DeferralLedger; kind: DeferralKind; enter: boolean; rentOnly?: boolean };
  /** What this write would keep raw, let go and hide of the working set (src/sight/working-set.ts `sightOfWrite`); undefined where it is off. */
  sight?: (keys: readonly string[]) => WriteSight;
}

export function weighFlushBatches(input: FlushWeighingInput): FlushDecision {
  const stubbed = input.batches.filter((batch) => !isTrivialBatch(batch, input.minBatchChars, input.stubArguments));
  if (stubbed.length === 0) return nothingToRewrite(input.cache, input.moment);
  const sight = input.sight?.([...pendingKeys(stubbed)]);
  const measured = input.messages ? measureRewrite(input.messages, stubbed, input.closing, input.withoutSummary, argumentsDoneOf(input), sight) : undefined;
  const figures = measured ? { ...measured, ...(input.systemTokens !== undefined ? { systemTokens: input.systemTokens } : {}), ...input.size } : measured;
  const decision = decideFlush({ ...input, figures });
  if (!input.bound) return decision;
  const { ledger, kind, enter, rentOnly } = input.bound;
  return withDeferralBound(decision, ledger, kind, { items: savingsPerRequest(figures, input.main, input.size), enter, rentOnly });
}

/**
 * Which calls' arguments the rewrite stubs too: after a reply or on a cold cache every call (the next request
 * is a new prompt's), within a run those the render counts done with already.
 */
function argumentsDoneOf(input: FlushWeighingInput): (call: CapturedToolCall) => boolean {
  if (input.stubArguments !== true) return () => false;
  if (input.moment !== "in-run" || input.messages === undefined) return () => true;
  const done = callsDoneWith(input.messages);
  return (call) => done.has(call.toolCallId);
}

/**
 * Waiting outputs all under the minimum batch size: a flush would only record them and change nothing in the
 * request, so it is made once, at the reply (or a cold cache), not after every tool turn.
 */
function nothingToRewrite(cache: CacheState, moment: FlushMoment): FlushDecision {
  const record = { cache: { temperature: cache.temperature } };
  if (moment === "in-run") return { apply: false, record: { ...record, verdict: "defer", basis: "wait", reason: "the waiting outputs are all under the minimum batch size: nothing to rewrite" } };
  const reason = "the waiting outputs are all under the minimum batch size, so they stay as they are";
  return { apply: true, record: { ...record, verdict: "apply", basis: "pays", reason, nothingRewritten: true } };
}

/** What each rewritten item saves per request, in dollars at the cache-read price of the tier the request is billed at. */
function savingsPerRequest(figures: RewriteFigures | undefined, main: CostModel, size: RequestSize | undefined): Map<string, number> {
  const items = new Map<string, number>();
  const read = size ? pricesAt(main, size.contextTokens).cacheRead : main.prices.cacheRead;
  for (const [key, tokens] of figures?.savedTokensByKey ?? []) items.set(key, tokens * read);
  return items;
}

/** What the weighing of a chain pass at a final reply reads. */
export interface ChainWeighingInput {
  messages: readonly unknown[];
  /** The eligible chains' message ranges. */
  ranges: ReadonlyArray<{ startIndex: number; endIndex: number }>;
  /** Where the flush weighed beside it rewrites from (the end when it waits), and what it stubs. */
  flushStart: number;
  stubbed: (key: string) => boolean;
  /** The horizon the flush was weighed over. */
  expectedRequests: number;
  now: number;
  fused: boolean;
  main: CostModel;
  summarizer: CostModel;
  cacheRule: RewriteCacheRule;
  ledger: DeferralLedger;
  size?: RequestSize;
}

/**
 * Whether the chain pass compresses now: it pays, or waiting for it has cost what it owed (deferral ledger,
 * `chains`); otherwise it goes on the chains' account. Undefined when there is nothing to compress.
 * `netSaving` is the chain rewrite's own, for the decision record.
 */
export function weighChains(input: ChainWeighingInput): { apply: boolean; netSaving: number } | undefined {
  const figures = measureChainRewrite(input.messages, input.ranges, input.flushStart, input.stubbed);
  if (!figures) return undefined;
  const { entryWrittenAt, ...measured } = figures;
  const age = entryWrittenAt === undefined ? {} : { entryAgeMs: input.now - entryWrittenAt };
  const chainFigures = { ...measured, ...age, ...(input.fused ? {} : { summarizerInputTokens: 0 }), ...input.size };
  const rule = { ...input.cacheRule, ttlMs: input.main.ttlMs };
  const verdict = weighRewrite(chainFigures, input.main, input.summarizer, input.expectedRequests, false, rule);
  const { ledger } = input;
  if (verdict.apply) {
    ledger.due("chains", verdict.rewriteCost);
    ledger.settle("chains");
    return { apply: true, netSaving: verdict.netSaving };
  }
  if (ledger.due("chains", verdict.rewriteCost)) {
    ledger.settle("chains", true);
    return { apply: true, netSaving: verdict.netSaving };
  }
  ledger.defer("chains", verdict.rewriteCost, savingsPerRequest(figures, input.main, input.size));
  return { apply: false, netSaving: verdict.netSaving };
}
