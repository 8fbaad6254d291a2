/**
 * The working set (issue 42): the files the agent is working on now, and the latest view it has of each, which
 * stays in view while the rest is stubbed as before.
 *
 * A file is in the working set at a moment when a call touched it in the prompt running then (pi's `read`,
 * `edit`, `write`, a call with a `path`, or a `bash` command whose files can be told, shell-touches.ts), or an
 * `edit` or `write` (a bash write too) changed it within the last `recentPrompts` prompts. For each such file:
 *
 * - the newest output that shows its text (a read, a bash read) stays, and so do the earlier reads of other
 *   lines of it, back to the newest read of the whole file (or its newest write), unless a later read of the
 *   same file holds their lines too;
 * - the arguments of its newest write stay (they are its whole text then), and those of each successful edit
 *   after its newest whole view, unless a later edit's old text takes up the lines its new text wrote (that
 *   edit superseded it).
 *
 * Only what lies behind the render's horizon counts (the newest message the last archive write had seen), and
 * an item stays kept only while its file was in the working set at every archive write since it came: the set
 * then changes only in a request that carries an archive write anyway, and never brings back raw what an
 * earlier write stubbed (it keeps raw longer, or lets go). An output larger than `maxChars` is never kept.
 *
 * Pure: messages in, the kept occurrence keys out; nothing throws on any input.
 */
import { pathArgOf } from "../capture/stale-outputs.js";
import { contentBlocks, isAssistant, isToolCall, isToolResult, isUser, loose, opensNoCalls } from "../capture/message-shape.js";
import { occKey, parseOccKey, resultTimestampOf } from "../capture/occurrence-key.js";
import { extractToolResultText } from "../capture/batch-capture.js";
import { readToolSpan, shellReadSpan, type LineRange } from "../capture/stale-outputs.js";
import { fileKeys } from "./file-keys.js";
import { shellTouches, type ShellTouch } from "./shell-touches.js";

/** One archive write, as the render reads it back: the newest message it had seen, and what it archived. */
export interface ArchiveWrite {
  /** The horizon: the time of the newest message when it was written. */
  at: number;
  /** Occurrence keys of the outputs it archived. */
  keys: readonly string[];
  /** Made on an expired cache: the whole request was written again anyway. */
  cold?: boolean;
}

export interface WorkingSetOptions {
  /** The session's archive writes in order, the last one the render's horizon; none: nothing is kept. */
  writes: readonly ArchiveWrite[];
  /** How many prompts after the running one an edited or written file stays in the set. */
  recentPrompts: number;
  /** A larger output or argument text is never kept. */
  maxChars: number;
  /** What writing a token to the cache costs beyond reading it, in reads (Anthropic: 12.5 - 1). */
  rewriteOverRead: number;
}

export interface WorkingSet {
  /** The files in the set at the horizon (keys as file-keys.ts makes them). */
  files: ReadonlySet<string>;
  /** Occurrence keys of the outputs that stay raw. */
  outputs: ReadonlySet<string>;
  /** Occurrence keys of the outputs whose calls keep their arguments raw. */
  arguments: ReadonlySet<string>;
  /** Of the kept outputs, those whose file has left the set by the newest message: the next archive write lets them go. */
  releasable: ReadonlySet<string>;
}

export const EMPTY_WORKING_SET: WorkingSet = { files: new Set(), outputs: new Set(), arguments: new Set(), releasable: new Set() };

/** Argument texts from this size are stubbed once done with (src/arguments/fields.ts `EDIT_WRITE_MIN_CHARS`). */
const BULKY_ARGUMENT_CHARS = 200;

/** About what a stub takes in the request (src/policy/rewrite-figures.ts counts the same). */
const STUB_CHARS = 200;

