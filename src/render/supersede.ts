/**
 * Phase 1b of the render pipeline: protected-path supersession. Protected reads
 * are never archived, so a skill file read three times would stay verbatim three
 * times. Only the newest read of a path adds information; the earlier ones
 * become a short stub that says to re-read the file.
 *
 * A stub is cache-honest: an earlier read is stubbed only once the render
 * rewrites the transcript at or before it anyway (the `floor` a flush or a chain
 * compression lowers) or when the provider cache is cold (floor 0). From then on
 * it stays stubbed (`activated`), so the prefix does not flip back. Positions
 * are kept; only the content of a superseded result changes.
 */
import { occKey, resultTimestampOf } from "../capture/occurrence-key.js";
import { normalizePath } from "../capture/protected.js";
import { isAssistant, isToolCall, isToolResult } from "../capture/message-shape.js";
import { callArgsOf } from "../capture/recovery-call.js";
import type { AssistantMessage, ToolCall, ToolResultMessage } from "@earendil-works/pi-ai";

export interface SupersededCandidate {
  toolCallId: string;
  /** The normalized `args.path` of the read. */
  path: string;
  timestamp: number | undefined;
  /** Index of the toolResult in the rendered array. */
  resultIndex: number;
}

export interface SupersedeState {
  /** Earliest result timestamp the next render rewrites anyway; 0 = the cache is cold, activate every candidate. */
  floor: number | undefined;
  /** Occurrence keys whose stub took effect; sticky for the session. */
  activated: Set<string>;
}

type IsProtected = (toolName: string, args: unknown) => boolean;

export function createSupersedeState(): SupersedeState {
  return { floor: undefined, activated: new Set() };
}

export function lowerFloor(state: SupersedeState, t: number | undefined): void {
  if (t === undefined) return;
  state.floor = state.floor === undefined ? t : Math.min(state.floor, t);
}

export function earliestResultTimestamp(calls: { resultTimestamp?: number }[]): number | undefined {
  let earliest: number | undefined;
  for (const call of calls) {
    const t = call.resultTimestamp;
    if (typeof t === "number" && (earliest === undefined || t < earliest)) earliest = t;
  }
  return earliest;
}

export function earliestChainStart(entries: { startUserTimestamp: number }[]): number | undefined {
  let earliest: number | undefined;
  for (const entry of entries) {
    const t = entry.startUserTimestamp;
    if (typeof t === "number" && (earliest === undefined || t < earliest)) earliest = t;
  }
  return earliest;
}

export function supersededStub(path: string): string {
  return `[Superseded: ${path} was read again later in this conversation - see the newer read. Re-read the file if this earlier content is needed.]`;
}

/**
 * Every protected read of a path that is read again later, in result order. A
 * read counts only when its result follows its call in the same open turn (the
 * orphan sweep's barrier rule), so a newest read that never got a result, or
 * whose result the provider never sees, cannot supersede the one before it.
 */
export function findSuperseded(messages: readonly unknown[], isProtected: IsProtected): SupersededCandidate[] {
  const open = new Map<unknown, ToolCall>();
  const reads: SupersededCandidate[] = [];
  const lastReadOf = new Map<string, number>();
  for (let i = 0; i < messages.length; i++) {
    const msg = messages[i];
    if (isAssistant(msg) && Array.isArray(msg.content)) {
      open.clear();
      if (opensNoCalls(msg)) continue;
      for (const block of msg.content) if (isToolCall(block)) open.set(block.id, block);
      continue;
    }
    if (!isToolResult(msg)) {
      open.clear();
      continue;
    }
    if (typeof msg.toolCallId !== "string") continue;
    const block = open.get(msg.toolCallId);
    if (block === undefined) continue;
    open.delete(msg.toolCallId);
    const path = protectedPath(block, isProtected);
    if (path === undefined) continue;
    lastReadOf.set(path, reads.length);
    reads.push({ toolCallId: msg.toolCallId, path, timestamp: resultTimestampOf(msg.timestamp), resultIndex: i });
  }
  return reads.filter((read, k) => lastReadOf.get(read.path) !== k);
}

/** pi-ai leaves a turn that stopped with `error` or `aborted` out of the request, its results with it. */
function opensNoCalls(assistant: AssistantMessage): boolean {
  return assistant.stopReason === "error" || assistant.stopReason === "aborted";
}

function protectedPath(block: ToolCall, isProtected: IsProtected): string | undefined {
  const args = callArgsOf(block) ?? {};
  const path = typeof args === "object" && args !== null ? (args as { path?: unknown }).path : undefined;
  if (typeof path !== "string" || !isProtected(block.name, args)) return undefined;
  return normalizePath(path);
}

/**
 * Stubs the activated candidates; returns the input itself when none is. The
 * floor is consumed by the call whether or not anything was a candidate.
 */
export function applySupersede(messages: any[], state: SupersedeState, isProtected: IsProtected): any[] {
  // Nothing can be stubbed: skip the walk (the common render between cold events).
  if (state.floor === undefined && state.activated.size === 0) return messages;
  const candidates = findSuperseded(messages, isProtected);
  const floor = state.floor;
  if (floor !== undefined) {
    for (const c of candidates) {
      if (floor === 0 || (c.timestamp !== undefined && c.timestamp >= floor)) state.activated.add(occKey(c.toolCallId, c.timestamp));
    }
    state.floor = undefined;
  }
  let out: unknown[] | null = null;
  for (const c of candidates) {
    if (!state.activated.has(occKey(c.toolCallId, c.timestamp))) continue;
    out ??= messages.slice();
    out[c.resultIndex] = { ...(messages[c.resultIndex] as ToolResultMessage), content: [{ type: "text", text: supersededStub(c.path) }], isError: false };
  }
  return out ?? messages;
}
