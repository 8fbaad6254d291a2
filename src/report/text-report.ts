/**
 * The report as text for the TUI, within 78 columns (an 80-column terminal
 * less the report entry's padding of one on each side): a block chart of the
 * context tokens per request for each configuration on one scale, the totals
 * table and the limit with each configuration's ratio to it, then how summaries and tokens were estimated, the notes and the
 * problems found in the file. Pure.
 */
import { sightLine } from "../forgetting/sight-text.js";
import { formatCompactCount } from "../summarize/stats.js";
import { cacheRuleMeaning, cacheRuleWords, retentionWords } from "../economics/cache-route.js";
import type { CacheReport, ReplayReport, ScenarioSeries, ScenarioTotals } from "./replay.js";
import { billFigures, billLines } from "../bill/bill-figures.js";

export const REPORT_WIDTH = 78;
const LABEL_WIDTH = 14;
const CHART_ROWS = 3;
const BLOCKS = [" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"];
const PEAK_WIDTH = 7;
const LOOKBACK_ROW = "out of lookback";
const REFRESH_ROW = "warming refreshes";
const SIMULATED_ROW = "  simulated";

export function tokens(n: number): string {
  return formatCompactCount(Math.round(n));
}

export function dollars(n: number | undefined): string {
  if (n === undefined) return "unpriced";
  if (n > 0 && n < 0.0001) return "<$0.0001";
  return `$${n.toFixed(n >= 100 ? 2 : 4)}`;
}

export function percent(share: number): string {
  return `${(share * 100).toFixed(share < 0.1 ? 1 : 0)}%`;
}

/**
 * Each column is the largest request of its bucket, so a spike is never averaged away;
 * a session with fewer requests than columns is stretched to the full width.
 */
export function bucketMax(values: number[], columns: number): number[] {
  if (values.length === 0) return [];
  if (values.length <= columns) return Array.from({ length: columns }, (_, c) => values[Math.floor((c * values.length) / columns)]!);
  const out: number[] = [];
  for (let c = 0; c < columns; c++) {
    const from = Math.floor((c * values.length) / columns);
    const to = Math.max(from + 1, Math.floor(((c + 1) * values.length) / columns));
    let max = 0;
    for (let i = from; i < to; i++) max = Math.max(max, values[i]!);
    out.push(max);
  }
  return out;
}

function chartRows(values: number[], peak: number): string[] {
  const levels = CHART_ROWS * 8;
  const heights = values.map((v) => (peak > 0 ? Math.round((v / peak) * levels) : 0));
  const rows: string[] = [];
  for (let row = CHART_ROWS - 1; row >= 0; row--) {
    rows.push(heights.map((h) => BLOCKS[Math.max(0, Math.min(8, h - row * 8))]).join(""));
  }
  return rows;
}

export function chartText(scenarios: ScenarioSeries[], width = REPORT_WIDTH): string[] {
  const columns = width - LABEL_WIDTH - PEAK_WIDTH - 2;
  const requests = scenarios[0]?.context.length ?? 0;
  const peak = Math.max(0, ...scenarios.map((s) => s.totals.peakContext));
  const perColumn = requests > columns ? ` (a column: the largest of ${Math.ceil(requests / columns)} requests)` : "";
  const lines = [`context tokens per request, 1 to ${requests}${perColumn}`];
  for (const scenario of scenarios) {
    const rows = chartRows(bucketMax(scenario.context, columns), peak);
    rows.forEach((row, i) => {
      const label = i === rows.length - 1 ? scenario.label.slice(0, LABEL_WIDTH - 3) : "";
      const end = i === 0 ? tokens(scenario.totals.peakContext).padStart(PEAK_WIDTH) : "";
      lines.push(`  ${label.padEnd(LABEL_WIDTH - 2)}${row.padEnd(columns)} ${end}`.trimEnd());
    });
  }
  return lines;
}

