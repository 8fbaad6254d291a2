/**
 * The `pattern` of `context_tree_query`: a literal string, or `/expression/`
 * (flag `i` allowed) matched by a small automaton instead of JavaScript's
 * RegExp. RegExp backtracks, so a pattern such as `/(a+)+$/` can take
 * exponential time on one line; here the expression is compiled to a
 * Thompson NFA and simulated in lockstep (every live state advances one
 * character at a time), which takes at most (line length × program size)
 * steps whatever the pattern. Backreferences and lookaround cannot be run
 * that way and are refused with a clear message. Pure.
 */

/** Characters of a line an expression is matched against; the rest of a longer line is not looked at. */
export const MAX_MATCH_CHARS = 10_000;
const MAX_PROGRAM = 4_000;
const MAX_REPEAT = 1_000;

export interface LinePattern {
  /** How the answer names the pattern, e.g. `literal "foo"` or `expression /a+b/i`. */
  label: string;
  test(line: string): boolean;
}

export type CompiledPattern = { ok: true; pattern: LinePattern } | { ok: false; error: string };

const EXPRESSION = /^\/([\s\S]+)\/([a-z]*)$/;

export function compilePattern(source: string): CompiledPattern {
  if (source === "") return { ok: false, error: "the pattern is empty" };
  const expression = EXPRESSION.exec(source);
  if (expression === null) {
    return { ok: true, pattern: { label: `literal ${JSON.stringify(source)}`, test: (line) => line.includes(source) } };
  }
  const [, body, flags] = expression as unknown as [string, string, string];
  if (!/^i?$/.test(flags)) return { ok: false, error: `flag "${flags}" is not supported (only i, for ignore case)` };
  const ignoreCase = flags === "i";
  try {
    const program = compile(new Parser(body, ignoreCase).parse());
    const label = `expression ${source}`;
    return { ok: true, pattern: { label, test: (line) => run(program, ignoreCase ? line.toLowerCase() : line) } };
  } catch (error) {
    if (error instanceof PatternError) return { ok: false, error: error.message };
    throw error;
  }
}

class PatternError extends Error {}

// ---------------------------------------------------------------------------
// Parsing: a JavaScript-like subset into a small tree.
// ---------------------------------------------------------------------------

type CharTest = (code: number) => boolean;
type Node =
  | { t: "char"; test: CharTest }
  | { t: "cat"; items: Node[] }
  | { t: "alt"; items: Node[] }
  | { t: "rep"; node: Node; min: number; max: number }
  | { t: "assert"; kind: Assertion };
type Assertion = "bol" | "eol" | "word" | "notword";

const isDigit: CharTest = (c) => c >= 48 && c <= 57;
const isWordCode: CharTest = (c) => isDigit(c) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
const isSpace: CharTest = (c) => c === 32 || (c >= 9 && c <= 13) || c === 160 || c === 0xfeff || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x3000 || c === 0x1680 || c === 0x202f || c === 0x205f;
const not = (test: CharTest): CharTest => (c) => !test(c);
const CLASS_ESCAPES: Record<string, CharTest> = { d: isDigit, D: not(isDigit), w: isWordCode, W: not(isWordCode), s: isSpace, S: not(isSpace) };
const CONTROL_ESCAPES: Record<string, number> = { t: 9, n: 10, r: 13, f: 12, v: 11, "0": 0 };

class Parser {
  private at = 0;
  constructor(
    private readonly src: string,
    private readonly ignoreCase: boolean,
  ) {}

  parse(): Node {
    const node = this.alternation();
    if (this.at < this.src.length) throw new PatternError(`unmatched ")" at position ${this.at + 1}`);
    return node;
  }

  private alternation(): Node {
    const items = [this.sequence()];
    while (this.peek() === "|") {
      this.at++;
      items.push(this.sequence());
    }
    return items.length === 1 ? items[0]! : { t: "alt", items };
  }

  private sequence(): Node {
    const items: Node[] = [];
    while (this.at < this.src.length && this.peek() !== "|" && this.peek() !== ")") items.push(this.quantified());
    return { t: "cat", items };
  }

  private quantified(): Node {
    const atom = this.atom();
    const bounds = this.quantifier();
    if (bounds === undefined) return atom;
    if (atom.t === "assert") throw new PatternError("nothing to repeat before a quantifier");
    if (this.peek() === "?") this.at++; // lazy or greedy matches the same lines
    return { t: "rep", node: atom, min: bounds[0], max: bounds[1] };
  }

