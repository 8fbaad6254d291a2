/**
 * The identifiers an agent learned from one tool output and used in a later command (issue 26 item 5),
 * for the retention benchmark. An identifier is one of:
 * - a path: a token with a `/` between two names (`src/a.ts`, `/repo/src/a.ts`), or a dotted file name
 *   right before `:<line>` (`a.py:12`);
 * - a called symbol: a name of two or more characters right before `(` (`collect(`, `self.collect(`);
 * - an exception name: a capitalized name ending in `Error` or `Exception`;
 * - a line number: the N of `line N` and of `file:N`.
 * It counts for an output when its text appears in that output, not in the task nor in any command up to
 * and including the output's own, and in some later command. Texts are matched as whole tokens: a name
 * or number not inside a longer one, a path not inside a longer name (`models/a.py` is found inside
 * `/repo/models/a.py`: the same file named from another folder). A path also stands for its shorter
 * tails (`repo/models/a.py`, `models/a.py`, `a.py`), and the longest tail used later is the one counted.
 * Pure; nothing here knows the corpus.
 */

export type IdentifierKind = "path" | "symbol" | "exception" | "line";

export interface Identifier {
  kind: IdentifierKind;
  text: string;
}

/** One agent run: what the agent was told, then each command with its output. */
export interface Trajectory {
  task: string;
  steps: Array<{ command: string; output: string }>;
}

const PATH = /(?:\/|\.{1,2}\/)?[\w.@+~-]+(?:\/[\w.@+~-]+)+/g;
const FILE_LINE = /([\w.@+~/-]*\.[A-Za-z]\w*):(\d+)/g;
const SYMBOL = /\b([A-Za-z_]\w+)\(/g;
const EXCEPTION = /\b([A-Z]\w*(?:Error|Exception))\b/g;
const LINE = /\b[Ll]ine (\d+)\b/g;
const WORD_CHAR = /[A-Za-z0-9_]/;
// A path may follow a `/` (a longer spelling of the same file) and precede a `.` (the end of a sentence).
const PATH_BEFORE = /[\w.@+~-]/;
const PATH_AFTER = /[\w/@+~-]/;

/** A path's tails, longest first: the path without its leading slash, then from each later segment on. */
function pathTails(path: string): string[] {
  const parts = path.replace(/^(\.{0,2}\/)+/, "").split("/").filter((part) => part !== "" && part !== "." && part !== "..");
  const tails: string[] = [];
  if (!path.startsWith("./") && !path.startsWith("../")) tails.push(path);
  for (let i = 0; i < parts.length; i++) {
    const tail = parts.slice(i).join("/");
    if (tail !== path && (i < parts.length - 1 || tail.includes("."))) tails.push(tail);
  }
  return tails.filter((tail) => /[A-Za-z]/.test(tail));
}

function cleanPath(raw: string): string {
  return raw.replace(/[.-]+$/, "");
}

/** Each identifier occurrence of a text as the texts that may stand for it, longest first. */
export function identifierCandidates(text: string): Array<{ kind: IdentifierKind; texts: string[] }> {
  const found = new Map<string, { kind: IdentifierKind; texts: string[] }>();
  const add = (kind: IdentifierKind, texts: string[]) => {
    if (texts.length > 0 && !found.has(`${kind}\u0000${texts[0]}`)) found.set(`${kind}\u0000${texts[0]}`, { kind, texts });
  };
  for (const m of text.matchAll(PATH)) add("path", pathTails(cleanPath(m[0])));
  for (const m of text.matchAll(FILE_LINE)) {
    add("path", pathTails(cleanPath(m[1]!)));
    add("line", [m[2]!]);
  }
  for (const m of text.matchAll(SYMBOL)) add("symbol", [m[1]!]);
  for (const m of text.matchAll(EXCEPTION)) add("exception", [m[1]!]);
  for (const m of text.matchAll(LINE)) add("line", [m[1]!]);
  return [...found.values()];
}

/** Whether `text` at `at` is a whole token: a path not inside a longer name, a word not inside a longer word. */
function tokenAt(haystack: string, text: string, at: number, kind: IdentifierKind): boolean {
  const before = haystack[at - 1];
  const after = haystack[at + text.length];
  if (kind === "path") return !(before !== undefined && PATH_BEFORE.test(before)) && !(after !== undefined && PATH_AFTER.test(after));
  return !(before !== undefined && WORD_CHAR.test(before)) && !(after !== undefined && WORD_CHAR.test(after));
}

export function containsToken(haystack: string, text: string, kind: IdentifierKind): boolean {
  for (let at = haystack.indexOf(text); at >= 0; at = haystack.indexOf(text, at + 1)) if (tokenAt(haystack, text, at, kind)) return true;
  return false;
}

function lastTokenAt(haystack: string, text: string, kind: IdentifierKind): number {
  for (let at = haystack.lastIndexOf(text); at >= 0; at = at === 0 ? -1 : haystack.lastIndexOf(text, at - 1)) if (tokenAt(haystack, text, at, kind)) return at;
  return -1;
}

function firstTokenAt(haystack: string, text: string, kind: IdentifierKind): number {
  for (let at = haystack.indexOf(text); at >= 0; at = haystack.indexOf(text, at + 1)) if (tokenAt(haystack, text, at, kind)) return at;
  return -1;
}

/** The commands of a trajectory in one string, with where each starts, so one search answers "which command first/last". */
class CommandIndex {
  readonly all: string;
  private readonly starts: number[] = [];

  constructor(commands: string[]) {
    let at = 0;
    for (const command of commands) {
      this.starts.push(at);
      at += command.length + 1;
    }
    this.all = commands.join("\n");
  }

  /** The index of the command holding position `at`. */
  commandAt(at: number): number {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= at) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}

/** For each step, the identifiers its output taught the agent and a later command used. */
export function learnedIdentifiers(trajectory: Trajectory): Identifier[][] {
  const commands = new CommandIndex(trajectory.steps.map((step) => step.command));
  return trajectory.steps.map((step, i) => {
    const learned: Identifier[] = [];
    const seen = new Set<string>();
    for (const { kind, texts } of identifierCandidates(step.output)) {
      const used = texts.find((text) => {
        const last = lastTokenAt(commands.all, text, kind);
        return last >= 0 && commands.commandAt(last) > i;
      });
      if (used === undefined || seen.has(`${kind}\u0000${used}`)) continue;
      const first = firstTokenAt(commands.all, used, kind);
      if (commands.commandAt(first) <= i || containsToken(trajectory.task, used, kind)) continue;
      seen.add(`${kind}\u0000${used}`);
      learned.push({ kind, text: used });
    }
    return learned;
  });
}

/** How many of the identifiers a stub keeps: each one whose text the stub holds as a token. */
export function keptBy(stub: string, identifiers: Identifier[]): number {
  return identifiers.filter((id) => containsToken(stub, id.text, id.kind)).length;
}
