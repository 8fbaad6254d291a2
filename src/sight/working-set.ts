/**
 * The working set (issue 42): the files the agent is working on now, and the latest view it has of each, which
 * stays in view while the rest is stubbed as before.
 *
 * A file is in the working set at a moment when a call of the run going on then touched it (pi's `read`,
 * `edit`, `write`, a call with a `path`, a `bash` command whose files can be told: touches.ts), or when an
 * `edit` or `write` (a bash write too) changed it and fewer than `recentPrompts` prompts have begun since. A run
 * ends with the agent's text reply. For each file in the set, its latest view:
 *
 * - the newest output that shows its text (a read, a bash read), and the earlier reads of other lines of it back
 *   to its newest whole view (a read of all of it, or its newest write), unless a later read holds their lines;
 * - the arguments of its newest write (its whole text then) and of each successful edit since its newest whole
 *   view, unless a later edit's old text takes up lines its new text wrote (that edit superseded it).
 *
 * The set is read at each archive write, from the messages that write had seen (its horizon): an output the
 * write archived stays raw while it belongs to the latest view of a file in the set, and a kept one is let go at
 * the first write at which it no longer does. So what the set keeps changes only in a request that carries an
 * archive write anyway, and nothing let go comes back raw. An item larger than `maxChars` is never kept.
 *
 * Pure: messages and writes in, the kept occurrence keys out; nothing throws on any input.
 */
import type { LineRange } from "../capture/stale-outputs.js";
import { countAtOrBefore, readTranscript, type Touch, type Transcript } from "./touches.js";

/** One archive write, as the render reads it back: the newest message it had seen, and what it archived. */
export interface ArchiveWrite {
  /** The horizon: the time of the newest message when it was written. */
  at: number;
  /** Occurrence keys of the outputs it archived. */
  keys: readonly string[];
}

export interface WorkingSetOptions {
  /** The session's archive writes in order, the last one the render's horizon; none: nothing is kept. */
  writes: readonly ArchiveWrite[];
  /** How many prompts an edited or written file stays in the set after the one that changed it began (0: its run only). */
  recentPrompts: number;
  /** A larger output or argument text is never kept. */
  maxChars: number;
}

export interface WorkingSet {
  /** The files in the set at the last write (keys as file-keys.ts makes them). */
  files: ReadonlySet<string>;
  /** Occurrence keys of the outputs that stay raw. */
  outputs: ReadonlySet<string>;
  /** Occurrence keys of the outputs whose calls keep their arguments raw. */
  arguments: ReadonlySet<string>;
  /** Of the kept outputs, those whose file has left the set by the newest message: the next archive write lets them go. */
  releasable: ReadonlySet<string>;
  /** What the last write archived of a latest view that is too large to keep: it leaves the agent's view. */
  hidden: ReadonlyArray<HiddenView>;
}

/** An output of a file's latest view that a write stubs all the same (larger than `maxChars`). */
export interface HiddenView {
  key: string;
  chars: number;
  /** The file was edited or written: the next edit may need lines of it as its old text. */
  edited: boolean;
}

export const EMPTY_WORKING_SET: WorkingSet = { files: new Set(), outputs: new Set(), arguments: new Set(), releasable: new Set(), hidden: [] };

/** An edit line shorter than this (`}`, `else:`) says nothing about where the edit sits. */
const SIGNIFICANT_LINE = 8;

/** What the set keeps after the writes given; `EMPTY_WORKING_SET` with no write. */
export function workingSet(messages: readonly unknown[], options: WorkingSetOptions): WorkingSet {
  if (options.writes.length === 0 || !Array.isArray(messages)) return EMPTY_WORKING_SET;
  try {
    return compute(readTranscript(messages), options);
  } catch {
    return EMPTY_WORKING_SET;
  }
}

