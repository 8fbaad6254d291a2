/**
 * `flushPending`: turn pending tool-call batches into persisted summaries.
 *
 * Single-flight. Every non-concurrent call writes exactly one
 * `context-prune-flush-metrics` entry from its `finally`, whatever happens.
 * A batch whose summary failed does not hold up the others; the frontier only
 * moves past the leading batches that were processed without a gap, and the
 * batches left over go back to the front of the queue. Chain compression never
 * runs over a span that still holds a left-over batch.
 */
import { argumentStubsOn } from "../arguments/fields.js";
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { compressAfterFlush } from "./chain-pass.js";
import {
  type AppendEntry,
  type Delivery,
  errorMessage,
  isStaleContextError,
  runtimeDelivery,
  safeNotify,
  sessionAppenderOf,
  sessionDelivery,
} from "./delivery.js";
import type { FlushState } from "./flush-state.js";
import { classifyBatches, dedupBatches, type PreparedBatch, summarizeSlots } from "./flush-batches.js";
import { flushReportLine, notifyArchived, notifyUnusable } from "./flush-report.js";
import { frontierOutcome, frontierSnapshot, persistResults, type ProcessedBatch, stubEligibleCalls, totalsOf } from "./flush-persist.js";
import { projectBranchMessages } from "../capture/batch-capture.js";
import { occKey } from "../capture/occurrence-key.js";
import { capturePendingBatches, frontierBarrier } from "../capture/pending-batches.js";
import { earliestResultTimestamp, lowerFloor } from "../render/supersede.js";
import { emitExternalCost } from "./stats.js";
import { declareQueryTool } from "../archive/query-tool-exposure.js";
import { isFileSystemRefusal } from "../archive/write-faults.js";
import { isProtected } from "../capture/protected.js";
import { type BatchSplit, splitBatches, staleOutputsOf, summariesMode } from "./summary-choice.js";
import type { CapturedBatch, PruneFrontier, PruneFrontierOutcome } from "../capture/records.js";
import { type ContextMetricsSnapshot, EMPTY_METRICS_SNAPSHOT, type FlushMetricsEntry, type FlushOptions, type FlushTrigger } from "./flush-types.js";
import { CUSTOM_TYPE_FLUSH_METRICS, CUSTOM_TYPE_FRONTIER, CUSTOM_TYPE_STATS } from "../names.js";
import type { FlushDecisionRecord } from "../economics/flush-decision.js";

export type FlushResult =
  | {
      ok: true;
      reason: "flushed" | "skipped-oversized" | "skipped-trivial" | "skipped-deduped";
      batchCount: number;
      toolCallCount: number;
      rawCharCount: number;
      summaryCharCount: number;
      dedupedCount?: number;
    }
  | {
      ok: false;
      reason: "empty" | "already-flushing" | "summarizer-failed" | "stale-context" | "failed" | "aborted";
      error?: string;
    };

interface Attempt {
  trigger: FlushTrigger;
  metrics: ContextMetricsSnapshot;
  captured: number;
  processed: number;
  stubs: number;
  outcome: FlushMetricsEntry["outcome"];
  decision?: FlushDecisionRecord;
  /** The session appender once bound; metrics then go through it too. */
  writer?: AppendEntry;
}

export async function flushPending(
  state: FlushState,
  ctx: ExtensionContext,
  options: FlushOptions = {},
): Promise<FlushResult> {
  if (state.isFlushing) return { ok: false, reason: "already-flushing" };
  state.rearmedPending = false;
  const attempt: Attempt = {
    trigger: options.trigger ?? "manual",
    metrics: state.metricsSnapshot(ctx) ?? EMPTY_METRICS_SNAPSHOT,
    captured: 0,
    processed: 0,
    stubs: 0,
    outcome: "empty",
    decision: options.decision,
  };
  try {
    return await runFlush(state, ctx, options, attempt);
  } finally {
    state.isFlushing = false;
    writeFlushMetrics(state, attempt);
  }
}

async function runFlush(
  state: FlushState,
  ctx: ExtensionContext,
  options: FlushOptions,
  attempt: Attempt,
): Promise<FlushResult> {
  let delivery: Delivery;
  try {
    delivery = options.delivery === "session" ? sessionDelivery(sessionAppenderOf(ctx)) : runtimeDelivery(state.pi);
  } catch (err) {
    attempt.outcome = "error";
    return failure(err);
  }
  if (delivery.kind === "session") attempt.writer = delivery.appendEntry;

  const batches = options.previewedBatches ?? capturePendingBatches(state, ctx);
  attempt.captured = batches.length;
  if (batches.length === 0) return { ok: false, reason: "empty" };
  // A flush of a chosen part (the in-run flush, a command's preview) must not move the frontier past a waiting batch it left.
  const barrier = options.previewedBatches ? frontierBarrier(state, ctx, keysOf(batches)) : undefined;
  if (options.signal?.aborted) {
    attempt.outcome = "error";
    return { ok: false, reason: "aborted" };
  }
  state.pending.length = 0;
  state.isFlushing = true;

  let working: CapturedBatch[] = batches;
  try {
    const deduped = dedupBatches(batches, state, delivery.appendEntry);
    working = deduped.map((d) => d.batch);
    const now = Date.now();
    const split = batchSplitter(state, ctx);
    const prepared = classifyBatches(deduped, state.config.value.minBatchChars, (batch) => state.retries.status(batch, now), split, argumentStubsOn(state.config.value));
    return await processBatches(state, ctx, options, delivery, prepared, attempt, barrier);
  } catch (err) {
    restoreToQueue(state, working);
    attempt.outcome = "error";
    return handleFlushError(state, ctx, options, err);
  }
}

