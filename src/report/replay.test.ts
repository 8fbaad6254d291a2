import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { getBuiltinModel } from "@earendil-works/pi-ai/providers/all";
import { costModelFor } from "../economics/cost-model.js";
import { DEFAULT_CONFIG, type ContextPruneConfig } from "../settings/config-shape.js";
import { replaySession, type ReplayReport } from "./replay.js";
import { parseSession } from "./session-parse.js";
import { reportHtml } from "./html-report.js";
import { reportText } from "./text-report.js";

const FIXTURES = join(import.meta.dir, "../../test/fixtures");
const SWE = join(FIXTURES, "swe-agent");
const SWE_FILES = readdirSync(SWE).filter((f) => f.endsWith(".jsonl")).sort();

function catalog(provider: string | undefined, id: string | undefined) {
  const model = provider && id ? (getBuiltinModel as any)(provider, id) : undefined;
  return { cost: costModelFor(model), contextWindow: model?.contextWindow };
}

async function replay(file: string, config: Partial<ContextPruneConfig> = {}, overrides: string[] = []): Promise<ReplayReport> {
  const parsed = parseSession(readFileSync(file, "utf8"));
  return replaySession({
    sessionId: parsed.id,
    branch: parsed.branch,
    problems: parsed.problems,
    config: { ...DEFAULT_CONFIG, enabled: true, ...config },
    overrides,
    costModelOf: catalog,
  });
}

const scenario = (report: ReplayReport, name: string) => report.scenarios.find((s) => s.name === name)!;

describe("replaySession on the converted SWE-agent trajectories", () => {
  test("there are six of them", () => {
    expect(SWE_FILES).toHaveLength(6);
  });

  for (const file of SWE_FILES) {
    test(`${file}: every request is replayed and priced at the catalog's claude-sonnet-4-5`, async () => {
      const report = await replay(join(SWE, file));
      expect(report.problems).toEqual([]);
      expect(report.requests).toBeGreaterThan(0);
      expect(report.model).toBe("anthropic/claude-sonnet-4-5");
      const none = scenario(report, "none");
      expect(none.context).toHaveLength(report.requests);
      expect(none.totals.dollars).toBeGreaterThan(0);
      expect(none.totals.cacheRead + none.totals.cacheWrite).toBeCloseTo(none.totals.input, 6);
      expect(none.cumulativeCost[report.requests - 1]).toBeLessThanOrEqual(none.totals.dollars!);
    });
  }

  test("without a final text reply the default what-if summarizes nothing and says why", async () => {
    const report = await replay(join(SWE, SWE_FILES[0]!));
    expect(scenario(report, "whatif").totals.summarizerCalls).toBe(0);
    expect(report.notes.join("\n")).toContain("what-if summarized nothing");
  });

  test("with summaries only on demand the what-if equals no pruning, and the notes of the text and the HTML say why", async () => {
    const report = await replay(join(SWE, SWE_FILES[0]!), { pruneOn: "on-demand" });
    expect(scenario(report, "whatif").totals.summarizerCalls).toBe(0);
    const note =
      "what-if: your settings summarize only when you run /pruner now, which a replay cannot do, so the what-if equals no pruning; " +
      "add pruneOn=agent-message to see what summarizing after each final reply saves";
    expect(report.notes).toContain(note);
    expect(reportText(report, "t").replace(/\s+/g, " ")).toContain(note);
    expect(reportHtml(report, "t")).toContain("what-if: your settings summarize only when you run /pruner now, which a replay cannot do");
  });

  test("a budget gate in the what-if summarizes, lowers the peak context and costs summarizer tokens", async () => {
    const file = join(SWE, "web--i_got_id_demo.jsonl");
    const report = await replay(file, { autoBudgetThreshold: 0.02, minBatchChars: 500 }, ["autoBudgetThreshold=0.02"]);
    const none = scenario(report, "none");
    const whatIf = scenario(report, "whatif");
    expect(whatIf.totals.summarizerCalls).toBeGreaterThan(0);
    expect(whatIf.totals.summarizerInput).toBeGreaterThan(0);
    expect(whatIf.totals.peakContext).toBeLessThan(none.totals.peakContext);
    expect(whatIf.totals.prefixBreaks).toBeGreaterThan(0);
    expect(report.notes.join("\n")).toContain("autoBudgetThreshold=0.02");
  });

  test("the biggest outputs are listed largest first with each configuration's fate", async () => {
    const report = await replay(join(SWE, "web--i_got_id_demo.jsonl"), { autoBudgetThreshold: 0.02 });
    expect(report.outputs.length).toBeGreaterThan(0);
    const sizes = report.outputs.map((o) => o.chars);
    expect(sizes).toEqual([...sizes].sort((a, b) => b - a));
    expect(report.outputs[0]!.fates.map((f) => f.label)).toEqual(["no pruning", "what-if"]);
    expect(report.outputs[0]!.fates[0]!.fate).toBe("kept whole");
    expect(report.outputs[0]!.fates[1]!.fate).toStartWith("stub, ref t");
  });
});

