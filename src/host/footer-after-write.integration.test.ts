// The footer after a flush and after a chain compression, before any request renders (issue 28 item 2).
import { afterAll, describe, expect, mock, test } from "bun:test";
import * as actualCompat from "@earendil-works/pi-ai/compat";
import { makeAgentDir, labelledSummary } from "../../test/fake-host.js";
import { startSim, type Sim } from "../../test/session-sim.js";

mock.module("@earendil-works/pi-ai/compat", () => ({
  ...actualCompat,
  stream: (_model: any, context: any) => labelledSummary(context),
}));

const cleanups: Array<() => void> = [];
afterAll(() => cleanups.forEach((fn) => fn()));

function settings(contextPrune: Record<string, unknown>): void {
  const agent = makeAgentDir({ enabled: true, minBatchChars: 1, ...contextPrune });
  cleanups.push(agent.cleanup);
  process.env.PI_CODING_AGENT_DIR = agent.dir;
}

const output = (tag: string) => `${tag}\n${Array.from({ length: 400 }, (_, i) => `line ${i + 1} of ${tag}`).join("\n")}`;
const pruner = (sim: Sim, args: string) => sim.host.commands.get("pruner")!.handler(args, sim.ctx);

/** The footer the next request sets: the reference every earlier footer must already show. */
async function footerOfNextRequest(sim: Sim): Promise<string | undefined> {
  await sim.render();
  return sim.fake.lastStatus();
}

describe("the footer right after a write", () => {
  test("shows the figure of the next request once a flush has summarized, before that request renders", async () => {
    settings({ chainCompression: { enabled: false } });
    const sim = await startSim();
    await sim.prompt({ turns: [[{ id: "a", text: output("A") }, { id: "b", text: output("B") }]], final: "Done." });
    await pruner(sim, "status");
    const afterFlush = sim.fake.lastStatus();
    expect(afterFlush).toMatch(/prune: ON · .*->.* \(-\d+%\)/);
    expect(afterFlush).toBe(await footerOfNextRequest(sim));
  });

  test("shows the figure of the next request once a chain compression has written, before that request renders", async () => {
    settings({ chainCompression: { enabled: true, rollingWindow: 0, stripFinalAssistantThinking: true, fuseRangeSummary: false } });
    const sim = await startSim();
    await sim.prompt({ turns: [[{ id: "a", text: output("A") }]], final: "First done." });
    await sim.prompt({ turns: [[{ id: "b", text: output("B") }]], final: "Second done." });
    await pruner(sim, "status");
    const chains = sim.host.entries.filter((e) => e.customType === "context-prune-chain");
    expect(chains.length).toBeGreaterThan(0);
    expect(sim.fake.lastStatus()).toBe(await footerOfNextRequest(sim));
  });

  test("shows the figure of the next request after /pruner compact", async () => {
    settings({ chainCompression: { enabled: true, rollingWindow: 5, stripFinalAssistantThinking: true, fuseRangeSummary: false } });
    const sim = await startSim();
    await sim.prompt({ turns: [[{ id: "a", text: output("A") }]], final: "First done." });
    await sim.prompt({ turns: [[{ id: "b", text: output("B") }]], final: "Second done." });
    await sim.render();
    const beforeCompact = sim.fake.lastStatus();
    await pruner(sim, "compact");
    expect(sim.host.entries.some((e) => e.customType === "context-prune-chain")).toBe(true);
    const afterCompact = sim.fake.lastStatus();
    expect(afterCompact).not.toBe(beforeCompact);
    expect(afterCompact).toBe(await footerOfNextRequest(sim));
  });
});
