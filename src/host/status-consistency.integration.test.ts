// /pruner status does not contradict itself (issue 45, point 13), through index.ts: a flush of outputs all
// under the minimum batch size is not called "summarized", a deferral whose work a command took is no longer
// shown as waiting, and the requests a rewrite is weighed over are whole.
import { afterAll, describe, expect, mock, test } from "bun:test";
import * as actualCompat from "@earendil-works/pi-ai/compat";
import { makeAgentDir, streamReply } from "../../test/fake-host.js";
import { type SimCall, startSim, type Sim } from "../../test/session-sim.js";

mock.module("@earendil-works/pi-ai/compat", () => ({
  ...actualCompat,
  stream: (_model: any, context: any) => {
    const prompt: string = context.messages[0].content[0].text;
    const labels = [...new Set(prompt.match(/\[\[\d+:[^\]\s]+\]\]/g) ?? [])];
    return streamReply(labels.map((l) => `- ${l} ran`).join("\n") || "- summary");
  },
}));

const cleanups: Array<() => void> = [];
afterAll(() => cleanups.forEach((fn) => fn()));

const NO_CHAINS = { enabled: false, rollingWindow: 3, stripFinalAssistantThinking: true, fuseRangeSummary: false };
/** claude-sonnet-4-5's and claude-haiku-4-5's catalog entries as pi-ai ships them. */
const SONNET = { id: "claude-sonnet-4-5", provider: "anthropic", api: "anthropic-messages", cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }, promptCache: { short: 300 }, contextWindow: 200_000 };
const HAIKU = { id: "claude-haiku-4-5", provider: "anthropic", api: "anthropic-messages", cost: { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 }, promptCache: { short: 300 }, contextWindow: 200_000 };
const WARM = { input: 50, cacheRead: 20_000, cacheWrite: 500 };

async function started(contextPrune: Record<string, unknown> = {}): Promise<Sim> {
  const agent = makeAgentDir({ enabled: true, minBatchChars: 0, dedupByContentHash: false, chainCompression: NO_CHAINS, summarizerModel: "anthropic/claude-haiku-4-5", summaries: "always", ...contextPrune });
  cleanups.push(agent.cleanup);
  process.env.PI_CODING_AGENT_DIR = agent.dir;
  const sim = await startSim({ startTs: Date.now() - 60_000 });
  (sim.ctx as any).model = SONNET;
  (sim.ctx as any).modelRegistry.find = (provider: string, id: string) => (provider === HAIKU.provider && id === HAIKU.id ? HAIKU : undefined);
  await sim.fire("session_start", { reason: "startup" });
  return sim;
}

const read = (id: string, chars: number): SimCall => ({ id, name: "read", args: { path: `/src/${id}.ts` }, text: `${id} `.repeat(chars / (id.length + 1)) });
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

async function status(sim: Sim): Promise<string> {
  await sim.host.commands.get("pruner").handler("status", sim.ctx);
  return sim.fake.notices.at(-1)!.message;
}

describe("/pruner status agrees with itself", () => {
  test("outputs all under the minimum batch size are left as they are, and the last decision does not say summarized", async () => {
    const sim = await started({ minBatchChars: 100_000 });
    await sim.prompt({ turns: [[read("a", 2_000)]], usage: WARM });
    await settle();
    const expected = "last decision: nothing rewritten, because the waiting outputs are all under the minimum batch size, so they stay as they are";
    expect(await status(sim)).toContain(expected);
    expect(await status(await sim.reload())).toContain(expected);
  });

  test("once /pruner now has taken the waiting outputs, no bound on waiting is shown for them", async () => {
    const sim = await started({ minBatchChars: 1_000 });
    await sim.prompt({ turns: [[read("a", 2_000)]], usage: WARM });
    await settle();
    expect(await status(sim)).toContain("bound on waiting (waiting outputs)");
    await sim.host.commands.get("pruner").handler("now", sim.ctx);
    await settle();
    expect(await status(sim)).not.toContain("bound on waiting");
  });

  test("right after /pruner compact compressed the deferred prompts, no bound on waiting is shown for them", async () => {
    const sim = await started({ chainCompression: { enabled: true, rollingWindow: 1, stripFinalAssistantThinking: true, fuseRangeSummary: false } });
    for (let p = 0; p < 2; p++) {
      await sim.prompt({ turns: [[read(`a${p}`, 300)], [read(`b${p}`, 300)]], usage: { input: 50, cacheRead: 2_000 + p * 500, cacheWrite: 500 } });
      await settle();
    }
    expect(await status(sim)).toContain("bound on waiting (earlier prompts' work left uncompressed)");
    await sim.host.commands.get("pruner").handler("compact", sim.ctx);
    expect(sim.fake.notices.at(-1)!.message).toStartWith("pruner: compressed the work of");
    expect(await status(sim)).not.toContain("bound on waiting (earlier prompts' work left uncompressed)");
  });

  test("the requests a rewrite is weighed over are a whole number", async () => {
    const sim = await started({ minBatchChars: 1_000 });
    await sim.prompt({ turns: [[read("a", 2_000)]], usage: WARM });
    await settle();
    const text = await status(sim);
    expect(text).toMatch(/over (about \d+ more requests?|less than one more request)/);
    expect(text).not.toMatch(/\d\.\d more request/);
  });
});
