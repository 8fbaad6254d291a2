// One trajectory replayed for bench:forgetting (issue 34): no extension, the classic policy and the cost
// policy, each as `/pruner report`'s replay runs it (the what-if with that policy), priced at the catalog
// price of the model the trajectory names.
import { getBuiltinModel } from "@earendil-works/pi-ai/providers/all";
import { costModelFor } from "../src/economics/cost-model.js";
import { replaySession } from "../src/report/replay.js";
import { parseSession } from "../src/report/session-parse.js";
import { DEFAULT_CONFIG, type ContextPruneConfig } from "../src/settings/config-shape.js";
import type { PolicyFigures, TrajectoryFigures } from "./forgetting-report.js";

function catalog(provider: string | undefined, id: string | undefined) {
  const model = provider && id ? (getBuiltinModel as (p: string, i: string) => Parameters<typeof costModelFor>[0])(provider, id) : undefined;
  return { cost: costModelFor(model), contextWindow: model?.contextWindow, model };
}

function configOf(policy: "classic" | "cost"): ContextPruneConfig {
  return { ...DEFAULT_CONFIG, enabled: true, flushPolicy: policy };
}

function figuresOf(totals: { requests: number; misses: number; recoveries: number; recoveryDollars: number | undefined; dollars: number | undefined }): PolicyFigures {
  return { requests: totals.requests, misses: totals.misses, recoveries: totals.recoveries, recoveryDollars: totals.recoveryDollars ?? 0, dollars: totals.dollars ?? 0 };
}

/** A trajectory's figures under the three policies, with the lines its file could not be read at; or why it cannot be replayed. */
export async function replayTrajectory(jsonl: string, name: string): Promise<{ figures: TrajectoryFigures; problems: string[] } | string> {
  const parsed = parseSession(jsonl);
  if (parsed.branch.length === 0) return `${name}: no entries to replay`;
  const replay = (policy: "classic" | "cost") => replaySession({ sessionId: name, branch: parsed.branch, problems: parsed.problems, config: configOf(policy), overrides: [], costModelOf: catalog });
  const [classic, cost] = [await replay("classic"), await replay("cost")];
  const of = (report: typeof classic, scenario: "none" | "whatif") => figuresOf(report.scenarios.find((s) => s.name === scenario)!.totals);
  if (of(classic, "none").requests === 0) return `${name}: no main request to replay`;
  return { figures: { none: of(classic, "none"), classic: of(classic, "whatif"), cost: of(cost, "whatif") }, problems: parsed.problems.map((p) => p.message) };
}
