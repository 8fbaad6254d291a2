import { describe, expect, test } from "bun:test";
import { cacheRouteOf } from "../economics/cache-route.js";
import { costModelFor } from "../economics/cost-model.js";
import { reportHtml } from "./html-report.js";
import type { ReplayReport, ScenarioSeries } from "./replay.js";

function series(name: ScenarioSeries["name"], label: string, n: number): ScenarioSeries {
  const context = Array.from({ length: n }, (_, i) => i * 10);
  return {
    name,
    label,
    context,
    cacheRead: context,
    cacheWrite: context.map(() => 0),
    cumulativeCost: context.map((v) => v / 1000),
    totals: { requests: n, input: 1, cacheRead: 1, cacheWrite: 0, output: 0, summarizerInput: 0, summarizerOutput: 0, summarizerCalls: 0, uncached: 0, prefixBreaks: 0, coldStarts: 1, recordedColdStarts: 0, lookbackMisses: 0, refreshes: 0, refreshDollars: 0, peakContext: n * 10, dollars: undefined, recoveries: 0, misses: 0, editLineMisses: 0, recoveryDollars: undefined },
  };
}

function report(n: number, extra: Partial<ReplayReport> = {}): ReplayReport {
  return {
    sessionId: "s",
    requests: n,
    model: "anthropic/claude-sonnet-4-5",
    cost: costModelFor(undefined),
    cache: { rule: "anthropic-breakpoints", api: "anthropic-messages", route: cacheRouteOf({ api: "anthropic-messages", id: "claude-sonnet-4-5" }), spareBreakpoint: true },
    scenarios: [series("none", "no pruning", n), series("whatif", "what-if", n)],
    limit: { written: 90_000, uncached: 0, fixedRead: 12_000, output: 3_000, dollars: undefined },
    summaryEstimate: { ratio: 0.1, samples: 0, meanAbsError: undefined, realChars: 0, rawChars: 0 },
    tokens: { samples: 0, charsPerToken: 4, errorAtFour: undefined, errorCalibrated: undefined },
    outputs: [{ toolName: "bash", toolCallId: "c1", call: "cat <secret>", chars: 10, fates: [{ label: "no pruning", fate: "kept whole" }, { label: "what-if", fate: "stub, ref t1 (90 chars)" }] }],
    problems: [{ line: 3, message: 'line 3: corrupt JSON, skipped: {"a":<b>' }],
    notes: [],
    recorded: { dollars: undefined, replies: 0, repliesWithCost: 0, refreshes: 0, refreshDollars: 0, otherDollars: 0, notes: [] },
    ...extra,
  };
}

function priced(s: ScenarioSeries, dollars: number): ScenarioSeries {
  return { ...s, totals: { ...s.totals, dollars } };
}

describe("reportHtml", () => {
  test("one page with both charts, a line per configuration, and the totals and outputs tables", () => {
    const html = reportHtml(report(10), "s.jsonl");
    expect(html).toStartWith("<!doctype html>");
    expect(html).toContain('<figure id="context-chart">');
    expect(html).toContain('<figure id="cost-chart">');
    expect(html.match(/<polyline class="series"/g)).toHaveLength(4);
    expect(html).toContain('<table id="totals">');
    expect(html).toContain('<table id="outputs">');
    expect(html).not.toMatch(/<script|<link|src="http/);
  });

  test("text from the session is escaped", () => {
    const html = reportHtml(report(3), "<img onerror=x>.jsonl");
    expect(html).not.toContain("<img onerror");
    expect(html).toContain("cat &lt;secret&gt;");
    expect(html).toContain("{&quot;a&quot;:&lt;b&gt;");
  });

  test("a 5,000-request line is thinned to about two points per pixel column", () => {
    const html = reportHtml(report(5000), "s.jsonl");
    const points = /<polyline[^>]*points="([^"]*)"/.exec(html)![1]!.split(" ");
    expect(points.length).toBeLessThanOrEqual(2 * 760 + 2);
    expect(points.length).toBeGreaterThan(500);
  });

  test("the limit follows the totals, with each configuration's dollars as a multiple of it", () => {
    const base = report(10);
    const html = reportHtml(
      report(10, {
        cost: { ...costModelFor(undefined), priced: true },
        scenarios: [priced(base.scenarios[0]!, 3), priced(base.scenarios[1]!, 1.5)],
        limit: { ...base.limit, dollars: 0.5 },
      }),
      "s.jsonl",
    );
    const limit = /<p id="limit">(.*?)<\/p>/.exec(html)?.[1];
    expect(html.indexOf('<p id="limit">')).toBeGreaterThan(html.indexOf('<table id="totals">'));
    expect(limit).toContain("limit: $0.5000, the least this session can cost: each block written to the cache once (90.0k tokens)");
    expect(limit).toContain("times the limit: no pruning 6.00x, what-if 3.00x");
  });

  test("the what-if's estimated recoveries follow the limit", () => {
    const base = report(10);
    const whatIf = { ...base.scenarios[1]!, totals: { ...base.scenarios[1]!.totals, recoveries: 2 } };
    const html = reportHtml(report(10, { scenarios: [base.scenarios[0]!, whatIf] }), "s.jsonl");
    const line = /<p id="recoveries">(.*?)<\/p>/.exec(html)?.[1];
    expect(html.indexOf('<p id="recoveries">')).toBeGreaterThan(html.indexOf('<p id="limit">'));
    expect(line).toStartWith("estimated recoveries: what-if 2 (20.0 per 100 requests)");
  });

  test("an unpriced model's limit is given in tokens", () => {
    expect(reportHtml(report(3), "s.jsonl")).toContain("no dollars without a catalog price");
  });

  test("an unpriced model's dollar chart says so", () => {
    expect(reportHtml(report(3), "s.jsonl")).toContain("Cumulative dollars (model unpriced)");
  });
});

describe("the HTML page's words (issue 36, point 14)", () => {
  test("names the cache lifetime in minutes, as the chat does", () => {
    const html = reportHtml(report(3), "s.jsonl");
    expect(html).toContain("cache TTL 5 min");
    expect(html).not.toContain("300 s");
  });

  test("a summary estimate calibrated on real summaries says how far one may differ, in plain words (point 13)", () => {
    const html = reportHtml(report(3, { summaryEstimate: { ratio: 0.3, samples: 4, meanAbsError: 1.92, realChars: 10, rawChars: 30 } }), "s.jsonl");
    expect(html).toContain("one summary's size differs from that by 192% on average");
    expect(html).not.toContain("predicted from the others");
  });
});
