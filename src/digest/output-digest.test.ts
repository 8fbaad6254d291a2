import { describe, expect, test } from "bun:test";
import { DIGEST_MAX_CHARS, DIGEST_MIN_CHARS, digestBudget, outputDigest } from "./output-digest.js";

const bash = (command: string, text: string, isError = false) => outputDigest("bash", { command }, text, isError);
const lines = (count: number, line: (i: number) => string) => Array.from({ length: count }, (_, i) => line(i)).join("\n");

describe("the digest budget", () => {
  test("grows with the output between its floor and its ceiling", () => {
    expect(digestBudget(0)).toBe(DIGEST_MIN_CHARS);
    expect(digestBudget(500)).toBe(DIGEST_MIN_CHARS);
    expect(digestBudget(20_000)).toBe(100);
    expect(digestBudget(10_000_000)).toBe(DIGEST_MAX_CHARS);
  });
});

describe("the digest of a read", () => {
  test("names the file, the line count and the names the file declares", () => {
    const file = lines(200, (i) => (i % 20 === 0 ? `export function step${i}(input: string) {` : `  return input + ${i};`));
    expect(outputDigest("read", { path: "src/steps.ts" }, file, false)).toBe("steps.ts: 200 lines; step0 step20 step40 step60 step80 step100 step120 step140");
  });

  test("a read pi cut short gives the range it showed", () => {
    const text = `${lines(40, (i) => `def handler_${i}(): pass`)}\n\n[Showing lines 1-40 of 900. Use offset=41 to continue.]`;
    expect(outputDigest("read", { path: "app.py" }, text, false)).toStartWith("app.py: lines 1-40 of 900; handler_0 handler_1");
  });

  test("a read with an offset and a limit gives the lines it holds and the file's length", () => {
    const text = `${lines(50, (i) => `x${i}`)}\n\n[251 more lines in file. Use offset=180 to continue.]`;
    expect(outputDigest("read", { path: "src/theme.ts", offset: 130, limit: 50 }, text, false)).toStartWith("theme.ts: lines 130-179 of 430");
  });

  test("a read from an offset to the end of the file gives where the file ends", () => {
    expect(outputDigest("read", { path: "a.md", offset: 9 }, "one\ntwo", false)).toBe("a.md: lines 9-10 of 10");
  });

  test("a read of a file that is gone says it was not read, with the error", () => {
    expect(outputDigest("read", { path: "gone.ts" }, "ENOENT: no such file or directory, open '/repo/gone.ts'", true)).toBe(
      "gone.ts: not read; ENOENT: no such file or directory, open '/repo/gone.ts'",
    );
  });
});

describe("the digest of a search", () => {
  test("pi's grep gives the match count and the files matched, most matches first, with their lines", () => {
    const text = ["src/b.ts:3: retry()", "src/a.ts:10: retry()", "src/a.ts:22: retry()", "src/a.ts:40: retry()", "src/a.ts:41: retry()"].join("\n");
    expect(outputDigest("grep", { pattern: "retry" }, text, false)).toBe("5 matches in 2 files; src/a.ts:10,22,40 src/b.ts:3");
  });

  test("a shell grep reads the same, its context lines not counted", () => {
    const text = ["lib/x.py:12:    raise ConfigError(name)", "lib/x.py-13-    return None", "--", "lib/y.py:7:class ConfigError(Exception):"].join("\n");
    expect(bash('grep -rn -A1 "ConfigError" lib', text)).toBe("2 matches in 2 files; lib/x.py:12 lib/y.py:7");
  });

  test("a grep of one file gives the lines and the names the matches declare", () => {
    expect(bash('grep -n "def " forms.py', "37:    def __init__(self):\n80:    def add_error(self, field):")).toBe("2 matches; lines 37,80 __init__ add_error");
  });

  test("find and ls list their entries", () => {
    expect(bash("find . -name '*.py'", "./fields.py\n./forms.py\n")).toBe("2 entries; ./fields.py ./forms.py");
    expect(outputDigest("ls", { path: "." }, "README.md\nsrc/\n", false)).toBe("2 entries; README.md src/");
  });

  test("a search behind a cd and an environment variable is still a search", () => {
    expect(bash("cd /repo && LANG=C grep -rn retryLimit src", "src/a.ts:1: // retryLimit")).toBe("1 match in 1 file; src/a.ts:1");
  });
});

