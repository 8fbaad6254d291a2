import { afterAll, describe, expect, mock, spyOn, test } from "bun:test";
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

let streamCalls = 0;
let streamImpl: (...args: any[]) => any = () => streamReply("[[1:read]] summary");
mock.module("@earendil-works/pi-ai/compat", () => ({
  ...actualCompat,
  stream: (...args: any[]) => {
    streamCalls++;
    return streamImpl(...args);
  },
}));

const { default: piCondense } = await import("../../index.js");
const { CUSTOM_TYPE_FLUSH_METRICS, CUSTOM_TYPE_INDEX } = await import("../names.js");

const BASE_SETTINGS = {
  enabled: true,
  // The rearmed work is summarized: every batch gets a summary (issue 26's choice has its own tests).
  summaries: "always",
  // The recovered read is the running prompt's latest view of its file: these tests check its stub, so no working set.
  workingSetPrompts: null,
  pruneOn: "agent-message",
  batchingMode: "agent-message",
  autoBudgetThreshold: 0.5,
  summarizerModel: "default",
  minBatchChars: 1,
  showPruneStatusLine: true,
  chainCompression: { enabled: false, rollingWindow: 3, stripFinalAssistantThinking: true, fuseRangeSummary: true },
};

const cleanups: Array<() => void> = [];
afterAll(() => cleanups.forEach((fn) => fn()));

function useSettings(overrides: Record<string, unknown> = {}): void {
  const agent = makeAgentDir({ ...BASE_SETTINGS, ...overrides });
  cleanups.push(agent.cleanup);
  process.env.PI_CODING_AGENT_DIR = agent.dir;
}

function defaultBranch(): any[] {
  return [
    msgEntry(user(100)),
    msgEntry(assistantWithTools(200, [{ id: "tc1", name: "read" }])),
    msgEntry(toolResult(300, "tc1", "read", "r".repeat(400))),
  ];
}

async function boot(opts: { settings?: Record<string, unknown>; branch?: any[]; usage?: number; fakeCtx?: any } = {}) {
  useSettings(opts.settings);
  const host = makeFakePi();
  piCondense(host.pi as any);
  const fake = makeFakeCtx(host, {
    branch: opts.branch ?? defaultBranch(),
    usage: { tokens: opts.usage ?? 600_000, contextWindow: 1_000_000 },
    ...opts.fakeCtx,
  });
  const fire = (name: string, event: any) => host.handlers.get(name)!(event, fake.ctx) as Promise<any>;
  await fire("session_start", {});
  const metricsEntries = () => host.entries.filter((e) => e.customType === CUSTOM_TYPE_FLUSH_METRICS);
  const render = () =>
    fire("context", { messages: fake.branch.filter((e) => e.type === "message").map((e) => e.message) });
  return { host, fake, fire, metricsEntries, render };
}

const toolResultFreeTurnEnd = { toolResults: [], message: assistantText(400, "thinking aloud"), turnIndex: 1 };

describe("extension load", () => {
  test("registers exactly one handler per event and touches nothing else on pi", () => {
    const host = makeFakePi();
    expect(() => piCondense(host.pi as any)).not.toThrow();
    expect(host.onCalls.sort()).toEqual([
      "agent_end",
      "before_agent_start",
      "before_provider_request",
      "cache_warming_decision",
      "context",
      "message_end",
      "model_select",
      "session_before_tree",
      "session_compact",
      "session_shutdown",
      "session_start",
      "session_tree",
      "thinking_level_select",
      "tool_call",
      "turn_end",
    ]);
    expect(host.tools.map((t) => t.name)).toEqual(["context_tree_query"]);
    expect([...host.commands.keys()]).toEqual(["pruner"]);
    expect(host.entries).toEqual([]);
    expect(host.sent).toEqual([]);
  });
});

