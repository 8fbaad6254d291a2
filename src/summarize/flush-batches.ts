/**
 * Pre-LLM steps of a flush: content-hash dedup, classification (trivial,
 * waiting for a retry, to be archived without a summary, to summarize), and
 * the summarizer calls (sequential with progress rows under `/pruner now`,
 * parallel otherwise).
 */
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { AppendEntry } from "./delivery.js";
import type { FlushState } from "./flush-state.js";
import { serializeBatchWithinLimit } from "../capture/batch-capture.js";
import { archivedCopyOf } from "../capture/exact-duplicate.js";
import { occKey } from "../capture/occurrence-key.js";
import type { RetryStatus } from "./retry-ledger.js";
import type { BatchSplit } from "./summary-choice.js";
import { summarizeBatch, summarizeBatches } from "./summarizer.js";
import { holdsStubbableArguments } from "../arguments/fields.js";
import type { CapturedBatch, CapturedToolCall } from "../capture/records.js";
import type { FlushOptions } from "./flush-types.js";
import type { SummarizeResult } from "./summarizer.js";

export interface PreparedBatch {
  /** Shallow clone holding only the calls that still need summarizing. */
  batch: CapturedBatch;
  deduped: CapturedToolCall[];
  dedupedChars: number;
  /** Raw chars of the remaining (post-dedup) calls. */
  raw: number;
  /**
   * `deferred`: waiting out a retry backoff; `archive`: archived with a deterministic summary (attempts used
   * up, or too big); `unsummarized`: archived with no summary at all, by choice (`summaries`, stale outputs).
   */
  kind: "summarize" | "trivial" | "deduped" | "deferred" | "archive" | "unsummarized";
}

export type Slot = SummarizeResult | null | "trivial" | "deduped" | "deferred" | "archive" | "unsummarized";

export interface SummarizedSlots {
  slots: Slot[];
  /** Positions whose summarizer reply was empty or cut off. */
  unusable: Set<number>;
}

/** Calls whose normalized text matches an already-indexed record become aliases of it: no LLM call. */
export function dedupBatches(
  batches: CapturedBatch[],
  state: FlushState,
  persistAlias: AppendEntry,
): Array<{ batch: CapturedBatch; deduped: CapturedToolCall[] }> {
  return batches.map((batch) => {
    if (!state.config.value.dedupByContentHash) return { batch, deduped: [] };
    const kept: CapturedToolCall[] = [];
    const deduped: CapturedToolCall[] = [];
    for (const call of batch.toolCalls) {
      // A spilled original would need its sidecar read to be compared: the call is summarized instead.
      const candidate = archivedCopyOf(state.indexer, call);
      if (candidate) {
        state.indexer.registerDuplicate(occKey(call.toolCallId, call.resultTimestamp), candidate.key, persistAlias, call);
        deduped.push(call);
      } else {
        kept.push(call);
      }
    }
    return { batch: { ...batch, toolCalls: kept }, deduped };
  });
}

export function classifyBatches(
  items: Array<{ batch: CapturedBatch; deduped: CapturedToolCall[] }>,
  minBatchChars: number,
  retryStatus: (batch: CapturedBatch) => RetryStatus,
  split: (batch: CapturedBatch) => BatchSplit = (batch) => ({ summarize: batch, withoutSummary: { ...batch, toolCalls: [] } }),
  stubArguments = false,
): PreparedBatch[] {
  return items.flatMap(({ batch, deduped }) => {
    const raw = charsOf(batch.toolCalls);
    const dedupedChars = charsOf(deduped);
    const kind = kindOf(batch, deduped, raw, minBatchChars, retryStatus);
    // Small outputs whose calls carry bulky arguments: archived with no summary, so the arguments can be stubbed.
    if (kind === "trivial" && stubArguments && holdsStubbableArguments(batch.toolCalls)) {
      return [{ batch: withoutSummaryOf(batch), deduped, dedupedChars, raw, kind: "unsummarized" }];
    }
    if (kind !== "summarize" && kind !== "archive") return [{ batch, deduped, dedupedChars, raw, kind }];
    const { summarize, withoutSummary } = split(batch);
    // The summarized part goes first: if it fails, the frontier stops before the whole batch.
    const parts: PreparedBatch[] = [];
    if (summarize.toolCalls.length > 0 || withoutSummary.toolCalls.length === 0) {
      parts.push({ batch: summarize, deduped, dedupedChars, raw: charsOf(summarize.toolCalls), kind });
    }
    if (withoutSummary.toolCalls.length > 0) {
      const first = parts.length === 0;
      parts.push({
        batch: withoutSummary,
        deduped: first ? deduped : [],
        dedupedChars: first ? dedupedChars : 0,
        raw: charsOf(withoutSummary.toolCalls),
        kind: "unsummarized",
      });
    }
    return parts;
  });
}

