// Real pi 1.6.0 against the cache-simulating fake provider: pi's own usage and cost accounting see the
// cache-read and cache-write figures the simulation bills, priced at the catalog's claude-sonnet-4-5 rates.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { PromptCacheSim } from "./cache-sim.js";
import { disposeSandbox, makeSandbox, mainRequests, REPO_ROOT, runPrint, sessionEntries, type Sandbox } from "./harness.js";
import { catalogCost, MAIN_PRICE_MODEL, pricedModelFields } from "./priced-models.js";
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
