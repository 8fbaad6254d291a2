/**
 * Pressure the pruner cannot reclaim yet: thinking in the trailing open
 * segment, the share of the branch held by one chain, and unsummarized
 * capturable tool output past the prune frontier. All values are chars/4
 * estimates over the persisted branch (no tokenizer); an image counts 1,600 tokens.
 */
import { isAssistant, isToolResult, isUser, loose } from "../capture/message-shape.js";
import type { ToolCall } from "@earendil-works/pi-ai";
import { detectChains } from "../chains/chain-detector.js";
import { isChainAnchorCustom, isTextOnlyAssistant, toolCallBlocks } from "../capture/message-shape.js";
import { occKey, resultTimestampOf } from "../capture/occurrence-key.js";
import { isRecoveryTool } from "../capture/recovery-call.js";
import { estimateTokens } from "../format/figures.js";
import { charsOf, IMAGE_TOKEN_ESTIMATE } from "../render/message-size.js";
import type { ChainRange } from "../chains/chain-detector.js";
import type { ContextMetricsSnapshot } from "../summarize/flush-types.js";
import type { PruneFrontier } from "../capture/records.js";

type ProtectionPredicate = (toolName: string, args: unknown) => boolean;

export { charsOf, IMAGE_TOKEN_ESTIMATE };

function assistantToolCalls(msg: unknown): ToolCall[] {
  return isAssistant(msg) ? toolCallBlocks(msg) : [];
}

/** Each message's JSON length, serialized once: the metrics below sum overlapping spans of the branch. */
class BranchSizes {
  /** `prefix[i]` = chars of messages 0..i-1. */
  private readonly prefix: Float64Array;

  constructor(branch: readonly unknown[], sizeOf: (msg: unknown) => number) {
    this.prefix = new Float64Array(branch.length + 1);
    for (let i = 0; i < branch.length; i++) this.prefix[i + 1] = this.prefix[i]! + sizeOf(branch[i]);
  }

  of(i: number): number {
    return this.prefix[i + 1]! - this.prefix[i]!;
  }

  /** Chars of messages from..to, inclusive. */
  sum(from: number, to: number): number {
    return to < from ? 0 : this.prefix[to + 1]! - this.prefix[from]!;
  }
}

function openSegmentStart(branch: readonly unknown[]): number {
  for (let i = branch.length - 1; i >= 0; i--) {
    if (isTextOnlyAssistant(branch[i])) return i + 1;
  }
  return 0;
}

function openCycleThinkingChars(branch: readonly unknown[], openStart: number): number {
  let chars = 0;
  for (let i = openStart; i < branch.length; i++) {
    const msg = branch[i];
    if (!isAssistant(msg) || !Array.isArray(msg.content)) continue;
    for (const block of msg.content) {
      if (block?.type === "thinking") chars += charsOf(block);
    }
  }
  return chars;
}

/**
 * Where each chain starts and ends in the branch, found through maps built in
 * one pass: looking each chain up with a scan from its start made the metrics
 * grow with chains × messages.
 */
class ChainLocator {
  /** Timestamp → index of the first chain anchor (user or eligible custom message) with it. */
  private readonly anchorAt = new Map<unknown, number>();
  /** Timestamp → index of the assistant message with it, or their ascending indices when several share it. */
  private readonly assistantsAt = new Map<unknown, number | number[]>();
  /** `nextUser[i]` = index of the first user message after i, or -1: only a user message interrupts a chain. */
  private readonly nextUser: Int32Array;

  constructor(private readonly branch: readonly unknown[]) {
    this.nextUser = new Int32Array(branch.length);
    let next = -1;
    for (let i = branch.length - 1; i >= 0; i--) {
      this.nextUser[i] = next;
      if (isUser(branch[i])) next = i;
    }
    for (let i = 0; i < branch.length; i++) {
      const value = branch[i];
      if (isUser(value) || isChainAnchorCustom(value)) {
        const time = loose(value)!.timestamp;
        if (!this.anchorAt.has(time)) this.anchorAt.set(time, i);
      }
      if (isAssistant(value)) {
        const seen = this.assistantsAt.get(value.timestamp);
        if (seen === undefined) this.assistantsAt.set(value.timestamp, i);
        else if (typeof seen === "number") this.assistantsAt.set(value.timestamp, [seen, i]);
        else seen.push(i);
      }
    }
  }

  span(chain: ChainRange): [number, number] | null {
    const startIdx = this.anchorAt.get(chain.startUserTimestamp);
    if (startIdx === undefined) return null;
    let endIdx: number;
    if (chain.finalAssistantTimestamp === null) {
      const nextUser = this.nextUser[startIdx]!;
      endIdx = nextUser < 0 ? this.branch.length - 1 : nextUser - 1;
    } else {
      const found = firstAtOrAfter(this.assistantsAt.get(chain.finalAssistantTimestamp), startIdx);
      if (found < 0) return null;
      endIdx = found;
    }
    return endIdx < startIdx ? null : [startIdx, endIdx];
  }
}

