/**
 * Pressure the pruner cannot reclaim yet: thinking in the trailing open
 * segment, the share of the branch held by one chain, and unsummarized
 * capturable tool output past the prune frontier. All values are chars/4
 * estimates over the persisted branch (no tokenizer).
 */
import { detectChains } from "./chain-detector.js";
import { isTextOnlyAssistant, toolCallBlocks } from "./message-shape.js";
import { occKey, resultTimestampOf } from "./occurrence-key.js";
import type { ChainRange, ContextMetricsSnapshot, PruneFrontier } from "./types.js";

type ProtectionPredicate = (toolName: string, args: unknown) => boolean;

function charsOf(value: unknown): number {
  return (JSON.stringify(value) ?? "").length;
}

function tokensOf(chars: number): number {
  return Math.round(chars / 4);
}

function assistantToolCalls(msg: any): any[] {
  return msg?.role === "assistant" ? toolCallBlocks(msg) : [];
}

function sumChars(branch: any[], from: number, to: number): number {
  let total = 0;
  for (let i = from; i <= to; i++) total += charsOf(branch[i]);
  return total;
}

function openSegmentStart(branch: any[]): number {
  for (let i = branch.length - 1; i >= 0; i--) {
    if (isTextOnlyAssistant(branch[i])) return i + 1;
  }
  return 0;
}

function openCycleThinkingChars(branch: any[], openStart: number): number {
  let chars = 0;
  for (let i = openStart; i < branch.length; i++) {
    const msg = branch[i];
    if (msg?.role !== "assistant" || !Array.isArray(msg.content)) continue;
    for (const block of msg.content) {
      if (block?.type === "thinking") chars += charsOf(block);
    }
  }
  return chars;
}

function chainSpan(branch: any[], chain: ChainRange): [number, number] | null {
  const startIdx = branch.findIndex((m) => m?.role === "user" && m.timestamp === chain.startUserTimestamp);
  if (startIdx < 0) return null;
  let endIdx: number;
  if (chain.finalAssistantTimestamp === null) {
    const nextUser = branch.findIndex((m, i) => i > startIdx && m?.role === "user");
    endIdx = nextUser < 0 ? branch.length - 1 : nextUser - 1;
  } else {
    endIdx = branch.findIndex((m, i) => i >= startIdx && m?.role === "assistant" && m.timestamp === chain.finalAssistantTimestamp);
    if (endIdx < 0) return null;
  }
  return endIdx < startIdx ? null : [startIdx, endIdx];
}

function largestChainChars(branch: any[], isProtected: ProtectionPredicate): number {
  let largest = 0;
  for (const chain of detectChains(branch, isProtected)) {
    const span = chainSpan(branch, chain);
    if (span) largest = Math.max(largest, sumChars(branch, span[0], span[1]));
  }
  return largest;
}

interface FrontierBoundary {
  index: number;
  turnEnd: number;
  excludedIds: Set<string>;
}

function locateFrontier(branch: any[], frontier: PruneFrontier | null): FrontierBoundary | null {
  if (!frontier) return null;
  let turn = 0;
  for (let i = 0; i < branch.length; i++) {
    if (branch[i]?.role !== "assistant") continue;
    if (turn++ !== frontier.lastAttemptedTurnIndex) continue;
    const ids = assistantToolCalls(branch[i]).map((block) => block.id);
    const k = ids.indexOf(frontier.lastAttemptedToolCallId);
    if (k < 0) return null;
    const next = branch.findIndex((m, j) => j > i && m?.role === "assistant");
    return { index: i, turnEnd: next < 0 ? branch.length : next, excludedIds: new Set(ids.slice(0, k + 1)) };
  }
  return null;
}

function nearestCallArgs(branch: any[], resultIndex: number, toolCallId: unknown): unknown {
  for (let i = resultIndex - 1; i >= 0; i--) {
    const block = assistantToolCalls(branch[i]).find((b) => b.id === toolCallId);
    if (block) return block.input ?? block.arguments;
  }
  return undefined;
}

function frontierGapTokens(
  branch: any[],
  frontier: PruneFrontier | null,
  isSummarized: (occurrenceKey: string) => boolean,
  isProtected: ProtectionPredicate,
): number {
  const boundary = locateFrontier(branch, frontier);
  let gap = 0;
  for (let i = boundary ? boundary.index + 1 : 0; i < branch.length; i++) {
    const msg = branch[i];
    if (msg?.role !== "toolResult" || typeof msg.toolCallId !== "string") continue;
    if (boundary && i < boundary.turnEnd && boundary.excludedIds.has(msg.toolCallId)) continue;
    if (isSummarized(occKey(msg.toolCallId, resultTimestampOf(msg.timestamp)))) continue;
    if (isProtected(msg.toolName, nearestCallArgs(branch, i, msg.toolCallId))) continue;
    gap += tokensOf(charsOf(msg));
  }
  return gap;
}

export function computeContextMetrics(
  branch: any[],
  frontier: PruneFrontier | null,
  isSummarized: (occurrenceKey: string) => boolean,
  isProtected: ProtectionPredicate,
): ContextMetricsSnapshot {
  const totalChars = sumChars(branch, 0, branch.length - 1);
  const openStart = openSegmentStart(branch);
  const openChars = sumChars(branch, openStart, branch.length - 1);
  const numerator = Math.max(largestChainChars(branch, isProtected), openChars);
  return {
    openCycleThinkingTokens: tokensOf(openCycleThinkingChars(branch, openStart)),
    largestChainSharePct: totalChars === 0 ? 0 : Math.round((100 * numerator) / totalChars),
    frontierGapTokens: frontierGapTokens(branch, frontier, isSummarized, isProtected),
  };
}
