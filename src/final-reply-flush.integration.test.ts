import { afterAll, describe, expect, mock, test } from "bun:test";
import * as actualCompat from "@earendil-works/pi-ai/compat";
import { assistantText, makeAgentDir, msgEntry, streamReply } from "../test/fake-host.js";
import { startSim } from "../test/session-sim.js";

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

const { attemptCeilingMs, SUMMARIZER_HARD_CEILING_MS } = await import("./summarizer.js");
const T = await import("./types.js");

const cleanups: Array<() => void> = [];
afterAll(() => cleanups.forEach((fn) => fn()));

function useSettings(): void {
  const agent = makeAgentDir({ enabled: true, minBatchChars: 1, chainCompression: { enabled: false } });
  cleanups.push(agent.cleanup);
  process.env.PI_CODING_AGENT_DIR = agent.dir;
}

function holdSummarizer(): void {
  gate = new Promise<void>((resolve) => (release = resolve));
}

/** A session where one tool turn has happened and the final reply is about to end. */
async function beforeFinalReply() {
  useSettings();
  const sim = await startSim();
  sim.fake.branch.push(msgEntry({ role: "user", content: [{ type: "text", text: "count" }], timestamp: 10 }));
  const call = { role: "assistant", content: [{ type: "toolCall", id: "c1", name: "bash", arguments: { command: "seq 400" } }], stopReason: "toolUse", timestamp: 20 };
  const res = { role: "toolResult", toolCallId: "c1", toolName: "bash", content: [{ type: "text", text: "1\n".repeat(400) }], isError: false, timestamp: 30 };
  sim.fake.branch.push(msgEntry(call), msgEntry(res));
  await sim.fire("turn_end", { message: call, toolResults: [res], turnIndex: 0 });
  const final = assistantText(40, "Counted.");
  const ofType = (type: string) => sim.host.entries.filter((e) => e.customType === type);
  return { sim, final, ofType };
}

describe("the final-reply flush never holds up the reply's write", () => {
  test("message_end returns while the summarizer is still running", async () => {
    holdSummarizer();
    const { sim, final, ofType } = await beforeFinalReply();
    await sim.fire("message_end", { message: final });
    expect(calls).toBeGreaterThan(0);
    expect(ofType(T.CUSTOM_TYPE_SUMMARY)).toEqual([]);
    release();
    await sim.fire("turn_end", { message: final, toolResults: [], turnIndex: 1 });
  });

  test("the turn_end after the reply waits for the summary, which lands after the reply", async () => {
    holdSummarizer();
    const { sim, final, ofType } = await beforeFinalReply();
    await sim.fire("message_end", { message: final });
    sim.fake.branch.push(msgEntry(final));
    const turnEnd = sim.fire("turn_end", { message: final, toolResults: [], turnIndex: 1 });
    release();
    await turnEnd;
    expect(ofType(T.CUSTOM_TYPE_SUMMARY)).toHaveLength(1);
    const positions = sim.fake.branch.map((e: any) => (e.type === "message" ? e.message.role : e.customType));
    expect(positions.indexOf(T.CUSTOM_TYPE_SUMMARY)).toBeGreaterThan(positions.lastIndexOf("assistant"));
  });

  test("a flush with nothing to summarize completes within message_end", async () => {
    useSettings();
    const sim = await startSim();
    await sim.fire("message_end", { message: assistantText(40, "Nothing to do.") });
    expect(sim.host.entries.filter((e) => e.customType === T.CUSTOM_TYPE_FLUSH_METRICS).map((e) => e.data.outcome)).toEqual(["empty"]);
  });

  test("leaving the session abandons a running summarizer call at once and keeps its batch pending", async () => {
    holdSummarizer();
    const { sim, final, ofType } = await beforeFinalReply();
    await sim.fire("message_end", { message: final });
    await sim.fire("session_shutdown", { reason: "quit" });
    expect(ofType(T.CUSTOM_TYPE_SUMMARY)).toEqual([]);
    expect(ofType(T.CUSTOM_TYPE_INDEX)).toEqual([]);
    expect(ofType(T.CUSTOM_TYPE_FLUSH_METRICS).map((e) => e.data.outcome)).toEqual(["error"]);
    release();
  });
});

describe("summarizer waits are bounded", () => {
  test("a ceiling of 0 means the hard ceiling, not no ceiling", () => {
    expect(attemptCeilingMs({ summarizerMaxTimeoutMs: 0 })).toBe(SUMMARIZER_HARD_CEILING_MS);
    expect(attemptCeilingMs({ summarizerMaxTimeoutMs: 180_000 })).toBe(180_000);
  });
});
