// Issue 45, point 17: the footer does not move on a resume with no request between.
import { afterAll, describe, expect, mock, spyOn, test } from "bun:test";
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

/** Two prompts whose every response reports `input` tokens, each prompt's outputs summarized after it by `/pruner now`. */
async function twoSummarizedPrompts(input: number): Promise<Sim> {
  const sim = await startSim({ systemPrompt: "s".repeat(4000) });
  const usage = { input, cacheRead: 0, cacheWrite: 0 };
  await sim.prompt({ turns: [[{ id: "a", text: output("A") }], [{ id: "b", text: output("B") }]], final: "A done.", usage });
  await sim.host.commands.get("pruner")!.handler("now", sim.ctx);
  await sim.prompt({ turns: [[{ id: "c", text: output("C") }]], final: "C done.", usage });
  await sim.host.commands.get("pruner")!.handler("now", sim.ctx);
  return sim;
}

describe("the footer on a resume with no request between (issue 45, point 17)", () => {
  test("shows the figure it showed before the quit, anchored on the provider's count as the live session was", async () => {
    settings({ pruneOn: "on-demand", minBatchChars: 1000 });
    const sim = await twoSummarizedPrompts(9000);
    const shown = sim.fake.lastStatus();
    expect(shown).toMatch(FIGURE);
    const resumed = await sim.reload();
    await resumed.fire("session_start", { reason: "resume" });
    expect(resumed.fake.lastStatus()).toBe(shown);
  });

  test("a session whose responses report no usage counts the system prompt, live and resumed alike", async () => {
    settings({ pruneOn: "on-demand", minBatchChars: 1000 });
    const sim = await twoSummarizedPrompts(0);
    const shown = sim.fake.lastStatus();
    const resumed = await sim.reload();
    await resumed.fire("session_start", { reason: "resume" });
    expect(resumed.fake.lastStatus()).toBe(shown);
  });

  test("an unreadable entry before the last response is reported once, not again by the anchoring", async () => {
    settings({ pruneOn: "on-demand", minBatchChars: 1000 });
    const sim = await twoSummarizedPrompts(9000);
    const at = sim.fake.branch.findIndex((entry: any) => entry.type === "message" && entry.message.role === "user");
    sim.fake.branch.splice(at + 1, 0, { type: "custom", customType: "context-prune-index", data: { toolCalls: "not a list" } });
    const errors = spyOn(console, "error").mockImplementation(() => {});
    try {
      // The reload's session_start rebuilds once.
      await sim.reload();
      const reported = errors.mock.calls.filter(([text]) => String(text).includes("skipped corrupt context-prune-index entry"));
      expect(reported).toHaveLength(1);
    } finally {
      errors.mockRestore();
    }
  });
});
