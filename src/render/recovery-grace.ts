/**
 * Recovery grace: a `context_tree_query` output stays verbatim for a number
 * of user-turn-groups after the position where it was produced. Computed
 * positionally from the messages alone; nothing is stored. Once the window
 * ends, a recovery the archive gives back unchanged becomes the stub below.
 */
import { occKey, resultTimestampOf } from "../capture/occurrence-key.js";
import { recoveredRefs, type RecoveryCall } from "../capture/recovery-call.js";
import { QUERY_TOOL_NAME } from "../names.js";
import { isToolResult, isUser } from "../capture/message-shape.js";
import type { ToolResultMessage } from "@earendil-works/pi-ai";

export function inGraceRecoveryToolCallIds(messages: readonly unknown[], graceTurns: number): Set<string> {
  const inGrace = new Set<string>();
  if (!(graceTurns > 0)) return inGrace;
  // One pass: note each recovery output with the number of user messages before it.
  const recoveries: Array<{ msg: ToolResultMessage; usersBefore: number }> = [];
  let users = 0;
  for (const msg of messages) {
    if (isUser(msg)) users += 1;
    else if (isToolResult(msg) && msg.toolName === QUERY_TOOL_NAME && typeof msg.toolCallId === "string") {
      recoveries.push({ msg, usersBefore: users });
    }
  }
  for (const { msg, usersBefore } of recoveries) {
    if (users - usersBefore <= graceTurns) inGrace.add(occKey(msg.toolCallId, resultTimestampOf(msg.timestamp)));
  }
  return inGrace;
}

/**
 * `inGraceRecoveryToolCallIds`, computed on first use: only a stub candidate asks, so a render that
 * stubs nothing never makes the pass.
 */
export function lazyInGraceRecoveryToolCallIds(messages: readonly unknown[], graceTurns: number): ReadonlySet<string> {
  let computed: Set<string> | undefined;
  const set = () => (computed ??= inGraceRecoveryToolCallIds(messages, graceTurns));
  return {
    get size() {
      return set().size;
    },
    has: (key) => set().has(key),
    forEach: (each, thisArg) => set().forEach((value) => each.call(thisArg, value, value, set())),
    entries: () => set().entries(),
    keys: () => set().keys(),
    values: () => set().values(),
    [Symbol.iterator]: () => set()[Symbol.iterator](),
  };
}

/** What an aged-out recovery becomes: the refs it showed and the exact call that shows them again. */
export function recoveryStubText(call: RecoveryCall): string {
  const refs = recoveredRefs(call);
  const named = `${refs.length === 1 ? "ref" : "refs"} ${refs.map((ref) => `\`${ref}\``).join(", ")}`;
  const lines = call.lines === undefined ? "" : `, lines: ${JSON.stringify(call.lines)}`;
  const pattern = call.pattern === undefined ? "" : `, pattern: ${JSON.stringify(call.pattern)}`;
  const again = `${QUERY_TOOL_NAME}({ toolCallIds: ${JSON.stringify(call.toolCallIds)}${lines}${pattern} })`;
  return `[Recovered output of ${named}, shown here earlier. Call ${again} to see it again.]`;
}
