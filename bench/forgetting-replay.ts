// One trajectory replayed for bench:forgetting (issues 34 and 42): no extension, the classic policy, and the
// cost policy under each working-set rule (none, its run only: the default, one prompt more), each as
// `/pruner report`'s replay runs it (the what-if with that configuration), priced at the catalog price of the
// model the trajectory names.
import { getBuiltinModel } from "@earendil-works/pi-ai/providers/all";
import { costModelFor } from "../src/economics/cost-model.js";
import { replaySession } from "../src/report/replay.js";
import { parseSession } from "../src/report/session-parse.js";
import { DEFAULT_CONFIG, type ContextPruneConfig } from "../src/settings/config-shape.js";
import { type PolicyFigures, POLICIES, type Policy, type TrajectoryFigures } from "./forgetting-report.js";

function catalog(provider: string | undefined, id: string | undefined) {
  const model = provider && id ? (getBuiltinModel as (p: string, i: string) => Parameters<typeof costModelFor>[0])(provider, id) : undefined;
  return { cost: costModelFor(model), contextWindow: model?.contextWindow, model };
}

/** The settings each pruned policy runs with: the defaults, but for the flush policy and the working-set rule. */
const SETTINGS: Record<Exclude<Policy, "none">, Partial<ContextPruneConfig>> = {
  classic: { flushPolicy: "classic" },
  "cost-no-set": { flushPolicy: "cost", workingSetPrompts: null },
  cost: { flushPolicy: "cost" },
  "cost-set-1": { flushPolicy: "cost", workingSetPrompts: 1 },
};

type Totals = { requests: number; misses: number; editLineMisses: number; recoveries: number; recoveryDollars: number | undefined; dollars: number | undefined };

function figuresOf(totals: Totals): PolicyFigures {
  return {
    requests: totals.requests,
    misses: totals.misses,
    editLineMisses: totals.editLineMisses,
    recoveries: totals.recoveries,
    recoveryDollars: totals.recoveryDollars ?? 0,
    dollars: totals.dollars ?? 0,
  };
}

/** A trajectory's figures under every policy, with the lines its file could not be read at; or why it cannot be replayed. */
export async function replayTrajectory(jsonl: string, name: string): Promise<{ figures: TrajectoryFigures; problems: string[] } | string> {
  const parsed = parseSession(jsonl);
  if (parsed.branch.length === 0) return `${name}: no entries to replay`;
  const figures = {} as TrajectoryFigures;
  for (const policy of POLICIES) {
    if (policy === "none") continue;
    const config = { ...DEFAULT_CONFIG, enabled: true, ...SETTINGS[policy] };
    const report = await replaySession({ sessionId: name, branch: parsed.branch, problems: parsed.problems, config, overrides: [], costModelOf: catalog });
    const of = (scenario: "none" | "whatif") => figuresOf(report.scenarios.find((s) => s.name === scenario)!.totals);
    if (policy === "classic") {
      figures.none = of("none");
      if (figures.none.requests === 0) return `${name}: no main request to replay`;
    }
    figures[policy] = of("whatif");
  }
  return { figures, problems: parsed.problems.map((p) => p.message) };
}
