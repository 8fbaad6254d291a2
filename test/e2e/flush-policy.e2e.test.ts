// The cost policy in the real pi 1.6.0 CLI against the cache-simulating provider, with claude-sonnet-4-5's
// catalog prices and a 2-second cache lifetime: a warm cache defers a flush that does not pay, the next
// prompt after the cache expired applies it before its first request, and context pressure overrides the gate.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { PromptCacheSim } from "./cache-sim.js";
import { customEntries, disposeSandbox, makeSandbox, mainRequests, REPO_ROOT, runPiRpc, runPrint, sessionEntries, summarizerRequests, SUMMARIZER_MODEL, type Sandbox } from "./harness.js";
import { pricedModelFields } from "./priced-models.js";
import { problems, read, say } from "./scenario-kit.js";
import { toolMessages } from "./wire-view.js";

const TTL_SECONDS = 2;
const metrics = (sb: Sandbox) => customEntries(sessionEntries(sb), "context-prune-flush-metrics").map((e) => e.data);

async function pricedSandbox(contextPrune: Record<string, unknown>, main: any[]): Promise<Sandbox> {
  return makeSandbox({
    api: "anthropic-messages",
    projectDir: REPO_ROOT,
    cache: new PromptCacheSim({ ttlMs: TTL_SECONDS * 1000 }),
    modelFields: pricedModelFields(TTL_SECONDS),
    // A read can be had again, so under summaries "auto" it would be archived with no summarizer call;
    // these scenarios gate a flush that pays for one.
    contextPrune: { enabled: true, minBatchChars: 0, summaries: "always", summarizerModel: `fake/${SUMMARIZER_MODEL}`, ...contextPrune },
    script: { main },
  });
}

describe("warm cache: a flush that does not pay waits, and is applied once the cache expired", () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await pricedSandbox({}, [read("tsconfig.json"), say("Read it.")]);
    const first = await runPrint(sb, ["read the tsconfig"]);
    expect(first.code).toBe(0);
  }, 120_000);
  afterAll(() => disposeSandbox(sb));

  test("the final reply's flush is deferred: no summarizer call, a deferred entry with its figures", () => {
    expect(summarizerRequests(sb)).toHaveLength(0);
    const last = metrics(sb).at(-1);
    expect(last).toMatchObject({ trigger: "message-end", outcome: "deferred", capturedBatches: 1 });
    expect(last.decision).toMatchObject({ verdict: "defer", basis: "wait", cache: { temperature: "warm" } });
    expect(last.decision.figures.netSaving).toBeLessThan(0);
  });

  test("after the cache lifetime, the next prompt's first request already carries the stub", async () => {
    await new Promise((r) => setTimeout(r, TTL_SECONDS * 1000 + 500));
    sb.fake.setScript({ main: [say("Nothing new.")] });
    const run = await runPrint(sb, ["anything new?"], ["-c"]);
    expect(run.code).toBe(0);
    expect(summarizerRequests(sb)).toHaveLength(1);
    const request = mainRequests(sb).at(-1)!;
    expect(request.cache).toMatchObject({ expired: true });
    const [tool] = toolMessages(request);
    expect(tool.text).toContain("t1");
    expect(tool.text).not.toContain('"compilerOptions"');
    expect(metrics(sb).find((m) => m.trigger === "cache-cold")).toMatchObject({ outcome: "summarized", decision: { verdict: "apply", basis: "cold" } });
    expect(problems(sb)).toEqual([]);
  }, 120_000);
});

describe("an idle session: the cache expires while pi waits for the next prompt", () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await pricedSandbox({}, [read("tsconfig.json"), say("Read it."), say("Nothing new.")]);
    const run = await runPiRpc(sb, [
      { type: "prompt", message: "read the tsconfig" },
      { type: "prompt", message: "anything new?", pauseBeforeMs: TTL_SECONDS * 1000 + 3000 },
    ]);
    expect(run.code).toBe(0);
  }, 120_000);
  afterAll(() => disposeSandbox(sb));

  test("the deferred flush runs at the expiry, before the next prompt is sent, and that prompt's request carries the stub", () => {
    const entries = sessionEntries(sb);
    const coldAt = entries.findIndex((e) => e.customType === "context-prune-flush-metrics" && e.data.trigger === "cache-cold");
    const secondPrompt = entries.findIndex((e) => e.type === "message" && e.message.role === "user" && JSON.stringify(e.message.content).includes("anything new?"));
    expect(entries[coldAt].data).toMatchObject({ outcome: "summarized", decision: { basis: "cold" } });
    expect(coldAt).toBeLessThan(secondPrompt);
    const requests = sb.fake.requests;
    const summarizer = requests.findIndex((r) => r.kind !== "main");
    const last = mainRequests(sb).at(-1)!;
    expect(summarizer).toBeLessThan(requests.indexOf(last));
    expect(toolMessages(last)[0]!.text).toContain("t1");
  });
});

describe("context pressure overrides the gate", () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await pricedSandbox({ contextPressure: 0.001 }, [read("tsconfig.json"), say("Read it.")]);
    const run = await runPrint(sb, ["read the tsconfig"]);
    expect(run.code).toBe(0);
  }, 120_000);
  afterAll(() => disposeSandbox(sb));

  test("the same small flush is applied at the final reply, recorded as pressure", () => {
    expect(summarizerRequests(sb)).toHaveLength(1);
    expect(metrics(sb).at(-1)).toMatchObject({ trigger: "message-end", outcome: "summarized", decision: { basis: "pressure" } });
  });
});
