/**
 * Search over archived originals, the `pattern` of `context_tree_query`:
 * matching lines with their line numbers and a little context, for the named
 * refs or, with none named, for every archived output of the session ranked
 * by how often it matches. The answer is bounded (SEARCH_CHAR_CAP characters,
 * SEARCH_TIME_BUDGET_MS of matching) and says what it left out. Pure apart
 * from the clock; the bodies come from the caller (the tool reads them).
 */
import { countableLines, pastTheEnd, rangeBounds, type LineRange } from "./query-paging.js";
import type { LinePattern } from "./line-pattern.js";
import { QUERY_TOOL_NAME } from "../names.js";

/** Characters of matching lines, context and notes one answer holds at most. */
export const SEARCH_CHAR_CAP = 8_000;
/** Lines of context shown before and after each matching line. */
export const CONTEXT_LINES = 2;
/** Match groups shown per output, so one output cannot take the whole answer. */
export const MAX_GROUPS_PER_OUTPUT = 12;
/** Outputs a search over the whole archive shows at most. */
export const MAX_OUTPUTS_SHOWN = 10;
/** Matching time after which a search stops and says how much it did not search. */
export const SEARCH_TIME_BUDGET_MS = 2_000;
const SHOWN_LINE_CHARS = 300;
const ARGS_CHARS = 160;
const CLOCK_EVERY_LINES = 256;

/** One archived output to search, with what its header shows. */
export interface SearchTarget {
  label: string;
  toolName: string;
  args: unknown;
  isError: boolean;
  /** When the output was produced; newer outputs rank first among equal match counts. */
  time: number;
  text: string;
  /** Why the text is not the whole original (an unreadable sidecar); shown in the header. */
  note?: string;
}

/** What one output's search found. */
export interface OutputHits {
  target: SearchTarget;
  /** 0-based indexes of matching lines. */
  matches: number[];
  lines: string[];
  /** First line searched (0-based) and lines searched. */
  from: number;
  searched: number;
  /** Set when the output was not searched, with the reason. */
  skipped?: string;
}

export interface SearchRun {
  hits: OutputHits[];
  /** Set when the time budget ran out: outputs left unsearched. */
  unsearched: number;
}

/** A clock the search reads; tests pass one that runs out. */
export type Clock = () => number;

/** Searches each target in order; stops at the time budget, counting what was left. */
export function searchOutputs(targets: SearchTarget[], pattern: LinePattern, range: LineRange | undefined, clock: Clock = performance.now.bind(performance)): SearchRun {
  const deadline = clock() + SEARCH_TIME_BUDGET_MS;
  const hits: OutputHits[] = [];
  for (let k = 0; k < targets.length; k++) {
    const target = targets[k]!;
    if (clock() > deadline) return { hits, unsearched: targets.length - k };
    const found = searchOne(target, pattern, range, () => clock() > deadline);
    hits.push(found);
    if (found.skipped === undefined && found.from + found.searched < rangeEnd(found, range)) return { hits, unsearched: targets.length - k - 1 };
  }
  return { hits, unsearched: 0 };
}

function rangeEnd(hits: OutputHits, range: LineRange | undefined): number {
  return range === undefined ? hits.lines.length : rangeBounds(range, hits.lines.length).last;
}

// A NUL byte never occurs in text output; its presence means binary content decoded as text.
const BINARY = /\u0000/;

function searchOne(target: SearchTarget, pattern: LinePattern, range: LineRange | undefined, overdue: () => boolean): OutputHits {
  if (BINARY.test(target.text.slice(0, 8192))) return { target, matches: [], lines: [], from: 0, searched: 0, skipped: "binary output, not searched" };
  const lines = countableLines(target.text);
  let from = 0;
  let to = lines.length;
  if (range !== undefined) {
    const bounds = rangeBounds(range, lines.length);
    if (bounds.first > lines.length) return { target, matches: [], lines, from: 0, searched: 0, skipped: pastTheEnd(range, lines.length) };
    from = bounds.first - 1;
    to = bounds.last;
  }
  const matches: number[] = [];
  let at = from;
  for (; at < to; at++) {
    if ((at - from) % CLOCK_EVERY_LINES === 0 && at > from && overdue()) break;
    if (pattern.test(lines[at]!)) matches.push(at);
  }
  return { target, matches, lines, from, searched: at - from };
}

