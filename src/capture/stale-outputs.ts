/**
 * Stale outputs: tool outputs a later call in the transcript made obsolete,
 * found without a model. Pure detector; applying the stubs (cost policy,
 * archive first) is the render's business. Three rules, each naming the
 * earliest later call that supersedes an output:
 *
 * - edited: a read of a path, then a successful `edit` or `write` of that path
 *   (not an error, and for an edit no result text that opens with a failure
 *   word). A bash command that changes a file (`sed -i`, `>`) is not an edit.
 * - reread: a read, then a successful read of the same path whose lines contain
 *   it, with no successful edit or write of the path between (that edit
 *   supersedes it first). Reads are pi's `read` (`offset` first line, `limit`
 *   line count) and the plain bash reads described below; the lines a read
 *   holds are those pi's truncation note says it kept. An earlier read is
 *   superseded by the next read that contains it, so a chain of growing reads
 *   hands each on to the next.
 * - rerun: a `bash` output, then a run of the exact same command (trimmed; no
 *   other normalization, so `FOO=1 npm test` and `FOO=2 npm test` differ, and
 *   `cd x && npm test` is its own command: pi runs every command in a fresh
 *   shell at the session cwd, so the same string is the same run). A failed
 *   earlier run is superseded too (the newer run is the current state); a newer
 *   run that was aborted or timed out supersedes nothing.
 *
 * Never stale: failed reads, protected calls (`isProtected`), `context_tree_query`
 * recoveries. Protected calls may still supersede others. Results are paired
 * with their calls the way the provider sees them (the calls of the last
 * assistant message, until any other message); an orphan result and an
 * occurrence key seen twice take no part.
 */
import type { Message, ToolCall } from "@earendil-works/pi-ai";
import { isAssistant, isToolCall, isToolResult } from "./message-shape.js";
import { occKey, resultTimestampOf } from "./occurrence-key.js";
import { isRecoveryTool } from "./recovery-call.js";
import { normalizePath } from "./protected.js";

export type StaleRule = "edited" | "reread" | "rerun";

export interface Supersession {
  rule: StaleRule;
  /** Occurrence key of the superseding call. */
  byKey: string;
  byToolName: string;
  path?: string;
  command?: string;
}

export interface StaleOptions {
  /** The session cwd: a relative path then matches its absolute spelling. */
  cwd?: string;
  isProtected?: (toolName: string, args: unknown) => boolean;
}

/** One answered tool call, in transcript order. */
export interface ToolObservation {
  key: string;
  toolName: string;
  args: Record<string, unknown>;
  isError: boolean;
  resultText: string;
  /** The result message it was read from: what it says is read once per message. */
  source?: object;
}

