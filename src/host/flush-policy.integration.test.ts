// The cost policy through index.ts: a warm cache defers a flush that does not pay and an expired one
// applies it before the next request; context pressure overrides the gate; a long run summarizes its
// older outputs once that pays; the classic policy and unpriced models decide as 2.9.1 did.
import { afterAll, afterEach, describe, expect, mock, setSystemTime, test } from "bun:test";
import * as actualCompat from "@earendil-works/pi-ai/compat";
import { makeAgentDir, streamReply } from "../../test/fake-host.js";
import { type SimCall, startSim, type Sim } from "../../test/session-sim.js";

let summarizerCalls = 0;
mock.module("@earendil-works/pi-ai/compat", () => ({
  ...actualCompat,
  stream: (_model: any, context: any) => {
    summarizerCalls++;
    const prompt: string = context.messages[0].content[0].text;
    const labels = [...new Set(prompt.match(/\[\[\d+:[^\]\s]+\]\]/g) ?? [])];
    return streamReply(labels.map((l) => `- ${l} ran`).join("\n") || "- summary");
  },
}));

const T = await import("../names.js");

const cleanups: Array<() => void> = [];
afterAll(() => cleanups.forEach((fn) => fn()));
afterEach(() => {
  setSystemTime();
  summarizerCalls = 0;
});

const NO_CHAINS = { enabled: false, rollingWindow: 3, stripFinalAssistantThinking: true, fuseRangeSummary: false };
/** claude-sonnet-4-5's catalog entry as pi-ai ships it (dollars per million tokens, cache lifetime in seconds). */
const SONNET = { id: "claude-sonnet-4-5", provider: "anthropic", api: "anthropic-messages", cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }, promptCache: { short: 300 }, contextWindow: 200_000 };
const HAIKU = { id: "claude-haiku-4-5", provider: "anthropic", api: "anthropic-messages", cost: { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 }, promptCache: { short: 300 }, contextWindow: 200_000 };
/** What a provider with a warm cache reports for each request. */
const WARM = { input: 50, cacheRead: 20_000, cacheWrite: 500 };

async function started(contextPrune: Record<string, unknown> = {}, model: unknown = SONNET): Promise<Sim> {
  // The policy decides when to summarize; these reads are summarized whenever it does (`summaries: "always"`).
  const agent = makeAgentDir({ enabled: true, minBatchChars: 0, dedupByContentHash: false, chainCompression: NO_CHAINS, summarizerModel: "anthropic/claude-haiku-4-5", summaries: "always", ...contextPrune });
  cleanups.push(agent.cleanup);
  process.env.PI_CODING_AGENT_DIR = agent.dir;
  // Requests a minute ago: the cache is warm now.
  const sim = await startSim({ startTs: Date.now() - 60_000 });
  (sim.ctx as any).model = model;
  (sim.ctx as any).modelRegistry.find = (provider: string, id: string) => (provider === HAIKU.provider && id === HAIKU.id ? HAIKU : undefined);
  await sim.fire("session_start", { reason: "startup" });
  return sim;
}

const read = (id: string, chars: number): SimCall => ({ id, name: "read", args: { path: `/src/${id}.ts` }, text: `${id} `.repeat(chars / (id.length + 1)) });
const metrics = (sim: Sim) => sim.host.entries.filter((e) => e.customType === T.CUSTOM_TYPE_FLUSH_METRICS).map((e) => e.data);
const resultText = (messages: any[], id: string) => messages.find((m) => m.role === "toolResult" && m.toolCallId === id)?.content[0].text as string;
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe("warm cache", () => {
  test("a flush that does not pay yet is deferred, and the decision is recorded with its figures", async () => {
    const sim = await started();
    await sim.prompt({ turns: [[read("a", 2_000)]], usage: WARM });
    await settle();
    expect(summarizerCalls).toBe(0);
    const deferred = metrics(sim).at(-1);
    expect(deferred).toMatchObject({ trigger: "message-end", outcome: "deferred", capturedBatches: 1, processedBatches: 0 });
    expect(deferred.decision).toMatchObject({ verdict: "defer", basis: "wait", cache: { temperature: "warm" } });
    expect(deferred.decision.figures.removedTokens).toBeGreaterThan(0);
    expect(resultText(await sim.render(), "a")).toStartWith("a a a");
  });

  test("once the cache has expired, the next request summarizes the deferred outputs first", async () => {
    const sim = await started();
    await sim.prompt({ turns: [[read("a", 2_000)]], usage: WARM });
    await settle();
    setSystemTime(new Date(Date.now() + 10 * 60_000));
    const rendered = await sim.render();
    expect(summarizerCalls).toBe(1);
    expect(resultText(rendered, "a")).not.toStartWith("a a a");
    expect(metrics(sim).at(-1)).toMatchObject({ trigger: "cache-cold", outcome: "summarized", decision: { verdict: "apply", basis: "cold" } });
  });
});

