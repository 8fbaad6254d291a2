import { describe, expect, test } from "bun:test";
import { DEFAULT_CONFIG } from "../settings/config-shape.js";
import { parseReportArgs, reportWords } from "./report-args.js";

describe("parseReportArgs", () => {
  test("no arguments: this session, the current settings turned on, nothing overridden", () => {
    const args = parseReportArgs([], DEFAULT_CONFIG);
    expect(args).toMatchObject({ path: undefined, overrides: [], errors: [] });
    expect(args.config.enabled).toBe(true);
  });

  test("a path and named overrides of the right type", () => {
    const args = parseReportArgs(["s.jsonl", "autoBudgetThreshold=0.2", "minBatchChars=500", "pruneOn=on-demand"], DEFAULT_CONFIG);
    expect(args.path).toBe("s.jsonl");
    expect(args.config.autoBudgetThreshold).toBe(0.2);
    expect(args.config.minBatchChars).toBe(500);
    expect(args.config.pruneOn).toBe("on-demand");
    expect(args.overrides).toEqual(["autoBudgetThreshold=0.2", "minBatchChars=500", "pruneOn=on-demand"]);
  });

  test("--policy cost runs the what-if with the cost policy, classic and 2.9.1 with 2.9.1's timing", () => {
    expect(parseReportArgs(["--policy", "cost"], { ...DEFAULT_CONFIG, flushPolicy: "classic" }).config.flushPolicy).toBe("cost");
    expect(parseReportArgs(["--policy", "2.9.1"], DEFAULT_CONFIG).config.flushPolicy).toBe("classic");
    expect(parseReportArgs(["--policy", "cost"], DEFAULT_CONFIG).overrides).toEqual(["the cost policy"]);
  });

  test("--policy 2.9.1 and classic name the timing the what-if uses", () => {
    expect(parseReportArgs(["--policy", "2.9.1"], DEFAULT_CONFIG).overrides).toEqual(["the classic policy"]);
    expect(parseReportArgs(["--policy", "classic"], DEFAULT_CONFIG).errors).toEqual([]);
  });

  test("an unknown policy, an unknown key and a wrong-typed value are errors", () => {
    const args = parseReportArgs(["--policy", "magic", "nope=1", "minBatchChars=lots"], DEFAULT_CONFIG);
    expect(args.errors).toHaveLength(3);
    expect(args.errors[1]).toBe("nope: not a contextPrune setting");
    expect(args.errors[2]).toBe("minBatchChars=lots: not a value this setting takes; it takes a whole number from 0 to 1000000000");
  });

  test("a refused value names the values the setting takes, as the settings file's warning does (issue 45, point 10)", () => {
    const args = parseReportArgs(["flushPolicy=fast", "summaries=sometimes", "cacheBreakpoint=1", "contextPressure=2", "recoveryGraceTurns=2.5"], DEFAULT_CONFIG);
    expect(args.errors).toEqual([
      'flushPolicy=fast: not a value this setting takes; it takes one of "cost", "classic"',
      'summaries=sometimes: not a value this setting takes; it takes one of "auto", "always", "never"',
      "cacheBreakpoint=1: not a value this setting takes; it takes true or false",
      "contextPressure=2: not a value this setting takes; it takes a number above 0 and at most 1 (a share: 0.6 is 60%), or null",
      "recoveryGraceTurns=2.5: not a value this setting takes; it takes a whole number from 0 to 1000000000",
    ]);
    expect(args.config.flushPolicy).toBe(DEFAULT_CONFIG.flushPolicy);
  });

  test("--model names the catalog model to price at", () => {
    expect(parseReportArgs(["--model", "anthropic/claude-sonnet-4-5"], DEFAULT_CONFIG).priceAs).toEqual({ provider: "anthropic", id: "claude-sonnet-4-5" });
    expect(parseReportArgs(["--model", "sonnet"], DEFAULT_CONFIG).errors).toEqual(["--model sonnet: give a catalog model as provider/id"]);
  });

  test("a value may hold a slash (a model id)", () => {
    const args = parseReportArgs(["summarizerModel=anthropic/claude-haiku-4-5"], DEFAULT_CONFIG);
    expect(args.errors).toEqual([]);
    expect(args.config.summarizerModel).toBe("anthropic/claude-haiku-4-5");
  });

  test("a second path is an error, and a path with = and / stays a path", () => {
    expect(parseReportArgs(["a.jsonl", "b.jsonl"], DEFAULT_CONFIG).errors).toEqual([
      'b.jsonl: only one session path is read (a path with spaces goes in quotes, "~/my sessions/s.jsonl", or with each space escaped, ~/my\\ sessions/s.jsonl)',
    ]);
    expect(parseReportArgs(["/tmp/x=y/s.jsonl"], DEFAULT_CONFIG).path).toBe("/tmp/x=y/s.jsonl");
  });
});

describe("reportWords", () => {
  test("splits on spaces as a shell would, keeping quoted and escaped spaces", () => {
    expect(reportWords(` "~/my sessions/s.jsonl"  --policy classic`)).toEqual(["~/my sessions/s.jsonl", "--policy", "classic"]);
    expect(reportWords(`'/tmp/a b/s.jsonl' summaries=always`)).toEqual(["/tmp/a b/s.jsonl", "summaries=always"]);
    expect(reportWords(String.raw`~/my\ sessions/s.jsonl`)).toEqual(["~/my sessions/s.jsonl"]);
    expect(reportWords(`~/"my sessions"/s.jsonl`)).toEqual(["~/my sessions/s.jsonl"]);
  });

  test("in double quotes an escaped quote stays in the word", () => {
    expect(reportWords(String.raw`"a \"b\" c.jsonl"`)).toEqual(['a "b" c.jsonl']);
  });

  test("a quote that is never closed and a backslash before anything else are kept as typed", () => {
    expect(reportWords("~/bob's.jsonl")).toEqual(["~/bob's.jsonl"]);
    expect(reportWords(String.raw`C:\Users\me\s.jsonl`)).toEqual([String.raw`C:\Users\me\s.jsonl`]);
    expect(reportWords(String.raw`\\server\share\s.jsonl`)).toEqual([String.raw`\\server\share\s.jsonl`]);
  });
});
