import { describe, expect, test } from "bun:test";
import type { SessionEntry } from "@earendil-works/pi-coding-agent";
import { getBuiltinModel } from "@earendil-works/pi-ai/providers/all";
import fc from "fast-check";
import { costModelFor } from "../economics/cost-model.js";
import { CUSTOM_TYPE_INDEX, CUSTOM_TYPE_SUMMARY } from "../names.js";
import { DEFAULT_CONFIG, type ContextPruneConfig } from "../settings/config-shape.js";
import { replaySession, type ReplayReport } from "./replay.js";

/** The catalog models a generated session runs on, each with the API its messages record. */
const MODELS = [
  { provider: "anthropic", id: "claude-sonnet-4-5", api: "anthropic-messages" },
  { provider: "anthropic", id: "claude-haiku-4-5", api: "anthropic-messages" },
  { provider: "openai", id: "gpt-5.1", api: "openai-responses" },
  { provider: "google", id: "gemini-2.5-flash", api: "google-generative-ai" },
] as const;

const MINUTE = 60_000;
/** Each model's minimum cacheable prefix in chars (cache-sim.ts scales tokens at 4 chars). */
const MINIMUM_CHARS = [1024 * 4, 4096 * 4, 1024 * 4, 1024 * 4];

interface GenTurn {
  /** Output chars of each parallel call. */
  outputs: number[];
  /** The turn's tools ran longer than the cache lifetime. */
  slow: boolean;
}

interface GenPrompt {
  /** Chars of the user message (a whole file pasted in, at the top of the range). */
  userChars: number;
  /** Idle time before the prompt. */
  pauseMs: number;
  turns: GenTurn[];
  /** A final text reply, an aborted or errored turn carrying tool calls, or nothing more. */
  end: "reply" | "aborted" | "error" | "none";
  /** The session recorded a flush after the reply: a summary and an index entry for the prompt's outputs. */
  recorded: boolean;
  outputTokens: number;
}

interface GenSession {
  model: number;
  /** Chars of tools and system over the model's minimum (pi's own are over every minimum). */
  systemExtra: number;
  usage: boolean;
  prompts: GenPrompt[];
}

/**
 * Sessions that stay under `contextPressure` (0.6 of a 200k window). With `unseen`, outputs may reach the
 * moment the cache expires before any request carried them (a turn whose tools outlast the cache, a run
 * that stops right after its tools): the cost policy's cold flush leaves them for the request that shows them.
 */
function sessions(unseen: boolean) {
  const turn = fc.record({
    outputs: fc.array(fc.integer({ min: 0, max: 8_000 }), { minLength: 1, maxLength: 2 }),
    slow: unseen ? fc.integer({ min: 0, max: 4 }).map((x) => x === 0) : fc.constant(false),
  });
  const ends: Array<GenPrompt["end"]> = ["reply", "reply", "reply", "aborted", "error", ...(unseen ? ["none" as const] : [])];
  const prompt = fc.record({
    userChars: fc.oneof(fc.integer({ min: 1, max: 200 }), fc.integer({ min: 1, max: 20_000 })),
    pauseMs: fc.oneof(fc.integer({ min: 1_000, max: 30_000 }), fc.integer({ min: 6 * MINUTE, max: 60 * MINUTE })),
    turns: fc.array(turn, { maxLength: 4 }),
    end: fc.constantFrom(...ends),
    recorded: fc.boolean(),
    outputTokens: fc.integer({ min: 1, max: 2_000 }),
  });
  return fc.record({
    model: fc.integer({ min: 0, max: MODELS.length - 1 }),
    systemExtra: fc.integer({ min: 0, max: 20_000 }),
    usage: fc.boolean(),
    prompts: fc.array(prompt, { minLength: 1, maxLength: 5 }),
  });
}

