import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { pageOf, parseLineRange, type LineRange } from "./query-paging.js";

const rows = (n: number, from = 1) => Array.from({ length: n }, (_, i) => `row ${from + i}`).join("\n");
const range = (text: string): LineRange => {
  const parsed = parseLineRange(text);
  if (!("range" in parsed) || parsed.range === undefined) throw new Error(`not a range: ${text}`);
  return parsed.range;
};

describe("parseLineRange", () => {
  test("reads A-B and A- as 1-based inclusive ranges", () => {
    expect(parseLineRange("2001-4000")).toEqual({ range: { first: 2001, last: 4000, text: "2001-4000" } });
    expect(parseLineRange(" 5 - ")).toEqual({ range: { first: 5, text: "5 -" } });
    expect(parseLineRange("7-7")).toEqual({ range: { first: 7, last: 7, text: "7-7" } });
  });

  test("reads head:N and tail:N as the first or last N lines", () => {
    expect(parseLineRange("head:50")).toEqual({ range: { first: 1, last: 50, text: "head:50" } });
    expect(parseLineRange("Tail: 3")).toEqual({ range: { first: 1, tail: 3, text: "Tail: 3" } });
    for (const value of ["tail:0", "head:", "tail:-1", "tail:x"]) expect("error" in parseLineRange(value)).toBe(true);
  });

  test("absent or blank means no range", () => {
    for (const value of [undefined, "", "   "]) expect(parseLineRange(value)).toEqual({});
  });

  test("anything else is a clear note, never a throw", () => {
    for (const value of ["abc", "0-10", "10-5", "-5", "5", "1-2-3", "1.5-3", "99999999999999999999-"]) {
      const parsed = parseLineRange(value);
      expect("error" in parsed && parsed.error).toContain("is not a line range");
    }
    expect(parseLineRange("10-5")).toEqual({
      error:
        '[lines "10-5" is not a line range: use "A-B" or "A-" with 1-based line numbers, e.g. "2001-4000", or "head:N" / "tail:N" for the first or last N lines]',
    });
  });
});

describe("pageOf with head and tail counts", () => {
  test("tail:N shows the last N lines with their line numbers", () => {
    const page = pageOf(rows(10), range("tail:3"), "t1");
    expect(page.body).toBe("row 8\nrow 9\nrow 10");
    expect(page.linesHeader).toBe("Lines: 8-10 of 10");
  });

  test("a tail longer than the output shows all of it", () => {
    expect(pageOf(rows(2), range("tail:50"), "t1").linesHeader).toBe("Lines: 1-2 of 2");
  });

  test("head:N shows the first N lines", () => {
    expect(pageOf(rows(10), range("head:2"), "t1").body).toBe("row 1\nrow 2");
  });
});

describe("pageOf without a range", () => {
  test("a short body is returned unchanged", () => {
    expect(pageOf("a\nb\n", undefined, "t1")).toEqual({ body: "a\nb\n", selected: "a\nb\n" });
  });

  test("a long body keeps the truncation note and names the next page", () => {
    const { body } = pageOf(rows(5000), undefined, "t3");
    expect(body.endsWith('row 2000\n[Output truncated: 2000/5000 lines shown]\nNext: context_tree_query({ toolCallIds: ["t3"], lines: "2001-5000" })')).toBe(
      true,
    );
  });

  test("the next-page call quotes the ref as JSON", () => {
    expect(pageOf(rows(2001), undefined, 'odd"id').body).toContain('toolCallIds: ["odd\\"id"], lines: "2001-2001"');
  });

  test("a cut by bytes names the first line not shown", () => {
    const wide = Array.from({ length: 100 }, (_, i) => `${i + 1} ${"w".repeat(1000)}`).join("\n");
    const { body } = pageOf(wide, undefined, "t1");
    const shown = body.split("\n").findIndex((line) => line.startsWith("[Output truncated:"));
    expect(body).toContain(`[Output truncated: ${shown}/100 lines shown]`);
    expect(body).toContain(`lines: "${shown + 1}-100"`);
  });
});

