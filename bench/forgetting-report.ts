// bench:forgetting's figures, table and targets (issue 34). Pure: per trajectory, each policy's totals from the
// report's replay; per set and overall, requests, misses, recoveries per 100 requests, what recovering costs,
// and the session's dollars without and with it.
import type { Target } from "./targets.js";

export const POLICIES = ["none", "classic", "cost"] as const;
export type Policy = (typeof POLICIES)[number];

export interface PolicyFigures {
  requests: number;
  misses: number;
  recoveries: number;
  recoveryDollars: number;
  dollars: number;
}

export type TrajectoryFigures = Record<Policy, PolicyFigures>;

/** The cost policy as it stood before issue 34, on the shared corpus: recoveries per 100 requests and session $ with recoveries. */
export interface Baseline {
  per100: number;
  dollarsWithRecoveries: number;
}

/** The baseline's dollars are written to four decimals: a session at them within that rounding is no dearer. */
const BASELINE_ROUNDING = 0.00005;

const LABEL: Record<Policy, string> = { none: "no extension", classic: "classic (2.9.1)", cost: "cost policy" };

export function emptyFigures(): PolicyFigures {
  return { requests: 0, misses: 0, recoveries: 0, recoveryDollars: 0, dollars: 0 };
}

export function addFigures(into: PolicyFigures, from: PolicyFigures): void {
  into.requests += from.requests;
  into.misses += from.misses;
  into.recoveries += from.recoveries;
  into.recoveryDollars += from.recoveryDollars;
  into.dollars += from.dollars;
}

export function per100(f: PolicyFigures): number {
  return f.requests === 0 ? 0 : (100 * f.recoveries) / f.requests;
}

export function withRecoveries(f: PolicyFigures): number {
  return f.dollars + f.recoveryDollars;
}

const pad = (text: string, width: number) => text.padStart(width);

export function formatSetTable(name: string, trajectories: number, figures: Record<Policy, PolicyFigures>): string[] {
  const head = `${"".padEnd(18)}${pad("requests", 9)}${pad("misses", 8)}${pad("recov/100", 10)}${pad("recovery $", 12)}${pad("session $", 11)}${pad("with recov", 12)}`;
  const rows = POLICIES.map((p) => {
    const f = figures[p];
    return `${LABEL[p].padEnd(18)}${pad(String(f.requests), 9)}${pad(String(f.misses), 8)}${pad(per100(f).toFixed(1), 10)}${pad(f.recoveryDollars.toFixed(4), 12)}${pad(f.dollars.toFixed(4), 11)}${pad(withRecoveries(f).toFixed(4), 12)}`;
  });
  return [`${name}: ${trajectories} trajectories`, `  ${head}`, ...rows.map((row) => `  ${row}`)];
}

/** The last lines before the targets: one per policy over every set. */
export function forgettingLines(all: Record<Policy, PolicyFigures>): string[] {
  return POLICIES.map((p) => {
    const f = all[p];
    const share = withRecoveries(f) === 0 ? 0 : (100 * f.recoveryDollars) / withRecoveries(f);
    return `forgetting: ${p} ${per100(f).toFixed(1)} recoveries per 100 requests, $${f.recoveryDollars.toFixed(4)} (${share.toFixed(1)}% of the session)`;
  });
}

export function forgettingTargets(sets: Array<{ name: string; figures: Record<Policy, PolicyFigures> }>, all: Record<Policy, PolicyFigures>, baseline: Baseline): Target[] {
  const targets: Target[] = [{ name: `no extension: 0 recoveries (${all.none.recoveries})`, met: all.none.recoveries === 0 }];
  for (const { name, figures } of sets) {
    const cost = withRecoveries(figures.cost);
    targets.push({ name: `${name}: cost policy $${cost.toFixed(4)} with recoveries <= classic $${withRecoveries(figures.classic).toFixed(4)}`, met: cost <= withRecoveries(figures.classic) });
    targets.push({ name: `${name}: cost policy $${cost.toFixed(4)} with recoveries <= no extension $${withRecoveries(figures.none).toFixed(4)}`, met: cost <= withRecoveries(figures.none) });
  }
  const rate = per100(all.cost);
  targets.push({ name: `cost policy: ${rate.toFixed(1)} recoveries per 100 requests <= half of before issue 34 (${baseline.per100.toFixed(1)})`, met: rate <= baseline.per100 / 2 });
  const dollars = withRecoveries(all.cost);
  targets.push({ name: `cost policy: $${dollars.toFixed(2)} with recoveries <= before issue 34 ($${baseline.dollarsWithRecoveries.toFixed(2)})`, met: dollars <= baseline.dollarsWithRecoveries + BASELINE_ROUNDING });
  return targets;
}
