import {
  CUSTOM_TYPE_SUMMARY,
  CUSTOM_TYPE_INDEX,
  CUSTOM_TYPE_STATS,
  CUSTOM_TYPE_DEDUP_ALIAS,
  CUSTOM_TYPE_CHAIN,
  CUSTOM_TYPE_SUMMARIZER_CACHE,
  CUSTOM_TYPE_TOGGLE,
  loose,
  isAssistant,
  isToolResult,
  isUser,
  isCustom,
  isToolCall,
  toolCallBlocks,
  isTextOnlyAssistant,
  entryMessage,
  isRecoveryTool,
  occKey,
  resultTimestampOf,
  parseOccKey,
  parseSummaryEntry,
  parseToggleEntry,
  parseSummarizerCacheEntry,
  parseStatsEntry,
  extractToolResultText,
  captureBatch,
  serializeBatchForSummarizer,
  groupBatchesByMode,
  resolveRange,
  selectEligible,
  withRecoveredRefs,
  compressEligible,
  archiveChainMembers,
  detectChains,
  isProtected,
  inGraceRecoveryToolCallIds,
  DEFAULT_CHARS_PER_TOKEN,
  formatCompactCount,
  showReport,
  contextSentText,
  safeNotify2,
  MAX_BUDGET_WINDOW,
  parseReportArgs,
  unknownPriceModelText,
  formatSummaryToolCallRefs,
  makeSummaryDetails,
  refOccurrenceKeys,
  argumentStubsOn,
  cacheRouteOf,
  cacheRuleOptions,
  cacheRuleWords,
  cacheRuleMeaning,
  retentionWords,
  flatCard,
  ratesAt,
  usageDollars,
  cardOf,
  pricesAt,
  costModelFor,
  LOOKBACK_BLOCKS,
  createPromptCache,
  LONGEST_PREFIX,
  weighRewrite,
  LiveSight,
  processCacheEnv,
  spareMarkerIndex,
  elementChars,
  requestChars,
  ToolCallIndexer,
  NO_HORIZON,
  argumentHorizon,
  sightOfWrite,
  sightOptions,
  workingSetOf,
  renderMessages,
  archiveWrites,
  isTrivialBatch,
  withoutSummaryOf,
  BlockRefIssuer,
  DeferralLedger,
  measureRewrite,
  chainItemKey,
  firstPendingIndex,
  pendingKeys,
  inRunCandidates,
  weighFlushBatches,
  weighChains,
  summariesMode,
  splitBatches,
  staleOutputsOf
} from "./index-r3w7jg55.js";
import {
  MissCounter,
  recoveryCost,
  sightFigures,
  sightLine,
  currentReclaim2
} from "./index-q3b6vzm0.js";

// src/commands/command-replay.ts
import { existsSync } from "node:fs";
import { homedir as homedir2 } from "node:os";
import { isAbsolute, join as join2, resolve } from "node:path";

// src/report/run-report.ts
import { homedir } from "node:os";
import { basename as basename2 } from "node:path";

// src/bill/bill-figures.ts
function scenario(report, name) {
  return report.scenarios.find((s) => s.name === name);
}
function billFigures(report) {
  const actual = scenario(report, "actual");
  const none = scenario(report, "none");
  const simulated = (actual ?? none)?.totals.dollars;
  const summarizer = actual ? summarizerDollars(actual, simulated) ?? 0 : undefined;
  const recorded = report.recorded.dollars;
  const asRecorded = recorded === undefined ? simulated : recorded + (summarizer ?? 0);
  return {
    recorded,
    summarizer,
    asRecorded,
    asRecordedSource: recorded === undefined ? "simulated" : "recorded",
    asRecordedSimulated: simulated,
    noPruning: none?.totals.dollars,
    whatIf: scenario(report, "whatif")?.totals.dollars
  };
}
function summarizerDollars(actual, total) {
  if (total === undefined)
    return;
  const main = actual.cumulativeCost.at(-1) ?? 0;
  return Math.max(0, total - main);
}
function usd(n) {
  return `$${n.toFixed(n >= 100 ? 2 : 4)}`;
}
function share(simulated, recorded) {
  if (!(recorded > 0))
    return "";
  const diff = (simulated / recorded - 1) * 100;
  return `, ${diff >= 0 ? "+" : ""}${diff.toFixed(1)}% of it`;
}
function billLines(report) {
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
  const check = simulated === undefined ? "" : `; simulated: ${usd(simulated)}${share(simulated, figures.asRecorded)}`;
  return [`as recorded: ${usd(figures.asRecorded)}, ${what} (${usd(figures.recorded)}) plus the summarizer's ${usd(figures.summarizer)} as pi-condense recorded it${check}`];
}