/** The outputs that match, most matches first, newest first among equals. */
export function rankHits(hits: OutputHits[]): OutputHits[] {
  return hits
    .filter((hit) => hit.matches.length > 0)
    .sort((a, b) => b.matches.length - a.matches.length || b.target.time - a.target.time);
}

function shownLine(line: string): string {
  return line.length <= SHOWN_LINE_CHARS ? line : `${line.slice(0, SHOWN_LINE_CHARS)}… [${line.length - SHOWN_LINE_CHARS} more chars]`;
}

/** Matches within 2×CONTEXT_LINES+1 of each other share one group of lines. */
function groupsOf(matches: number[]): number[][] {
  const groups: number[][] = [];
  for (const match of matches) {
    const last = groups[groups.length - 1];
    if (last !== undefined && match - last[last.length - 1]! <= 2 * CONTEXT_LINES + 1) last.push(match);
    else groups.push([match]);
  }
  return groups;
}

/** `N:` before a matching line, `N-` before a context line (as grep -n -C prints them), 1-based. */
function groupText(lines: string[], group: number[], from: number, to: number): string {
  const matched = new Set(group);
  const first = Math.max(from, group[0]! - CONTEXT_LINES);
  const last = Math.min(to - 1, group[group.length - 1]! + CONTEXT_LINES);
  const out: string[] = [];
  for (let at = first; at <= last; at++) out.push(`${at + 1}${matched.has(at) ? ":" : "-"} ${shownLine(lines[at]!)}`);
  return out.join("\n");
}

function header(hit: OutputHits, pattern: LinePattern): string {
  const { target } = hit;
  let args = "";
  try {
    args = JSON.stringify(target.args) ?? "";
  } catch {
    args = "(unprintable)";
  }
  if (args.length > ARGS_CHARS) args = `${args.slice(0, ARGS_CHARS)}…`;
  const lines = [`## toolRef: ${target.label}`, `Tool: ${target.toolName} · Status: ${target.isError ? "ERROR" : "OK"} · Args: ${args}`];
  if (target.note !== undefined) lines.push(`(${target.note})`);
  if (hit.skipped !== undefined) lines.push(hit.skipped.startsWith("[") ? hit.skipped : `(${hit.skipped})`);
  else {
    const count = hit.matches.length === 1 ? "1 matching line" : `${hit.matches.length} matching lines`;
    const partial = hit.searched < hit.lines.length ? ` (lines ${hit.from + 1}-${hit.from + hit.searched} of ${hit.lines.length} searched)` : ` of ${hit.lines.length}`;
    lines.push(`${count}${partial} for ${pattern.label}`);
  }
  return lines.join("\n");
}

/** The answer for one output, within `budget` characters; `shownMatches` tells how many matches it shows. */
function outputText(hit: OutputHits, pattern: LinePattern, budget: number, patternArg: string): { text: string; shownMatches: number } {
  const parts = [header(hit, pattern)];
  let used = parts[0]!.length;
  let shownMatches = 0;
  const groups = groupsOf(hit.matches);
  const to = hit.from + hit.searched;
  for (let g = 0; g < groups.length && g < MAX_GROUPS_PER_OUTPUT; g++) {
    const text = groupText(hit.lines, groups[g]!, hit.from, to);
    if (used + text.length + 4 > budget) break;
    parts.push(g === 0 ? text : `--\n${text}`);
    used += text.length + 4;
    shownMatches += groups[g]!.length;
  }
  const more = hit.matches.length - shownMatches;
  if (more > 0) {
    const next = hit.matches[shownMatches]! + 1;
    const call = `${QUERY_TOOL_NAME}({ toolCallIds: [${JSON.stringify(hit.target.label)}], pattern: ${JSON.stringify(patternArg)}, lines: "${next}-" })`;
    parts.push(`[${more} more ${more === 1 ? "match" : "matches"} not shown, from line ${next}; next: ${call}]`);
  }
  return { text: parts.join("\n"), shownMatches };
}

