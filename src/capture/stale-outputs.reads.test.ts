import { describe, expect, test } from "bun:test";
import { deliveredRange, normalizeFilePath, rangeContains, readToolSpan, shellReadSpan, shellWords } from "./stale-outputs.js";

const WHOLE = { start: 1, end: Infinity };

describe("normalizeFilePath", () => {
  test("a leading ./ is dropped, so ./a.ts and a.ts are one path", () => {
    expect(normalizeFilePath("./a.ts")).toBe(normalizeFilePath("a.ts"));
  });

  test("doubled slashes and . segments are dropped", () => {
    expect(normalizeFilePath("src//./x/a.ts")).toBe("src/x/a.ts");
  });

  test(".. segments are kept, since a symlinked folder makes them another file", () => {
    expect(normalizeFilePath("x/../a.ts")).toBe("x/../a.ts");
  });

  test("backslashes become slashes", () => {
    expect(normalizeFilePath("src\\a.ts")).toBe("src/a.ts");
  });

  test("without a cwd a relative path stays relative", () => {
    expect(normalizeFilePath("a.ts")).not.toBe(normalizeFilePath("/repo/a.ts"));
  });

  test("with a cwd a relative path is joined to it", () => {
    expect(normalizeFilePath("./src/a.ts", "/repo/")).toBe("/repo/src/a.ts");
  });

  test("spaces and unicode pass through unchanged", () => {
    expect(normalizeFilePath("./docs/my notes é.md")).toBe("docs/my notes é.md");
  });
});

describe("readToolSpan", () => {
  test("no offset or limit reads the whole file", () => {
    expect(readToolSpan({ path: "a.ts" })).toEqual({ path: "a.ts", range: WHOLE });
  });

  test("offset and limit give lines offset to offset + limit - 1", () => {
    expect(readToolSpan({ path: "a.ts", offset: 10, limit: 5 })?.range).toEqual({ start: 10, end: 14 });
  });

  test("a fractional or negative limit is no range to trust", () => {
    expect(readToolSpan({ path: "a.ts", limit: -1 })).toBeUndefined();
    expect(readToolSpan({ path: "a.ts", offset: 1.5 })).toBeUndefined();
  });

  test("a call without a string path is no read", () => {
    expect(readToolSpan({ path: 7 })).toBeUndefined();
  });
});

describe("shellReadSpan", () => {
  test("cat of one file reads all of it", () => {
    expect(shellReadSpan("cat src/a.ts")).toEqual({ path: "src/a.ts", range: WHOLE });
  });

  test("head -n N reads the first N lines", () => {
    expect(shellReadSpan("head -n 40 a.ts")?.range).toEqual({ start: 1, end: 40 });
  });

  test("head -N and head without a count read the first N and 10 lines", () => {
    expect(shellReadSpan("head -25 a.ts")?.range).toEqual({ start: 1, end: 25 });
    expect(shellReadSpan("head a.ts")?.range).toEqual({ start: 1, end: 10 });
  });

  test("tail -n N reads the last N lines", () => {
    expect(shellReadSpan("tail -n 30 a.ts")?.range).toEqual({ last: 30 });
  });

  test("tail -n +K reads from line K to the end", () => {
    expect(shellReadSpan("tail -n +5 a.ts")?.range).toEqual({ start: 5, end: Infinity });
  });

  test("sed -n 'A,Bp' reads lines A to B", () => {
    expect(shellReadSpan("sed -n '120,180p' src/a.ts")).toEqual({ path: "src/a.ts", range: { start: 120, end: 180 } });
  });

  test("sed -n 'A,$p' reads from A to the end", () => {
    expect(shellReadSpan("sed -n '7,$p' a.ts")?.range).toEqual({ start: 7, end: Infinity });
  });

  test("a quoted path with spaces and unicode is one file", () => {
    expect(shellReadSpan(`cat "docs/my notes é.md"`)?.path).toBe("docs/my notes é.md");
  });

  for (const command of [
    "cat a.ts | head",
    "cat a.ts; ls",
    "cd src && cat a.ts",
    "cat a.ts > b.ts",
    "cat a.ts b.ts",
    "cat -n a.ts",
    "cat src/*.ts",
    "cat $FILE",
    'cat "$HOME/a.ts"',
    "FOO=1 cat a.ts",
    "sed -i 's/a/b/' a.ts",
    "sed -n '/x/p' a.ts",
    "head -n 0 a.ts",
    "head 5 a.ts",
    "grep x a.ts",
    "cat 'unclosed",
  ]) {
    test(`\`${command}\` is no read`, () => {
      expect(shellReadSpan(command)).toBeUndefined();
    });
  }
});

describe("shellWords", () => {
  test("single quotes, double quotes and backslashes are resolved", () => {
    expect(shellWords(`cat 'a b'"c"d\\ e`)).toEqual(["cat", "a bcd e"]);
  });
});

describe("deliveredRange", () => {
  test("without a truncation note the output holds what was asked", () => {
    expect(deliveredRange(WHOLE, "line 1\nline 2", "file")).toEqual(WHOLE);
  });

  test("pi's read note names the file lines it kept", () => {
    const text = "x\n\n[Showing lines 1-2000 of 5000. Use offset=2001 to continue.]";
    expect(deliveredRange(WHOLE, text, "file")).toEqual({ start: 1, end: 2000 });
  });

  test("bash's note names output lines, shifted to file lines by the first line asked", () => {
    const text = "x\n\n[Showing lines 501-2500 of 2500. Full output: /tmp/o]";
    expect(deliveredRange({ start: 100, end: 2599 }, text, "output")).toEqual({ start: 600, end: 2599 });
  });

  test("a cut inside one line leaves no range", () => {
    expect(deliveredRange(WHOLE, "x\n\n[Showing last 50KB of line 3 (line is 2MB). Full output: /tmp/o]", "output")).toBeUndefined();
  });

  test("a note-like line inside the file is not the note", () => {
    expect(deliveredRange(WHOLE, "[Showing lines 1-2 of 9]\nreal content", "file")).toEqual(WHOLE);
  });
});

describe("rangeContains", () => {
  test("a longer range contains a shorter one inside it", () => {
    expect(rangeContains({ start: 1, end: 100 }, { start: 10, end: 20 })).toBe(true);
  });

  test("overlapping ranges do not contain each other", () => {
    expect(rangeContains({ start: 1, end: 15 }, { start: 10, end: 20 })).toBe(false);
  });

  test("a tail is inside only the whole file or a longer tail", () => {
    expect(rangeContains(WHOLE, { last: 5 })).toBe(true);
    expect(rangeContains({ last: 9 }, { last: 5 })).toBe(true);
    expect(rangeContains({ start: 1, end: 9999 }, { last: 5 })).toBe(false);
  });
});
