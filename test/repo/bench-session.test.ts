import { describe, expect, test } from "bun:test";
import { runFigures, type RunFigures } from "../../bench/session-figures.js";
import { formatShapeTable, sessionTargets, variantsFor, type RecoveryTally, type ShapeResult, type VariantId, type Wire } from "../../bench/session-report.js";
import { buildShape, SHAPE_IDS, type ShapeId } from "../../bench/session-shapes.js";
import type { RecordedRequest } from "../../test/e2e/fake-llm.js";
import { cacheBlocks, openAiCacheBlocks } from "../../test/e2e/cache-sim.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

function figures(costUsd: number, prefixCostUsd: number | undefined = costUsd): RunFigures {
  return { mainRequests: 4, inputTokens: 0, cacheReadTokens: 1000, cacheWriteTokens: 200, outputTokens: 80, summarizerRequests: 1, summarizerInputTokens: 300, summarizerOutputTokens: 20, prefixBreaks: 0, coldRequests: 0, warmRequests: 0, costUsd, prefixCostUsd, limitUsd: 0.5, forgetting: { requests: 4, recoveries: 0, recoveryUsd: 0 } };
}

/** A shape's run on one wire where the cost policy costs `policy` against classic 1.0 and no extension 2.0 (its prefix-only figure: `prefix`). */
function shape(id: ShapeId, policy: number, wire: Wire = "anthropic-messages", prefix = policy): ShapeResult {
  const all: Record<VariantId, RunFigures> = {
    none: figures(2),
    compaction: figures(1.8),
    classic: figures(1),
    cost: { ...figures(policy, prefix), summarizerInputTokens: 60, summarizerOutputTokens: 4 },
    "cost-nobp": figures(policy * 1.5),
    "cost-always": figures(1.1),
    "cost-noargs": figures(policy / 0.7),
  };
  const run = variantsFor(wire, id);
  return { id, wire, title: `shape ${id}`, figures: Object.fromEntries(run.map((v) => [v, wire === "openai-completions" ? { ...all[v], prefixCostUsd: undefined } : all[v]])) };
}

/** Shape e's no-extension run at 4.0: its cost policy then sits at 0.2x of it, under issue 34's before (0.2719x). */
const withCheapE = (r: ShapeResult): ShapeResult => (r.id === "e" && r.wire === "anthropic-messages" ? { ...r, figures: { ...r.figures, none: figures(4) } } : r);
const allMet = (): ShapeResult[] => [
  ...(["a", "b", "c", "d", "e", "f"] as ShapeId[]).map((id) => withCheapE(shape(id, id === "f" ? 0.9 : 0.8))),
  ...(["a", "b", "f"] as ShapeId[]).map((id) => shape(id, 0.9, "openai-completions")),
];
const clean: RecoveryTally = { checked: 10, failures: [] };
const failed = (results: ShapeResult[], recovery = clean) => sessionTargets(results, recovery).filter((t) => !t.met).map((t) => t.name);
const replace = (results: ShapeResult[], r: ShapeResult) => results.map((x) => (x.id === r.id && x.wire === r.wire ? r : x));

