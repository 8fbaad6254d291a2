import { describe, expect, test } from "bun:test";
import { OUTCOME_MAX_CHARS, outcomeFacts } from "./outcome-facts.js";

const bash = (text: string, isError = false) => outcomeFacts("bash", { command: "npm test" }, text, isError);

describe("outcome facts of shell calls", () => {
  test("a failed command gives its exit code, its first error line and the runner's totals", () => {
    const text = [
      "bun test v1.4.5",
      "src/a.test.ts:",
      "error: expect(received).toBe(expected)",
      "(fail) parser > reads a line [0.3ms]",
      "",
      " 41 pass",
      " 1 fail",
      "Ran 42 tests across 3 files. [120.00ms]",
      "",
      "Command exited with code 1",
    ].join("\n");
    expect(bash(text, true)).toBe(
      "exit 1; first error: error: expect(received).toBe(expected); totals: 41 pass | 1 fail | Ran 42 tests across 3 files. [120.00ms]",
    );
  });

  test("passing test titles and numbered source excerpts that mention a failure are not the first error", () => {
    const text = [
      "(pass) parser > a failed command gives its exit code [0.8ms]",
      "32 |   test(\"names no error\", () => {",
      "error: expect(received).toBe(expected)",
      "(fail) parser > reads [0.2ms]",
      "Command exited with code 1",
    ].join("\n");
    expect(bash(text, true)).toBe("exit 1; first error: error: expect(received).toBe(expected)");
  });

  test("a numbered source listing (cat -n, nl) gives no totals and no first error from its statements", () => {
    const text = ["  147\t    def clean(self):", "  148\t        pass", "  149\t        raise ValueError('failed')", " 1048\t    errors.append(e)", "", "Command exited with code 1"].join("\n");
    expect(bash(text, true)).toBe("exit 1");
  });

  test("a compiler's error line and its error count are kept word for word", () => {
    const text = "src/x.ts(3,7): error TS2322: Type 'number' is not assignable to type 'string'.\n\nFound 1 error in src/x.ts:3\n\n\nCommand exited with code 2";
    expect(bash(text, true)).toBe(
      "exit 2; first error: src/x.ts(3,7): error TS2322: Type 'number' is not assignable to type 'string'.; totals: Found 1 error in src/x.ts:3",
    );
  });

  test("a successful command says exit 0 and names no error, even when its output mentions one", () => {
    expect(bash("console.error: expected warning in a passing test\n 12 pass\n 0 fail")).toBe("exit 0; totals: 12 pass | 0 fail");
  });

  test("a command without counts gives its status alone", () => {
    expect(bash("hello\nworld")).toBe("exit 0");
  });

  test("a timed-out command reads as timed out", () => {
    expect(bash("partial\n\nCommand timed out after 30 seconds", true)).toBe("timed out");
  });

  test("a failure without an exit line is failed, with its first error", () => {
    expect(outcomeFacts("shell", { command: "x" }, "fatal: not a git repository", true)).toBe("failed; first error: fatal: not a git repository");
  });

  test("any tool called with a command string counts as a shell", () => {
    expect(outcomeFacts("run_in_terminal", { command: "ls" }, "a\nb", false)).toBe("ok");
  });

  test("colour escapes and control characters never reach the facts", () => {
    const facts = bash("\u001b[31merror:\u001b[0m broken\tline\u0007\nCommand exited with code 1", true)!;
    expect(facts).toBe("exit 1; first error: error: broken line");
    expect(/[\u0000-\u001f\u007f]/.test(facts)).toBe(false);
  });

  test("the facts are cut to the cap however long the lines are", () => {
    const long = `error: ${"x".repeat(5000)}`;
    const facts = bash(`${long}\n${" 3 fail ".repeat(300)}\nCommand exited with code 1`, true)!;
    expect(facts.length).toBeLessThanOrEqual(OUTCOME_MAX_CHARS);
    expect(facts.startsWith("exit 1; first error: error: xxx")).toBe(true);
  });

  test("the same output always gives the same facts", () => {
    const text = "error: a\n 1 fail\nCommand exited with code 1";
    expect(bash(text, true)).toBe(bash(text, true)!);
  });
});

describe("outcome facts of reads, edits, writes and failed tools", () => {
  test("a read gives its path and line count", () => {
    expect(outcomeFacts("read", { path: "src/a.ts" }, "one\ntwo\nthree\n", false)).toBe("src/a.ts: 3 lines");
  });

  test("a read pi cut short gives the range it showed", () => {
    const text = "a\nb\n\n[Showing lines 1-2000 of 5120. Use offset=2001 to continue.]";
    expect(outcomeFacts("read", { path: "big.log" }, text, false)).toBe("big.log: lines 1-2000 of 5120");
  });

  test("an image read says so", () => {
    expect(outcomeFacts("read", { path: "shot.png" }, "[image returned: image/png sha256:0123abcd]\nRead image file", false)).toBe("shot.png: image");
  });

  test("an edit that applied says applied, one that failed gives its error", () => {
    expect(outcomeFacts("edit", { path: "a.ts" }, "Successfully replaced 1 block(s) in a.ts.", false)).toBe("a.ts: applied");
    expect(outcomeFacts("edit", { path: "a.ts" }, "Could not find the exact text in a.ts. The old text must match exactly.", true)).toBe(
      "a.ts: not applied; first error: Could not find the exact text in a.ts. The old text must match exactly.",
    );
  });

  test("a write that applied says applied", () => {
    expect(outcomeFacts("write", { path: "out.txt" }, "Successfully wrote to out.txt", false)).toBe("out.txt: applied");
  });

  test("any other tool has facts only when it failed", () => {
    expect(outcomeFacts("grep", { pattern: "x" }, "a.ts:1:x", false)).toBeUndefined();
    expect(outcomeFacts("fetch", { url: "u" }, "\nHTTP 404 Not Found\nmore", true)).toBe("failed; first error: HTTP 404 Not Found");
  });
});
