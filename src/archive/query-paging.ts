/**
 * Paging through a recovered body: the optional `lines` range of
 * `context_tree_query`, and the head truncation every answer gets, with a
 * ready-made call for the next page. Pure.
 */
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, truncateHead } from "@earendil-works/pi-coding-agent";
import { QUERY_TOOL_NAME } from "../names.js";

/** 1-based, inclusive; `last` absent means to the end; `tail` (with `first` 1) means the last `tail` lines. */
export interface LineRange {
  first: number;
  last?: number;
  tail?: number;
  /** As the caller wrote it, for notes. */
  text: string;
}

export type ParsedRange = { range?: LineRange } | { error: string };

const RANGE = /^(\d+)\s*-\s*(\d*)$/;
const COUNT = /^(head|tail)\s*:\s*(\d+)$/i;
const RANGE_HELP = 'use "A-B" or "A-" with 1-based line numbers, e.g. "2001-4000", or "head:N" / "tail:N" for the first or last N lines';

/** `undefined` and blank mean no range; anything else must be `A-B`, `A-`, `head:N` or `tail:N`. */
export function parseLineRange(value: string | undefined): ParsedRange {
  if (value === undefined) return {};
  const text = value.trim();
  if (text === "") return {};
  const count = COUNT.exec(text);
  if (count !== null) {
    const n = Number(count[2]);
    if (!Number.isSafeInteger(n) || n < 1) return { error: `[lines ${JSON.stringify(text)} is not a line range: ${RANGE_HELP}]` };
    return { range: count[1]!.toLowerCase() === "head" ? { first: 1, last: n, text } : { first: 1, tail: n, text } };
  }
  const match = RANGE.exec(text);
  const first = match ? Number(match[1]) : Number.NaN;
  const last = match?.[2] ? Number(match[2]) : undefined;
  if (!Number.isSafeInteger(first) || first < 1 || (last !== undefined && (!Number.isSafeInteger(last) || last < first))) {
    return { error: `[lines ${JSON.stringify(text)} is not a line range: ${RANGE_HELP}]` };
  }
  return { range: last === undefined ? { first, text } : { first, last, text } };
}

export interface Page {
  /** The shown part of the body, with its truncation note and next-page call when cut. */
  body: string;
  /** The selected text before truncation (where image markers are looked up); "" when nothing was selected. */
  selected: string;
  /** `Lines: A-B of N`, only when a range was asked for and selected something. */
  linesHeader?: string;
  /** Present when the selection was cut to the 2000-line / 50 KiB page. */
  truncated?: true;
}

/** Lines as `truncateHead` counts them: a trailing newline does not start another line. */
export function countableLines(text: string): string[] {
  if (text.length === 0) return [];
  const lines = text.split("\n");
  if (text.endsWith("\n")) lines.pop();
  return lines;
}

/** The 1-based, inclusive lines a range selects of a body of `total` lines; `first > total` when it starts past the end. */
export function rangeBounds(range: LineRange, total: number): { first: number; last: number } {
  if (range.tail !== undefined) return { first: Math.max(1, total - range.tail + 1), last: total };
  return { first: range.first, last: Math.min(range.last ?? total, total) };
}

/** The note for a range that selects nothing of a body of `total` lines. */
export function pastTheEnd(range: LineRange, total: number): string {
  const size = total === 1 ? "1 line" : `${total} lines`;
  return `[lines ${JSON.stringify(range.text)} starts past the end: this output has ${size}]`;
}

/** The page of `text` that `range` selects, cut like every answer; `ref` names the record in the next-page call. */
export function pageOf(text: string, range: LineRange | undefined, ref: string): Page {
  if (range === undefined) return { ...truncated(text, 1, ref), selected: text };
  const lines = countableLines(text);
  const total = lines.length;
  const { first, last } = rangeBounds(range, total);
  if (first > total) return { body: pastTheEnd(range, total), selected: "" };
  const tail = last === total && text.endsWith("\n") ? "\n" : "";
  const selected = lines.slice(first - 1, last).join("\n") + tail;
  return { ...truncated(selected, first, ref), selected, linesHeader: `Lines: ${first}-${last} of ${total}` };
}

/** Head truncation of a selection starting at line `first` of the body. */
function truncated(selected: string, first: number, ref: string): { body: string; truncated?: true } {
  const result = truncateHead(selected, { maxLines: DEFAULT_MAX_LINES, maxBytes: DEFAULT_MAX_BYTES });
  if (!result.truncated) return { body: result.content };
  const last = first + result.totalLines - 1;
  const notes = [result.content, `[Output truncated: ${result.outputLines}/${result.totalLines} lines shown]`];
  let next = first + result.outputLines;
  if (result.outputLines === 0) {
    notes.push(`Line ${first} alone is larger than ${DEFAULT_MAX_BYTES / 1024} KiB and cannot be shown.`);
    next = first + 1;
  }
  if (next <= last) notes.push(`Next: ${QUERY_TOOL_NAME}({ toolCallIds: [${JSON.stringify(ref)}], lines: "${next}-${last}" })`);
  return { body: notes.join("\n"), truncated: true };
}
