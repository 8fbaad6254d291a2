import { afterAll, describe, expect, mock, test } from "bun:test";
import * as actualCompat from "@earendil-works/pi-ai/compat";
import { assistantText, makeAgentDir, makeFakeCtx, makeFakePi, msgEntry, streamReply } from "../../test/fake-host.js";
import { startSim } from "../../test/session-sim.js";

/** A summarizer reply held until the test releases it (like a slow provider). */
let gate: Promise<void> = Promise.resolve();
let release: () => void = () => {};
let calls = 0;
mock.module("@earendil-works/pi-ai/compat", () => ({
  ...actualCompat,
  stream: (_model: any, _context: any, options: any) => {
    calls++;
    const held = gate;
    return {
      async *[Symbol.asyncIterator]() {
        await new Promise<void>((resolve, reject) => {
          held.then(resolve);
          options?.signal?.addEventListener("abort", () => reject(new Error("aborted")), { once: true });
        });
      },
      result: () => streamReply("[[1:bash]] counted").result(),
    };
  },
}));

const { attemptCeilingMs, SUMMARIZER_HARD_CEILING_MS } = await import("../summarize/summarizer.js");
const { createExtensionState } = await import("./extension-state.js");
const { settleBeforeRequest, settleOnShutdown, startFinalReplyFlush } = await import("./final-reply-flush.js");
const T = { ...(await import("../names.js")), ...(await import("../settings/config-shape.js")) };

const cleanups: Array<() => void> = [];
afterAll(() => cleanups.forEach((fn) => fn()));

function useSettings(chainCompression: Record<string, unknown> = { enabled: false }): void {
  const agent = makeAgentDir({ enabled: true, minBatchChars: 1, chainCompression });
  cleanups.push(agent.cleanup);
  process.env.PI_CODING_AGENT_DIR = agent.dir;
}

function holdSummarizer(): void {
  gate = new Promise<void>((resolve) => (release = resolve));
}

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 2));
}

const call = (id: string, ts: number) => ({ role: "assistant", content: [{ type: "toolCall", id, name: "bash", arguments: { command: id } }], stopReason: "toolUse", timestamp: ts });
const result = (id: string, ts: number) => ({ role: "toolResult", toolCallId: id, toolName: "bash", content: [{ type: "text", text: `${id}\n`.repeat(200) }], isError: false, timestamp: ts });

/** A session where one tool turn has happened and the final reply is about to end. */
async function beforeFinalReply(opts: { busy?: () => boolean; chains?: boolean } = {}) {
  useSettings(opts.chains ? { enabled: true, rollingWindow: 0, stripFinalAssistantThinking: true, fuseRangeSummary: false } : undefined);
  const sim = await startSim();
  if (opts.busy) (sim.ctx as any).isIdle = () => !opts.busy!();
  sim.fake.branch.push(msgEntry({ role: "user", content: [{ type: "text", text: "count" }], timestamp: 10 }));
  sim.fake.branch.push(msgEntry(call("c1", 20)), msgEntry(result("c1", 30)));
  await sim.fire("turn_end", { message: call("c1", 20), toolResults: [result("c1", 30)], turnIndex: 0 });
  const final = assistantText(40, "Counted.");
  const ofType = (type: string) => sim.host.entries.filter((e) => e.customType === type);
  const positionOf = (type: string) => sim.fake.branch.findIndex((e: any) => e.customType === type);
  return { sim, final, ofType, positionOf };
}