async function processBatches(
  state: FlushState,
  ctx: ExtensionContext,
  options: FlushOptions,
  delivery: Delivery,
  prepared: PreparedBatch[],
  attempt: Attempt,
  barrier: number | undefined,
): Promise<FlushResult> {
  const config = state.config.value;
  if (prepared.some((p) => p.kind === "summarize")) ignoreStale(() => state.status.show(ctx, "prune: summarizing\u2026"));
  const slots = await summarizeSlots(prepared, state, ctx, options);
  await options.beforePersist?.();
  if (options.signal?.aborted) throw new Error("flush: aborted before its results were written");
  const outcome = persistResults(prepared, slots, state, delivery, Date.now());
  const madeStubbable = stubEligibleCalls(prepared, outcome.processed);
  attempt.stubs = madeStubbable.length;
  declareQueryTool(state.pi, madeStubbable.length > 0);
  lowerFloor(state.supersede, earliestResultTimestamp(madeStubbable));
  restoreToQueue(state, outcome.unresolved.map((p) => p.batch));
  notifyUnusable(ctx, outcome.newlyUnusable);
  const { processed } = outcome;
  if (processed.length === 0) {
    ignoreStale(() => state.status.refresh(ctx));
    attempt.outcome = "error";
    return { ok: false, reason: "summarizer-failed" };
  }

  const settled = passable(processed.slice(0, outcome.settledPrefix), barrier);
  state.frontier.noteAttemptedAhead(unarchivedKeys(processed.slice(settled.length)));
  const chainMessages = config.chainCompression?.enabled && options.chains !== false ? snapshotBranchMessages(ctx) : null;
  try {
    persistFrontierAndStats(state, delivery, settled.length > 0 ? frontierSnapshot(settled) : null);
  } catch (err) {
    attempt.processed = processed.length;
    attempt.outcome = "error";
    return failure(err);
  }
  ignoreStale(() => state.status.refresh(ctx, options.closingMessage));
  ignoreStale(() => emitExternalCost(state.pi, state.stats));
  const chains = chainMessages
    ? await compressAfterFlush(state, ctx, chainMessages, {
        closingMessage: options.closingMessage,
        appendEntry: delivery.appendEntry,
        heldKeys: keysOf(outcome.unresolved.map((p) => p.batch)),
        signal: options.signal,
      })
    : { prompts: [], archived: 0 };
  const totals = totalsOf(processed);
  const line = flushReportLine(processed, chains, config);
  if (line) ignoreStale(() => state.report.show(ctx, line));
  notifyArchived(ctx, processed);

  attempt.processed = processed.length;
  const outcomeOfAll = frontierOutcome(processed);
  attempt.outcome = outcomeOfAll;
  return {
    ok: true,
    reason: resultReason(outcomeOfAll),
    batchCount: processed.length,
    toolCallCount: totals.toolCallCount,
    rawCharCount: totals.rawCharCount,
    summaryCharCount: totals.summaryCharCount,
    dedupedCount: totals.dedupedCount,
  };
}

/**
 * Where the next render starts rewriting because of this flush: at its earliest dedup alias (aliases are
 * registered before any summary, whatever their batch's fate) or the earliest call of a batch it indexed.
 * Trivial and oversized batches are not indexed, so they change nothing in the render.
 */
function keysOf(batches: CapturedBatch[]): Set<string> {
  const keys = new Set<string>();
  for (const batch of batches) for (const call of batch.toolCalls) keys.add(occKey(call.toolCallId, call.resultTimestamp));
  return keys;
}

/** The leading settled batches the frontier may move past: those before the barrier turn. */
function passable(settled: ProcessedBatch[], barrier: number | undefined): ProcessedBatch[] {
  if (barrier === undefined) return settled;
  const at = settled.findIndex((p) => p.item.batch.turnIndex >= barrier);
  return at < 0 ? settled : settled.slice(0, at);
}

