import { describe, expect, test } from "bun:test";
import type { SessionEntry } from "@earendil-works/pi-coding-agent";
import { getBuiltinModel } from "@earendil-works/pi-ai/providers/all";
import type { Api, Model } from "@earendil-works/pi-ai";
import { costModelFor } from "../economics/cost-model.js";
import { DEFAULT_CONFIG, type ContextPruneConfig } from "../settings/config-shape.js";
import { replaySession, type ReplayReport } from "./replay.js";
import { reportText } from "./text-report.js";

const sonnet = getBuiltinModel("anthropic", "claude-sonnet-4-5") as Model<Api>;
const haiku55 = getBuiltinModel("anthropic", "claude-haiku-5-5" as never) as Model<Api>;
const catalog = (models: Model<Api>[] = [sonnet, haiku55]) => (provider: string | undefined, id: string | undefined) => {
  const model = models.find((m) => m.provider === provider && m.id === id);
  return { cost: costModelFor(model), contextWindow: model?.contextWindow, ...(model ? { model, api: model.api } : {}) };
};

interface Reply {
  model?: string;
  /** What the recording says the reply read from the cache (default: about the context before it). */
  cacheRead?: number;
}

/**
 * `prompts` prompts, each one tool turn (a 6,000-char output) and a final reply, 5 s apart, every reply with
 * a recorded usage; `gapAfter`: ms before prompt k+1; `refreshes[k]`: times (ms after prompt k's reply) of
 * pi's cache-warming refreshes.
 */
function session(prompts: number, opts: { replies?: Record<number, Reply>; gapAfter?: Record<number, number>; refreshes?: Record<number, number[]>; outputChars?: number } = {}): SessionEntry[] {
  const entries: any[] = [];
  let time = 1_000_000;
  let context = 0;
  let replyIndex = 0;
  const push = (fields: Record<string, unknown>) => entries.push({ id: `e${entries.length}`, parentId: entries.length ? `e${entries.length - 1}` : null, timestamp: new Date(time).toISOString(), ...fields });
  const message = (m: Record<string, unknown>) => {
    push({ type: "message", message: { ...m, timestamp: time } });
    context += JSON.stringify(m).length / 4;
  };
  const assistant = (content: unknown[]) => {
    const spec = opts.replies?.[replyIndex++] ?? {};
    const read = spec.cacheRead ?? Math.max(0, context - 200);
    const usage = { input: 3, output: 50, cacheRead: read, cacheWrite: Math.max(0, context - read), totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0.01 } };
    message({ role: "assistant", content, api: "anthropic-messages", provider: "anthropic", model: spec.model ?? "claude-sonnet-4-5", usage, stopReason: content.some((c: any) => c.type === "toolCall") ? "toolUse" : "stop" });
  };
  for (let p = 0; p < prompts; p++) {
    time += 5_000;
    message({ role: "user", content: `task ${p} `.padEnd(5000, "y") });
    time += 5_000;
    assistant([{ type: "toolCall", id: `c${p}`, name: "bash", arguments: { command: `run ${p}` } }]);
    time += 5_000;
    message({ role: "toolResult", toolCallId: `c${p}`, toolName: "bash", content: [{ type: "text", text: `out ${p} `.padEnd(opts.outputChars ?? 6000, "x") }], isError: false });
    time += 5_000;
    assistant([{ type: "text", text: `done ${p}` }]);
    const replyAt = time;
    for (const after of opts.refreshes?.[p] ?? []) {
      time = replyAt + after;
      push({ type: "usage", kind: "cache_warm", provider: "anthropic", model: "claude-sonnet-4-5", usage: { input: 0, output: 1, cacheRead: context, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0.002 } } });
    }
    time = replyAt + (opts.gapAfter?.[p] ?? 0);
  }
  return entries as SessionEntry[];
}

const CONFIG = { ...DEFAULT_CONFIG, enabled: true, flushPolicy: "classic", minBatchChars: 0 } as ContextPruneConfig;

function replay(branch: SessionEntry[], models?: Model<Api>[]): Promise<ReplayReport> {
  return replaySession({ sessionId: "s", branch, problems: [], config: CONFIG, overrides: [], costModelOf: catalog(models) });
}

const scenario = (report: ReplayReport, name: string) => report.scenarios.find((s) => s.name === name)!;

