/**
 * What a flush works on: the branch rescan (authoritative), trimmed to work
 * past the persisted frontier and not yet summarized, grouped by batching
 * mode. The in-memory queue is only the fallback when the branch cannot be read.
 * Protected calls and `context_tree_query` recoveries (the archive already
 * holds what they show) never enter a batch.
 */
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { captureUnindexedBatchesFromSession, groupBatchesByMode } from "./batch-capture.js";
import type { BatchingMode, CapturedBatch, PruneFrontier } from "../types.js";
import { occKey } from "./occurrence-key.js";
import { type ProtectionConfig, protectionPredicate } from "./protected.js";
import { isRecoveryTool } from "./recovery-call.js";

/** What the rescan reads: the index, the frontier, the live queue (its fallback) and the live config. */
export interface PendingSource {
  indexer: { isSummarized(occurrenceKey: string): boolean };
  frontier: { get(): PruneFrontier | null };
  pending: CapturedBatch[];
  config: { value: ProtectionConfig & { batchingMode: BatchingMode } };
}

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
  state: PendingSource,
  ctx: ExtensionContext,
  opts?: { rethrow?: boolean },
): CapturedBatch[] {
  let captured: CapturedBatch[];
  try {
    const isProtected = protectionPredicate(state);
    const exclude = (toolName: string, args: unknown) => isRecoveryTool(toolName) || isProtected(toolName, args);
    captured = captureUnindexedBatchesFromSession(ctx.sessionManager.getBranch(), state.indexer, exclude);
  } catch (err) {
    if (opts?.rethrow) throw err;
    captured = state.pending.slice();
  }
  const frontier = state.frontier.get();
  const isSummarized = (key: string) => state.indexer.isSummarized(key);
  const trimmed: CapturedBatch[] = [];
  for (const batch of withoutSharedKeys(captured)) {
    const kept = trimBatchToPendingRange(batch, isSummarized, frontier);
    if (kept) trimmed.push(kept);
  }
  return groupBatchesByMode(trimmed, state.config.value.batchingMode);
}

/**
 * Two results with the same id in the same millisecond share an occurrence key, and the archive
 * could only hold one of them: such calls are never summarized and stay verbatim.
 */
function withoutSharedKeys(batches: CapturedBatch[]): CapturedBatch[] {
  const seen = new Set<string>();
  const shared = new Set<string>();
  for (const batch of batches) {
    for (const call of batch.toolCalls) {
      const key = occKey(call.toolCallId, call.resultTimestamp);
      if (seen.has(key)) shared.add(key);
      else seen.add(key);
    }
  }
  if (shared.size === 0) return batches;
  const kept: CapturedBatch[] = [];
  for (const batch of batches) {
    const calls = batch.toolCalls.filter((call) => !shared.has(occKey(call.toolCallId, call.resultTimestamp)));
    if (calls.length > 0) kept.push(calls.length === batch.toolCalls.length ? batch : { ...batch, toolCalls: calls });
  }
  return kept;
}
