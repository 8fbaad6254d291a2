// `/pruner report` prices a recorded session by its model's route: the api/provider/model each assistant
// message records, with the catalog entry's compat and name, and pi's cache retention.
import { describe, expect, test } from "bun:test";
import type { Api, Model } from "@earendil-works/pi-ai";
import { getModel } from "@earendil-works/pi-ai/compat";
import type { SessionEntry } from "@earendil-works/pi-coding-agent";
import { costModelFor } from "../economics/cost-model.js";
import { DEFAULT_CONFIG, type ContextPruneConfig } from "../settings/config-shape.js";
import { replaySession, type ReplayReport } from "./replay.js";
import { cacheLines, reportText } from "./text-report.js";

const catalog = (provider: string, id: string): Model<Api> => getModel(provider as never, id as never) as Model<Api>;

/** One prompt of eight tool turns and a reply, then a second prompt, recorded as `model` answered it. */
function session(model: { api: string; provider: string; id: string }): SessionEntry[] {
  const entries: any[] = [];
  let time = 1_000_000;
  const add = (message: any) => {
    time += 5_000;
    const full = message.role === "assistant" ? { ...message, api: model.api, provider: model.provider, model: model.id } : message;
    entries.push({ type: "message", id: `e${entries.length}`, parentId: entries.length ? `e${entries.length - 1}` : null, timestamp: new Date(time).toISOString(), message: { ...full, timestamp: time } });
  };
  for (let p = 0; p < 2; p++) {
    add({ role: "user", content: `task ${p}: `.padEnd(p === 0 ? 6000 : 20, "y") });
    for (let t = 0; t < 8; t++) {
      const id = `c${p}_${t}`;
      add({ role: "assistant", content: [{ type: "toolCall", id, name: "bash", arguments: { command: `run ${p} ${t}` } }] });
      add({ role: "toolResult", toolCallId: id, toolName: "bash", content: [{ type: "text", text: `${id}:`.padEnd(4000, "x") }], isError: false });
    }
    add({ role: "assistant", content: [{ type: "text", text: `done ${p}` }] });
  }
  return entries;
}

const CONFIG = { ...DEFAULT_CONFIG, enabled: true, flushPolicy: "classic", minBatchChars: 0, chainCompression: { ...DEFAULT_CONFIG.chainCompression, enabled: false } } as ContextPruneConfig;

function replay(model: Model<Api> | { api: string; provider: string; id: string }, cacheEnv = {}): Promise<ReplayReport> {
  const entry = "cost" in model ? (model as Model<Api>) : undefined;
  return replaySession({
    sessionId: "s",
    branch: session(model),
    problems: [],
    config: CONFIG,
    overrides: [],
    cacheEnv,
    costModelOf: () => ({ cost: costModelFor(entry), contextWindow: entry?.contextWindow, ...(entry ? { api: entry.api, model: entry } : {}) }),
  });
}

describe("the report on every route", () => {
  test("a Claude session on Bedrock is priced by the breakpoint rule, with and without the spare breakpoint", async () => {
    const report = await replay(catalog("amazon-bedrock", "anthropic.claude-sonnet-4-5-20250929-v1:0"));
    expect(report.cache).toMatchObject({ rule: "anthropic-breakpoints", spareBreakpoint: true, route: { wire: "bedrock" } });
    expect(report.cache.whatIfOther).toBeDefined();
    expect(cacheLines(report)[0]).toBe(
      "cache rule: Anthropic breakpoints on Bedrock (cachePoint blocks, 20-block lookback), with pi-condense's spare breakpoint; short retention: entries live 5 min",
    );
  });

  test("an OpenRouter Anthropic session on chat completions is priced by the breakpoint rule", async () => {
    const report = await replay(catalog("openrouter", "anthropic/claude-sonnet-4.5:batch"));
    expect(report.cache).toMatchObject({ rule: "anthropic-breakpoints", route: { wire: "openai" } });
    expect(cacheLines(report)[0]).toStartWith("cache rule: Anthropic breakpoints through chat completions (cache_control on content parts, 20-block lookback)");
  });

  test("a Bedrock session of a model that is not Claude is priced by the longest prefix", async () => {
    const report = await replay(catalog("amazon-bedrock", "amazon.nova-pro-v1:0"));
    expect(cacheLines(report)).toEqual([
      "cache rule: longest shared prefix (bedrock-converse-stream)",
      "  (the provider reads from its cache the longest start a request shares with one it has seen)",
    ]);
  });

  test("with pi's long retention the rule line, the lifetime and the write price follow it", async () => {
    const sonnet = catalog("anthropic", "claude-sonnet-4-5");
    const report = await replay(sonnet, { PI_CACHE_RETENTION: "long" });
    expect(report.cost.ttlMs).toBe(3_600_000);
    expect(report.cost.prices.cacheWrite).toBeCloseTo(2 * report.cost.prices.input);
    expect(cacheLines(report)[0]).toEndWith("; long retention: entries live 1 h, a write costs 2x the input price");
    expect(reportText(report, "s.jsonl")).toContain("cache TTL 1 h");
    const short = await replay(sonnet);
    expect(short.scenarios[0]!.totals.dollars!).toBeLessThan(report.scenarios[0]!.totals.dollars!);
  });

  test("a session whose API is unknown says the rule is not known", async () => {
    const report = await replay({ api: "telepathy", provider: "x", id: "y" });
    expect(cacheLines(report)).toEqual(["cache rule: longest shared prefix (the API telepathy is not one pi-condense knows the cache rule of)"]);
  });
});