describe("the session bench's runs", () => {
  test("the Anthropic wire runs every shape, the breakpoint-off variant only for shapes b and f", () => {
    expect(variantsFor("anthropic-messages", "a")).toEqual(["none", "compaction", "classic", "cost", "cost-always"]);
    expect(variantsFor("anthropic-messages", "c")).toEqual(["none", "compaction", "classic", "cost"]);
    expect(variantsFor("anthropic-messages", "b")).toContain("cost-nobp");
    expect(variantsFor("anthropic-messages", "f")).toContain("cost-nobp");
  });

  test("the OpenAI wire runs shapes a, b and f and issue 33's shapes g to j without pi compaction", () => {
    expect(SHAPE_IDS.filter((s) => variantsFor("openai-completions", s).length > 0)).toEqual(["a", "b", "f", "g", "h", "i", "j", "k", "l", "m"]);
    expect(variantsFor("openai-completions", "f")).toEqual(["none", "classic", "cost"]);
  });

  test("shape k runs the cost policy with and without argument stubs on both wires", () => {
    for (const wire of ["anthropic-messages", "openai-completions"] as Wire[]) expect(variantsFor(wire, "k")).toEqual(["none", "classic", "cost", "cost-noargs"]);
  });

  test("issue 44's shapes run no extension, classic and the cost policy on both wires, on their own price lists", () => {
    for (const id of ["l", "m"] as ShapeId[]) {
      for (const wire of ["anthropic-messages", "openai-completions"] as Wire[]) expect(variantsFor(wire, id)).toEqual(["none", "classic", "cost"]);
    }
    const root = resolve(import.meta.dir, "..", "..");
    const l = buildShape("l", { repoRoot: root, workDir: "/nowhere", idleMs: 0, quick: false });
    const m = buildShape("m", { repoRoot: root, workDir: "/nowhere", idleMs: 0, quick: false });
    expect(l.price?.["anthropic-messages"]?.id).toBe("claude-haiku-5-5");
    expect(m.ttlSeconds).toBeGreaterThan(10);
    expect(m.prompts.filter((p) => p.pauseBeforeMs > m.ttlSeconds! * 1000)).toHaveLength(2);
  });

  test("issue 33's shapes run no extension, classic and the cost policy on both wires", () => {
    for (const id of ["g", "h", "i", "j"] as ShapeId[]) {
      expect(variantsFor("anthropic-messages", id)).toEqual(["none", "classic", "cost"]);
      expect(variantsFor("openai-completions", id)).toEqual(["none", "classic", "cost"]);
    }
  });
});

