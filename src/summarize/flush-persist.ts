/**
 * Turns summarizer results into persisted state, batch by batch in order.
 * A batch whose summary failed is isolated: the others are still persisted,
 * the failure is counted (retry with backoff), and once its attempts are used
 * up it is archived with a deterministic body instead. Per batch the summary
 * line is written before the index line (see indexer rebuild), so a kill
 * between them never summarizes an output twice.
 */
import { BATCH_BODY_HEADER, deterministicBody } from "../chains/deterministic-body.js";
import { type Delivery, isStaleContextError } from "./delivery.js";
import type { FlushState } from "./flush-state.js";
import { withoutSummaryOf, type PreparedBatch, type SummarizedSlots } from "./flush-batches.js";
import { argumentStubsOn, holdsStubbableArguments } from "../arguments/fields.js";
import { occKey } from "../capture/occurrence-key.js";
import { formatSummaryToolCallRefs, makeSummaryDetails, substituteInlineRefs } from "../archive/summary-refs.js";
import { framedSummary } from "../format/summary-frame.js";
import type { CapturedBatch, CapturedToolCall, PruneFrontier, PruneFrontierOutcome, SummaryToolCallRef } from "../capture/records.js";
import type { SummarizeResult } from "./summarizer.js";

export interface FlushTotals {
  toolCallCount: number;
  rawCharCount: number;
  summaryCharCount: number;
  dedupedCount: number;
}

export interface ProcessedBatch {
  item: PreparedBatch;
  /** `archived`: indexed and stubbed with a deterministic body (no usable LLM summary); `unsummarized`: indexed, no body at all. */
  kind: "summarized" | "oversized" | "trivial" | "deduped" | "archived" | "unsummarized";
  /** Raw LLM text length (before ref decoration), for the oversized notice. */
  summaryLength?: number;
  /** Length of the persisted summary text (or of the rejected one when oversized); 0 for trivial and deduped. */
  summaryChars: number;
  /** The refs of a summarized or archived batch, for its notice. */
  refs?: string[];
}

export interface PersistOutcome {
  /** In batch order. */
  processed: ProcessedBatch[];
  /** Batches left for a later flush (failed, waiting for a retry, or not reached); in batch order. */
  unresolved: PreparedBatch[];
  /** Unresolved batches whose summarizer reply was unusable for the first time. */
  newlyUnusable: PreparedBatch[];
  /** How many leading batches were processed without a gap: the frontier may move past exactly these. */
  settledPrefix: number;
  totals: FlushTotals;
}

export function persistResults(
  prepared: PreparedBatch[],
  summarized: SummarizedSlots,
  state: FlushState,
  delivery: Delivery,
  now: number,
): PersistOutcome {
  const totals: FlushTotals = { toolCallCount: 0, rawCharCount: 0, summaryCharCount: 0, dedupedCount: 0 };
  const outcome: PersistOutcome = { processed: [], unresolved: [], newlyUnusable: [], settledPrefix: 0, totals };
  let gap = false;
  for (let i = 0; i < prepared.length; i++) {
    const item = prepared[i]!;
    let done: ProcessedBatch | null;
    try {
      done = persistOne(item, summarized, i, state, delivery, now, outcome);
    } catch (err) {
      if (!isStaleContextError(err)) throw err;
      outcome.unresolved.push(...prepared.slice(i));
      return outcome;
    }
    if (done === null) {
      outcome.unresolved.push(item);
      gap = true;
      continue;
    }
    outcome.processed.push(done);
    addTotals(totals, done);
    if (!gap) outcome.settledPrefix = i + 1;
  }
  return outcome;
}

/** Persists one batch; null when it stays for a later flush. */
function persistOne(
  item: PreparedBatch,
  summarized: SummarizedSlots,
  position: number,
  state: FlushState,
  delivery: Delivery,
  now: number,
  outcome: PersistOutcome,
): ProcessedBatch | null {
  const slot = summarized.slots[position];
  if (slot === "deduped" || slot === "trivial") return { item, kind: slot, summaryChars: 0 };
  if (slot === "deferred" || slot === undefined) return null;
  if (slot === "archive") return persistArchived(item, state, delivery);
  if (slot === "unsummarized") return persistUnsummarized(item, state, delivery);
  if (slot !== null) {
    state.retries.forget(item.batch);
    const done = persistSummary(item, slot, state, delivery);
    state.stats.add(slot.usage);
    return done;
  }
  if (summarized.unusable.has(position) && state.retries.firstUnusableReport(item.batch)) outcome.newlyUnusable.push(item);
  if (state.retries.recordFailure(item.batch, now) !== "exhausted") return null;
  return persistArchived(item, state, delivery);
}

interface Persisted {
  text: string;
  oversized: boolean;
  refs: string[];
  /** Archived without its summary: it was longer than the outputs, but the calls' arguments are worth stubbing. */
  unsummarized?: true;
}

/**
 * Summary line (framed as data), refs, index line, summary body (unframed: a chain block frames the bodies it
 * joins once); nothing when the summary would be longer than the raw output.
 */
