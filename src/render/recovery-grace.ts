/**
 * Recovery grace: a `context_tree_query` output stays verbatim for a number
 * of user-turn-groups after the position where it was produced. Computed
 * positionally from the messages alone; nothing is stored.
 */
import { occKey, resultTimestampOf } from "../capture/occurrence-key.js";
import { QUERY_TOOL_NAME } from "../types.js";

export function inGraceRecoveryToolCallIds(messages: any[], graceTurns: number): Set<string> {
  const inGrace = new Set<string>();
  if (!(graceTurns > 0)) return inGrace;
  // One pass: note each recovery output with the number of user messages before it.
  const recoveries: Array<{ msg: any; usersBefore: number }> = [];
  let users = 0;
  for (const msg of messages) {
    if (msg?.role === "user") users += 1;
    else if (msg?.role === "toolResult" && msg.toolName === QUERY_TOOL_NAME && typeof msg.toolCallId === "string") {
      recoveries.push({ msg, usersBefore: users });
    }
  }
  for (const { msg, usersBefore } of recoveries) {
    if (users - usersBefore <= graceTurns) inGrace.add(occKey(msg.toolCallId, resultTimestampOf(msg.timestamp)));
  }
  return inGrace;
}
