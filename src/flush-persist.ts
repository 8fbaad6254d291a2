/**
 * Turns summarizer results into persisted state, in batch order, stopping at
 * the first batch without a summary: later batches are retried by the next
 * flush, so nothing is ever stubbed without its summary and index entry.
 */
import { type Delivery, isStaleContextError } from "./delivery.js";
import type { ExtensionState } from "./extension-state.js";
import type { PreparedBatch, Slot } from "./flush-batches.js";
import { occKey } from "./occurrence-key.js";
import { formatSummaryToolCallRefs, makeSummaryDetails, substituteInlineRefs } from "./summary-refs.js";
import type { PruneFrontier, PruneFrontierOutcome, SummarizeResult } from "./types.js";

export interface FlushTotals {
  toolCallCount: number;
  rawCharCount: number;
  summaryCharCount: number;
  dedupedCount: number;
}

export interface ProcessedBatch {
  item: PreparedBatch;
  kind: "summarized" | "oversized" | "trivial" | "deduped";
  /** Raw LLM text length (before ref decoration), for the oversized notice. */
  summaryLength?: number;
}

export interface PersistOutcome {
  processed: ProcessedBatch[];
  /** Index of the first batch that was not processed, or null when all were. */
  stopIndex: number | null;
  totals: FlushTotals;
}

export function persistResults(
  prepared: PreparedBatch[],
  slots: Slot[],
  state: ExtensionState,
  delivery: Delivery,
): PersistOutcome {
  const totals: FlushTotals = { toolCallCount: 0, rawCharCount: 0, summaryCharCount: 0, dedupedCount: 0 };
  const processed: ProcessedBatch[] = [];
  for (let i = 0; i < prepared.length; i++) {
    const item = prepared[i];
    const slot = slots[i];
    if (slot === null || slot === undefined) return { processed, stopIndex: i, totals };
    if (slot === "deduped" || slot === "trivial") {
      processed.push({ item, kind: slot });
      addTotals(totals, item, 0);
      continue;
    }
    let done: ProcessedBatch;
    try {
      done = persistSummary(item, slot, state, delivery);
    } catch (err) {
      if (isStaleContextError(err)) return { processed, stopIndex: i, totals };
      throw err;
    }
    state.stats.add(slot.usage);
    processed.push(done);
  }
  return { processed, stopIndex: null, totals };

  function persistSummary(item: PreparedBatch, result: SummarizeResult, st: ExtensionState, out: Delivery): ProcessedBatch {
    const { batch } = item;
    const refs = st.indexer.allocateSummaryRefs(batch);
    const toolNames = batch.toolCalls.map((tc) => tc.toolName);
    const text = substituteInlineRefs(result.summaryText, refs, toolNames) + formatSummaryToolCallRefs(refs);
    const oversized = text.length > item.raw;
    if (!oversized) {
      out.sendSummary(text, makeSummaryDetails(batch, refs));
      st.indexer.registerSummaryRefs(refs);
      st.indexer.addBatch(batch, out.appendEntry);
      st.indexer.registerSummaryBody(
        batch.toolCalls.map((tc) => occKey(tc.toolCallId, tc.resultTimestamp)),
        text,
      );
    }
    addTotals(totals, item, text.length);
    return { item, kind: oversized ? "oversized" : "summarized", summaryLength: result.summaryText.length };
  }
}

function addTotals(totals: FlushTotals, item: PreparedBatch, summaryChars: number): void {
  totals.rawCharCount += item.raw + item.dedupedChars;
  totals.toolCallCount += item.batch.toolCalls.length + item.deduped.length;
  totals.dedupedCount += item.deduped.length;
  totals.summaryCharCount += summaryChars;
}

/** Precedence: a real summary beats oversized, oversized beats deduped, deduped beats trivial. */
export function frontierOutcome(processed: ProcessedBatch[], totals: FlushTotals): PruneFrontierOutcome {
  if (processed.some((p) => p.kind === "summarized")) return "summarized";
  if (processed.some((p) => p.kind === "oversized")) return "skipped-oversized";
  if (totals.dedupedCount > 0) return "skipped-deduped";
  return "skipped-trivial";
}

export function frontierSnapshot(processed: ProcessedBatch[], totals: FlushTotals): PruneFrontier {
  const last = processed[processed.length - 1].item;
  const calls = last.kind === "deduped" ? last.deduped : last.batch.toolCalls;
  const anchor = calls[calls.length - 1] ?? last.deduped[last.deduped.length - 1];
  return {
    lastAttemptedToolCallId: anchor.toolCallId,
    lastAttemptedToolName: anchor.toolName,
    lastAttemptedTurnIndex: last.batch.turnIndex,
    lastAttemptedTimestamp: last.batch.timestamp,
    attemptedBatchCount: processed.length,
    attemptedToolCallCount: totals.toolCallCount,
    rawCharCount: totals.rawCharCount,
    summaryCharCount: totals.summaryCharCount,
    outcome: frontierOutcome(processed, totals),
  };
}