  private quantifier(): [number, number] | undefined {
    const c = this.peek();
    if (c === "*" || c === "+" || c === "?") {
      this.at++;
      return c === "*" ? [0, Infinity] : c === "+" ? [1, Infinity] : [0, 1];
    }
    if (c !== "{") return undefined;
    const braces = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.at));
    if (braces === null) return undefined; // a plain "{", as JavaScript reads it
    const min = Number(braces[1]);
    const max = braces[2] === undefined ? min : braces[3] === "" ? Infinity : Number(braces[3]);
    if (min > MAX_REPEAT || (max !== Infinity && max > MAX_REPEAT)) throw new PatternError(`repeat counts above ${MAX_REPEAT} are not supported`);
    if (max < min) throw new PatternError("a repeat range is out of order");
    this.at += braces[0].length;
    return [min, max];
  }

  private atom(): Node {
    const c = this.src[this.at++]!;
    if (c === "(") return this.group();
    if (c === "[") return { t: "char", test: this.charClass() };
    if (c === ".") return { t: "char", test: () => true };
    if (c === "^") return { t: "assert", kind: "bol" };
    if (c === "$") return { t: "assert", kind: "eol" };
    if (c === "\\") return this.escape();
    if (c === "*" || c === "+" || c === "?") throw new PatternError(`nothing to repeat before "${c}"`);
    const code = c.charCodeAt(0);
    return { t: "char", test: this.caseless((x) => x === code) };
  }

  private group(): Node {
    if (this.src.startsWith("?:", this.at)) this.at += 2;
    else if (/^\?(=|!|<=|<!)/.test(this.src.slice(this.at, this.at + 3))) throw new PatternError("lookahead and lookbehind are not supported");
    else if (this.src.startsWith("?<", this.at)) {
      const close = this.src.indexOf(">", this.at);
      if (close < 0) throw new PatternError("a group name is not closed");
      this.at = close + 1;
    } else if (this.peek() === "?") throw new PatternError("this group syntax is not supported");
    const inner = this.alternation();
    if (this.src[this.at++] !== ")") throw new PatternError('a "(" is not closed');
    return inner;
  }

  private escape(): Node {
    const c = this.src[this.at++];
    if (c === undefined) throw new PatternError("the pattern ends with a lone backslash");
    if (c === "b") return { t: "assert", kind: "word" };
    if (c === "B") return { t: "assert", kind: "notword" };
    const test = this.escapeTest(c);
    return { t: "char", test: this.caseless(test) };
  }

  /** The character test of an escape (outside `\b`), in or outside a class. */
  private escapeTest(c: string): CharTest {
    if (c >= "1" && c <= "9") throw new PatternError("backreferences are not supported");
    const named = CLASS_ESCAPES[c];
    if (named) return named;
    const control = CONTROL_ESCAPES[c];
    if (control !== undefined) return (x) => x === control;
    if (c === "x" || c === "u") {
      const hex = new RegExp(`^[0-9a-fA-F]{${c === "x" ? 2 : 4}}`).exec(this.src.slice(this.at));
      if (hex === null) throw new PatternError(`\\${c} needs ${c === "x" ? 2 : 4} hex digits`);
      this.at += hex[0].length;
      const code = Number.parseInt(hex[0], 16);
      return (x) => x === code;
    }
    if (/[A-Za-z]/.test(c)) throw new PatternError(`the escape \\${c} is not supported`);
    const code = c.charCodeAt(0);
    return (x) => x === code;
  }

  private charClass(): CharTest {
    const negated = this.peek() === "^";
    if (negated) this.at++;
    const tests: CharTest[] = [];
    while (this.peek() !== "]") {
      if (this.at >= this.src.length) throw new PatternError('a "[" is not closed');
      const low = this.classAtom();
      if (this.peek() === "-" && this.src[this.at + 1] !== "]" && this.at + 1 < this.src.length && typeof low === "number") {
        this.at++;
        const high = this.classAtom();
        if (typeof high !== "number") throw new PatternError("a class range ends in a class escape");
        if (high < low) throw new PatternError("a class range is out of order");
        tests.push((x) => x >= low && x <= high);
      } else tests.push(typeof low === "number" ? (x) => x === low : low);
    }
    this.at++;
    // Case folding applies to the members, before a negation: /[^a]/i matches neither "a" nor "A".
    const any = this.caseless((x) => tests.some((test) => test(x)));
    return negated ? not(any) : any;
  }

  /** One class member: a code unit, or the test of a class escape such as `\d`. */
  private classAtom(): number | CharTest {
    const c = this.src[this.at++]!;
    if (c !== "\\") return c.charCodeAt(0);
    const e = this.src[this.at++];
    if (e === undefined) throw new PatternError("the pattern ends with a lone backslash");
    if (e === "b") return 8;
    if (CLASS_ESCAPES[e] || CONTROL_ESCAPES[e] !== undefined || e === "x" || e === "u" || (e >= "1" && e <= "9") || /[A-Za-z]/.test(e)) {
      const test = this.escapeTest(e);
      return CLASS_ESCAPES[e] ? test : codeOf(test);
    }
    return e.charCodeAt(0);
  }

  /** Under `i` the line is lowercased, so a class such as `[A-Z]` must also accept the lowercase letters. */
  private caseless(test: CharTest): CharTest {
    if (!this.ignoreCase) return test;
    return (x) => test(x) || test(String.fromCharCode(x).toUpperCase().charCodeAt(0));
  }

  private peek(): string | undefined {
    return this.src[this.at];
  }
}

