/**
 * What a flush works on: the branch rescan (authoritative), trimmed to work
 * past the persisted frontier and not yet summarized, grouped by batching
 * mode. The in-memory queue is only the fallback when the branch cannot be read.
 */
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { captureUnindexedBatchesFromSession, groupBatchesByMode } from "./batch-capture.js";
import { type ExtensionState, protectionPredicate } from "./extension-state.js";
import { occKey } from "./occurrence-key.js";
import type { CapturedBatch, PruneFrontier } from "./types.js";

export function trimBatchToPendingRange(
  batch: CapturedBatch,
  isSummarized: (key: string) => boolean,
  frontier: PruneFrontier | null,
): CapturedBatch | null {
  const remaining = batch.toolCalls.filter((tc) => !isSummarized(occKey(tc.toolCallId, tc.resultTimestamp)));
  if (remaining.length === 0) return null;
  const kept = { ...batch, toolCalls: remaining };
  if (!frontier) return kept;
  if (batch.turnIndex < frontier.lastAttemptedTurnIndex) return null;
  if (batch.turnIndex > frontier.lastAttemptedTurnIndex) return kept;
  const at = remaining.findIndex((tc) => tc.toolCallId === frontier.lastAttemptedToolCallId);
  if (at < 0) return kept;
  const after = remaining.slice(at + 1);
  return after.length === 0 ? null : { ...batch, toolCalls: after };
}

export function capturePendingBatches(
  state: ExtensionState,
  ctx: ExtensionContext,
  opts?: { rethrow?: boolean },
): CapturedBatch[] {
  let captured: CapturedBatch[];
  try {
    captured = captureUnindexedBatchesFromSession(ctx.sessionManager.getBranch(), state.indexer, protectionPredicate(state));
  } catch (err) {
    if (opts?.rethrow) throw err;
    captured = state.pending.slice();
  }
  const frontier = state.frontier.get();
  const isSummarized = (key: string) => state.indexer.isSummarized(key);
  const trimmed: CapturedBatch[] = [];
  for (const batch of captured) {
    const kept = trimBatchToPendingRange(batch, isSummarized, frontier);
    if (kept) trimmed.push(kept);
  }
  return groupBatchesByMode(trimmed, state.config.value.batchingMode);
}
