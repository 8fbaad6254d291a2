// Real pi 1.6.0 against the cache-simulating fake provider: pi's own usage and cost accounting see the
// cache-read and cache-write figures the simulation bills, priced at the catalog's claude-sonnet-4-5 rates.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { PromptCacheSim } from "./cache-sim.js";
import { disposeSandbox, makeSandbox, mainRequests, REPO_ROOT, runPrint, sessionEntries, type Sandbox } from "./harness.js";
import { cacheModelIds, catalogCost, MAIN_PRICE_MODEL, pricedModelFields } from "./priced-models.js";
import { read, say } from "./scenario-kit.js";

const TTL_SECONDS = 2;

const assistantUsages = (sb: Sandbox) => sessionEntries(sb).filter((e) => e.type === "message" && e.message.role === "assistant").map((e) => e.message.usage);

describe("pi's usage reflects the simulated prompt cache", () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await makeSandbox({
      api: "anthropic-messages",
      projectDir: REPO_ROOT,
      contextPrune: null,
      cache: new PromptCacheSim({ ttlMs: TTL_SECONDS * 1000 }),
      modelFields: pricedModelFields(TTL_SECONDS),
      script: { main: [read("package.json"), read("tsconfig.json"), say("Read both.")] },
    });
    const run = await runPrint(sb, ["read two files"], [], { withExtension: false });
    expect(run.code).toBe(0);
  });
  afterAll(() => disposeSandbox(sb));

  test("the first request writes the cache and each later one reads what the previous one wrote", () => {
    const [first, second, third] = assistantUsages(sb);
    expect(first).toMatchObject({ cacheRead: 0 });
    expect(first.cacheWrite).toBeGreaterThan(0);
    expect(second.cacheRead).toBe(first.cacheWrite);
    expect(third.cacheRead).toBe(second.cacheRead + second.cacheWrite);
    expect(mainRequests(sb).map((r) => r.cache?.prefixBreak)).toEqual([false, false, false]);
  });

  test("pi prices the usage at the catalog rates declared in models.json", () => {
    const price = catalogCost(MAIN_PRICE_MODEL);
    const second = assistantUsages(sb)[1]!;
    const expected = (second.input * price.input + second.output * price.output + second.cacheRead * price.cacheRead + second.cacheWrite * price.cacheWrite) / 1e6;
    expect(second.cost.total).toBeCloseTo(expected, 12);
    expect(second.cost.cacheRead).toBeGreaterThan(0);
  });

  test("a continued session after the TTL finds the cache expired and writes it again", async () => {
    await new Promise((r) => setTimeout(r, TTL_SECONDS * 1000 + 500));
    sb.fake.setScript({ main: [say("Back again.")] });
    const run = await runPrint(sb, ["anything new?"], ["-c"], { withExtension: false });
    expect(run.code).toBe(0);
    const last = assistantUsages(sb).at(-1)!;
    expect(last.cacheRead).toBe(0);
    expect(last.cacheWrite).toBeGreaterThan(0);
    expect(mainRequests(sb).at(-1)!.cache).toMatchObject({ expired: true, prefixBreak: false });
  });
});

describe("on the OpenAI wire, pi records the cached tokens the prefix rule reads", () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await makeSandbox({
      api: "openai-completions",
      projectDir: REPO_ROOT,
      contextPrune: null,
      cache: new PromptCacheSim({ ttlMs: TTL_SECONDS * 1000, modelIds: cacheModelIds("openai-completions") }),
      modelFields: pricedModelFields(TTL_SECONDS, "openai-completions"),
      script: { main: [read("package.json"), read("tsconfig.json"), say("Read both.")] },
    });
    const run = await runPrint(sb, ["read two files"], [], { withExtension: false });
    expect(run.code).toBe(0);
  });
  afterAll(() => disposeSandbox(sb));

  test("each later request's cacheRead is the simulation's read, in whole steps of 128 tokens, and nothing is written", () => {
    const usages = assistantUsages(sb);
    const billed = mainRequests(sb).map((r) => r.cache!);
    expect(usages).toHaveLength(3);
    expect(usages[0]).toMatchObject({ cacheRead: 0, cacheWrite: 0 });
    for (let i = 1; i < 3; i++) {
      expect(usages[i]!.cacheRead).toBe(billed[i]!.cacheReadTokens);
      expect(usages[i]!.cacheRead).toBeGreaterThanOrEqual(1024);
      expect(usages[i]!.cacheRead % 128).toBe(0);
      expect(usages[i]!.cacheWrite).toBe(0);
      expect(usages[i]!.input).toBe(billed[i]!.inputTokens);
    }
  });

  test("pi prices the read at gpt-5.1's cached-input rate", () => {
    const price = catalogCost("gpt-5.1", "openai");
    const second = assistantUsages(sb)[1]!;
    expect(second.cost.cacheRead).toBeCloseTo((second.cacheRead * price.cacheRead) / 1e6, 12);
    expect(second.cost.input).toBeCloseTo((second.input * price.input) / 1e6, 12);
  });
});
