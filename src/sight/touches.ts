/**
 * What each answered call did to which file, read off the transcript for the working set (working-set.ts):
 * pi's `read` shows a file (all of it, or the lines its `offset` and `limit` ask for), `edit` changes it (its
 * old and new texts kept to tell which later edit supersedes it), `write` replaces it, a `bash` command reads or
 * writes the files shell-touches.ts can tell, any other call with a `path` touches it. A failed read, edit or
 * write only touches its file (the agent is on it, nothing changed); a failed `bash` touches nothing. Calls are
 * paired with their results as the provider pairs them; paths are keyed by file-keys.ts. Also the times the
 * transcript's runs begin and end: a user message begins a prompt and its run, a text reply ends the run.
 * Pure; nothing throws on a malformed message.
 */
import { extractToolResultText } from "../capture/batch-capture.js";
import { contentBlocks, isAssistant, isToolCall, isToolResult, isUser, loose, opensNoCalls } from "../capture/message-shape.js";
import { occKey, resultTimestampOf } from "../capture/occurrence-key.js";
import { type LineRange, pathArgOf, readToolSpan, shellReadSpan } from "../capture/stale-outputs.js";
import { FileKeys } from "./file-keys.js";
import { shellTouches } from "./shell-touches.js";

export type TouchKind = "view" | "whole" | "write" | "edit" | "touch";

/** One call's effect on one file. */
export interface Touch {
  file: string;
  /** `view`: some lines shown; `whole`: the whole file shown; `write`: replaced; `edit`: changed; `touch`: named only. */
  kind: TouchKind;
  /** The result's occurrence key and time. */
  key: string;
  time: number;
  /** A view's lines (undefined: not told, taken as all of them); an edit's old and new texts. */
  range?: LineRange;
  edits?: Array<{ oldText: string; newText: string }>;
  /** What keeping it raw keeps: the output's characters, or the arguments' for an edit or write. */
  chars: number;
}

/** The transcript read for the working set. */
export interface Transcript {
  touches: Touch[];
  /** Ascending times at which a prompt began (a user message). */
  prompts: number[];
  /** Ascending times at which a run began (a user message) or ended (a text reply). */
  runs: number[];
  /** The newest message's time. */
  newest: number;
}

const FAILURE_OPENING = /^\s*(error|failed|failure|could not|cannot|can't|unable to)\b/i;
const TRUNCATED_READ = /\n\[Showing lines \d+-\d+ of/;

interface Call {
  name: string;
  args: Record<string, unknown>;
}

export function readTranscript(messages: readonly unknown[]): Transcript {
  const raw: Array<Omit<Touch, "file"> & { path: string }> = [];
  const prompts: number[] = [];
  const runs: number[] = [];
  let newest = Number.NEGATIVE_INFINITY;
  const open = new Map<string, Call>();
  for (const msg of messages) {
    const time = loose(msg)?.timestamp;
    if (typeof time !== "number" || !Number.isFinite(time)) continue;
    newest = Math.max(newest, time);
    if (isUser(msg)) {
      prompts.push(time);
      runs.push(time);
      open.clear();
      continue;
    }
    if (isAssistant(msg)) {
      open.clear();
      const blocks = contentBlocks(msg);
      if (!blocks.some(isToolCall) && msg.stopReason === "stop") runs.push(time);
      if (opensNoCalls(msg)) continue;
      for (const block of blocks) if (isToolCall(block) && typeof block.id === "string") open.set(block.id, { name: String(block.name), args: argsOf(block.arguments) });
      continue;
    }
    if (!isToolResult(msg)) {
      open.clear();
      continue;
    }
    const call = typeof msg.toolCallId === "string" ? open.get(msg.toolCallId) : undefined;
    if (call === undefined) continue;
    open.delete(msg.toolCallId);
    const key = occKey(msg.toolCallId, resultTimestampOf(msg.timestamp));
    for (const touch of callTouches(call, msg)) raw.push({ key, time, ...touch });
  }
  const keys = new FileKeys();
  return { touches: raw.map(({ path, ...rest }) => ({ ...rest, file: keys.keyOf(path) })), prompts, runs, newest };
}

/** How many of the ascending `times` are at or before `time`. */
export function countAtOrBefore(times: readonly number[], time: number): number {
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (times[mid]! <= time) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function argsOf(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

type CallTouch = Omit<Touch, "file" | "key" | "time"> & { path: string };

function callTouches(call: Call, result: { isError?: unknown; content?: unknown }): CallTouch[] {
  const failed = result.isError === true;
  const text = () => extractToolResultText(result as Parameters<typeof extractToolResultText>[0]);
  if (call.name === "bash") return failed ? [] : bashTouches(call.args, text());
  const path = pathArgOf(call.args);
  if (path === undefined) return [];
  const touched: CallTouch = { path, kind: "touch", chars: 0 };
  if (call.name === "read") {
    if (failed) return [touched];
    const output = text();
    const span = readToolSpan(call.args);
    const whole = call.args.offset === undefined && call.args.limit === undefined && !TRUNCATED_READ.test(output.slice(-400));
    return [{ path, kind: whole ? "whole" : "view", ...(span ? { range: span.range } : {}), chars: output.length }];
  }
  if (call.name === "write") {
    const content = call.args.content;
    return failed || typeof content !== "string" ? [touched] : [{ path, kind: "write", chars: content.length }];
  }
  if (call.name === "edit") {
    const edits = editPairs(call.args);
    if (failed || FAILURE_OPENING.test(text()) || edits.length === 0) return [touched];
    return [{ path, kind: "edit", edits, chars: edits.reduce((n, e) => n + e.oldText.length + e.newText.length, 0) }];
  }
  return [touched];
}

/** pi's `edits` list, or the older top-level pair. */
function editPairs(args: Record<string, unknown>): Array<{ oldText: string; newText: string }> {
  const list = Array.isArray(args.edits) ? args.edits : [args];
  const pairs: Array<{ oldText: string; newText: string }> = [];
  for (const item of list) {
    const pair = loose(item);
    if (typeof pair?.oldText === "string" && typeof pair.newText === "string") pairs.push({ oldText: pair.oldText, newText: pair.newText });
  }
  return pairs;
}

function bashTouches(args: Record<string, unknown>, output: string): CallTouch[] {
  const command = typeof args.command === "string" ? args.command : "";
  const touches = shellTouches(command);
  // One file shown with a range the plain shapes tell; several in one output, or another shape: lines not told.
  const single = touches.filter((t) => t.kind === "view").length === 1;
  return touches.map((touch): CallTouch => {
    if (touch.kind !== "view") return { path: touch.path, kind: touch.kind, chars: command.length };
    const span = single ? shellReadSpan(command.trim()) : undefined;
    const whole = span !== undefined && "start" in span.range && span.range.start === 1 && span.range.end === Infinity;
    return { path: touch.path, kind: whole ? "whole" : "view", ...(span ? { range: span.range } : {}), chars: output.length };
  });
}