describe("the bound on waiting", () => {
  const tiny = (id: string): SimCall => ({ id, name: "bash", args: { command: `echo ${id}` }, text: id });

  test("outputs a final reply left waiting are summarized once waiting has cost what summarizing owed", async () => {
    const sim = await started({ minBatchChars: 1_000 });
    await sim.prompt({ turns: [[read("a", 2_000)]], usage: WARM });
    await settle();
    expect(metrics(sim).at(-1).decision).toMatchObject({ basis: "wait", bound: { paid: 0 } });
    for (let p = 0; p < 5 && !metrics(sim).some((m) => m.decision?.basis === "bound"); p++) {
      await sim.prompt({ turns: [[tiny(`t${p}`)]], usage: WARM });
      await settle();
    }
    const bound = metrics(sim).find((m) => m.decision?.basis === "bound");
    expect(bound).toMatchObject({ outcome: "summarized", decision: { verdict: "apply" } });
    expect(bound.decision.bound.paid).toBeGreaterThan(0);
    expect(bound.decision.bound.paid).toBeLessThanOrEqual(bound.decision.bound.owed);
    expect(resultText(await sim.render(), "a")).not.toStartWith("a a a");
  });

  test("/pruner status shows what waiting has cost so far against what the rewrite owed", async () => {
    const sim = await started({ minBatchChars: 1_000 });
    await sim.prompt({ turns: [[read("a", 2_000)]], usage: WARM });
    await settle();
    await sim.host.commands.get("pruner").handler("status", sim.ctx);
    expect(sim.fake.notices.at(-1)!.message).toMatch(/bound on waiting \(waiting outputs\): \$[\d.]+ paid of the \$[\d.]+ the rewrite owed; it is made once that is reached/);
  });

  test("moving in the session tree starts the accounts afresh: the next wait has paid nothing yet", async () => {
    const sim = await started({ minBatchChars: 1_000 });
    await sim.prompt({ turns: [[read("a", 2_000)]], usage: WARM });
    await settle();
    await sim.fire("session_tree", {});
    await sim.prompt({ turns: [[tiny("t1")]], usage: WARM });
    await settle();
    expect(metrics(sim).at(-1).decision).toMatchObject({ basis: "wait", bound: { paid: 0 } });
  });
});

describe("a tool that runs past the cache's lifetime", () => {
  test("the cold flush before the next request leaves the outputs no request has carried yet raw", async () => {
    const sim = await started();
    await sim.prompt({ turns: [[read("a", 2_000)]], usage: WARM });
    await settle();
    expect(metrics(sim).at(-1).outcome).toBe("deferred");
    let toolTurns = 0;
    let sent: any[] | undefined;
    const turnEnd = sim.host.handlers.get("turn_end")!;
    sim.host.handlers.set("turn_end", async (event, ctx) => {
      const out = await turnEnd(event, ctx);
      // The tool of the prompt's first turn took ten minutes: the cache expired before its output was sent.
      if (event.toolResults?.length && ++toolTurns === 1) setSystemTime(new Date(Date.now() + 10 * 60_000));
      return out;
    });
    const context = sim.host.handlers.get("context")!;
    sim.host.handlers.set("context", async (event, ctx) => {
      const out = await context(event, ctx);
      if (toolTurns === 1 && !sent) sent = (out as { messages?: any[] } | undefined)?.messages ?? event.messages;
      return out;
    });
    await sim.prompt({ turns: [[read("b", 2_000)], [read("c", 2_000)]], usage: WARM });
    expect(metrics(sim).some((m) => m.trigger === "cache-cold")).toBe(true);
    expect(resultText(sent!, "a")).not.toStartWith("a a a");
    expect(resultText(sent!, "b")).toStartWith("b b b");
  });
});

describe("context pressure", () => {
  test("near the window the final reply flushes whatever the cache says", async () => {
    const sim = await started();
    sim.fake.setUsage(200_000);
    await sim.prompt({ turns: [[read("a", 2_000)]], usage: WARM });
    await settle();
    expect(summarizerCalls).toBe(1);
    expect(metrics(sim).at(-1)).toMatchObject({ trigger: "message-end", outcome: "summarized", decision: { basis: "pressure" } });
  });
});

