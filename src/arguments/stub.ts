/**
 * Phase 1c of the render pipeline: the bulky argument strings of a finished call (an edit's old and new
 * text, a write's content, a large string of another tool; fields.ts) become markers naming the ref
 * that gives them back (marker.ts).
 *
 * A call's arguments are stubbed only when all of these hold:
 * - its output is stubbed by phase 1 in this render, under one ref, and did not fail (error purge owns
 *   failed calls), so the arguments change only where the outputs are archived;
 * - it is done with: its prompt ended (a user prompt came after it), or (an edit or write) a later read, edit
 *   or write names the same path and the call is not within the running prompt's last `RAW_TOOL_TURNS` tool
 *   turns, both read behind the argument horizon (horizon.ts), so within a prompt the stub lands with an
 *   archive write's output stubs instead of breaking the cache in a request of its own;
 * - the record the ref names holds that very string (compared whole), and the marker that record makes for
 *   it (archived-marker.ts, the text the copy guard checks against) is the one the call's own field would
 *   make: the marker never names a ref that gives back something else, nor describes another edit (a dedup
 *   alias resolves to its original's record). A field that fails the check stays raw.
 *
 * Pure: a function of the messages, phase 1's refs and the index. Untouched messages are carried by
 * reference and a render that stubs nothing returns its input.
 */
import { normalizeFilePath } from "../capture/stale-outputs.js";
import { behindHorizon } from "./horizon.js";
import { markerStandingFor } from "./archived-marker.js";
import { bulkyFields, callShape, withMarkers, type BulkyField } from "./fields.js";
import type { AssistantMessage, ToolCall } from "@earendil-works/pi-ai";
import { contentBlocks, isAssistant, isToolCall, isToolResult, isUser, loose, opensNoCalls } from "../capture/message-shape.js";
import type { ToolCallRecord } from "../capture/records.js";
import { occKey, resultTimestampOf } from "../capture/occurrence-key.js";

/** The latest tool turns of the running prompt keep their arguments, as the cost policy keeps their outputs. */
export const RAW_TOOL_TURNS = 2;

const PATH_TOOLS = new Set(["read", "edit", "write"]);
const SHORT_REF = /^t\d+$/;

/** What phase 1c reads of the index. */
export interface ArgsIndexer {
  getRecord(keyOrAlias: string): ToolCallRecord | undefined;
}

/** Where each assistant message stands: the prompt ended after it, or how many tool turns follow it. */
interface Standing {
  ended: boolean[];
  laterToolTurns: number[];
  /** The last assistant position whose calls name each normalized path. */
  lastTouch: Map<string, number>;
}

/**
 * `messages` is the render so far and `input` pi's own array; phases 1 and 1b keep positions, so both index
 * alike. `horizon`: argumentHorizon's timestamp; undefined judges from every message.
 */
export function stubFinishedArguments(
  messages: unknown[],
  input: readonly unknown[],
  stubRefs: Array<readonly string[] | undefined> | null,
  indexer: ArgsIndexer,
  horizon?: number,
  keep?: ReadonlySet<string>,
): unknown[] {
  if (stubRefs === null) return messages;
  const results = resultPositions(messages);
  let standing: Standing | undefined;
  let out: unknown[] | null = null;
  for (let i = 0; i < messages.length; i++) {
    const msg = messages[i];
    if (!isAssistant(msg) || !Array.isArray(msg.content) || opensNoCalls(msg)) continue;
    let content: AssistantMessage["content"] | null = null;
    for (let b = 0; b < msg.content.length; b++) {
      const block = msg.content[b];
      if (!isToolCall(block) || typeof block.id !== "string") continue;
      const at = results.get(block);
      if (at === undefined) continue;
      const refs = stubRefs[at];
      if (refs?.length !== 1 || !SHORT_REF.test(refs[0]!) || loose(input[at])?.isError === true) continue;
      if (keep !== undefined && keep.size > 0 && keptCall(input[at], keep)) continue;
      standing ??= standingOf(messages, horizon);
      if (!doneWith(block, i, standing)) continue;
      const args = stubbedArgs(block, refs[0]!, indexer);
      if (args === undefined) continue;
      const copy = (content ??= msg.content.slice());
      // The same keys and value types as the model's own arguments, strings replaced by strings.
      copy[b] = { ...block, arguments: args as ToolCall["arguments"] };
    }
    if (content === null) continue;
    out ??= messages.slice();
    out[i] = { ...msg, content };
  }
  return out ?? messages;
}

