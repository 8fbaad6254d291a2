// Issue 26 item 4: context_tree_query is declared to the model only once the session has archived something.
import { afterAll, describe, expect, mock, test } from "bun:test";
import * as actualCompat from "@earendil-works/pi-ai/compat";
import { makeAgentDir, streamReply } from "../../test/fake-host.js";
import { startSim } from "../../test/session-sim.js";

mock.module("@earendil-works/pi-ai/compat", () => ({
  ...actualCompat,
  stream: () => streamReply("- ran"),
}));

const T = await import("../names.js");

const cleanups: Array<() => void> = [];
afterAll(() => cleanups.forEach((fn) => fn()));

const NO_CHAINS = { enabled: false, rollingWindow: 0, stripFinalAssistantThinking: true, fuseRangeSummary: false };

function settings(contextPrune: Record<string, unknown> = {}): void {
  const agent = makeAgentDir({ enabled: true, minBatchChars: 0, dedupByContentHash: false, chainCompression: NO_CHAINS, ...contextPrune });
  cleanups.push(agent.cleanup);
  process.env.PI_CODING_AGENT_DIR = agent.dir;
}

const LOG = Array.from({ length: 40 }, (_, i) => `BUILD-LOG line ${i + 1}`).join("\n");
const declared = (active: string[]) => active.includes(T.QUERY_TOOL_NAME);

describe("declaring context_tree_query", () => {
  test("the tool is registered but not declared when the session starts", async () => {
    settings();
    const sim = await startSim();
    expect(sim.host.tools.map((t) => t.name)).toContain(T.QUERY_TOOL_NAME);
    expect(declared(sim.host.activeTools)).toBe(false);
  });

  test("a session whose outputs are never archived never declares it", async () => {
    settings({ pruneOn: "on-demand" });
    const sim = await startSim();
    await sim.prompt({ turns: [[{ id: "b1", text: LOG }]], final: "Built." });
    await sim.render();
    expect(declared(sim.host.activeTools)).toBe(false);
  });

  test("the flush that archives the first output declares it before the request that shows its stub", async () => {
    settings({ pruneOn: "agent-message" });
    const sim = await startSim();
    await sim.prompt({ turns: [[{ id: "b1", text: LOG }]], final: "Built." });
    expect(declared(sim.host.activeTools)).toBe(true);
    const stubbed = (await sim.render()).find((m) => m.role === "toolResult" && m.toolCallId === "b1");
    expect(JSON.stringify(stubbed)).toContain("context_tree_query");
  });

  test("a reloaded session with an archive declares it at session start", async () => {
    settings({ pruneOn: "agent-message" });
    const first = await startSim();
    await first.prompt({ turns: [[{ id: "b1", text: LOG }]], final: "Built." });
    const reloaded = await startSim({ branch: first.fake.branch });
    expect(declared(reloaded.host.activeTools)).toBe(true);
  });
});
