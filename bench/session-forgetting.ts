// What a bench run's agent could no longer see (issue 34): its session file replayed by `/pruner report`'s
// replay, the requests as the run sent them ("as recorded"; the no-extension and compaction runs as pi alone
// sent them), each reply checked by the miss model (src/report/miss-model.ts) and each recovery priced at
// the run's prices.
import { readFileSync } from "node:fs";
import type { ModelCost } from "@earendil-works/pi-ai";
import { costModelFor } from "../src/economics/cost-model.js";
import { replaySession } from "../src/report/replay.js";
import { parseSession } from "../src/report/session-parse.js";
import { DEFAULT_CONFIG, type ContextPruneConfig } from "../src/settings/config-shape.js";

export interface RunForgetting {
  requests: number;
  recoveries: number;
  recoveryUsd: number;
}

/** The session file's recoveries under `prices` (per model id, dollars per million tokens). */
export async function forgettingOf(sessionPath: string, settings: Record<string, unknown> | null, prices: Record<string, ModelCost>): Promise<RunForgetting> {
  const parsed = parseSession(readFileSync(sessionPath, "utf8"));
  const config = { ...DEFAULT_CONFIG, ...(settings ?? {}), enabled: settings !== null } as ContextPruneConfig;
  const costModelOf = (provider: string | undefined, id: string | undefined) => {
    const cost = id ? prices[id] : undefined;
    const model = cost && provider ? ({ provider, id, cost } as unknown as Parameters<typeof costModelFor>[0]) : undefined;
    return { cost: costModelFor(model), contextWindow: undefined };
  };
  const report = await replaySession({ sessionId: "bench", branch: parsed.branch, problems: parsed.problems, config, overrides: [], costModelOf });
  const scenario = report.scenarios.find((s) => s.name === (settings === null ? "none" : "actual")) ?? report.scenarios.find((s) => s.name === "none")!;
  const { requests, recoveries, recoveryDollars } = scenario.totals;
  return { requests, recoveries, recoveryUsd: recoveryDollars ?? 0 };
}
