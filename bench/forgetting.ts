/**
 * bench:forgetting (issue 34): what the agent could no longer see, counted on recorded trajectories and
 * priced. Every trajectory (pi sessions `*.jsonl`, mini-swe-agent `*.traj.json`, SWE-agent `*.traj`, through
 * the project's converters) is replayed by `/pruner report`'s replay under no extension, the classic policy and
 * the cost policy (the what-if with each); at each main request the agent's recorded reply is checked for
 * items it used that the request no longer showed (src/report/miss-model.ts). Per folder: requests, misses,
 * recoveries per 100 requests, what recovering costs, the session's dollars without and with it; then one
 * `forgetting:` line per policy over everything, and the targets. A file that cannot be read is named on a
 * line of its own and skipped; a folder with no readable trajectory exits non-zero.
 * Run: bun bench/forgetting.ts [dir ...] (default: the shared corpus's pi sessions, mini-swe-agent and SWE-agent runs)
 */
import { existsSync } from "node:fs";
import { basename, resolve } from "node:path";
import { replayTrajectory } from "./forgetting-replay.js";
import { addFigures, emptyFigures, forgettingLines, forgettingTargets, formatSetTable, type Policy, type PolicyFigures, POLICIES } from "./forgetting-report.js";
import { sessionTextsIn } from "./retention-runs.js";
import { reportTargets } from "./targets.js";

const CORPUS = ["../shared/corpus", "/work/shared/corpus"].map((dir) => resolve(import.meta.dir, "..", dir)).find(existsSync) ?? "../shared/corpus";
const ARGS = process.argv.slice(2).filter((arg) => !arg.startsWith("--"));
const DIRS = ARGS.length > 0 ? ARGS : [`${CORPUS}/pi-sessions`, `${CORPUS}/mini-swe-agent`, `${CORPUS}/swe-agent`];

/** The cost policy before issue 34's tuning, measured by this bench on the shared corpus (PRUNING.md "What the agent can no longer see"). */
const BASELINE = { per100: 3.5, dollarsWithRecoveries: 52.5237 };

async function main(): Promise<void> {
  const all = { none: emptyFigures(), classic: emptyFigures(), cost: emptyFigures() };
  const sets: Array<{ name: string; figures: Record<Policy, PolicyFigures> }> = [];
  for (const dir of DIRS) {
    const figures = { none: emptyFigures(), classic: emptyFigures(), cost: emptyFigures() };
    let read = 0;
    for (const text of existsSync(dir) ? sessionTextsIn(dir) : []) {
      const result = "jsonl" in text ? await replayTrajectory(text.jsonl, text.name).catch((err) => `${text.name}: ${String(err)}`) : text.error;
      if (typeof result === "string") {
        console.log(`  skipped ${basename(dir)}/${result}`);
        continue;
      }
      if (result.problems.length > 0) console.log(`  ${basename(dir)}/${text.name}: ${result.problems.length} problem(s) reading the file, the rest replayed (first: ${result.problems[0]!.slice(0, 120)})`);
      read += 1;
      for (const p of POLICIES) addFigures(figures[p], result.figures[p]);
    }
    if (read === 0) {
      console.error(`bench:forgetting: no readable trajectory in ${dir}`);
      process.exitCode = 1;
      continue;
    }
    for (const p of POLICIES) addFigures(all[p], figures[p]);
    sets.push({ name: basename(dir), figures });
    console.log(formatSetTable(basename(dir), read, figures).join("\n"));
  }
  if (sets.length === 0) return;
  console.log(forgettingLines(all).join("\n"));
  reportTargets(forgettingTargets(sets, all, BASELINE));
}

await main();
