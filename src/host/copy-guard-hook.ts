/**
 * pi's `tool_call` event, for the copy guard (arguments/copy-guard.ts): a `write` or `edit` that holds a live
 * argument marker is blocked with the way to the original. Reads the index only.
 */
import { copiedMarker, copyGuardReason } from "../arguments/copy-guard.js";
import type { ExtensionState } from "./extension-state.js";

interface ToolCallLike {
  toolName?: unknown;
  input?: unknown;
}

export function onToolCall(state: Pick<ExtensionState, "indexer">, event: ToolCallLike): { block: true; reason: string } | undefined {
  const marker = copiedMarker(event.toolName, event.input, state.indexer);
  if (marker === undefined) return undefined;
  return { block: true, reason: copyGuardReason(String(event.toolName), marker) };
}
