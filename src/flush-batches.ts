/**
 * Pre-LLM steps of a flush: content-hash dedup, trivial classification, and
 * the summarizer calls (sequential with progress rows under `/pruner now`,
 * parallel otherwise).
 */
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { AppendEntry } from "./delivery.js";
import type { ExtensionState } from "./extension-state.js";
import { occKey } from "./occurrence-key.js";
import { summarizeBatch, summarizeBatches } from "./summarizer.js";
import type { CapturedBatch, CapturedToolCall, FlushOptions, SummarizeResult } from "./types.js";

export interface PreparedBatch {
  /** Shallow clone holding only the calls that still need summarizing. */
  batch: CapturedBatch;
  deduped: CapturedToolCall[];
  dedupedChars: number;
  /** Raw chars of the remaining (post-dedup) calls. */
  raw: number;
  kind: "summarize" | "trivial" | "deduped";
}

export type Slot = SummarizeResult | null | "trivial" | "deduped";

/** Calls whose normalized text matches an already-indexed record become aliases of it: no LLM call. */
export function dedupBatches(
  batches: CapturedBatch[],
  state: ExtensionState,
  persistAlias: AppendEntry,
): Array<{ batch: CapturedBatch; deduped: CapturedToolCall[] }> {
  return batches.map((batch) => {
    if (!state.config.value.dedupByContentHash) return { batch, deduped: [] };
    const kept: CapturedToolCall[] = [];
    const deduped: CapturedToolCall[] = [];
    for (const call of batch.toolCalls) {
      const originalKey = state.indexer.lookupByContent(call.toolName, call.resultText);
      const key = occKey(call.toolCallId, call.resultTimestamp);
      if (originalKey && originalKey !== key) {
        state.indexer.registerDuplicate(key, originalKey, persistAlias);
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
): PreparedBatch[] {
  return items.map(({ batch, deduped }) => {
    const raw = charsOf(batch.toolCalls);
    const dedupedChars = charsOf(deduped);
    const calls = batch.toolCalls.length;
    const fullyDeduped = deduped.length > 0 && calls === 0;
    const trivial = !fullyDeduped && minBatchChars > 0 && raw < minBatchChars && calls > 0;
    const kind = fullyDeduped ? "deduped" : trivial ? "trivial" : "summarize";
    return { batch, deduped, dedupedChars, raw, kind };
  });
}

export async function summarizeSlots(
  prepared: PreparedBatch[],
  state: ExtensionState,
  ctx: ExtensionContext,
  options: FlushOptions,
): Promise<Slot[]> {
  return options.onProgress
    ? summarizeSequentially(prepared, state, ctx, options)
    : summarizeInParallel(prepared, state, ctx, options);
}

async function summarizeSequentially(
  prepared: PreparedBatch[],
  state: ExtensionState,
  ctx: ExtensionContext,
  options: FlushOptions,
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
    });
    options.onProgress?.(i, total, item.batch, result ? "done" : "skipped");
    slots.push(result);
  }
  return slots;
}

async function summarizeInParallel(
  prepared: PreparedBatch[],
  state: ExtensionState,
  ctx: ExtensionContext,
  options: FlushOptions,
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
    },
  );
  const slots: Slot[] = prepared.map((item) => (item.kind === "summarize" ? null : item.kind));
  positions.forEach((position, k) => {
    slots[position] = results[k] ?? null;
  });
  return slots;
}

function charsOf(calls: CapturedToolCall[]): number {
  let total = 0;
  for (const call of calls) total += call.resultText.length;
  return total;
}