const settings = fc.record({
  flushPolicy: fc.constantFrom<ContextPruneConfig["flushPolicy"]>("cost", "classic"),
  cacheBreakpoint: fc.boolean(),
  chains: fc.boolean(),
  minBatchChars: fc.constantFrom(0, 1000),
  summaries: fc.constantFrom<ContextPruneConfig["summaries"]>("auto", "always"),
  summarizerModel: fc.constantFrom("default", "anthropic/claude-haiku-4-5", "openai/gpt-5-mini"),
});
type Settings = typeof settings extends fc.Arbitrary<infer T> ? T : never;

/** The session as pi would have written it, with pi-condense's flush entries where `recorded` says. */
function entriesOf(gen: GenSession): SessionEntry[] {
  const model = MODELS[gen.model]!;
  const entries: any[] = [];
  let time = Date.UTC(2026, 0, 1);
  let ref = 1;
  const add = (fields: Record<string, unknown>) => {
    entries.push({ ...fields, id: `e${entries.length}`, parentId: entries.length ? `e${entries.length - 1}` : null, timestamp: new Date(time).toISOString() });
  };
  const message = (m: Record<string, unknown>) => add({ type: "message", message: { ...m, timestamp: time } });
  const assistant = (content: unknown[], outputTokens: number, stopReason = "stop") => {
    const chars = JSON.stringify(entries).length;
    const usage = gen.usage ? { usage: { input: 10, output: outputTokens, cacheRead: Math.round(chars / 4), cacheWrite: 50, totalTokens: 0 } } : {};
    message({ role: "assistant", content, provider: model.provider, model: model.id, api: model.api, stopReason, ...usage });
  };
  message({ role: "system", content: "", sections: { preamble: "s".repeat(MINIMUM_CHARS[gen.model]! + gen.systemExtra) } });
  gen.prompts.forEach((p, n) => {
    time += p.pauseMs;
    message({ role: "user", content: `prompt ${n} `.padEnd(p.userChars, "u") });
    const records: any[] = [];
    p.turns.forEach((t, k) => {
      time += 2_000;
      const calls = t.outputs.map((_, c) => ({ type: "toolCall", id: `c${n}_${k}_${c}`, name: "bash", arguments: { command: `run ${n} ${k} ${c}` } }));
      assistant([{ type: "text", text: `step ${k}` }, ...calls], p.outputTokens);
      time += t.slow ? 7 * MINUTE : 1_000;
      t.outputs.forEach((chars, c) => {
        const id = `c${n}_${k}_${c}`;
        const text = `${id} `.padEnd(chars, "o");
        message({ role: "toolResult", toolCallId: id, toolName: "bash", content: [{ type: "text", text }], isError: false });
        records.push({ toolCallId: id, toolName: "bash", args: { command: `run ${n} ${k} ${c}` }, resultText: text, isError: false, turnIndex: k, timestamp: time, resultTimestamp: time });
      });
    });
    time += 2_000;
    // A prompt without a request sends nothing: it ends in a reply.
    const end = p.end === "none" && p.turns.length === 0 ? "reply" : p.end;
    if (end === "none") return;
    if (end !== "reply") {
      assistant([{ type: "toolCall", id: `cut${n}`, name: "bash", arguments: { command: "sleep" } }], 0, end);
      return;
    }
    assistant([{ type: "text", text: `done ${n}` }], p.outputTokens);
    if (!p.recorded || records.length === 0) return;
    const refs = records.map((r) => ({ shortId: `t${ref++}`, toolCallId: r.toolCallId, resultTimestamp: r.resultTimestamp }));
    add({ type: "custom_message", customType: CUSTOM_TYPE_SUMMARY, content: `- what prompt ${n} found`, display: false, details: { toolCallRefs: refs, toolNames: records.map(() => "bash"), turnIndex: 0, timestamp: time } });
    add({ type: "custom", customType: CUSTOM_TYPE_INDEX, data: { toolCalls: records, refs } });
  });
  return entries;
}

function catalog(provider: string | undefined, id: string | undefined) {
  const model = provider && id ? (getBuiltinModel as any)(provider, id) : undefined;
  return { cost: costModelFor(model), contextWindow: model?.contextWindow };
}

