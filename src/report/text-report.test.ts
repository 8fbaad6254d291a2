import { describe, expect, test } from "bun:test";
import { cacheRouteOf } from "../economics/cache-route.js";
import { costModelFor } from "../economics/cost-model.js";
import type { ReplayReport, ScenarioSeries } from "./replay.js";
import { bucketMax, cacheLines, chartText, estimateLines, recoveryLines, reportText, REPORT_WIDTH, totalsTable, ttlText } from "./text-report.js";

function series(name: ScenarioSeries["name"], label: string, context: number[]): ScenarioSeries {
  const peak = Math.max(...context);
  return {
    name,
    label,
    context,
    cacheRead: context.map(() => 0),
    cacheWrite: context,
    cumulativeCost: context.map((_, i) => i),
    totals: { requests: context.length, input: 1, cacheRead: 0, cacheWrite: 1, output: 0, summarizerInput: 0, summarizerOutput: 0, summarizerCalls: 0, uncached: 0, prefixBreaks: 0, coldStarts: 1, recordedColdStarts: 0, lookbackMisses: 0, refreshes: 0, refreshDollars: 0, peakContext: peak, dollars: 1.5, recoveries: 0, misses: 0, editLineMisses: 0, recoveryDollars: 0 },
  };
}

function report(requests: number, extra: Partial<ReplayReport> = {}): ReplayReport {
  const ramp = Array.from({ length: requests }, (_, i) => (i + 1) * 100);
  return {
    sessionId: "s",
    requests,
    model: "anthropic/claude-sonnet-4-5",
    cost: costModelFor(undefined),
    cache: { rule: "anthropic-breakpoints", api: "anthropic-messages", route: cacheRouteOf({ api: "anthropic-messages", id: "claude-sonnet-4-5" }), spareBreakpoint: true },
    scenarios: [series("none", "no pruning", ramp), series("actual", "as recorded", ramp.map((v) => v / 2)), series("whatif", "what-if", ramp.map((v) => v / 3))],
    limit: { written: 1_200_000, uncached: 30_000, fixedRead: 250_000, output: 40_000, dollars: 0.6 },
    summaryEstimate: { ratio: 0.1, samples: 0, meanAbsError: undefined, realChars: 0, rawChars: 0 },
    tokens: { samples: 0, charsPerToken: 4, errorAtFour: undefined, errorCalibrated: undefined },
    outputs: [],
    problems: [],
    notes: [],
    recorded: { dollars: undefined, replies: 0, repliesWithCost: 0, refreshes: 0, refreshDollars: 0, otherDollars: 0, notes: [] },
    ...extra,
  };
}

