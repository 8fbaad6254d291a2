/**
 * Recovery grace: a `context_tree_query` output stays verbatim for a number
 * of user-turn-groups after the position where it was produced. Computed
 * positionally from the messages alone; nothing is stored.
 */
import { occKey, resultTimestampOf } from "./occurrence-key.js";
import { QUERY_TOOL_NAME } from "./types.js";

export function inGraceRecoveryToolCallIds(messages: any[], graceTurns: number): Set<string> {
  const inGrace = new Set<string>();
  if (!(graceTurns > 0)) return inGrace;
  let total = 0;
  for (const msg of messages) if (msg?.role === "user") total += 1;
  let seen = 0;
  for (const msg of messages) {
    if (msg?.role === "user") {
      seen += 1;
      continue;
    }
    if (msg?.role !== "toolResult" || msg.toolName !== QUERY_TOOL_NAME) continue;
    if (typeof msg.toolCallId !== "string") continue;
    if (total - seen <= graceTurns) inGrace.add(occKey(msg.toolCallId, resultTimestampOf(msg.timestamp)));
  }
  return inGrace;
}
