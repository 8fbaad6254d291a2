/**
 * The report as one self-contained HTML page (no script, no external file):
 * two SVG line charts, context tokens per request and cumulative dollars per
 * request, one line per configuration; the totals table and the limit; the
 * biggest outputs and what each configuration made of them; the estimates,
 * notes and problems. Pure.
 */
import type { CacheReport, ReplayReport, ScenarioSeries } from "./replay.js";
import { cacheLines, dollars, estimateLines, limitLines, percent, recoveryLines, rowsFor, sightLines, tokens, ttlText } from "./text-report.js";
import { billFigures, billLines } from "../bill/bill-figures.js";

const COLORS = ["#c0392b", "#2471a3", "#229954", "#7d3c98"];
const W = 760;
const H = 260;
const PAD = { left: 64, right: 16, top: 16, bottom: 32 };

function esc(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** At most ~2 points per pixel column: a 5,000-request line stays a small file. */
function points(values: number[], max: number): string {
  const n = values.length;
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const step = Math.max(1, Math.ceil(n / (plotW * 2)));
  const out: string[] = [];
  for (let i = 0; i < n; i += step) {
    const x = PAD.left + (n <= 1 ? 0 : (i / (n - 1)) * plotW);
    const y = PAD.top + plotH - (max > 0 ? (values[i]! / max) * plotH : 0);
    out.push(`${x.toFixed(1)},${y.toFixed(1)}`);
  }
  if ((n - 1) % step !== 0 && n > 0) {
    const y = PAD.top + plotH - (max > 0 ? (values[n - 1]! / max) * plotH : 0);
    out.push(`${(PAD.left + plotW).toFixed(1)},${y.toFixed(1)}`);
  }
  return out.join(" ");
}

function axes(max: number, format: (n: number) => string, requests: number): string {
  const plotH = H - PAD.top - PAD.bottom;
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((share) => {
    const y = PAD.top + plotH - share * plotH;
    return `<line x1="${PAD.left}" y1="${y}" x2="${W - PAD.right}" y2="${y}" class="grid"/><text x="${PAD.left - 6}" y="${y + 4}" text-anchor="end">${esc(format(max * share))}</text>`;
  });
  const base = H - PAD.bottom;
  return `${ticks.join("")}<text x="${PAD.left}" y="${base + 20}">1</text><text x="${W - PAD.right}" y="${base + 20}" text-anchor="end">request ${requests}</text>`;
}

function lineChart(id: string, title: string, scenarios: ScenarioSeries[], pick: (s: ScenarioSeries) => number[], format: (n: number) => string): string {
  const max = Math.max(0, ...scenarios.flatMap((s) => [Math.max(0, ...pick(s))]));
  const requests = scenarios[0]?.context.length ?? 0;
  // Earlier lines drawn wider, so a line that coincides with a later one still shows around it.
  const lines = scenarios.map(
    (s, i) =>
      `<polyline class="series" data-series="${esc(s.name)}" fill="none" stroke="${COLORS[i % COLORS.length]}" stroke-width="${2 + 2 * (scenarios.length - 1 - i)}" stroke-linejoin="round" points="${points(pick(s), max)}"/>`,
  );
  const legend = scenarios.map((s, i) => `<span><i style="background:${COLORS[i % COLORS.length]}"></i>${esc(s.label)}</span>`).join("");
  return `<figure id="${id}"><figcaption>${esc(title)}</figcaption><svg viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${esc(title)}">${axes(max, format, requests)}${lines.join("")}</svg><div class="legend">${legend}</div></figure>`;
}

const TOTAL_ROWS: Array<[string, (s: ScenarioSeries) => string]> = [
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
  ["dollars", (s) => dollars(s.totals.dollars)],
];

function totalsTable(report: ReplayReport, cache: CacheReport): string {
  const scenarios = report.scenarios;
  const head = `<tr><th></th>${scenarios.map((s) => `<th>${esc(s.label)}</th>`).join("")}</tr>`;
  const figures = billFigures(report);
  const recorded = figures.asRecordedSource === "recorded";
  // The as-recorded column's dollars are pi's own figure; its simulation follows as a check.
  const cell = (name: string, value: (s: ScenarioSeries) => string, s: ScenarioSeries) => (recorded && s.name === "actual" && name === "dollars" ? dollars(figures.asRecorded) : value(s));
  const rows = rowsFor(TOTAL_ROWS, cache, scenarios.some((s) => s.totals.refreshes > 0)).map(([name, value]) => `<tr><th>${esc(name)}</th>${scenarios.map((s) => `<td>${esc(cell(name, value, s))}</td>`).join("")}</tr>`);
  if (recorded && scenarios.some((s) => s.name === "actual")) rows.push(`<tr><th>simulated</th>${scenarios.map((s) => `<td>${s.name === "actual" ? esc(dollars(s.totals.dollars)) : ""}</td>`).join("")}</tr>`);
  return `<table id="totals">${head}${rows.join("")}</table>`;
}

function outputsTable(report: ReplayReport): string {
  if (report.outputs.length === 0) return "<p>No tool outputs on this branch.</p>";
  const labels = report.outputs[0]!.fates.map((f) => f.label);
  const head = `<tr><th>output</th><th>chars</th>${labels.map((l) => `<th>${esc(l)}</th>`).join("")}</tr>`;
  const rows = report.outputs.map(
    (o) => `<tr><td><code>${esc(o.toolName)}</code> ${esc(o.call)}</td><td>${o.chars}</td>${o.fates.map((f) => `<td>${esc(f.fate)}</td>`).join("")}</tr>`,
  );
  return `<table id="outputs">${head}${rows.join("")}</table>`;
}

function list(items: string[]): string {
  return items.length === 0 ? "<p>None.</p>" : `<ul>${items.map((item) => `<li>${esc(item)}</li>`).join("")}</ul>`;
}

const STYLE = `body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:820px}
table{border-collapse:collapse;margin:8px 0}th,td{border:1px solid #ccc;padding:3px 8px;text-align:right}
th:first-child,td:first-child{text-align:left}svg text{font-size:11px;fill:#555}.grid{stroke:#e5e5e5}
.legend span{margin-right:16px}.legend i{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:-1px}
figure{margin:16px 0}figcaption{font-weight:600}`;

export function reportHtml(report: ReplayReport, title: string): string {
  const charts =
    report.requests === 0
      ? "<p>No main-model requests on this branch: nothing to chart.</p>"
      : lineChart("context-chart", "Context tokens per request", report.scenarios, (s) => s.context, tokens) +
        lineChart("cost-chart", report.cost.priced ? "Cumulative dollars per request (main model; the summarizer is in the totals)" : "Cumulative dollars (model unpriced)", report.scenarios, (s) => s.cumulativeCost, (n) => dollars(n));
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>pruner report: ${esc(title)}</title><style>${STYLE}</style></head>
<body><h1>pruner report</h1><p>${esc(title)}<br>${esc(report.model)}, ${report.requests} requests, cache TTL ${ttlText(report.cost.ttlMs)}</p>
${billLines(report).length === 0 ? "" : `<p id="bill">${billLines(report).map(esc).join("<br>")}</p>`}
<p id="cache-rule">${cacheLines(report).map(esc).join("<br>")}</p>
${charts}
<h2>Totals</h2>${totalsTable(report, report.cache)}
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
