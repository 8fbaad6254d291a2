/**
 * Phase 4: the structural post-condition. The provider must never receive a
 * toolResult whose toolCall is not open in the assistant turn right before it.
 *
 * One forward pass with an open-id set:
 * - assistant: the set becomes exactly its toolCall ids (per-turn tracking);
 * - toolResult: consumes its id, or is swept when the id is not open;
 * - any other role is a barrier that clears the set. pi-ai flushes synthetic
 *   results for open calls at user-role boundaries (custom, summaries and
 *   bash executions become user messages), so a real result after such a
 *   message would duplicate a tool_use id and brick the session. Unknown roles
 *   are barriers too: a deliberate over-sweep instead of a role allowlist.
 */

export function sweepOrphanToolResults(messages: any[]): { messages: any[]; sweptIds: string[] } {
  // An assistant turn opens a handful of calls, so one small reused array beats a Set per turn.
  const open: unknown[] = [];
  // From the first swept result on, survivors are compacted into a copy by index.
  let kept: any[] | null = null;
  let n = 0;
  const sweptIds: string[] = [];

  for (let i = 0; i < messages.length; i++) {
    const msg = messages[i];
    const role = msg?.role;
    if (role === "assistant") {
      openToolCalls(msg, open);
    } else if (role === "toolResult") {
      const at = indexOfSame(open, msg.toolCallId);
      if (at >= 0) {
        open[at] = CONSUMED;
      } else {
        if (kept === null) {
          kept = messages.slice();
          n = i;
        }
        sweptIds.push(msg.toolCallId);
        continue;
      }
    } else {
      open.length = 0;
    }
    if (kept !== null) kept[n++] = msg;
  }

  if (kept === null) return { messages, sweptIds };
  kept.length = n;
  return { messages: kept, sweptIds };
}

const CONSUMED = Symbol("consumed");

/** `indexOf` under the SameValueZero rule a Set uses (NaN finds NaN). */
function indexOfSame(values: unknown[], value: unknown): number {
  if (value === value) return values.indexOf(value);
  return values.findIndex((v) => v !== v);
}

/** Makes `open` the assistant's distinct toolCall ids (a repeated id is opened once, as with a set). */
function openToolCalls(assistant: any, open: unknown[]): void {
  open.length = 0;
  const content = assistant.content;
  if (!Array.isArray(content)) return;
  for (const block of content) {
    if (block?.type === "toolCall" && !open.includes(block.id)) open.push(block.id);
  }
}
