/**
 * The one reader of pi's messages for capture, render, chain detection, metrics and the turn hooks. A message
 * reaches us from pi's `context` event, a branch entry read back from disk or a test, so nothing here trusts a
 * field: each guard checks the role (and a block's type) exactly as the code before it did, and the typed
 * value it returns is still read defensively where a field may be missing on an old or foreign entry.
 */
import type { AssistantMessage, ImageContent, TextContent, ToolCall, ToolResultMessage, UserMessage } from "@earendil-works/pi-ai";
import type { ContextEvent } from "@earendil-works/pi-coding-agent";
import { QUERY_TOOL_NAME } from "../names.js";

/** A message as pi hands it to an extension: pi-ai's messages and pi's own kinds (custom, summaries, bash). */
export type AgentMessage = ContextEvent["messages"][number];

/** A message whose fields are still to be checked (one projected from session entries): read it through the guards. */
export type LooseMessage = Record<string, unknown>;

/** The value's fields to check, or undefined for a value that is no object. */
export function loose(value: unknown): LooseMessage | undefined {
  return value !== null && typeof value === "object" ? (value as LooseMessage) : undefined;
}

/** A custom message (this package's summaries, another extension's notes). */
export type CustomMessage = Extract<AgentMessage, { role: "custom" }>;

/** A content block of any message: text, thinking, image or tool call. */
export type ContentBlock = AssistantMessage["content"][number] | ImageContent;

/** The role of a value that may be a message; undefined for anything else. */
export function roleOf(message: unknown): unknown {
  return message !== null && typeof message === "object" ? (message as { role?: unknown }).role : undefined;
}

export function isAssistant(message: unknown): message is AssistantMessage {
  return roleOf(message) === "assistant";
}

/** pi-ai leaves a turn that stopped with `error` or `aborted` out of the request, its calls with it. */
export function opensNoCalls(assistant: AssistantMessage): boolean {
  return assistant.stopReason === "error" || assistant.stopReason === "aborted";
}

export function isToolResult(message: unknown): message is ToolResultMessage {
  return roleOf(message) === "toolResult";
}

export function isUser(message: unknown): message is UserMessage {
  return roleOf(message) === "user";
}

export function isCustom(message: unknown): message is CustomMessage {
  return roleOf(message) === "custom";
}

export function isToolCall(block: unknown): block is ToolCall {
  return block !== null && typeof block === "object" && (block as { type?: unknown }).type === "toolCall";
}

export function isTextBlock(block: unknown): block is TextContent {
  return block !== null && typeof block === "object" && (block as { type?: unknown }).type === "text";
}

/** A message's content blocks; none when its content is a string or missing. */
export function contentBlocks(message: unknown): readonly unknown[] {
  const content = message !== null && typeof message === "object" ? (message as { content?: unknown }).content : undefined;
  return Array.isArray(content) ? content : [];
}

/** A toolCall block of the recovery tool (`context_tree_query`). */
export function isRecoveryCallBlock(block: unknown): block is ToolCall {
  return isToolCall(block) && block.name === QUERY_TOOL_NAME;
}

export function toolCallBlocks(message: unknown): ToolCall[] {
  return contentBlocks(message).filter(isToolCall);
}

/** An assistant reply without toolCall blocks: the end of a chain, the agent's final text answer. */
export function isTextOnlyAssistant(message: unknown): message is AssistantMessage {
  if (!isAssistant(message)) return false;
  return !contentBlocks(message).some(isToolCall);
}

/**
 * A session entry as `getBranch()` returns it or a session file holds it: pi writes these, but an old file,
 * another extension or a hand edit may not have, so every field is checked where it is read.
 */
export interface LooseEntry {
  type?: unknown;
  id?: unknown;
  message?: unknown;
  customType?: unknown;
  content?: unknown;
  display?: unknown;
  details?: unknown;
  data?: unknown;
  /** A `usage` entry's kind (`cache_warm`). */
  kind?: unknown;
  timestamp?: unknown;
}

/** The entry's fields to check, or undefined for a value that is no object. */
export function looseEntry(value: unknown): LooseEntry | undefined {
  return value !== null && typeof value === "object" ? (value as LooseEntry) : undefined;
}

/** The message a `message` entry holds (any truthy value, read through the guards above), else undefined. */
export function entryMessage(value: unknown): unknown {
  const entry = looseEntry(value);
  return entry?.type === "message" && entry.message ? entry.message : undefined;
}

/** Custom types this package writes, now and later (`context-prune-*`), or that carry its name (`pi-condense*`). */
export function isPrunerCustomType(customType: unknown): boolean {
  // Not String(value): an object read back from a session file could throw when converted.
  const type = typeof customType === "string" ? customType : "";
  return type.startsWith("context-prune-") || type.startsWith("pi-condense");
}

/**
 * A custom message another extension sent (an orchestrator's steer, a
 * sub-agent notice): it may open a chain like a user message does.
 */
export function isChainAnchorCustom(msg: unknown): boolean {
  return isCustom(msg) && !isPrunerCustomType(msg.customType);
}
