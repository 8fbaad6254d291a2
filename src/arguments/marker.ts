/**
 * The marker a finished call's archived argument string becomes (render phase 1c, stub.ts), and the
 * reading of markers back out of text for the copy guard. Pure.
 *
 * A marker is one line between `⟦` and `⟧` that starts with `pi-condense:`, names the argument, its size in
 * lines and the ref `context_tree_query` gives it back by. Source files rarely hold `⟦`, and a marker is only
 * *live* when it is exactly the text the render makes for an archived argument of this session (`isLiveMarker`).
 */
import { declaredNames } from "../digest/declared-names.js";

export const MARKER_OPEN = "⟦pi-condense:";
export const MARKER_CLOSE = "⟧";

/** A marker-shaped span of text, not yet checked against the archive. */
export interface MarkerCandidate {
  text: string;
  field: string;
  lines: number;
  ref: string;
}

const MARKER_SHAPE = /⟦pi-condense: ([A-Za-z_$][\w$.[\]]{0,80}) archived \((\d{1,9}) lines?\) as (t\d{1,12})[^⟦⟧\n]{0,400}⟧/g;
const NAME_SHAPE = /^[A-Za-z_$][\w$.:-]{0,39}$/;
const DIGEST_NAMES = 4;
/** Names read from at most this many lines of each side, so a huge write does not slow the render. */
const DIGEST_SCAN_LINES = 400;

/** Lines of a text as an editor counts them: a final newline ends the last line rather than starting one. */
export function lineCount(text: string): number {
  if (text === "") return 0;
  let lines = 1;
  let at = text.indexOf("\n");
  while (at !== -1) {
    lines++;
    at = text.indexOf("\n", at + 1);
  }
  return text.endsWith("\n") ? lines - 1 : lines;
}

/** The marker text for one archived argument; `digest`, when given, says what the change did. */
export function argumentMarker(field: string, text: string, ref: string, digest?: string): string {
  const lines = lineCount(text);
  const tail = digest === undefined || digest === "" ? "" : `, ${digest}`;
  return `${MARKER_OPEN} ${field} archived (${lines} ${lines === 1 ? "line" : "lines"}) as ${ref}${tail}${MARKER_CLOSE}`;
}

/** What an edit's replacement did: lines removed and added, and the names either side declares. */
export function editDigest(oldText: string, newText: string): string {
  const names = touchedNames([oldText, newText]);
  const counts = `-${lineCount(oldText)} +${lineCount(newText)} lines`;
  return names.length === 0 ? counts : `${counts}, touches ${names.join(" ")}`;
}

/** What a whole-file write declares. */
export function writeDigest(content: string): string {
  const names = touchedNames([content]);
  return names.length === 0 ? "" : `declares ${names.join(" ")}`;
}

function touchedNames(texts: string[]): string[] {
  const seen = new Set<string>();
  for (const text of texts) {
    const lines = headLines(text, DIGEST_SCAN_LINES);
    for (const name of declaredNames(lines, DIGEST_NAMES)) {
      if (NAME_SHAPE.test(name)) seen.add(name);
      if (seen.size === DIGEST_NAMES) return [...seen];
    }
  }
  return [...seen];
}

function headLines(text: string, max: number): string[] {
  const lines: string[] = [];
  let start = 0;
  while (lines.length < max && start <= text.length) {
    const end = text.indexOf("\n", start);
    if (end === -1) {
      lines.push(text.slice(start));
      break;
    }
    lines.push(text.slice(start, end));
    start = end + 1;
  }
  return lines;
}

/** Every marker-shaped span of a text, in order. */
export function markerCandidates(text: string): MarkerCandidate[] {
  if (!text.includes(MARKER_OPEN)) return [];
  const found: MarkerCandidate[] = [];
  for (const match of text.matchAll(MARKER_SHAPE)) {
    found.push({ text: match[0], field: match[1]!, lines: Number(match[2]), ref: match[3]! });
  }
  return found;
}
