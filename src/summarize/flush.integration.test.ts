import { afterAll, describe, expect, mock, test } from "bun:test";
import * as actualCompat from "@earendil-works/pi-ai/compat";
import {
  assistantText,
  assistantWithTools,
  makeAgentDir,
  makeFakeCtx,
  makeFakePi,
  msgEntry,
  streamReply,
  toolResult,
  user,
} from "../../test/fake-host.js";

let streamCalls: string[] = [];
let streamImpl: (model: any, context: any, options: any) => any = () => streamReply("[[1:read]] ok");
mock.module("@earendil-works/pi-ai/compat", () => ({
  ...actualCompat,
  stream: (model: any, context: any, options: any) => {
    streamCalls.push(context.messages[0].content[0].text);
    return streamImpl(model, context, options);
  },
}));

const { default: piCondense } = await import("../../index.js");
const { createExtensionState } = await import("../host/extension-state.js");
const { flushPending } = await import("./flush.js");
const { hashToolResult } = await import("../capture/content-hash.js");
const T = { ...(await import("../names.js")), ...(await import("../settings/config-shape.js")) };

const cleanups: Array<() => void> = [];
afterAll(() => cleanups.forEach((fn) => fn()));

const BASE = {
  ...T.DEFAULT_CONFIG,
  enabled: true,
  minBatchChars: 1,
  chainCompression: { ...T.DEFAULT_CONFIG.chainCompression, enabled: false },
  // These scenarios are about the summarizer: every batch gets one (issue 26's choice has its own tests).
  summaries: "always" as const,
};

/** user, then one assistant turn per id, each with a result of the given size. */
function branchOf(turns: Array<{ id: string; name?: string; text: string }>): any[] {
  const branch: any[] = [msgEntry(user(100))];
  turns.forEach((turn, k) => {
    const ts = 200 + k * 100;
    branch.push(msgEntry(assistantWithTools(ts, [{ id: turn.id, name: turn.name ?? "read" }])));
    branch.push(msgEntry(toolResult(ts + 10, turn.id, turn.name ?? "read", turn.text)));
  });
  return branch;
}

function direct(config: Record<string, unknown>, branch: any[]) {
  const host = makeFakePi();
  const state = createExtensionState(host.pi as any);
  state.config.value = { ...BASE, ...config } as any;
  const fake = makeFakeCtx(host, { branch, usage: { tokens: 1000, contextWindow: 1_000_000 } });
  const ofType = (type: string) => host.entries.filter((e) => e.customType === type);
  return { host, state, fake, ofType };
}

/** One edit whose 8-line texts are worth a marker, its one-line output, and a summarizer whose summary is longer than it. */
function editWithLongerSummary(flushPolicy: string) {
  streamImpl = () => streamReply("[[1:edit]] " + "very long summary ".repeat(30));
  const text = "line of the old text, long enough to be worth a marker\n".repeat(8);
  const edit = { id: "e", name: "edit", args: { path: "a.ts", edits: [{ oldText: text, newText: text.toUpperCase() }] } };
  const branch = [msgEntry(user(100)), msgEntry(assistantWithTools(200, [edit])), msgEntry(toolResult(210, "e", "edit", "Successfully replaced text in a.ts."))];
  return direct({ stubArguments: true, flushPolicy }, branch);
}

async function booted(settings: Record<string, unknown>, branch: any[]) {
  const agent = makeAgentDir({ ...BASE, ...settings });
  cleanups.push(agent.cleanup);
  process.env.PI_CODING_AGENT_DIR = agent.dir;
  const host = makeFakePi();
  piCondense(host.pi as any);
  const fake = makeFakeCtx(host, { branch, usage: { tokens: 1000, contextWindow: 1_000_000 } });
  const fire = (name: string, event: any) => host.handlers.get(name)!(event, fake.ctx) as Promise<any>;
  await fire("session_start", {});
  return { host, fake, fire };
}