describe("the digest of a shell output", () => {
  test("a Python traceback gives the status, the exception line and the locations", () => {
    const text = [
      "Traceback (most recent call last):",
      '  File "/repo/app/models.py", line 66, in save',
      "    self.validate()",
      '  File "/repo/app/checks.py", line 12, in validate',
      "    raise FieldError(msg)",
      "app.errors.FieldError: Cannot resolve keyword 'x'",
      "",
      "Command exited with code 1",
    ].join("\n");
    expect(bash("python run.py", `${"#".repeat(30_000)}\n${text}`, true)).toBe(
      "exit 1; app.errors.FieldError: Cannot resolve keyword 'x'; /repo/app/models.py:66 validate /repo/app/checks.py:12",
    );
  });

  test("a success names no status, only what the output mentions", () => {
    expect(bash("python -c 'import app'", "loaded app/config.yaml\nready")).toBe("app/config.yaml");
  });

  test("a test run keeps its totals", () => {
    const text = `${lines(2000, (i) => `(pass) case ${i}`)}\n(fail) parser reads [0.2ms]\nerror: expected 3, received 4\n\n 2000 pass\n 1 fail\n\nCommand exited with code 1`;
    expect(bash("bun test", text, true)).toBe("exit 1; (fail) parser reads [0.2ms]; 2000 pass | 1 fail");
  });

  test("identifiers the command already names are left out", () => {
    expect(bash("python -c 'from app import load_config; load_config()'", "load_config() called parse_file() twice")).toBe("parse_file");
  });

  test("an output that mentions nothing gives its line count", () => {
    expect(bash("seq 3", "1\n2\n3\n")).toBe("3 lines");
  });
});

describe("the digest of edits, writes and other tools", () => {
  test("an edit gives its outcome facts, applied or not", () => {
    expect(outputDigest("edit", { path: "a.ts" }, "Successfully replaced text in a.ts.", false)).toBe("a.ts: applied");
    expect(outputDigest("edit", { path: "a.ts" }, "Could not find the exact text in a.ts.", true)).toBe("a.ts: not applied; Could not find the exact text in a.ts.");
  });

  test("another tool's output gives what it mentions", () => {
    expect(outputDigest("web_fetch", { url: "https://example.com" }, "See docs/setup.md for the HTTPError raised by fetch_all()", false)).toBe(
      "HTTPError fetch_all docs/setup.md",
    );
  });

  test("an empty output of a successful tool leaves nothing to say", () => {
    expect(outputDigest("mcp_tool", {}, "", false)).toBeUndefined();
  });
});

describe("bad input never throws and stays within the cap", () => {
  const within = (digest: string | undefined, raw: string) => {
    expect(digest === undefined || (digest.length <= digestBudget(raw.length) && !/[\u0000-\u001f\u007f]/.test(digest))).toBe(true);
  };

  test("binary output", () => {
    const raw = String.fromCharCode(...Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256));
    within(bash("cat image.png", raw), raw);
  });

  test("a 10 MB single line, in well under a second", () => {
    const raw = `${"a/b.py:1 ".repeat(1_000_000)}x(`.padEnd(10_000_000, "z");
    const started = performance.now();
    const digest = bash("node build.js", raw);
    expect(performance.now() - started).toBeLessThan(1000);
    within(digest, raw);
    expect(digest).toStartWith("a/b.py:1");
  });

  test("ANSI-coloured test logs lose their escapes", () => {
    const raw = "\u001b[31mFAIL\u001b[0m src/\u001b[1ma.test.ts\u001b[0m\n\u001b[31mTypeError\u001b[0m: x is not a function\n\nCommand exited with code 1";
    const digest = bash("npm test", raw, true);
    within(digest, raw);
    expect(digest).toBe("exit 1; FAIL src/a.test.ts; TypeError");
  });

  test("paths with spaces and unicode", () => {
    const raw = "line one\nline two";
    const digest = outputDigest("read", { path: "docs/ünïcode dir/naïve file.md" }, raw, false);
    within(digest, raw);
    expect(digest).toBe("naïve file.md: 2 lines");
  });

  test("a file deleted after the read changes nothing: the digest reads only the captured text", () => {
    const raw = "def kept(): pass\n";
    expect(outputDigest("read", { path: "/nonexistent/deleted.py" }, raw, false)).toBe("deleted.py: 1 line; kept");
  });

  test("an edit result that reports failure", () => {
    const raw = `Error: could not edit ${"x".repeat(5000)}`;
    within(outputDigest("edit", { path: "a.ts" }, raw, true), raw);
  });

  test("commands that differ only by their environment variables", () => {
    const raw = `FOO=1 was set\n${lines(50, (i) => `ok ${i}`)}`;
    for (const command of ["FOO=1 npm test", "FOO=2 npm test"]) within(bash(command, raw), raw);
    expect(bash("FOO=1 npm test", raw)).toBe(bash("FOO=2 npm test", raw));
  });
});