// src/report/text-report.ts
var REPORT_WIDTH = 78;
var LABEL_WIDTH = 14;
var CHART_ROWS = 3;
var BLOCKS = [" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"];
var PEAK_WIDTH = 7;
var LOOKBACK_ROW = "out of lookback";
var REFRESH_ROW = "warming refreshes";
var SIMULATED_ROW = "  simulated";
function tokens(n) {
  return formatCompactCount(Math.round(n));
}
function dollars(n) {
  if (n === undefined)
    return "unpriced";
  if (n > 0 && n < 0.0001)
    return "<$0.0001";
  return `$${n.toFixed(n >= 100 ? 2 : 4)}`;
}
function percent(share) {
  return `${(share * 100).toFixed(share < 0.1 ? 1 : 0)}%`;
}
function bucketMax(values, columns) {
  if (values.length === 0)
    return [];
  if (values.length <= columns)
    return Array.from({ length: columns }, (_, c) => values[Math.floor(c * values.length / columns)]);
  const out = [];
  for (let c = 0;c < columns; c++) {
    const from = Math.floor(c * values.length / columns);
    const to = Math.max(from + 1, Math.floor((c + 1) * values.length / columns));
    let max = 0;
    for (let i = from;i < to; i++)
      max = Math.max(max, values[i]);
    out.push(max);
  }
  return out;
}
function chartRows(values, peak) {
  const levels = CHART_ROWS * 8;
  const heights = values.map((v) => peak > 0 ? Math.round(v / peak * levels) : 0);
  const rows = [];
  for (let row = CHART_ROWS - 1;row >= 0; row--) {
    rows.push(heights.map((h) => BLOCKS[Math.max(0, Math.min(8, h - row * 8))]).join(""));
  }
  return rows;
}
function chartText(scenarios, width = REPORT_WIDTH) {
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
var ROWS = [
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
  ["dollars", (t) => dollars(t.dollars)]
];
function rowsFor(rows, cache, refreshes = false) {
  return rows.filter(([name]) => (name !== LOOKBACK_ROW || cache?.rule === "anthropic-breakpoints") && (name !== REFRESH_ROW || refreshes));
}
function totalsTable(scenarios, cache, report) {
  const cell = Math.min(18, Math.floor((REPORT_WIDTH - 18) / Math.max(1, scenarios.length)));
  const head = `  ${"".padEnd(16)}${scenarios.map((s) => s.label.slice(0, cell - 1).padStart(cell)).join("")}`;
  const refreshes = scenarios.some((s) => s.totals.refreshes > 0);
  const figures = report ? billFigures(report) : undefined;
  const recorded = figures?.asRecordedSource === "recorded" && scenarios.some((s) => s.name === "actual");
  const cellOf = (name, value, s) => {
    if (!recorded || s.name !== "actual")
      return name === SIMULATED_ROW ? "" : value(s.totals);
    return name === "dollars" ? dollars(figures.asRecorded) : value(s.totals);
  };
  const rows = rowsFor(ROWS, cache, refreshes);
  const withCheck = recorded ? rows.flatMap((row) => row[0] === "dollars" ? [row, [SIMULATED_ROW, (t) => dollars(t.dollars)]] : [row]) : rows;
  const body = withCheck.map(([name, value]) => `  ${name.padEnd(16)}${scenarios.map((s) => cellOf(name, value, s).padStart(cell)).join("")}`.trimEnd());
  return [head, ...body];
}
function cacheLines(report) {
  const cache = report.cache;
  const words = `cache rule: ${cacheRuleWords(cache.rule, cache.route.wire)}`;
  if (cache.route.problem)
    return [`${words} (${cache.route.problem})`];
  if (cache.rule !== "anthropic-breakpoints")
    return [`${words} (${cache.api ?? "API not recorded"})`, `  (${cacheRuleMeaning(cache.rule)})`];
  const rule = `${words}, ${cache.spareBreakpoint ? "with pi-condense's spare breakpoint" : "without pi-condense's spare breakpoint (cacheBreakpoint off)"}; ${retentionWords(cache.route.retention, report.cost.ttlMs)}`;
  const meaning = `  (${cacheRuleMeaning(cache.rule, cache.spareBreakpoint)})`;
  const whatIf = report.scenarios.find((s) => s.name === "whatif");
  const other = cache.whatIfOther;
  if (!whatIf || !other)
    return [rule, meaning];
  const withIt = other.spareBreakpoint ? other.totals : whatIf.totals;
  const without = other.spareBreakpoint ? whatIf.totals : other.totals;
  const figure = (t) => report.cost.priced ? dollars(t.dollars) : `${tokens(t.cacheWrite)} cache write`;
  const prefix = cache.whatIfPrefix ? `; under the longest-prefix rule, had the provider read the longest start shared with any earlier request: ${figure(cache.whatIfPrefix)}` : "";
  return [rule, meaning, `what-if with the spare breakpoint: ${figure(withIt)}; without it: ${figure(without)}${prefix}`];
}
function timesLimit(dollars, limit) {
  const ratio = dollars / limit;
  return `${ratio.toFixed(ratio < 10 ? 2 : 1)}x`;
}
function limitLines(report) {
  const limit = report.limit;
  const parts = `each block written to the cache once (${tokens(limit.written + limit.uncached)} tokens), the replies (${tokens(limit.output)}), tools and system read by every request (${tokens(limit.fixedRead)})`;
  if (limit.dollars === undefined)
    return [`limit: ${parts}; no dollars without a catalog price`];
  const head = `limit: ${dollars(limit.dollars)}, the least this session can cost: ${parts}`;
  if (!(limit.dollars > 0))
    return [head];
  const ratios = report.scenarios.filter((s) => s.totals.dollars !== undefined).map((s) => `${s.label} ${timesLimit(s.totals.dollars, limit.dollars)}`);
  return ratios.length === 0 ? [head] : [head, `times the limit: ${ratios.join(", ")}`];
}
function recoveryLines(report) {
  const pruned = report.scenarios.filter((s) => s.name !== "none");
  if (pruned.length === 0 || report.requests === 0)
    return [];
  const figure = (s) => {
    const t = s.totals;
    const rate = t.requests === 0 ? 0 : 100 * t.recoveries / t.requests;
    const price = t.recoveryDollars === undefined ? "" : `, about ${dollars(t.recoveryDollars)}`;
    return `${s.label} ${t.recoveries} (${rate.toFixed(1)} per 100 requests${price})`;
  };
  return [
    `estimated recoveries: ${pruned.map(figure).join(", ")}; a recovery is a reply that used a name, path or edited line only an output no longer sent had shown, so a real agent would have had to fetch it again`
  ];
}
function sightLines(report) {
  return report.sight ? [`as the session ran, ${sightLine(report.sight, "in it")}`] : [];
}
function estimateLines(report) {
  const s = report.summaryEstimate;
  const summary = s.samples === 0 ? `summaries estimated at ${percent(s.ratio)} of the raw output (no real summaries in this session to calibrate against)` : `summaries estimated at ${percent(s.ratio)} of the raw output, calibrated on ${s.samples} real ${s.samples === 1 ? "summary" : "summaries"}` + (s.meanAbsError === undefined ? "" : `; one summary's size differs from that by ${percent(s.meanAbsError)} on average (a single summary comes out that far above or below the share it predicts, so the totals are surer than any one summary)`);
  const t = report.tokens;
  const token = t.samples === 0 ? "tokens estimated as chars/4 (no recorded usage to calibrate against)" : `tokens: ${t.charsPerToken.toFixed(2)} chars per token, calibrated on ${t.samples} recorded requests; ` + `per-request error ${percent(t.errorCalibrated ?? 0)} (chars/4: ${percent(t.errorAtFour ?? 0)}): a request's tokens counted this way are that far off pi's recorded count on average (${percent(t.errorAtFour ?? 0)} at the usual 4 characters a token)`;
  const recordedCold = Math.max(0, ...report.scenarios.map((s) => s.totals.recordedColdStarts));
  const shown = recordedCold > 0 ? ` (${recordedCold} of them where the recording shows the provider's cache empty: a model or thinking-level change, a restart, an eviction; every configuration starts cold there)` : "";
  const rows = `history rewrites: requests whose earlier messages changed, so the cache was read only up to the change; empty cache: the first request and any sent after the cache expired${shown}`;
  const lookback = report.cache.rule === "anthropic-breakpoints" ? "; out of lookback: requests whose cached part lay more than 20 blocks before their first new block, which Anthropic's cache does not look back for" : "";
  return [summary, token, rows + lookback];
}
function wrap(text, indent) {
  const words = text.split(" ");
  const lines = [];
  let line = indent;
  for (const word of words) {
    if (line.length + word.length + 1 > REPORT_WIDTH && line.trim() !== "") {
      lines.push(line.trimEnd());
      line = `${indent}  `;
    }
    line += `${word} `;
  }
  if (line.trim() !== "")
    lines.push(line.trimEnd());
  return lines;
}
function ttlText(ttlMs) {
  const minutes = Math.round(ttlMs / 60000);
  if (minutes <= 0)
    return `${ttlMs} ms`;
  return minutes % 60 === 0 ? `${minutes / 60} h` : `${minutes} min`;
}
function reportText(report, title, htmlPath, contextSent) {
  const lines = [
    `pruner report: ${title}`,
    ...wrap(`${report.model}, ${report.requests} requests, cache TTL ${ttlText(report.cost.ttlMs)}${report.cost.priced ? "" : ", no catalog price (no dollars)"}`, "  ")
  ];
  if (contextSent)
    lines.push(...wrap(`context sent: ${contextSent}`, "  "));
  for (const line of billLines(report))
    lines.push(...wrap(line, "  "));
  for (const line of cacheLines(report))
    lines.push(...wrap(line, "  "));
  if (report.requests === 0)
    lines.push("  no main-model requests on this branch: nothing to replay");
  else {
    lines.push("", ...chartText(report.scenarios), "", ...totalsTable(report.scenarios, report.cache, report));
    for (const line of [...limitLines(report), ...recoveryLines(report), ...sightLines(report)])
      lines.push(...wrap(line, "  "));
  }
  lines.push("");
  for (const line of [...estimateLines(report), ...report.notes])
    lines.push(...wrap(line, "  "));
  if (report.problems.length > 0) {
    lines.push(`  problems in the file (${report.problems.length}):`);
    for (const problem of report.problems.slice(0, 10))
      lines.push(...wrap(problem.message, "    "));
    if (report.problems.length > 10)
      lines.push(`    ... and ${report.problems.length - 10} more`);
  }
  if (htmlPath)
    lines.push("  HTML report:", htmlPath);
  return lines.join(`
`);
}

// src/report/html-report.ts
var COLORS = ["#c0392b", "#2471a3", "#229954", "#7d3c98"];
var W = 760;
var H = 260;
var PAD = { left: 64, right: 16, top: 16, bottom: 32 };
function esc(text) {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}
function points(values, max) {
  const n = values.length;
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const step = Math.max(1, Math.ceil(n / (plotW * 2)));
  const out = [];
  for (let i = 0;i < n; i += step) {
    const x = PAD.left + (n <= 1 ? 0 : i / (n - 1) * plotW);
    const y = PAD.top + plotH - (max > 0 ? values[i] / max * plotH : 0);
    out.push(`${x.toFixed(1)},${y.toFixed(1)}`);
  }
  if ((n - 1) % step !== 0 && n > 0) {
    const y = PAD.top + plotH - (max > 0 ? values[n - 1] / max * plotH : 0);
    out.push(`${(PAD.left + plotW).toFixed(1)},${y.toFixed(1)}`);
  }
  return out.join(" ");
}
function axes(max, format, requests) {
  const plotH = H - PAD.top - PAD.bottom;
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((share) => {
    const y = PAD.top + plotH - share * plotH;
    return `<line x1="${PAD.left}" y1="${y}" x2="${W - PAD.right}" y2="${y}" class="grid"/><text x="${PAD.left - 6}" y="${y + 4}" text-anchor="end">${esc(format(max * share))}</text>`;
  });
  const base = H - PAD.bottom;
  return `${ticks.join("")}<text x="${PAD.left}" y="${base + 20}">1</text><text x="${W - PAD.right}" y="${base + 20}" text-anchor="end">request ${requests}</text>`;
}
function lineChart(id, title, scenarios, pick, format) {
  const max = Math.max(0, ...scenarios.flatMap((s) => [Math.max(0, ...pick(s))]));
  const requests = scenarios[0]?.context.length ?? 0;
  const lines = scenarios.map((s, i) => `<polyline class="series" data-series="${esc(s.name)}" fill="none" stroke="${COLORS[i % COLORS.length]}" stroke-width="${2 + 2 * (scenarios.length - 1 - i)}" stroke-linejoin="round" points="${points(pick(s), max)}"/>`);
  const legend = scenarios.map((s, i) => `<span><i style="background:${COLORS[i % COLORS.length]}"></i>${esc(s.label)}</span>`).join("");
  return `<figure id="${id}"><figcaption>${esc(title)}</figcaption><svg viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${esc(title)}">${axes(max, format, requests)}${lines.join("")}</svg><div class="legend">${legend}</div></figure>`;
}
var TOTAL_ROWS = [
  ["input tokens", (s) => tokens(s.totals.input)],
  ["cache read", (s) => tokens(s.totals.cacheRead)],
  ["cache write", (s) => tokens(s.totals.cacheWrite)],
  ["not cached", (s) => tokens(s.totals.uncached)],
  ["output tokens", (s) => tokens(s.totals.output)],
  ["summarizer input", (s) => tokens(s.totals.summarizerInput)],
  ["summarizer output", (s) => tokens(s.totals.summarizerOutput)],
  ["summaries", (s) => String(s.totals.summarizerCalls)],
  ["history rewrites", (s) => String(s.totals.prefixBreaks)],
  ["requests with an empty cache", (s) => String(s.totals.coldStarts)],
  ["warming refreshes", (s) => String(s.totals.refreshes)],
  ["out of lookback", (s) => String(s.totals.lookbackMisses)],
  ["peak context", (s) => tokens(s.totals.peakContext)],
  ["dollars", (s) => dollars(s.totals.dollars)]
];
function totalsTable2(report, cache) {
  const scenarios = report.scenarios;
  const head = `<tr><th></th>${scenarios.map((s) => `<th>${esc(s.label)}</th>`).join("")}</tr>`;
  const figures = billFigures(report);
  const recorded = figures.asRecordedSource === "recorded";
  const cell = (name, value, s) => recorded && s.name === "actual" && name === "dollars" ? dollars(figures.asRecorded) : value(s);
  const rows = rowsFor(TOTAL_ROWS, cache, scenarios.some((s) => s.totals.refreshes > 0)).map(([name, value]) => `<tr><th>${esc(name)}</th>${scenarios.map((s) => `<td>${esc(cell(name, value, s))}</td>`).join("")}</tr>`);
  if (recorded && scenarios.some((s) => s.name === "actual"))
    rows.push(`<tr><th>simulated</th>${scenarios.map((s) => `<td>${s.name === "actual" ? esc(dollars(s.totals.dollars)) : ""}</td>`).join("")}</tr>`);
  return `<table id="totals">${head}${rows.join("")}</table>`;
}
function outputsTable(report) {
  if (report.outputs.length === 0)
    return "<p>No tool outputs on this branch.</p>";
  const labels = report.outputs[0].fates.map((f) => f.label);
  const head = `<tr><th>output</th><th>chars</th>${labels.map((l) => `<th>${esc(l)}</th>`).join("")}</tr>`;
  const rows = report.outputs.map((o) => `<tr><td><code>${esc(o.toolName)}</code> ${esc(o.call)}</td><td>${o.chars}</td>${o.fates.map((f) => `<td>${esc(f.fate)}</td>`).join("")}</tr>`);
  return `<table id="outputs">${head}${rows.join("")}</table>`;
}
function list(items) {
  return items.length === 0 ? "<p>None.</p>" : `<ul>${items.map((item) => `<li>${esc(item)}</li>`).join("")}</ul>`;
}
var STYLE = `body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:820px}
table{border-collapse:collapse;margin:8px 0}th,td{border:1px solid #ccc;padding:3px 8px;text-align:right}
th:first-child,td:first-child{text-align:left}svg text{font-size:11px;fill:#555}.grid{stroke:#e5e5e5}
.legend span{margin-right:16px}.legend i{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:-1px}
figure{margin:16px 0}figcaption{font-weight:600}`;
function reportHtml(report, title) {
  const charts = report.requests === 0 ? "<p>No main-model requests on this branch: nothing to chart.</p>" : lineChart("context-chart", "Context tokens per request", report.scenarios, (s) => s.context, tokens) + lineChart("cost-chart", report.cost.priced ? "Cumulative dollars per request (main model; the summarizer is in the totals)" : "Cumulative dollars (model unpriced)", report.scenarios, (s) => s.cumulativeCost, (n) => dollars(n));
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>pruner report: ${esc(title)}</title><style>${STYLE}</style></head>
<body><h1>pruner report</h1><p>${esc(title)}<br>${esc(report.model)}, ${report.requests} requests, cache TTL ${ttlText(report.cost.ttlMs)}</p>
${billLines(report).length === 0 ? "" : `<p id="bill">${billLines(report).map(esc).join("<br>")}</p>`}
<p id="cache-rule">${cacheLines(report).map(esc).join("<br>")}</p>
${charts}
<h2>Totals</h2>${totalsTable2(report, report.cache)}
${report.requests === 0 ? "" : `<p id="limit">${limitLines(report).map(esc).join("<br>")}</p>`}
${recoveryLines(report).length === 0 ? "" : `<p id="recoveries">${recoveryLines(report).map(esc).join("<br>")}</p>`}
${sightLines(report).length === 0 ? "" : `<p id="sight">${sightLines(report).map(esc).join("<br>")}</p>`}
<h2>The biggest outputs</h2>${outputsTable(report)}
<h2>How this was estimated</h2>${list([...estimateLines(report), ...report.notes])}
<h2>Problems in the file</h2>${list(report.problems.map((p) => p.message))}
<p>Summary share ${percent(report.summaryEstimate.ratio)}; ${report.tokens.charsPerToken.toFixed(2)} chars per token.</p>
</body></html>
`;
}

// src/report/replay.ts
import { evaluateCacheWarming } from "@earendil-works/pi-ai";

// src/report/request-blocks.ts
var sizes = new WeakMap;
function messageChars(message) {
  if (typeof message !== "object" || message === null)
    return 4;
  let known = sizes.get(message);
  if (known === undefined) {
    known = requestChars(message) + 1;
    sizes.set(message, known);
  }
  return known;
}
var IMAGE_CHARS = 6400;
var USER_ROLES = new Set(["user", "custom", "bashExecution", "branchSummary", "compactionSummary"]);
var shapes = new WeakMap;
var NOTHING = { blocks: [], userSide: false };
var ids = new WeakMap;
var nextId = 0;
function identity(message) {
  let id = ids.get(message);
  if (id === undefined) {
    id = ++nextId;
    ids.set(message, id);
  }
  return id;
}
function partChars(part) {
  return part?.type === "image" ? IMAGE_CHARS : elementChars(part) + 1;
}
function nonEmpty(text) {
  return typeof text === "string" && text.trim().length > 0;
}
function sentPart(role, value) {
  const part = loose(value);
  const type = part?.type;
  if (role === "assistant") {
    if (type === "text")
      return { sent: nonEmpty(part.text), thinking: false };
    if (type === "thinking")
      return { sent: part.redacted === true || nonEmpty(part.thinking) || nonEmpty(part.thinkingSignature), thinking: true };
    return { sent: type === "toolCall", thinking: false };
  }
  return { sent: type !== "text" || nonEmpty(part.text), thinking: false };
}
function measure(value) {
  const total = messageChars(value);
  const message = loose(value) ?? {};
  const role = typeof message.role === "string" ? message.role : "";
  const userSide = USER_ROLES.has(role) || role === "toolResult";
  if (role === "bashExecution" && message.excludeFromContext === true)
    return { blocks: [], userSide };
  const id = identity(value);
  const one = (sent) => sent ? { blocks: [{ block: { key: `${id}.0`, tokens: total, breakpoint: false }, eligible: true }], userSide } : { blocks: [], userSide };
  if (role === "toolResult" && typeof message.toolCallId === "string")
    return { ...one(true), toolCallId: message.toolCallId };
  if (role === "toolResult" || role === "bashExecution" || role === "branchSummary" || role === "compactionSummary")
    return one(true);
  if (!USER_ROLES.has(role) && role !== "assistant")
    return one(false);
  if (role === "assistant" && (message.stopReason === "error" || message.stopReason === "aborted"))
    return one(false);
  const content = message.content;
  if (typeof content === "string")
    return one(nonEmpty(content));
  if (!Array.isArray(content))
    return one(false);
  const parts = [];
  let partsChars = 0;
  content.forEach((part, index) => {
    const { sent, thinking } = sentPart(role, part);
    if (!sent)
      return;
    const chars = partChars(part);
    parts.push({ chars, thinking, index });
    partsChars += chars;
  });
  if (parts.length === 0)
    return one(false);
  const envelope = Math.max(0, total - partsChars);
  const blocks = parts.map((part, k) => ({
    block: { key: `${id}.${part.index}`, tokens: part.chars + (k === 0 ? envelope : 0), breakpoint: false },
    eligible: !part.thinking
  }));
  return { blocks, userSide };
}
function messageBlocks(message) {
  if (typeof message !== "object" || message === null)
    return NOTHING;
  let shape = shapes.get(message);
  if (shape === undefined) {
    shape = measure(message);
    shapes.set(message, shape);
  }
  return shape;
}

class BlockList {
  blocks = [];
  eligible = [];
  keys = [];
  toolCallIds = [];
  sums = [0];
  starts = [];
  messages = [];
  systemVersion;
  update(messages, systemChars, systemVersion) {
    let m = 0;
    if (systemVersion === this.systemVersion && this.blocks.length > 0 && this.blocks[0].tokens === systemChars) {
      const limit = Math.min(messages.length, this.messages.length);
      while (m < limit && messages[m] === this.messages[m])
        m++;
    } else {
      this.truncate(0);
      this.push({ key: `s${systemVersion}`, tokens: systemChars, breakpoint: true }, true, undefined);
      this.starts.length = 0;
      this.starts.push(1);
      this.systemVersion = systemVersion;
    }
    this.truncate(this.starts[m]);
    this.starts.length = m + 1;
    for (let i = m;i < messages.length; i++) {
      const shape = messageBlocks(messages[i]);
      for (const part of shape.blocks)
        this.push(part.block, part.eligible, shape.toolCallId);
      this.starts.push(this.blocks.length);
    }
    this.messages = messages;
    return m;
  }
  get chars() {
    return this.sums[this.blocks.length];
  }
  blocksOf(count) {
    return this.starts[count];
  }
  lastMarked() {
    for (let i = this.messages.length - 1;i >= 0; i--) {
      const shape = messageBlocks(this.messages[i]);
      if (shape.blocks.length > 0)
        return shape.userSide ? this.blocks.length - 1 : undefined;
    }
    return;
  }
  push(block, eligible, toolCallId) {
    this.blocks.push(block);
    this.eligible.push(eligible);
    this.toolCallIds.push(toolCallId);
    this.keys.push(block.key);
    this.sums.push(this.sums[this.sums.length - 1] + block.tokens);
  }
  truncate(length) {
    this.blocks.length = length;
    this.eligible.length = length;
    this.toolCallIds.length = length;
    this.keys.length = length;
    this.sums.length = length + 1;
  }
}

// src/report/cache-sim.ts
function sameValue(a, b) {
  if (a === b)
    return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null)
    return false;
  if (Array.isArray(a) !== Array.isArray(b))
    return false;
  if (Array.isArray(a)) {
    const other = b;
    if (a.length !== other.length)
      return false;
    for (let i = 0;i < a.length; i++)
      if (!sameValue(a[i], other[i]))
        return false;
    return true;
  }
  const left = a;
  const right = b;
  let count = 0;
  for (const key in left) {
    if (!Object.hasOwn(right, key) || !sameValue(left[key], right[key]))
      return false;
    count++;
  }
  for (const _key in right)
    count--;
  return count === 0;
}

class StableMessages {
  previous = [];
  stable(messages) {
    const previous = this.previous;
    let out = messages;
    const limit = Math.min(previous.length, messages.length);
    for (let i = 0;i < limit; i++) {
      const message = messages[i];
      if (message === previous[i] || !sameValue(message, previous[i]))
        continue;
      if (out === messages)
        out = messages.slice();
      out[i] = previous[i];
    }
    this.previous = out;
    return out;
  }
}
var CHARS_PER_RULE_TOKEN = 4;
var FAR_LESS = 0.5;
function cacheSetup(route, ttlMs) {
  const tokens = cacheRuleOptions(route, ttlMs);
  return {
    rule: route.rule,
    options: {
      ttlMs,
      minTokens: tokens.minTokens * CHARS_PER_RULE_TOKEN,
      ...tokens.increment === undefined ? {} : { increment: tokens.increment * CHARS_PER_RULE_TOKEN }
    }
  };
}
var NONE_WAITING = new Set;

class Bill {
  setup;
  spareBreakpoint;
  keepLast;
  cache;
  previousEnd;
  lastSent;
  constructor(setup, spareBreakpoint, keepLast = false) {
    this.setup = setup;
    this.spareBreakpoint = spareBreakpoint;
    this.keepLast = keepLast;
    this.cache = createPromptCache(setup.rule, setup.options);
  }
  evict() {
    this.cache.evict();
    this.previousEnd = undefined;
  }
  refresh(time) {
    if (!this.lastSent)
      return;
    const bill = this.cache.bill({ at: time, blocks: this.lastSent });
    return { cached: bill.cacheRead, written: bill.cacheWrite, chars: bill.input + bill.cacheRead + bill.cacheWrite };
  }
  step(time, list, shared, warm, endMarked, pendingOf) {
    const blocks = list.blocks;
    const n = blocks.length;
    const withinReach = warm && endMarked && shared === this.previousEnd && n - shared <= LOOKBACK_BLOCKS;
    const spare = this.spareBreakpoint ? spareMarkerIndex({
      keys: list.keys,
      marked: blocks.map((b) => b.breakpoint),
      eligible: list.eligible,
      previousKeys: list.keys.slice(0, shared),
      bestEntry: withinReach ? 0 : this.cache.bestEntry?.({ at: time, blocks }) ?? 0,
      toolUseIds: list.toolCallIds,
      pending: pendingOf ?? (() => NONE_WAITING)
    }) : undefined;
    const unmarked = spare === undefined ? undefined : blocks[spare];
    if (unmarked)
      blocks[spare] = { ...unmarked, breakpoint: true };
    const bill = this.cache.bill({ at: time, blocks });
    if (this.keepLast)
      this.lastSent = blocks.slice();
    if (unmarked)
      blocks[spare] = unmarked;
    this.previousEnd = endMarked && list.chars >= this.setup.options.minTokens ? n : undefined;
    return { cached: bill.cacheRead, written: bill.cacheWrite, readLess: bill.prefixBreak };
  }
}

class CachePricer {
  setup;
  floor;
  stable = new StableMessages;
  list = new BlockList;
  main;
  other;
  prefix;
  previous;
  constructor(setup, spareBreakpoint, alternative, floor, refreshes = false) {
    this.setup = setup;
    this.floor = floor;
    this.main = new Bill(setup, spareBreakpoint, refreshes);
    this.other = alternative ? new Bill(setup, !spareBreakpoint, refreshes) : undefined;
    const anthropic = setup.rule === "anthropic-breakpoints";
    this.prefix = alternative && anthropic ? new Bill({ rule: "longest-prefix", options: { ttlMs: setup.options.ttlMs, minTokens: setup.options.minTokens } }, false, refreshes) : undefined;
  }
  refresh(time) {
    if (this.previous && time < this.previous.time)
      return {};
    const step = this.main.refresh(time);
    if (!step)
      return {};
    if (this.previous)
      this.previous = { ...this.previous, time };
    const alternative = this.other?.refresh(time);
    const prefix = this.prefix?.refresh(time);
    return { step, ...alternative ? { alternative } : {}, ...prefix ? { prefix } : {} };
  }
  step(request) {
    const messages = this.stable.stable(request.messages);
    const list = this.list;
    const previous = this.previous;
    const sharedMessages = list.update(messages, request.systemChars, request.systemVersion);
    const sameSystem = previous !== undefined && previous.systemVersion === request.systemVersion;
    const shared = sameSystem ? list.blocksOf(sharedMessages) : 0;
    const chars = list.chars;
    const warm = previous !== undefined && request.time >= previous.time && request.time - previous.time <= this.setup.options.ttlMs;
    const prefixBreak = warm && !(sameSystem && sharedMessages === previous.messages);
    this.previous = { time: request.time, messages: messages.length, systemVersion: request.systemVersion };
    const last = list.lastMarked();
    const unmarked = last === undefined || last === 0 ? undefined : list.blocks[last];
    if (unmarked)
      list.blocks[last] = { ...unmarked, breakpoint: true };
    this.floor?.add({ blocks: list.blocks, fixedBlocks: 1, sharedBlocks: shared, outputTokens: request.outputTokens ?? 0 });
    let coldStart = request.coldStart === true;
    const stepOf = (bill, detect) => {
      if (coldStart)
        bill.evict();
      let billed = bill.step(request.time, list, shared, warm && !coldStart, unmarked !== undefined, request.pending);
      const recordedCold = detect && !coldStart && this.recordedColder(request.recordedRead, billed.cached);
      if (recordedCold) {
        coldStart = true;
        bill.evict();
        billed = bill.step(request.time, list, shared, false, unmarked !== undefined, request.pending);
      }
      const cold = !warm || coldStart;
      const broke = prefixBreak && !cold;
      const shown = recordedCold || warm && request.coldStart === true;
      return { chars, cachedChars: billed.cached, writtenChars: billed.written, prefixBreak: broke, cold, lookbackMiss: !cold && !broke && billed.readLess, ...shown ? { recordedCold: true } : {} };
    };
    const step = stepOf(this.main, true);
    const alternative = this.other ? stepOf(this.other, false) : undefined;
    const prefix = this.prefix ? stepOf(this.prefix, false) : undefined;
    if (unmarked)
      list.blocks[last] = unmarked;
    return { step, ...alternative ? { alternative } : {}, ...prefix ? { prefix } : {} };
  }
  recordedColder(recordedRead, cached) {
    return recordedRead !== undefined && cached >= this.setup.options.minTokens && recordedRead < cached * FAR_LESS;
  }
}

// src/economics/cost-floor.ts
var size = (block) => Number.isFinite(block.tokens) && block.tokens > 0 ? block.tokens : 0;
function cacheableBlocks(blocks, rule, minTokens) {
  if (rule === "longest-prefix")
    return blocks.length;
  let total = 0;
  let last = 0;
  blocks.forEach((block, i) => {
    total += size(block);
    if (block.breakpoint && total >= minTokens)
      last = i + 1;
  });
  return last;
}

class FloorTally {
  rule;
  minTokens;
  seen = new Set;
  floor = { requests: 0, written: 0, uncached: 0, fixedRead: 0, outputTokens: 0, blocks: [], fixedSize: 0 };
  constructor(rule, minTokens) {
    this.rule = rule;
    this.minTokens = minTokens;
  }
  add(request) {
    const { blocks } = request;
    const fixed = Math.min(blocks.length, Math.max(0, request.fixedBlocks));
    const from = Math.max(fixed, Math.min(blocks.length, request.sharedBlocks ?? 0));
    let fixedSize = 0;
    for (let i = 0;i < fixed; i++)
      fixedSize += size(blocks[i]);
    this.floor.fixedSize = fixedSize;
    let cacheable;
    const take = (i) => {
      const block = blocks[i];
      if (this.seen.has(block.key)) {
        if (i < fixed)
          this.floor.fixedRead += size(block);
        return;
      }
      this.seen.add(block.key);
      cacheable ??= cacheableBlocks(blocks, this.rule, this.minTokens);
      const written = i < cacheable;
      if (written)
        this.floor.written += size(block);
      else
        this.floor.uncached += size(block);
      this.floor.blocks.push({ size: size(block), fixedSize: i < fixed ? 0 : fixedSize, written });
    };
    for (let i = 0;i < fixed; i++)
      take(i);
    for (let i = from;i < blocks.length; i++)
      take(i);
    this.floor.requests += 1;
    this.floor.outputTokens += Number.isFinite(request.outputTokens) && request.outputTokens > 0 ? request.outputTokens : 0;
  }
  result() {
    return { ...this.floor, blocks: [...this.floor.blocks] };
  }
}
function floorDollars(floor, prices, unitsPerToken = 1) {
  const card = "base" in prices ? prices : flatCard(prices);
  if (card.tiers.length === 0 || !floor.blocks) {
    const p = card.base;
    const blocks = floor.written * p.cacheWrite + floor.uncached * p.input + floor.fixedRead * p.cacheRead;
    return blocks / unitsPerToken + floor.outputTokens * p.output;
  }
  let dollars = 0;
  for (const block of floor.blocks) {
    const p = ratesAt(card, (block.fixedSize + block.size) / unitsPerToken);
    dollars += block.size / unitsPerToken * (block.written ? p.cacheWrite : p.input);
  }
  const least = ratesAt(card, (floor.fixedSize ?? 0) / unitsPerToken);
  return dollars + floor.fixedRead / unitsPerToken * least.cacheRead + floor.outputTokens * least.output;
}

// src/report/requests.ts
import { buildSessionContext, sessionEntryToContextMessages } from "@earendil-works/pi-coding-agent";
var REBUILDING = new Set(["compaction", "context_edit"]);
function finite(value) {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : 0;
}
function usageOf(message) {
  const usage = loose(loose(message)?.usage);
  if (!usage)
    return;
  const recorded = { input: finite(usage.input), output: finite(usage.output), cacheRead: finite(usage.cacheRead), cacheWrite: finite(usage.cacheWrite) };
  const long = finite(usage.cacheWrite1h);
  if (long > 0)
    recorded.cacheWrite1h = Math.min(long, recorded.cacheWrite);
  return recorded.input + recorded.cacheRead + recorded.cacheWrite > 0 ? recorded : undefined;
}
function timeOf(entry, message, fallback) {
  if (typeof message.timestamp === "number" && Number.isFinite(message.timestamp))
    return message.timestamp;
  const parsed = Date.parse(String(entry.timestamp));
  return Number.isFinite(parsed) ? parsed : fallback;
}
function systemSize(message) {
  const { timestamp: _ignored, ...rest } = message;
  return JSON.stringify(rest).length;
}
function isPrunerSummary(message) {
  return isCustom(message) && message.customType === CUSTOM_TYPE_SUMMARY;
}
function replyChars(message) {
  return JSON.stringify(message.content ?? "").length;
}

class Views {
  all = [];
  bare = [];
  systemChars = 0;
  systemVersion = 0;
  systemText = "";
  push(messages) {
    for (const value of messages) {
      const message = loose(value);
      if (message?.role === "system") {
        this.systemChars += systemSize(message);
        this.systemVersion += 1;
        this.systemText += JSON.stringify(message.content ?? "") + JSON.stringify(message.sections ?? "");
        continue;
      }
      this.all.push(value);
      if (!isPrunerSummary(value))
        this.bare.push(value);
    }
  }
  rebuild(path, leaf) {
    let context;
    try {
      context = buildSessionContext(path, leaf.id);
    } catch {
      return;
    }
    this.all = [];
    this.bare = [];
    this.systemChars = 0;
    this.systemText = "";
    this.systemVersion += 1;
    this.push(context.messages);
  }
}
function contextMessagesOf(entry) {
  if (entry.type === "message" && typeof entry.message !== "object")
    return [];
  try {
    return sessionEntryToContextMessages(entry);
  } catch {
    return [];
  }
}
function linked(branch) {
  return branch.map((entry, k) => {
    const parentId = k === 0 ? null : branch[k - 1].id;
    return entry.parentId === parentId ? entry : { ...entry, parentId };
  });
}
function addRefresh(request, time) {
  if (!request || !Number.isFinite(time))
    return;
  (request.refreshes ??= []).push({ time });
}
function buildRequests(input) {
  const branch = linked(input);
  const views = new Views;
  const requests = [];
  let lastTime = 0;
  for (let i = 0;i < branch.length; i++) {
    const entry = branch[i];
    if (REBUILDING.has(entry.type)) {
      views.rebuild(branch.slice(0, i + 1), entry);
      continue;
    }
    if (entry.type === "usage" && entry.kind === "cache_warm") {
      addRefresh(requests[requests.length - 1], Date.parse(String(entry.timestamp)));
      continue;
    }
    const message = entryMessage(entry);
    if (isAssistant(message)) {
      const usage = usageOf(message);
      lastTime = timeOf(entry, message, lastTime);
      requests.push({
        entryIndex: i,
        time: lastTime,
        all: { messages: views.all, length: views.all.length },
        bare: { messages: views.bare, length: views.bare.length },
        systemChars: views.systemChars,
        systemText: views.systemText,
        reply: message,
        systemVersion: views.systemVersion,
        outputTokens: usage && usage.output > 0 ? usage.output : Math.ceil(replyChars(message) / 4),
        usage,
        provider: typeof message.provider === "string" ? message.provider : undefined,
        model: typeof message.model === "string" ? message.model : undefined,
        api: typeof message.api === "string" ? message.api : undefined,
        endsRun: message.stopReason === "stop" || message.stopReason === "length"
      });
    }
    views.push(contextMessagesOf(entry));
  }
  return requests;
}

// src/report/scenarios.ts
var NO_SUMMARIZER = { input: 0, output: 0, unit: "tokens", calls: 0 };
function prefixOf(view) {
  return view.length === view.messages.length ? view.messages.slice() : view.messages.slice(0, view.length);
}
function noPruningScenario() {
  return { name: "none", label: "no pruning", messagesAt: (request) => prefixOf(request.bare), summarizer: () => NO_SUMMARIZER };
}
var INDEX_TYPES = new Set([CUSTOM_TYPE_INDEX, CUSTOM_TYPE_SUMMARY, CUSTOM_TYPE_CHAIN, CUSTOM_TYPE_DEDUP_ALIAS]);
function customTypeOf(entry) {
  return entry.customType;
}
function hasPrunerEntries(branch) {
  return branch.some((entry) => INDEX_TYPES.has(customTypeOf(entry)));
}
function recordedSummarizer(branch) {
  let use = NO_SUMMARIZER;
  let cached = 0;
  for (const entry of branch) {
    if (entry.type !== "custom")
      continue;
    const data = entry.data;
    if (customTypeOf(entry) === CUSTOM_TYPE_SUMMARIZER_CACHE) {
      const parsed = parseSummarizerCacheEntry(data);
      if (parsed.ok)
        cached = parsed.value.cacheReadTokens + parsed.value.cacheWriteTokens;
      continue;
    }
    if (customTypeOf(entry) !== CUSTOM_TYPE_STATS)
      continue;
    const parsed = parseStatsEntry(data);
    if (!parsed.ok)
      continue;
    const stats = parsed.value;
    use = { input: stats.totalInputTokens, output: stats.totalOutputTokens, unit: "tokens", recordedCost: stats.totalCost, calls: stats.callCount };
  }
  return use.calls > 0 ? { ...use, input: use.input + cached } : use;
}
function togglesOf(branch) {
  const toggles = [];
  branch.forEach((entry, index) => {
    if (entry.type !== "custom" || customTypeOf(entry) !== CUSTOM_TYPE_TOGGLE)
      return;
    const parsed = parseToggleEntry(entry.data);
    if (parsed.ok)
      toggles.push({ index, enabled: parsed.value.enabled });
  });
  return toggles;
}
function prunedAt(branch) {
  const toggles = togglesOf(branch);
  const initial = toggles.length === 0 ? true : !toggles[0].enabled;
  return (entryIndex) => {
    let on = initial;
    for (const toggle of toggles)
      if (toggle.index < entryIndex)
        on = toggle.enabled;
    return on;
  };
}
function actualScenario(branch, config) {
  const indexer = new ToolCallIndexer;
  let scanned = 0;
  const stable = new StableMessages;
  const pruned = prunedAt(branch);
  let horizon = NO_HORIZON;
  let writes = [];
  return {
    name: "actual",
    label: "as recorded",
    messagesAt(request) {
      const from = scanned;
      let changed = false;
      for (;scanned < request.entryIndex; scanned++)
        if (INDEX_TYPES.has(customTypeOf(branch[scanned])))
          changed = true;
      if (changed) {
        indexer.extendFromEntries(branch.slice(from, request.entryIndex), branch);
        horizon = argumentHorizon(branch, request.entryIndex);
        writes = archiveWrites(branch, request.entryIndex);
      }
      const messages = prefixOf(request.all);
      if (!pruned(request.entryIndex))
        return stable.stable(messages);
      return stable.stable(renderMessages(messages, indexer, config.chainCompression, config.purgeErrors, config, config.recoveryGraceTurns, indexer.archiveCheck(), argumentStubsOn(config), horizon, sightOptions(config, writes)));
    },
    summarizer: () => recordedSummarizer(branch)
  };
}

// src/report/summary-estimate.ts
var DEFAULT_SUMMARY_RATIO = 0.1;
var MAX_RATIO = 1;
function resultSizes(branch) {
  const sizes = new Map;
  for (const entry of branch) {
    const message = entryMessage(entry);
    if (!isToolResult(message) || typeof message.toolCallId !== "string")
      continue;
    sizes.set(occKey(message.toolCallId, resultTimestampOf(message.timestamp)), extractToolResultText(message).length);
  }
  return sizes;
}
function samplesOf(branch) {
  const sizes = resultSizes(branch);
  const samples = [];
  for (const entry of branch) {
    if (entry.type !== "custom_message" || entry.customType !== CUSTOM_TYPE_SUMMARY)
      continue;
    const parsed = parseSummaryEntry(entry);
    if (!parsed.ok || parsed.value.text === "")
      continue;
    let rawChars = 0;
    for (const key of refOccurrenceKeys(parsed.value.refs))
      rawChars += sizes.get(key) ?? 0;
    if (rawChars > 0)
      samples.push({ summaryChars: parsed.value.text.length, rawChars });
  }
  return samples;
}
function calibrateSummaryEstimate(branch) {
  const samples = samplesOf(branch);
  let realChars = 0;
  let rawChars = 0;
  for (const sample of samples) {
    realChars += sample.summaryChars;
    rawChars += sample.rawChars;
  }
  if (samples.length === 0)
    return { ratio: DEFAULT_SUMMARY_RATIO, samples: 0, meanAbsError: undefined, realChars: 0, rawChars: 0 };
  let meanAbsError;
  if (samples.length >= 2) {
    let errors = 0;
    for (const sample of samples) {
      const ratio = (realChars - sample.summaryChars) / Math.max(1, rawChars - sample.rawChars);
      errors += Math.abs(ratio * sample.rawChars - sample.summaryChars) / sample.summaryChars;
    }
    meanAbsError = errors / samples.length;
  }
  return { ratio: Math.min(MAX_RATIO, realChars / rawChars), samples: samples.length, meanAbsError, realChars, rawChars };
}
function estimateSummaryChars(estimate, rawChars) {
  return Math.max(1, Math.round(Math.min(MAX_RATIO, estimate.ratio) * rawChars));
}

// src/report/what-if-chains.ts
var NO_SPILL = { spillThreshold: Number.POSITIVE_INFINITY, spillPreviewBytes: 0, sessionDir: "", sessionId: "" };
var ignore = () => {};

class WhatIfChainPass {
  config;
  indexer;
  estimate;
  use;
  blockRefs = new BlockRefIssuer;
  constructor(config, indexer, estimate, use) {
    this.config = config;
    this.indexer = indexer;
    this.estimate = estimate;
    this.use = use;
  }
  eligibleRanges(messages) {
    const chainConfig = this.config.chainCompression;
    if (!chainConfig?.enabled)
      return [];
    const snapshot = messages;
    const { eligible } = this.select(snapshot);
    return eligible.flatMap((chain) => resolveRange(chain, snapshot) ?? []);
  }
  async afterFlush(messages, now) {
    const chainConfig = this.config.chainCompression;
    if (!chainConfig?.enabled)
      return;
    const snapshot = messages;
    const { chains, inGrace, eligible } = this.select(snapshot);
    if (eligible.length === 0)
      return;
    const window = chainConfig.rollingWindow;
    const held = await archiveChainMembers(eligible, { indexer: this.indexer, messages: snapshot, backfill: { ...NO_SPILL, appendEntry: ignore } });
    for (const key of held)
      inGrace.add(key);
    await compressEligible(chains, window, {
      indexer: this.indexer,
      blockRefs: this.blockRefs,
      appendEntry: ignore,
      now: () => now,
      fuseRange: chainConfig.fuseRangeSummary ? async (text) => this.fuse(text) : undefined,
      messages: snapshot,
      diagnostics: { report: ignore },
      backfill: NO_SPILL
    }, inGrace);
  }
  select(snapshot) {
    const protection = (name, args) => isProtected(name, args, this.config);
    const chains = withRecoveredRefs(detectChains(snapshot, protection), snapshot);
    const inGrace = inGraceRecoveryToolCallIds(snapshot, this.config.recoveryGraceTurns);
    const already = new Set(this.indexer.getChainEntries().map((entry) => entry.startUserTimestamp));
    return { chains, inGrace, eligible: selectEligible(chains, this.config.chainCompression.rollingWindow, already, inGrace) };
  }
  fuse(text) {
    const chars = estimateSummaryChars(this.estimate, text.length);
    this.use.calls += 1;
    this.use.input += text.length;
    this.use.output += chars;
    return "r".repeat(chars);
  }
}

// src/policy/summary-split.ts
function summarySplit(messages, batches, config) {
  const mode = summariesMode(config);
  if (mode === "always" || batches.length === 0)
    return (batch) => ({ summarize: batch, withoutSummary: { ...batch, toolCalls: [] } });
  const stale = staleOutputsOf(messages, mode, (toolName, args) => isProtected(toolName, args, config));
  return (batch) => splitBatches([batch], mode, stale)[0];
}
function withoutSummaryOf2(messages, batches, config) {
  const split = summarySplit(messages, batches, config);
  const without = new Set;
  for (const batch of batches)
    for (const call of split(batch).withoutSummary.toolCalls)
      without.add(occKey(call.toolCallId, call.resultTimestamp));
  return (call) => without.has(occKey(call.toolCallId, call.resultTimestamp));
}

// src/report/what-if-policy.ts
class WhatIfCostPolicy {
  policy;
  config;
  indexer;
  chainRanges;
  sight;
  ledger = new DeferralLedger;
  early = [];
  constructor(policy, config, indexer, chainRanges, sight) {
    this.policy = policy;
    this.config = config;
    this.indexer = indexer;
    this.chainRanges = chainRanges;
    this.sight = sight;
  }
  charge() {
    const compressed = new Set(this.indexer.getChainEntries().map((entry) => chainItemKey(entry.startUserTimestamp)));
    this.ledger.charge((kind, key) => kind === "chains" ? !compressed.has(key) : !this.indexer.isSummarized(key));
  }
  atFinalReply(moment) {
    const decision = this.weigh(moment, "final-reply", moment.pending, true);
    const basis = decision.record.basis;
    if (decision.apply)
      return { flush: true, chains: basis !== "pays" && basis !== "bound" || this.chains(moment, decision, moment.pending, true) };
    return this.chains(moment, decision, moment.pending, false) ? { flush: true, chains: true } : { flush: false, chains: false };
  }
  afterToolTurn(moment, currentTurn) {
    const own = inRunCandidates(moment.pending, currentTurn, false);
    if (own.length > 0) {
      const decision = this.weigh(moment, "in-run", own, false);
      if (decision.apply) {
        this.early.push(decision.record.figures?.oneTimeCost ?? 0);
        return { batches: own, chains: decision.record.basis !== "pays" };
      }
    }
    if (!this.ledger.account("reply"))
      return;
    const older = inRunCandidates(moment.pending, currentTurn, true);
    if (older.length === 0)
      return;
    const decision = this.weigh(moment, "in-run", older, false, true);
    if (!decision.apply)
      return;
    this.early.push(decision.record.figures?.summarizerCost ?? 0);
    const basis = decision.record.basis;
    return { batches: older, chains: basis === "bound" ? this.chains(moment, decision, older, true) : basis !== "pays" };
  }
  forcedRewrite(moment, batches, cold) {
    const figures = measureRewrite(moment.messages, batches.filter((batch) => !isTrivialBatch(batch, this.config.minBatchChars, argumentStubsOn(this.config))));
    if (!figures)
      return;
    const rule = { ...this.policy.cacheRule ?? LONGEST_PREFIX, ttlMs: this.policy.main.ttlMs };
    this.early.push(weighRewrite(figures, this.policy.main, this.policy.summarizer, 0, cold, rule).oneTimeCost);
  }
  bets() {
    return { deferrals: this.ledger.all(), earlyRewrites: [...this.early] };
  }
  weigh(moment, at, batches, enter, rentCheck = false) {
    return weighFlushBatches({
      moment: at,
      batches,
      messages: moment.messages,
      minBatchChars: this.config.minBatchChars,
      stubArguments: argumentStubsOn(this.config),
      withoutSummary: withoutSummaryOf2(moment.messages, batches, this.config),
      cache: { temperature: "warm", expiresInMs: this.policy.main.ttlMs, requests: moment.requests },
      main: this.policy.main,
      summarizer: this.policy.summarizer,
      contextFraction: moment.contextFraction,
      pressure: this.config.contextPressure,
      promptsSoFar: moment.prompts,
      runRequests: moment.runRequests,
      cacheRule: this.policy.cacheRule ?? { rule: "longest-prefix", breakpoint: false },
      ...moment.size ? { size: moment.size } : {},
      ...enter || rentCheck ? { bound: { ledger: this.ledger, kind: "reply", enter, rentOnly: rentCheck } } : {},
      ...this.sight ? { sight: (keys) => this.sight(moment.messages, keys) } : {}
    });
  }
  chains(moment, decision, batches, flushApplies) {
    const pending = flushApplies ? pendingKeys(batches) : new Set;
    const verdict = weighChains({
      messages: moment.messages,
      ranges: this.chainRanges(moment.messages),
      flushStart: flushApplies ? firstPendingIndex(moment.messages, batches) : moment.messages.length,
      stubbed: (key) => pending.has(key) || this.indexer.isSummarized(key),
      expectedRequests: decision.record.figures?.expectedRequests ?? 0,
      now: moment.time,
      fused: this.config.chainCompression.fuseRangeSummary,
      main: this.policy.main,
      summarizer: this.policy.summarizer,
      cacheRule: this.policy.cacheRule ?? { rule: "longest-prefix", breakpoint: false },
      ledger: this.ledger,
      ...moment.size ? { size: moment.size } : {}
    });
    return verdict?.apply === true;
  }
}

// src/report/what-if.ts
var NONE = new Set;
var CHARS_PER_TOKEN = 4;
var RECENT_REQUESTS = 5;
function charsOf(batch) {
  let chars = 0;
  for (const call of batch.toolCalls)
    chars += call.resultText.length;
  return chars;
}
function timeOf2(message) {
  const timestamp = loose(message)?.timestamp;
  return typeof timestamp === "number" ? timestamp : 0;
}

class Simulation {
  config;
  estimate;
  budgetChars;
  policy;
  windowChars;
  indexer = new ToolCallIndexer;
  messages = [];
  use = { input: 0, output: 0, unit: "chars", calls: 0 };
  sentChars = 0;
  recentSent = [];
  pendingChars = 0;
  source;
  consumed = 0;
  turns = [];
  flushed = [];
  argumentHorizon = NO_HORIZON;
  writes = [];
  turnIndex = 0;
  userTurnGroup = 0;
  requests = 0;
  prompts = 0;
  runRequests = 0;
  lastRequestAt;
  lastAssistant;
  chains;
  costPolicy;
  constructor(config, estimate, budgetChars, policy, windowChars) {
    this.config = config;
    this.estimate = estimate;
    this.budgetChars = budgetChars;
    this.policy = policy;
    this.windowChars = windowChars;
    this.chains = new WhatIfChainPass(config, this.indexer, estimate, this.use);
    const sight = (messages, keys) => {
      const options = sightOptions(config, this.writes);
      return options ? sightOfWrite(messages, options, timeOf2(messages[messages.length - 1]), keys) : { kept: NONE, released: NONE, hidden: [] };
    };
    this.costPolicy = policy ? new WhatIfCostPolicy(policy, config, this.indexer, (messages) => this.chains.eligibleRanges(messages), sight) : undefined;
  }
  beforeRequest(time, coldStart = false) {
    const expired = this.policy && this.lastRequestAt !== undefined && (coldStart || time - this.lastRequestAt >= this.policy.main.ttlMs);
    const last = this.messages[this.messages.length - 1];
    if (expired && last) {
      const newest = this.turns[this.turns.length - 1];
      const unseen = newest?.message === this.lastAssistant ? newest : undefined;
      const seen = this.turns.filter((turn) => turn !== unseen);
      if (seen.length > 0)
        this.forced(seen, last, true);
      else
        this.flushed.push({ length: this.messages.length, time: timeOf2(last), chains: true });
    }
    this.lastRequestAt = time;
  }
  advance(view) {
    if (view.messages !== this.source) {
      this.source = view.messages;
      this.consumed = 0;
      this.messages.length = 0;
      this.turns = [];
      this.sentChars = 0;
      this.pendingChars = 0;
    }
    for (;this.consumed < view.length; this.consumed++)
      this.take(view.messages[this.consumed]);
    this.budgetGate();
  }
  budgetGate() {
    const last = this.messages[this.messages.length - 1];
    if (!isToolResult(last))
      return;
    const overBudget = this.budgetChars !== undefined && this.sentChars >= this.budgetChars;
    const gap = this.config.frontierGapThresholdTokens;
    const overGap = typeof gap === "number" && gap > 0 && this.pendingChars / 4 >= gap;
    if (overBudget || overGap)
      return this.flushTurns(this.turns, last, true);
    if (this.policy !== undefined && this.underPressure()) {
      const older = new Set(inRunCandidates(this.batchesOf(this.turns), this.turnIndex - 1, true).map((batch) => batch.turnIndex));
      const turns = this.turns.filter((turn) => older.has(turn.turnIndex));
      return turns.length > 0 ? this.forced(turns, last, false) : undefined;
    }
    const inRun = this.costPolicy?.afterToolTurn(this.moment(last), this.turnIndex - 1);
    if (!inRun)
      return;
    const taken = new Set(inRun.batches.map((batch) => batch.turnIndex));
    this.flushTurns(this.turns.filter((turn) => taken.has(turn.turnIndex)), last, inRun.chains);
  }
  forced(turns, at, cold) {
    this.costPolicy?.forcedRewrite(this.moment(at), this.batchesOf(turns), cold);
    this.flushTurns(turns, at, true);
  }
  moment(at) {
    return {
      messages: this.messages,
      pending: this.batchesOf(this.turns),
      requests: this.requests,
      prompts: this.prompts,
      runRequests: this.runRequests,
      contextFraction: this.contextFraction(),
      time: timeOf2(at),
      size: { contextTokens: this.sentChars / CHARS_PER_TOKEN, growthTokens: this.growthChars() / CHARS_PER_TOKEN }
    };
  }
  growthChars() {
    let grown = 0;
    let count = 0;
    for (let i = 1;i < this.recentSent.length; i++) {
      const growth = this.recentSent[i] - this.recentSent[i - 1];
      if (growth > 0) {
        grown += growth;
        count++;
      }
    }
    return count === 0 ? 0 : grown / count;
  }
  contextFraction() {
    return this.windowChars ? this.sentChars / this.windowChars : null;
  }
  underPressure() {
    const fraction = this.contextFraction();
    const pressure = this.config.contextPressure;
    return fraction !== null && pressure !== null && fraction >= pressure;
  }
  atFinalReply(reply) {
    if (!this.costPolicy)
      return this.flushTurns(this.turns, reply, true);
    if (this.turns.length === 0)
      return;
    const verdict = this.costPolicy.atFinalReply(this.moment(reply));
    if (verdict.flush)
      this.flushTurns(this.turns, reply, verdict.chains);
  }
  push(message) {
    this.messages.push(message);
    this.sentChars += messageChars(message);
  }
  take(message) {
    this.push(message);
    if (isUser(message) || isCustom(message) && message.customType !== CUSTOM_TYPE_SUMMARY) {
      this.userTurnGroup += 1;
      this.prompts += 1;
      this.runRequests = 0;
    }
    if (isToolResult(message)) {
      this.turns[this.turns.length - 1]?.results.push(message);
      this.pendingChars += messageChars(message);
      return;
    }
    if (!isAssistant(message))
      return;
    this.lastAssistant = message;
    this.requests += 1;
    this.runRequests += 1;
    this.costPolicy?.charge();
    if (toolCallBlocks(message).length > 0) {
      this.turns.push({ message, results: [], turnIndex: this.turnIndex, userTurnGroup: this.userTurnGroup });
    }
    this.turnIndex += 1;
    if (this.config.pruneOn === "agent-message" && isTextOnlyAssistant(message))
      this.atFinalReply(message);
  }
  excluded(name, args) {
    return isRecoveryTool(name) || isProtected(String(name), args, this.config);
  }
  releasable = NONE;
  pendingIds() {
    const ids = new Set;
    for (const key of this.releasable)
      ids.add(parseOccKey(key).toolCallId);
    for (const batch of this.batchesOf(this.turns))
      for (const call of batch.toolCalls)
        ids.add(call.toolCallId);
    return ids;
  }
  batchesOf(turns) {
    const batches = [];
    for (const turn of turns) {
      const batch = this.capturedTurn(turn);
      if (batch)
        batches.push(batch);
    }
    return groupBatchesByMode(batches, this.config.batchingMode);
  }
  capturedTurn(turn) {
    if (turn.captured?.results === turn.results.length)
      return turn.captured.batch;
    const timestamp = typeof turn.message.timestamp === "number" ? turn.message.timestamp : 0;
    const batch = captureBatch(turn.message, turn.results, turn.turnIndex, timestamp);
    const answered = new Set(turn.results.map((result) => loose(result)?.toolCallId));
    const kept = batch.toolCalls.filter((call) => answered.has(call.toolCallId) && !this.excluded(call.toolName, call.args));
    const captured = kept.length > 0 ? { ...batch, toolCalls: kept, userTurnGroup: turn.userTurnGroup } : undefined;
    turn.captured = { results: turn.results.length, batch: captured };
    return captured;
  }
  flushTurns(turns, reply, chains) {
    const batches = this.batchesOf(turns);
    const taken = new Set(turns);
    this.turns = this.turns.filter((turn) => !taken.has(turn));
    this.pendingChars = 0;
    for (const turn of this.turns)
      for (const result of turn.results)
        this.pendingChars += messageChars(result);
    const split = summarySplit(this.messages, batches, this.config);
    for (const batch of batches) {
      if (this.config.minBatchChars > 0 && charsOf(batch) < this.config.minBatchChars) {
        if (isTrivialBatch(batch, this.config.minBatchChars, argumentStubsOn(this.config)))
          continue;
        this.archiveWithoutSummary(withoutSummaryOf(batch));
        continue;
      }
      const { summarize, withoutSummary } = split(batch);
      if (summarize.toolCalls.length > 0 || withoutSummary.toolCalls.length === 0)
        this.summarize(summarize, charsOf(summarize), reply);
      if (withoutSummary.toolCalls.length > 0)
        this.archiveWithoutSummary(withoutSummary);
    }
    if (batches.length > 0)
      this.flushed.push({ length: this.messages.length, time: timeOf2(reply), chains });
  }
  moveHorizon(batch) {
    this.argumentHorizon = timeOf2(this.messages[this.messages.length - 1]);
    const keys = batch.toolCalls.map((call) => occKey(call.toolCallId, call.resultTimestamp));
    const last = this.writes[this.writes.length - 1];
    if (last?.at === this.argumentHorizon)
      this.writes[this.writes.length - 1] = { ...last, keys: [...last.keys, ...keys] };
    else
      this.writes.push({ at: this.argumentHorizon, keys });
  }
  archiveWithoutSummary(batch) {
    this.moveHorizon(batch);
    const refs = this.indexer.allocateSummaryRefs(batch);
    this.indexer.addBatch(batch, () => {}, refs);
    this.indexer.registerSummaryRefs(refs);
  }
  summarize(batch, raw, reply) {
    this.moveHorizon(batch);
    const refs = this.indexer.allocateSummaryRefs(batch);
    this.indexer.registerSummaryRefs(refs);
    this.indexer.addBatch(batch, () => {}, refs);
    const footer = formatSummaryToolCallRefs(refs);
    const body = "s".repeat(Math.max(1, estimateSummaryChars(this.estimate, raw) - footer.length));
    this.indexer.registerSummaryBody(refOccurrenceKeys(refs), body);
    this.push({
      role: "custom",
      customType: CUSTOM_TYPE_SUMMARY,
      content: body + footer,
      display: false,
      details: makeSummaryDetails(batch, refs),
      timestamp: timeOf2(reply)
    });
    this.use.calls += 1;
    this.use.input += serializeBatchForSummarizer(batch).length;
    this.use.output += body.length + footer.length;
  }
  noteSent(messages) {
    let chars = 0;
    for (const message of messages)
      chars += messageChars(message);
    this.sentChars = chars;
    this.recentSent.push(chars);
    if (this.recentSent.length > RECENT_REQUESTS)
      this.recentSent.shift();
  }
  takeFlushes() {
    const flushes = this.flushed;
    this.flushed = [];
    return flushes;
  }
}
function budgetChars(config, contextWindow) {
  const share = config.autoBudgetThreshold;
  if (typeof share !== "number" || share <= 0 || share > 1 || !contextWindow || contextWindow <= 0)
    return;
  return Math.min(MAX_BUDGET_WINDOW, share * contextWindow) * 4;
}
function whatIfScenario(config, estimate, contextWindow, label, policy) {
  const windowChars = contextWindow && contextWindow > 0 ? Math.min(MAX_BUDGET_WINDOW, contextWindow) * 4 : undefined;
  const sim = new Simulation(config, estimate, budgetChars(config, contextWindow), policy, windowChars);
  const stable = new StableMessages;
  return {
    name: "whatif",
    label,
    async messagesAt(request, coldStart) {
      sim.advance(request.bare);
      sim.beforeRequest(request.time, coldStart);
      for (const flush of sim.takeFlushes())
        if (flush.chains)
          await sim.chains.afterFlush(sim.messages.slice(0, flush.length), flush.time);
      const input = sim.messages.slice();
      const rendered = renderMessages(input, sim.indexer, config.chainCompression, config.purgeErrors, config, config.recoveryGraceTurns, sim.indexer.archiveCheck(), argumentStubsOn(config), sim.argumentHorizon, sightOptions(config, sim.writes));
      sim.noteSent(rendered);
      sim.releasable = workingSetOf(rendered)?.releasable ?? NONE;
      return stable.stable(rendered);
    },
    summarizer: () => ({ ...sim.use }),
    pending: () => sim.pendingIds(),
    ...sim.costPolicy ? { bets: () => sim.costPolicy.bets() } : {}
  };
}

// src/bill/series.ts
function summarizerTokens(use, charsPerToken) {
  return use.unit === "tokens" ? { input: use.input, output: use.output } : { input: use.input / charsPerToken, output: use.output / charsPerToken };
}
function priceRefreshes(refreshes, index, pricing, tally) {
  for (const refresh of refreshes) {
    const read = refresh.cached / pricing.charsPerToken;
    const write = refresh.written / pricing.charsPerToken;
    const plain = Math.max(0, refresh.chars / pricing.charsPerToken - read - write);
    const p = pricing.pricesFor(index, read + write + plain);
    const dollars = read * p.cacheRead + write * p.cacheWrite + plain * p.input + p.output;
    tally.dollars += dollars;
    tally.refreshDollars += dollars;
    tally.refreshes += 1;
    tally.refreshRead += read;
    tally.refreshWrite += write;
    tally.output += 1;
  }
}
function series(run, steps, refreshes, outputTokens, pricing) {
  const cpt = pricing.charsPerToken;
  const out = { name: run.scenario.name, label: run.scenario.label, context: [], cacheRead: [], cacheWrite: [], cumulativeCost: [], totals: undefined };
  const tally = { dollars: 0, output: 0, uncached: 0, refreshDollars: 0, refreshes: 0, refreshRead: 0, refreshWrite: 0 };
  let prefixBreaks = 0;
  let coldStarts = 0;
  let recordedColdStarts = 0;
  let lookbackMisses = 0;
  let peak = 0;
  steps.forEach((step, i) => {
    const context = step.chars / cpt;
    const read = step.cachedChars / cpt;
    const write = step.writtenChars / cpt;
    const plain = Math.max(0, context - read - write);
    const tokensOut = outputTokens[i] ?? 0;
    const p = pricing.pricesFor(i, context);
    out.context.push(context);
    out.cacheRead.push(read);
    out.cacheWrite.push(write);
    tally.dollars += read * p.cacheRead + write * p.cacheWrite + plain * p.input + tokensOut * p.output;
    priceRefreshes(refreshes[i] ?? [], i, pricing, tally);
    out.cumulativeCost.push(tally.dollars);
    tally.output += tokensOut;
    tally.uncached += plain;
    if (step.prefixBreak)
      prefixBreaks += 1;
    if (step.cold)
      coldStarts += 1;
    if (step.recordedCold)
      recordedColdStarts += 1;
    if (step.lookbackMiss)
      lookbackMisses += 1;
    peak = Math.max(peak, context);
  });
  let recoveries = 0;
  let misses = 0;
  let editLineMisses = 0;
  let recoveryDollars = 0;
  run.misses.forEach((missed, i) => {
    if (!missed)
      return;
    recoveries += 1;
    misses += missed.items.length;
    editLineMisses += missed.editLines;
    const context = steps[i].chars / cpt;
    recoveryDollars += recoveryCost(context, missed.holderChars / cpt, pricing.pricesFor(i, context));
  });
  const use = run.scenario.summarizer();
  const summarizer = summarizerTokens(use, cpt);
  const sp = pricing.summarizer.prices;
  const summarizerDollars = pricing.trustRecorded && use.recordedCost !== undefined ? use.recordedCost : summarizer.input * sp.input + summarizer.output * sp.output;
  out.totals = {
    requests: steps.length,
    input: sum(out.context),
    cacheRead: sum(out.cacheRead) + tally.refreshRead,
    cacheWrite: sum(out.cacheWrite) + tally.refreshWrite,
    output: tally.output,
    summarizerInput: summarizer.input,
    summarizerOutput: summarizer.output,
    summarizerCalls: use.calls,
    uncached: tally.uncached,
    prefixBreaks,
    coldStarts,
    recordedColdStarts,
    lookbackMisses,
    refreshes: tally.refreshes,
    refreshDollars: pricing.priced ? tally.refreshDollars : undefined,
    peakContext: peak,
    dollars: pricing.priced ? tally.dollars + summarizerDollars : undefined,
    recoveries,
    misses,
    editLineMisses,
    recoveryDollars: pricing.priced ? recoveryDollars : undefined
  };
  return out;
}
function sum(values) {
  let total = 0;
  for (const value of values)
    total += value;
  return total;
}

// src/bill/recorded-bill.ts
function finite2(value) {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}
function tokens2(usage) {
  let total = 0;
  for (const key of ["input", "output", "cacheRead", "cacheWrite"])
    total += Math.max(0, finite2(usage[key]) ?? 0);
  return total;
}
function costOf(value, provider, model, cardOf, counts) {
  const usage = loose(value);
  if (!usage)
    return;
  const total = finite2(loose(usage.cost)?.total);
  const used = tokens2(usage);
  if (total !== undefined && total >= 0) {
    if (loose(usage.cost)?.totalFromProvider === true)
      counts.billed++;
    else if (used === 0 && total > 0)
      counts.costOnly++;
    return total;
  }
  if (used === 0)
    return;
  if (total !== undefined) {
    counts.unusable++;
    return;
  }
  const card = cardOf(typeof provider === "string" ? provider : undefined, typeof model === "string" ? model : undefined);
  if (!card) {
    counts.unpriced++;
    return;
  }
  counts.derived++;
  const n = (key) => Math.max(0, finite2(usage[key]) ?? 0);
  return usageDollars(card, { input: n("input"), output: n("output"), cacheRead: n("cacheRead"), cacheWrite: n("cacheWrite"), cacheWrite1h: n("cacheWrite1h") });
}
function notesOf(counts) {
  const notes = [];
  const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;
  if (counts.derived > 0)
    notes.push(`recorded bill: ${plural(counts.derived, "usage records", "usages record")} tokens but no cost; priced at the catalog's prices of the reply's model and tier, as pi-ai prices a usage`);
  if (counts.unpriced > 0)
    notes.push(`recorded bill: ${plural(counts.unpriced, "usage records", "usages record")} tokens but no cost, of a model the catalog does not price; left out of it`);
  if (counts.costOnly > 0)
    notes.push(`recorded bill: ${plural(counts.costOnly, "usage records", "usages record")} a cost but no tokens; the cost is taken as recorded`);
  if (counts.billed > 0)
    notes.push(`recorded bill: ${plural(counts.billed, "reply carries", "replies carry")} the provider's billed cost, taken as recorded (the simulation prices at the catalog)`);
  if (counts.unusable > 0)
    notes.push(`recorded bill: ${plural(counts.unusable, "usage records", "usages record")} a negative cost; left out of it`);
  if (counts.emptyRefresh > 0)
    notes.push(`recorded bill: ${plural(counts.emptyRefresh, "cache-warming refresh records", "cache-warming refreshes record")} no usage; counted at $0`);
  return notes;
}
function assistantOf(entry) {
  if (entry.type !== "message")
    return;
  const message = loose(entry.message);
  return message?.role === "assistant" ? message : undefined;
}
function recordedBill(branch, cardOf) {
  const counts = { derived: 0, unpriced: 0, costOnly: 0, billed: 0, unusable: 0, emptyRefresh: 0 };
  const bill = { dollars: undefined, replies: 0, repliesWithCost: 0, refreshes: 0, refreshDollars: 0, otherDollars: 0, notes: [] };
  const add = (dollars) => {
    if (dollars !== undefined)
      bill.dollars = (bill.dollars ?? 0) + dollars;
  };
  for (const entry of branch) {
    const raw = entry;
    const reply = assistantOf(entry);
    if (reply) {
      if (loose(reply.usage))
        bill.replies++;
      const dollars = costOf(reply.usage, reply.provider, reply.responseModel ?? reply.model, cardOf, counts);
      if (dollars !== undefined)
        bill.repliesWithCost++;
      add(dollars);
    } else if (entry.type === "usage") {
      bill.refreshes += raw.kind === "cache_warm" ? 1 : 0;
      const dollars = costOf(raw.usage, raw.provider, raw.model, cardOf, counts);
      if (dollars === undefined && raw.kind === "cache_warm" && !loose(raw.usage))
        counts.emptyRefresh++;
      if (raw.kind === "cache_warm")
        bill.refreshDollars += dollars ?? 0;
      else
        bill.otherDollars += dollars ?? 0;
      add(dollars);
    } else if (entry.type === "compaction" || entry.type === "branch_summary" || entry.type === "message" && loose(raw.message)?.role === "toolResult") {
      const usage = entry.type === "message" ? loose(raw.message)?.usage : raw.usage;
      if (usage === undefined)
        continue;
      const dollars = costOf(usage, undefined, undefined, cardOf, counts);
      bill.otherDollars += dollars ?? 0;
      add(dollars);
    }
  }
  bill.notes = notesOf(counts);
  return bill;
}
function recordedPrices(branch, provider, model) {
  const keys = ["input", "output", "cacheRead", "cacheWrite"];
  const tokenSum = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  const costSum = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  for (const entry of branch) {
    const reply = assistantOf(entry);
    if (!reply || reply.provider !== provider || reply.model !== model)
      continue;
    const usage = loose(reply.usage);
    const cost = loose(usage?.cost);
    if (!usage || !cost || cost.totalFromProvider === true)
      continue;
    for (const key of keys) {
      const n = finite2(usage[key]);
      const c = finite2(cost[key]);
      if (n === undefined || c === undefined || n <= 0 || c < 0)
        continue;
      tokenSum[key] += n;
      costSum[key] += c;
    }
  }
  const perMillion = (key) => tokenSum[key] > 0 ? costSum[key] / tokenSum[key] * 1e6 : 0;
  const rates = { input: perMillion("input"), output: perMillion("output"), cacheRead: perMillion("cacheRead"), cacheWrite: perMillion("cacheWrite") };
  if (!(rates.input > 0))
    rates.input = rates.cacheWrite > 0 ? rates.cacheWrite / 1.25 : rates.cacheRead / 0.1;
  return rates.input > 0 ? rates : undefined;
}

// src/report/output-fates.ts
var BIGGEST_OUTPUTS = 5;
function callView(branch, toolCallId) {
  for (const entry of branch) {
    const message = entryMessage(entry);
    if (!isAssistant(message) || !Array.isArray(message.content))
      continue;
    const block = message.content.find((b) => isToolCall(b) && b.id === toolCallId);
    if (!block)
      continue;
    const args = block.arguments ?? {};
    const shown = typeof args.command === "string" ? args.command : typeof args.path === "string" ? args.path : JSON.stringify(args);
    return String(shown).replace(/\s+/g, " ").slice(0, 80);
  }
  return "";
}
function fateIn(messages, original, originalText) {
  const result = messages.find((m) => isToolResult(m) && m.toolCallId === original.toolCallId && m.timestamp === original.timestamp);
  if (!result)
    return "not in the request (compressed or compacted away)";
  const text = extractToolResultText(result);
  if (text === originalText)
    return "kept whole";
  const ref = /ref `([^`]+)`/.exec(text)?.[1];
  return ref ? `stub, ref ${ref} (${text.length} chars)` : `shortened to ${text.length} chars`;
}
function fateOfOutputs(branch, finals) {
  const results = [];
  for (const entry of branch) {
    const message = entryMessage(entry);
    if (isToolResult(message) && typeof message.toolCallId === "string")
      results.push({ message, text: extractToolResultText(message) });
  }
  results.sort((a, b) => b.text.length - a.text.length);
  return results.slice(0, BIGGEST_OUTPUTS).map(({ message, text }) => ({
    toolName: String(message.toolName ?? "tool"),
    toolCallId: message.toolCallId,
    call: callView(branch, message.toolCallId),
    chars: text.length,
    fates: finals.map((final) => ({ label: final.label, fate: fateIn(final.messages, message, text) }))
  }));
}

// src/report/replay.ts
var WHAT_IF = "what-if";
var tick = () => new Promise((resolve) => setImmediate(resolve));

class RunningRatio {
  chars = 0;
  tokens = 0;
  add(chars, usage) {
    if (!usage)
      return;
    this.chars += chars;
    this.tokens += usage.input + usage.cacheRead + usage.cacheWrite;
  }
  get value() {
    return this.tokens > 0 && this.chars > 0 ? this.chars / this.tokens : DEFAULT_CHARS_PER_TOKEN;
  }
}
async function runAll(scenarios, sent, requests, plan, options) {
  const runs = scenarios.map((scenario) => ({ scenario, steps: [], refreshes: [], alternative: [], alternativeRefreshes: [], prefix: [], prefixRefreshes: [], finalMessages: [], misses: [] }));
  const anthropic = plan.setup.rule === "anthropic-breakpoints";
  const floor = new FloorTally(plan.setup.rule, plan.setup.options.minTokens);
  const refreshes = requests.some((request) => request.refreshes);
  const coldAt = requests.map(() => false);
  const ratio = new RunningRatio;
  const total = requests.length * scenarios.length;
  let done = 0;
  options.onProgress?.(0, total);
  for (const s of [sent, ...scenarios.keys()].filter((s, i, all) => all.indexOf(s) === i)) {
    const run = runs[s];
    const name = run.scenario.name;
    const counter = new MissCounter;
    const pricer = new CachePricer(plan.setup, anthropic && name !== "none" && plan.spareBreakpoint, anthropic && name === "whatif", name === "none" ? floor : undefined, refreshes);
    for (let r = 0;r < requests.length; r++) {
      const request = requests[r];
      const messages = await run.scenario.messagesAt(request, coldAt[r]);
      const pending = run.scenario.pending?.bind(run.scenario);
      const priced = pricer.step({
        time: request.time,
        messages,
        systemChars: request.systemChars,
        systemVersion: request.systemVersion,
        outputTokens: request.outputTokens,
        ...pending ? { pending } : {},
        ...s === sent ? request.usage ? { recordedRead: request.usage.cacheRead * ratio.value } : {} : { coldStart: coldAt[r] }
      });
      if (s === sent) {
        if (priced.step.recordedCold)
          coldAt[r] = true;
        ratio.add(priced.step.chars, request.usage);
      }
      run.steps.push(priced.step);
      run.misses.push(counter.observe(request.bare, messages, request.systemText, request.reply));
      if (priced.alternative)
        run.alternative.push(priced.alternative);
      if (priced.prefix)
        run.prefix.push(priced.prefix);
      sendRefreshes(run, pricer, request, priced.step.chars / ratio.value, name === "whatif" ? plan.warms : undefined);
      if (r === requests.length - 1)
        run.finalMessages = messages;
      done += 1;
      if (options.yieldEvery && done % options.yieldEvery === 0) {
        options.onProgress?.(done, total);
        await tick();
      }
    }
  }
  options.onProgress?.(total, total);
  return { runs, floor: floor.result() };
}
function sendRefreshes(run, pricer, request, promptTokens, warms) {
  const main = [];
  const alternative = [];
  const prefix = [];
  const phase = request.endsRun ? "idle" : "streaming";
  for (const refresh of request.refreshes ?? []) {
    if (warms && !warms(promptTokens, phase))
      break;
    const billed = pricer.refresh(refresh.time);
    if (billed.step)
      main.push(billed.step);
    if (billed.alternative)
      alternative.push(billed.alternative);
    if (billed.prefix)
      prefix.push(billed.prefix);
  }
  run.refreshes.push(main);
  run.alternativeRefreshes.push(alternative);
  run.prefixRefreshes.push(prefix);
}
function meanAbsError(requests, steps, charsPerToken) {
  let sum = 0;
  let n = 0;
  requests.forEach((request, i) => {
    const usage = request.usage;
    if (!usage)
      return;
    const recorded = usage.input + usage.cacheRead + usage.cacheWrite;
    sum += Math.abs(steps[i].chars / charsPerToken - recorded) / recorded;
    n += 1;
  });
  return n === 0 ? undefined : sum / n;
}
function calibrateTokens(requests, sent) {
  let recorded = 0;
  let chars = 0;
  let samples = 0;
  requests.forEach((request, i) => {
    if (!request.usage)
      return;
    recorded += request.usage.input + request.usage.cacheRead + request.usage.cacheWrite;
    chars += sent.steps[i].chars;
    samples += 1;
  });
  if (samples === 0 || recorded === 0) {
    return { samples: 0, charsPerToken: DEFAULT_CHARS_PER_TOKEN, errorAtFour: undefined, errorCalibrated: undefined };
  }
  const charsPerToken = chars / recorded;
  return {
    samples,
    charsPerToken,
    errorAtFour: meanAbsError(requests, sent.steps, DEFAULT_CHARS_PER_TOKEN),
    errorCalibrated: meanAbsError(requests, sent.steps, charsPerToken)
  };
}
function requestPricing(options, requests, main, route, notes) {
  if (options.priceAs)
    return (_index, tokens) => pricesAt(main, tokens);
  const byModel = new Map;
  const unknown = new Map;
  const costs = requests.map((request) => {
    const name = modelName(request);
    let cost = byModel.get(name);
    if (!cost) {
      const found = options.costModelOf(request.provider, request.model);
      cost = found.model ? costModelFor(found.model, route) : found.cost;
      byModel.set(name, cost);
    }
    if (cost.priced)
      return cost;
    if (main.priced && name !== main.label)
      unknown.set(name, (unknown.get(name) ?? 0) + 1);
    return main;
  });
  for (const [name, count] of unknown)
    notes.push(`${count} ${count === 1 ? "reply" : "replies"} of ${name}, which pi's model catalog does not price, billed at ${main.label}'s prices`);
  return (index, tokens) => pricesAt(costs[index] ?? main, tokens);
}
function clockNotes(requests) {
  let back = 0;
  for (let i = 1;i < requests.length; i++)
    if (requests[i].time < requests[i - 1].time)
      back++;
  return back === 0 ? [] : [`${back} ${back === 1 ? "request is" : "requests are"} dated before the one before (the clock went back, or the entries are out of order): each is billed as a cold start`];
}
function warmingRule(model) {
  if (!model)
    return () => true;
  return (tokens, phase) => {
    try {
      return evaluateCacheWarming(model, Math.max(0, Math.round(tokens)), phase).action === "warm";
    } catch {
      return true;
    }
  };
}
async function replaySession(options) {
  const requests = buildRequests(options.branch);
  const last = requests[requests.length - 1];
  const found = options.priceAs ? options.costModelOf(options.priceAs.provider, options.priceAs.id) : options.costModelOf(last?.provider, last?.model);
  const api = options.priceAs ? found.api ?? last?.api : last?.api;
  const identity = { api, provider: options.priceAs?.provider ?? last?.provider, id: options.priceAs?.id ?? last?.model };
  const route = cacheRouteOf({ ...found.model, ...identity }, options.cacheEnv);
  const cost = found.model ? costModelFor(found.model, route) : recordedCostModel(options, identity, route) ?? found.cost;
  const { contextWindow } = found;
  const plan = { setup: cacheSetup(route, cost.ttlMs), api, spareBreakpoint: options.config.cacheBreakpoint, warms: warmingRule(found.model) };
  const summaryEstimate = calibrateSummaryEstimate(options.branch);
  const recorded = hasPrunerEntries(options.branch);
  const scenarios = [noPruningScenario()];
  if (recorded)
    scenarios.push(actualScenario(options.branch, options.config));
  const config = options.config;
  const costPolicy = config.flushPolicy === "cost" && config.pruneOn === "agent-message" && cost.priced;
  const cacheRule = { rule: route.rule, breakpoint: plan.spareBreakpoint, retention: route.retention, ...route.problem ? { problem: route.problem } : {} };
  const summarizerCost = summarizerCostModel(options, cost);
  const policy = costPolicy ? { main: cost, summarizer: summarizerCost, cacheRule } : undefined;
  scenarios.push(whatIfScenario(config, summaryEstimate, contextWindow, WHAT_IF, policy));
  const sent = recorded ? 1 : 0;
  const { runs, floor } = await runAll(scenarios, sent, requests, plan, options);
  const tokens = calibrateTokens(requests, runs[sent]);
  const pricingNotes = [];
  const pricing = {
    pricesFor: requestPricing(options, requests, cost, route, pricingNotes),
    priced: cost.priced,
    summarizer: summarizerCost,
    charsPerToken: tokens.charsPerToken,
    trustRecorded: options.priceAs === undefined
  };
  const outputTokens = requests.map((request) => request.outputTokens);
  const series_ = runs.map((run) => series(run, run.steps, run.refreshes, outputTokens, pricing));
  const whatIfRun = runs.find((run) => run.scenario.name === "whatif");
  const cache = { rule: plan.setup.rule, api, route, spareBreakpoint: plan.setup.rule === "anthropic-breakpoints" && plan.spareBreakpoint };
  if (whatIfRun && whatIfRun.alternative.length === whatIfRun.steps.length && plan.setup.rule === "anthropic-breakpoints") {
    const totals = series(whatIfRun, whatIfRun.alternative, whatIfRun.alternativeRefreshes, outputTokens, pricing).totals;
    cache.whatIfOther = { spareBreakpoint: !plan.spareBreakpoint, totals };
  }
  if (whatIfRun && whatIfRun.prefix.length === whatIfRun.steps.length && plan.setup.rule === "anthropic-breakpoints") {
    cache.whatIfPrefix = series(whatIfRun, whatIfRun.prefix, whatIfRun.prefixRefreshes, outputTokens, pricing).totals;
  }
  const bill = recordedBill(options.branch, (provider, model) => {
    const found = options.costModelOf(provider, model).cost;
    return found.priced ? found.catalog : undefined;
  });
  return {
    sessionId: options.sessionId,
    requests: requests.length,
    model: modelName(last),
    cost,
    cache,
    scenarios: series_,
    limit: limitOf(floor, cost, tokens.charsPerToken),
    summaryEstimate,
    tokens,
    outputs: fateOfOutputs(options.branch, runs.map((run) => ({ label: run.scenario.label, messages: run.finalMessages }))),
    problems: options.problems,
    notes: [...priceNotes(options, cost, last), ...pricingNotes, ...clockNotes(requests), ...bill.notes, ...replayNotes(options, recorded, series_, policy !== undefined)],
    recorded: bill,
    ...whatIfRun?.scenario.bets ? { bets: whatIfRun.scenario.bets() } : {},
    ...recorded ? sightOf(options.branch, cost) : {}
  };
}
function sightOf(branch, cost) {
  try {
    const counter = new LiveSight;
    counter.feed(branch);
    return { sight: sightFigures(counter.recoveries, cost) };
  } catch (err) {
    console.error("pi-condense: counting the recorded recoveries failed", err);
    return {};
  }
}
function recordedCostModel(options, identity, route) {
  if (options.priceAs)
    return;
  const prices = recordedPrices(options.branch, identity.provider, identity.id);
  if (!prices)
    return;
  const cost = costModelFor({ ...identity, cost: prices }, route);
  const shown = (key) => `${key === "cacheRead" ? "cache read" : key === "cacheWrite" ? "cache write" : key} $${prices[key].toFixed(2)}`;
  const note = `${cost.label} is not in pi's model catalog: priced at the rates its recorded usage shows (per million tokens: ${["input", "output", "cacheRead", "cacheWrite"].map(shown).join(", ")})`;
  return { ...cost, notes: [note, ...cost.notes] };
}
function limitOf(floor, cost, charsPerToken) {
  return {
    written: floor.written / charsPerToken,
    uncached: floor.uncached / charsPerToken,
    fixedRead: floor.fixedRead / charsPerToken,
    output: floor.outputTokens,
    dollars: cost.priced ? floorDollars(floor, cardOf(cost), charsPerToken) : undefined
  };
}
function priceNotes(options, cost, last) {
  const asked = options.priceAs ? `${options.priceAs.provider}/${options.priceAs.id}` : undefined;
  if (!cost.priced)
    return [`${asked ?? modelName(last)} has no price in pi's model catalog: tokens only, no dollars`];
  return asked ? [`priced as ${asked} (--model), not as ${modelName(last)}`, ...cost.notes] : cost.notes;
}
function modelName(request) {
  return request?.provider && request.model ? `${request.provider}/${request.model}` : "an unnamed model";
}
function summarizerCostModel(options, main) {
  const value = String(options.config.summarizerModel ?? "default");
  const slash = value.indexOf("/");
  if (value === "default" || slash <= 0)
    return main;
  const found = options.costModelOf(value.slice(0, slash), value.slice(slash + 1)).cost;
  return found.priced ? found : main;
}
function replayNotes(options, recorded, scenarios, costPolicy) {
  const notes = [];
  if (!recorded)
    notes.push("the session has no pi-condense entries: what it sent is the no-pruning run");
  const settings = options.overrides.length > 0 ? `your settings with ${options.overrides.join(", ")}` : "your current settings";
  notes.push(costPolicy ? `what-if: ${settings}, with the cost policy's flush decisions at the final reply, after an expired cache and once the context passes contextPressure, the share of the window where it summarizes whatever the cost (its in-run flushes are not simulated; after a flush that paid, earlier prompts' work is compressed only when that pays too)` : `what-if: ${settings}, with the classic policy's timing (at the agent's final reply, and at the budget gates)`);
  const whatIf = scenarios.find((s) => s.name === "whatif");
  if (options.config.pruneOn === "on-demand") {
    const same = whatIf && whatIf.totals.summarizerCalls === 0 ? ", so the what-if equals no pruning" : "";
    notes.push(`what-if: your settings summarize only when you run /pruner now, which a replay cannot do${same}; ` + "add pruneOn=agent-message to see what summarizing after each final reply saves");
  }
  if (whatIf && whatIf.totals.summarizerCalls === 0 && options.config.pruneOn === "agent-message" && options.config.autoBudgetThreshold === null) {
    notes.push("what-if summarized nothing: no final text reply ended a tool run, or every batch was under minBatchChars; try autoBudgetThreshold=0.1 or frontierGapThresholdTokens=2000");
  }
  return notes;
}