const MUTATION_TOOLS = new Set(["edit", "write"]);
const FAILURE_OPENING = /^\s*(error|failed|failure|could not|cannot|can't|unable to)\b/i;
const UNFINISHED_RUN = /(^|\n)(Command aborted|Command timed out after [^\n]*)\s*$/;

interface LiveRead {
  key: string;
  range: LineRange | undefined;
}

interface DetectorState {
  stale: Map<string, Supersession>;
  readsOf: Map<string, LiveRead[]>;
  runsOf: Map<string, string[]>;
}

export function findStaleOutputs(messages: readonly unknown[], opts: StaleOptions = {}): Map<string, Supersession> {
  const state: DetectorState = { stale: new Map(), readsOf: new Map(), runsOf: new Map() };
  for (const obs of uniqueObservations(toolObservations(messages))) observe(state, obs, opts);
  return state.stale;
}

/** What a call and its output say for staleness: the path it changed, the command it ran, the lines it read. */
interface ObservedFacts {
  toolName: string;
  edited: string | undefined;
  command: string | undefined;
  read: { path: string; range: LineRange | undefined } | undefined;
  finished: boolean;
}

/** Facts per result message, for scans without a `cwd` (a session's outputs are scanned again at every flush). */
const factsMemo = new WeakMap<object, ObservedFacts>();

function factsOf(obs: ToolObservation, cwd: string | undefined): ObservedFacts {
  const memo = cwd === undefined && obs.source !== undefined ? factsMemo.get(obs.source) : undefined;
  if (memo !== undefined && memo.toolName === obs.toolName) return memo;
  const command = obs.toolName === "bash" ? commandOf(obs.args) : undefined;
  const facts: ObservedFacts = {
    toolName: obs.toolName,
    edited: mutatedPath(obs, cwd),
    command,
    read: obs.isError ? undefined : readSpanOf(obs, command, cwd),
    finished: command !== undefined && !UNFINISHED_RUN.test(obs.resultText),
  };
  if (cwd === undefined && obs.source !== undefined) factsMemo.set(obs.source, facts);
  return facts;
}

function observe(state: DetectorState, obs: ToolObservation, opts: StaleOptions): void {
  const candidate = !isRecoveryTool(obs.toolName) && !(opts.isProtected?.(obs.toolName, obs.args) ?? false);
  const { edited, command, read, finished } = factsOf(obs, opts.cwd);
  if (edited !== undefined) supersedeReadsOf(state, edited, obs);
  if (read !== undefined) {
    supersedeContained(state, read, obs);
    if (candidate) push(state.readsOf, read.path, { key: obs.key, range: read.range });
  }
  if (command === undefined) return;
  if (finished) supersedeRuns(state, command, obs);
  if (candidate) push(state.runsOf, command, obs.key);
}

function supersedeReadsOf(state: DetectorState, path: string, by: ToolObservation): void {
  const live = state.readsOf.get(path);
  if (live === undefined) return;
  for (const read of live) mark(state, read.key, { rule: "edited", byKey: by.key, byToolName: by.toolName, path });
  state.readsOf.delete(path);
}

function supersedeContained(state: DetectorState, read: { path: string; range: LineRange | undefined }, by: ToolObservation): void {
  const live = state.readsOf.get(read.path);
  const outer = read.range;
  if (live === undefined || outer === undefined) return;
  const kept = live.filter((earlier) => {
    if (earlier.range === undefined || !rangeContains(outer, earlier.range)) return true;
    mark(state, earlier.key, { rule: "reread", byKey: by.key, byToolName: by.toolName, path: read.path });
    return false;
  });
  if (kept.length < live.length) state.readsOf.set(read.path, kept);
}

function supersedeRuns(state: DetectorState, command: string, by: ToolObservation): void {
  const live = state.runsOf.get(command);
  if (live === undefined) return;
  for (const key of live) mark(state, key, { rule: "rerun", byKey: by.key, byToolName: by.toolName, command });
  state.runsOf.delete(command);
}

/** Calls are seen in transcript order, so the first supersession of an output is the earliest. */
function mark(state: DetectorState, key: string, supersession: Supersession): void {
  if (!state.stale.has(key)) state.stale.set(key, supersession);
}

function push<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}

function mutatedPath(obs: ToolObservation, cwd: string | undefined): string | undefined {
  if (!MUTATION_TOOLS.has(obs.toolName) || obs.isError || FAILURE_OPENING.test(obs.resultText)) return undefined;
  const raw = pathArgOf(obs.args);
  return raw === undefined ? undefined : normalizeFilePath(raw, cwd);
}

function commandOf(args: Record<string, unknown>): string | undefined {
  const command = typeof args.command === "string" ? args.command.trim() : "";
  return command === "" ? undefined : command;
}

function readSpanOf(obs: ToolObservation, command: string | undefined, cwd: string | undefined): { path: string; range: LineRange | undefined } | undefined {
  let span: ReadSpan | undefined;
  if (obs.toolName === "read") span = readToolSpan(obs.args, cwd);
  else if (command !== undefined) span = shellReadSpan(command, cwd);
  if (span === undefined) return undefined;
  return { path: span.path, range: deliveredRange(span.range, obs.resultText, obs.toolName === "read" ? "file" : "output") };
}

