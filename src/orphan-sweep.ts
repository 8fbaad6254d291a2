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
  let open = new Set<string>();
  let kept: any[] | null = null;
  const sweptIds: string[] = [];

  for (let i = 0; i < messages.length; i++) {
    const msg = messages[i];
    const role = msg?.role;
    if (role === "assistant") {
      open = toolCallIdsOf(msg);
    } else if (role === "toolResult") {
      const id = msg.toolCallId;
      if (open.has(id)) {
        open.delete(id);
      } else {
        kept ??= messages.slice(0, i);
        sweptIds.push(id);
        continue;
      }
    } else {
      open = new Set();
    }
    kept?.push(msg);
  }

  if (kept === null) return { messages, sweptIds };
  return { messages: kept, sweptIds };
}

function toolCallIdsOf(assistant: any): Set<string> {
  const ids = new Set<string>();
  const content = assistant.content;
  if (!Array.isArray(content)) return ids;
  for (const block of content) {
    if (block?.type === "toolCall") ids.add(block.id);
  }
  return ids;
}
