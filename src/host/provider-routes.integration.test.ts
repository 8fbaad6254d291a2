// The cost policy through index.ts on every provider route pi ships: Claude on Bedrock and OpenRouter's
// Anthropic models are priced by the breakpoint rule, pi's long retention by its 1-hour lifetime and
// dearer write, and every input the policy cannot price falls back to the classic policy with one line
// saying why, told once, never a throw.
import { afterAll, afterEach, describe, expect, mock, setSystemTime, test } from "bun:test";
import * as actualCompat from "@earendil-works/pi-ai/compat";
import { makeAgentDir, streamReply } from "../../test/fake-host.js";
import { type SimCall, startSim, type Sim } from "../../test/session-sim.js";

let summarizerCalls = 0;
mock.module("@earendil-works/pi-ai/compat", () => ({
  ...actualCompat,
  stream: () => {
    summarizerCalls++;
    return streamReply("- summary");
  },
}));

const T = await import("../names.js");
const catalog = (provider: string, id: string): any => actualCompat.getModel(provider as never, id as never);

const cleanups: Array<() => void> = [];
afterAll(() => cleanups.forEach((fn) => fn()));
afterEach(() => {
  setSystemTime();
  summarizerCalls = 0;
  delete process.env.PI_CACHE_RETENTION;
});

const NO_CHAINS = { enabled: false, rollingWindow: 3, stripFinalAssistantThinking: true, fuseRangeSummary: false };
const WARM = { input: 50, cacheRead: 20_000, cacheWrite: 500 };
const FALLBACK = ": summarizing at the agent's final reply, as the classic policy does";

async function started(model: unknown): Promise<Sim> {
  const agent = makeAgentDir({ enabled: true, minBatchChars: 0, dedupByContentHash: false, chainCompression: NO_CHAINS, summaries: "always" });
  cleanups.push(agent.cleanup);
  process.env.PI_CODING_AGENT_DIR = agent.dir;
  const sim = await startSim({ startTs: Date.now() - 60_000 });
  (sim.ctx as any).model = model;
  await sim.fire("session_start", { reason: "startup" });
  return sim;
}

const read = (id: string): SimCall => ({ id, name: "read", args: { path: `/src/${id}.ts` }, text: `${id} `.repeat(700) });
const metrics = (sim: Sim) => sim.host.entries.filter((e) => e.customType === T.CUSTOM_TYPE_FLUSH_METRICS).map((e) => e.data);
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
const longRun = () => Array.from({ length: 12 }, (_, i) => [read(`r${i}`)]);

async function status(sim: Sim): Promise<string> {
  await sim.host.commands.get("pruner").handler("status", sim.ctx);
  return sim.fake.notices.at(-1)!.message;
}

describe("breakpoint routes beyond Anthropic's API", () => {
  test("Claude on Bedrock is priced by the breakpoint rule and /pruner status names its cachePoint blocks", async () => {
    const sim = await started(catalog("amazon-bedrock", "anthropic.claude-sonnet-4-5-20250929-v1:0"));
    await sim.prompt({ turns: longRun(), usage: WARM });
    await settle();
    expect(metrics(sim).at(-1).decision.figures).toMatchObject({ cacheRule: "anthropic-breakpoints", breakpoint: true });
    expect(await status(sim)).toContain("cache rule: Anthropic breakpoints on Bedrock (cachePoint blocks, 20-block lookback), spare breakpoint on; short retention: entries live 5 min");
  });

  test("OpenRouter's Anthropic model on chat completions is priced by the breakpoint rule", async () => {
    const sim = await started(catalog("openrouter", "anthropic/claude-sonnet-4.5:batch"));
    await sim.prompt({ turns: longRun(), usage: WARM });
    await settle();
    expect(metrics(sim).at(-1).decision.figures).toMatchObject({ cacheRule: "anthropic-breakpoints" });
    expect(await status(sim)).toContain("cache rule: Anthropic breakpoints through chat completions (cache_control on content parts, 20-block lookback)");
  });

  test("OpenAI's catalog cache-write price of 0 is its rule working: the policy decides, it does not fall back", async () => {
    const sim = await started(catalog("openai", "gpt-5.1"));
    await sim.prompt({ turns: [[read("a")]], usage: WARM });
    await settle();
    expect(metrics(sim).at(-1).decision).toMatchObject({ basis: "wait", figures: { cacheRule: "longest-prefix" } });
    expect(sim.fake.notices.filter((n) => n.message.endsWith(FALLBACK))).toEqual([]);
  });
});

