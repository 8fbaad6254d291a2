/**
 * When the model is told about `context_tree_query`. The tool is registered
 * inactive: a session that never archives anything never carries its
 * declaration. It is activated once the archive holds something a stub can
 * name, so pi declares it on the next request it prepares: for a flush at a
 * turn or reply boundary, the very request that carries the first stubs.
 * Once active it stays active (pi restores it from the transcript on reload);
 * taking it back would change the tool list, a cache break of its own.
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { QUERY_TOOL_NAME } from "../names.js";

type ToolSwitch = Pick<ExtensionAPI, "getActiveTools" | "setActiveTools">;

/** Whether the model is currently offered the recovery tool; false when pi cannot say. */
export function queryToolDeclared(pi: ToolSwitch): boolean {
  try {
    return pi.getActiveTools().includes(QUERY_TOOL_NAME);
  } catch {
    return false;
  }
}

/** Activates the recovery tool when `recoverable` and it is not active yet; true when it is active afterwards. */
export function declareQueryTool(pi: ToolSwitch, recoverable: boolean): boolean {
  if (queryToolDeclared(pi)) return true;
  if (!recoverable) return false;
  try {
    pi.setActiveTools([...pi.getActiveTools(), QUERY_TOOL_NAME]);
  } catch (err) {
    console.error("pi-condense: could not activate context_tree_query", err);
    return false;
  }
  return queryToolDeclared(pi);
}
