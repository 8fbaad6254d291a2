// A `context_tree_query` recovery through index.ts (issue 16): shown verbatim through its grace window,
// then stubbed back to the refs it recovered without any summarizer call, and never summarized or
// archived as an original of its own, live, after a reload, or inside a compressed chain.
import { afterAll, beforeEach, describe, expect, mock, test } from "bun:test";
import * as actualCompat from "@earendil-works/pi-ai/compat";
import { makeAgentDir, streamReply } from "../../test/fake-host.js";
import { startSim, type Sim } from "../../test/session-sim.js";

const summarizerPrompts: string[] = [];
mock.module("@earendil-works/pi-ai/compat", () => ({
  ...actualCompat,
  stream: (_model: any, context: any) => {
    const prompt: string = context.messages[0].content[0].text;
    summarizerPrompts.push(prompt);
    const labels = [...new Set(prompt.match(/\[\[\d+:[^\]\s]+\]\]/g) ?? [])];
    return streamReply(labels.map((l) => `- ${l} ran`).join("\n") || "- ran");
  },
}));

const T = await import("../names.js");

const cleanups: Array<() => void> = [];
afterAll(() => cleanups.forEach((fn) => fn()));
beforeEach(() => {
  summarizerPrompts.length = 0;
});

const NO_CHAINS = { enabled: false, rollingWindow: 0, stripFinalAssistantThinking: true, fuseRangeSummary: false };

function settings(contextPrune: Record<string, unknown> = {}): void {
  const agent = makeAgentDir({ enabled: true, minBatchChars: 0, dedupByContentHash: false, recoveryGraceTurns: 1, chainCompression: NO_CHAINS, ...contextPrune });
  cleanups.push(agent.cleanup);
  process.env.PI_CODING_AGENT_DIR = agent.dir;
}

const ORIGINAL = Array.from({ length: 40 }, (_, i) => `BUILD-LOG line ${i + 1}`).join("\n");
const STUB = '[Recovered output of ref `t1`, shown here earlier. Call context_tree_query({ toolCallIds: ["t1"] }) to see it again.]';

const resultText = (messages: any[], id: string): string =>
  messages.find((m) => m.role === "toolResult" && m.toolCallId === id)?.content?.map((b: any) => b.text ?? "").join("");
const recoveryText = (sim: Sim): string => resultText(sim.projection(), "q1");
const chat = (sim: Sim, final = "ok") => sim.prompt({ turns: [], final });

/** Runs the build (summarized as t1 at the final reply), then the model recovers t1. */
async function recovered(): Promise<Sim> {
  const sim = await startSim();
  await sim.prompt({ turns: [[{ id: "b1", text: ORIGINAL }]], final: "Built." });
  expect(summarizerPrompts).toHaveLength(1);
  await sim.prompt({ turns: [[{ id: "q1", name: T.QUERY_TOOL_NAME, args: { toolCallIds: ["t1"] } }]], final: "Here is the log." });
  return sim;
}

