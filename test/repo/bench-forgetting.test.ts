import { afterAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { emptyFigures, forgettingLines, forgettingTargets, formatSessionLine, formatSetTable, POLICIES, type PolicyFigures, type TrajectoryFigures } from "../../bench/forgetting-report.js";

const REPO = resolve(import.meta.dir, "../..");
const BUN = process.execPath;
const CORPUS = ["../shared/corpus", "/work/shared/corpus"].map((dir) => resolve(REPO, dir)).find(existsSync);
const SESSION = join(REPO, "test/fixtures/multi-version-session.jsonl");

const figures = (requests: number, recoveries: number, dollars: number, recoveryDollars = 0, editLineMisses = 0): PolicyFigures => ({ requests, misses: recoveries * 2 + editLineMisses, editLineMisses, recoveries, recoveryDollars, dollars });
/** The cost policy under every working-set rule at the same figures unless given. */
const set = (none: PolicyFigures, classic: PolicyFigures, cost: PolicyFigures, others: Partial<TrajectoryFigures> = {}): TrajectoryFigures => ({ none, classic, "cost-no-set": cost, cost, "cost-set-1": cost, ...others });
const sum = (sets: TrajectoryFigures[]): TrajectoryFigures => {
  const all = set(emptyFigures(), emptyFigures(), emptyFigures(), { "cost-no-set": emptyFigures(), "cost-set-1": emptyFigures() });
  for (const s of sets) for (const p of POLICIES) for (const k of Object.keys(all[p]) as Array<keyof PolicyFigures>) all[p][k] += s[p][k];
  return all;
};
const failed = (sets: Array<{ name: string; figures: TrajectoryFigures }>, sessions: Array<{ name: string; figures: TrajectoryFigures }> = [], baseline = { dollarsWithRecoveries: 10 }) =>
  forgettingTargets({ sets, sessions, all: sum(sets.map((s) => s.figures)), baseline })
    .filter((t) => !t.met)
    .map((t) => t.name);

describe("bench:forgetting's figures", () => {
  test("the last lines give each policy's recoveries per 100 requests, their share of the session with them and the missing edit lines", () => {
    const lines = forgettingLines(set(figures(100, 0, 5), figures(200, 8, 3, 1, 7), figures(200, 2, 2.5, 0.5, 3)));
    expect(lines).toEqual([
      "forgetting: none 0.0 recoveries per 100 requests, $0.0000 (0.0% of the session), 0 missing edit lines",
      "forgetting: classic 4.0 recoveries per 100 requests, $1.0000 (25.0% of the session), 7 missing edit lines",
      "forgetting: cost-no-set 1.0 recoveries per 100 requests, $0.5000 (16.7% of the session), 3 missing edit lines",
      "forgetting: cost 1.0 recoveries per 100 requests, $0.5000 (16.7% of the session), 3 missing edit lines",
      "forgetting: cost-set-1 1.0 recoveries per 100 requests, $0.5000 (16.7% of the session), 3 missing edit lines",
    ]);
  });

  test("a set's table has a row per policy and working-set rule with misses by kind, the rate, recovery and session dollars", () => {
    const lines = formatSetTable("mini", 3, set(figures(100, 0, 5), figures(100, 4, 3, 1, 5), figures(100, 1, 2, 0.25)));
    expect(lines[0]).toBe("mini: 3 trajectories (misses by kind: identifiers, edit old-text lines)");
    expect(lines[1]).toContain("edit lines");
    expect(lines[3]!.replace(/\s+/g, " ").trim()).toBe("classic (2.9.1) 100 8 5 4.0 1.0000 3.0000 4.0000");
    expect(lines).toHaveLength(2 + POLICIES.length);
  });

  test("a pi session's line gives the rate and the missing edit lines under classic and each working-set rule", () => {
    const line = formatSessionLine("session", set(figures(200, 0, 5), figures(200, 20, 3, 1, 18), figures(200, 10, 2, 0.25, 9)));
    expect(line).toBe("  session (200 requests; recov/100 / missing edit lines): classic (2.9.1) 10.0 / 18, cost, no set 5.0 / 9, cost policy 5.0 / 9, cost, set +1 5.0 / 9");
  });
});

describe("bench:forgetting's targets", () => {
  const good = { name: "pi", figures: set(figures(100, 0, 5), figures(100, 4, 3, 1, 6), figures(100, 1, 2, 0.25, 2)) };

  test("hold when no extension recovers nothing and the cost policy is cheapest and recovers less, pooled and on each set and session", () => {
    expect(failed([good], [good])).toEqual([]);
  });

  test("a recovery under no extension fails the measure's sanity", () => {
    expect(failed([{ name: "pi", figures: { ...good.figures, none: figures(100, 1, 5) } }])).toEqual(["no extension: 0 recoveries (1)"]);
  });

  test("a cost policy dearer than classic once recoveries are priced fails on that set", () => {
    expect(failed([good, { name: "mini", figures: set(figures(10, 0, 2), figures(10, 0, 1), figures(10, 0, 0.9, 0.2)) }])).toEqual(["mini: cost policy $1.1000 with recoveries <= classic $1.0000"]);
  });

  test("a cost policy that recovers more often than classic fails on that set, and pooled past 0.8x classic's rate", () => {
    const worse = { name: "mini", figures: set(figures(100, 0, 5), figures(100, 2, 3, 1), figures(100, 5, 2, 0.25)) };
    expect(failed([good, worse])).toEqual(["mini: cost policy 5.0 recoveries per 100 requests <= classic 2.0", "all sets: cost policy 3.00 recoveries per 100 requests <= 0.8x classic's 3.00"]);
  });

  test("a pi session where the cost policy recovers more often or misses more edit lines than classic fails on that session", () => {
    const session = { name: "s", figures: set(figures(100, 0, 5), figures(100, 2, 3, 1, 4), figures(100, 3, 2, 0.25, 5)) };
    expect(failed([good], [session])).toEqual(["pi session s: cost policy 3.0 recoveries per 100 requests <= classic 2.0", "pi session s: cost policy 5 missing edit lines <= classic 4"]);
  });

  test("more dollars with recoveries than before issue 34 fails the tuning target", () => {
    expect(failed([good], [], { dollarsWithRecoveries: 2 })).toEqual(["cost policy: $2.25 with recoveries <= before issue 34 ($2.00)"]);
  });
});

describe("bench:forgetting on bad input", () => {
  const dirs: string[] = [];
  const folder = (files: Record<string, string>) => {
    const dir = mkdtempSync(join(tmpdir(), "forgetting-"));
    dirs.push(dir);
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    return dir;
  };
  const run = (dir: string) => Bun.spawnSync([BUN, join(REPO, "bench/forgetting.ts"), dir], { cwd: REPO, stdout: "pipe", stderr: "pipe" });
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  test("a folder with no readable trajectory exits non-zero and says which folder", () => {
    const dir = folder({ "broken.traj.json": '{"messages": [{"role": "sys', "empty.jsonl": "" });
    const out = run(dir);
    expect(out.exitCode).not.toBe(0);
    expect(out.stderr.toString()).toContain(`bench:forgetting: no readable trajectory in ${dir}`);
    expect(out.stdout.toString()).toContain("skipped");
    expect(out.stdout.toString()).toContain("/broken.traj.json: JSON Parse error");
  });

  test("a truncated file is named on its own line and the readable ones are still measured", () => {
    const dir = folder({ "cut.traj.json": '{"info": {}, "messages": [' });
    copyFileSync(SESSION, join(dir, "whole.jsonl"));
    const text = readFileSync(SESSION, "utf8");
    writeFileSync(join(dir, "half.jsonl"), text.slice(0, Math.floor(text.length * 0.6)));
    const out = run(dir);
    const stdout = out.stdout.toString();
    expect(out.exitCode).toBe(0);
    expect(stdout).toMatch(/skipped forgetting-\w+\/cut\.traj\.json: /);
    expect(stdout).toMatch(/forgetting-\w+\/half: 1 problem\(s\) reading the file/);
    expect(stdout).toContain(": 2 trajectories");
    expect(stdout.trimEnd().split("\n").at(-1)).toMatch(/^targets met: \d+\/\d+$/);
  });
});

describe.skipIf(CORPUS === undefined)("the miss model on the shared corpus", () => {
  const misses = (mode: "on" | "off") => {
    const out = Bun.spawnSync([BUN, join(REPO, "test/fixtures/forgetting-misses.ts"), mode, join(CORPUS!, "pi-sessions"), join(CORPUS!, "mini-swe-agent")], { cwd: REPO, stdout: "pipe", stderr: "pipe" });
    if (out.exitCode !== 0) throw new Error(out.stderr.toString());
    return JSON.parse(out.stdout.toString()) as { misses: number; recoveries: number };
  };

  test("counts more misses with digests turned off: the measure sees what a digest keeps", () => {
    const on = misses("on");
    const off = misses("off");
    expect(on.misses).toBeGreaterThan(0);
    expect(off.misses).toBeGreaterThan(on.misses);
    expect(off.recoveries).toBeGreaterThan(on.recoveries);
  }, 120_000);
});