describe("flushPending", () => {
  test("a flush requested while one runs answers already-flushing and writes no metrics entry (scenario 13)", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    streamImpl = () => ({
      async *[Symbol.asyncIterator]() {
        await gate;
      },
      result: () => streamReply("[[1:read]] ok").result(),
    });
    const { host, state, fake } = direct({}, branchOf([{ id: "a", text: "x".repeat(500) }]));
    state.rearmedPending = true;
    const first = flushPending(state, fake.ctx, { delivery: "session", trigger: "message-end" });
    state.rearmedPending = true;
    const second = await flushPending(state, fake.ctx, { delivery: "session", trigger: "budget" });
    expect(second).toEqual({ ok: false, reason: "already-flushing" });
    expect(state.rearmedPending).toBe(true);
    release();
    await first;
    const metrics = host.entries.filter((e) => e.customType === T.CUSTOM_TYPE_FLUSH_METRICS);
    expect(metrics).toHaveLength(1);
    expect(metrics[0].data.trigger).toBe("message-end");
    streamImpl = () => streamReply("[[1:read]] ok");
  });

  test("a batch without a summary stops persistence there and goes back to the queue front (scenario 14)", async () => {
    streamImpl = (_m, context) =>
      streamReply(context.messages[0].content[0].text.includes("second-call") ? "" : "[[1:read]] ok");
    const { state, fake, ofType } = direct({}, branchOf([
      { id: "first-call", text: "f".repeat(500) },
      { id: "second-call", text: "s".repeat(500) },
    ]));
    const result = await flushPending(state, fake.ctx, { delivery: "session" });
    expect(result).toMatchObject({ ok: true, reason: "flushed", batchCount: 1 });
    expect(ofType(T.CUSTOM_TYPE_SUMMARY)).toHaveLength(1);
    expect(state.frontier.get()?.lastAttemptedToolCallId).toBe("first-call");
    expect(state.pending.map((b) => b.toolCalls[0].toolCallId)).toEqual(["second-call"]);
    expect(ofType(T.CUSTOM_TYPE_FLUSH_METRICS)[0].data.outcome).toBe("summarized");
    streamImpl = () => streamReply("[[1:read]] ok");
  });

  test("when every summarizer call fails nothing advances and the batches are queued again (scenario 15)", async () => {
    streamImpl = () => streamReply("");
    const { state, fake, ofType } = direct({}, branchOf([{ id: "a", text: "x".repeat(500) }, { id: "b", text: "y".repeat(500) }]));
    const statusesBefore = fake.statuses.length;
    const result = await flushPending(state, fake.ctx, { delivery: "session" });
    expect(result).toEqual({ ok: false, reason: "summarizer-failed" });
    expect(ofType(T.CUSTOM_TYPE_FRONTIER)).toHaveLength(0);
    expect(ofType(T.CUSTOM_TYPE_STATS)).toHaveLength(0);
    expect(fake.statuses.length).toBeGreaterThan(statusesBefore);
    expect(ofType(T.CUSTOM_TYPE_FLUSH_METRICS)[0].data).toMatchObject({ outcome: "error", processedBatches: 0 });
    expect(state.pending).toHaveLength(2);
    expect(state.frontier.get()).toBeNull();
    streamImpl = () => streamReply("[[1:read]] ok");
  });

  test("a summary longer than its raw text is skipped but still moves the frontier and counts the call (scenario 16)", async () => {
    streamImpl = () => streamReply("[[1:read]] " + "very long summary ".repeat(30));
    const { state, fake, ofType } = direct({}, branchOf([{ id: "a", text: "short output".repeat(5) }]));
    const result = await flushPending(state, fake.ctx, { delivery: "session" });
    expect(result).toMatchObject({ ok: true, reason: "skipped-oversized" });
    expect(ofType(T.CUSTOM_TYPE_SUMMARY)).toHaveLength(0);
    expect(ofType(T.CUSTOM_TYPE_INDEX)).toHaveLength(0);
    expect(state.frontier.get()?.outcome).toBe("skipped-oversized");
    expect(state.stats.getStats().callCount).toBe(1);
    expect(fake.notices).toContainEqual({ message: "pruner: nothing summarized: 1 output kept whole: the summary came out longer", type: "info" });
    streamImpl = () => streamReply("[[1:read]] ok");
  });

  test("a summary longer than an edit's output archives the batch without it when its arguments can be stubbed", async () => {
    const { state, fake, ofType } = editWithLongerSummary("cost");
    await flushPending(state, fake.ctx, { delivery: "session" });
    expect(ofType(T.CUSTOM_TYPE_SUMMARY)).toHaveLength(0);
    expect(ofType(T.CUSTOM_TYPE_INDEX)).toHaveLength(1);
    expect(state.indexer.getRecord("e")?.unsummarized).toBe(true);
    streamImpl = () => streamReply("[[1:read]] ok");
  });

  test("under classic the same batch is skipped as 2.9.1 did", async () => {
    const { state, fake, ofType } = editWithLongerSummary("classic");
    const result = await flushPending(state, fake.ctx, { delivery: "session" });
    expect(result).toMatchObject({ ok: true, reason: "skipped-oversized" });
    expect(ofType(T.CUSTOM_TYPE_INDEX)).toHaveLength(0);
    streamImpl = () => streamReply("[[1:read]] ok");
  });

  test("a batch below minBatchChars gets no LLM call and a trivial skip (scenario 17)", async () => {
    streamCalls = [];
    const { state, fake } = direct({ minBatchChars: 1000 }, branchOf([{ id: "a", text: "z".repeat(300) }]));
    const result = await flushPending(state, fake.ctx, { delivery: "session" });
    expect(result).toMatchObject({ ok: true, reason: "skipped-trivial" });
    expect(streamCalls).toEqual([]);
    expect(fake.statuses.some((s) => s.text?.includes("summarizing"))).toBe(false);
    expect(state.frontier.get()?.outcome).toBe("skipped-trivial");
    expect(fake.notices).toContainEqual({ message: "pruner: nothing summarized: 1 small output (under 1000 chars) left as it is", type: "info" });
  });

  test("quietOversizedSkips mutes the trivial skip notice", async () => {
    const { state, fake } = direct({ minBatchChars: 1000, quietOversizedSkips: true }, branchOf([{ id: "a", text: "z".repeat(300) }]));
    await flushPending(state, fake.ctx, { delivery: "session" });
    expect(fake.notices).toEqual([]);
  });

  test("a call matching an indexed record becomes an alias without an LLM call (scenario 18)", async () => {
    streamCalls = [];
    const text = "same output ".repeat(50);
    const { state, fake, ofType } = direct({}, branchOf([{ id: "dup", text }]));
    state.indexer.addBatch(
      {
        turnIndex: 0,
        timestamp: 1,
        assistantText: "",
        toolCalls: [{ toolCallId: "orig", toolName: "read", args: {}, resultText: text, isError: false, resultTimestamp: 50 }],
      },
      () => {},
    );
    expect(state.indexer.lookupByContent("read", text)).toBeDefined();
    expect(hashToolResult("read", text)).toHaveLength(40);
    const result = await flushPending(state, fake.ctx, { delivery: "session" });
    expect(result).toMatchObject({ ok: true, reason: "skipped-deduped", dedupedCount: 1 });
    expect(streamCalls).toEqual([]);
    expect(ofType(T.CUSTOM_TYPE_DEDUP_ALIAS)).toHaveLength(1);
    expect(state.frontier.get()).toMatchObject({ lastAttemptedToolCallId: "dup", outcome: "skipped-deduped" });
  });

  test("a session-delivered flush writes through the session manager and never sends a steer", async () => {
    const { host, state, fake } = direct({}, branchOf([{ id: "a", text: "x".repeat(500) }]));
    await flushPending(state, fake.ctx, { delivery: "session" });
    expect(host.sent).toEqual([]);
    expect(host.entries.filter((e) => e.via === "pi").map((e) => e.customType)).toEqual([]);
  });

  test("a runtime-delivered flush steers the summary and appends entries through pi", async () => {
    const { host, state, fake } = direct({}, branchOf([{ id: "a", text: "x".repeat(500) }]));
    const result = await flushPending(state, fake.ctx, {});
    expect(result.ok).toBe(true);
    expect(host.sent).toHaveLength(1);
    expect(host.sent[0].options).toEqual({ deliverAs: "steer" });
    expect(host.sent[0].message).toMatchObject({ customType: T.CUSTOM_TYPE_SUMMARY, display: false });
    const types = host.entries.map((e) => `${e.via}:${e.customType}`);
    expect(types).toContain("pi:context-prune-index");
    expect(types).toContain("pi:context-prune-frontier");
    expect(types).toContain("pi:context-prune-flush-metrics");
  });

  test("a frontier whose entry cannot be written does not move in memory", async () => {
    const { host, state, fake } = direct({}, branchOf([{ id: "a", text: "x".repeat(500) }]));
    const append = host.pi.appendEntry;
    host.pi.appendEntry = (customType: string, data?: unknown) => {
      if (customType === T.CUSTOM_TYPE_FRONTIER) throw new Error("disk full");
      append(customType, data);
    };
    const result = await flushPending(state, fake.ctx, {});
    expect(result).toMatchObject({ ok: false, reason: "failed", error: "disk full" });
    expect(state.frontier.get()).toBeNull();
  });

  test("batches restored after a failure never include empty, fully deduplicated ones", async () => {
    const text = "known output ".repeat(50);
    const { host, state, fake } = direct({}, branchOf([{ id: "dup", text }, { id: "fresh", text: "f".repeat(500) }]));
    state.indexer.addBatch(
      {
        turnIndex: 0,
        timestamp: 1,
        assistantText: "",
        toolCalls: [{ toolCallId: "orig", toolName: "read", args: {}, resultText: text, isError: false, resultTimestamp: 50 }],
      },
      () => {},
    );
    host.pi.sendMessage = (() => {
      throw new Error("send refused");
    }) as any;
    const result = await flushPending(state, fake.ctx, {});
    expect(result).toMatchObject({ ok: false, reason: "failed" });
    expect(state.pending.map((b) => b.toolCalls.map((tc) => tc.toolCallId))).toEqual([["fresh"]]);
  });

  test("an aborted signal ends the flush without draining the queue", async () => {
    const { state, fake, ofType } = direct({}, branchOf([{ id: "a", text: "x".repeat(500) }]));
    const controller = new AbortController();
    controller.abort();
    const result = await flushPending(state, fake.ctx, { signal: controller.signal });
    expect(result).toEqual({ ok: false, reason: "aborted" });
    expect(ofType(T.CUSTOM_TYPE_FLUSH_METRICS)[0].data.outcome).toBe("error");
  });

  test("a stale session manager ends the flush as stale-context without a notice", async () => {
    const { state, fake } = direct({}, branchOf([{ id: "a", text: "x".repeat(500) }]));
    const staleCtx = Object.create(fake.ctx, {
      sessionManager: {
        get() {
          throw new Error("This extension ctx is stale after session replacement or reload.");
        },
      },
    });
    const result = await flushPending(state, staleCtx, { delivery: "session" });
    expect(result).toMatchObject({ ok: false, reason: "stale-context" });
    expect(fake.notices).toEqual([]);
  });
});