describe("a long run", () => {
  test("older outputs are summarized within the run once that pays, the latest two tool turns stay raw", async () => {
    // Sixteen files read in one run are all in the working set, whose hiding the policy charges: measured without it.
    const sim = await started({ workingSetPrompts: null });
    const turns = Array.from({ length: 16 }, (_, i) => [read(`r${i}`, 20_000)]);
    let flushedAt = -1;
    let statusesAtFlush = -1;
    const turnEnd = sim.host.handlers.get("turn_end")!;
    sim.host.handlers.set("turn_end", async (event, ctx) => {
      const out = await turnEnd(event, ctx);
      if (flushedAt < 0 && summarizerCalls > 0) {
        flushedAt = event.turnIndex;
        statusesAtFlush = sim.fake.statuses.length;
      }
      return out;
    });
    await sim.prompt({ turns, usage: WARM });
    expect(flushedAt).toBeGreaterThan(1);
    expect(flushedAt).toBeLessThan(15);
    const inRun = metrics(sim).find((m) => m.trigger === "in-run");
    expect(inRun).toMatchObject({ outcome: "summarized", decision: { basis: "pays" } });
    // Turns 0 .. flushedAt - 2 at most: the outputs of the two latest tool turns were left raw.
    expect(inRun.processedBatches).toBeLessThanOrEqual(flushedAt - 1);
    // The next tool turn queues its batch behind the two left raw: the footer counts three.
    const next = sim.fake.statuses.slice(statusesAtFlush).map((st) => /(\d+) pending/.exec(st.text ?? "")?.[1]).find(Boolean);
    expect(next).toBe("3");
  });
});

describe("closed chains on a warm cache", () => {
  test("are compressed only once that pays too, and the verdict is recorded", async () => {
    const chains = { enabled: true, rollingWindow: 1, stripFinalAssistantThinking: true, fuseRangeSummary: false };
    const sim = await started({ chainCompression: chains });
    for (let p = 0; p < 12; p++) await sim.prompt({ turns: [[read(`p${p}a`, 8_000)], [read(`p${p}b`, 8_000)]], usage: WARM });
    await settle();
    const weighed = metrics(sim).filter((m) => m.decision?.chains);
    expect(weighed.length).toBeGreaterThan(0);
    const firstApplied = weighed.findIndex((m) => m.decision.chains.verdict === "apply");
    expect(firstApplied).toBeGreaterThan(0);
    expect(weighed.slice(0, firstApplied).every((m) => m.decision.chains.verdict === "defer" && m.decision.chains.netSaving <= 0)).toBe(true);
    expect(sim.host.entries.some((e) => e.customType === T.CUSTOM_TYPE_CHAIN)).toBe(true);
  });
});

describe("fallbacks", () => {
  test("the classic policy flushes at every final reply and records no decision", async () => {
    const sim = await started({ flushPolicy: "classic" });
    await sim.prompt({ turns: [[read("a", 2_000)]], usage: WARM });
    await settle();
    expect(summarizerCalls).toBe(1);
    expect(metrics(sim).at(-1).decision).toBeUndefined();
  });

  test("a model with no price flushes as 2.9.1 did and says so once", async () => {
    const sim = await started({}, { id: "llama", provider: "local", api: "openai-completions" });
    await sim.prompt({ turns: [[read("a", 2_000)]], usage: WARM });
    await sim.prompt({ turns: [[read("b", 2_000)]], usage: WARM });
    await settle();
    expect(summarizerCalls).toBe(2);
    const told = sim.fake.notices.filter((n) => n.message.includes("has no price in the catalog"));
    expect(told.map((n) => n.message)).toEqual(["pruner: local/llama has no price in the catalog: summarizing at the agent's final reply, as the classic policy does"]);
  });

  test("a provider that reports no cache use flushes as 2.9.1 did", async () => {
    const sim = await started();
    await sim.prompt({ turns: [[read("a", 2_000)]], usage: { input: 20_000, cacheRead: 0, cacheWrite: 0 } });
    await settle();
    expect(summarizerCalls).toBe(1);
    expect(metrics(sim).at(-1).decision).toMatchObject({ basis: "fallback", reason: "the provider reports no cache use: summarizing at the agent's final reply, as the classic policy does" });
  });

  test("a clock that went backwards falls back instead of throwing", async () => {
    const sim = await started();
    await sim.prompt({ turns: [[read("a", 2_000)]], usage: WARM });
    setSystemTime(new Date(Date.now() - 3_600_000));
    await sim.prompt({ turns: [[read("b", 2_000)]], usage: WARM });
    await settle();
    expect(metrics(sim).at(-1).decision).toMatchObject({ basis: "fallback", reason: "the clock went backwards: summarizing at the agent's final reply, as the classic policy does" });
  });
});