describe("the replay follows the recording's cache events", () => {
  test("a reply that read nothing while the clock says warm starts every configuration cold there", async () => {
    const plain = await replay(session(6));
    const evicted = await replay(session(6, { replies: { 6: { cacheRead: 0 } } }));
    expect(scenario(plain, "none").totals.recordedColdStarts).toBe(0);
    for (const name of ["none", "whatif"]) {
      expect(scenario(evicted, name).totals.recordedColdStarts).toBe(1);
      expect(scenario(evicted, name).totals.coldStarts).toBe(scenario(plain, name).totals.coldStarts + 1);
      expect(scenario(evicted, name).cacheRead[6]).toBe(0);
      expect(scenario(evicted, name).totals.dollars!).toBeGreaterThan(scenario(plain, name).totals.dollars!);
    }
    expect(reportText(evicted, "t").replace(/\s+/g, " ")).toContain("(1 of them where the recording shows the provider's cache empty");
  });

  test("a reply that read about what the simulation reads is no cold start; one that read under half of it is", async () => {
    const read = (report: ReplayReport) => scenario(report, "none").cacheRead[8]!;
    const expected = read(await replay(session(6)));
    expect(scenario(await replay(session(6, { replies: { 8: { cacheRead: Math.round(expected * 0.7) } } })), "none").totals.recordedColdStarts).toBe(0);
    expect(scenario(await replay(session(6, { replies: { 8: { cacheRead: Math.round(expected * 0.3) } } })), "none").totals.recordedColdStarts).toBe(1);
  });

  test("pi's warming refreshes keep the cache alive across a pause past its lifetime, and count in the dollars", async () => {
    const pause = { 0: 12 * 60_000, 1: 12 * 60_000 };
    const cold = await replay(session(3, { gapAfter: pause }));
    const warmed = await replay(session(3, { gapAfter: pause, refreshes: { 0: [4.5 * 60_000, 9 * 60_000], 1: [4.5 * 60_000, 9 * 60_000] } }));
    const none = scenario(warmed, "none").totals;
    expect(scenario(cold, "none").totals.coldStarts).toBe(3);
    expect(none.coldStarts).toBe(1);
    expect(none.refreshes).toBe(4);
    expect(none.refreshDollars!).toBeGreaterThan(0);
    expect(warmed.recorded.refreshes).toBe(4);
    expect(warmed.recorded.dollars).toBeCloseTo(6 * 0.01 + 4 * 0.002, 9);
  });

  test("the what-if sends a refresh only while pi's warming rule, at its own prompt's size, finds it worth it", async () => {
    // A small session: pi's rule (15% chance of a next request, $0.05 minimum saving) stops warming such a prompt.
    const warmed = await replay(session(3, { gapAfter: { 0: 12 * 60_000 }, refreshes: { 0: [4.5 * 60_000, 9 * 60_000] } }));
    expect(scenario(warmed, "none").totals.refreshes).toBe(2);
    expect(scenario(warmed, "whatif").totals.refreshes).toBe(0);
    expect(scenario(warmed, "whatif").totals.coldStarts).toBe(2);
  });
});

describe("each reply priced at its own recorded model and tier", () => {
  test("a reply of another model is billed at that model's prices", async () => {
    const mixed = await replay(session(4, { replies: { 3: { model: "claude-haiku-5-5" } } }));
    const same = await replay(session(4));
    const step = (report: ReplayReport, i: number) => scenario(report, "none").cumulativeCost[i]! - scenario(report, "none").cumulativeCost[i - 1]!;
    // Haiku 5.5's base rates are 1/30 of Sonnet 4.5's.
    expect(step(mixed, 3) / step(same, 3)).toBeCloseTo(1 / 30, 3);
    expect(step(mixed, 4)).toBeCloseTo(step(same, 4), 6);
  });

  test("a request whose input passes the model's tier is billed at the tier's rates for every token", async () => {
    const flatHaiku = { ...haiku55, cost: { ...haiku55.cost, tiers: undefined } } as Model<Api>;
    const big = (models: Model<Api>[]) => replay(session(3, { outputChars: 200_000, replies: Object.fromEntries([0, 1, 2, 3, 4, 5].map((i) => [i, { model: "claude-haiku-5-5" }])) }), models);
    const tiered = scenario(await big([sonnet, haiku55]), "none");
    const flat = scenario(await big([sonnet, flatHaiku]), "none");
    const steps = (s: typeof tiered) => s.cumulativeCost.map((c, i) => c - (s.cumulativeCost[i - 1] ?? 0));
    tiered.context.forEach((tokens, i) => {
      const ratio = steps(tiered)[i]! / steps(flat)[i]!;
      if (tokens > 100_000) expect(ratio).toBeCloseTo(5, 6);
      else expect(ratio).toBeCloseTo(1, 6);
    });
    expect(tiered.context.some((tokens) => tokens > 100_000)).toBe(true);
  });
});

describe("bad recordings", () => {
  test("a model the catalog no longer has, and a clock that goes back, are named; the rest is priced", async () => {
    const branch = session(3, { replies: { 2: { model: "claude-retired" } } });
    const last = branch.findLast((e: any) => e.message?.role === "assistant") as any;
    last.message.timestamp = 10;
    const report = await replay(branch);
    expect(report.notes).toContain("1 reply of anthropic/claude-retired, which pi's model catalog does not price, billed at anthropic/claude-sonnet-4-5's prices");
    expect(report.notes.some((n) => n.startsWith("1 request is dated before the one before"))).toBe(true);
    expect(scenario(report, "none").totals.dollars!).toBeGreaterThan(0);
  });
});
