/**
 * Searches and listings: pi's `grep`, `find` and `ls` tools, and shell
 * commands whose first program searches or lists (`grep`, `rg`, `git grep`,
 * `find`, `fd`, `ls`, `tree`, ...). Their digest is the match count and the
 * files matched, ranked by matches (then first seen), each with its first
 * line numbers when the output gives them. Pure.
 */
import { factLine } from "./outcome-facts.js";

const SEARCH_TOOLS: ReadonlySet<string> = new Set(["grep", "find", "ls", "glob"]);
const MATCH_PROGRAMS: ReadonlySet<string> = new Set(["grep", "egrep", "fgrep", "rg", "ag", "ack", "git-grep"]);
const LIST_PROGRAMS: ReadonlySet<string> = new Set(["find", "fd", "ls", "tree", "locate", "git-ls-files"]);
const LINES_PER_FILE = 3;
const MAX_FILES = 64;
const LINE_MAX = 2_000;

// `path:12: text` (pi's grep, grep -n), `path-12- text` (context lines), `path:text` (grep without -n).
const FILE_LINE = /^(.+?):(\d{1,7})[:-]/;
const CONTEXT_LINE = /^(.+?)-(\d{1,7})-/;
const NUMBER_ONLY = /^(\d{1,7})[:-]/;
const FILE_ONLY = /^([^\s:][^:]{0,300}):/;
const PATH_LIKE = /\/|\.[A-Za-z]\w{0,9}$/;
const PI_NOTE = /^\[.*(limit reached|truncated|Showing )/;
const QUIET = /^(--|No matches found|No files found matching pattern|\(empty directory\)|Binary file .* matches)$/;

export type SearchKind = "match" | "list";

const PREFIX_WORDS: ReadonlySet<string> = new Set(["sudo", "env", "time", "command"]);
const ASSIGNMENT = /^\w+=/;
const LEADING_WORDS = /^\s*(\S+)(?:\s+(\S+))?/;

/** The program a shell command runs first, past `cd` steps, variable assignments and `sudo`/`env`/`time`. */
function firstProgram(command: string): string | undefined {
  const lead = LEADING_WORDS.exec(command);
  // Most commands open with their program: no step to skip, nothing to split.
  if (lead && lead[1] !== "cd" && !PREFIX_WORDS.has(lead[1]!) && !ASSIGNMENT.test(lead[1]!)) return programOf(lead[1]!, lead[2]);
  for (const step of command.split(/&&|\|\||;/)) {
    const words = step.split("|")[0]!.trim().split(/\s+/).filter((w) => w !== "" && !ASSIGNMENT.test(w) && !PREFIX_WORDS.has(w));
    if (words.length === 0 || words[0] === "cd") continue;
    return programOf(words[0]!, words[1]);
  }
  return undefined;
}

function programOf(word: string, next: string | undefined): string {
  const program = word.slice(word.lastIndexOf("/") + 1).replace(/[;|&]+$/, "");
  return program === "git" && next !== undefined ? `git-${next}` : program;
}

export function searchKind(toolName: string, args: Record<string, unknown>): SearchKind | undefined {
  if (SEARCH_TOOLS.has(toolName)) return toolName === "grep" ? "match" : "list";
  if (typeof args.command !== "string") return undefined;
  const program = firstProgram(args.command);
  if (program === undefined) return undefined;
  return MATCH_PROGRAMS.has(program) ? "match" : LIST_PROGRAMS.has(program) ? "list" : undefined;
}

function counted(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

interface MatchTally {
  matches: number;
  files: Map<string, number[]>;
  counts: Map<string, number>;
  lines: number[];
  texts: string[];
}

function tallyLine(tally: MatchTally, line: string): void {
  if (CONTEXT_LINE.test(line) && !FILE_LINE.test(line)) return;
  tally.matches++;
  const withLine = FILE_LINE.exec(line);
  const file = withLine?.[1] ?? (NUMBER_ONLY.test(line) ? undefined : FILE_ONLY.exec(line)?.[1]);
  const number = withLine ? Number(withLine[2]) : Number(NUMBER_ONLY.exec(line)?.[1] ?? Number.NaN);
  tally.texts.push(line.slice((withLine?.[0] ?? NUMBER_ONLY.exec(line)?.[0] ?? (file === undefined ? "" : `${file}:`)).length));
  if (file === undefined || !PATH_LIKE.test(file)) {
    if (!Number.isNaN(number) && tally.lines.length < LINES_PER_FILE) tally.lines.push(number);
    return;
  }
  tally.counts.set(file, (tally.counts.get(file) ?? 0) + 1);
  const lines = tally.files.get(file);
  if (lines === undefined) {
    if (tally.files.size < MAX_FILES) tally.files.set(file, Number.isNaN(number) ? [] : [number]);
  } else if (!Number.isNaN(number) && lines.length < LINES_PER_FILE) lines.push(number);
}

/** A digest's opening and its ranked items for a search or listing; `texts` are the matched lines' own text. */
export function searchDigest(kind: SearchKind, text: string): { head: string; items: string[]; texts: string[] } {
  const lines = text.split("\n").filter((line) => line.trim() !== "" && line.length <= LINE_MAX && !PI_NOTE.test(line) && !QUIET.test(line.trim()));
  if (kind === "list") return { head: counted(lines.length, "entry", "entries"), items: lines.map((line) => factLine(line)), texts: [] };
  const tally: MatchTally = { matches: 0, files: new Map(), counts: new Map(), lines: [], texts: [] };
  for (const line of lines) tallyLine(tally, line);
  const ranked = [...tally.files].sort((a, b) => (tally.counts.get(b[0]) ?? 0) - (tally.counts.get(a[0]) ?? 0));
  const items = ranked.map(([file, numbers]) => factLine(numbers.length === 0 ? file : `${file}:${numbers.join(",")}`));
  if (tally.files.size === 0 && tally.lines.length > 0) items.push(`lines ${tally.lines.join(",")}`);
  const where = tally.files.size > 0 ? ` in ${counted(tally.files.size, "file", "files")}` : "";
  return { head: `${counted(tally.matches, "match", "matches")}${where}`, items, texts: tally.texts };
}