const ROWS: Array<[string, (t: ScenarioTotals) => string]> = [
  ["input tokens", (t) => tokens(t.input)],
  ["cache read", (t) => tokens(t.cacheRead)],
  ["cache write", (t) => tokens(t.cacheWrite)],
  ["not cached", (t) => tokens(t.uncached)],
  ["output tokens", (t) => tokens(t.output)],
  ["summarizer in", (t) => tokens(t.summarizerInput)],
  ["summarizer out", (t) => tokens(t.summarizerOutput)],
  ["summaries", (t) => String(t.summarizerCalls)],
  ["history rewrites", (t) => String(t.prefixBreaks)],
  ["empty cache", (t) => String(t.coldStarts)],
  [REFRESH_ROW, (t) => String(t.refreshes)],
  [LOOKBACK_ROW, (t) => String(t.lookbackMisses)],
  ["peak context", (t) => tokens(t.peakContext)],
  ["dollars", (t) => dollars(t.dollars)],
];

/**
 * Rows of the totals table under a cache rule: requests out of lookback exist only under Anthropic's,
 * warming refreshes only where pi's cache warming sent some.
 */
export function rowsFor<Row extends [string, unknown]>(rows: Row[], cache: CacheReport | undefined, refreshes = false): Row[] {
  return rows.filter(([name]) => (name !== LOOKBACK_ROW || cache?.rule === "anthropic-breakpoints") && (name !== REFRESH_ROW || refreshes));
}

/**
 * The totals per configuration. With `report`, the as-recorded column's dollars are pi's own figure and the
 * simulation of that run follows on a row of its own, as a check.
 */
export function totalsTable(scenarios: ScenarioSeries[], cache?: CacheReport, report?: ReplayReport): string[] {
  const cell = Math.min(18, Math.floor((REPORT_WIDTH - 18) / Math.max(1, scenarios.length)));
  const head = `  ${"".padEnd(16)}${scenarios.map((s) => s.label.slice(0, cell - 1).padStart(cell)).join("")}`;
  const refreshes = scenarios.some((s) => s.totals.refreshes > 0);
  const figures = report ? billFigures(report) : undefined;
  const recorded = figures?.asRecordedSource === "recorded" && scenarios.some((s) => s.name === "actual");
  const cellOf = (name: string, value: (t: ScenarioTotals) => string, s: ScenarioSeries): string => {
    if (!recorded || s.name !== "actual") return name === SIMULATED_ROW ? "" : value(s.totals);
    return name === "dollars" ? dollars(figures!.asRecorded) : value(s.totals);
  };
  const rows = rowsFor(ROWS, cache, refreshes);
  const withCheck = recorded ? rows.flatMap((row) => (row[0] === "dollars" ? [row, [SIMULATED_ROW, (t: ScenarioTotals) => dollars(t.dollars)] as [string, (t: ScenarioTotals) => string]] : [row])) : rows;
  const body = withCheck.map(([name, value]) => `  ${name.padEnd(16)}${scenarios.map((s) => cellOf(name, value, s).padStart(cell)).join("")}`.trimEnd());
  return [head, ...body];
}

/**
 * The cache rule the replay priced by (the model's route, its retention, or why it cannot be priced), and
 * on a breakpoint route the what-if with pi-condense's spare breakpoint and without it (in dollars, or
 * cache-write tokens when the model is unpriced).
 */