describe("the final-reply flush never holds up the reply's write", () => {
  test("message_end returns while the summarizer is still running", async () => {
    holdSummarizer();
    const { sim, final, ofType } = await beforeFinalReply();
    await sim.fire("message_end", { message: final });
    expect(calls).toBeGreaterThan(0);
    expect(ofType(T.CUSTOM_TYPE_SUMMARY)).toEqual([]);
    release();
    await sim.fire("session_shutdown", {});
  });

  test("with the agent idle, the summary is written after the reply as soon as the summarizer answers", async () => {
    holdSummarizer();
    const { sim, final, ofType, positionOf } = await beforeFinalReply();
    await sim.fire("message_end", { message: final });
    sim.fake.branch.push(msgEntry(final));
    await sim.fire("turn_end", { message: final, toolResults: [], turnIndex: 1 });
    release();
    await until(() => ofType(T.CUSTOM_TYPE_SUMMARY).length > 0);
    expect(ofType(T.CUSTOM_TYPE_SUMMARY)).toHaveLength(1);
    const reply = sim.fake.branch.findIndex((e: any) => e.message === final);
    expect(positionOf(T.CUSTOM_TYPE_SUMMARY)).toBeGreaterThan(reply);
  });

  test("while the agent is busy, the next request waits for the flush and carries the summary it wrote", async () => {
    holdSummarizer();
    const { sim, final, ofType, positionOf } = await beforeFinalReply({ busy: () => true });
    await sim.fire("message_end", { message: final });
    sim.fake.branch.push(msgEntry(final));
    await sim.fire("turn_end", { message: final, toolResults: [], turnIndex: 1 });
    sim.fake.branch.push(msgEntry({ role: "user", content: [{ type: "text", text: "next" }], timestamp: 50 }));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(ofType(T.CUSTOM_TYPE_SUMMARY)).toEqual([]);
    const request = sim.fire("context", { messages: sim.projection() });
    release();
    const { messages } = await request;
    expect(positionOf(T.CUSTOM_TYPE_SUMMARY)).toBeGreaterThan(sim.fake.branch.findIndex((e: any) => e.message?.content?.[0]?.text === "next"));
    expect(messages.at(-1)).toMatchObject({ role: "custom", customType: T.CUSTOM_TYPE_SUMMARY });
    expect(messages.find((m: any) => m.role === "toolResult").content[0].text).toContain("`t1`");
  });

  test("a flush that writes after more turns reached the session compresses the reply's chain, not a phantom one", async () => {
    holdSummarizer();
    const { sim, final, ofType } = await beforeFinalReply({ busy: () => true, chains: true });
    await sim.fire("message_end", { message: final });
    sim.fake.branch.push(msgEntry(final));
    sim.fake.branch.push(msgEntry({ role: "user", content: [{ type: "text", text: "next" }], timestamp: 50 }));
    sim.fake.branch.push(msgEntry(call("c2", 60)), msgEntry(result("c2", 70)));
    release();
    await new Promise((resolve) => setTimeout(resolve, 10));
    await sim.fire("agent_end", {});
    await until(() => ofType(T.CUSTOM_TYPE_CHAIN).length > 0);
    expect(ofType(T.CUSTOM_TYPE_CHAIN).map((e) => [e.data.startUserTimestamp, e.data.finalAssistantTimestamp])).toEqual([[10, 40]]);
    expect(ofType(T.CUSTOM_TYPE_DIAGNOSTIC)).toEqual([]);
  });

  test("the final reply's own turn_end is not a moment to write", async () => {
    holdSummarizer();
    const { sim, final, ofType } = await beforeFinalReply({ busy: () => true });
    await sim.fire("message_end", { message: final });
    release();
    await new Promise((resolve) => setTimeout(resolve, 10));
    await sim.fire("turn_end", { message: final, toolResults: [], turnIndex: 1 });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(ofType(T.CUSTOM_TYPE_SUMMARY)).toEqual([]);
    await sim.fire("agent_end", {});
    await until(() => ofType(T.CUSTOM_TYPE_SUMMARY).length > 0);
    expect(ofType(T.CUSTOM_TYPE_SUMMARY)).toHaveLength(1);
  });

  test("a flush with nothing to summarize completes within message_end", async () => {
    useSettings();
    const sim = await startSim();
    await sim.fire("message_end", { message: assistantText(40, "Nothing to do.") });
    expect(sim.host.entries.filter((e) => e.customType === T.CUSTOM_TYPE_FLUSH_METRICS).map((e) => e.data.outcome)).toEqual(["empty"]);
  });

  test("leaving the session lets a running summarizer call finish and write", async () => {
    holdSummarizer();
    const { sim, final, ofType } = await beforeFinalReply({ busy: () => true });
    await sim.fire("message_end", { message: final });
    const shutdown = sim.fire("session_shutdown", { reason: "quit" });
    release();
    await shutdown;
    expect(ofType(T.CUSTOM_TYPE_SUMMARY)).toHaveLength(1);
  });

  test("leaving the session abandons a call that does not answer in time and keeps its batch pending", async () => {
    holdSummarizer();
    useSettings();
    const host = makeFakePi();
    const state = createExtensionState(host.pi as any);
    state.config.value = { ...T.DEFAULT_CONFIG, enabled: true, minBatchChars: 1, chainCompression: { ...T.DEFAULT_CONFIG.chainCompression, enabled: false } };
    const fake = makeFakeCtx(host, { branch: [msgEntry({ role: "user", content: [], timestamp: 1 }), msgEntry(call("c1", 20)), msgEntry(result("c1", 30))] });
    await startFinalReplyFlush(state, fake.ctx, assistantText(40));
    await settleOnShutdown(state, 5);
    expect(host.entries.filter((e) => e.customType === T.CUSTOM_TYPE_SUMMARY)).toEqual([]);
    expect(host.entries.filter((e) => e.customType === T.CUSTOM_TYPE_FLUSH_METRICS).map((e) => e.data.outcome)).toEqual(["error"]);
    expect(state.pending).toHaveLength(1);
    release();
  });
});

describe("summarizer waits are bounded", () => {
  test("only the first request of a run waits for a slow flush, and only for a while", async () => {
    holdSummarizer();
    useSettings();
    const host = makeFakePi();
    const state = createExtensionState(host.pi as any);
    state.config.value = { ...T.DEFAULT_CONFIG, enabled: true, minBatchChars: 1, chainCompression: { ...T.DEFAULT_CONFIG.chainCompression, enabled: false } };
    const fake = makeFakeCtx(host, { branch: [msgEntry({ role: "user", content: [], timestamp: 1 }), msgEntry(call("c1", 20)), msgEntry(result("c1", 30))] });
    (fake.ctx as any).isIdle = () => false;
    await startFinalReplyFlush(state, fake.ctx, assistantText(40));
    expect(await settleBeforeRequest(state, fake.ctx, 5)).toEqual([]);
    expect(await settleBeforeRequest(state, fake.ctx, 600_000)).toEqual([]);
    expect(host.entries.filter((e) => e.customType === T.CUSTOM_TYPE_SUMMARY)).toEqual([]);
    release();
    await settleOnShutdown(state, 1_000);
    expect(host.entries.filter((e) => e.customType === T.CUSTOM_TYPE_SUMMARY)).toHaveLength(1);
  });

  test("a ceiling of 0 means the hard ceiling, not no ceiling", () => {
    expect(attemptCeilingMs({ summarizerMaxTimeoutMs: 0 })).toBe(SUMMARIZER_HARD_CEILING_MS);
    expect(attemptCeilingMs({ summarizerMaxTimeoutMs: 180_000 })).toBe(180_000);
  });
});
