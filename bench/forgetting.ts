/**
 * bench:forgetting (issues 34 and 42): what the agent could no longer see, counted on recorded trajectories and
 * priced. Every trajectory (pi sessions `*.jsonl`, mini-swe-agent `*.traj.json`, SWE-agent `*.traj`, through
 * the project's converters) is replayed by `/pruner report`'s replay under no extension, the classic policy and
 * the cost policy under each working-set rule (`workingSetPrompts` null, 0: the default, 1); at each main
 * request the agent's recorded reply is checked for items it used that the request no longer showed
 * (src/forgetting/miss-model.ts). Per folder: requests, misses by kind (identifiers, lines of an edit's old
 * text), recoveries per 100 requests, what recovering costs, the session's dollars without and with it; a
 * line per pi session; then one `forgetting:` line per policy over everything, and the targets (issue 42's:
 * the cost policy recovers no more often than classic on each set and each pi session, at most 0.8x classic's
 * rate over all sets, and misses no more edit lines than classic on each pi session). A file that cannot be
 * read is named on a line of its own and skipped; a folder with no readable trajectory exits non-zero.
 * Run: bun bench/forgetting.ts [dir ...] (default: the shared corpus's pi sessions, mini-swe-agent and SWE-agent runs)
 */
import { existsSync } from "node:fs";
import { basename, resolve } from "node:path";
import { replayTrajectory } from "./forgetting-replay.js";
import { addTrajectory, emptyTrajectory, forgettingLines, forgettingTargets, formatSessionLine, formatSetTable, type TrajectoryFigures } from "./forgetting-report.js";
import { sessionTextsIn } from "./retention-runs.js";
import { reportTargets } from "./targets.js";

const CORPUS = ["../shared/corpus", "/work/shared/corpus"].map((dir) => resolve(import.meta.dir, "..", dir)).find(existsSync) ?? "../shared/corpus";
const ARGS = process.argv.slice(2).filter((arg) => !arg.startsWith("--"));
const DIRS = ARGS.length > 0 ? ARGS : [`${CORPUS}/pi-sessions`, `${CORPUS}/mini-swe-agent`, `${CORPUS}/swe-agent`];

/** The cost policy before issue 34's tuning, measured by this bench on the shared corpus (PRUNING.md "What the agent can no longer see"). */
const BASELINE = { dollarsWithRecoveries: 52.5237 };

async function main(): Promise<void> {
  const all = emptyTrajectory();
  const sets: Array<{ name: string; figures: TrajectoryFigures }> = [];
  const sessions: Array<{ name: string; figures: TrajectoryFigures }> = [];
  for (const dir of DIRS) {
    const figures = emptyTrajectory();
    const lines: string[] = [];
    let read = 0;
    for (const text of existsSync(dir) ? sessionTextsIn(dir) : []) {
      const result = "jsonl" in text ? await replayTrajectory(text.jsonl, text.name).catch((err) => `${text.name}: ${String(err)}`) : text.error;
      if (typeof result === "string") {
        console.log(`  skipped ${basename(dir)}/${result}`);
        continue;
      }
      if (result.problems.length > 0) console.log(`  ${basename(dir)}/${text.name}: ${result.problems.length} problem(s) reading the file, the rest replayed (first: ${result.problems[0]!.slice(0, 120)})`);
      read += 1;
      addTrajectory(figures, result.figures);
      if ("pi" in text && text.pi) {
        sessions.push({ name: text.name, figures: result.figures });
        lines.push(formatSessionLine(text.name, result.figures));
      }
    }
    if (read === 0) {
      console.error(`bench:forgetting: no readable trajectory in ${dir}`);
      process.exitCode = 1;
      continue;
    }
    addTrajectory(all, figures);
    sets.push({ name: basename(dir), figures });
    console.log([...formatSetTable(basename(dir), read, figures), ...lines].join("\n"));
  }
  if (sets.length === 0) return;
  console.log(forgettingLines(all).join("\n"));
  reportTargets(forgettingTargets({ sets, sessions, all, baseline: BASELINE }));
}

await main();