function unknownModel(parsed: ReturnType<typeof parseSession>) {
  return {
    sessionId: parsed.id,
    problems: [],
    config: { ...DEFAULT_CONFIG, enabled: true },
    overrides: [],
    costModelOf: () => ({ cost: costModelFor(undefined), contextWindow: undefined }),
  };
}

describe("replaySession on a session pi-condense pruned", () => {
  const file = join(FIXTURES, "multi-version-session.jsonl");

  // The fixture's outputs are a few lines each: its summaries weigh more than the stubs save, so the sizes differ both ways.
  test("the recorded run is replayed from the session's own entries: its requests carry their summaries and stubs", async () => {
    const report = await replay(file);
    expect(report.scenarios.map((s) => s.name)).toEqual(["none", "actual", "whatif"]);
    const none = scenario(report, "none");
    const actual = scenario(report, "actual");
    expect(actual.context.filter((tokens, i) => tokens !== none.context[i]).length).toBeGreaterThan(5);
    expect(actual.context.some((tokens, i) => tokens < none.context[i]!)).toBe(true);
    expect(actual.totals.summarizerCalls).toBeGreaterThan(0);
  });

  test("the summary estimate is calibrated on the session's real summaries", async () => {
    const report = await replay(file);
    expect(report.summaryEstimate.samples).toBeGreaterThan(0);
    expect(report.summaryEstimate.ratio).toBeCloseTo(Math.min(1, report.summaryEstimate.realChars / report.summaryEstimate.rawChars), 9);
  });

  test("chars per token are calibrated against the recorded usage, and both errors are reported", async () => {
    const report = await replay(file);
    expect(report.tokens.samples).toBeGreaterThan(0);
    expect(report.tokens.errorAtFour).toBeDefined();
    expect(report.tokens.errorCalibrated).toBeDefined();
  });

  test("a model the catalog does not know is priced at the rates its recorded usage shows, and says so", async () => {
    const parsed = parseSession(readFileSync(file, "utf8"));
    const report = await replaySession({ ...unknownModel(parsed), branch: parsed.branch });
    expect(report.cost.priced).toBe(true);
    expect(report.notes[0]).toContain("is not in pi's model catalog: priced at the rates its recorded usage shows (per million tokens: input $");
    expect(report.scenarios.every((s) => s.totals.dollars! > 0)).toBe(true);
  });

  test("a model the catalog does not know, whose usage records no cost, is replayed unpriced: tokens but no dollars", async () => {
    const parsed = parseSession(readFileSync(file, "utf8"));
    const branch = parsed.branch.map((entry) => {
      const message = (entry as { message?: { role?: string; usage?: { cost?: unknown } } }).message;
      if (message?.role !== "assistant" || !message.usage) return entry;
      const { cost: _cost, ...usage } = message.usage;
      return { ...entry, message: { ...message, usage } } as typeof entry;
    });
    const report = await replaySession({ ...unknownModel(parsed), branch });
    expect(report.cost.priced).toBe(false);
    expect(report.recorded.dollars).toBeUndefined();
    expect(report.scenarios.every((s) => s.totals.dollars === undefined && s.totals.input > 0)).toBe(true);
  });
});

describe("pricing", () => {
  test("--model prices a session at another catalog model and says so", async () => {
    const parsed = parseSession(readFileSync(join(SWE, "web--i_got_id_demo.jsonl"), "utf8"));
    const options = { sessionId: parsed.id, branch: parsed.branch, problems: [], config: { ...DEFAULT_CONFIG, enabled: true }, overrides: [], costModelOf: catalog };
    const own = await replaySession(options);
    const haiku = await replaySession({ ...options, priceAs: { provider: "anthropic", id: "claude-haiku-4-5" } });
    expect(haiku.notes[0]).toBe("priced as anthropic/claude-haiku-4-5 (--model), not as anthropic/claude-sonnet-4-5");
    expect(scenario(haiku, "none").totals.dollars!).toBeLessThan(scenario(own, "none").totals.dollars!);
  });
});

describe("progress", () => {
  test("onProgress is called between chunks and ends at the total", async () => {
    const parsed = parseSession(readFileSync(join(SWE, "web--i_got_id_demo.jsonl"), "utf8"));
    const seen: Array<[number, number]> = [];
    await replaySession({
      sessionId: parsed.id,
      branch: parsed.branch,
      problems: [],
      config: { ...DEFAULT_CONFIG, enabled: true },
      overrides: [],
      costModelOf: catalog,
      yieldEvery: 10,
      onProgress: (done, total) => seen.push([done, total]),
    });
    expect(seen.length).toBeGreaterThan(1);
    expect(seen[seen.length - 1]![0]).toBe(seen[seen.length - 1]![1]);
  });
});
