/**
 * Phase 4: the structural post-condition. The provider must never receive a
 * toolResult whose toolCall is not open in the assistant turn right before it.
 *
 * One forward pass with an open-id set:
 * - assistant: the set becomes exactly its toolCall ids (per-turn tracking).
 *   An assistant that stopped with `error` or `aborted` opens none: pi-ai
 *   drops such a turn from the request, after closing the calls still open
 *   before it, so a result following it would reach the provider without
 *   its tool_use;
 * - toolResult: consumes one call of its id, or is swept when none is open
 *   (calls sharing an id in one turn admit one result each);
 * - any other role is a barrier that clears the set. pi-ai flushes synthetic
 *   results for open calls at user-role boundaries (custom, summaries and
 *   bash executions become user messages), so a real result after such a
 *   message would duplicate a tool_use id and brick the session. Unknown roles
 *   are barriers too: a deliberate over-sweep instead of a role allowlist.
 */
import { contentBlocks, isAssistant, isToolCall, isToolResult } from "../capture/message-shape.js";
import type { AssistantMessage } from "@earendil-works/pi-ai";

export function sweepOrphanToolResults<M>(messages: M[]): { messages: M[]; sweptIds: string[] } {
  const open = new OpenCalls();
  // From the first swept result on, survivors are compacted into a copy by index.
  let kept: M[] | null = null;
  let n = 0;
  const sweptIds: string[] = [];

  for (let i = 0; i < messages.length; i++) {
    const msg = messages[i];
    if (!admits(open, msg)) {
      if (kept === null) {
        kept = messages.slice();
        n = i;
      }
      sweptIds.push((msg as { toolCallId: string }).toolCallId);
      continue;
    }
    if (kept !== null) kept[n++] = msg;
  }

  if (kept === null) return { messages, sweptIds };
  kept.length = n;
  return { messages: kept, sweptIds };
}

/**
 * The sweep's rule fed one message at a time, for a walk that has other work to do: whether the sweep
 * would drop anything from the messages seen so far.
 */
export class OrphanCheck {
  private readonly open = new OpenCalls();
  found = false;

  observe(msg: unknown): void {
    if (!admits(this.open, msg)) this.found = true;
  }
}

/** Advances the open-id set past `msg`; false when `msg` is a result the sweep drops. */
function admits(open: OpenCalls, msg: unknown): boolean {
  if (isAssistant(msg)) open.openFrom(msg);
  else if (isToolResult(msg)) return open.consume(msg.toolCallId);
  else open.clear();
  return true;
}

/** Ids a turn may open before the small array gives way to a map (the crossover measured on bun: 32-64). */
const ARRAY_LIMIT = 32;
const CONSUMED = Symbol("consumed");

/**
 * The open ids, counted (SameValueZero: NaN finds NaN): an id a turn's calls
 * share (some providers repeat one within a message) admits one result per
 * call, as pi sends them, and a duplicate result for one call is still swept.
 * An assistant turn opens a handful of calls, which one small reused array
 * serves fastest; a turn with more opens a map, so a huge batch stays linear.
 */
class OpenCalls {
  private readonly few: unknown[] = [];
  private many: Map<unknown, number> | null = null;

  openFrom(assistant: AssistantMessage): void {
    this.clear();
    if (opensNoCalls(assistant)) return;
    for (const block of contentBlocks(assistant)) {
      if (!isToolCall(block)) continue;
      if (this.many !== null) this.many.set(block.id, (this.many.get(block.id) ?? 0) + 1);
      else {
        this.few.push(block.id);
        if (this.few.length > ARRAY_LIMIT) {
          this.many = new Map();
          for (const id of this.few) this.many.set(id, (this.many.get(id) ?? 0) + 1);
          this.few.length = 0;
        }
      }
    }
  }

  /** Takes one call of `id`; false when none is open. */
  consume(id: unknown): boolean {
    if (this.many !== null) {
      const left = this.many.get(id);
      if (left === undefined) return false;
      if (left > 1) this.many.set(id, left - 1);
      else this.many.delete(id);
      return true;
    }
    const at = indexOfSame(this.few, id);
    if (at < 0) return false;
    this.few[at] = CONSUMED;
    return true;
  }

  clear(): void {
    this.few.length = 0;
    this.many = null;
  }
}

/** pi-ai skips these turns when it builds the request. */
function opensNoCalls(assistant: AssistantMessage): boolean {
  return assistant.stopReason === "error" || assistant.stopReason === "aborted";
}

/** `indexOf` under the SameValueZero rule a Set uses (NaN finds NaN). */
function indexOfSame(values: unknown[], value: unknown): number {
  if (value === value) return values.indexOf(value);
  return values.findIndex((v) => v !== v);
}
