import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { compilePattern, MAX_MATCH_CHARS, type LinePattern } from "./line-pattern.js";

function pattern(source: string): LinePattern {
  const compiled = compilePattern(source);
  if (!compiled.ok) throw new Error(compiled.error);
  return compiled.pattern;
}

const errorOf = (source: string) => {
  const compiled = compilePattern(source);
  return compiled.ok ? undefined : compiled.error;
};

describe("literal patterns", () => {
  test("a plain string matches lines that contain it, case and all", () => {
    const p = pattern("a.b(");
    expect(p.test("x a.b( y")).toBe(true);
    expect(p.test("axb(")).toBe(false);
    expect(p.test("A.B(")).toBe(false);
    expect(p.label).toBe('literal "a.b("');
  });

  test("an empty pattern is refused", () => {
    expect(errorOf("")).toBe("the pattern is empty");
  });
});

describe("expressions in /…/", () => {
  const cases: Array<[string, string, boolean]> = [
    ["/error TS\\d+/", "src/a.ts(1,2): error TS2322: x", true],
    ["/error TS\\d+/", "error TS", false],
    ["/^export (const|function) \\w+/", "export function foo() {", true],
    ["/^export (const|function) \\w+/", "  export const x", false],
    ["/done$/", "all done", true],
    ["/done$/", "done deal", false],
    ["/\\bcat\\b/", "the cat sat", true],
    ["/\\bcat\\b/", "concatenate", false],
    ["/colou?r/", "color", true],
    ["/a{2,3}b/", "xaab", true],
    ["/a{2,3}b/", "xab", false],
    ["/[^0-9 ]+x/", "12 abx", true],
    ["/[A-Z]{3}/i", "abc", true],
    ["/warning/i", "WARNING: disk", true],
    ["/\\d+ (pass|fail)/", " 0 fail", true],
    ["/[.]/", "no dot here", false],
    ["/\\./", "a.b", true],
    ["/\\x41\\u0042/", "AB", true],
    ["/(?:ab)+c/", "ababc", true],
    ["/(?<word>ab)c/", "abc", true],
  ];
  for (const [source, line, expected] of cases) {
    test(`${source} ${expected ? "matches" : "does not match"} ${JSON.stringify(line)}`, () => {
      expect(pattern(source).test(line)).toBe(expected);
    });
  }

  test("on random expressions over a small alphabet it agrees with JavaScript's RegExp", () => {
    const atom = fc.constantFrom("a", "b", ".", "[ab]", "[^a]", "\\w", "\\d", "1");
    const expr: fc.Arbitrary<string> = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: "small" },
        atom,
        fc.tuple(tie("node"), fc.constantFrom("*", "+", "?", "{1,2}", "{2}")).map(([n, q]) => `(?:${n})${q}`),
        fc.tuple(tie("node"), tie("node")).map(([a, b]) => `${a}${b}`),
        fc.tuple(tie("node"), tie("node")).map(([a, b]) => `(?:${a}|${b})`),
        fc.tuple(fc.constantFrom("^", ""), tie("node"), fc.constantFrom("$", "")).map(([s, n, e]) => `${s}${n}${e}`),
      ),
    })).node as fc.Arbitrary<string>;
    fc.assert(
      fc.property(expr, fc.stringMatching(/^[ab1 ]{0,12}$/), fc.boolean(), (body, line, caseless) => {
        const source = `/${body}/${caseless ? "i" : ""}`;
        expect(pattern(source).test(line)).toBe(new RegExp(body, caseless ? "i" : "").test(line));
      }),
      { numRuns: 2000 },
    );
  });

  test("a catastrophic-backtracking expression runs in linear time on a long line", () => {
    // RegExp takes exponential time here; at 30 characters it already needs about a second.
    const line = `${"a".repeat(5000)}!`;
    expect(pattern("/(a+)+$/").test(line)).toBe(false);
    expect(pattern("/(a|aa)*b/").test(line)).toBe(false);
    expect(pattern("/(.*a){20}x/").test(line)).toBe(false);
  });

  test("only the first MAX_MATCH_CHARS characters of a line are matched", () => {
    const line = `${"x".repeat(MAX_MATCH_CHARS)}needle`;
    expect(pattern("/needle/").test(line)).toBe(false);
    expect(pattern("needle").test(line)).toBe(true);
  });

  const refused: Array<[string, string]> = [
    ["/(a)\\1/", "backreferences are not supported"],
    ["/a(?=b)/", "lookahead and lookbehind are not supported"],
    ["/(?<!a)b/", "lookahead and lookbehind are not supported"],
    ["/a/g", 'flag "g" is not supported (only i, for ignore case)'],
    ["/(ab/", 'a "(" is not closed'],
    ["/ab)/", 'unmatched ")" at position 3'],
    ["/[ab/", 'a "[" is not closed'],
    ["/ab\\/", "the pattern ends with a lone backslash"],
    ["/\\p{L}/", "the escape \\p is not supported"],
    ["/*a/", 'nothing to repeat before "*"'],
    ["/^*/", "nothing to repeat before a quantifier"],
    ["/a{5,2}/", "a repeat range is out of order"],
    ["/a{2000}/", "repeat counts above 1000 are not supported"],
    ["/((a{1000}){1000})/", "the expression is too large (repeat counts expand it)"],
    ["/[z-a]/", "a class range is out of order"],
  ];
  for (const [source, error] of refused) {
    test(`${source} is refused: ${error}`, () => {
      expect(errorOf(source)).toBe(error);
    });
  }
});
