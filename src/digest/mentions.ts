/**
 * What an output mentions that the agent may look up next, ranked: reported
 * exception names (`ValueError: bad` opening a line, not `except ValueError:`),
 * `file:line` locations (Python's `File "x", line N` frames too), the names the
 * text declares, and called symbols (`name(`), taken one from each kind in
 * turn so no kind crowds out the others when a digest has room for a few;
 * then paths named without a line, the least specific pointer. Each kind keeps
 * its order (first mention; calls by how often they occur). Whatever the
 * call's own arguments already say is left out: the agent wrote it. Scanning
 * is linear in the text: one pass over the tokens of a bounded window, regular
 * expressions only on bounded tokens and lines. Pure. */
import { declaredNames } from "./declared-names.js";
import { ANSI, factLine } from "./outcome-facts.js";

/** How much of a long output is read: its head and its tail (tracebacks and totals come last). */
const HEAD_CHARS = 60_000;
const TAIL_CHARS = 20_000;
const GROUP_MAX = 64;
const TOKEN_MAX = 300;
const LINES_PER_LOCATION = 3;

const FRAME = /File "([^"\n]{1,300})", line (\d{1,7})/g;
const NAME = /^[A-Za-z_]\w*$/;
const EXCEPTION = /^[A-Z]\w*(?:Error|Exception)$/;
const LOCATION = /^(.*[^:]):(\d{1,7})(?::\d{1,7})?$/;
const FILE_NAME = /\.[A-Za-z]\w{0,9}$/;
const LETTER = /[A-Za-z]/;
const WORD = /[A-Za-z_]\w*/g;
// pi's own notes after an output (bash and read truncation) name a temp file, not something the program said.
const PI_NOTE = /\n\n\[(?:Showing |\d+ more lines in file)[^\n]*\]\s*$/;

/** The part of a long text that is read, colour escapes out (they split names). */
export function scanWindow(text: string): string {
  const body = text.includes("\n\n[") ? text.replace(PI_NOTE, "") : text;
  const window = body.length <= HEAD_CHARS + TAIL_CHARS ? body : `${body.slice(0, HEAD_CHARS)}\n${body.slice(-TAIL_CHARS)}`;
  return window.includes("\u001b") ? window.replace(ANSI, "") : window;
}

class Found {
  readonly exceptions = new Set<string>();
  readonly locations = new Map<string, number[]>();
  readonly paths = new Set<string>();
  readonly calls = new Map<string, number>();
  private words: Set<string> | undefined;

  constructor(private readonly knownText: string) {}

  /** The words of the call's arguments, read when a name first needs checking. */
  get knownWords(): Set<string> {
    this.words ??= new Set(this.knownText.match(WORD) ?? []);
    return this.words;
  }

  exception(name: string): void {
    if (this.exceptions.size < GROUP_MAX && !this.knownWords.has(name)) this.exceptions.add(name);
  }

  location(path: string, line: number): void {
    if (this.knownText.includes(`${path}:${line}`)) return;
    const lines = this.locations.get(path);
    if (lines === undefined) {
      if (this.locations.size < GROUP_MAX) this.locations.set(path, [line]);
    } else if (lines.length < LINES_PER_LOCATION && !lines.includes(line)) lines.push(line);
  }

  path(path: string): void {
    if (this.paths.size < GROUP_MAX && isFilePath(path) && !this.knownText.includes(path)) this.paths.add(path);
  }

  isEmpty(): boolean {
    return this.exceptions.size === 0 && this.locations.size === 0 && this.paths.size === 0 && this.calls.size === 0;
  }

  call(name: string): void {
    if (this.knownWords.has(name)) return;
    const count = this.calls.get(name);
    if (count !== undefined) this.calls.set(name, count + 1);
    else if (this.calls.size < GROUP_MAX * 4) this.calls.set(name, 1);
  }
}

/**
 * A token with a slash names a file when it ends in a file name (`a/b.py`), starts where paths start
 * (`/`, `./`, `../`, `~/`) or has three segments or more; `text/plain`, `and/or` and `HTTP/2` do not.
 */
function isFilePath(path: string): boolean {
  if (!LETTER.test(path)) return false;
  const segments = path.split("/").filter((segment) => segment !== "");
  if (segments.length < 2 && !FILE_NAME.test(path)) return false;
  return FILE_NAME.test(segments[segments.length - 1]!) || /^(\/|\.{1,2}\/|~\/)/.test(path) || segments.length >= 3;
}

function trimPath(token: string): string {
  return token.replace(/^[-:]+/, "").replace(/[.:,-]+$/, "");
}