export function cacheLines(report: ReplayReport): string[] {
  const cache = report.cache;
  const words = `cache rule: ${cacheRuleWords(cache.rule, cache.route.wire)}`;
  if (cache.route.problem) return [`${words} (${cache.route.problem})`];
  if (cache.rule !== "anthropic-breakpoints") return [`${words} (${cache.api ?? "API not recorded"})`, `  (${cacheRuleMeaning(cache.rule)})`];
  const rule = `${words}, ${
    cache.spareBreakpoint ? "with pi-condense's spare breakpoint" : "without pi-condense's spare breakpoint (cacheBreakpoint off)"
  }; ${retentionWords(cache.route.retention, report.cost.ttlMs)}`;
  const meaning = `  (${cacheRuleMeaning(cache.rule, cache.spareBreakpoint)})`;
  const whatIf = report.scenarios.find((s) => s.name === "whatif");
  const other = cache.whatIfOther;
  if (!whatIf || !other) return [rule, meaning];
  const withIt = other.spareBreakpoint ? other.totals : whatIf.totals;
  const without = other.spareBreakpoint ? whatIf.totals : other.totals;
  const figure = (t: ScenarioTotals) => (report.cost.priced ? dollars(t.dollars) : `${tokens(t.cacheWrite)} cache write`);
  const prefix = cache.whatIfPrefix ? `; under the longest-prefix rule, had the provider read the longest start shared with any earlier request: ${figure(cache.whatIfPrefix)}` : "";
  return [rule, meaning, `what-if with the spare breakpoint: ${figure(withIt)}; without it: ${figure(without)}${prefix}`];
}

/** Times the limit, two decimals under 10. */
function timesLimit(dollars: number, limit: number): string {
  const ratio = dollars / limit;
  return `${ratio.toFixed(ratio < 10 ? 2 : 1)}x`;
}

/**
 * The limit of the session (economics/cost-floor.ts) and each configuration's dollars against it; the
 * alternative bills of the cache-rule line are left out (they are other bills of the what-if).
 */
export function limitLines(report: ReplayReport): string[] {
  const limit = report.limit;
  const parts = `each block written to the cache once (${tokens(limit.written + limit.uncached)} tokens), the replies (${tokens(limit.output)}), tools and system read by every request (${tokens(limit.fixedRead)})`;
  if (limit.dollars === undefined) return [`limit: ${parts}; no dollars without a catalog price`];
  const head = `limit: ${dollars(limit.dollars)}, the least this session can cost: ${parts}`;
  if (!(limit.dollars > 0)) return [head];
  const ratios = report.scenarios.filter((s) => s.totals.dollars !== undefined).map((s) => `${s.label} ${timesLimit(s.totals.dollars!, limit.dollars!)}`);
  return ratios.length === 0 ? [head] : [head, `times the limit: ${ratios.join(", ")}`];
}

/**
 * What each pruned configuration hid that the recorded replies then used (report/miss-model.ts): an
 * estimate, since a real agent facing a stub may have acted otherwise than the recorded one did.
 */
export function recoveryLines(report: ReplayReport): string[] {
  const pruned = report.scenarios.filter((s) => s.name !== "none");
  if (pruned.length === 0 || report.requests === 0) return [];
  const figure = (s: ReplayReport["scenarios"][number]) => {
    const t = s.totals;
    const rate = t.requests === 0 ? 0 : (100 * t.recoveries) / t.requests;
    const price = t.recoveryDollars === undefined ? "" : `, about ${dollars(t.recoveryDollars)}`;
    return `${s.label} ${t.recoveries} (${rate.toFixed(1)} per 100 requests${price})`;
  };
  return [
    `estimated recoveries: ${pruned.map(figure).join(", ")}; a recovery is a reply that used a name, path or edited line only an output no longer sent had shown, so a real agent would have had to fetch it again`,
  ];
}

/** What the agent went back for as the session ran, beside the estimate above it. */
export function sightLines(report: ReplayReport): string[] {
  return report.sight ? [`as the session ran, ${sightLine(report.sight, "in it")}`] : [];
}