describe("pageOf with a range", () => {
  test("selects the range and says which lines of how many are shown", () => {
    const page = pageOf(rows(5000), range("2001-2003"), "t3");
    expect(page).toEqual({ body: "row 2001\nrow 2002\nrow 2003", selected: "row 2001\nrow 2002\nrow 2003", linesHeader: "Lines: 2001-2003 of 5000" });
  });

  test("A- runs to the end and keeps a final newline", () => {
    const page = pageOf(`${rows(10)}\n`, range("9-"), "t1");
    expect(page.body).toBe("row 9\nrow 10\n");
    expect(page.linesHeader).toBe("Lines: 9-10 of 10");
  });

  test("an end past the last line is clamped", () => {
    expect(pageOf(rows(10), range("9-500"), "t1").linesHeader).toBe("Lines: 9-10 of 10");
  });

  test("a start past the end is a note", () => {
    expect(pageOf(rows(10), range("11-20"), "t1")).toEqual({ body: '[lines "11-20" starts past the end: this output has 10 lines]', selected: "" });
    expect(pageOf("", range("1-"), "t1").body).toBe('[lines "1-" starts past the end: this output has 0 lines]');
  });

  test("a long range is cut again and the next page continues from where it stopped", () => {
    const { body } = pageOf(rows(9000), range("2001-7000"), "t3");
    expect(body.startsWith("row 2001\n")).toBe(true);
    expect(body).toContain('row 4000\n[Output truncated: 2000/5000 lines shown]\nNext: context_tree_query({ toolCallIds: ["t3"], lines: "4001-7000" })');
  });

  test("the last page of a range has no next call", () => {
    expect(pageOf(rows(9000), range("8001-"), "t3").body).not.toContain("Next:");
  });

  test("following the next calls from the first page rebuilds the body exactly", () => {
    const original = `${Array.from({ length: 7321 }, (_, i) => `line ${i + 1} ${"é".repeat(i % 37)}`).join("\n")}\n`;
    const parts: string[] = [];
    let lines: LineRange | undefined;
    for (let guard = 0; guard < 20; guard++) {
      const { body } = pageOf(original, lines, "t1");
      const cut = body.indexOf("\n[Output truncated:");
      parts.push(cut === -1 ? body : body.slice(0, cut));
      const next = /lines: "(\d+-\d*)"/.exec(body);
      if (!next) break;
      lines = range(next[1]!);
    }
    expect(parts.length).toBeGreaterThan(3);
    expect(parts.join("\n")).toBe(original);
  });

  test("a line too large to show is said so and skipped by the next call", () => {
    const text = ["short", "x".repeat(60 * 1024), "after"].join("\n");
    const { body } = pageOf(text, range("2-"), "t1");
    expect(body).toBe(
      '\n[Output truncated: 0/2 lines shown]\nLine 2 alone is larger than 50 KiB and cannot be shown.\nNext: context_tree_query({ toolCallIds: ["t1"], lines: "3-3" })',
    );
  });
});

describe("paging property", () => {
  const follow = (original: string, ref: string): string => {
    const parts: string[] = [];
    let lines: LineRange | undefined;
    for (let guard = 0; guard < 100; guard++) {
      const { body } = pageOf(original, lines, ref);
      const cut = body.indexOf("\n[Output truncated:");
      parts.push(cut === -1 ? body : body.slice(0, cut));
      const next = /lines: "(\d+-\d*)" \}\)$/.exec(body);
      if (!next) break;
      lines = range(next[1]!);
    }
    return parts.join("\n");
  };

  test("following the next calls rebuilds any output whose lines fit the byte cap", () => {
    const line = fc.string({ unit: fc.constantFrom("a", "é", "😀", " ", "\t", "\r"), maxLength: 60 });
    fc.assert(
      fc.property(fc.array(line, { minLength: 0, maxLength: 6000, size: "max" }), fc.boolean(), fc.constantFrom("t1", "bash_2@5", 'x"y'), (lines, finalNewline, ref) => {
        const original = lines.join("\n") + (finalNewline && lines.length > 0 ? "\n" : "");
        expect(follow(original, ref)).toBe(original);
      }),
      { numRuns: 20 },
    );
  });
});