// src/report/session-file.ts
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { basename, dirname, extname, join, sep } from "node:path";
var MAX_READ_BYTES = 256 * 1024 * 1024;
function bytes(n) {
  return n >= 1024 * 1024 ? `${Math.round(n / (1024 * 1024))} MB` : `${Math.round(n / 1024)} KB`;
}
function unreadableText(err, shown) {
  const code = err?.code;
  if (code === "ENOENT")
    return `there is no file at ${shown}`;
  if (code === "EISDIR" || code === "NOT_A_FILE")
    return `${shown} is a folder or a device, not a session file`;
  if (code === "EACCES" || code === "EPERM")
    return `${shown} cannot be read: permission denied`;
  if (code === "ENOTDIR")
    return `there is no file at ${shown} (a part of that path is a file, not a folder)`;
  return `${shown} cannot be read (${code ?? (err instanceof Error ? err.message : String(err))})`;
}
function readSessionText(path, limit = MAX_READ_BYTES) {
  const fd = openSync(path, "r");
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile())
      throw Object.assign(new Error(`${path} is not a regular file`), { code: "NOT_A_FILE" });
    const size = Math.min(stats.size, limit);
    const buffer = Buffer.alloc(size);
    let read = 0;
    while (read < size) {
      const n = readSync(fd, buffer, read, size - read, read);
      if (n === 0)
        break;
      read += n;
    }
    let text = buffer.subarray(0, read).toString("utf8");
    const problems = [];
    if (stats.size > limit) {
      const cut = text.lastIndexOf(`
`);
      text = cut >= 0 ? text.slice(0, cut + 1) : "";
      const line = text.split(`
`).length;
      problems.push({ line, message: `line ${line}: the file is ${bytes(stats.size)}; only its first ${bytes(limit)} (lines 1-${line - 1}) were replayed` });
    }
    return { text, problems };
  } finally {
    closeSync(fd);
  }
}
var PI_SESSION_NAME = /_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-([0-9a-f]{12})$/i;
function reportPathFor(sessionPath) {
  const name = basename(sessionPath, extname(sessionPath));
  const id = PI_SESSION_NAME.exec(name)?.[1];
  return join(dirname(sessionPath), id ? `report-${id.toLowerCase()}.html` : `${name}.report.html`);
}
function shownPath(path, home) {
  if (!home || home === sep)
    return path;
  const prefix = home.endsWith(sep) ? home : `${home}${sep}`;
  return path.startsWith(prefix) ? `~/${path.slice(prefix.length)}` : path;
}
async function writeReportFile(path, html) {
  await writeFile(path, html, { encoding: "utf8", mode: 384 });
}

