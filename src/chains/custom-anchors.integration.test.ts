// Chains anchored at another extension's custom message, through index.ts (spec 70 §5.1).
import { afterAll, describe, expect, mock, test } from "bun:test";
import * as actualCompat from "@earendil-works/pi-ai/compat";
import { makeAgentDir, streamReply } from "../../test/fake-host.js";
import { startSim, type Sim } from "../../test/session-sim.js";

mock.module("@earendil-works/pi-ai/compat", () => ({
  ...actualCompat,
  stream: (_model: any, context: any) => {
    const prompt: string = context.messages[0].content[0].text;
    const labels = [...new Set(prompt.match(/\[\[\d+:[^\]\s]+\]\]/g) ?? [])];
    return streamReply(labels.map((l) => `- ${l} ran`).join("\n") || "- ran");
  },
}));

const T = await import("../names.js");

const STEER = "pi-gauntlet-transition-recovery";
const cleanups: Array<() => void> = [];
afterAll(() => cleanups.forEach((fn) => fn()));

function settings(contextPrune: Record<string, unknown>): void {
  const agent = makeAgentDir({
    enabled: true,
    minBatchChars: 1,
    chainCompression: { enabled: true, rollingWindow: 0, stripFinalAssistantThinking: true, fuseRangeSummary: false },
    ...contextPrune,
  });
  cleanups.push(agent.cleanup);
  process.env.PI_CODING_AGENT_DIR = agent.dir;
}

const seq = (n: number, tag: string) => `${tag}\n${Array.from({ length: n }, (_, i) => `${i + 1}\n`).join("")}`;

/** A user task, then a task another extension starts with a custom message of `customType`. */
async function twoTasks(sim: Sim, customType: string): Promise<void> {
  await sim.prompt({ turns: [[{ id: "task1", text: seq(200, "TASK-1") }]], final: "Task 1 done." });
  await sim.prompt({ custom: { customType, content: "Continue with task 2." }, turns: [[{ id: "task2", text: seq(200, "TASK-2") }]], final: "Task 2 done." });
}

const chainEntries = (sim: Sim) => sim.host.entries.filter((e) => e.customType === T.CUSTOM_TYPE_CHAIN).map((e) => e.data);
const entryTime = (sim: Sim, customType: string) =>
  sim.fake.branch.filter((e: any) => e.type === "custom_message" && e.customType === customType).map((e: any) => Date.parse(e.timestamp));
const isBlock = (m: any) => m.role === "user" && String(m.content?.[0]?.text ?? "").startsWith("<compressed-chain");

describe("a chain anchored at another extension's custom message", () => {
  test("is compressed by the flush's chain pass, its entry starting at the custom entry's ms timestamp", async () => {
    settings({});
    const sim = await startSim();
    await twoTasks(sim, STEER);
    const [steerTime] = entryTime(sim, STEER);
    const summaryTimes = entryTime(sim, T.CUSTOM_TYPE_SUMMARY);
    expect(summaryTimes.length).toBeGreaterThan(0);
    const starts = chainEntries(sim).map((e) => e.startUserTimestamp);
    expect(starts).toContain(steerTime);
    // The per-batch summaries written between the tasks anchor nothing.
    expect(starts.filter((t) => summaryTimes.includes(t))).toEqual([]);
    expect(starts).toHaveLength(2);
  });

  test("renders its block right after the custom message and drops its call and result", async () => {
    settings({});
    const sim = await startSim();
    await twoTasks(sim, STEER);
    const rendered = await sim.render();
    const at = rendered.findIndex((m) => m.role === "custom" && m.customType === STEER);
    expect(isBlock(rendered[at + 1])).toBe(true);
    expect(rendered[at + 2]).toMatchObject({ role: "assistant", content: [{ type: "text", text: "Task 2 done." }] });
    expect(rendered.some((m) => m.role === "toolResult" || (m.role === "assistant" && JSON.stringify(m).includes("task2")))).toBe(false);
  });

  test("keeps its output recoverable through the ref its block names", async () => {
    settings({});
    const sim = await startSim();
    await twoTasks(sim, STEER);
    const rendered = await sim.render();
    const at = rendered.findIndex((m) => m.role === "custom" && m.customType === STEER);
    const refs = /tools="([^"]*)"/.exec(rendered[at + 1].content[0].text)![1]!.split(",");
    const answers = await Promise.all(refs.map((ref) => sim.query([ref])));
    expect(answers.some((a) => a.text.includes(seq(200, "TASK-2")))).toBe(true);
  });

  test("a context-prune-summary in the custom's place anchors nothing: the second task stays raw", async () => {
    settings({});
    const sim = await startSim();
    await twoTasks(sim, T.CUSTOM_TYPE_SUMMARY);
    expect(chainEntries(sim)).toHaveLength(1);
    const rendered = await sim.render();
    expect(rendered.filter(isBlock)).toHaveLength(1);
  });
});

describe("/pruner compact over a custom-anchored chain nothing summarized", () => {
  test("backfills its output deterministically and compresses it at the custom's timestamp", async () => {
    settings({ pruneOn: "on-demand" });
    const sim = await startSim();
    await twoTasks(sim, STEER);
    expect(sim.host.entries.filter((e) => e.customType === T.CUSTOM_TYPE_SUMMARY)).toEqual([]);
    await sim.host.commands.get("pruner")!.handler("compact", sim.ctx);
    const [steerTime] = entryTime(sim, STEER);
    const steered = chainEntries(sim).find((e) => e.startUserTimestamp === steerTime);
    expect(steered).toMatchObject({ bodySource: "deterministic", droppedToolCallIds: ["task2"] });
    const rendered = await sim.render();
    expect(rendered.some((m) => m.role === "toolResult")).toBe(false);
    const answer = await sim.query([steered.toolRefs[0]]);
    expect(answer.text).toContain(seq(200, "TASK-2"));
  });
});
