import { afterEach, describe, expect, mock, spyOn, test } from "bun:test";
import * as actualCompat from "@earendil-works/pi-ai/compat";
import { assistantWithTools, makeFakeCtx, makeFakePi, msgEntry, streamReply, toolResult, user } from "../../test/fake-host.js";

let prompts: string[] = [];
let reply: (prompt: string) => any = () => streamReply("[[1:bash]] ok");
mock.module("@earendil-works/pi-ai/compat", () => ({
  ...actualCompat,
  stream: (_model: any, context: any) => {
    const prompt = context.messages[0].content[0].text;
    prompts.push(prompt);
    return reply(prompt);
  },
}));

const { createExtensionState } = await import("../host/extension-state.js");
const { flushPending } = await import("./flush.js");
const { pruneMessages } = await import("../render/pruner.js");
const { MAX_SUMMARY_ATTEMPTS, RETRY_BACKOFF_MS } = await import("./retry-ledger.js");
const { BATCH_BODY_HEADER } = await import("../chains/deterministic-body.js");
const { SUMMARY_FRAME } = await import("../format/summary-frame.js");
const T = { ...(await import("../names.js")), ...(await import("../settings/config-shape.js")) };

const BASE = {
  ...T.DEFAULT_CONFIG,
  enabled: true,
  minBatchChars: 1,
  chainCompression: { ...T.DEFAULT_CONFIG.chainCompression, enabled: false },
};

const failing = () => ({
  async *[Symbol.asyncIterator]() {},
  async result() {
    return { role: "assistant", stopReason: "error", errorMessage: "400 invalid request", content: [], usage: undefined };
  },
});

afterEach(() => {
  prompts = [];
  reply = () => streamReply("[[1:bash]] ok");
});

/** One user prompt, then one tool turn per entry. */
function branchOf(turns: Array<{ id: string; text: string; args?: any }>): any[] {
  const branch: any[] = [msgEntry(user(100))];
  turns.forEach((turn, k) => {
    const ts = 200 + k * 100;
    branch.push(msgEntry(assistantWithTools(ts, [{ id: turn.id, name: "bash", args: turn.args }])));
    branch.push(msgEntry(toolResult(ts + 10, turn.id, "bash", turn.text)));
  });
  return branch;
}

function setup(turns: Array<{ id: string; text: string; args?: any }>, config: Record<string, unknown> = {}) {
  const host = makeFakePi();
  const state = createExtensionState(host.pi as any);
  state.config.value = { ...BASE, ...config } as any;
  const fake = makeFakeCtx(host, { branch: branchOf(turns) });
  const ofType = (type: string) => host.entries.filter((e) => e.customType === type);
  const flush = () => flushPending(state, fake.ctx, { delivery: "session" });
  const render = () => pruneMessages(fake.branch.filter((e) => e.type === "message").map((e) => e.message), state.indexer);
  return { host, state, fake, ofType, flush, render };
}

const failsFor = (id: string) => (prompt: string) => (prompt.includes(`"id": "${id}"`) || prompt.includes(id) ? failing() : streamReply("[[1:bash]] ok"));

