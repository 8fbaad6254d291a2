/**
 * The files a `bash` command reads or writes, when they can be told from its text: the plain readers (`cat`,
 * `head`, `tail`, `sed -n`, `nl`, also at the head of a pipe into one of them), the writers (`>`, `>>`, `tee`,
 * `sed -i`), each segment of `&&`, `||`, `;` and `|` apart, a leading `cd DIR` joined to the relative paths
 * after it, here-document bodies skipped. A command that cannot be read (an open quote, `$(...)`, a glob)
 * touches nothing it cannot name; nothing here throws. Pure.
 */

/** What a command did to a file, as far as its text says. */
export interface ShellTouch {
  /** As written, joined to a `cd` before it. */
  path: string;
  /** `view`: its output shows the file's text; `write`: it replaced it (`>`, `tee`); `edit`: it changed it in place or appended to it. */
  kind: "view" | "write" | "edit";
}

/** The programs whose output is the text of the files they name (all of it or some lines). */
const VIEWERS = new Set(["cat", "head", "tail", "nl", "sed"]);
/** Programs a viewer's output may be piped through and still show the file's lines. */
const PASS_THROUGH = new Set(["head", "tail", "sed", "nl", "cat", "less", "more"]);
const OPERATOR = /^(&&|\|\||;|\||&)$/;
/** A word that is surely no file: an option, an expansion, a glob, a descriptor, a device. */
const NOT_A_FILE = /^-|[$*?[\]{}`]|^&\d?$|^\/dev\//;
/** Words of more than this many characters are not read as paths (a script passed inline). */
const MAX_PATH_CHARS = 4096;

interface Segment {
  words: string[];
  /** `> FILE` targets, and `>> FILE` ones. */
  writes: string[];
  appends: string[];
}

type Token = { word: string } | { op: string } | { redirect: ">" | ">>" | "<" | "<<" };

/** Every file the command names as read or written; [] when it names none it can be sure of. */
export function shellTouches(command: string): ShellTouch[] {
  if (typeof command !== "string" || command.length === 0) return [];
  let tokens: Token[];
  try {
    tokens = tokenize(stripHeredocBodies(command));
  } catch {
    return [];
  }
  const touches: ShellTouch[] = [];
  let cwd: string | undefined;
  let pipeline: Segment[] = [];
  const closePipeline = () => {
    touches.push(...pipelineTouches(pipeline, cwd));
    cwd = nextCwd(pipeline, cwd);
    pipeline = [];
  };
  let current: Segment = { words: [], writes: [], appends: [] };
  let pendingRedirect: string | undefined;
  for (const token of tokens) {
    if ("word" in token) {
      if (pendingRedirect === ">") current.writes.push(token.word);
      else if (pendingRedirect === ">>") current.appends.push(token.word);
      else if (pendingRedirect === undefined) current.words.push(token.word);
      pendingRedirect = undefined;
      continue;
    }
    if ("redirect" in token) {
      pendingRedirect = token.redirect;
      continue;
    }
    pendingRedirect = undefined;
    pipeline.push(current);
    current = { words: [], writes: [], appends: [] };
    if (token.op !== "|") closePipeline();
  }
  pipeline.push(current);
  closePipeline();
  return dedupe(touches);
}

function dedupe(touches: ShellTouch[]): ShellTouch[] {
  const seen = new Set<string>();
  return touches.filter((t) => {
    const key = `${t.kind}\u0000${t.path}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** A `cd DIR` alone in its segment sets where the next segments' relative paths start. */
function nextCwd(pipeline: Array<{ words: string[] }>, cwd: string | undefined): string | undefined {
  if (pipeline.length !== 1) return cwd;
  const words = pipeline[0]!.words;
  if (words[0] !== "cd" || words.length !== 2 || NOT_A_FILE.test(words[1]!) || words[1] === "~") return cwd;
  return joined(cwd, words[1]!);
}

function joined(cwd: string | undefined, path: string): string {
  if (cwd === undefined || path.startsWith("/")) return path;
  return `${cwd.replace(/\/+$/, "")}/${path}`;
}

function pipelineTouches(pipeline: Segment[], cwd: string | undefined): ShellTouch[] {
  const touches: ShellTouch[] = [];
  const file = (path: string) => (plausiblePath(path) ? joined(cwd, path) : undefined);
  pipeline.forEach((segment, i) => {
    for (const target of segment.writes) {
      const path = file(target);
      if (path !== undefined) touches.push({ path, kind: "write" });
    }
    for (const target of segment.appends) {
      const path = file(target);
      if (path !== undefined) touches.push({ path, kind: "edit" });
    }
    const [program, ...args] = segment.words;
    if (program === undefined) return;
    if (program === "tee") for (const arg of args) {
      const path = file(arg);
      if (path !== undefined && !arg.startsWith("-")) touches.push({ path, kind: "write" });
    }
    if (program === "sed" && args.some((a) => /^-i/.test(a) || a === "--in-place")) {
      for (const path of operands(program, args)) if (file(path) !== undefined) touches.push({ path: file(path)!, kind: "edit" });
      return;
    }
    // Only the head of a pipeline reads files by name; a viewer's lines survive only a pass-through after it.
    if (i > 0 || !VIEWERS.has(program)) return;
    if (program === "sed" && !args.includes("-n")) return;
    const shown = pipeline.slice(1).every((next) => PASS_THROUGH.has(next.words[0] ?? ""));
    if (!shown) return;
    for (const path of operands(program, args)) {
      const full = file(path);
      if (full !== undefined) touches.push({ path: full, kind: "view" });
    }
  });
  return touches;
}

/** The file operands of a viewer: its words after the options (and after `sed`'s script). */
function operands(program: string, args: string[]): string[] {
  const out: string[] = [];
  let scriptTaken = program !== "sed";
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "-n" && (program === "head" || program === "tail")) {
      i++;
      continue;
    }
    if (arg === "-e" && program === "sed") {
      i++;
      scriptTaken = true;
      continue;
    }
    if (arg.startsWith("-") && arg !== "-") continue;
    if (!scriptTaken) {
      scriptTaken = true;
      continue;
    }
    out.push(arg);
  }
  return out;
}