const FAILURE_OPENING = /^\s*(error|failed|failure|could not|cannot|can't|unable to)\b/i;

type TouchKind = "view" | "whole" | "write" | "edit" | "touch";

/** One call's effect on one file. */
interface Touch {
  file: string;
  kind: TouchKind;
  /** The result's occurrence key and time, the prompt it ran in. */
  key: string;
  time: number;
  prompt: number;
  /** A view's lines (undefined: unknown, taken as all); an edit's old and new texts. */
  range?: LineRange;
  edits?: Array<{ oldText: string; newText: string }>;
  chars: number;
}

interface Call {
  name: string;
  args: Record<string, unknown>;
}

/** The working set at the last write's horizon, and what it keeps raw. */
export function workingSet(messages: readonly unknown[], options: WorkingSetOptions): WorkingSet {
  const last = options.writes[options.writes.length - 1];
  if (last === undefined || !Array.isArray(messages)) return EMPTY_WORKING_SET;
  try {
    return compute(messages, last.at, options);
  } catch {
    return EMPTY_WORKING_SET;
  }
}

/**
 * Write after write: an output the write archived stays raw when it belongs to its file's latest view in the
 * working set then; a kept one is let go once it no longer does, at the first write whose rewrite reaches it
 * anyway (it archived something at or before it, or the cache had expired). Nothing let go comes back.
 */
function compute(messages: readonly unknown[], horizon: number, options: WorkingSetOptions): WorkingSet {
  const { touches, prompts, timeline, newest } = readTouches(messages);
  if (touches.length === 0) return EMPTY_WORKING_SET;
  const byFile = new Map<string, Touch[]>();
  const byKey = new Map<string, Touch[]>();
  for (const touch of touches) {
    push(byFile, touch.file, touch);
    push(byKey, touch.key, touch);
  }
  const kept = new Map<string, Touch[]>();
  /** Per kept output out of view: what keeping it raw has cost since, in characters read. */
  const rent = new Map<string, number>();
  let files = new Set<string>();
  let previous = Number.NEGATIVE_INFINITY;
  for (const write of options.writes) {
    const view = viewAt(byFile, prompts, write.at, options);
    files = view.files;
    const from = write.cold ? Number.NEGATIVE_INFINITY : Math.min(earliest(write.keys, byKey), endedArguments(touches, prompts, previous, write.at));
    const requests = timeline.requestsBetween(previous, write.at);
    previous = write.at;
    for (const [key, list] of kept) {
      if (process.env.WS_DEBUG && options.writes[options.writes.length - 1] === write) {}
      if (list.every((t) => view.items.has(t))) continue;
      const time = list[0]!.time;
      // Let go in a rewrite that reaches it anyway, or once keeping it has cost what reaching it would (ski rental).
      const paid = (rent.get(key) ?? 0) + list[0]!.chars * requests;
      rent.set(key, paid);
      if (process.env.WS_RELEASE === "always" || time >= from || paid >= options.rewriteOverRead * timeline.charsBetween(time, from)) kept.delete(key);
    }
    for (const key of write.keys) {
      const list = byKey.get(key);
      if (list !== undefined && list.every((t) => view.items.has(t))) kept.set(key, list);
    }
  }
  if (process.env.WS_DEBUG) {
    const g = globalThis as any;
    g.__ws ??= { n: 0 };
    g.__ws.n++;
    for (const [, list] of kept) {
      const t = list[0]!;
      const cls = `${t.kind}${t.chars > 8000 ? ">8k" : t.chars > 2000 ? "2-8k" : "<2k"}`;
      g.__ws[cls] = (g.__ws[cls] ?? 0) + t.chars;
    }
  }
  const outputs = new Set<string>();
  const args = new Set<string>();
  for (const [key, list] of kept) {
    outputs.add(key);
    if (list.some((t) => t.kind === "edit" || t.kind === "write")) args.add(key);
  }
  const now = viewAt(byFile, prompts, newest, options);
  const releasable = new Set<string>();
  for (const [key, list] of kept) if (!list.every((t) => now.items.has(t))) releasable.add(key);
  return { files, outputs, arguments: args, releasable };
}

function push<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/**
 * Where the argument stubs of prompts that ended since the last write begin: the first bulky edit or write of
 * those prompts (src/arguments/stub.ts stubs a prompt's arguments once the next prompt came).
 */
function endedArguments(touches: readonly Touch[], prompts: readonly number[], since: number, at: number): number {
  const first = promptAt(prompts, since);
  const now = promptAt(prompts, at);
  if (now <= first) return Number.POSITIVE_INFINITY;
  for (const touch of touches) {
    if (touch.prompt >= first && touch.prompt < now && (touch.kind === "edit" || touch.kind === "write") && touch.chars >= BULKY_ARGUMENT_CHARS) return touch.time;
  }
  return Number.POSITIVE_INFINITY;
}

/** The time of the earliest output a write archived (its rewrite starts there or before). */
function earliest(keys: readonly string[], byKey: ReadonlyMap<string, Touch[]>): number {
  let from = Number.POSITIVE_INFINITY;
  for (const key of keys) {
    const touch = byKey.get(key)?.[0];
    const time = touch?.time ?? parseOccKey(key).resultTimestamp;
    if (time !== undefined && time < from) from = time;
  }
  return from;
}

/** The files in the set at `time` and the touches that make up their latest views then. */
function viewAt(byFile: ReadonlyMap<string, Touch[]>, prompts: readonly number[], time: number, options: WorkingSetOptions): { files: Set<string>; items: Set<Touch> } {
  const prompt = promptAt(prompts, time);
  const files = new Set<string>();
  const items = new Set<Touch>();
  for (const [file, all] of byFile) {
    const list = all.filter((t) => t.time <= time);
    const changed = (t: Touch) => t.kind === "edit" || t.kind === "write";
    const inSet = list.some((t) => (process.env.WS_MEMBER === "edit" ? changed(t) && t.prompt === prompt : t.prompt === prompt) || (changed(t) && prompt - t.prompt <= options.recentPrompts));
    if (!inSet) continue;
    files.add(file);
    for (const touch of latestView(list)) {
      const isArgs = touch.kind === "edit" || touch.kind === "write";
      if (process.env.WS_KEEP === "args" && !isArgs) continue;
      if (process.env.WS_KEEP === "reads" && isArgs) continue;
      if (touch.chars <= options.maxChars) items.add(touch);
    }
  }
  return { files, items };
}

/** The prompt (count of user messages before it) a time falls in. */
function promptAt(prompts: readonly number[], time: number): number {
  let lo = 0;
  let hi = prompts.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (prompts[mid]! <= time) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The touches that make up a file's latest view: back from the newest, every view and edit until a whole
 * view (a whole read, a write); a view whose lines a later view holds and an edit whose new text a later edit
 * took up as its old text are left out.
 */
function latestView(list: readonly Touch[]): Touch[] {
  const kept: Touch[] = [];
  const laterViews: Touch[] = [];
  const laterOldLines = new Set<string>();
  for (let i = list.length - 1; i >= 0; i--) {
    const touch = list[i]!;
    if (touch.kind === "touch") continue;
    if (touch.kind === "edit") {
      const edits = touch.edits ?? [];
      const superseded = edits.length > 0 && edits.every((e) => sharesLine(e.newText, laterOldLines));
      if (!superseded) kept.push(touch);
      for (const e of edits) for (const line of significantLines(e.oldText)) laterOldLines.add(line);
      continue;
    }
    if (!laterViews.some((later) => holds(later.range, touch.range))) kept.push(touch);
    if (touch.kind === "write" || touch.kind === "whole") break;
    laterViews.push(touch);
  }
  return kept;
}

function holds(outer: LineRange | undefined, inner: LineRange | undefined): boolean {
  if (outer === undefined) return true;
  if (inner === undefined) return false;
  if ("last" in outer || "last" in inner) return "last" in outer && "last" in inner && outer.last >= inner.last;
  return outer.start <= inner.start && outer.end >= inner.end;
}

/** Lines long enough to say where a text sits (a lone brace says nothing). */
function significantLines(text: string): string[] {
  return text.split("\n").map((line) => line.trim()).filter((line) => line.length >= 8);
}

function sharesLine(text: string, lines: ReadonlySet<string>): boolean {
  const own = significantLines(text);
  return own.length === 0 ? lines.size > 0 : own.some((line) => lines.has(line));
}

/** Every touch behind the horizon, in transcript order, and the times at which each prompt after the first began. */
function readTouches(messages: readonly unknown[]): { touches: Touch[]; prompts: number[]; timeline: Timeline; newest: number } {
  const raw: Array<Omit<Touch, "file"> & { path: string }> = [];
  const prompts: number[] = [];
  const timeline = new Timeline();
  let newest = Number.NEGATIVE_INFINITY;
  const open = new Map<string, Call>();
  for (const msg of messages) {
    const time = loose(msg)?.timestamp;
    if (typeof time !== "number" || !Number.isFinite(time)) continue;
    newest = Math.max(newest, time);
    // An output is counted as its stub: most of them are stubbed by the time a kept one is let go.
    timeline.add(time, isToolResult(msg) ? Math.min(STUB_CHARS, approximateChars(msg)) : approximateChars(msg), isAssistant(msg));
    if (isUser(msg)) {
      prompts.push(time);
      open.clear();
      continue;
    }
    if (isAssistant(msg)) {
      open.clear();
      if (process.env.WS_ENDREPLY === "1" && !contentBlocks(msg).some(isToolCall) && msg.stopReason === "stop") prompts.push(time);
      if (opensNoCalls(msg)) continue;
      for (const block of contentBlocks(msg)) if (isToolCall(block) && typeof block.id === "string") open.set(block.id, { name: String(block.name), args: argsOf(block.arguments) });
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
    const base = { key, time, prompt: prompts.length };
    for (const touch of callTouches(call, msg)) raw.push({ ...base, ...touch });
  }
  const keyOf = fileKeys(raw.map((t) => t.path));
  return { touches: raw.map(({ path, ...rest }) => ({ ...rest, file: keyOf(path) })), prompts, timeline, newest };
}

/** Where each message stands: its time, and the characters and requests up to it. */
class Timeline {
  private readonly times: number[] = [];
  private readonly chars: number[] = [];
  private readonly requests: number[] = [];

  add(time: number, chars: number, request: boolean): void {
    const n = this.times.length;
    this.times.push(time);
    this.chars.push((n === 0 ? 0 : this.chars[n - 1]!) + chars);
    this.requests.push((n === 0 ? 0 : this.requests[n - 1]!) + (request ? 1 : 0));
  }

  /** Characters of the messages after time `a` up to time `b`. */
  charsBetween(a: number, b: number): number {
    return this.at(this.chars, b) - this.at(this.chars, a);
  }

  requestsBetween(a: number, b: number): number {
    return this.at(this.requests, b) - this.at(this.requests, a);
  }

  /** The running total at the last message at or before `time`. */
  private at(totals: readonly number[], time: number): number {
    let lo = 0;
    let hi = this.times.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.times[mid]! <= time) lo = mid + 1;
      else hi = mid;
    }
    return lo === 0 ? 0 : totals[lo - 1]!;
  }
}

/** A message's size as the strings it holds (text, thinking, arguments, output), cheaply. */
function approximateChars(msg: unknown): number {
  const content = loose(msg)?.content;
  if (typeof content === "string") return content.length;
  let chars = 0;
  for (const block of contentBlocks(msg)) {
    const b = loose(block);
    if (typeof b?.text === "string") chars += b.text.length;
    else if (typeof b?.thinking === "string") chars += b.thinking.length;
    else if (isToolCall(block)) chars += stringChars(block.arguments, 0);
  }
  return chars;
}

function stringChars(value: unknown, depth: number): number {
  if (typeof value === "string") return value.length;
  if (depth > 6 || typeof value !== "object" || value === null) return 0;
  let chars = 0;
  for (const item of Object.values(value)) chars += stringChars(item, depth + 1);
  return chars;
}

function argsOf(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

type CallTouch = { path: string; kind: TouchKind; range?: LineRange; edits?: Touch["edits"]; chars: number };

/** What one answered call did to which files. */
function callTouches(call: Call, result: { isError?: unknown; content?: unknown }): CallTouch[] {
  const failed = result.isError === true;
  const text = () => extractToolResultText(result as Parameters<typeof extractToolResultText>[0]);
  if (call.name === "bash") return failed ? [] : bashTouches(call.args, text());
  const path = pathArgOf(call.args);
  if (path === undefined) return [];
  if (call.name === "read") {
    if (failed) return [{ path, kind: "touch", chars: 0 }];
    const output = text();
    const span = readToolSpan(call.args);
    const whole = call.args.offset === undefined && call.args.limit === undefined && !/\n\[Showing lines \d+-\d+ of/.test(output.slice(-400));
    return [{ path, kind: whole ? "whole" : "view", ...(span ? { range: span.range } : {}), chars: output.length }];
  }
  if (call.name === "write") {
    const content = call.args.content;
    return failed || typeof content !== "string" ? [{ path, kind: "touch", chars: 0 }] : [{ path, kind: "write", chars: content.length }];
  }
  if (call.name === "edit") {
    const edits = editPairs(call.args);
    if (failed || FAILURE_OPENING.test(text()) || edits.length === 0) return [{ path, kind: "touch", chars: 0 }];
    return [{ path, kind: "edit", edits, chars: edits.reduce((n, e) => n + e.oldText.length + e.newText.length, 0) }];
  }
  return [{ path, kind: "touch", chars: 0 }];
}

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
  const single = touches.filter((t) => t.kind === "view").length === 1;
  return touches.map((touch: ShellTouch) => {
    if (touch.kind !== "view") return { path: touch.path, kind: touch.kind === "write" ? "write" : "edit", chars: touch.kind === "write" ? command.length : 0 };
    // One file shown with a range the plain shapes tell; several in one output, or another shape: its lines unknown.
    const span = single ? shellReadSpan(command.trim()) : undefined;
    const whole = span !== undefined && "start" in span.range && span.range.start === 1 && span.range.end === Infinity;
    return { path: touch.path, kind: whole ? "whole" : "view", ...(span ? { range: span.range } : {}), chars: output.length };
  });
}

/** How many prompts after its last edit or write a file stays in the set (measured: PRUNING.md, "The working set"). */
export const RECENT_PROMPTS = 2;
/** An output or argument text larger than this is never kept raw (a 50 KB read costs more kept than re-read). */
export const MAX_KEPT_CHARS = 60_000;

/** The working set's options for a render under `config`, or undefined where it is off (the classic policy is 2.9.1's). */
export function sightOptions(config: { enabled: boolean; flushPolicy: string }, writes: readonly ArchiveWrite[]): WorkingSetOptions | undefined {
  if (!config.enabled || config.flushPolicy === "classic") return undefined;
  return { writes, recentPrompts: Number(process.env.WS_N ?? RECENT_PROMPTS), maxChars: Number(process.env.WS_MAX ?? MAX_KEPT_CHARS), rewriteOverRead: Number(process.env.WS_RR ?? 11.5) };
}