describe("the line a flush ends with (issue 16)", () => {
  test("in the TUI it is one chat entry, drawn by its renderer and never replaced by a later notice", async () => {
    streamImpl = () => streamReply("[[1:read]] summary of a");
    const { host, state, fake } = direct({}, branchOf([{ id: "a", text: "x".repeat(4000) }]));
    (fake.ctx as any).mode = "tui";
    await flushPending(state, fake.ctx, { delivery: "session" });
    const reports = host.entries.filter((e) => e.customType === T.CUSTOM_TYPE_REPORT);
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject({ via: "pi", data: { text: "pruner: summarized 1 tool output (1.0k \u2192 50 tokens)", level: "info" } });
    expect(fake.notices.filter((n) => n.type === "info")).toEqual([]);
    streamImpl = () => streamReply("[[1:read]] ok");
  });

  test("outside the TUI it is a notice", async () => {
    const { host, state, fake } = direct({}, branchOf([{ id: "a", text: "x".repeat(4000) }]));
    await flushPending(state, fake.ctx, { delivery: "session" });
    expect(host.entries.filter((e) => e.customType === T.CUSTOM_TYPE_REPORT)).toEqual([]);
    expect(fake.notices.map((n) => n.message)).toEqual([expect.stringMatching(/^pruner: summarized 1 tool output \(1\.0k \u2192 \d+ tokens\)$/)]);
  });
});

