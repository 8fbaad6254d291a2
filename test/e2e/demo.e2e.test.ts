// `npm run demo` against the README's quote of its output (issue 28 item 1): the measured reclaim and
// dollars stay within a stated tolerance of what the README shows, so the quote cannot silently drift.
import { describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { dirname } from "node:path";
import { runDemo } from "../../demo/run.js";
import { readmeDemoOutput } from "../../demo/readme-quote.js";
import { REPO_ROOT } from "./harness.js";

/** Percentage points the reclaim may move, and the share either dollar figure may move, before the README is stale. */
const RECLAIM_POINTS = 5;
const DOLLAR_SHARE = 0.2;

describe("npm run demo", () => {
  test("measures what the README quotes, within its tolerance", async () => {
    const printed: string[] = [];
    const figures = await runDemo(false, (line) => printed.push(line));
    rmSync(dirname(dirname(figures.sessionFile)), { recursive: true, force: true });
    const quoted = readmeDemoOutput(REPO_ROOT);
    const reclaim = Number(/reclaim: ([\d.]+)%/.exec(quoted)?.[1]);
    const [, off, on] = /dollars: \$([\d.]+) without pruning, \$([\d.]+) with it/.exec(quoted) ?? [];
    expect(Math.abs(figures.reclaimPct - reclaim)).toBeLessThanOrEqual(RECLAIM_POINTS);
    expect(Math.abs(figures.dollarsOff / Number(off) - 1)).toBeLessThanOrEqual(DOLLAR_SHARE);
    expect(Math.abs(figures.dollarsOn / Number(on) - 1)).toBeLessThanOrEqual(DOLLAR_SHARE);
    const compressed = /earlier prompts' work compressed: (.*)/.exec(quoted)?.[1];
    expect(figures.compressed).toBe(compressed!);
    expect(printed.join("\n")).toContain("verbatim match with the original bash output: yes");
  }, 240_000);
});
