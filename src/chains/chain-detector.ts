/**
 * Closed-chain detection. A chain runs from a real user message (or another
 * extension's custom message, while no chain is open) through any tool-using
 * assistant turns and their results to a text-only assistant reply.
 * Messages carry no ids, so chain boundaries are timestamps and middles are
 * tool-call ids plus result occurrence keys.
 */
import { isAssistant, isChainAnchorCustom, isTextOnlyAssistant, isToolCall, isToolResult, isUser } from "../capture/message-shape.js";
import type { AssistantMessage, ToolResultMessage } from "@earendil-works/pi-ai";
import { occKey, resultTimestampOf } from "../capture/occurrence-key.js";

/** Detection-time shape of one chain; never persisted. */
export interface ChainRange {
  startUserTimestamp: number;
  middleToolCallIds: string[];
  middleOccurrenceKeys?: string[];
  protectedToolCallIds?: string[];
  /** null = interrupted chain. */
  finalAssistantTimestamp: number | null;
  /** Refs the chain's `context_tree_query` recoveries showed (added by the chain pass, `withRecoveredRefs`): the block names them. */
  recoveredRefs?: string[];
}

export { isChainAnchorCustom };

const SYNTHETIC_PREFIX = "<compressed-chain";

interface OpenChain {
  start: number;
  middles: Set<string>;
  occurrences: Set<string>;
  protectedIds: Set<string>;
}

function isSyntheticChainMessage(msg: { content?: unknown }): boolean {
  const content = msg.content;
  if (typeof content === "string") return content.trimStart().startsWith(SYNTHETIC_PREFIX);
  if (!Array.isArray(content) || content.length === 0) return false;
  const first = content[0] as { type?: unknown; text?: unknown } | null | undefined;
  return first?.type === "text" && typeof first.text === "string" && first.text.trimStart().startsWith(SYNTHETIC_PREFIX);
}

function collectToolCalls(msg: AssistantMessage, chain: OpenChain, isProtected: (toolName: string, args: unknown) => boolean): void {
  for (const block of msg.content) {
    if (!isToolCall(block) || typeof block.id !== "string" || !block.id || !block.name) continue;
    chain.middles.add(block.id);
    if (isProtected(block.name, (block as { input?: unknown }).input ?? block.arguments)) chain.protectedIds.add(block.id);
  }
}

function collectToolResult(msg: ToolResultMessage, chain: OpenChain, isProtected: (toolName: string, args: unknown) => boolean): void {
  const id = msg.toolCallId;
  if (typeof id !== "string" || !id) return;
  chain.middles.add(id);
  chain.occurrences.add(occKey(id, resultTimestampOf(msg.timestamp)));
  // Results carry no args, so only a name-based rule can match here.
  if (isProtected(msg.toolName, undefined)) chain.protectedIds.add(id);
}

function emit(chain: OpenChain, finalAssistantTimestamp: number | null): ChainRange {
  return {
    startUserTimestamp: chain.start,
    middleToolCallIds: [...chain.middles],
    middleOccurrenceKeys: [...chain.occurrences],
    protectedToolCallIds: [...chain.protectedIds],
    finalAssistantTimestamp,
  };
}

function isTimestamp(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value);
}

function openChain(start: number): OpenChain {
  return { start, middles: new Set(), occurrences: new Set(), protectedIds: new Set() };
}

export function detectChains(
  messages: readonly unknown[],
  isProtected: (toolName: string, args: unknown) => boolean = () => false,
): ChainRange[] {
  const ranges: ChainRange[] = [];
  let current: OpenChain | null = null;
  for (const msg of messages) {
    if (isUser(msg)) {
      if (isSyntheticChainMessage(msg)) continue;
      if (current) ranges.push(emit(current, null));
      // A chain is addressed by its boundary timestamps; without a usable one it cannot be compressed.
      current = isTimestamp(msg.timestamp) ? openChain(msg.timestamp) : null;
      continue;
    }
    // Idle only: interrupting an open chain would emit it without a final reply, never compressible.
    if (!current && isChainAnchorCustom(msg)) {
      const timestamp = (msg as { timestamp?: unknown }).timestamp;
      current = isTimestamp(timestamp) ? openChain(timestamp) : null;
      continue;
    }
    if (!current) continue;
    if (isAssistant(msg)) {
      if (isTextOnlyAssistant(msg)) {
        ranges.push(emit(current, isTimestamp(msg.timestamp) ? msg.timestamp : null));
        current = null;
      } else {
        collectToolCalls(msg, current, isProtected);
      }
    } else if (isToolResult(msg)) {
      collectToolResult(msg, current, isProtected);
    }
  }
  return ranges;
}

export function withClosingMessage(branchMessages: unknown[], closing: unknown): unknown[] {
  if (!closing) return branchMessages;
  const last = branchMessages[branchMessages.length - 1] as { role?: unknown; timestamp?: unknown } | undefined;
  const next = closing as { role?: unknown; timestamp?: unknown };
  if (last && last.role === next.role && last.timestamp === next.timestamp) return branchMessages;
  return [...branchMessages, closing];
}