// src/report/session-parse.ts
import { CURRENT_SESSION_VERSION, migrateSessionEntries } from "@earendil-works/pi-coding-agent";
var PREVIEW_CHARS = 60;
function preview(line) {
  const flat = line.replace(/\s+/g, " ").trim();
  return flat.length > PREVIEW_CHARS ? `${flat.slice(0, PREVIEW_CHARS)}…` : flat;
}
function isObject(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
function unreadableMessage(value) {
  if (value.type !== "message")
    return false;
  const message = value.message;
  return typeof message !== "object" || message === null || Array.isArray(message) || typeof message.role !== "string";
}
function parseLines(text, problems) {
  const lines = text.split(`
`);
  const raw = { header: undefined, entries: [], lineOf: new Map, skipped: new Map };
  for (let i = 0;i < lines.length; i++) {
    const line = lines[i];
    if (line.trim() === "")
      continue;
    let value;
    try {
      value = JSON.parse(line);
    } catch {
      const last = i === lines.length - 1 || lines.slice(i + 1).every((rest) => rest.trim() === "");
      const what = last ? "truncated or corrupt JSON (the last line: was the session still being written?)" : "corrupt JSON";
      problems.push({ line: i + 1, message: `line ${i + 1}: ${what}, skipped: ${preview(line)}` });
      continue;
    }
    if (!isObject(value) || typeof value.type !== "string") {
      problems.push({ line: i + 1, message: `line ${i + 1}: not a session entry (no "type"), skipped: ${preview(line)}` });
      continue;
    }
    if (value.type === "session") {
      if (raw.header === undefined)
        raw.header = value;
      else
        problems.push({ line: i + 1, message: `line ${i + 1}: a second session header, ignored` });
      continue;
    }
    if (unreadableMessage(value)) {
      problems.push({ line: i + 1, message: `line ${i + 1}: a message entry without a message (no role), skipped` });
      if (typeof value.id === "string")
        raw.skipped.set(value.id, typeof value.parentId === "string" ? value.parentId : null);
      continue;
    }
    raw.entries.push(value);
    raw.lineOf.set(value, i + 1);
  }
  return raw;
}
function checkHeader(header, problems) {
  if (header === undefined) {
    problems.push({ line: 1, message: 'line 1: no pi session header (a line with "type":"session"); replaying the entries as they are' });
    return;
  }
  const version = typeof header.version === "number" ? header.version : 1;
  if (version > CURRENT_SESSION_VERSION) {
    problems.push({
      line: 1,
      message: `line 1: session version ${version} is newer than this pi's ${CURRENT_SESSION_VERSION}; entries it does not know are skipped`
    });
  }
  return version;
}
function migrate(raw, version, problems) {
  if (version === undefined || version >= CURRENT_SESSION_VERSION)
    return;
  try {
    const all = [{ ...raw.header, type: "session" }, ...raw.entries];
    migrateSessionEntries(all);
    problems.push({ line: 1, message: `line 1: session version ${version}, migrated in memory to version ${CURRENT_SESSION_VERSION} (the file is untouched)` });
  } catch (err) {
    problems.push({ line: 1, message: `line 1: migrating version ${version} failed (${String(err)}); replaying the entries as they are` });
  }
}
function activeBranch(raw, problems) {
  const entries = raw.entries.filter((entry) => typeof entry.id === "string");
  if (entries.length === 0)
    return [];
  const byId = new Map;
  for (const entry of entries)
    byId.set(entry.id, entry);
  const path = [];
  const seen = new Set;
  let current = entries[entries.length - 1];
  while (current && !seen.has(current.id)) {
    seen.add(current.id);
    path.push(current);
    let parent = current.parentId;
    const passed = new Set;
    while (typeof parent === "string" && !byId.has(parent) && raw.skipped.has(parent) && !passed.has(parent)) {
      passed.add(parent);
      parent = raw.skipped.get(parent);
    }
    if (parent === null || parent === undefined)
      break;
    const next = byId.get(parent);
    if (!next) {
      const line = raw.lineOf.get(current) ?? 0;
      problems.push({ line, message: `line ${line}: parent entry ${parent} is missing; the branch starts here` });
    }
    current = next;
  }
  return path.reverse();
}
function parseSession(text) {
  const problems = [];
  const raw = parseLines(text, problems);
  const hasMessages = raw.entries.some((entry) => entry.type === "message");
  if (raw.header === undefined && !hasMessages) {
    const first = text.split(`
`).find((line) => line.trim() !== "");
    const reads = first === undefined ? "it is empty" : `its first line reads: ${preview(first)}`;
    const message = `this file is not a pi session (no session header and no message entries; ${reads})`;
    return { id: "", version: undefined, branch: [], problems: [{ line: 1, message }, ...problems], notASession: true };
  }
  const version = checkHeader(raw.header, problems);
  migrate(raw, version, problems);
  const id = typeof raw.header?.id === "string" ? raw.header.id : "";
  return { id, version, branch: activeBranch(raw, problems), problems, notASession: false };
}

// src/report/run-report.ts
function errorText(err) {
  return err instanceof Error ? err.message : String(err);
}
var WHERE_SESSIONS_ARE = "pi's sessions are the .jsonl files under its agent folder's sessions/ (~/.pi/agent/sessions/ unless PI_CODING_AGENT_DIR says otherwise)";
async function runReport(options) {
  const title = basename2(options.path);
  const home = options.home ?? homedir();
  let read;
  try {
    read = readSessionText(options.path);
  } catch (err) {
    return { text: `pruner report: ${unreadableText(err, shownPath(options.path, home))}`, level: "warning" };
  }
  const parsed = parseSession(read.text);
  const problems = [...parsed.problems, ...read.problems];
  if (parsed.notASession) {
    return { text: `pruner report: ${shownPath(options.path, home)}: ${parsed.problems[0].message}; ${WHERE_SESSIONS_ARE}`, level: "warning" };
  }
  let report;
  try {
    report = await replaySession({
      sessionId: parsed.id,
      branch: parsed.branch,
      problems,
      config: options.config,
      overrides: options.overrides,
      priceAs: options.priceAs,
      costModelOf: options.costModelOf,
      ...options.cacheEnv ? { cacheEnv: options.cacheEnv } : {},
      onProgress: options.onProgress,
      yieldEvery: options.yieldEvery
    });
  } catch (err) {
    return { text: `pruner report: the replay of ${options.path} failed: ${errorText(err)}`, level: "warning" };
  }
  const htmlPath = options.htmlPath ?? reportPathFor(options.path);
  let written = options.writeHtml === false ? undefined : htmlPath;
  let htmlProblem = "";
  try {
    if (written)
      await writeReportFile(htmlPath, reportHtml(report, title));
  } catch (err) {
    written = undefined;
    htmlProblem = `
  the HTML report could not be written to ${htmlPath}: ${errorText(err)}`;
  }
  const level = problems.length > 0 || htmlProblem ? "warning" : "info";
  const shown = written === undefined ? undefined : shownPath(written, home);
  return { text: reportText(report, title, shown, options.contextSent) + htmlProblem, level, report, htmlPath: written };
}

// src/commands/command-replay.ts
var REPLAY_WIDGET_ID = "pi-condense-replay";
var PROGRESS_EVERY = 250;
function sessionPathOf(arg, ctx) {
  if (arg === undefined)
    return ctx.sessionManager.getSessionFile();
  if (arg === "~" || arg.startsWith("~/"))
    return join2(homedir2(), arg.slice(1));
  return isAbsolute(arg) ? arg : resolve(ctx.cwd, arg);
}
function catalogModel(ctx, provider, id) {
  if (!provider || !id)
    return;
  try {
    return ctx.modelRegistry.find(provider, id);
  } catch {
    return;
  }
}
function knownModels(ctx) {
  try {
    return ctx.modelRegistry.getAll().map((model) => `${model.provider}/${model.id}`);
  } catch {
    return [];
  }
}
function progress(ctx) {
  if (ctx.mode !== "tui")
    return;
  return (done, total) => {
    try {
      ctx.ui.setWidget(REPLAY_WIDGET_ID, done >= total ? undefined : [`pruner report: replaying ${Math.floor(done / total * 100)}% (${done}/${total} request renders)`]);
    } catch {}
  };
}
var reportCommand = async (deps, ctx, args) => {
  const parsed = parseReportArgs(args, deps.currentConfig.value);
  if (parsed.priceAs && !catalogModel(ctx, parsed.priceAs.provider, parsed.priceAs.id))
    parsed.errors.push(unknownPriceModelText(parsed.priceAs, knownModels(ctx)));
  if (parsed.errors.length > 0) {
    safeNotify2(ctx, `pruner report: ${parsed.errors.join("; ")}`, "warning");
    return;
  }
  const path = sessionPathOf(parsed.path, ctx);
  if (!path) {
    safeNotify2(ctx, "pruner report: this session has no file yet (nothing saved); give a session path: /pruner report <file.jsonl>", "warning");
    return;
  }
  if (parsed.path === undefined && !existsSync(path)) {
    safeNotify2(ctx, "pruner report: nothing is recorded in this session yet (pi writes it with the first prompt); send a prompt first, or give a session file: /pruner report <file.jsonl>", "warning");
    return;
  }
  const onProgress = progress(ctx);
  try {
    const result = await runReport({
      path,
      config: parsed.config,
      overrides: parsed.overrides,
      priceAs: parsed.priceAs,
      yieldEvery: onProgress ? PROGRESS_EVERY : 0,
      ...parsed.path === undefined ? { contextSent: contextSentText(currentReclaim2(deps, ctx), deps.currentConfig.value.enabled) } : {},
      onProgress,
      cacheEnv: processCacheEnv(),
      costModelOf: (provider, id) => {
        const model = catalogModel(ctx, provider, id);
        return { cost: costModelFor(model), contextWindow: model?.contextWindow, api: model?.api, ...model ? { model } : {} };
      }
    });
    showReport(deps.pi, ctx, result.text, result.level);
  } finally {
    onProgress?.(1, 1);
  }
};
export {
  REPLAY_WIDGET_ID,
  reportCommand
};