// Code that names an exception without reporting one.
const CODE_WORDS: ReadonlySet<string> = new Set(["except", "catch", "raise", "throw", "throws", "class", "def", "import", "from", "if", "elif", "return", "new"]);

const DOT = 46;
const SLASH = 47;
const COLON = 58;
const OPEN_PAREN = 40;
const NEWLINE = 10;

function isSeparator(code: number): boolean {
  return code === DOT || code === COLON || code === SLASH;
}

/** The last name of a dotted, scoped or path-like token (`a.b.C:` gives `C`). */
function lastSegment(token: string): string {
  let end = token.length;
  while (end > 0 && isSeparator(token.charCodeAt(end - 1))) end--;
  let start = end;
  while (start > 0 && !isSeparator(token.charCodeAt(start - 1))) start--;
  return token.slice(start, end);
}

/**
 * One token and the character code after it (NaN at the end); `reports` says whether an exception name
 * here is the line's report (`ValueError: bad`, not `except ValueError:`).
 */
function readToken(found: Found, token: string, next: number, reports: boolean): void {
  if (token.length > TOKEN_MAX) return;
  if (token.includes("Error") || token.includes("Exception")) {
    const last = lastSegment(token);
    if (EXCEPTION.test(last)) {
      if (reports && (Number.isNaN(next) || next === NEWLINE || token.endsWith(":"))) found.exception(last);
      else found.call(last);
      return;
    }
  }
  if (next === OPEN_PAREN) {
    const last = lastSegment(token);
    if (last.length >= 2 && NAME.test(last)) found.call(last);
  }
  // Only a token with a slash, or a dot and a colon (`a.py:3`), can name a file.
  if (!token.includes("/") && !(token.includes(":") && token.includes("."))) return;
  const path = trimPath(token.split("::")[0]!);
  const location = LOCATION.exec(path);
  if (location && (location[1]!.includes("/") || FILE_NAME.test(location[1]!))) found.location(location[1]!, Number(location[2]));
  else if (path.includes("/") && next !== OPEN_PAREN) found.path(path);
}

// The characters of a token: names, paths, `file:line`, dotted and scoped names.
const TOKEN_CHAR = new Uint8Array(128);
for (const ch of "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.@+~/:-") TOKEN_CHAR[ch.charCodeAt(0)] = 1;

function isTokenChar(code: number): boolean {
  return code < 128 && TOKEN_CHAR[code] === 1;
}

/**
 * One pass over the tokens, by character codes (a regular expression per token costs several times more
 * on a turn of many small outputs); a line's first two tokens may report an exception.
 */
function readTokens(found: Found, window: string): void {
  let index = 0;
  let reportable = false;
  let at = 0;
  while (at < window.length) {
    const code = window.charCodeAt(at);
    if (code === NEWLINE) index = 0;
    if (!isTokenChar(code)) {
      at++;
      continue;
    }
    let end = at + 1;
    while (end < window.length && isTokenChar(window.charCodeAt(end))) end++;
    const token = window.slice(at, end);
    if (index === 0) reportable = !CODE_WORDS.has(token);
    readToken(found, token, window.charCodeAt(end), reportable && index < 2);
    index++;
    at = end;
  }
}

/** The identifiers an output mentions, ranked, each as the text a digest shows (`path:12,40` for a location). */
export function rankedMentions(text: string, known: string): string[] {
  const window = scanWindow(text);
  const found = new Found(known);
  if (window.includes('File "')) for (const frame of window.matchAll(FRAME)) found.location(factLine(frame[1]!), Number(frame[2]));
  readTokens(found, window);
  const declared = declaredNames(window.split("\n"), GROUP_MAX).filter((name) => !found.knownWords.has(name));
  if (declared.length === 0 && found.isEmpty()) return [];
  const declaredSet = new Set(declared);
  const locations = [...found.locations].map(([path, lines]) => `${path}:${lines.join(",")}`);
  const paths = [...found.paths].filter((path) => !found.locations.has(path));
  const calls = [...found.calls]
    .filter(([name]) => !declaredSet.has(name) && !found.exceptions.has(name))
    .sort((a, b) => b[1] - a[1])
    .map(([name]) => name);
  return [...roundRobin([[...found.exceptions], locations, declared, calls]), ...paths];
}

function roundRobin(groups: string[][]): string[] {
  const out: string[] = [];
  const longest = Math.max(0, ...groups.map((group) => group.length));
  for (let i = 0; i < longest; i++) for (const group of groups) if (i < group.length) out.push(group[i]!);
  return out;
}
