/**
 * pi's `tool_call` event, for the copy guard (arguments/copy-guard.ts): a `write` or `edit` that holds a live
 * argument marker is blocked with the way to the original, and the user is told that nothing was written.
 * Reads the index only.
 */
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { copiedMarker, copyGuardNotice, copyGuardReason } from "../arguments/copy-guard.js";
import type { ExtensionState } from "./extension-state.js";

interface ToolCallLike {
  toolName?: unknown;
  input?: unknown;
}

export function onToolCall(state: Pick<ExtensionState, "indexer">, event: ToolCallLike, ctx: Pick<ExtensionContext, "ui">): { block: true; reason: string } | undefined {
  const marker = copiedMarker(event.toolName, event.input, state.indexer);
  if (marker === undefined) return undefined;
  const toolName = String(event.toolName);
  // The block must stand even when the notice cannot be shown (a stale context, no UI).
  try {
    ctx.ui.notify(copyGuardNotice(toolName, event.input, marker), "warning");
  } catch (err) {
    console.error("pi-condense: telling the user about a blocked call failed", err);
  }
  return { block: true, reason: copyGuardReason(toolName, marker) };
}