export interface SearchAnswer {
  text: string;
  /** Per shown label: matches found and matches shown. */
  shown: Map<string, { matches: number; shownMatches: number; chars: number }>;
}

/**
 * The answer text of a search. `named`: the caller named the outputs (each gets a block, matching or not,
 * in the given order); otherwise the whole archive was searched and only ranked matching outputs appear.
 */
export function formatSearch(run: SearchRun, pattern: LinePattern, patternArg: string, named: boolean): SearchAnswer {
  const shown = new Map<string, { matches: number; shownMatches: number; chars: number }>();
  const blocks: string[] = [];
  const hits = named ? run.hits : rankHits(run.hits);
  let budget = SEARCH_CHAR_CAP;
  let cutOutputs = 0;
  let cutMatches = 0;
  hits.forEach((hit, k) => {
    if ((!named && k >= MAX_OUTPUTS_SHOWN) || budget < 200) {
      cutOutputs += 1;
      cutMatches += hit.matches.length;
      return;
    }
    const { text, shownMatches } = outputText(hit, pattern, budget, patternArg);
    blocks.push(text);
    budget -= text.length;
    shown.set(hit.target.label, { matches: hit.matches.length, shownMatches, chars: text.length });
  });
  const lead = named ? [] : [archiveSummary(run, hits, pattern, patternArg)];
  const notes: string[] = [];
  if (cutOutputs > 0) {
    notes.push(`[${cutOutputs} more ${cutOutputs === 1 ? "output" : "outputs"} with ${cutMatches} more ${cutMatches === 1 ? "match" : "matches"} not shown (answer capped at ${SEARCH_CHAR_CAP} characters); name refs or narrow the pattern]`);
  }
  if (run.unsearched > 0) notes.push(`[search stopped after ${SEARCH_TIME_BUDGET_MS / 1000} s: ${run.unsearched} more ${run.unsearched === 1 ? "output was" : "outputs were"} not searched; name refs to search them]`);
  if (named && run.hits.every((hit) => hit.matches.length === 0)) notes.push(literalHint(pattern, patternArg));
  const text = [...lead, ...blocks, ...notes].filter((part) => part !== "").join("\n\n---\n\n");
  return { text, shown };
}

function archiveSummary(run: SearchRun, ranked: OutputHits[], pattern: LinePattern, patternArg: string): string {
  const searched = run.hits.filter((hit) => hit.skipped === undefined).length;
  const outputs = `${searched} archived ${searched === 1 ? "output" : "outputs"}`;
  if (ranked.length === 0) {
    const hint = literalHint(pattern, patternArg);
    return `No archived output of this session matches ${pattern.label} (${outputs} searched).${hint === "" ? "" : ` ${hint}`}`;
  }
  const total = ranked.reduce((n, hit) => n + hit.matches.length, 0);
  return `Search for ${pattern.label} over ${outputs}: ${total} matching ${total === 1 ? "line" : "lines"} in ${ranked.length} ${ranked.length === 1 ? "output" : "outputs"}, most matches first.`;
}

// A literal that looks like it was meant as an expression gets a hint, since it matched nothing.
const LOOKS_LIKE_EXPRESSION = /\.\*|\\[dwsb]|\|\w|\[\w+-\w+\]|\+\)|\w\+|\^\w|\w\$$/;

function literalHint(pattern: LinePattern, patternArg: string): string {
  if (!pattern.label.startsWith("literal ") || !LOOKS_LIKE_EXPRESSION.test(patternArg)) return "";
  return `(The pattern was searched as a literal string; write /${patternArg}/ for a regular expression.)`;
}