/** The one code a single-character test accepts (escapes such as `\t` or `\x41` inside a class). */
function codeOf(test: CharTest): number {
  for (let code = 0; code <= 0xffff; code++) if (test(code)) return code;
  throw new PatternError("an escape in a class matches nothing");
}

// ---------------------------------------------------------------------------
// Compiling and running: a Thompson NFA simulated without backtracking.
// ---------------------------------------------------------------------------

type Instruction =
  | { op: "char"; test: CharTest }
  | { op: "split"; a: number; b: number }
  | { op: "jump"; to: number }
  | { op: "assert"; kind: Assertion }
  | { op: "match" };

function compile(root: Node): Instruction[] {
  const program: Instruction[] = [];
  const emit = (instruction: Instruction): number => {
    if (program.length >= MAX_PROGRAM) throw new PatternError("the expression is too large (repeat counts expand it)");
    program.push(instruction);
    return program.length - 1;
  };
  const gen = (node: Node): void => {
    if (node.t === "char") emit({ op: "char", test: node.test });
    else if (node.t === "assert") emit({ op: "assert", kind: node.kind });
    else if (node.t === "cat") for (const item of node.items) gen(item);
    else if (node.t === "alt") {
      const jumps: number[] = [];
      node.items.forEach((item, k) => {
        if (k === node.items.length - 1) return gen(item);
        const split = emit({ op: "split", a: 0, b: 0 });
        (program[split] as { a: number }).a = program.length;
        gen(item);
        jumps.push(emit({ op: "jump", to: 0 }));
        (program[split] as { b: number }).b = program.length;
      });
      for (const jump of jumps) (program[jump] as { to: number }).to = program.length;
    } else {
      for (let k = 0; k < node.min; k++) gen(node.node);
      if (node.max === Infinity) {
        const split = emit({ op: "split", a: program.length + 1, b: 0 });
        gen(node.node);
        emit({ op: "jump", to: split });
        (program[split] as { b: number }).b = program.length;
      } else {
        for (let k = node.min; k < node.max; k++) {
          const split = emit({ op: "split", a: program.length + 1, b: 0 });
          gen(node.node);
          (program[split] as { b: number }).b = program.length;
        }
      }
    }
  };
  gen(root);
  emit({ op: "match" });
  return program;
}

const wordAt = (line: string, at: number) => at >= 0 && at < line.length && isWordCode(line.charCodeAt(at));

/** True when the program matches somewhere in the first MAX_MATCH_CHARS characters of `line`. */
function run(program: Instruction[], line: string): boolean {
  const end = Math.min(line.length, MAX_MATCH_CHARS);
  const seen = new Int32Array(program.length).fill(-1);
  let current: number[] = [];
  let next: number[] = [];
  const stack: number[] = [];
  // Adds pc and everything reachable from it without reading a character; true when that reaches a match.
  const add = (list: number[], start: number, at: number, mark: number): boolean => {
    stack.push(start);
    while (stack.length > 0) {
      const pc = stack.pop()!;
      if (seen[pc] === mark) continue;
      seen[pc] = mark;
      const ins = program[pc]!;
      if (ins.op === "match") {
        stack.length = 0;
        return true;
      }
      if (ins.op === "jump") stack.push(ins.to);
      else if (ins.op === "split") stack.push(ins.b, ins.a);
      else if (ins.op === "assert") {
        if (holds(ins.kind, line, at)) stack.push(pc + 1);
      } else list.push(pc);
    }
    return false;
  };
  for (let at = 0; at <= end; at++) {
    // A thread may start at every position: the search is unanchored.
    if (add(current, 0, at, at)) return true;
    if (at === end) break;
    const code = line.charCodeAt(at);
    next.length = 0;
    for (const pc of current) {
      const ins = program[pc] as { test: CharTest };
      if (ins.test(code) && add(next, pc + 1, at + 1, at + 1)) return true;
    }
    [current, next] = [next, current];
  }
  return false;
}

function holds(kind: Assertion, line: string, at: number): boolean {
  if (kind === "bol") return at === 0;
  if (kind === "eol") return at === line.length;
  const boundary = wordAt(line, at - 1) !== wordAt(line, at);
  return kind === "word" ? boundary : !boundary;
}
