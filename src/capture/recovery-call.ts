/**
 * `context_tree_query` calls seen from capture, render and chains. A recovery
 * result is derived from the archive: it is never summarized or archived as an
 * original of its own, and once it leaves the request a stub (or a chain
 * block) names the refs it recovered, so the same call brings it back.
 */
import { QUERY_TOOL_NAME } from "../names.js";
import { isTextBlock } from "./message-shape.js";
import type { ToolResultMessage } from "@earendil-works/pi-ai";

/** The line the query tool answers for an id the archive does not hold. */
export const NOT_FOUND_NOTE = "(not found in index \u2014 may not have been summarized yet)";

/** The arguments of a recovery call, as the query tool reads them. */
export interface RecoveryCall {
  toolCallIds: string[];
  lines?: string;
  /** A search of the named refs: the same call finds the same lines again. */
  pattern?: string;
}

// A ref a stub or a `<compressed-chain>` header can quote as is: no quotes, brackets, commas, backticks or spaces.
const PLAIN_REF = /^[^\s"'<>,`\\]{1,200}$/;
const LINES_LIMIT = 100;
const PATTERN_LIMIT = 200;

export function isRecoveryTool(toolName: unknown): boolean {
  return toolName === QUERY_TOOL_NAME;
}

/**
 * The call's arguments when the query tool reads them exactly as written: a non-empty list of plain refs
 * (or one, as pi may pass a single string), an optional string range and an optional search pattern.
 * Anything else is null; so is a search without refs, whose answer changes as the archive grows.
 */
export function recoveryCallOf(args: unknown): RecoveryCall | null {
  if (typeof args !== "object" || args === null || Array.isArray(args)) return null;
  const { toolCallIds: raw, lines, pattern } = args as { toolCallIds?: unknown; lines?: unknown; pattern?: unknown };
  const ids = typeof raw === "string" ? [raw] : Array.isArray(raw) ? raw.slice() : [];
  if (ids.length === 0 || !ids.every((id) => typeof id === "string" && PLAIN_REF.test(id))) return null;
  const call: RecoveryCall = { toolCallIds: ids };
  if (lines !== undefined) {
    if (typeof lines !== "string" || lines.length > LINES_LIMIT) return null;
    call.lines = lines;
  }
  if (pattern !== undefined) {
    if (typeof pattern !== "string" || pattern.length > PATTERN_LIMIT) return null;
    call.pattern = pattern;
  }
  return call;
}

/** The arguments of a toolCall block, wherever the provider put them. */
export function callArgsOf(block: unknown): unknown {
  const call = block as { input?: unknown; args?: unknown; arguments?: unknown } | null | undefined;
  return call?.input ?? call?.args ?? call?.arguments;
}

/**
 * The call behind a recovery result the query tool answers the same way again (text and images): the
 * result is no error and found every id, and the call's arguments are plain. Null for anything else,
 * which is then treated like any other tool output.
 */
export function rederivableRecovery(result: unknown, args: unknown): RecoveryCall | null {
  const message = result as Partial<ToolResultMessage> | null | undefined;
  if (!isRecoveryTool(message?.toolName) || message!.isError === true) return null;
  const call = recoveryCallOf(args);
  if (call === null || !Array.isArray(message!.content)) return null;
  for (const block of message!.content) {
    if (isTextBlock(block) && typeof block.text === "string" && block.text.includes(NOT_FOUND_NOTE)) return null;
  }
  return call;
}

/** The refs a recovery named, each once, in order. */
export function recoveredRefs(call: RecoveryCall): string[] {
  return [...new Set(call.toolCallIds)];
}