describe("stubCount on flush-metrics entries (spec 70 §10)", () => {
  const metricsOf = (ofType: (t: string) => any[]) => ofType(T.CUSTOM_TYPE_FLUSH_METRICS).at(-1)!.data;
  const indexOriginal = (state: any, text: string, id = "orig", ts = 50) =>
    state.indexer.addBatch(
      { turnIndex: 0, timestamp: 1, assistantText: "", toolCalls: [{ toolCallId: id, toolName: "read", args: {}, resultText: text, isError: false, resultTimestamp: ts }] },
      () => {},
    );

  test("a fully deduplicated batch of two counts its two aliases", async () => {
    const text = "same output ".repeat(50);
    const branch = [msgEntry(user(100)), msgEntry(assistantWithTools(200, [{ id: "d1", name: "read" }, { id: "d2", name: "read" }]))];
    branch.push(msgEntry(toolResult(210, "d1", "read", text)), msgEntry(toolResult(211, "d2", "read", text)));
    const { state, fake, ofType } = direct({}, branch);
    indexOriginal(state, text);
    await flushPending(state, fake.ctx, { delivery: "session" });
    expect(metricsOf(ofType)).toMatchObject({ stubCount: 2, outcome: "skipped-deduped" });
  });

  test("one summarized batch of three calls plus one alias counts four", async () => {
    streamImpl = () => streamReply("[[1:read]] a [[2:read]] b [[3:read]] c");
    const text = "same output ".repeat(50);
    const ids = ["s1", "s2", "s3", "s4"];
    const branch = [msgEntry(user(100)), msgEntry(assistantWithTools(200, ids.map((id) => ({ id, name: "read" }))))];
    ids.forEach((id, k) => branch.push(msgEntry(toolResult(210 + k, id, "read", k === 3 ? text : `distinct output ${id} `.repeat(40)))));
    const { state, fake, ofType } = direct({}, branch);
    indexOriginal(state, text);
    await flushPending(state, fake.ctx, { delivery: "session" });
    expect(metricsOf(ofType)).toMatchObject({ stubCount: 4, outcome: "summarized" });
    streamImpl = () => streamReply("[[1:read]] ok");
  });

  test("an all-trivial flush without aliases counts zero", async () => {
    const { state, fake, ofType } = direct({ minBatchChars: 1000 }, branchOf([{ id: "a", text: "z".repeat(300) }]));
    await flushPending(state, fake.ctx, { delivery: "session" });
    expect(metricsOf(ofType)).toMatchObject({ stubCount: 0, outcome: "skipped-trivial" });
  });

  test("an empty flush counts zero", async () => {
    const { state, fake, ofType } = direct({}, [msgEntry(user(100))]);
    await flushPending(state, fake.ctx, { delivery: "session", trigger: "manual" });
    expect(metricsOf(ofType)).toMatchObject({ stubCount: 0, outcome: "empty" });
  });

  test("a batch whose summary failed counts nothing of its own", async () => {
    streamImpl = () => {
      throw new Error("provider down");
    };
    const { state, fake, ofType } = direct({}, branchOf([{ id: "f", text: "failing output ".repeat(40) }]));
    await flushPending(state, fake.ctx, { delivery: "session" });
    expect(metricsOf(ofType)).toMatchObject({ stubCount: 0, outcome: "error" });
    streamImpl = () => streamReply("[[1:read]] ok");
  });
});