export function estimateLines(report: ReplayReport): string[] {
  const s = report.summaryEstimate;
  const summary =
    s.samples === 0
      ? `summaries estimated at ${percent(s.ratio)} of the raw output (no real summaries in this session to calibrate against)`
      : `summaries estimated at ${percent(s.ratio)} of the raw output, calibrated on ${s.samples} real ${s.samples === 1 ? "summary" : "summaries"}` +
        (s.meanAbsError === undefined
          ? ""
          : `; one summary's size differs from that by ${percent(s.meanAbsError)} on average (a single summary comes out that far above or below the share it predicts, so the totals are surer than any one summary)`);
  const t = report.tokens;
  const token =
    t.samples === 0
      ? "tokens estimated as chars/4 (no recorded usage to calibrate against)"
      : `tokens: ${t.charsPerToken.toFixed(2)} chars per token, calibrated on ${t.samples} recorded requests; ` +
        `per-request error ${percent(t.errorCalibrated ?? 0)} (chars/4: ${percent(t.errorAtFour ?? 0)}): a request's tokens counted this way are that far off pi's recorded count on average (${percent(t.errorAtFour ?? 0)} at the usual 4 characters a token)`;
  const recordedCold = Math.max(0, ...report.scenarios.map((s) => s.totals.recordedColdStarts));
  const shown = recordedCold > 0 ? ` (${recordedCold} of them where the recording shows the provider's cache empty: a model or thinking-level change, a restart, an eviction; every configuration starts cold there)` : "";
  const rows = `history rewrites: requests whose earlier messages changed, so the cache was read only up to the change; empty cache: the first request and any sent after the cache expired${shown}`;
  const lookback =
    report.cache.rule === "anthropic-breakpoints"
      ? "; out of lookback: requests whose cached part lay more than 20 blocks before their first new block, which Anthropic's cache does not look back for"
      : "";
  return [summary, token, rows + lookback];
}

function wrap(text: string, indent: string): string[] {
  const words = text.split(" ");
  const lines: string[] = [];
  let line = indent;
  for (const word of words) {
    if (line.length + word.length + 1 > REPORT_WIDTH && line.trim() !== "") {
      lines.push(line.trimEnd());
      line = `${indent}  `;
    }
    line += `${word} `;
  }
  if (line.trim() !== "") lines.push(line.trimEnd());
  return lines;
}

/** `contextSent`: the live session's footer figure, which names the request the footer names. */
/** The cache lifetime as the chat and the HTML page both show it: `5 min`, or `1 h`, or milliseconds under a minute. */
export function ttlText(ttlMs: number): string {
  const minutes = Math.round(ttlMs / 60_000);
  if (minutes <= 0) return `${ttlMs} ms`;
  return minutes % 60 === 0 ? `${minutes / 60} h` : `${minutes} min`;
}

export function reportText(report: ReplayReport, title: string, htmlPath?: string, contextSent?: string): string {
  const lines = [
    `pruner report: ${title}`,
    ...wrap(`${report.model}, ${report.requests} requests, cache TTL ${ttlText(report.cost.ttlMs)}${report.cost.priced ? "" : ", no catalog price (no dollars)"}`, "  "),
  ];
  if (contextSent) lines.push(...wrap(`context sent: ${contextSent}`, "  "));
  for (const line of billLines(report)) lines.push(...wrap(line, "  "));
  for (const line of cacheLines(report)) lines.push(...wrap(line, "  "));
  if (report.requests === 0) lines.push("  no main-model requests on this branch: nothing to replay");
  else {
    lines.push("", ...chartText(report.scenarios), "", ...totalsTable(report.scenarios, report.cache, report));
    for (const line of [...limitLines(report), ...recoveryLines(report), ...sightLines(report)]) lines.push(...wrap(line, "  "));
  }
  lines.push("");
  for (const line of [...estimateLines(report), ...report.notes]) lines.push(...wrap(line, "  "));
  if (report.problems.length > 0) {
    lines.push(`  problems in the file (${report.problems.length}):`);
    for (const problem of report.problems.slice(0, 10)) lines.push(...wrap(problem.message, "    "));
    if (report.problems.length > 10) lines.push(`    ... and ${report.problems.length - 10} more`);
  }
  // The path on a line of its own, never wrapped at a separator, so it copies in one piece.
  if (htmlPath) lines.push("  HTML report:", htmlPath);
  return lines.join("\n");
}
