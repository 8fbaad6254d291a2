// pi's cache warming through index.ts: `cache_warming_decision` is answered "stop" only when the next request
// rewrites what the refresh would keep warm (an archive write since the last request) and pi's own rule,
// asked again for the part that request still reads, says stop; otherwise pi decides. A new thinking level on
// an Anthropic model, or a new model, makes the cache cold at once.
import { afterAll, describe, expect, test } from "bun:test";
import { getBuiltinModel } from "@earendil-works/pi-ai/providers/all";
import { assistantText, assistantWithTools, makeAgentDir, msgEntry, user } from "../../test/fake-host.js";
import { startSim, type Sim } from "../../test/session-sim.js";
import { CUSTOM_TYPE_INDEX } from "../names.js";

const cleanups: Array<() => void> = [];
afterAll(() => cleanups.forEach((fn) => fn()));

const SONNET = getBuiltinModel("anthropic", "claude-sonnet-4-5");
const WARM = { type: "cache_warming_decision", warmCost: 0.03, missCost: 0.35, continuationProbability: 0.15, action: "warm" } as const;
const USAGE = { input: 5, output: 10, cacheRead: 150_000, cacheWrite: 400, totalTokens: 150_415 };

/** A session whose one prompt read `before` chars of files and then a 400k-char output; the reply's usage as Anthropic reports it. */
async function session(contextPrune: Record<string, unknown>, before: number, model: unknown = SONNET, at = 1_000): Promise<Sim> {
  const agent = makeAgentDir({ enabled: true, ...contextPrune });
  cleanups.push(agent.cleanup);
  process.env.PI_CODING_AGENT_DIR = agent.dir;
  const branch = [
    msgEntry(user(at, "look at the files")),
    msgEntry({ ...assistantWithTools(at + 10, [{ id: "early", name: "read" }]), usage: USAGE }),
    msgEntry({ role: "toolResult", toolCallId: "early", toolName: "read", content: [{ type: "text", text: "e".repeat(before) }], isError: false, timestamp: at + 11 }),
    msgEntry({ ...assistantWithTools(at + 20, [{ id: "big", name: "bash", args: { command: "cat huge.log" } }]), usage: USAGE }),
    msgEntry({ role: "toolResult", toolCallId: "big", toolName: "bash", content: [{ type: "text", text: "x".repeat(400_000) }], isError: false, timestamp: at + 21 }),
    msgEntry({ ...assistantText(at + 30, "Read them."), usage: USAGE }),
  ];
  const sim = await startSim({ branch });
  (sim.ctx as any).model = model;
  (sim.ctx as any).isIdle = () => true;
  await sim.fire("session_start", { type: "session_start", reason: "startup" });
  return sim;
}

/** The index entry a flush writes after the reply: `big` archived, so the next request rewrites from it. */
function archiveBig(sim: Sim): void {
  const record = { toolCallId: "big", toolName: "bash", args: { command: "cat huge.log" }, resultText: "x", isError: false, turnIndex: 1, timestamp: 1_020, resultTimestamp: 1_021 };
  sim.fake.branch.push({ type: "custom", customType: CUSTOM_TYPE_INDEX, data: { toolCalls: [record], refs: [{ shortId: "t1", toolCallId: "big", resultTimestamp: 1_021 }] } });
}

const decide = (sim: Sim, event: Record<string, unknown> = WARM) => sim.fire("cache_warming_decision", event);

describe("cache_warming_decision", () => {
  test("stops a refresh when the next request rewrites from an output near the start, so it would read too little of it", async () => {
    const sim = await session({}, 2_000);
    archiveBig(sim);
    expect(await decide(sim)).toEqual({ action: "stop" });
    await sim.host.commands.get("pruner")!.handler("status", sim.ctx);
    expect(JSON.stringify(sim.fake.notices)).toContain("pi's cache warming: 1 refresh stopped (the next request rewrote the part it would keep warm)");
  });

  test("lets pi decide when nothing was archived since the last request", async () => {
    const sim = await session({}, 2_000);
    expect(await decide(sim)).toBeUndefined();
  });

  test("lets pi decide when the part before the rewrite is worth keeping warm by pi's own rule", async () => {
    // 1.2M chars (about 300k tokens) before the rewrite point: pi's idle rule still warms that at Sonnet's prices.
    const sim = await session({}, 1_200_000);
    archiveBig(sim);
    expect(await decide(sim)).toBeUndefined();
  });

  test("leaves pi's own stop alone, and decides nothing under the classic policy or with pruning off", async () => {
    const stopped = await session({}, 2_000);
    archiveBig(stopped);
    expect(await decide(stopped, { ...WARM, action: "stop" })).toBeUndefined();
    for (const settings of [{ flushPolicy: "classic" }, { enabled: false }]) {
      const sim = await session(settings, 2_000);
      archiveBig(sim);
      expect(await decide(sim)).toBeUndefined();
    }
  });
});

describe("changes the provider keys its cache on", () => {
  const status = async (sim: Sim) => {
    await sim.host.commands.get("pruner")!.handler("status", sim.ctx);
    return JSON.stringify(sim.fake.notices) + JSON.stringify(sim.host.entries);
  };

  test("a new thinking level on an Anthropic model makes the cache cold before its lifetime ran out", async () => {
    const sim = await session({}, 2_000, SONNET, Date.now() - 60_000);
    expect(await status(sim)).toContain("cache: warm");
    await sim.fire("thinking_level_select", { type: "thinking_level_select", level: "high", previousLevel: "off" });
    expect(await status(sim)).toContain("cache: cold (the model, thinking level or context changed since the last request)");
  });

  test("a new thinking level on a longest-prefix model leaves the cache as it was; a new model does not", async () => {
    const gpt = getBuiltinModel("openai", "gpt-5.1");
    const sim = await session({}, 2_000, gpt, Date.now() - 60_000);
    await sim.fire("thinking_level_select", { type: "thinking_level_select", level: "high", previousLevel: "off" });
    expect(await status(sim)).toContain("cache: warm");
    await sim.fire("model_select", { type: "model_select", model: gpt, source: "set" });
    expect(await status(sim)).toContain("cache: cold (the model, thinking level");
  });
});