describe("pi's long retention", () => {
  test("PI_CACHE_RETENTION=long keeps the cache warm for an hour and prices a write at 2x the input price", async () => {
    process.env.PI_CACHE_RETENTION = "long";
    const sim = await started(catalog("anthropic", "claude-sonnet-4-5"));
    await sim.prompt({ turns: [[read("a")]], usage: WARM });
    await settle();
    setSystemTime(new Date(Date.now() + 20 * 60_000));
    const text = await status(sim);
    expect(text).toContain("long retention: entries live 1 h, a write costs 2x the input price");
    expect(text).toMatch(/cache: warm, expires in \d+ min/);
  });
});

describe("input the policy cannot price falls back to classic, told once, never a throw", () => {
  const sonnet = catalog("anthropic", "claude-sonnet-4-5");
  const cases: Array<[string, unknown, string]> = [
    ["a model with prices but no cache prices", { ...sonnet, cost: { input: 3, output: 15 } }, "anthropic/claude-sonnet-4-5 has no cache-read price in the catalog"],
    ["a cache-read price of 0", { ...sonnet, cost: { ...sonnet.cost, cacheRead: 0 } }, "anthropic/claude-sonnet-4-5 has no cache-read price in the catalog"],
    ["a breakpoint route whose cache-write price is 0", { ...sonnet, cost: { ...sonnet.cost, cacheWrite: 0 } }, "anthropic/claude-sonnet-4-5 has no cache-write price in the catalog, which its breakpoint cache bills"],
    ["an unknown API name", { ...sonnet, api: "telepathy" }, "the API telepathy is not one pi-condense knows the cache rule of"],
    ["a Bedrock model that is not Claude and has no cache price", catalog("amazon-bedrock", "deepseek.v3.2"), "amazon-bedrock/deepseek.v3.2 has no cache-read price in the catalog"],
    [
      "a Claude model on Bedrock that pi-ai sends no cache points for",
      { ...catalog("amazon-bedrock", "anthropic.claude-sonnet-4-5-20250929-v1:0"), id: "anthropic.claude-3-5-sonnet-20241022-v2:0", name: "Claude 3.5 Sonnet v2" },
      "pi-ai sends no cache points for anthropic.claude-3-5-sonnet-20241022-v2:0 on Bedrock, so nothing is cached",
    ],
  ];
  for (const [name, model, reason] of cases) {
    test(name, async () => {
      const sim = await started(model);
      await sim.prompt({ turns: [[read("a")]], usage: WARM });
      await sim.prompt({ turns: [[read("b")]], usage: WARM });
      await settle();
      expect(summarizerCalls).toBe(2);
      expect(metrics(sim).at(-1).decision).toMatchObject({ basis: "fallback", verdict: "apply", reason: `${reason}${FALLBACK}` });
      expect(sim.fake.notices.filter((n) => n.message.endsWith(FALLBACK)).map((n) => n.message)).toEqual([`pruner: ${reason}${FALLBACK}`]);
    });
  }

  test("a Bedrock model that is not Claude but has cache prices is priced by Bedrock's prefix cache", async () => {
    const sim = await started(catalog("amazon-bedrock", "amazon.nova-pro-v1:0"));
    await sim.prompt({ turns: [[read("a")]], usage: WARM });
    await settle();
    expect(metrics(sim).at(-1).decision.figures).toMatchObject({ cacheRule: "longest-prefix" });
  });

  test("usage with no cache fields counts as no usage: classic, told once", async () => {
    const sim = await started(sonnet);
    await sim.prompt({ turns: [[read("a")]], usage: { input: 20_000 } as never });
    await sim.prompt({ turns: [[read("b")]], usage: { input: 20_000 } as never });
    await settle();
    expect(summarizerCalls).toBe(2);
    const reason = `the provider reports no usage${FALLBACK}`;
    expect(metrics(sim).at(-1).decision).toMatchObject({ basis: "fallback", reason });
    expect(sim.fake.notices.filter((n) => n.message.endsWith(FALLBACK)).map((n) => n.message)).toEqual([`pruner: ${reason}`]);
  });

  test("/pruner status says why the route cannot be priced", async () => {
    const sim = await started({ ...sonnet, api: "telepathy" });
    expect(await status(sim)).toContain("cache rule: longest shared prefix (the API telepathy is not one pi-condense knows the cache rule of)");
  });
});
