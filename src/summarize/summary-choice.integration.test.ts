// Issue 26 items 2 and 3 through index.ts: under `summaries: "auto"` outputs the agent can have again and
// outputs gone stale are archived with no summarizer call, their stubs say so, and each comes back verbatim.
import { afterAll, beforeEach, describe, expect, mock, test } from "bun:test";
import * as actualCompat from "@earendil-works/pi-ai/compat";
import { makeAgentDir, streamReply } from "../../test/fake-host.js";
import { startSim, type Sim } from "../../test/session-sim.js";

let summarizerCalls = 0;
mock.module("@earendil-works/pi-ai/compat", () => ({
  ...actualCompat,
  stream: () => {
    summarizerCalls++;
    return streamReply("- the tests ran");
  },
}));

const cleanups: Array<() => void> = [];
afterAll(() => cleanups.forEach((fn) => fn()));
beforeEach(() => {
  summarizerCalls = 0;
});

const NO_CHAINS = { enabled: false, rollingWindow: 0, stripFinalAssistantThinking: true, fuseRangeSummary: false };

function settings(contextPrune: Record<string, unknown> = {}): void {
  const agent = makeAgentDir({ enabled: true, pruneOn: "on-demand", minBatchChars: 0, dedupByContentHash: false, chainCompression: NO_CHAINS, ...contextPrune });
  cleanups.push(agent.cleanup);
  process.env.PI_CODING_AGENT_DIR = agent.dir;
}

const FILE = Array.from({ length: 60 }, (_, i) => `export function step${i}() { return ${i}; }`).join("\n");
const TESTS = Array.from({ length: 60 }, (_, i) => `test ${i} ... ok`).join("\n");
const resultText = (messages: any[], id: string): string =>
  messages.find((m) => m.role === "toolResult" && m.toolCallId === id)?.content?.map((b: any) => b.text ?? "").join("");

async function flushNow(sim: Sim): Promise<void> {
  await sim.host.commands.get("pruner").handler("now", sim.ctx);
}

describe("summaries: auto", () => {
  test("a batch of reads is archived with no summarizer call and its stub carries the digest", async () => {
    settings();
    const sim = await startSim();
    await sim.prompt({ turns: [[{ id: "r1", name: "read", args: { path: "src/a.ts" }, text: FILE }]], final: "Read it." });
    await flushNow(sim);
    expect(summarizerCalls).toBe(0);
    expect(resultText(await sim.render(), "r1")).toBe("[`t1` archived: a.ts: 60 lines; step0 step1 step2 step3 step4 step5 step6 step7 step8 step9 step10]");
    expect((await sim.query(["t1"])).text).toContain(FILE);
  });

  test("a batch holding a test run is summarized", async () => {
    settings();
    const sim = await startSim();
    await sim.prompt({ turns: [[{ id: "b1", name: "bash", args: { command: "npm test" }, text: TESTS }]], final: "Tested." });
    await flushNow(sim);
    expect(summarizerCalls).toBe(1);
    expect(resultText(await sim.render(), "b1")).toStartWith("[Summarized in pruner summary, ref `t1`.");
  });

  test("a read followed by a successful edit of the same file is retired as stale, naming the edit", async () => {
    settings();
    const sim = await startSim();
    await sim.prompt({
      turns: [
        [{ id: "b0", name: "bash", args: { command: "npm test" }, text: TESTS }],
        [{ id: "r1", name: "read", args: { path: "src/a.ts" }, text: FILE }],
        [{ id: "e1", name: "edit", args: { path: "src/a.ts", edits: [] }, text: "Successfully replaced 1 block(s) in src/a.ts." }],
      ],
      final: "Edited.",
    });
    await flushNow(sim);
    const stub = resultText(await sim.render(), "r1");
    expect(stub).toContain("[Superseded: `src/a.ts` was edited later");
    const ref = /ref `(t\d+)`/.exec(stub)![1]!;
    expect((await sim.query([ref])).text).toContain(FILE);
  });

  test("a test command run again retires the older run even though test runs are otherwise summarized", async () => {
    settings();
    const sim = await startSim();
    await sim.prompt({
      turns: [
        [{ id: "b1", name: "bash", args: { command: "npm test" }, text: `${TESTS}\nFAIL` }],
        [{ id: "b2", name: "bash", args: { command: "npm test" }, text: TESTS }],
      ],
      final: "Fixed.",
    });
    await flushNow(sim);
    expect(resultText(await sim.render(), "b1")).toContain("[Superseded: `npm test` was run again later");
  });

  test("the stubs are the same after a reload", async () => {
    settings();
    const sim = await startSim();
    await sim.prompt({ turns: [[{ id: "r1", name: "read", args: { path: "src/a.ts" }, text: FILE }], [{ id: "e1", name: "write", args: { path: "src/a.ts", content: "x" }, text: "Successfully wrote 1 bytes to src/a.ts" }]], final: "Done." });
    await flushNow(sim);
    const live = await sim.render();
    const reloaded = await sim.reload();
    expect(await reloaded.render()).toEqual(live);
  });
});

describe("summaries: never and always", () => {
  test("never calls no summarizer, even for a test run", async () => {
    settings({ summaries: "never" });
    const sim = await startSim();
    await sim.prompt({ turns: [[{ id: "b1", name: "bash", args: { command: "npm test" }, text: TESTS }]], final: "Tested." });
    await flushNow(sim);
    expect(summarizerCalls).toBe(0);
    expect(resultText(await sim.render(), "b1")).toBe("[`t1` archived: 60 lines]");
  });

  test("always summarizes a batch of reads, as 2.9.1 did", async () => {
    settings({ summaries: "always" });
    const sim = await startSim();
    await sim.prompt({ turns: [[{ id: "r1", name: "read", args: { path: "src/a.ts" }, text: FILE }]], final: "Read it." });
    await flushNow(sim);
    expect(summarizerCalls).toBe(1);
  });

  test("flushPolicy classic implies always", async () => {
    settings({ summaries: "never", flushPolicy: "classic" });
    const sim = await startSim();
    await sim.prompt({ turns: [[{ id: "r1", name: "read", args: { path: "src/a.ts" }, text: FILE }]], final: "Read it." });
    await flushNow(sim);
    expect(summarizerCalls).toBe(1);
  });
});
