/**
 * What a flush works on: the branch rescan (authoritative), trimmed to work
 * past the persisted frontier and not yet summarized, grouped by batching
 * mode. The in-memory queue is only the fallback when the branch cannot be read.
 * Protected calls and `context_tree_query` recoveries (the archive already
 * holds what they show) never enter a batch. `frontierBarrier` is where a flush
 * that takes only some of them must stop the frontier.
 */
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { captureUnindexedBatchesFromSession, groupBatchesByMode } from "./batch-capture.js";
import type { BatchingMode } from "../settings/config-shape.js";
import type { CapturedBatch, PruneFrontier } from "./records.js";
import { occKey } from "./occurrence-key.js";
import { type ProtectionConfig, protectionPredicate } from "./protected.js";
import { isRecoveryTool } from "./recovery-call.js";

/** What the rescan reads: the index, the frontier, the live queue (its fallback) and the live config. */
export interface PendingSource {
  indexer: { isSummarized(occurrenceKey: string): boolean };
  frontier: { get(): PruneFrontier | null; wasAttemptedAhead(key: string): boolean };
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
  return groupBatchesByMode(pendingTurns(state, ctx, opts), state.config.value.batchingMode);
}

/**
 * The earliest turn holding a waiting output outside `attempted`, or undefined when there is none: a flush
 * of `attempted` alone may move the frontier only to a batch before that turn, or the output would never be
 * captured again.
 */
export function frontierBarrier(state: PendingSource, ctx: ExtensionContext, attempted: ReadonlySet<string>): number | undefined {
  let barrier: number | undefined;
  for (const batch of pendingTurns(state, ctx)) {
    if (barrier !== undefined && batch.turnIndex >= barrier) continue;
    if (batch.toolCalls.some((call) => !attempted.has(occKey(call.toolCallId, call.resultTimestamp)))) barrier = batch.turnIndex;
  }
  return barrier;
}

/** The waiting outputs, one batch per tool turn, in branch order. */
function pendingTurns(state: PendingSource, ctx: ExtensionContext, opts?: { rethrow?: boolean }): CapturedBatch[] {
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
  const done = (key: string) => state.indexer.isSummarized(key) || state.frontier.wasAttemptedAhead(key);
  const trimmed: CapturedBatch[] = [];
  for (const batch of withoutSharedKeys(captured)) {
    const kept = trimBatchToPendingRange(batch, done, frontier);
    if (kept) trimmed.push(kept);
  }
  return trimmed;
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
