import { afterAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { emptyFigures, forgettingLines, forgettingTargets, formatSetTable, type Policy, type PolicyFigures } from "../../bench/forgetting-report.js";

const REPO = resolve(import.meta.dir, "../..");
const BUN = process.execPath;
const CORPUS = ["../shared/corpus", "/work/shared/corpus"].map((dir) => resolve(REPO, dir)).find(existsSync);
const SESSION = join(REPO, "test/fixtures/multi-version-session.jsonl");

const figures = (requests: number, recoveries: number, dollars: number, recoveryDollars = 0): PolicyFigures => ({ requests, misses: recoveries * 2, recoveries, recoveryDollars, dollars });
const set = (none: PolicyFigures, classic: PolicyFigures, cost: PolicyFigures): Record<Policy, PolicyFigures> => ({ none, classic, cost });
const failed = (sets: Array<{ name: string; figures: Record<Policy, PolicyFigures> }>, baseline = { per100: 4, dollarsWithRecoveries: 10 }) => {
  const all = set(emptyFigures(), emptyFigures(), emptyFigures());
  for (const s of sets) for (const p of ["none", "classic", "cost"] as const) for (const k of Object.keys(all[p]) as Array<keyof PolicyFigures>) all[p][k] += s.figures[p][k];
  return forgettingTargets(sets, all, baseline).filter((t) => !t.met).map((t) => t.name);
};

describe("bench:forgetting's figures", () => {
  test("the last lines give each policy's recoveries per 100 requests and their share of the session with them", () => {
    const lines = forgettingLines(set(figures(100, 0, 5), figures(200, 8, 3, 1), figures(200, 2, 2.5, 0.5)));
    expect(lines).toEqual([
      "forgetting: none 0.0 recoveries per 100 requests, $0.0000 (0.0% of the session)",
      "forgetting: classic 4.0 recoveries per 100 requests, $1.0000 (25.0% of the session)",
      "forgetting: cost 1.0 recoveries per 100 requests, $0.5000 (16.7% of the session)",
    ]);
  });

  test("a set's table has a row per policy with requests, misses, the rate, recovery and session dollars without and with it", () => {
    const lines = formatSetTable("mini", 3, set(figures(100, 0, 5), figures(100, 4, 3, 1), figures(100, 1, 2, 0.25)));
    expect(lines[0]).toBe("mini: 3 trajectories");
    expect(lines[1]).toContain("recov/100");
    expect(lines[3]!.replace(/\s+/g, " ").trim()).toBe("classic (2.9.1) 100 8 4.0 1.0000 3.0000 4.0000");
  });
});

describe("bench:forgetting's targets", () => {
  const good = { name: "pi", figures: set(figures(100, 0, 5), figures(100, 4, 3, 1), figures(100, 1, 2, 0.25)) };

  test("hold when no extension recovers nothing, the cost policy is cheapest with recoveries and recovers half as often as before", () => {
    expect(failed([good])).toEqual([]);
  });

  test("a recovery under no extension fails the measure's sanity", () => {
    expect(failed([{ name: "pi", figures: { ...good.figures, none: figures(100, 1, 5) } }])).toEqual(["no extension: 0 recoveries (1)"]);
  });

  test("a cost policy dearer than classic once recoveries are priced fails on that set", () => {
    expect(failed([good, { name: "mini", figures: set(figures(10, 0, 2), figures(10, 0, 1), figures(10, 0, 0.9, 0.2)) }])).toEqual(["mini: cost policy $1.1000 with recoveries <= classic $1.0000"]);
  });

  test("more than half the recoveries of before, or more dollars than before, fails the tuning target", () => {
    expect(failed([good], { per100: 1.9, dollarsWithRecoveries: 10 })).toEqual(["cost policy: 1.0 recoveries per 100 requests <= half of before issue 34 (1.9)"]);
    expect(failed([good], { per100: 4, dollarsWithRecoveries: 2 })).toEqual(["cost policy: $2.25 with recoveries <= before issue 34 ($2.00)"]);
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