describe("the text report", () => {
  test("every line fits an 80-column terminal with the entry's padding, for a short and a 5,000-request session", () => {
    for (const requests of [3, 5000]) {
      const text = reportText(report(requests), "a-session-file-name.jsonl", "/tmp/a-session-file-name.report.html");
      for (const line of text.split("\n")) expect(line.length).toBeLessThanOrEqual(78);
      expect(REPORT_WIDTH).toBe(78);
    }
  });

  test("with a recorded bill, as recorded is pi's figure plus the summarizer's and its simulation follows on a row of its own", () => {
    const recorded = { dollars: 1.2, replies: 3, repliesWithCost: 3, refreshes: 1, refreshDollars: 0.01, otherDollars: 0, notes: [] };
    const r = report(3, { recorded });
    // The as-recorded series' dollars are 1.5, its main model's last cumulative figure 1.4: the summarizer's 0.1.
    r.scenarios[1] = { ...r.scenarios[1]!, cumulativeCost: [0.1, 0.2, 1.4] };
    const text = reportText(r, "t.jsonl").replace(/\s+/g, " ");
    expect(text).toContain("as recorded: $1.3000, pi's own figure for the 3 replies, 1 cache-warming refresh ($1.2000) plus the summarizer's $0.1000 as pi-condense recorded it; simulated: $1.5000, +15.4% of it");
    const rows = totalsTable(r.scenarios, r.cache, r);
    expect(rows.find((row) => row.trimStart().startsWith("dollars"))).toMatch(/dollars\s+\$1\.5000\s+\$1\.3000\s+\$1\.5000$/);
    expect(rows.find((row) => row.trimStart().startsWith("simulated"))).toMatch(/simulated\s+\$1\.5000$/);
  });

  test("without pi-condense entries the recorded bill is set beside the simulated no-pruning run; without costs, the report says every dollar is simulated", () => {
    const recorded = { dollars: 1.2, replies: 3, repliesWithCost: 3, refreshes: 0, refreshDollars: 0, otherDollars: 0, notes: [] };
    const r = report(3, { recorded });
    r.scenarios.splice(1, 1);
    expect(reportText(r, "t.jsonl").replace(/\s+/g, " ")).toContain("recorded bill: $1.2000, pi's own figure for the 3 replies; the simulation of it (no pruning): $1.5000, +25.0% of it");
    expect(reportText(report(3), "t.jsonl").replace(/\s+/g, " ")).toContain("recorded bill: none (the replies record no cost); every dollar below is the simulation's");
  });

  test("the chart draws each configuration on one scale: the tallest reaches a full block, a third of it does not", () => {
    const lines = chartText(report(60).scenarios);
    const none = lines.slice(1, 4).join("");
    const whatIf = lines.slice(7, 10).join("");
    expect(none).toContain("█");
    expect(lines[7]!.trim()).not.toContain("█");
    expect(whatIf).toContain("▁");
  });

  test("a long session's columns keep each bucket's largest request", () => {
    expect(bucketMax([1, 9, 2, 3, 8, 1], 3)).toEqual([9, 3, 8]);
    expect(bucketMax([1, 2], 4)).toEqual([1, 1, 2, 2]);
  });

  test("the totals table has one column per configuration and a dollars row", () => {
    const table = totalsTable(report(5).scenarios);
    expect(table[0]).toContain("no pruning");
    expect(table[0]).toContain("as recorded");
    expect(table[0]).toContain("what-if");
    expect(table.find((line) => line.trimStart().startsWith("dollars"))).toContain("$1.5000");
  });

  test("an unpriced model, problems and the HTML path are all said", () => {
    const text = reportText(report(5, { problems: [{ line: 4, message: "line 4: corrupt JSON, skipped: {x" }] }), "s.jsonl", "/tmp/s.report.html");
    expect(text.replace(/\s+/g, " ")).toContain("no catalog price (no dollars)");
    expect(text).toContain("problems in the file (1):");
    expect(text).toContain("line 4: corrupt JSON");
    expect(text.split("\n").slice(-2)).toEqual(["  HTML report:", "/tmp/s.report.html"]);
  });

  test("the limit follows the totals table, then each configuration's dollars as a multiple of it", () => {
    const lines = reportText(report(5), "s.jsonl").split("\n");
    const dollarsRow = lines.findIndex((line) => line.trimStart().startsWith("dollars"));
    const limit = lines.slice(dollarsRow + 1).join(" ").replace(/\s+/g, " ");
    expect(lines[dollarsRow + 1]).toStartWith("  limit: $0.6000, the least this session can cost:");
    expect(limit).toContain("each block written to the cache once (1.2M tokens), the replies (40.0k), tools and system read by every request (250.0k)");
    expect(limit).toContain("times the limit: no pruning 2.50x, as recorded 2.50x, what-if 2.50x");
  });

  test("after the limit, each pruned configuration's recoveries are given, named an estimate", () => {
    const base = report(40);
    const whatIf = { ...base.scenarios[2]!, totals: { ...base.scenarios[2]!.totals, recoveries: 3, misses: 5, recoveryDollars: 0.0123 } };
    const text = reportText({ ...base, scenarios: [base.scenarios[0]!, base.scenarios[1]!, whatIf] }, "s.jsonl").replace(/\s+/g, " ");
    expect(text).toContain("estimated recoveries: as recorded 0 (0.0 per 100 requests, about $0.0000), what-if 3 (7.5 per 100 requests, about $0.0123);");
    expect(text.indexOf("estimated recoveries")).toBeGreaterThan(text.indexOf("times the limit"));
    expect(text).not.toContain("no pruning 0 (");
  });

  test("an unpriced model's recoveries are counted without dollars", () => {
    const base = report(10);
    const whatIf = { ...base.scenarios[2]!, totals: { ...base.scenarios[2]!.totals, recoveries: 1, recoveryDollars: undefined } };
    const text = reportText({ ...base, scenarios: [base.scenarios[0]!, whatIf] }, "s.jsonl").replace(/\s+/g, " ");
    expect(text).toContain("estimated recoveries: what-if 1 (10.0 per 100 requests);");
  });

  test("an unpriced model's limit is in tokens, with no ratios", () => {
    const text = reportText(report(5, { limit: { written: 1000, uncached: 0, fixedRead: 10, output: 5, dollars: undefined } }), "s.jsonl").replace(/\s+/g, " ");
    expect(text).toContain("limit: each block written to the cache once (1.0k tokens), the replies (5), tools and system read by every request (10); no dollars without a catalog price");
    expect(text).not.toContain("times the limit");
  });

  test("a branch without requests says there is nothing to replay", () => {
    expect(reportText(report(0, { scenarios: [] }), "s.jsonl")).toContain("no main-model requests on this branch");
  });
});

describe("the report's words (issue 36, points 13 and 14)", () => {
  test("the cache lifetime reads the same in the chat and the HTML page", () => {
    expect(ttlText(300_000)).toBe("5 min");
    expect(ttlText(3_600_000)).toBe("1 h");
    expect(ttlText(1500)).toBe("1500 ms");
  });
});

describe("the report's estimates in plain words (issue 45, point 12)", () => {
  test("the calibrations say what their error figures mean", () => {
    const [summary, tokens] = estimateLines(
      report(5, {
        summaryEstimate: { ratio: 0.12, samples: 5, meanAbsError: 5.61, realChars: 100, rawChars: 800 },
        tokens: { samples: 40, charsPerToken: 3.8, errorAtFour: 0.63, errorCalibrated: 0.13 },
      }),
    );
    expect(summary).toEndWith(
      "; one summary's size differs from that by 561% on average (a single summary comes out that far above or below the share it predicts, so the totals are surer than any one summary)",
    );
    expect(tokens).toEndWith(
      "per-request error 13% (chars/4: 63%): a request's tokens counted this way are that far off pi's recorded count on average (63% at the usual 4 characters a token)",
    );
  });

  test("recoveries are called an estimate once, and the rule line is followed by what the rule means", () => {
    expect(recoveryLines(report(5))[0]).toStartWith("estimated recoveries: ");
    const lines = cacheLines(report(5));
    expect(lines[1]).toStartWith("  (the provider reads from its cache the start of a request up to a point pi marks in it");
    expect(lines[1]).toContain("the spare breakpoint puts it just before the first block pi-condense rewrites");
  });
});