function kindOf(
  batch: CapturedBatch,
  deduped: CapturedToolCall[],
  raw: number,
  minBatchChars: number,
  retryStatus: (batch: CapturedBatch) => RetryStatus,
): PreparedBatch["kind"] {
  const calls = batch.toolCalls.length;
  if (deduped.length > 0 && calls === 0) return "deduped";
  if (isTrivial(raw, calls, minBatchChars)) return "trivial";
  const status = retryStatus(batch);
  if (status === "backoff") return "deferred";
  if (status === "exhausted" || serializeBatchWithinLimit(batch) === undefined) return "archive";
  return "summarize";
}

export async function summarizeSlots(
  prepared: PreparedBatch[],
  state: FlushState,
  ctx: ExtensionContext,
  options: FlushOptions,
): Promise<SummarizedSlots> {
  const unusable = new Set<number>();
  const slots = options.onProgress
    ? await summarizeSequentially(prepared, state, ctx, options, unusable)
    : await summarizeInParallel(prepared, state, ctx, options, unusable);
  return { slots, unusable };
}

async function summarizeSequentially(
  prepared: PreparedBatch[],
  state: FlushState,
  ctx: ExtensionContext,
  options: FlushOptions,
  unusable: Set<number>,
): Promise<Slot[]> {
  const total = prepared.length;
  const slots: Slot[] = [];
  for (const [i, item] of prepared.entries()) {
    if (item.kind !== "summarize") {
      options.onProgress?.(i, total, item.batch, "skipped");
      slots.push(item.kind);
      continue;
    }
    options.onProgress?.(i, total, item.batch, "start");
    const result = await summarizeBatch(item.batch, state.config.value, ctx, {
      signal: options.signal,
      controller: state.fallback,
      onTextProgress: (chars) => options.onBatchTextProgress?.(i, total, item.batch, chars),
      onUnusable: () => unusable.add(i),
    });
    options.onProgress?.(i, total, item.batch, result ? "done" : "skipped");
    slots.push(result);
  }
  return slots;
}

async function summarizeInParallel(
  prepared: PreparedBatch[],
  state: FlushState,
  ctx: ExtensionContext,
  options: FlushOptions,
  unusable: Set<number>,
): Promise<Slot[]> {
  const total = prepared.length;
  const positions = prepared.flatMap((item, i) => (item.kind === "summarize" ? [i] : []));
  const results = await summarizeBatches(
    positions.map((i) => prepared[i].batch),
    state.config.value,
    ctx,
    {
      signal: options.signal,
      controller: state.fallback,
      onBatchTextProgress: (index, _total, batch, chars) =>
        options.onBatchTextProgress?.(positions[index], total, batch, chars),
      onBatchUnusable: (index) => unusable.add(positions[index]!),
    },
  );
  const slots: Slot[] = prepared.map((item) => (item.kind === "summarize" ? null : item.kind));
  positions.forEach((position, k) => {
    slots[position] = results[k] ?? null;
  });
  return slots;
}

/** A batch under `minBatchChars` is left as it is: no summary, no stub. */
function isTrivial(raw: number, calls: number, minBatchChars: number): boolean {
  return minBatchChars > 0 && raw < minBatchChars && calls > 0;
}

/**
 * Whether a flush would leave `batch` as it is for being small (before dedup takes copies out of it); with
 * `stubArguments`, a batch whose calls carry bulky arguments is archived however small its outputs.
 */
export function isTrivialBatch(batch: CapturedBatch, minBatchChars: number, stubArguments = false): boolean {
  if (!isTrivial(charsOf(batch.toolCalls), batch.toolCalls.length, minBatchChars)) return false;
  return !(stubArguments && holdsStubbableArguments(batch.toolCalls));
}

/** The batch with every call marked for a record archived without a summary. */
export function withoutSummaryOf(batch: CapturedBatch): CapturedBatch {
  return { ...batch, toolCalls: batch.toolCalls.map((call) => ({ ...call, unsummarized: true as const })) };
}

function charsOf(calls: CapturedToolCall[]): number {
  let total = 0;
  for (const call of calls) total += call.resultText.length;
  return total;
}