describe("reload rearm", () => {
  test("a toolResult-free turn_end after a reload flushes recovered work under the budget gate (scenario 1)", async () => {
    streamCalls = 0;
    const { host, fire, render } = await boot();
    await fire("turn_end", toolResultFreeTurnEnd);
    expect(streamCalls).toBe(1);
    const index = host.entries.filter((e) => e.customType === CUSTOM_TYPE_INDEX);
    expect(index.map((e) => e.via)).toEqual(["session"]);
    const result = await render();
    const stub = result.messages.find((m: any) => m.role === "toolResult");
    expect(stub.content[0].text).toContain("context_tree_query");
  });

  test("a second toolResult-free turn_end does not call the summarizer again (scenario 2)", async () => {
    streamCalls = 0;
    const { fire, metricsEntries } = await boot();
    await fire("turn_end", toolResultFreeTurnEnd);
    await fire("turn_end", toolResultFreeTurnEnd);
    expect(streamCalls).toBe(1);
    expect(metricsEntries()).toHaveLength(1);
  });

  test("the rearmed flush writes one metrics entry with pre-flush gap, then message_end writes an empty one (scenario 3)", async () => {
    const { fire, metricsEntries } = await boot();
    await fire("turn_end", toolResultFreeTurnEnd);
    const [first] = metricsEntries();
    expect(first.data).toMatchObject({ trigger: "rearmed", outcome: "summarized", capturedBatches: 1, processedBatches: 1 });
    expect(first.data.metrics.frontierGapTokens).toBeGreaterThan(0);
    await fire("message_end", { message: assistantText(500) });
    const entries = metricsEntries();
    expect(entries).toHaveLength(2);
    expect(entries[1].data).toMatchObject({ trigger: "message-end", outcome: "empty", capturedBatches: 0, processedBatches: 0 });
  });

  test("agent_end shows recovered pending work after a reload (scenario 4)", async () => {
    const { fire, fake } = await boot({ settings: { autoBudgetThreshold: null } });
    await fire("agent_end", {});
    expect(fake.lastStatus()).toBe("\u2502 prune: recovered pending (reload)");
  });

  test("a failing rearm probe is logged and leaves the gate closed (scenario 5)", async () => {
    streamCalls = 0;
    const errors = spyOn(console, "error").mockImplementation(() => {});
    try {
      const { fire } = await boot({
        fakeCtx: {
          onGetBranch: (n: number) => {
            if (n === 4) throw new Error("branch unreadable");
          },
        },
      });
      expect(errors.mock.calls.some((args) => String(args[0]).includes("reload rearm probe"))).toBe(true);
      await fire("turn_end", toolResultFreeTurnEnd);
      expect(streamCalls).toBe(0);
    } finally {
      errors.mockRestore();
    }
  });

  test("a turn of only protected results never evaluates the gate, even with older work queued (scenario 6)", async () => {
    streamCalls = 0;
    const { fire, fake, metricsEntries } = await boot({ branch: [], settings: { protectedTools: ["secret_tool"] } });
    fake.setUsage(100);
    const readCall = assistantWithTools(200, [{ id: "r1", name: "read" }]);
    fake.branch.push(msgEntry(user(100)), msgEntry(readCall), msgEntry(toolResult(210, "r1", "read", "a".repeat(300))));
    await fire("turn_end", { toolResults: [toolResult(210, "r1", "read", "a".repeat(300))], message: readCall, turnIndex: 0 });
    fake.setUsage(900_000);
    const secretCall = assistantWithTools(300, [{ id: "s1", name: "secret_tool" }]);
    fake.branch.push(msgEntry(secretCall), msgEntry(toolResult(310, "s1", "secret_tool", "classified")));
    await fire("turn_end", { toolResults: [toolResult(310, "s1", "secret_tool", "classified")], message: secretCall, turnIndex: 1 });
    expect(streamCalls).toBe(0);
    expect(metricsEntries()).toHaveLength(0);
  });

  test("a failing chain write leaves exactly one summarized metrics entry (scenario 7)", async () => {
    const branch: any[] = [];
    for (let k = 0; k < 4; k++) {
      const base = 1000 * (k + 1);
      branch.push(
        msgEntry(user(base)),
        msgEntry(assistantWithTools(base + 100, [{ id: `c${k}`, name: "read" }])),
        msgEntry(toolResult(base + 200, `c${k}`, "read", `chain ${k} `.repeat(50))),
        msgEntry(assistantText(base + 300)),
      );
    }
    let chainWrites = 0;
    const { fire, metricsEntries } = await boot({
      branch,
      usage: 1000,
      settings: {
        batchingMode: "turn",
        chainCompression: { enabled: true, rollingWindow: 3, stripFinalAssistantThinking: true, fuseRangeSummary: true },
      },
      fakeCtx: {
        beforeSessionAppend: (type: string) => {
          if (type === "context-prune-chain") {
            chainWrites++;
            throw new Error("chain write refused");
          }
        },
      },
    });
    await fire("message_end", { message: assistantText(9000) });
    expect(chainWrites).toBeGreaterThan(0);
    const entries = metricsEntries();
    expect(entries).toHaveLength(1);
    expect(entries[0].data).toMatchObject({ outcome: "summarized", trigger: "message-end", capturedBatches: 4, processedBatches: 4 });
  });

  test("with a stale pi, an empty flush's metrics entry lands through the session manager only (scenario 8)", async () => {
    const { host, fire, metricsEntries } = await boot({ branch: [], usage: 1000 });
    host.piAppendThrows = true;
    await fire("message_end", { message: assistantText(500) });
    const entries = metricsEntries();
    expect(entries.map((e) => e.via)).toEqual(["session"]);
    expect(entries[0].data.outcome).toBe("empty");
  });

  test("with a stale pi, a summarizing flush's metrics entry lands through the session manager only (scenario 9)", async () => {
    const { host, fire, metricsEntries } = await boot({ usage: 1000 });
    host.piAppendThrows = true;
    await fire("message_end", { message: assistantText(500) });
    const entries = metricsEntries();
    expect(entries.map((e) => e.via)).toEqual(["session"]);
    expect(entries[0].data).toMatchObject({ outcome: "summarized", trigger: "message-end" });
  });

  test("a tool turn that adds a large thinking block leaves the footer as it was (spec 70 §4.4, supersedes scenario 10)", async () => {
    const { fire, fake, render } = await boot({ usage: 1000, settings: { protectedTools: ["secret_tool"] } });
    await render();
    const before = fake.lastStatus();
    const call = assistantWithTools(500, [{ id: "s1", name: "secret_tool" }], "t".repeat(4000));
    const result = toolResult(510, "s1", "secret_tool", "classified");
    fake.branch.push(msgEntry(call), msgEntry(result));
    await fire("turn_end", { toolResults: [result], message: call, turnIndex: 1 });
    await render();
    expect(fake.lastStatus()).toBe(before);
    expect(before).not.toMatch(/think|gap|chain/);
  });

  test("the /pruner status chain share counts a persisted summary message in the denominator (scenario 11)", async () => {
    const branch: any[] = [
      msgEntry(user(100)),
      msgEntry(assistantWithTools(200, [{ id: "c1", name: "read" }])),
      msgEntry(toolResult(300, "c1", "read", "data ".repeat(100))),
      msgEntry(assistantText(400)),
      {
        type: "custom_message",
        customType: "context-prune-summary",
        content: "s".repeat(3000),
        display: false,
        details: { toolCallRefs: [] },
        timestamp: new Date(450).toISOString(),
      },
      msgEntry(assistantText(500, "and more")),
    ];
    const { host, fake } = await boot({ branch, usage: 1000, settings: { autoBudgetThreshold: null } });
    await host.commands.get("pruner")!.handler("status", fake.ctx);
    const status = fake.notices.at(-1)?.message ?? "";
    const match = /largest prompt's work: +(\d+)% of the context/.exec(status);
    expect(match).not.toBeNull();
    // /pruner status shows the request view: what the provider receives of each message.
    const { requestChars: chars } = await import("../render/message-size.js");
    const messages = branch.slice(0, 4).map((e: any) => e.message);
    const projected = {
      role: "custom",
      customType: "context-prune-summary",
      content: "s".repeat(3000),
      display: false,
      details: { toolCallRefs: [] },
      timestamp: 450,
    };
    const chainChars = messages.reduce((sum: number, m: any) => sum + chars(m), 0);
    const total = chainChars + chars(projected) + chars(branch[5].message);
    expect(Number(match![1])).toBe(Math.round((100 * chainChars) / total));
    expect(Number(match![1])).toBeLessThan(Math.round((100 * chainChars) / (chainChars + chars(branch[5].message))));
  });

  test("a reload while batches are pending drops the queue but rearms on the recoverable work", async () => {
    streamCalls = 0;
    const { fire, fake } = await boot({ branch: [], usage: 1000, settings: { autoBudgetThreshold: null } });
    const call = assistantWithTools(200, [{ id: "p1", name: "read" }]);
    const result = toolResult(210, "p1", "read", "pending ".repeat(80));
    fake.branch.push(msgEntry(user(100)), msgEntry(call), msgEntry(result));
    await fire("turn_end", { toolResults: [result], message: call, turnIndex: 0 });
    expect(fake.lastStatus()).toBe("\u2502 prune: 1 pending");
    await fire("session_start", {});
    await fire("agent_end", {});
    expect(fake.lastStatus()).toBe("\u2502 prune: recovered pending (reload)");
    expect(streamCalls).toBe(0);
  });

  test("while disabled the footer says OFF and the turn hooks do nothing (scenario 12)", async () => {
    streamCalls = 0;
    const { host, fire, fake, render } = await boot({ settings: { enabled: false } });
    expect(fake.lastStatus()).toBe("\u2502 prune: OFF");
    const statusCount = fake.statuses.length;
    await fire("turn_end", toolResultFreeTurnEnd);
    await fire("message_end", { message: assistantText(500) });
    expect(await render()).toBeUndefined();
    expect(streamCalls).toBe(0);
    expect(host.entries).toEqual([]);
    expect(fake.statuses.length).toBe(statusCount);
  });
});