describe("the session bench's targets", () => {
  test("shape k's target holds when argument stubs cut the cost policy's dollars by a fifth or more", () => {
    const k = shape("k", 0.8);
    expect(failed([k])).toEqual([]);
    const dearer = { ...k, figures: { ...k.figures, "cost-noargs": figures(0.9) } };
    expect(failed([dearer])).toEqual(["k (Anthropic wire): cost policy $0.8000 <= 0.80x itself without argument stubs $0.9000 (0.889x)"]);
  });

  test("with every figure inside its bound all thirty-seven targets hold", () => {
    const targets = sessionTargets(allMet(), clean);
    expect(targets).toHaveLength(37);
    expect(targets.every((t) => t.met)).toBe(true);
  });

  test("shape b's cost policy may cost at most 1.10x its prefix-only figure under the breakpoint rule", () => {
    expect(failed(replace(allMet(), shape("b", 0.8, "anthropic-messages", 0.72)))).toEqual(["b (Anthropic wire): cost policy with the breakpoint $0.8000 <= 1.10x its prefix-only $0.7200 (1.111x)"]);
    expect(failed(replace(allMet(), shape("b", 0.8, "anthropic-messages", 0.73)))).toEqual([]);
  });

  test("a cost policy dearer than classic fails on either wire", () => {
    expect(failed(replace(allMet(), shape("c", 1.2)))).toEqual(["c (Anthropic wire): cost policy $1.2000 <= pi-condense classic (2.9.1) $1.0000"]);
    expect(failed(replace(allMet(), shape("a", 1.1, "openai-completions")))).toEqual(["a (OpenAI wire): cost policy $1.1000 <= pi-condense classic (2.9.1) $1.0000"]);
  });

  test("a cost policy dearer than no extension fails that target too", () => {
    expect(failed(replace(allMet(), shape("d", 2.5)))).toContain("d (Anthropic wire): cost policy $2.5000 <= no extension $2.0000");
  });

  test("shape f's cost policy must cost at most half of no extension", () => {
    const results = replace(allMet(), shape("f", 1.01));
    results.find((r) => r.id === "f" && r.wire === "anthropic-messages")!.figures.classic = figures(1.2);
    expect(failed(results)).toEqual(["f (Anthropic wire): cost policy <= 0.5x no extension (0.505x)"]);
  });

  test("summaries auto must spend at most 30% of always's summarizer tokens on shapes a and e", () => {
    const results = allMet();
    const e = results.find((r) => r.id === "e" && r.wire === "anthropic-messages")!;
    e.figures.cost = { ...e.figures.cost!, summarizerInputTokens: 100 };
    expect(failed(results)).toEqual(["e (Anthropic wire): summarizer tokens with summaries auto 104 <= 30% of always 320 (32.5%)"]);
  });

  test("shape a's cost policy must cost at most 0.85x classic", () => {
    expect(failed(replace(allMet(), shape("a", 0.86)))).toEqual(["a (Anthropic wire): cost policy $0.8600 <= 0.85x classic $1.0000 (0.860x)"]);
  });

  test("shape e's cost policy with its recoveries priced must cost at most classic and no extension with theirs", () => {
    const results = allMet();
    const e = results.find((r) => r.id === "e" && r.wire === "anthropic-messages")!;
    e.figures.cost = { ...e.figures.cost!, forgetting: { requests: 4, recoveries: 0, recoveryUsd: 0.5 } };
    expect(failed(results)).toEqual([
      "e (Anthropic wire): cost policy $1.3000 with recoveries <= pi-condense classic (2.9.1) $1.0000",
      "e (Anthropic wire): cost policy 0.0 recoveries per 100 requests <= half of before issue 34 (0.0), $ with them 0.3250x no extension <= before (0.2719x)",
    ]);
  });

  test("shape e's cost policy must recover at most half as often as before issue 34, at no more dollars", () => {
    const results = allMet();
    const e = results.find((r) => r.id === "e" && r.wire === "anthropic-messages")!;
    e.figures.cost = { ...e.figures.cost!, forgetting: { requests: 4, recoveries: 1, recoveryUsd: 0 } };
    expect(failed(results)).toEqual(["e (Anthropic wire): cost policy 25.0 recoveries per 100 requests <= half of before issue 34 (0.0), $ with them 0.2000x no extension <= before (0.2719x)"]);
  });

  test("a variant under the limit of its shape and wire fails that target: the limit is wrong", () => {
    const results = allMet();
    const d = results.find((r) => r.id === "d" && r.wire === "anthropic-messages")!;
    d.figures.none = { ...d.figures.none!, limitUsd: 0.9 };
    expect(failed(results)).toEqual(["d (Anthropic wire): every variant at or above the limit $0.9000 (lowest: pi-condense cost policy, 0.89x)"]);
  });

  test("shape l's cost policy must cost at most half of no extension across the price tier", () => {
    expect(failed([shape("l", 0.8)])).toEqual([]);
    const half = { ...shape("l", 0.9), figures: { ...shape("l", 0.9).figures, none: figures(1.5) } };
    expect(failed([half])).toEqual(["l (Anthropic wire): cost policy <= 0.5x no extension across the price tier (0.600x)"]);
  });

  test("shape m's cost policy may stop pi's warming only in pauses a rewrite followed", () => {
    const m = shape("m", 0.8);
    const warming = (stopped: number, stoppedThenRewritten: number) => ({ ...m, figures: { ...m.figures, cost: { ...m.figures.cost!, warming: { refreshes: 3, stopped, stoppedThenRewritten } } } });
    expect(failed([warming(2, 2)])).toEqual([]);
    expect(failed([warming(2, 1)])).toEqual(["m (Anthropic wire): warming refreshes stopped only when a rewrite followed (2 stopped, 1 followed by a rewrite)"]);
    expect(formatShapeTable(warming(2, 2)).at(-1)).toContain("pi-condense cost policy 3 refreshes, stopped in 2 pauses (2 followed by a rewrite)");
  });

  test("shape j's cost policy must cost at most 0.95x classic on each wire, besides at most classic and no extension", () => {
    const j = [shape("j", 0.96), shape("j", 0.9, "openai-completions")];
    expect(failed(j)).toEqual(["j (Anthropic wire): cost policy $0.9600 <= 0.95x classic $1.0000 (0.960x)"]);
    // Per wire: at most classic, at most no extension, 0.95x classic, the limit; and the recoverability check.
    expect(sessionTargets(j, clean)).toHaveLength(9);
  });

  test("one lost original fails the recoverability target", () => {
    expect(failed(allMet(), { checked: 10, failures: ["a/cost: x: no archive record"] })).toEqual(["every stubbed original recoverable verbatim (10 checked, 1 lost)"]);
  });

  test("targets cover only the shapes that ran", () => {
    const only = sessionTargets([shape("c", 0.8)], clean);
    expect(only.map((t) => t.name)).toEqual([
      "c (Anthropic wire): cost policy $0.8000 <= pi-condense classic (2.9.1) $1.0000",
      "c (Anthropic wire): cost policy $0.8000 <= no extension $2.0000",
      "c (Anthropic wire): every variant at or above the limit $0.5000 (lowest: pi-condense cost policy, 1.60x)",
      "every stubbed original recoverable verbatim (10 checked, 0 lost)",
    ]);
  });
});

