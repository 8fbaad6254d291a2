/** Info notices for batches a flush handled without a summary (all muted by `quietOversizedSkips`). */
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { safeNotify } from "./delivery.js";
import type { PreparedBatch } from "./flush-batches.js";
import type { ProcessedBatch } from "./flush-persist.js";
import { MAX_SUMMARY_ATTEMPTS } from "./retry-ledger.js";
import { plural } from "../plural.js";

export function oversizedNotice(p: ProcessedBatch): string {
  const { batch, raw } = p.item;
  return (
    `pruner: skipped pruning turn ${batch.turnIndex} (${plural(batch.toolCalls.length, "tool call")}): ` +
    `the summary was ${p.summaryLength ?? 0} chars against ${raw} raw chars; the frontier still moved past this range`
  );
}

export function trivialNotice(p: ProcessedBatch, minBatchChars: number): string {
  const { batch, raw } = p.item;
  return (
    `pruner: skipped pruning turn ${batch.turnIndex} (${plural(batch.toolCalls.length, "tool call")}): ` +
    `only ${raw} raw chars, below minBatchChars=${minBatchChars}; no LLM call was made; the frontier still moved past this range`
  );
}

export function dedupedNotice(p: ProcessedBatch): string {
  const { batch, deduped, dedupedChars } = p.item;
  return (
    `pruner: ${plural(deduped.length, "tool call")} of turn ${batch.turnIndex} matched earlier prunes and ` +
    `were deduplicated (${dedupedChars} raw chars); no LLM call was made; the frontier still moved past this range`
  );
}

export function partialDedupNotice(count: number): string {
  return (
    `pruner: ${plural(count, "tool call")} matched earlier prunes and were deduplicated without an LLM call; ` +
    "the other tool calls of the batch went through normal summarization"
  );
}

export function notifySkips(
  ctx: ExtensionContext,
  processed: ProcessedBatch[],
  dedupedCount: number,
  config: { quietOversizedSkips: boolean; minBatchChars: number },
): void {
  if (config.quietOversizedSkips) return;
  for (const p of processed) if (p.kind === "oversized") safeNotify(ctx, oversizedNotice(p), "info");
  for (const p of processed) if (p.kind === "trivial") safeNotify(ctx, trivialNotice(p, config.minBatchChars), "info");
  const fullyDeduped = processed.filter((p) => p.kind === "deduped");
  for (const p of fullyDeduped) safeNotify(ctx, dedupedNotice(p), "info");
  if (dedupedCount > 0 && fullyDeduped.length === 0) safeNotify(ctx, partialDedupNotice(dedupedCount), "info");
}

export function archivedNotice(p: ProcessedBatch): string {
  const { batch } = p.item;
  const refs = p.refs ?? [];
  const span = refs.length > 1 ? `${refs[0]}-${refs[refs.length - 1]}` : (refs[0] ?? "");
  return (
    `pruner: turn ${batch.turnIndex} (${plural(batch.toolCalls.length, "tool call")}) got no usable summary ` +
    `(${MAX_SUMMARY_ATTEMPTS} attempts, or too big for one summarizer call); archived with a plain listing instead, ` +
    `outputs recoverable as ${span}`
  );
}

/** Always shown: a batch archived without a summary is news the user should see once. */
export function notifyArchived(ctx: ExtensionContext, processed: ProcessedBatch[]): void {
  for (const p of processed) if (p.kind === "archived") safeNotify(ctx, archivedNotice(p), "warning");
}

export function unusableNotice(item: PreparedBatch): string {
  const { batch } = item;
  return (
    `pruner: the summarizer answered turn ${batch.turnIndex} (${plural(batch.toolCalls.length, "tool call")}) ` +
    "with an empty or cut-off summary; it will be retried, then archived with a plain listing"
  );
}

export function notifyUnusable(ctx: ExtensionContext, items: PreparedBatch[]): void {
  for (const item of items) safeNotify(ctx, unusableNotice(item), "warning");
}