describe("a batch the summarizer cannot summarize is isolated", () => {
  test("the batches after a failed one are still summarized and stubbed", async () => {
    reply = failsFor("bad-call");
    const h = setup([
      { id: "first", text: "a".repeat(500) },
      { id: "bad-call", text: "b".repeat(500) },
      { id: "third", text: "c".repeat(500) },
    ]);
    const result = await h.flush();
    expect(result).toMatchObject({ ok: true, reason: "flushed", batchCount: 2 });
    expect(h.state.indexer.isSummarized("first@210")).toBe(true);
    expect(h.state.indexer.isSummarized("third@410")).toBe(true);
    expect(h.state.indexer.isSummarized("bad-call@310")).toBe(false);
    const stubbed = h.render().messages.filter((m: any) => m.role === "toolResult" && m.content[0].text.includes("context_tree_query"));
    expect(stubbed.map((m: any) => m.toolCallId)).toEqual(["first", "third"]);
  });

  test("the frontier stops before the failed batch and the failed batch is queued again", async () => {
    reply = failsFor("bad-call");
    const h = setup([
      { id: "first", text: "a".repeat(500) },
      { id: "bad-call", text: "b".repeat(500) },
      { id: "third", text: "c".repeat(500) },
    ]);
    await h.flush();
    expect(h.state.frontier.get()?.lastAttemptedToolCallId).toBe("first");
    expect(h.state.pending.map((b) => b.toolCalls[0]!.toolCallId)).toEqual(["bad-call"]);
  });

  test("a failure of the first batch writes no frontier but keeps the later summaries", async () => {
    reply = failsFor("bad-call");
    const h = setup([
      { id: "bad-call", text: "b".repeat(500) },
      { id: "second", text: "c".repeat(500) },
    ]);
    const result = await h.flush();
    expect(result).toMatchObject({ ok: true, batchCount: 1 });
    expect(h.ofType(T.CUSTOM_TYPE_FRONTIER)).toHaveLength(0);
    expect(h.ofType(T.CUSTOM_TYPE_SUMMARY)).toHaveLength(1);
    expect(h.ofType(T.CUSTOM_TYPE_FLUSH_METRICS)[0]!.data.outcome).toBe("summarized");
  });

  test("a failed batch is not retried while its backoff runs", async () => {
    reply = failsFor("bad-call");
    const h = setup([{ id: "bad-call", text: "b".repeat(500) }]);
    const clock = spyOn(Date, "now").mockReturnValue(1_000_000);
    try {
      await h.flush();
      clock.mockReturnValue(1_000_000 + RETRY_BACKOFF_MS - 1);
      const second = await h.flush();
      expect(prompts).toHaveLength(1);
      expect(second).toEqual({ ok: false, reason: "summarizer-failed" });
    } finally {
      clock.mockRestore();
    }
  });

  test("after its last attempt a failing batch is archived with a deterministic body and stubbed", async () => {
    reply = failsFor("bad-call");
    const h = setup([{ id: "bad-call", text: "b".repeat(1500) }]);
    const clock = spyOn(Date, "now").mockReturnValue(1_000_000);
    try {
      for (let attempt = 0; attempt < MAX_SUMMARY_ATTEMPTS; attempt++) {
        clock.mockReturnValue(1_000_000 + attempt * 10 * RETRY_BACKOFF_MS);
        await h.flush();
      }
    } finally {
      clock.mockRestore();
    }
    expect(prompts).toHaveLength(MAX_SUMMARY_ATTEMPTS);
    const summary = h.ofType(T.CUSTOM_TYPE_SUMMARY);
    expect(summary).toHaveLength(1);
    expect(summary[0]!.content!.startsWith(`${SUMMARY_FRAME}\n\n${BATCH_BODY_HEADER}`)).toBe(true);
    expect(summary[0]!.content).toContain("**Summarized tool refs**: `t1`");
    expect(h.state.indexer.getRecord("t1")?.resultText).toBe("b".repeat(1500));
    const stub = h.render().messages.find((m: any) => m.role === "toolResult");
    expect(stub!.content[0].text).toContain("`t1`");
    expect(h.fake.notices.filter((n) => n.type === "warning" && n.message.includes("could not summarize 1 tool output"))).toHaveLength(1);
  });

  test("once archived, the batch costs no further summarizer call", async () => {
    reply = failsFor("bad-call");
    const h = setup([{ id: "bad-call", text: "b".repeat(1500) }]);
    const clock = spyOn(Date, "now").mockReturnValue(1_000_000);
    try {
      for (let attempt = 0; attempt < MAX_SUMMARY_ATTEMPTS + 3; attempt++) {
        clock.mockReturnValue(1_000_000 + attempt * 10 * RETRY_BACKOFF_MS);
        await h.flush();
      }
    } finally {
      clock.mockRestore();
    }
    expect(prompts).toHaveLength(MAX_SUMMARY_ATTEMPTS);
  });

  test("an empty summarizer reply is reported once, however often it recurs", async () => {
    reply = () => streamReply("");
    const h = setup([{ id: "empty", text: "e".repeat(1500) }]);
    const clock = spyOn(Date, "now").mockReturnValue(1_000_000);
    try {
      for (let attempt = 0; attempt < MAX_SUMMARY_ATTEMPTS - 1; attempt++) {
        clock.mockReturnValue(1_000_000 + attempt * 10 * RETRY_BACKOFF_MS);
        await h.flush();
      }
    } finally {
      clock.mockRestore();
    }
    expect(h.fake.notices.filter((n) => n.message.includes("empty or cut-off summary"))).toHaveLength(1);
  });

  test("a batch too big for one summarizer call is archived without any call", async () => {
    const turns = Array.from({ length: 5000 }, (_, i) => ({ id: `c${i}`, text: `${i}:`.padEnd(200, "x") }));
    const h = setup(turns, { batchingMode: "agent-message" });
    const result = await h.flush();
    expect(prompts).toEqual([]);
    expect(result).toMatchObject({ ok: true, reason: "flushed", batchCount: 1, toolCallCount: 5000 });
    expect(h.ofType(T.CUSTOM_TYPE_SUMMARY)[0]!.content!.startsWith(`${SUMMARY_FRAME}\n\n${BATCH_BODY_HEADER}`)).toBe(true);
  });

  test("a 900 KB write argument reaches the summarizer windowed", async () => {
    const h = setup([{ id: "w", text: "wrote the file", args: { path: "big.txt", content: "x".repeat(900_000) } }]);
    await h.flush();
    expect(prompts).toHaveLength(1);
    expect(prompts[0]!.length).toBeLessThan(12_000);
    expect(prompts[0]).toContain("chars elided");
  });

  test("the batch prompt tells the summarizer about elided middles", async () => {
    const h = setup([{ id: "a", text: "a".repeat(500) }]);
    await h.flush();
    expect(prompts[0]).toContain("chars elided");
  });
});

describe("outputs the archive could not tell apart", () => {
  test("two results with the same id in the same millisecond are not summarized", async () => {
    const h = setup([{ id: "same", text: "a".repeat(500) }, { id: "same", text: "b".repeat(500) }, { id: "other", text: "c".repeat(500) }]);
    for (const entry of h.fake.branch) if (entry.message?.role === "toolResult" && entry.message.toolCallId === "same") entry.message.timestamp = 5555;
    await h.flush();
    expect(h.state.indexer.isSummarized("same@5555")).toBe(false);
    expect(h.state.indexer.isSummarized("other@410")).toBe(true);
  });
});
