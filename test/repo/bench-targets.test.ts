import { afterEach, describe, expect, spyOn, test } from "bun:test";
import { reportTargets } from "../../bench/targets.js";

describe("the benchmark verdict", () => {
  afterEach(() => {
    process.exitCode = 0;
  });

  function printed(targets: Array<{ name: string; met: boolean }>, argv: string[], headline?: string): string[] {
    const lines: string[] = [];
    const log = spyOn(console, "log").mockImplementation((line: string) => lines.push(line));
    try {
      reportTargets(targets, argv, headline);
    } finally {
      log.mockRestore();
    }
    return lines;
  }

  test("prints PASS or FAIL per target and ends with targets met: X/Y", () => {
    const lines = printed([{ name: "fast", met: true }, { name: "linear", met: false }], []);
    expect(lines).toEqual(["  PASS fast", "  FAIL linear", "targets met: 1/2"]);
  });

  test("a benchmark's headline comes right before the last line", () => {
    const lines = printed([{ name: "kept", met: true }], [], "retention: 1/2 identifiers kept (50.0%), stubs 2.00% of raw");
    expect(lines).toEqual(["  PASS kept", "retention: 1/2 identifiers kept (50.0%), stubs 2.00% of raw", "targets met: 1/1"]);
  });

  test("a failed target fails the process only with --check", () => {
    printed([{ name: "linear", met: false }], []);
    expect(process.exitCode).toBe(0);
    printed([{ name: "linear", met: false }], ["bun", "bench.ts", "--check"]);
    expect(process.exitCode).toBe(1);
  });

  test("with every target met, --check passes", () => {
    printed([{ name: "fast", met: true }], ["--check"]);
    expect(process.exitCode).toBe(0);
  });
});