describe("a recovery through index.ts", () => {
  test("is verbatim through its grace window, then the request shows the stub naming t1", async () => {
    settings();
    const sim = await recovered();
    expect(recoveryText(sim)).toContain(ORIGINAL);
    expect(resultText(await sim.render(), "q1")).toBe(recoveryText(sim));
    await chat(sim);
    expect(resultText(await sim.render(), "q1")).toBe(recoveryText(sim));
    await chat(sim);
    expect(resultText(await sim.render(), "q1")).toBe(STUB);
  });

  test("the stub's call gives back exactly the recovered text", async () => {
    settings();
    const sim = await recovered();
    await chat(sim);
    await chat(sim);
    expect(resultText(await sim.render(), "q1")).toBe(STUB);
    expect((await sim.query(["t1"])).text).toBe(recoveryText(sim));
  });

  test("the stub stays on every later render, and a render that changes nothing more returns the same messages", async () => {
    settings();
    const sim = await recovered();
    await chat(sim);
    await chat(sim);
    const first = await sim.render();
    const second = await sim.render();
    expect(JSON.stringify(second)).toBe(JSON.stringify(first));
    await chat(sim);
    expect(resultText(await sim.render(), "q1")).toBe(STUB);
  });

  test("no flush sends the recovery to the summarizer, before or after its grace window", async () => {
    settings();
    const sim = await recovered();
    await chat(sim);
    await chat(sim);
    await sim.prompt({ turns: [[{ id: "b2", text: "second build output\n".repeat(20) }]], final: "Built again." });
    await sim.host.commands.get("pruner").handler("now", sim.ctx);
    expect(summarizerPrompts).toHaveLength(2);
    for (const prompt of summarizerPrompts.slice(1)) expect(prompt).not.toContain("BUILD-LOG");
    expect(summarizerPrompts[1]).toContain("second build output");
  });

  test("a turn that only recovers queues nothing and archives nothing", async () => {
    settings();
    const sim = await recovered();
    // Only the first prompt's tool turn was queued (the footer shows each queueing).
    expect(sim.fake.statuses.filter((s) => s.text?.includes("pending")).map((s) => s.text)).toEqual(["\u2502 prune: 1 pending"]);
    const indexed = sim.host.entries.filter((e) => e.customType === T.CUSTOM_TYPE_INDEX).flatMap((e) => e.data.toolCalls);
    expect(indexed.map((c: any) => c.toolCallId)).toEqual(["b1"]);
  });

  test("a turn that recovers beside another call summarizes only the other call", async () => {
    settings();
    const sim = await startSim();
    await sim.prompt({ turns: [[{ id: "b1", text: ORIGINAL }]], final: "Built." });
    await sim.prompt({
      turns: [[{ id: "q1", name: T.QUERY_TOOL_NAME, args: { toolCallIds: ["t1"] } }, { id: "b2", text: "fresh test run output\n".repeat(10) }]],
      final: "Compared.",
    });
    expect(summarizerPrompts).toHaveLength(2);
    expect(summarizerPrompts[1]).toContain("fresh test run output");
    expect(summarizerPrompts[1]).not.toContain("BUILD-LOG");
    expect(summarizerPrompts[1]).not.toContain(T.QUERY_TOOL_NAME);
  });

  test("its details describe the answer without a copy of the recovered text", async () => {
    settings();
    const sim = await recovered();
    const result = sim.projection().find((m) => m.toolCallId === "q1");
    expect(result.details.results.t1).toMatchObject({ toolCallId: "b1", shortRef: "t1", toolName: "bash", truncated: false });
    expect(JSON.stringify(result.details)).not.toContain("BUILD-LOG");
  });

  test("after a reload the recovery is not work to do and still stubs back to t1", async () => {
    settings();
    let sim = await recovered();
    sim = await sim.reload();
    await sim.fire("turn_end", { message: undefined, toolResults: [], turnIndex: 0 });
    await chat(sim);
    await chat(sim);
    expect(summarizerPrompts).toHaveLength(1);
    expect(resultText(await sim.render(), "q1")).toBe(STUB);
  });

  test("with a grace of 0 the recovery still reaches the model once, and is stubbed after the next prompt", async () => {
    settings({ recoveryGraceTurns: 0 });
    const sim = await recovered();
    expect(resultText(await sim.render(), "q1")).toBe(recoveryText(sim));
    await chat(sim);
    expect(resultText(await sim.render(), "q1")).toBe(STUB);
  });
});

describe("a recovery inside a compressed chain", () => {
  test("is not archived again: the chain block names the ref it recovered", async () => {
    settings({ chainCompression: { ...NO_CHAINS, enabled: true } });
    const sim = await recovered();
    await chat(sim);
    await chat(sim);
    const before = sim.host.entries.filter((e) => e.customType === T.CUSTOM_TYPE_INDEX).flatMap((e) => e.data.toolCalls);
    await sim.host.commands.get("pruner").handler("compact", sim.ctx);
    const after = sim.host.entries.filter((e) => e.customType === T.CUSTOM_TYPE_INDEX).flatMap((e) => e.data.toolCalls);
    expect(after.map((c: any) => c.toolCallId)).toEqual(before.map((c: any) => c.toolCallId));
    expect(after.map((c: any) => c.toolCallId)).not.toContain("q1");
    const rendered = await sim.render();
    expect(rendered.some((m) => m.toolCallId === "q1")).toBe(false);
    const block = rendered.map((m) => String(m.content?.[0]?.text ?? "")).find((text) => text.includes("context_tree_query x1"));
    expect(block).toBeDefined();
    expect(/^<compressed-chain id="b\d+" tools="([^"]*)"/.exec(block!)?.[1]?.split(",")).toContain("t1");
    expect(summarizerPrompts).toHaveLength(1);
  });

  test("/pruner compact with nothing left names why the prompts stay whole: compressed already, a read back in grace, no tool output", async () => {
    settings({ chainCompression: { ...NO_CHAINS, enabled: true }, recoveryGraceTurns: 3 });
    const sim = await recovered();
    await chat(sim);
    await sim.host.commands.get("pruner").handler("compact", sim.ctx);
    expect(sim.fake.notices.at(-1)!.message).toBe(
      "pruner: no earlier prompt's work left to compress: 1 prompt already compressed; " +
        "1 prompt holding an output read back recently (kept whole for your next 3 prompts after the read); 1 prompt with no tool output to compress",
    );
  });
});