describe("turn_end budget gate", () => {
  test("a jump of the usage fraction fires the delta trigger; a null-token turn keeps the baseline (scenario 19)", async () => {
    const { host, fake, fire } = await booted({ autoBudgetThreshold: null, budgetTurnDelta: 0.1, pruneOn: "on-demand" }, []);
    const turn = async (id: string, ts: number, tokens: number | null) => {
      fake.setUsage(tokens, 1_000_000);
      const call = assistantWithTools(ts, [{ id, name: "read" }]);
      const result = toolResult(ts + 10, id, "read", `${id} `.repeat(200));
      fake.branch.push(msgEntry(call), msgEntry(result));
      await fire("turn_end", { toolResults: [result], message: call, turnIndex: 0 });
    };
    fake.branch.push(msgEntry(user(100)));
    await turn("a", 200, 60_000);
    await turn("b", 300, null);
    expect(host.entries.filter((e) => e.customType === T.CUSTOM_TYPE_FLUSH_METRICS)).toHaveLength(0);
    await turn("c", 400, 105_000);
    const deltaNotice = fake.notices.find((n) => n.message.startsWith("pruner: the context grew past your per-turn limit \u2014 summarizing"));
    expect(deltaNotice?.type).toBe("info");
    const metrics = host.entries.filter((e) => e.customType === T.CUSTOM_TYPE_FLUSH_METRICS);
    expect(metrics.map((e) => e.data.trigger)).toEqual(["delta"]);
  });

  test("a queued tool turn shows in the footer only, with no notice after every tool turn (issue 16)", async () => {
    const { fake, fire } = await booted({ pruneOn: "on-demand" }, [msgEntry(user(100))]);
    const call = assistantWithTools(200, [{ id: "a", name: "read" }]);
    const result = toolResult(210, "a", "read", "out ".repeat(100));
    fake.branch.push(msgEntry(call), msgEntry(result));
    await fire("turn_end", { toolResults: [result], message: call, turnIndex: 0 });
    expect(fake.notices).toEqual([]);
    expect(fake.lastStatus()).toBe("\u2502 prune: 1 pending");
  });
});

