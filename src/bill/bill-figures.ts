/**
 * The report's dollars against the bill: "as recorded" is pi's own figure for
 * the branch (what each reply, refresh and compaction recorded) plus the
 * summarizer's spend as pi-condense recorded it, whenever the session records
 * costs; the simulation of the same run is shown beside it as a check. "No
 * pruning" and "what-if" are always the simulation (report/replay.ts), never a copy
 * of the recorded sum. Pure.
 */
import type { RecordedBill } from "./recorded-bill.js";
import type { ScenarioSeries } from "./series.js";

/** What the figures read of a report (report/replay.ts's `ReplayReport`). */
export interface BilledReport {
  requests: number;
  scenarios: ScenarioSeries[];
  recorded: RecordedBill;
}

export interface BillFigures {
  /** pi's own figure for the branch's main model (replies, warming refreshes, compactions), or undefined. */
  recorded: number | undefined;
  /** The summarizer's spend as pi-condense's stats recorded it (sessions it pruned), else undefined. */
  summarizer: number | undefined;
  /** What the session cost as it ran: recorded when it records costs, else the simulation's. */
  asRecorded: number | undefined;
  asRecordedSource: "recorded" | "simulated";
  /** The simulation of what was sent: the as-recorded run, or pi alone for a session without pi-condense entries. */
  asRecordedSimulated: number | undefined;
  noPruning: number | undefined;
  whatIf: number | undefined;
}

function scenario(report: BilledReport, name: ScenarioSeries["name"]): ScenarioSeries | undefined {
  return report.scenarios.find((s) => s.name === name);
}

export function billFigures(report: BilledReport): BillFigures {
  const actual = scenario(report, "actual");
  const none = scenario(report, "none");
  const simulated = (actual ?? none)?.totals.dollars;
  const summarizer = actual ? (summarizerDollars(actual, simulated) ?? 0) : undefined;
  const recorded = report.recorded.dollars;
  const asRecorded = recorded === undefined ? simulated : recorded + (summarizer ?? 0);
  return {
    recorded,
    summarizer,
    asRecorded,
    asRecordedSource: recorded === undefined ? "simulated" : "recorded",
    asRecordedSimulated: simulated,
    noPruning: none?.totals.dollars,
    whatIf: scenario(report, "whatif")?.totals.dollars,
  };
}

/** The as-recorded run's summarizer dollars: its total less the main model's (its last cumulative figure). */
function summarizerDollars(actual: ScenarioSeries, total: number | undefined): number | undefined {
  if (total === undefined) return undefined;
  const main = actual.cumulativeCost.at(-1) ?? 0;
  return Math.max(0, total - main);
}

function usd(n: number): string {
  return `$${n.toFixed(n >= 100 ? 2 : 4)}`;
}

function share(simulated: number, recorded: number): string {
  if (!(recorded > 0)) return "";
  const diff = (simulated / recorded - 1) * 100;
  return `, ${diff >= 0 ? "+" : ""}${diff.toFixed(1)}% of it`;
}

/** The bill in words: pi's own figure, and the simulation of the same run beside it as a check. */
export function billLines(report: BilledReport): string[] {
  const figures = billFigures(report);
  const bill = report.recorded;
  if (figures.recorded === undefined) {
    return report.requests === 0 ? [] : ["recorded bill: none (the replies record no cost); every dollar below is the simulation's"];
  }
  const refreshes = bill.refreshes > 0 ? `, ${bill.refreshes} cache-warming ${bill.refreshes === 1 ? "refresh" : "refreshes"}` : "";
  const what = `pi's own figure for the ${bill.replies} ${bill.replies === 1 ? "reply" : "replies"}${refreshes}`;
  const simulated = figures.asRecordedSimulated;
  if (figures.summarizer === undefined) {
    const check = simulated === undefined ? "" : `; the simulation of it (no pruning): ${usd(simulated)}${share(simulated, figures.recorded)}`;
    return [`recorded bill: ${usd(figures.recorded)}, ${what}${check}`];
  }
  const check = simulated === undefined ? "" : `; simulated: ${usd(simulated)}${share(simulated, figures.asRecorded!)}`;
  return [`as recorded: ${usd(figures.asRecorded!)}, ${what} (${usd(figures.recorded)}) plus the summarizer's ${usd(figures.summarizer)} as pi-condense recorded it${check}`];
}
