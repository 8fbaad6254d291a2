// What a flush and /pruner compact tell the user, through index.ts (issue 45): the write arguments markers
// replace are counted (point 14), and compressed prompts are named by their places, not by block ids (point 12).
import { afterAll, describe, expect, mock, test } from "bun:test";
import * as actualCompat from "@earendil-works/pi-ai/compat";
import { makeAgentDir, streamReply } from "../../test/fake-host.js";
import { startSim, type Sim } from "../../test/session-sim.js";

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

async function started(contextPrune: Record<string, unknown>): Promise<Sim> {
  const agent = makeAgentDir({ enabled: true, minBatchChars: 0, dedupByContentHash: false, ...contextPrune });
  cleanups.push(agent.cleanup);
  process.env.PI_CODING_AGENT_DIR = agent.dir;
  const sim = await startSim();
  await sim.fire("session_start", { reason: "startup" });
  return sim;
}

const lines = (n: number) => Array.from({ length: n }, (_, i) => `export const line${i} = ${i};`).join("\n");
const messages = (sim: Sim) => sim.fake.notices.map((n) => n.message);

describe("the flush line counts argument stubs (point 14)", () => {
  test("a prompt that wrote two files says how many write arguments markers replaced and their size", async () => {
    const sim = await started({ chainCompression: { enabled: false, rollingWindow: 3, stripFinalAssistantThinking: true, fuseRangeSummary: false } });
    await sim.prompt({
      turns: [
        [{ id: "w1", name: "write", args: { path: "/w/a.ts", content: lines(42) }, text: "Successfully wrote 1190 bytes to /w/a.ts" }],
        [{ id: "w2", name: "write", args: { path: "/w/b.ts", content: lines(30) }, text: "Successfully wrote 840 bytes to /w/b.ts" }],
      ],
      final: "Wrote both.",
    });
    const line = messages(sim).find((m) => m.startsWith("pruner: ") && m.includes(" \u00b7 "));
    expect(line).toMatch(/ \u00b7 replaced 2 arguments of write calls with markers \([\d.k]+ \u2192 75 tokens\)/);
  });
});

describe("compressed prompts are named by their places (point 12)", () => {
  test("/pruner compact names the prompts it compressed, without block ids", async () => {
    const sim = await started({ pruneOn: "on-demand", summaries: "always", chainCompression: { enabled: true, rollingWindow: 3, stripFinalAssistantThinking: true, fuseRangeSummary: false } });
    for (let p = 1; p <= 3; p++) {
      await sim.prompt({ turns: [[{ id: `c${p}`, name: "bash", args: { command: `make step${p}` }, text: `step ${p} output `.repeat(40) }]], final: `Step ${p} done.` });
    }
    await sim.host.commands.get("pruner").handler("now", sim.ctx);
    await sim.host.commands.get("pruner").handler("compact", sim.ctx);
    const compact = messages(sim).at(-1)!;
    expect(compact).toStartWith("pruner: compressed the work of 3 earlier prompts (prompts 1 to 3) into one summary block each");
    expect(compact).not.toMatch(/\bb\d/);
  });
});