/** The ids of the calls on `messages` that a write now would find done with (the rule above), for the cost policy's weighing. */
export function callsDoneWith(messages: readonly unknown[]): Set<string> {
  const standing = standingOf(messages, undefined);
  const done = new Set<string>();
  messages.forEach((msg, i) => {
    if (!isAssistant(msg)) return;
    for (const block of contentBlocks(msg)) if (isToolCall(block) && typeof block.id === "string" && doneWith(block, i, standing)) done.add(block.id);
  });
  return done;
}

/** Each call's result position: a result answers the call with its id in the assistant message before it. */
function resultPositions(messages: readonly unknown[]): Map<object, number> {
  const positions = new Map<object, number>();
  const open = new Map<string, object>();
  for (let i = 0; i < messages.length; i++) {
    const msg = messages[i];
    if (isAssistant(msg) && Array.isArray(msg.content)) {
      open.clear();
      for (const block of msg.content) if (isToolCall(block) && typeof block.id === "string") open.set(block.id, block);
      continue;
    }
    if (!isToolResult(msg)) {
      open.clear();
      continue;
    }
    const block = open.get(msg.toolCallId);
    if (block === undefined) continue;
    open.delete(msg.toolCallId);
    positions.set(block, i);
  }
  return positions;
}

/**
 * A prompt's calls are ended as soon as a user prompt follows: that rewrite begins inside the last prompt, so
 * the cache writes again only it (measured: waiting for the next archive write instead cost more than it
 * saved). Later reads, edits and writes and the count of later tool turns count only behind the horizon.
 */
function standingOf(messages: readonly unknown[], horizon: number | undefined): Standing {
  const ended = new Array<boolean>(messages.length).fill(false);
  const laterToolTurns = new Array<number>(messages.length).fill(0);
  const lastTouch = new Map<string, number>();
  let userAfter = false;
  let turns = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const msg = messages[i];
    if (isUser(msg)) userAfter = true;
    if (!isAssistant(msg) || !Array.isArray(msg.content)) continue;
    ended[i] = userAfter;
    if (!behindHorizon(msg, horizon)) continue;
    laterToolTurns[i] = turns;
    let calls = false;
    for (const block of msg.content) {
      if (!isToolCall(block)) continue;
      calls = true;
      const path = touchedPath(block);
      if (path !== undefined && !lastTouch.has(path)) lastTouch.set(path, i);
    }
    if (calls && !userAfter) turns++;
  }
  return { ended, laterToolTurns, lastTouch };
}

function touchedPath(block: ToolCall): string | undefined {
  if (!PATH_TOOLS.has(block.name)) return undefined;
  const path = block.arguments?.path;
  return typeof path === "string" ? normalizeFilePath(path) : undefined;
}

function doneWith(block: ToolCall, position: number, standing: Standing): boolean {
  if (standing.ended[position]) return true;
  if (standing.laterToolTurns[position]! < RAW_TOOL_TURNS) return false;
  const args = block.arguments;
  if (typeof args !== "object" || args === null || callShape(block.name, args) === "other" || typeof args.path !== "string") return false;
  return (standing.lastTouch.get(normalizeFilePath(args.path)) ?? -1) > position;
}

/** Whether the working set keeps this call's arguments (src/sight/working-set.ts), named by its result's occurrence key. */
function keptCall(result: unknown, keep: ReadonlySet<string>): boolean {
  const id = loose(result)?.toolCallId;
  return typeof id === "string" && keep.has(occKey(id, resultTimestampOf(loose(result)?.timestamp)));
}

/** The stubbed arguments, or undefined when no field can be stubbed safely. */
function stubbedArgs(block: ToolCall, ref: string, indexer: ArgsIndexer): Record<string, unknown> | undefined {
  const fields = bulkyFields(block.name, block.arguments);
  if (fields.length === 0) return undefined;
  const record = indexer.getRecord(ref);
  if (record === undefined || record.toolName !== block.name) return undefined;
  const replaced: Array<{ field: BulkyField; marker: string }> = [];
  for (const field of fields) {
    const marker = markerStandingFor(record, field, ref);
    if (marker !== undefined) replaced.push({ field, marker });
  }
  return replaced.length === 0 ? undefined : withMarkers(block.arguments, replaced);
}