/** Every answered tool call, paired as the provider pairs them; orphans are left out. */
export function toolObservations(messages: readonly unknown[]): ToolObservation[] {
  const observations: ToolObservation[] = [];
  const open = new Map<string, { name: string; args: Record<string, unknown> }>();
  for (const msg of messages) {
    if (isAssistant(msg)) {
      open.clear();
      if (msg.stopReason === "error" || msg.stopReason === "aborted" || !Array.isArray(msg.content)) continue;
      for (const block of msg.content) if (isToolCall(block) && typeof block.id === "string") open.set(block.id, { name: String(block.name), args: argsOf(block) });
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
    observations.push({ key, toolName: call.name, args: call.args, isError: msg.isError === true, resultText: textOf(msg.content), source: msg });
  }
  return observations;
}

function argsOf(block: ToolCall): Record<string, unknown> {
  const loose = block as { arguments?: unknown; input?: unknown; args?: unknown };
  const args = loose.arguments ?? loose.input ?? loose.args;
  return typeof args === "object" && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  let text = "";
  for (const block of content) if (block?.type === "text" && typeof block.text === "string") text += text === "" ? block.text : `\n${block.text}`;
  return text;
}

/** An occurrence key seen twice cannot say which output it names: it takes no part. */
function uniqueObservations(observations: ToolObservation[]): ToolObservation[] {
  const seen = new Map<string, number>();
  for (const obs of observations) seen.set(obs.key, (seen.get(obs.key) ?? 0) + 1);
  return observations.filter((obs) => seen.get(obs.key) === 1);
}

const STUB_COMMAND_CHARS = 60;

/** The stub of a stale output: what superseded it, and the ref that brings it back. */
export function supersededStubText(ref: string, s: Pick<Supersession, "rule" | "path" | "command">, byRef?: string): string {
  const newer = byRef === undefined ? "" : ` (ref ${code(byRef)})`;
  const what =
    s.rule === "edited"
      ? `${code(s.path ?? "the file")} was edited later${newer}; re-read it for its current content`
      : s.rule === "reread"
        ? `${code(s.path ?? "the file")} was read again later${newer}, these lines included`
        : `${code(shortCommand(s.command ?? ""))} was run again later${newer}; see the newer output`;
  return `[Superseded: ${what}. Original archived as ref ${code(ref)}: context_tree_query({ toolCallIds: [${JSON.stringify(ref)}] }).]`;
}

function shortCommand(command: string): string {
  const folded = command.replace(/\s+/g, " ").trim();
  return folded.length <= STUB_COMMAND_CHARS ? folded : `${folded.slice(0, STUB_COMMAND_CHARS - 1)}…`;
}

/** A Markdown code span that survives backticks inside the text. */
function code(text: string): string {
  const longest = Math.max(0, ...Array.from(text.matchAll(/`+/g), (m) => m[0].length));
  const fence = "`".repeat(longest + 1);
  const pad = text.startsWith("`") || text.endsWith("`") ? " " : "";
  return `${fence}${pad}${text}${pad}${fence}`;
}

/*
 * What a read covers, for the stale-output rules: the file (a normalized path)
 * and the lines of it the output holds. Pure, no I/O: nothing is resolved
 * against the disk, so two spellings count as one path only when they are
 * lexically the same file.
 *
 * A bash command is a read only in four plain shapes, each on one file:
 * `cat FILE`, `head [-n N|-N] FILE`, `tail [-n N|-N|-n +K] FILE` and
 * `sed -n 'A,Bp' FILE` (also `Ap`, `A,$p`). Anything else (pipes, `;`, `&&`,
 * redirections, globs, `$` expansions, options other than these, more than one
 * file) is not a read: a wrong guess here would stub an output the model still
 * needs, a missed one only keeps an output verbatim.
 */

/**
 * Lines `start`..`end` (1-based, inclusive; `end` may be Infinity), or the last
 * `last` lines of the file, which are inside only a whole-file read or a longer
 * tail.
 */
export type LineRange = { start: number; end: number } | { last: number };

export interface ReadSpan {
  path: string;
  range: LineRange;
}

const WHOLE: LineRange = { start: 1, end: Infinity };
const HEAD_DEFAULT_LINES = 10;
// pi's truncation notes (read.js and bash.js): the lines of the output that were kept.
const SHOWING = /^\n\n\[Showing lines (\d+)-(\d+) of \d+/;
const PARTIAL_LINE = /^\n\n\[Showing last [^\]]* of line \d+/;
const LINE_TOO_LONG = /^\[Line \d+ is [^\]]*, exceeds /;

/**
 * `./a.ts` and `a.ts` are one path, and so are `src//a.ts` and `src/./a.ts`;
 * `..` is kept (a symlinked folder makes `x/../a.ts` another file). A relative
 * path is joined to `cwd` when it is known, so it matches the absolute spelling.
 */
export function normalizeFilePath(raw: string, cwd?: string): string {
  let path = normalizePath(raw);
  if (!path.startsWith("/") && cwd !== undefined && cwd.startsWith("/")) path = `${normalizePath(cwd)}/${path}`;
  const absolute = path.startsWith("/");
  const parts = path.split("/").filter((part) => part !== "" && part !== ".");
  const joined = parts.join("/");
  return absolute ? `/${joined}` : joined;
}

/** `path` (pi's read, edit and write), or the `file_path`/`filePath` other tool sets use. */
export function pathArgOf(args: Record<string, unknown>): string | undefined {
  const path = args.path ?? args.file_path ?? args.filePath;
  return typeof path === "string" && path.trim() !== "" ? path : undefined;
}

/** The span a `read` call asks for: `offset` is its first line, `limit` its line count. */
export function readToolSpan(args: Record<string, unknown>, cwd?: string): ReadSpan | undefined {
  const raw = pathArgOf(args);
  if (raw === undefined) return undefined;
  const { offset, limit } = args;
  if (offset !== undefined && !isWholeNumber(offset)) return undefined;
  if (limit !== undefined && !isWholeNumber(limit)) return undefined;
  const start = typeof offset === "number" && offset > 0 ? offset : 1;
  const end = typeof limit === "number" ? start + limit - 1 : Infinity;
  if (end < start) return undefined;
  return { path: normalizeFilePath(raw, cwd), range: { start, end } };
}

/** The span a bash command reads, when it is one of the four plain read shapes. */
export function shellReadSpan(command: string, cwd?: string): ReadSpan | undefined {
  const words = shellWords(command);
  if (words === undefined || words.length < 2) return undefined;
  const file = words[words.length - 1]!;
  if (file.startsWith("-")) return undefined;
  const range = shellReadRange(words[0]!, words.slice(1, -1));
  return range === undefined ? undefined : { path: normalizeFilePath(file, cwd), range };
}

function shellReadRange(program: string, options: string[]): LineRange | undefined {
  if (program === "cat") return options.length === 0 ? WHOLE : undefined;
  if (program === "head") {
    const count = options.length === 0 ? HEAD_DEFAULT_LINES : lineCountOption(options);
    return count === undefined || count < 1 ? undefined : { start: 1, end: count };
  }
  if (program === "tail") return tailRange(options);
  if (program === "sed") return options.length === 2 && options[0] === "-n" ? sedRange(options[1]!) : undefined;
  return undefined;
}

function tailRange(options: string[]): LineRange | undefined {
  if (options.length === 0) return { last: HEAD_DEFAULT_LINES };
  const from = options.length === 2 && options[0] === "-n" ? /^\+(\d+)$/.exec(options[1]!) : null;
  if (from) return { start: Math.max(1, Number(from[1])), end: Infinity };
  const count = lineCountOption(options);
  return count === undefined || count < 1 ? undefined : { last: count };
}

/** `-n N`, `-nN` or `-N`. */
function lineCountOption(options: string[]): number | undefined {
  const text = options.length === 2 && options[0] === "-n" ? options[1]! : options.length === 1 ? /^-n?(.*)$/.exec(options[0]!)?.[1] : undefined;
  return text !== undefined && /^\d{1,9}$/.test(text) ? Number(text) : undefined;
}

function sedRange(script: string): LineRange | undefined {
  const match = /^(\d{1,9})(?:,(\d{1,9}|\$))?p$/.exec(script);
  if (!match) return undefined;
  const start = Number(match[1]);
  const end = match[2] === undefined ? start : match[2] === "$" ? Infinity : Number(match[2]);
  return start >= 1 && end >= start ? { start, end } : undefined;
}

// Unquoted characters that make a command more than one plain program on one file.
const UNQUOTED_SPECIAL = /[|&;<>()`$*?[\]{}~!#\n\r]/;
const DOUBLE_QUOTED_SPECIAL = /[`$!]/;

/**
 * The words of a command made of plain words only (quotes and backslash
 * escapes resolved), or undefined when any shell syntax beyond that shows up.
 */
export function shellWords(command: string): string[] | undefined {
  const words: string[] = [];
  let word: string | undefined;
  let i = 0;
  const text = command.trim();
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === " " || ch === "\t") {
      if (word !== undefined) words.push(word);
      word = undefined;
      i++;
    } else if (ch === "'") {
      const close = text.indexOf("'", i + 1);
      if (close < 0) return undefined;
      word = (word ?? "") + text.slice(i + 1, close);
      i = close + 1;
    } else if (ch === '"') {
      const quoted = doubleQuoted(text, i + 1);
      if (quoted === undefined) return undefined;
      word = (word ?? "") + quoted.value;
      i = quoted.next;
    } else if (ch === "\\") {
      if (i + 1 >= text.length || text[i + 1] === "\n") return undefined;
      word = (word ?? "") + text[i + 1];
      i += 2;
    } else {
      if (UNQUOTED_SPECIAL.test(ch) || (ch === "=" && word !== undefined && words.length === 0)) return undefined;
      word = (word ?? "") + ch;
      i++;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}

function doubleQuoted(text: string, from: number): { value: string; next: number } | undefined {
  let value = "";
  for (let i = from; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '"') return { value, next: i + 1 };
    if (DOUBLE_QUOTED_SPECIAL.test(ch)) return undefined;
    if (ch === "\\" && i + 1 < text.length && '"\\'.includes(text[i + 1]!)) {
      value += text[++i];
      continue;
    }
    value += ch;
  }
  return undefined;
}

/**
 * The range an output really holds: pi cuts long outputs and says which lines
 * it kept (`[Showing lines A-B of N ...]`). pi's read numbers them as lines of
 * the file, bash as lines of the output. A cut inside one line, or a read whose
 * first line alone was too long, leaves no range to trust.
 */
export function deliveredRange(requested: LineRange, resultText: string | undefined, numbering: "file" | "output"): LineRange | undefined {
  if (resultText === undefined) return requested;
  // The note is the output's last paragraph; a line of the file that reads like one is not it.
  const tail = resultText.slice(Math.max(0, resultText.lastIndexOf("\n\n[")));
  if (PARTIAL_LINE.test(tail) || LINE_TOO_LONG.test(resultText)) return undefined;
  const note = SHOWING.exec(tail);
  if (!note) return requested;
  const [first, last] = [Number(note[1]), Number(note[2])];
  if (last < first) return undefined;
  if ("last" in requested) return { last: last - first + 1 };
  const shift = numbering === "file" ? 0 : requested.start - 1;
  return { start: first + shift, end: Math.min(last + shift, requested.end) };
}

export function rangeContains(outer: LineRange, inner: LineRange): boolean {
  if ("last" in outer) return "last" in inner && inner.last <= outer.last;
  if ("last" in inner) return outer.start === 1 && outer.end === Infinity;
  return outer.start <= inner.start && inner.end <= outer.end;
}

function isWholeNumber(value: unknown): boolean {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}