/** The first index >= `min` among those recorded, or -1 (binary search: timestamps may repeat many times). */
function firstAtOrAfter(recorded: number | number[] | undefined, min: number): number {
  if (recorded === undefined) return -1;
  if (typeof recorded === "number") return recorded >= min ? recorded : -1;
  const ascending = recorded;
  let lo = 0;
  let hi = ascending.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ascending[mid]! < min) lo = mid + 1;
    else hi = mid;
  }
  return lo < ascending.length ? ascending[lo]! : -1;
}

function largestChainChars(branch: readonly unknown[], sizes: BranchSizes, isProtected: ProtectionPredicate): number {
  const locator = new ChainLocator(branch);
  let largest = 0;
  for (const chain of detectChains(branch, isProtected)) {
    const span = locator.span(chain);
    if (span) largest = Math.max(largest, sizes.sum(span[0], span[1]));
  }
  return largest;
}

interface FrontierBoundary {
  index: number;
  turnEnd: number;
  excludedIds: Set<string>;
}

function locateFrontier(branch: readonly unknown[], frontier: PruneFrontier | null): FrontierBoundary | null {
  if (!frontier) return null;
  let turn = 0;
  for (let i = 0; i < branch.length; i++) {
    if (!isAssistant(branch[i])) continue;
    if (turn++ !== frontier.lastAttemptedTurnIndex) continue;
    const ids = assistantToolCalls(branch[i]).map((block) => block.id);
    const k = ids.indexOf(frontier.lastAttemptedToolCallId);
    if (k < 0) return null;
    const next = branch.findIndex((m, j) => j > i && isAssistant(m));
    return { index: i, turnEnd: next < 0 ? branch.length : next, excludedIds: new Set(ids.slice(0, k + 1)) };
  }
  return null;
}

/**
 * Remembers each call's arguments as the walk passes its assistant, so a result
 * finds the args of the nearest preceding call with its id (the first such
 * block within that assistant) without walking back: one batch can hold
 * thousands of results.
 */
function noteCallArgs(msg: unknown, callArgs: Map<unknown, unknown>): void {
  const calls = assistantToolCalls(msg);
  // Backwards, so the first block with an id is the one that stays.
  for (let j = calls.length - 1; j >= 0; j--) {
    const call = calls[j]!;
    callArgs.set(call.id, (call as { input?: unknown }).input ?? call.arguments);
  }
}

function callArgsFor(callArgs: Map<unknown, unknown>, toolCallId: unknown): unknown {
  // Ids are matched with ===, under which NaN never matches (a Map would match it).
  return toolCallId === toolCallId ? callArgs.get(toolCallId) : undefined;
}

function frontierGapTokens(
  branch: readonly unknown[],
  sizes: BranchSizes,
  frontier: PruneFrontier | null,
  isSummarized: (occurrenceKey: string) => boolean,
  isProtected: ProtectionPredicate,
): number {
  const boundary = locateFrontier(branch, frontier);
  const start = boundary ? boundary.index + 1 : 0;
  const callArgs = new Map<unknown, unknown>();
  let gap = 0;
  for (let i = 0; i < branch.length; i++) {
    const msg = branch[i];
    if (isAssistant(msg)) noteCallArgs(msg, callArgs);
    if (i < start || !isToolResult(msg) || typeof msg.toolCallId !== "string") continue;
    if (boundary && i < boundary.turnEnd && boundary.excludedIds.has(msg.toolCallId)) continue;
    if (isSummarized(occKey(msg.toolCallId, resultTimestampOf(msg.timestamp)))) continue;
    if (isRecoveryTool(msg.toolName) || isProtected(msg.toolName, callArgsFor(callArgs, msg.toolCallId))) continue;
    gap += estimateTokens(sizes.of(i));
  }
  return gap;
}

export function computeContextMetrics(
  branch: readonly unknown[],
  frontier: PruneFrontier | null,
  isSummarized: (occurrenceKey: string) => boolean,
  isProtected: ProtectionPredicate,
  // The JSON view by default (the 2.9.1 figures); the host passes the request view it shows users.
  sizeOf: (msg: unknown) => number = charsOf,
): ContextMetricsSnapshot {
  const sizes = new BranchSizes(branch, sizeOf);
  const totalChars = sizes.sum(0, branch.length - 1);
  const openStart = openSegmentStart(branch);
  const openChars = sizes.sum(openStart, branch.length - 1);
  const numerator = Math.max(largestChainChars(branch, sizes, isProtected), openChars);
  return {
    openCycleThinkingTokens: estimateTokens(openCycleThinkingChars(branch, openStart)),
    largestChainSharePct: totalChars === 0 ? 0 : Math.round((100 * numerator) / totalChars),
    frontierGapTokens: frontierGapTokens(branch, sizes, frontier, isSummarized, isProtected),
  };
}
