// No output stranded behind the frontier: a flush that takes only some of the waiting batches (the cost
// policy's in-run flush takes the running prompt's) never moves the frontier past a batch it did not
// attempt, so the outputs of a run that ended without a final reply (an error or aborted stop) stay
// waiting until a later flush takes them.
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
const SONNET = { id: "claude-sonnet-4-5", provider: "anthropic", api: "anthropic-messages", cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }, promptCache: { short: 300 }, contextWindow: 200_000 };
const WARM = { input: 50, cacheRead: 20_000, cacheWrite: 500 };

async function started(contextPrune: Record<string, unknown> = {}): Promise<Sim> {
  const agent = makeAgentDir({ enabled: true, minBatchChars: 0, dedupByContentHash: false, chainCompression: NO_CHAINS, ...contextPrune });
  cleanups.push(agent.cleanup);
  process.env.PI_CODING_AGENT_DIR = agent.dir;
  const sim = await startSim({ startTs: Date.now() - 60_000 });
  (sim.ctx as any).model = SONNET;
  await sim.fire("session_start", { reason: "startup" });
  return sim;
}

const read = (id: string, chars: number): SimCall => ({ id, name: "read", args: { path: `/src/${id}.ts` }, text: `${id} `.repeat(chars / (id.length + 1)) });
const metrics = (sim: Sim) => sim.host.entries.filter((e) => e.customType === T.CUSTOM_TYPE_FLUSH_METRICS).map((e) => e.data);
const archivedIds = (sim: Sim) =>
  new Set(sim.fake.branch.filter((e: any) => e.type === "custom" && e.customType === T.CUSTOM_TYPE_INDEX).flatMap((e: any) => e.data.toolCalls.map((c: any) => c.toolCallId)));
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

/** A run of reads that ends in a stopped assistant message: no final reply, so no final-reply flush. */
const stoppedRun = (reason: "error" | "aborted") => ({
  turns: [[read("s1", 3_000)], [read("s2", 3_000)], [read("s3", 3_000)]],
  usage: WARM,
  stopped: { reason, calls: [read("s4", 0)] },
});
/** A long run whose older outputs the cost policy summarizes within the run. */
const longRun = () => ({ turns: Array.from({ length: 16 }, (_, i) => [read(`r${i}`, 20_000)]), usage: WARM });

describe("a run that ends in a stopped turn", () => {
  for (const reason of ["error", "aborted"] as const) {
    test(`its outputs (${reason} stop) are still waiting after the next run's in-run flush, and /pruner now archives them`, async () => {
      const sim = await started();
      await sim.prompt(stoppedRun(reason));
      await sim.prompt(longRun());
      await settle();
      expect(metrics(sim).some((m) => m.trigger === "in-run" && m.outcome === "summarized")).toBe(true);
      await sim.host.commands.get("pruner").handler("now", sim.ctx);
      await settle();
      const archived = archivedIds(sim);
      for (const id of ["s1", "s2", "s3"]) expect(archived.has(id)).toBe(true);
    });
  }

  test("no frontier entry passes the earlier run's outputs before they are archived", async () => {
    const sim = await started();
    await sim.prompt(stoppedRun("error"));
    await sim.prompt(longRun());
    await settle();
    const archived = new Set<string>();
    let frontiers = 0;
    for (const e of sim.fake.branch as any[]) {
      if (e.type !== "custom") continue;
      if (e.customType === T.CUSTOM_TYPE_INDEX) for (const c of e.data.toolCalls) archived.add(c.toolCallId);
      if (e.customType !== T.CUSTOM_TYPE_FRONTIER) continue;
      frontiers++;
      expect(["s1", "s2", "s3"].filter((id) => !archived.has(id))).toEqual([]);
    }
    expect(frontiers + metrics(sim).filter((m) => m.trigger === "in-run").length).toBeGreaterThan(0);
  });

  test("a small output the in-run flush left as it is past the waiting ones is not handled again", async () => {
    const sim = await started({ minBatchChars: 1_000 });
    await sim.prompt(stoppedRun("error"));
    const run = longRun();
    run.turns.unshift([read("tiny", 400)]);
    await sim.prompt(run);
    await settle();
    await sim.host.commands.get("pruner").handler("now", sim.ctx);
    await settle();
    const lines = sim.fake.notices.map((n) => n.message);
    expect(lines.filter((l: string) => l.includes("small output")).length).toBe(1);
  });
});