/** Outputs a flush handled without putting them in the archive (too small, or the summary came out longer). */
function unarchivedKeys(processed: ProcessedBatch[]): string[] {
  const keys: string[] = [];
  for (const done of processed) {
    if (done.kind !== "trivial" && done.kind !== "oversized") continue;
    for (const call of done.item.batch.toolCalls) keys.push(occKey(call.toolCallId, call.resultTimestamp));
  }
  return keys;
}

/** The `summaries` choice for this flush: stale outputs are read off the branch once. */
function batchSplitter(state: FlushState, ctx: ExtensionContext): (batch: CapturedBatch) => BatchSplit {
  const config = state.config.value;
  const mode = summariesMode(config);
  const messages = mode === "always" ? null : snapshotBranchMessages(ctx);
  const stale = staleOutputsOf(messages ?? [], mode, (toolName, args) => isProtected(toolName, args, config));
  return (batch) => splitBatches([batch], mode, stale)[0]!;
}

function snapshotBranchMessages(ctx: ExtensionContext): unknown[] | null {
  try {
    return projectBranchMessages(ctx.sessionManager.getBranch());
  } catch {
    return null;
  }
}

/** The in-memory frontier only moves once its entry is written; null leaves it where it is. */
function persistFrontierAndStats(state: FlushState, delivery: Delivery, snapshot: PruneFrontier | null): void {
  if (delivery.kind === "session") {
    if (snapshot) {
      delivery.appendEntry(CUSTOM_TYPE_FRONTIER, snapshot);
      state.frontier.advance(snapshot);
    }
    try {
      delivery.appendEntry(CUSTOM_TYPE_STATS, state.stats.getStats());
      state.stats.persistCacheTokens(delivery.appendEntry);
    } catch {
      // The stats snapshot is rewritten by the next flush; losing one is harmless.
    }
    return;
  }
  if (snapshot) {
    const previous = state.frontier.get();
    state.frontier.advance(snapshot);
    try {
      state.frontier.persist(state.pi);
    } catch (err) {
      if (previous) state.frontier.advance(previous);
      else state.frontier.reset();
      throw err;
    }
  }
  state.stats.persist(state.pi);
  state.stats.persistCacheTokens((customType, data) => state.pi.appendEntry(customType, data));
}

function restoreToQueue(state: FlushState, batches: CapturedBatch[]): void {
  state.pending.unshift(...batches.filter((b) => b.toolCalls.length > 0));
}

function handleFlushError(state: FlushState, ctx: ExtensionContext, options: FlushOptions, err: unknown): FlushResult {
  if (options.signal?.aborted) {
    ignoreStale(() => state.status.refresh(ctx));
    return { ok: false, reason: "aborted", error: errorMessage(err) };
  }
  if (isStaleContextError(err)) return { ok: false, reason: "stale-context", error: errorMessage(err) };
  if (isFileSystemRefusal(err)) {
    console.error("pi-condense: a flush could not write to the session; its outputs stay in context:", err);
    state.writeFaults.report(err, (message) => safeNotify(ctx, message, "warning"));
  } else safeNotify(ctx, `pruner: summarization failed: ${errorMessage(err)}`, "error");
  return { ok: false, reason: "failed", error: errorMessage(err) };
}

function failure(err: unknown): FlushResult {
  const reason = isStaleContextError(err) ? "stale-context" : "failed";
  return { ok: false, reason, error: errorMessage(err) };
}

function resultReason(outcome: PruneFrontierOutcome): "flushed" | "skipped-oversized" | "skipped-trivial" | "skipped-deduped" {
  return outcome === "summarized" ? "flushed" : outcome;
}

function ignoreStale(fn: () => void): void {
  try {
    fn();
  } catch (err) {
    if (!isStaleContextError(err)) throw err;
  }
}

/** A flush the cost policy chose not to run yet: recorded like an attempt, so every decision is on file. */
export function recordDeferredFlush(
  state: FlushState,
  ctx: ExtensionContext,
  trigger: FlushTrigger,
  pendingBatches: number,
  decision: FlushDecisionRecord,
): void {
  const metrics = state.metricsSnapshot(ctx) ?? EMPTY_METRICS_SNAPSHOT;
  writeFlushMetrics(state, { trigger, metrics, captured: pendingBatches, processed: 0, stubs: 0, outcome: "deferred", decision });
}

function writeFlushMetrics(state: FlushState, attempt: Attempt): void {
  const entry: FlushMetricsEntry = {
    ts: Date.now(),
    trigger: attempt.trigger,
    capturedBatches: attempt.captured,
    processedBatches: attempt.processed,
    stubCount: attempt.stubs,
    outcome: attempt.outcome,
    metrics: attempt.metrics,
    ...(attempt.decision ? { decision: attempt.decision } : {}),
  };
  try {
    if (attempt.writer) attempt.writer(CUSTOM_TYPE_FLUSH_METRICS, entry);
    else state.pi.appendEntry(CUSTOM_TYPE_FLUSH_METRICS, entry);
  } catch {
    // Observability only: a lost metrics line must never fail a flush.
  }
}
