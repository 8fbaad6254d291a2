// `npm run demo` against the README's quote of its output (issue 28 item 1): the measured reclaim and
// dollars stay within a stated tolerance of what the README shows, so the quote cannot silently drift.
// Where it works and what it keeps (issue 45, point 19) are checked on the same run.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runDemo, type DemoFigures } from "../../demo/run.js";
import { readmeDemoOutput } from "../../demo/readme-quote.js";
import { REPO_ROOT } from "./harness.js";

/** Percentage points the reclaim may move, and the share either dollar figure may move, before the README is stale. */
const RECLAIM_POINTS = 5;
const DOLLAR_SHARE = 0.2;

describe("npm run demo", () => {
  const printed: string[] = [];
  let figures: DemoFigures;
  beforeAll(async () => {
    figures = await runDemo(false, (line) => printed.push(line));
  }, 240_000);
  afterAll(() => {
    if (figures) rmSync(figures.dir, { recursive: true, force: true });
  });

  test("measures what the README quotes, within its tolerance", () => {
    const quoted = readmeDemoOutput(REPO_ROOT);
    const reclaim = Number(/reclaim: ([\d.]+)%/.exec(quoted)?.[1]);
    const [, off, on] = /dollars: \$([\d.]+) without pruning, \$([\d.]+) with it/.exec(quoted) ?? [];
    expect(Math.abs(figures.reclaimPct - reclaim)).toBeLessThanOrEqual(RECLAIM_POINTS);
    expect(Math.abs(figures.dollarsOff / Number(off) - 1)).toBeLessThanOrEqual(DOLLAR_SHARE);
    expect(Math.abs(figures.dollarsOn / Number(on) - 1)).toBeLessThanOrEqual(DOLLAR_SHARE);
    const compressed = /earlier prompts' work compressed: (.*)/.exec(quoted)?.[1];
    expect(figures.compressed).toBe(compressed!);
    expect(printed.join("\n")).toContain("verbatim match with the original bash output: yes");
  });

  test("works in a folder it names under the system temp dir, and keeps only the pruning-on session there", () => {
    expect(figures.dir.startsWith(join(tmpdir(), "pi-condense-demo-"))).toBe(true);
    expect(printed.join("\n")).toContain(`working in ${figures.dir} (the system temp dir; your ~/.pi is not touched)`);
    expect(figures.sessionFile.startsWith(join(figures.dir, "pruning-on", "sessions"))).toBe(true);
    expect(existsSync(figures.sessionFile)).toBe(true);
    expect(readdirSync(figures.dir)).toEqual(["pruning-on"]);
    expect(readdirSync(join(figures.dir, "pruning-on"))).toEqual(["sessions"]);
  });

  test("says how to report on the session it kept, and nests no parentheses", () => {
    const text = printed.join("\n");
    expect(text).toContain(`npm run report -- ${figures.sessionFile} --model anthropic/claude-sonnet-4-5`);
    expect(text.split("\n").filter((line) => /\([^()]*\(/.test(line))).toEqual([]);
  });
});
