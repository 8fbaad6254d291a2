/**
 * The identifiers a text names, as an agent uses them to act on what a tool output showed (issue 26 item 5,
 * issue 34): a path (a token with a `/` between two names, `src/a.ts`, `/repo/src/a.ts`, or a dotted file
 * name right before `:<line>`), a called symbol (a name of two or more characters right before `(`), an
 * exception name (a capitalized name ending in `Error` or `Exception`), a line number (the N of `line N` and
 * of `file:N`). Texts are matched as whole tokens: a name or number not inside a longer one, a path not inside
 * a longer name (`models/a.py` is found inside `/repo/models/a.py`: the same file named from another folder).
 * A path also stands for its shorter tails (`repo/models/a.py`, `models/a.py`, `a.py`); a run of path characters
 * longer than 1,024 is not read for one. Linear in the text's length. Pure.
 */

export type IdentifierKind = "path" | "symbol" | "exception" | "line";

export interface Identifier {
  kind: IdentifierKind;
  text: string;
}

// Paths are looked for inside runs of the characters a path or `file:line` is made of: unanchored, the two
// patterns would backtrack over a long run quadratically (a 10 MB line of letters took minutes).
const PATH_RUN = /[\w.@+~\/:-]+/g;
/** A run longer than this is data (base64, a minified line), not a path anyone types. */
const MAX_PATH_RUN = 1024;
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
  for (const [token] of text.matchAll(PATH_RUN)) {
    if (token.length > MAX_PATH_RUN) continue;
    for (const m of token.matchAll(PATH)) add("path", pathTails(cleanPath(m[0])));
    for (const m of token.matchAll(FILE_LINE)) {
      add("path", pathTails(cleanPath(m[1]!)));
      add("line", [m[2]!]);
    }
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

export function lastTokenAt(haystack: string, text: string, kind: IdentifierKind): number {
  for (let at = haystack.lastIndexOf(text); at >= 0; at = at === 0 ? -1 : haystack.lastIndexOf(text, at - 1)) if (tokenAt(haystack, text, at, kind)) return at;
  return -1;
}

export function firstTokenAt(haystack: string, text: string, kind: IdentifierKind): number {
  for (let at = haystack.indexOf(text); at >= 0; at = haystack.indexOf(text, at + 1)) if (tokenAt(haystack, text, at, kind)) return at;
  return -1;
}

