// Live sight through index.ts (issue 42, point 3): what the agent went back for is counted off the branch and
// shown by /pruner stats and status; while the rate is high the cost policy's in-run flushes leave more tool
// turns raw (one notice, a persisted entry a reload reads back), and the window narrows once the rate falls,
// at a moment that rewrites nothing.
import { afterAll, afterEach, describe, expect, mock, setSystemTime, test } from "bun:test";
import * as actualCompat from "@earendil-works/pi-ai/compat";
import { labelledSummary, makeAgentDir } from "../../test/fake-host.js";
import { type SimCall, startSim, type Sim } from "../../test/session-sim.js";

let summarizerCalls = 0;
mock.module("@earendil-works/pi-ai/compat", () => ({
  ...actualCompat,
  stream: (_model: any, context: any) => {
    summarizerCalls++;
    return labelledSummary(context);
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
const SONNET = { id: "claude-sonnet-4-5", provider: "anthropic", api: "anthropic-messages", cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }, promptCache: { short: 300 }, contextWindow: 200_000 };
const HAIKU = { id: "claude-haiku-4-5", provider: "anthropic", api: "anthropic-messages", cost: { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 }, promptCache: { short: 300 }, contextWindow: 200_000 };
const WARM = { input: 50, cacheRead: 20_000, cacheWrite: 500 };

async function started(contextPrune: Record<string, unknown> = {}, model: unknown = SONNET): Promise<Sim> {
  const agent = makeAgentDir({ enabled: true, minBatchChars: 0, dedupByContentHash: false, chainCompression: NO_CHAINS, summarizerModel: "anthropic/claude-haiku-4-5", summaries: "always", ...contextPrune });
  cleanups.push(agent.cleanup);
  process.env.PI_CODING_AGENT_DIR = agent.dir;
  const sim = await startSim({ startTs: Date.now() - 60_000 });
  (sim.ctx as any).model = model;
  (sim.ctx as any).modelRegistry.find = (provider: string, id: string) => (provider === HAIKU.provider && id === HAIKU.id ? HAIKU : undefined);
  await sim.fire("session_start", { reason: "startup" });
  return sim;
}

const SOURCE = Array.from({ length: 60 }, (_, i) => `export const value${i} = ${i};`).join("\n");
const readOf = (id: string, path = "src/a.ts", text = SOURCE): SimCall => ({ id, name: "read", args: { path }, text });
const query = (id: string, ref = "t1"): SimCall => ({ id, name: T.QUERY_TOOL_NAME, args: { toolCallIds: [ref] } });
const pruner = (sim: Sim, args: string) => sim.host.commands.get("pruner")!.handler(args, sim.ctx);
const said = (sim: Sim) => sim.fake.notices.map((n) => n.message);
const sightEntries = (sim: Sim) => sim.host.entries.filter((e) => e.customType === T.CUSTOM_TYPE_SIGHT).map((e) => e.data);
const widenNotices = (sim: Sim) => said(sim).filter((m) => m.includes("tool turns now stay raw"));
const narrowNotices = (sim: Sim) => said(sim).filter((m) => m.includes("tool turns stay raw again"));

/** Classic timing: the read of src/a.ts is archived as t1 at the final reply. */
async function archivedRead(contextPrune: Record<string, unknown> = {}): Promise<Sim> {
  const sim = await started({ flushPolicy: "classic", ...contextPrune });
  await sim.prompt({ turns: [[readOf("r1")]], final: "Read it.", usage: WARM });
  expect(summarizerCalls).toBe(1);
  return sim;
}

describe("/pruner stats and status", () => {
  test("stats says how many archived outputs the agent went back for, which refs, the price and the extra requests", async () => {
    const sim = await archivedRead();
    await sim.prompt({ turns: [[query("q1")], [readOf("r2")]], final: "ok", usage: WARM });
    await pruner(sim, "stats");
    const line = said(sim).at(-1)!.split("\n").at(-1)!;
    expect(line).toMatch(/^ {2}the agent went back for 2 archived outputs this session \(t1\): about \$0\.\d+ and 2 extra requests \(1 context_tree_query call, 1 read of a file read before\)$/);
  });

  test("with nothing gone back for, stats and status say so plainly", async () => {
    const sim = await archivedRead();
    await pruner(sim, "stats");
    expect(said(sim).at(-1)).toContain("the agent went back for no archived output this session");
    await pruner(sim, "status");
    expect(said(sim).at(-1)).toContain("--- live sight ---\n  the agent went back for no archived output this session");
  });

  test("status shows the raw window under the cost policy, and not under the classic one", async () => {
    const sim = await archivedRead();
    await pruner(sim, "status");
    expect(said(sim).at(-1)).not.toContain("raw window:");
    const cost = await started();
    await pruner(cost, "status");
    expect(said(cost).at(-1)).toContain("raw window: the latest 2 tool turns stay raw; 0 requests of the last 40 went back (0.0 per 100), it widens at 4");
  });

  test("a recovery of a ref the archive does not hold is not counted, and nothing throws", async () => {
    const sim = await archivedRead();
    await sim.prompt({ turns: [[query("q1", "t404")]], final: "ok", usage: WARM });
    await pruner(sim, "stats");
    expect(said(sim).at(-1)).toContain("the agent went back for no archived output this session");
  });

  test("the count survives a reload: it is read off the branch", async () => {
    const sim = await archivedRead();
    await sim.prompt({ turns: [[query("q1")]], final: "ok", usage: WARM });
    const again = await sim.reload();
    await pruner(again, "stats");
    expect(said(again).at(-1)).toContain("the agent went back for 1 archived output this session (t1)");
  });
});

/** A cost-policy session whose first prompt archived src/a.ts as t1 (/pruner now), then four recoveries of it. */
async function widened(model: unknown = SONNET): Promise<Sim> {
  // The working set keeps its own views raw; these tests look at the raw window alone.
  const sim = await started({ workingSetPrompts: null }, model);
  await sim.prompt({ turns: [[readOf("r1")]], final: "Read it.", usage: WARM });
  await pruner(sim, "now");
  await sim.prompt({ turns: [[query("q1")], [query("q2")], [query("q3")], [query("q4")]], final: "Recovered.", usage: WARM });
  return sim;
}

describe("the raw window", () => {
  test("widens once four of the last 40 requests went back, with one notice saying why and a persisted entry", async () => {
    const sim = await widened();
    expect(widenNotices(sim)).toEqual(["pruner: the agent went back for archived output in 4 requests of the last 40 (10.0 per 100): the latest 4 tool turns now stay raw instead of 2"]);
    expect(sightEntries(sim)).toEqual([{ widened: true, recoveries: 4, window: 40 }]);
  });

  test("widened, the in-run flush leaves the latest four tool turns raw", async () => {
    const sim = await widened();
    const reads = Array.from({ length: 16 }, (_, i) => [readOf(`w${i}`, `/src/w${i}.ts`, `w${i} `.repeat(5_000))]);
    let flushedAt = -1;
    let rendered: any[] = [];
    const turnEnd = sim.host.handlers.get("turn_end")!;
    const before = summarizerCalls;
    sim.host.handlers.set("turn_end", async (event, ctx) => {
      const out = await turnEnd(event, ctx);
      if (flushedAt < 0 && summarizerCalls > before) {
        flushedAt = event.turnIndex;
        rendered = await sim.render();
      }
      return out;
    });
    await sim.prompt({ turns: reads, usage: WARM });
    expect(flushedAt).toBeGreaterThan(4);
    const raw = (id: string) => rendered.find((m) => m.role === "toolResult" && m.toolCallId === id)?.content[0].text.startsWith(`${id} `);
    expect([4, 3, 2, 1, 0].map((back) => raw(`w${flushedAt - back}`))).toEqual([false, true, true, true, true]);
  });

  test("a reload keeps it widened without telling again", async () => {
    const sim = await widened();
    const again = await sim.reload();
    await pruner(again, "status");
    expect(said(again).at(-1)).toContain("raw window: widened, the latest 4 tool turns stay raw instead of 2");
    expect(widenNotices(again)).toEqual([]);
  });

  test("narrows once the rate falls, only where nothing waits that the widening alone kept raw, with one notice", async () => {
    // No price: the policy falls back to 2.9.1's timing, so no in-run rewrite comes to narrow it sooner.
    const sim = await widened({ id: "session-model", provider: "fake" });
    const calm = Array.from({ length: 44 }, (_, i) => [{ id: `b${i}`, name: "bash", args: { command: `echo ${i}` }, text: `${i}` }]);
    let narrowedAt = -1;
    const turnEnd = sim.host.handlers.get("turn_end")!;
    sim.host.handlers.set("turn_end", async (event, ctx) => {
      const out = await turnEnd(event, ctx);
      if (narrowedAt < 0 && narrowNotices(sim).length > 0) narrowedAt = event.turnIndex;
      return out;
    });
    await sim.prompt({ turns: calm, final: "Calm.", usage: WARM });
    // The rate fell during the run, while the run's latest outputs waited: the window narrowed at the final reply, once they were summarized.
    expect(narrowedAt).toBe(calm.length);
    expect(narrowNotices(sim)).toEqual(["pruner: the agent went back for archived output in 0 requests of the last 40 (0.0 per 100): the latest 2 tool turns stay raw again instead of 4"]);
    expect(sightEntries(sim).map((e: any) => e.widened)).toEqual([true, false]);
  });

  test("the classic policy never widens it", async () => {
    const sim = await archivedRead();
    await sim.prompt({ turns: [[query("q1")], [query("q2")], [query("q3")], [query("q4")], [query("q5")]], final: "ok", usage: WARM });
    expect(widenNotices(sim)).toEqual([]);
    expect(sightEntries(sim)).toEqual([]);
  });
});
