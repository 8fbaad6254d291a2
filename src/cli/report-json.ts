/**
 * The report as one JSON object (`npm run report -- <session.jsonl> --json`), its shape documented in
 * doc/usage.md: the bill pi recorded, and the three configurations in dollars and tokens. "noPruning" and
 * "whatIf" are the simulation (report/replay.ts), never the recorded sum; "asRecorded" is pi's own figure when
 * the session records costs (bill/bill-figures.ts). Dollars are null when the model has no catalog price. Pure.
 */
import { billFigures } from "../bill/bill-figures.js";
import type { ScenarioSeries, ScenarioTotals } from "../bill/series.js";
import type { ReplayReport } from "../report/replay.js";
import type { SightFigures } from "../forgetting/sight-text.js";

type Dollars = number | null;

const usd = (n: number | undefined): Dollars => (n === undefined || !Number.isFinite(n) ? null : Math.round(n * 1e6) / 1e6);
const whole = (n: number): number => Math.round(n);

function totalsJson(t: ScenarioTotals) {
  return {
    requests: t.requests,
    inputTokens: whole(t.input),
    cacheReadTokens: whole(t.cacheRead),
    cacheWriteTokens: whole(t.cacheWrite),
    uncachedTokens: whole(t.uncached),
    outputTokens: whole(t.output),
    peakContextTokens: whole(t.peakContext),
    historyRewrites: t.prefixBreaks,
    coldStarts: t.coldStarts,
    recordedColdStarts: t.recordedColdStarts,
    warmingRefreshes: t.refreshes,
    summaries: t.summarizerCalls,
    summarizerInputTokens: whole(t.summarizerInput),
    summarizerOutputTokens: whole(t.summarizerOutput),
    recoveries: t.recoveries,
    recoveryDollars: usd(t.recoveryDollars),
  };
}

function scenarioJson(series: ScenarioSeries | undefined, dollars: number | undefined) {
  return series ? { dollars: usd(dollars), ...totalsJson(series.totals) } : { dollars: usd(dollars) };
}

/** What the agent went back for as the session ran: live sight's count (forgetting/sight-text.ts). */
function sightJson(sight: SightFigures) {
  return { outputs: sight.outputs, refs: sight.refs, extraRequests: sight.extraRequests, dollars: usd(sight.dollars), byKind: sight.byKind };
}

export function reportJson(report: ReplayReport, session: string, whatIfSettings: string[]) {
  const figures = billFigures(report);
  const find = (name: ScenarioSeries["name"]) => report.scenarios.find((s) => s.name === name);
  return {
    session,
    model: report.model,
    requests: report.requests,
    recorded: {
      dollars: usd(figures.recorded),
      replies: report.recorded.replies,
      repliesWithCost: report.recorded.repliesWithCost,
      warmingRefreshes: report.recorded.refreshes,
      warmingRefreshDollars: usd(report.recorded.refreshDollars),
      summarizerDollars: usd(figures.summarizer),
    },
    noPruning: { simulated: true, ...scenarioJson(find("none"), figures.noPruning) },
    asRecorded: {
      dollars: usd(figures.asRecorded),
      source: figures.asRecordedSource,
      simulatedDollars: usd(figures.asRecordedSimulated),
      ...(find("actual") ? { simulation: totalsJson(find("actual")!.totals) } : {}),
    },
    whatIf: { simulated: true, settings: whatIfSettings, ...scenarioJson(find("whatif"), figures.whatIf) },
    limit: { dollars: usd(report.limit.dollars) },
    cache: { rule: report.cache.rule, ttlMs: report.cost.ttlMs, spareBreakpoint: report.cache.spareBreakpoint },
    tokens: { charsPerToken: Math.round(report.tokens.charsPerToken * 1000) / 1000, calibratedOn: report.tokens.samples },
    ...(report.sight ? { sight: sightJson(report.sight) } : {}),
    notes: report.notes,
    problems: report.problems.map((p) => p.message),
  };
}
