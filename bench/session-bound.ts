// The bound on waiting over generated sessions (test/bound-sessions.ts), for bench:session's targets:
// each session replayed by the report under the classic and the cost policy; the cost policy must cost at
// most classic plus its bets' bound, and every deferral's regret stay within what it owed plus one step.
import fc from "fast-check";
import { boundCases, checkBound } from "../test/bound-sessions.js";
import type { Target } from "./targets.js";

export interface BoundRun {
  lines: string[];
  targets: Target[];
}

export async function runBoundCheck(runs: number, seed = 33): Promise<BoundRun> {
  const started = performance.now();
  let held = 0;
  let accounts = 0;
  let cost = 0;
  let classic = 0;
  let cheaper = 0;
  let deferrals = 0;
  let bound = 0;
  let worst = 0;
  for (const gen of fc.sample(boundCases, { numRuns: runs, seed })) {
    const r = await checkBound(gen);
    if (r.held) held++;
    if (r.accountsHeld) accounts++;
    if (r.cost <= r.classic) cheaper++;
    cost += r.cost;
    classic += r.classic;
    deferrals += r.deferrals;
    bound += r.boundRewrites;
    worst = Math.max(worst, (r.cost - r.classic) / Math.max(r.bound, 1e-9));
  }
  const secs = ((performance.now() - started) / 1000).toFixed(0);
  const lines = [
    `bound on waiting: ${runs} generated sessions replayed under classic and the cost policy (${secs} s, seed ${seed})`,
    `  cost policy $${cost.toFixed(2)} against classic $${classic.toFixed(2)} (${(cost / classic).toFixed(3)}x); cheaper or equal in ${cheaper} sessions`,
    `  ${deferrals} deferrals, ${bound} of them ended by the bound; the largest excess over classic was ${(worst * 100).toFixed(0)}% of its session's bound`,
  ];
  const targets = [
    { name: `bound on waiting: cost policy at most classic plus its bets' bound in every generated session (${held}/${runs})`, met: held === runs },
    { name: `bound on waiting: every deferral's regret within what it owed plus one step (${accounts}/${runs} sessions)`, met: accounts === runs },
  ];
  return { lines, targets };
}