function plausiblePath(word: string): boolean {
  return word.length > 0 && word.length <= MAX_PATH_CHARS && !NOT_A_FILE.test(word) && !/\s/.test(word) && word !== "." && word !== "..";
}

/** The command without the bodies of its here-documents (`<<EOF` ... `EOF`), which are data, not commands. */
function stripHeredocBodies(command: string): string {
  const lines = command.split("\n");
  const out: string[] = [];
  const pending: string[] = [];
  for (const line of lines) {
    if (pending.length > 0) {
      if (line.replace(/^\t+/, "").trimEnd() === pending[0]) pending.shift();
      continue;
    }
    out.push(line);
    for (const match of line.matchAll(/<<-?\s*(['"]?)([A-Za-z_][\w-]*)\1/g)) pending.push(match[2]!);
  }
  return out.join("\n");
}

/** Words, operators and redirections, quotes resolved; throws on an open quote (the caller touches nothing then). */
function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let word: string | undefined;
  const flush = () => {
    if (word !== undefined) tokens.push({ word });
    word = undefined;
  };
  for (let i = 0; i < text.length; ) {
    const ch = text[i]!;
    if (ch === " " || ch === "\t") {
      flush();
      i++;
    } else if (ch === "\n") {
      flush();
      tokens.push({ op: ";" });
      i++;
    } else if (ch === "'" || ch === '"') {
      const close = text.indexOf(ch, i + 1);
      if (close < 0) throw new Error("open quote");
      word = (word ?? "") + text.slice(i + 1, close);
      i = close + 1;
    } else if (ch === "\\") {
      word = (word ?? "") + (text[i + 1] ?? "");
      i += 2;
    } else if (ch === "#" && word === undefined) {
      const end = text.indexOf("\n", i);
      i = end < 0 ? text.length : end;
    } else if (ch === ">" || ch === "<") {
      // A descriptor before it (`2>`) redirects no file's text; `2>&1` and `>/dev/null` name no file.
      const descriptor = word !== undefined && /^\d$/.test(word) ? word : undefined;
      if (descriptor !== undefined) word = undefined;
      flush();
      const double = text[i + 1] === ch;
      i += double ? 2 : 1;
      if (text[i] === "&") {
        i++;
        continue;
      }
      if (descriptor !== undefined && descriptor !== "1") tokens.push({ redirect: "<" });
      else tokens.push({ redirect: ch === ">" ? (double ? ">>" : ">") : double ? "<<" : "<" });
    } else if (ch === "&" || ch === "|" || ch === ";") {
      flush();
      const double = (ch === "&" || ch === "|") && text[i + 1] === ch;
      tokens.push({ op: double ? ch + ch : ch });
      i += double ? 2 : 1;
    } else if (ch === "(" || ch === ")") {
      flush();
      tokens.push({ op: ";" });
      i++;
    } else {
      word = (word ?? "") + ch;
      i++;
    }
  }
  flush();
  return tokens.filter((t, i, all) => !("op" in t) || !OPERATOR.test(t.op) || i === 0 || !("op" in all[i - 1]!));
}