function compute(transcript: Transcript, options: WorkingSetOptions): WorkingSet {
  if (transcript.touches.length === 0) return EMPTY_WORKING_SET;
  const byFile = new Map<string, Touch[]>();
  const byKey = new Map<string, Touch[]>();
  for (const touch of transcript.touches) {
    push(byFile, touch.file, touch);
    push(byKey, touch.key, touch);
  }
  const kept = new Map<string, Touch[]>();
  let files: ReadonlySet<string> = new Set();
  let hidden: HiddenView[] = [];
  for (const write of options.writes) {
    const view = viewAt(byFile, transcript, write.at, options);
    files = view.files;
    hidden = write.keys.flatMap((key) => (byKey.get(key) ?? []).filter((t) => view.oversized.has(t)).map((t) => ({ key, chars: t.chars, edited: view.edited.has(t.file) })));
    for (const [key, list] of kept) if (!list.every((t) => view.items.has(t))) kept.delete(key);
    for (const key of write.keys) {
      const list = byKey.get(key);
      if (list !== undefined && list.every((t) => view.items.has(t))) kept.set(key, list);
    }
  }
  const now = viewAt(byFile, transcript, transcript.newest, options);
  const outputs = new Set<string>();
  const args = new Set<string>();
  const releasable = new Set<string>();
  for (const [key, list] of kept) {
    outputs.add(key);
    if (list.some((t) => t.kind === "edit" || t.kind === "write")) args.add(key);
    if (!list.every((t) => now.items.has(t))) releasable.add(key);
  }
  return { files, outputs, arguments: args, releasable, hidden };
}

function push<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** The files in the set at `time`, and the touches that make up their latest views then. */
interface View {
  files: Set<string>;
  items: Set<Touch>;
  /** Touches of a latest view too large to keep, and the files of the set that were edited or written. */
  oversized: Set<Touch>;
  edited: Set<string>;
}

function viewAt(byFile: ReadonlyMap<string, Touch[]>, transcript: Transcript, time: number, options: WorkingSetOptions): View {
  const run = countAtOrBefore(transcript.runs, time);
  const prompt = countAtOrBefore(transcript.prompts, time);
  const files = new Set<string>();
  const items = new Set<Touch>();
  const oversized = new Set<Touch>();
  const edited = new Set<string>();
  for (const [file, all] of byFile) {
    const list = all.filter((t) => t.time <= time);
    const inSet = list.some((t) => countAtOrBefore(transcript.runs, t.time) === run || (changes(t) && prompt - countAtOrBefore(transcript.prompts, t.time) < options.recentPrompts));
    if (!inSet) continue;
    files.add(file);
    if (list.some(changes)) edited.add(file);
    for (const touch of latestView(list)) (touch.chars <= options.maxChars ? items : oversized).add(touch);
  }
  return { files, items, oversized, edited };
}

function changes(touch: Touch): boolean {
  return touch.kind === "edit" || touch.kind === "write";
}

/**
 * Back from the newest touch of a file: every view and edit until a whole view (a whole read, a write); a view
 * whose lines a later view holds, and an edit whose new text a later edit took up as its old text, left out.
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
      if (edits.length === 0 || !edits.every((e) => sharesLine(e.newText, laterOldLines))) kept.push(touch);
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

function significantLines(text: string): string[] {
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line.length >= SIGNIFICANT_LINE);
}

/** Whether the text shares a line with the later edits' old texts; a text of short lines only when any came. */
function sharesLine(text: string, lines: ReadonlySet<string>): boolean {
  const own = significantLines(text);
  return own.length === 0 ? lines.size > 0 : own.some((line) => lines.has(line));
}

/** An output or argument text larger than this is never kept raw: keeping it costs more than reading it again. */
export const MAX_KEPT_CHARS = 8_000;

/** What one more archive write of `keys` at `at` would do: what it keeps raw, what it lets go, what it hides of a latest view. */
export interface WriteSight {
  kept: ReadonlySet<string>;
  released: ReadonlySet<string>;
  hidden: ReadonlyArray<HiddenView>;
}

export function sightOfWrite(messages: readonly unknown[], options: WorkingSetOptions, at: number, keys: readonly string[]): WriteSight {
  const before = workingSet(messages, options);
  const after = workingSet(messages, { ...options, writes: [...options.writes, { at, keys }] });
  const released = new Set<string>();
  for (const key of before.outputs) if (!after.outputs.has(key)) released.add(key);
  return { kept: new Set(keys.filter((key) => after.outputs.has(key))), released, hidden: after.hidden };
}

/** The working set's options for a render under `config`, or undefined where it is off (`workingSetPrompts: null`; the classic policy is 2.9.1's). */
export function sightOptions(config: { enabled: boolean; flushPolicy: string; workingSetPrompts: number | null }, writes: readonly ArchiveWrite[]): WorkingSetOptions | undefined {
  if (!config.enabled || config.flushPolicy === "classic" || config.workingSetPrompts === null) return undefined;
  return { writes, recentPrompts: config.workingSetPrompts, maxChars: MAX_KEPT_CHARS };
}
