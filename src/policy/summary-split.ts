/**
 * Which outputs a flush at a given moment stubs without a summary, chosen as the host's flush chooses
 * (summarize/summary-choice.ts): under `summaries` "auto" those the agent can have again and those gone
 * stale, under "never" all, under "always" (and the classic policy) none. The report's what-if flushes by it
 * and its cost-policy weighing prices the summarizer by it. Pure.
 */
import { occKey } from "../capture/occurrence-key.js";
import { isProtected } from "../capture/protected.js";
import { type BatchSplit, splitBatches, staleOutputsOf, summariesMode } from "../summarize/summary-choice.js";
import type { Message } from "@earendil-works/pi-ai";
import type { CapturedBatch, CapturedToolCall } from "../capture/records.js";
import type { ContextPruneConfig } from "../settings/config-shape.js";

/** The split of each batch at a moment whose context is `messages`. */
export function summarySplit(messages: readonly unknown[], batches: readonly CapturedBatch[], config: ContextPruneConfig): (batch: CapturedBatch) => BatchSplit {
  const mode = summariesMode(config);
  if (mode === "always" || batches.length === 0) return (batch) => ({ summarize: batch, withoutSummary: { ...batch, toolCalls: [] } });
  const stale = staleOutputsOf(messages, mode, (toolName, args) => isProtected(toolName, args, config));
  return (batch) => splitBatches([batch], mode, stale)[0]!;
}

/** Whether a flush of `batches` would stub the call without a summary (for the weighing's summarizer estimate). */
export function withoutSummaryOf(messages: readonly unknown[], batches: readonly CapturedBatch[], config: ContextPruneConfig): (call: CapturedToolCall) => boolean {
  const split = summarySplit(messages, batches, config);
  const without = new Set<string>();
  for (const batch of batches) for (const call of split(batch).withoutSummary.toolCalls) without.add(occKey(call.toolCallId, call.resultTimestamp));
  return (call) => without.has(occKey(call.toolCallId, call.resultTimestamp));
}