describe("/pruner status", () => {
  test("shows the cache state, what the waiting outputs would save and the last decision", async () => {
    const sim = await started();
    await sim.prompt({ turns: [[read("a", 2_000)]], usage: WARM });
    await settle();
    await sim.host.commands.get("pruner").handler("status", sim.ctx);
    const text = sim.fake.notices.at(-1)!.message;
    expect(text).toContain("--- prompt cache and flush policy ---");
    expect(text).toContain("policy: cost (summarize when it pays)");
    expect(text).toMatch(/cache: warm, expires in \d+ min \d+ s; last request \d+% from the cache/);
    expect(text).toMatch(/waiting outputs: about \d+ tokens removable, \$[\d.]+ per request/);
    expect(text).toContain("last decision: waited, because summarizing now would cost");
  });

  test("with pruning on and summaries only on demand it names that as the reason the policy decides nothing", async () => {
    const sim = await started({ pruneOn: "on-demand" });
    await sim.host.commands.get("pruner").handler("status", sim.ctx);
    const text = sim.fake.notices.at(-1)!.message;
    expect(text).toContain("  Enabled:                  true\n");
    expect(text).toContain("policy: cost (deciding nothing: tool outputs are summarized only on /pruner now)");
  });

  test("with pruning off it says pruning is off", async () => {
    const sim = await started({ enabled: false });
    await sim.host.commands.get("pruner").handler("status", sim.ctx);
    expect(sim.fake.notices.at(-1)!.message).toContain("policy: cost (deciding nothing: pruning is off)");
  });
});

describe("the cache rule behind each decision", () => {
  const longRun = () => Array.from({ length: 12 }, (_, i) => [read(`r${i}`, 2_000)]);

  test("on Anthropic without the spare breakpoint a rewrite more than 20 blocks back re-sends what lies before it", async () => {
    const sim = await started({ cacheBreakpoint: false });
    // An earlier rewrite declared the recovery tool already; four calls a turn reach past 20 blocks in three turns.
    sim.host.activeTools.push("context_tree_query");
    await sim.prompt({ turns: Array.from({ length: 8 }, (_, i) => [0, 1, 2, 3].map((j) => read(`r${i}x${j}`, 800))), usage: WARM });
    await settle();
    const figures = metrics(sim).find((m) => m.decision?.figures).decision.figures;
    expect(figures).toMatchObject({ cacheRule: "anthropic-breakpoints", breakpoint: false });
    expect(figures.rereadTokens).toBeGreaterThan(0);
  });

  test("with the spare breakpoint on the same rewrite re-sends nothing before it", async () => {
    const sim = await started();
    // An earlier rewrite declared the recovery tool already.
    sim.host.activeTools.push("context_tree_query");
    await sim.prompt({ turns: longRun(), usage: WARM });
    await settle();
    expect(metrics(sim).at(-1).decision.figures).toMatchObject({ cacheRule: "anthropic-breakpoints", breakpoint: true, rereadTokens: 0 });
  });

  test("the session's first rewrite also declares the recovery tool, so it re-sends what lies before it, spare breakpoint or not", async () => {
    const sim = await started();
    await sim.prompt({ turns: longRun(), usage: WARM });
    await settle();
    const decision = metrics(sim).find((m) => m.decision?.figures).decision;
    expect(decision.figures.rereadTokens).toBeGreaterThan(0);
  });

  test("/pruner status names the rule: Anthropic's with the breakpoint's state, the longest prefix elsewhere", async () => {
    const anthropic = await started({ cacheBreakpoint: false });
    await anthropic.host.commands.get("pruner").handler("status", anthropic.ctx);
    expect(anthropic.fake.notices.at(-1)!.message).toContain("cache rule: Anthropic breakpoints (20-block lookback), spare breakpoint off");
    const openai = await started({}, { ...SONNET, id: "gpt-5", provider: "openai", api: "openai-responses" });
    await openai.host.commands.get("pruner").handler("status", openai.ctx);
    expect(openai.fake.notices.at(-1)!.message).toContain("cache rule: longest shared prefix");
  });
});