describe("turn_end capture across prompts", () => {
  test("a later prompt's tool turn is queued although pi restarts its turnIndex at 0", async () => {
    const { fake, fire } = await booted({ pruneOn: "agent-message" }, [msgEntry(user(100))]);
    for (let k = 0; k < 3; k++) {
      const call = assistantWithTools(200 + k * 100, [{ id: `first-${k}`, name: "read" }]);
      const result = toolResult(210 + k * 100, `first-${k}`, "read", `first prompt ${k} `.repeat(80));
      fake.branch.push(msgEntry(call), msgEntry(result));
      await fire("turn_end", { toolResults: [result], message: call, turnIndex: k });
    }
    await fire("message_end", { message: assistantText(600) });
    fake.branch.push(msgEntry(assistantText(600)), msgEntry(user(700)));
    const call = assistantWithTools(800, [{ id: "second-0", name: "read" }]);
    const result = toolResult(810, "second-0", "read", "second prompt ".repeat(80));
    fake.branch.push(msgEntry(call), msgEntry(result));
    await fire("turn_end", { toolResults: [result], message: call, turnIndex: 0 });
    expect(fake.lastStatus()).toEndWith(" · 1 pending");
  });
});

describe("the supersession floor after a flush", () => {
  const indexOriginal = (state: any, text: string) =>
    state.indexer.addBatch(
      { turnIndex: 0, timestamp: 1, assistantText: "", toolCalls: [{ toolCallId: "orig", toolName: "read", args: {}, resultText: text, isError: false, resultTimestamp: 50 }] },
      () => {},
    );

  test("summarized batches lower it to their earliest result", async () => {
    const { state, fake } = direct({}, branchOf([{ id: "a", text: "x".repeat(500) }, { id: "b", text: "y".repeat(500) }]));
    await flushPending(state, fake.ctx, { delivery: "session" });
    expect(state.supersede.floor).toBe(210);
  });

  test("a trivial batch and an oversized batch leave it alone", async () => {
    const trivial = direct({ minBatchChars: 1000 }, branchOf([{ id: "a", text: "z".repeat(300) }]));
    await flushPending(trivial.state, trivial.fake.ctx, { delivery: "session" });
    expect(trivial.state.supersede.floor).toBeUndefined();
    streamImpl = () => streamReply("[[1:read]] " + "very long summary ".repeat(30));
    const oversized = direct({}, branchOf([{ id: "a", text: "short output".repeat(5) }]));
    await flushPending(oversized.state, oversized.fake.ctx, { delivery: "session" });
    expect(oversized.state.supersede.floor).toBeUndefined();
    streamImpl = () => streamReply("[[1:read]] ok");
  });

  test("a failed batch lowers it only at its dedup aliases, which are written whatever the batch's fate", async () => {
    streamImpl = () => streamReply("");
    const text = "same output ".repeat(50);
    const { state, fake } = direct({ batchingMode: "agent-message" }, branchOf([{ id: "fresh", text: "y".repeat(500) }, { id: "dup", text }]));
    indexOriginal(state, text);
    const result = await flushPending(state, fake.ctx, { delivery: "session" });
    expect(result).toEqual({ ok: false, reason: "summarizer-failed" });
    expect(state.supersede.floor).toBe(310);
    const alone = direct({}, branchOf([{ id: "fresh", text: "y".repeat(500) }]));
    await flushPending(alone.state, alone.fake.ctx, { delivery: "session" });
    expect(alone.state.supersede.floor).toBeUndefined();
    streamImpl = () => streamReply("[[1:read]] ok");
  });
});

describe("message_end chain threading", () => {
  test("the closing assistant message counts the newest chain as closed (scenario 20)", async () => {
    const branch = [
      msgEntry(user(100)),
      msgEntry(assistantWithTools(200, [{ id: "c1", name: "read" }])),
      msgEntry(toolResult(300, "c1", "read", "one ".repeat(200))),
      msgEntry(assistantText(400)),
      msgEntry(user(500)),
      msgEntry(assistantWithTools(600, [{ id: "c2", name: "read" }])),
      msgEntry(toolResult(700, "c2", "read", "two ".repeat(200))),
    ];
    const chain = { enabled: true, rollingWindow: 1, stripFinalAssistantThinking: true, fuseRangeSummary: false };
    const { host, fire } = await booted({ chainCompression: chain }, branch);
    await fire("message_end", { message: assistantText(800) });
    const chains = host.entries.filter((e) => e.customType === T.CUSTOM_TYPE_CHAIN);
    expect(chains.map((e) => e.data.startUserTimestamp)).toEqual([100]);
  });
});