describe("the session bench's tables", () => {
  test("each row gives recoveries per 100 requests and the dollars with them, a line says what they are", () => {
    const result = shape("c", 0.8);
    result.figures.cost = { ...result.figures.cost!, forgetting: { requests: 4, recoveries: 1, recoveryUsd: 0.05 } };
    const lines = formatShapeTable(result);
    expect(lines[1]).toContain("recov/100");
    expect(lines[1]).toContain("$ w/ recov");
    expect(lines.find((l) => l.includes("pi-condense cost policy"))!.trimEnd().endsWith("25.0        0.8500")).toBe(true);
    expect(lines.some((l) => l.startsWith("  recov/100: replies per 100 requests that used what the request no longer showed"))).toBe(true);
  });

  test("an Anthropic table labels both dollar columns, has a row per variant run and says what the breakpoint saves", () => {
    const lines = formatShapeTable(shape("b", 0.8, "anthropic-messages", 0.7));
    expect(lines[0]).toBe("shape b, Anthropic wire (headline dollars by the breakpoint rule): shape b");
    expect(lines[1]).toContain("$ bp rule");
    expect(lines[1]).toContain("$ prefix only");
    expect(lines).toHaveLength(10);
    expect(lines[5]).toContain("pi-condense cost policy");
    expect(lines[5]!.trimEnd().endsWith("0.8000        0.7000         1.60x           0.0        0.8000")).toBe(true);
    expect(lines[6]).toContain("cost policy, breakpoint off");
    expect(lines[9]).toBe("  the spare breakpoint saves the cost policy $0.4000 (1.2000 off, 0.8000 on)");
  });

  test("an OpenAI table has the prefix rule's dollars only", () => {
    const lines = formatShapeTable(shape("a", 0.9, "openai-completions"));
    expect(lines[0]).toBe("shape a, OpenAI wire (headline dollars by the prefix rule): shape a");
    expect(lines[1]).toContain("$ prefix rule");
    expect(lines[1]).not.toContain("$ prefix only");
    expect(lines).toHaveLength(7);
    expect(lines[4]!.trimEnd().endsWith("0.9000         1.80x           0.0        0.9000")).toBe(true);
    expect(lines[5]).toContain("x limit: $ prefix rule over it");
  });

  test("every table measures each variant against the limit of the no-extension run, in a column and a line", () => {
    const lines = formatShapeTable(shape("c", 0.8));
    expect(lines[1]).toContain("x limit");
    expect(lines[2]).toContain("no extension");
    expect(lines[2]!.trimEnd().endsWith("4.00x           0.0        2.0000")).toBe(true);
    expect(lines.at(-2)).toBe("  limit $0.5000: each block of no extension's requests written to the cache once, the replies, tools and system read by every request; x limit: $ bp rule over it");
  });
});