function persistBody(
  item: PreparedBatch,
  body: (refs: SummaryToolCallRef[]) => string,
  state: FlushState,
  delivery: Delivery,
): Persisted {
  const { batch } = item;
  const refs = state.indexer.allocateSummaryRefs(batch);
  const summary = body(refs) + formatSummaryToolCallRefs(refs);
  const text = framedSummary(summary);
  const shortIds = refs.map((ref) => ref.shortId);
  // The frame is a fixed wrapper of delivery, as pi's own summary prefixes are: which batches are worth a summary stays as before.
  if (summary.length > item.raw) {
    if (!(argumentStubsOn(state.config.value) && holdsStubbableArguments(batch.toolCalls))) return { text, oversized: true, refs: shortIds };
    archiveWithoutSummary(withoutSummaryOf(batch), refs, state, delivery);
    return { text: "", oversized: false, refs: shortIds, unsummarized: true };
  }
  delivery.sendSummary(text, makeSummaryDetails(batch, refs));
  state.indexer.registerSummaryRefs(refs);
  state.indexer.addBatch(batch, delivery.appendEntry, refs);
  state.indexer.registerSummaryBody(batch.toolCalls.map((tc) => occKey(tc.toolCallId, tc.resultTimestamp)), summary);
  return { text, oversized: false, refs: shortIds };
}

function persistSummary(item: PreparedBatch, result: SummarizeResult, state: FlushState, delivery: Delivery): ProcessedBatch {
  const toolNames = item.batch.toolCalls.map((tc) => tc.toolName);
  const done = persistBody(item, (refs) => substituteInlineRefs(result.summaryText, refs, toolNames), state, delivery);
  return {
    item,
    kind: done.unsummarized ? "unsummarized" : done.oversized ? "oversized" : "summarized",
    summaryLength: result.summaryText.length,
    summaryChars: done.text.length,
    refs: done.refs,
  };
}

function persistArchived(item: PreparedBatch, state: FlushState, delivery: Delivery): ProcessedBatch {
  const calls = bodyCalls(item.batch);
  const done = persistBody(item, (refs) => deterministicBody(BATCH_BODY_HEADER, calls, refs.map((r) => r.shortId)), state, delivery);
  if (!done.oversized) state.retries.forget(item.batch);
  const kind = done.unsummarized ? "unsummarized" : done.oversized ? "oversized" : "archived";
  return { item, kind, summaryLength: done.text.length, summaryChars: done.text.length, refs: done.refs };
}

/** Refs and the index line only: the stubs name the refs and carry the outputs' facts; no message is written. */
function persistUnsummarized(item: PreparedBatch, state: FlushState, delivery: Delivery): ProcessedBatch {
  const refs = state.indexer.allocateSummaryRefs(item.batch);
  archiveWithoutSummary(item.batch, refs, state, delivery);
  return { item, kind: "unsummarized", summaryChars: 0, refs: refs.map((ref) => ref.shortId) };
}

function archiveWithoutSummary(batch: CapturedBatch, refs: SummaryToolCallRef[], state: FlushState, delivery: Delivery): void {
  state.indexer.addBatch(batch, delivery.appendEntry, refs);
  state.indexer.registerSummaryRefs(refs);
}

function bodyCalls(batch: CapturedBatch) {
  return batch.toolCalls.map((call) => ({
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    args: call.args,
    time: call.resultTimestamp ?? batch.timestamp,
  }));
}

function addTotals(totals: FlushTotals, done: ProcessedBatch): void {
  const { item } = done;
  totals.rawCharCount += item.raw + item.dedupedChars;
  totals.toolCallCount += item.batch.toolCalls.length + item.deduped.length;
  totals.dedupedCount += item.deduped.length;
  totals.summaryCharCount += done.summaryChars;
}

/** Precedence: a real (or archived) summary beats oversized, oversized beats deduped, deduped beats trivial. */
export function frontierOutcome(processed: ProcessedBatch[]): PruneFrontierOutcome {
  if (processed.some((p) => p.kind === "summarized" || p.kind === "archived" || p.kind === "unsummarized")) return "summarized";
  if (processed.some((p) => p.kind === "oversized")) return "skipped-oversized";
  if (processed.some((p) => p.item.deduped.length > 0)) return "skipped-deduped";
  return "skipped-trivial";
}

/**
 * The tool calls this flush made stub-eligible: every dedup alias it registered (whatever its batch's fate,
 * the alias is in the index from then on) plus the calls of every batch it indexed, summarized or archived.
 */
export function stubEligibleCalls(prepared: PreparedBatch[], processed: ProcessedBatch[]): CapturedToolCall[] {
  const calls = prepared.flatMap((item) => item.deduped);
  for (const done of processed) {
    if (done.kind === "summarized" || done.kind === "archived" || done.kind === "unsummarized") calls.push(...done.item.batch.toolCalls);
  }
  return calls;
}

export function totalsOf(processed: ProcessedBatch[]): FlushTotals {
  const totals: FlushTotals = { toolCallCount: 0, rawCharCount: 0, summaryCharCount: 0, dedupedCount: 0 };
  for (const p of processed) addTotals(totals, p);
  return totals;
}

/** The frontier after the given leading processed batches (non-empty). */
export function frontierSnapshot(prefix: ProcessedBatch[]): PruneFrontier {
  const totals = totalsOf(prefix);
  const last = prefix[prefix.length - 1]!.item;
  const calls = last.kind === "deduped" ? last.deduped : last.batch.toolCalls;
  const anchor = calls[calls.length - 1] ?? last.deduped[last.deduped.length - 1]!;
  return {
    lastAttemptedToolCallId: anchor.toolCallId,
    lastAttemptedToolName: anchor.toolName,
    lastAttemptedTurnIndex: last.batch.turnIndex,
    lastAttemptedTimestamp: last.batch.timestamp,
    attemptedBatchCount: prefix.length,
    attemptedToolCallCount: totals.toolCallCount,
    rawCharCount: totals.rawCharCount,
    summaryCharCount: totals.summaryCharCount,
    outcome: frontierOutcome(prefix),
  };
}
