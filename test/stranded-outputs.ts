/**
 * Outputs stranded behind the frontier, read off a session branch the way a reload reads it: the index
 * and the frontier rebuilt from the session's entries, the waiting outputs captured as the next flush
 * would capture them. An output the classic policy would archive (one of a tool turn whose outputs add up
 * to at least `minBatchChars`, not a `context_tree_query` recovery) is stranded when it is neither archived,
 * nor waiting, nor left raw by a flush as 2.9.1 leaves it (a summary longer than the outputs).
 */
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { ToolCallIndexer } from "../src/archive/indexer.js";
import { extractToolResultText } from "../src/capture/batch-capture.js";
import { PruneFrontierTracker } from "../src/capture/frontier.js";
import { occKey } from "../src/capture/occurrence-key.js";
import { capturePendingBatches } from "../src/capture/pending-batches.js";
import { isRecoveryTool } from "../src/capture/recovery-call.js";
import type { BatchingMode } from "../src/settings/config-shape.js";

export interface StrandedCheck {
  minBatchChars: number;
  batchingMode: BatchingMode;
}

interface ToolTurn {
  keys: Array<{ id: string; key: string }>;
  raw: number;
}

/** The tool turns of the branch: each assistant's calls answered by the results that follow it. */
function toolTurns(branch: any[]): ToolTurn[] {
  const turns: ToolTurn[] = [];
  let open: { names: Map<string, string>; turn: ToolTurn } | undefined;
  for (const entry of branch) {
    const message = entry?.type === "message" ? entry.message : undefined;
    if (message?.role === "assistant") {
      const calls = Array.isArray(message.content) ? message.content.filter((b: any) => b?.type === "toolCall") : [];
      open = { names: new Map(calls.map((c: any) => [c.id, c.name])), turn: { keys: [], raw: 0 } };
      turns.push(open.turn);
    } else if (message?.role === "toolResult" && open?.names.has(message.toolCallId)) {
      if (isRecoveryTool(open.names.get(message.toolCallId))) continue;
      open.turn.keys.push({ id: message.toolCallId, key: occKey(message.toolCallId, message.timestamp) });
      open.turn.raw += extractToolResultText(message).length;
    } else if (message?.role === "user") {
      open = undefined;
    }
  }
  return turns;
}

/**
 * Outputs a flush left raw by design, as 2.9.1 does (a summary longer than the outputs, or too small to
 * summarize): those its frontier entry says it attempted (the last `attemptedToolCallCount` results up to
 * `lastAttemptedToolCallId`) that it did not archive. Whatever the entry's outcome: a frontier only passes
 * batches the flush processed, and the outcome's precedence says `summarized` as soon as one of them got a
 * summary, so a batch skipped beside it (a small output whose deterministic body, after the summarizer's
 * attempts ran out, came out longer) shows only as an attempted output with no archive record.
 */
function leftRawByDesign(branch: any[]): Set<string> {
  const results: string[] = [];
  const left = new Set<string>();
  for (const entry of branch) {
    if (entry?.type === "message" && entry.message?.role === "toolResult") results.push(entry.message.toolCallId);
    const data = entry?.type === "custom" && entry.customType === "context-prune-frontier" ? entry.data : undefined;
    if (typeof data?.lastAttemptedToolCallId !== "string") continue;
    const end = results.lastIndexOf(data.lastAttemptedToolCallId);
    const count = Number.isInteger(data.attemptedToolCallCount) ? data.attemptedToolCallCount : 1;
    for (let i = Math.max(0, end - count + 1); end >= 0 && i <= end; i++) left.add(results[i]!);
  }
  return left;
}

export function strandedOutputs(branch: any[], check: StrandedCheck): string[] {
  const ctx = { sessionManager: { getBranch: () => branch } } as unknown as ExtensionContext;
  const indexer = new ToolCallIndexer();
  indexer.reconstructFromSession(ctx);
  const frontier = new PruneFrontierTracker();
  frontier.reconstructFromSession(ctx);
  const source = { indexer, frontier, pending: [], config: { value: { protectedTools: [], protectedPaths: [], batchingMode: check.batchingMode } } };
  const waiting = new Set<string>();
  for (const batch of capturePendingBatches(source, ctx)) for (const c of batch.toolCalls) waiting.add(occKey(c.toolCallId, c.resultTimestamp));
  const byDesign = leftRawByDesign(branch);
  const stranded: string[] = [];
  for (const turn of toolTurns(branch)) {
    if (turn.raw < check.minBatchChars) continue;
    for (const { id, key } of turn.keys) if (!indexer.isSummarized(key) && !waiting.has(key) && !byDesign.has(id)) stranded.push(id);
  }
  return stranded;
}
