// The footer while outputs wait and after a reload, and the dollars /pruner status names (issue 36, point 6).
import { afterAll, describe, expect, mock, test } from "bun:test";
import * as actualCompat from "@earendil-works/pi-ai/compat";
import { labelledSummary, makeAgentDir } from "../../test/fake-host.js";
import { startSim, type Sim } from "../../test/session-sim.js";

mock.module("@earendil-works/pi-ai/compat", () => ({
  ...actualCompat,
  stream: (_model: any, context: any) => labelledSummary(context),
}));

const cleanups: Array<() => void> = [];
afterAll(() => cleanups.forEach((fn) => fn()));

function settings(contextPrune: Record<string, unknown>): void {
  const agent = makeAgentDir({ enabled: true, showPruneStatusLine: true, chainCompression: { enabled: false }, ...contextPrune });
  cleanups.push(agent.cleanup);
  process.env.PI_CODING_AGENT_DIR = agent.dir;
}

const output = (tag: string) => `${tag}\n${Array.from({ length: 300 }, (_, i) => `line ${i + 1} of ${tag}`).join("\n")}`;
const FIGURE = /^│ prune: ON · \S+->\S+ \(-\d+%\)/;

/** A session whose first prompt's output was summarized at once, so the footer has a reclaim figure. */
async function summarizedFirst(): Promise<Sim> {
  const sim = await startSim();
  await sim.prompt({ turns: [[{ id: "a", text: output("A") }]], final: "A done." });
  await sim.host.commands.get("pruner")!.handler("now", sim.ctx);
  expect(sim.fake.lastStatus()).toMatch(FIGURE);
  return sim;
}

describe("the footer while tool outputs wait", () => {
  test("an output too small for a flush is not counted as pending, and the reclaim figure stays", async () => {
    settings({ pruneOn: "on-demand", minBatchChars: 1000 });
    const sim = await summarizedFirst();
    const seen = sim.fake.statuses.length;
    await sim.prompt({ turns: [[{ id: "b", text: "ok" }]], final: "B done." });
    const texts = sim.fake.statuses.slice(seen).map((s) => s.text ?? "");
    expect(texts.filter((t) => t.includes("pending"))).toEqual([]);
    expect(sim.fake.lastStatus()).toMatch(FIGURE);
  });

  test("outputs a flush would summarize are counted after the reclaim figure, which stays in view", async () => {
    settings({ pruneOn: "on-demand", minBatchChars: 1000 });
    const sim = await summarizedFirst();
    await sim.prompt({ turns: [[{ id: "b", text: output("B") }]], final: "B done." });
    expect(sim.fake.lastStatus()).toMatch(/^│ prune: ON · \S+->\S+ \(-\d+%\) · 1 pending$/);
  });

  test("before any figure, a waiting output reads prune: 1 pending as before", async () => {
    settings({ pruneOn: "on-demand", minBatchChars: 1000 });
    const sim = await startSim();
    await sim.prompt({ turns: [[{ id: "a", text: output("A") }]], final: "A done." });
    expect(sim.fake.lastStatus()).toBe("│ prune: 1 pending");
  });
});

describe("the footer after a reload", () => {
  test("a resumed session shows the figure of its next request at once, not only prune: ON", async () => {
    settings({ pruneOn: "on-demand", minBatchChars: 1000 });
    const sim = await summarizedFirst();
    const shown = sim.fake.lastStatus();
    const resumed = await sim.reload();
    await resumed.fire("session_start", { reason: "resume" });
    expect(resumed.fake.lastStatus()).toMatch(FIGURE);
    expect(resumed.fake.lastStatus()).toBe(shown);
  });

  test("a new session starts no render and reads prune: ON", async () => {
    settings({ pruneOn: "on-demand" });
    const sim = await startSim();
    await sim.fire("session_start", { reason: "startup" });
    expect(sim.fake.lastStatus()).toBe("│ prune: ON");
  });
});