/** Every bill the report gives dollars for: each configuration, and the what-if's other bills. */
function bills(report: ReplayReport): Array<{ name: string; dollars: number }> {
  const out = report.scenarios.map((s) => ({ name: s.label, dollars: s.totals.dollars! }));
  if (report.cache.whatIfOther) out.push({ name: "what-if, breakpoint the other way", dollars: report.cache.whatIfOther.totals.dollars! });
  if (report.cache.whatIfPrefix) out.push({ name: "what-if, longest-prefix rule", dollars: report.cache.whatIfPrefix.dollars! });
  return out;
}

function configOf(s: Settings): ContextPruneConfig {
  return {
    ...DEFAULT_CONFIG,
    enabled: true,
    summarizerModel: s.summarizerModel,
    flushPolicy: s.flushPolicy,
    cacheBreakpoint: s.cacheBreakpoint,
    chainCompression: { ...DEFAULT_CONFIG.chainCompression, enabled: s.chains },
    minBatchChars: s.minBatchChars,
    summaries: s.summaries,
  };
}

const runs = Number(process.env.LIMIT_PROPERTY_RUNS ?? 200);
const seed = process.env.LIMIT_PROPERTY_SEED ? Number(process.env.LIMIT_PROPERTY_SEED) : undefined;

describe("the limit on generated sessions", () => {
  test("a run that stops right after its tools, then a prompt after the cache expired: the cost policy shows those outputs before it summarizes them, and costs at least the limit", async () => {
    const gen: GenSession = {
      model: 0,
      systemExtra: 4_000,
      usage: false,
      prompts: [
        { userChars: 1, pauseMs: 1_000, turns: [{ outputs: [8_000, 8_000], slow: false }], end: "none", recorded: false, outputTokens: 1 },
        { userChars: 1, pauseMs: 10 * MINUTE, turns: [], end: "reply", recorded: false, outputTokens: 1 },
      ],
    };
    const s: Settings = { flushPolicy: "cost", cacheBreakpoint: true, chains: false, minBatchChars: 0, summaries: "always", summarizerModel: "openai/gpt-5-mini" };
    const entries = entriesOf(gen);
    const report = await replaySession({ sessionId: "s", branch: entries, problems: [], config: configOf(s), overrides: [], costModelOf: catalog });
    const whatIf = report.scenarios.find((x) => x.name === "whatif")!.totals;
    expect(whatIf.summarizerCalls).toBe(0);
    expect(whatIf.dollars!).toBeGreaterThanOrEqual(report.limit.dollars!);
  });

  test("every configuration the report prices costs at least the limit when every output is shown before it is summarized", async () => {
    await fc.assert(
      fc.asyncProperty(sessions(false), settings, async (gen, s) => {
        const report = await replaySession({ sessionId: "s", branch: entriesOf(gen), problems: [], config: configOf(s), overrides: [], costModelOf: catalog });
        const limit = report.limit.dollars!;
        expect(limit).toBeGreaterThan(0);
        for (const bill of bills(report)) {
          if (bill.dollars < limit * (1 - 1e-9)) throw new Error(`${bill.name} $${bill.dollars} under the limit $${limit}`);
        }
      }),
      { numRuns: runs, seed },
    );
  }, 60_000);

  test("with outputs no request carried before the cache expired (a slow tool, a stopped run), every configuration still costs at least the limit", async () => {
    await fc.assert(
      fc.asyncProperty(sessions(true), settings, async (gen, s) => {
        const report = await replaySession({ sessionId: "s", branch: entriesOf(gen), problems: [], config: configOf(s), overrides: [], costModelOf: catalog });
        const limit = report.limit.dollars!;
        for (const bill of bills(report)) {
          if (bill.dollars < limit * (1 - 1e-9)) throw new Error(`${bill.name} $${bill.dollars} under the limit $${limit}`);
        }
      }),
      { numRuns: runs, seed },
    );
  }, 60_000);
});