describe("shape f, real work", () => {
  const repoRoot = resolve(import.meta.dir, "../..");
  const build = (quick: boolean) => {
    const work = mkdtempSync(join(tmpdir(), "bench-shape-f-"));
    try {
      return buildShape("f", { repoRoot, workDir: join(work, "files"), idleMs: 0, quick });
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  };
  const callsPerPrompt = (s: ReturnType<typeof build>) => {
    const counts: number[] = [];
    let current = 0;
    for (const r of s.main) {
      if (r.toolCalls) current += r.toolCalls.length;
      else {
        counts.push(current);
        current = 0;
      }
    }
    return counts;
  };

  test("has at least ten prompts of 20 to 60 tool calls, each ending in a reply", () => {
    const s = build(false);
    const counts = callsPerPrompt(s);
    expect(s.prompts.length).toBeGreaterThanOrEqual(10);
    expect(counts).toHaveLength(s.prompts.length);
    for (const c of counts) expect(c >= 20 && c <= 60).toBe(true);
  });

  test("mixes reads, greps and test runs through bash, and edits of copies in the work directory", () => {
    const calls = build(false).main.flatMap((r) => r.toolCalls ?? []);
    const bash = calls.filter((c) => c.name === "bash").map((c) => String(c.args.command));
    expect(calls.filter((c) => c.name === "read").length).toBeGreaterThan(100);
    expect(bash.some((c) => c.startsWith("grep"))).toBe(true);
    expect(bash.some((c) => c.startsWith('echo "bun test'))).toBe(true);
    const edits = calls.filter((c) => c.name === "edit");
    expect(edits.length).toBeGreaterThan(10);
    for (const e of edits) expect(String(e.args.path)).toMatch(/bench-shape-f-.*\/files\/file-\d+\.ts$/);
  });

  test("is the same on every build, and the quick run is three prompts of twenty calls", () => {
    const strip = (s: ReturnType<typeof build>) => JSON.stringify(s).replace(/bench-shape-f-[^/]+/g, "W");
    expect(strip(build(false))).toBe(strip(build(false)));
    expect(callsPerPrompt(build(true))).toEqual([20, 20, 20]);
  });
});

describe("the session bench's figures", () => {
  const price = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
  const cheap = { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 };
  const main = (seq: number, read: number, write: number, prefixBreak = false): RecordedRequest => ({
    seq,
    kind: "main",
    path: "/v1/messages",
    headers: {},
    body: {},
    api: "anthropic-messages",
    model: "m",
    status: 200,
    at: seq * 1000,
    cache: { rule: "anthropic-breakpoints", inputTokens: 0, cacheReadTokens: read, cacheWriteTokens: write, prefixBreak, expired: false, prefix: { inputTokens: 0, cacheReadTokens: read + write, cacheWriteTokens: 0 } },
  });
  const summarizer: RecordedRequest = {
    ...main(3, 1_000_000, 1_000_000, true),
    kind: "summarizer",
    model: "s",
    cache: { rule: "anthropic-breakpoints", inputTokens: 1_000_000, cacheReadTokens: 1_000_000, cacheWriteTokens: 1_000_000, prefixBreak: true, expired: false, prefix: { inputTokens: 1_000_000, cacheReadTokens: 2_000_000, cacheWriteTokens: 0 } },
  };

  test("main requests and summarizer calls are priced from their cache figures at their own model's price", () => {
    const f = runFigures([main(1, 0, 1_000_000), main(2, 1_000_000, 0, true), summarizer], { m: price, s: cheap });
    expect(f).toMatchObject({ mainRequests: 2, cacheReadTokens: 1_000_000, cacheWriteTokens: 1_000_000, prefixBreaks: 1, summarizerRequests: 1, summarizerInputTokens: 3_000_000 });
    const expected = 3.75 + 0.3 + (2 * 20 * 15) / 1e6 + (1 + 0.1 + 1.25) + (20 * 5) / 1e6;
    expect(f.costUsd).toBeCloseTo(expected, 10);
  });

  test("the prefix-only cost prices the same requests with the prefix reading's figures", () => {
    const f = runFigures([main(1, 0, 1_000_000), main(2, 1_000_000, 0, true)], { m: price });
    expect(f.prefixCostUsd).toBeCloseTo(2 * 0.3 + (2 * 20 * 15) / 1e6, 10);
  });

  test("an OpenAI run has no prefix-only figure: its headline already is the prefix rule", () => {
    const openai = { ...main(1, 2048, 0), api: "openai-completions" as const, cache: { rule: "longest-prefix" as const, inputTokens: 500, cacheReadTokens: 2048, cacheWriteTokens: 0, prefixBreak: false, expired: false } };
    const f = runFigures([openai], { m: price });
    expect(f.prefixCostUsd).toBeUndefined();
    expect(f.costUsd).toBeCloseTo((500 * 3 + 2048 * 0.3 + 20 * 15) / 1e6, 12);
  });

  test("a request the cache simulation did not bill is an error, not a free request", () => {
    const { cache: _omit, ...unbilled } = main(1, 0, 0);
    expect(() => runFigures([unbilled], { m: price })).toThrow("request 1 was not billed by the cache simulation");
  });

  /** Tools, a marked system block, then `turns` user messages, the last one marked, as pi-ai sends them. */
  const anthropicBody = (turns: number) => ({
    model: "m",
    tools: [{ name: "read", description: "d".repeat(4000) }],
    system: [{ type: "text", text: "s".repeat(8000), cache_control: { type: "ephemeral" } }],
    messages: Array.from({ length: turns }, (_, i) => ({ role: "user", content: [{ type: "text", text: `${i}`.repeat(2000), ...(i === turns - 1 ? { cache_control: { type: "ephemeral" } } : {}) }] })),
  });
  const withBody = (r: RecordedRequest, body: unknown, api: RecordedRequest["api"] = "anthropic-messages"): RecordedRequest => ({ ...r, body, api });
  const chars = (blocks: string[]) => blocks.reduce((n, b) => n + b.length, 0);

  test("the limit of a run: each block of its main requests written once, tools and system read by every later request, the replies", () => {
    const first = anthropicBody(1);
    const second = anthropicBody(2);
    const f = runFigures([withBody(main(1, 0, 0), first), withBody(main(2, 0, 0), second), summarizer], { m: price, s: cheap });
    const blocks = cacheBlocks(second).blocks;
    const fixed = chars(blocks.slice(0, 2)) / 4;
    expect(f.limitUsd).toBeCloseTo(((chars(blocks) / 4) * 3.75 + fixed * 0.3 + 2 * 20 * 15) / 1e6, 12);
  });

  test("on the OpenAI wire the limit bills each block's first sending at the input price: the fake bills no write", () => {
    const body = (turns: number) => ({ model: "m", tools: [{ type: "function", function: { name: "read" } }], messages: [{ role: "system", content: "s".repeat(8000) }, ...Array.from({ length: turns }, (_, i) => ({ role: "user", content: `${i}`.repeat(2000) }))] });
    const openai = (seq: number, turns: number) => withBody({ ...main(seq, 0, 0), cache: { rule: "longest-prefix", inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, prefixBreak: false, expired: false } }, body(turns), "openai-completions");
    const f = runFigures([openai(1, 1), openai(2, 2)], { m: price });
    const blocks = openAiCacheBlocks(body(2));
    expect(f.limitUsd).toBeCloseTo(((chars(blocks) / 4) * 3 + (chars(blocks.slice(0, 2)) / 4) * 0.3 + 2 * 20 * 15) / 1e6, 12);
  });

  test("a rejected request costs nothing, and a model without a price is an error", () => {
    expect(runFigures([{ ...main(1, 5, 5), status: 400 }], { m: price }).mainRequests).toBe(0);
    expect(() => runFigures([main(1, 5, 5)], {})).toThrow("no price for model m");
  });
});
