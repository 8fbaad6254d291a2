// The footer without context metrics, metrics computed only on demand, and the startup widget (spec 70 §4, §11).
import { afterAll, describe, expect, test } from "bun:test";
import piCondense from "../../index.js";
import { assistantWithTools, makeAgentDir, makeFakeCtx, makeFakePi, msgEntry, toolResult, user } from "../../test/fake-host.js";
import { refreshStatus } from "../ui/status-refresh.js";
import { DEFAULT_CONFIG } from "../settings/config-shape.js";

const cleanups: Array<() => void> = [];
afterAll(() => cleanups.forEach((fn) => fn()));

/** A session whose only tool output (about 195k tokens) is unsummarized past the frontier. */
async function bootWithLargeGap() {
  const agent = makeAgentDir({ enabled: true, showPruneStatusLine: true, pruneOn: "on-demand", autoBudgetThreshold: null });
  cleanups.push(agent.cleanup);
  process.env.PI_CODING_AGENT_DIR = agent.dir;
  const host = makeFakePi();
  piCondense(host.pi as any);
  const stacks: string[] = [];
  const branch = [
    msgEntry(user(100)),
    msgEntry(assistantWithTools(200, [{ id: "tc1", name: "read" }])),
    msgEntry(toolResult(300, "tc1", "read", "r".repeat(780_000))),
  ];
  const fake = makeFakeCtx(host, { branch, onGetBranch: () => stacks.push(new Error().stack ?? "") });
  const fire = (name: string, event: any) => host.handlers.get(name)!(event, fake.ctx) as Promise<any>;
  const metricsReads = () => stacks.filter((stack) => stack.includes("computeMetricsSnapshot")).length;
  return { host, fake, fire, metricsReads };
}

describe("the live footer", () => {
  test("shows the reclaim and the diagnostics, and no metrics suffix", () => {
    const statuses: Array<string | undefined> = [];
    const state = {
      config: { value: { ...DEFAULT_CONFIG, enabled: true, showPruneStatusLine: true } },
      stats: { getLiveReclaim: () => ({ beforeChars: 368_000, afterChars: 56_000 }) },
      diagnostics: { counts: () => ({ "unresolved-range": 2, "range-id-mismatch": 0, "orphan-sweep": 1, "backfill-empty": 0 }) },
      // What the 2.9.1 state carried for the footer; nothing may read it now.
      metricsCache: { openCycleThinkingTokens: 12_000, largestChainSharePct: 62, frontierGapTokens: 195_000 },
    };
    refreshStatus(state, { ui: { setStatus: (_id: string, text?: string) => statuses.push(text) } } as any);
    expect(statuses).toEqual(["\u2502 prune: ON \u00b7 92.0k->14.0k (-85%) \u00b7 diag u2/o1"]);
  });

  test("carries no think/gap/chain figures although the frontier gap is about 195k tokens", async () => {
    const { fake, fire } = await bootWithLargeGap();
    await fire("session_start", {});
    await fire("context", { messages: fake.branch.map((e: any) => e.message) });
    expect(fake.lastStatus()).toBe("\u2502 prune: ON");
  });
});

describe("the footer figure counts what the provider receives", () => {
  test("a summarized result's 31.7k-char details and the timestamps are not in the reclaim", async () => {
    // The read is the running prompt's latest view of its file: without the working set it is stubbed.
    const agent = makeAgentDir({ enabled: true, showPruneStatusLine: true, pruneOn: "on-demand", autoBudgetThreshold: null, workingSetPrompts: null });
    cleanups.push(agent.cleanup);
    process.env.PI_CODING_AGENT_DIR = agent.dir;
    const host = makeFakePi();
    piCondense(host.pi as any);
    const result = { ...toolResult(300, "q1", "read", "o".repeat(4000)), details: { copy: "d".repeat(31_700) } };
    const record = { toolCallId: "q1", toolName: "read", args: {}, resultText: "o".repeat(4000), isError: false, turnIndex: 0, timestamp: 200, resultTimestamp: 300 };
    const branch = [
      msgEntry(user(100)),
      msgEntry(assistantWithTools(200, [{ id: "q1", name: "read" }])),
      msgEntry(result),
      { type: "custom", customType: "context-prune-index", data: { toolCalls: [record], refs: [{ shortId: "t1", toolCallId: "q1", resultTimestamp: 300 }] } },
    ];
    const fake = makeFakeCtx(host, { branch });
    await host.handlers.get("session_start")!({}, fake.ctx);
    await host.handlers.get("context")!({ messages: branch.slice(0, 3).map((e: any) => e.message) }, fake.ctx);
    const match = /prune: ON \u00b7 ([\d.]+)k->/.exec(fake.lastStatus() ?? "");
    expect(match).not.toBeNull();
    // About 4k chars of output and a few hundred of framing: ~1.1k tokens, not ~9k.
    expect(Number(match![1])).toBeLessThan(1.5);
  });
});

describe("metrics on demand", () => {
  test("/pruner status still reports the context block with the frontier gap", async () => {
    const { host, fake, fire } = await bootWithLargeGap();
    await fire("session_start", {});
    await host.commands.get("pruner")!.handler("status", fake.ctx);
    const text = fake.notices.at(-1)!.message;
    expect(text).toContain("--- context now (what the provider receives) ---");
    expect(text).toMatch(/tool output not yet summarized: +195\.\dk tokens/);
  });

  test("session_start, session_tree and a tool-result turn_end compute no metrics", async () => {
    const { fake, fire, metricsReads } = await bootWithLargeGap();
    await fire("session_start", {});
    await fire("session_tree", {});
    const call = assistantWithTools(400, [{ id: "tc2", name: "read" }]);
    const result = toolResult(410, "tc2", "read", "more ".repeat(300));
    fake.branch.push(msgEntry(call), msgEntry(result));
    await fire("turn_end", { toolResults: [result], message: call, turnIndex: 1 });
    expect(metricsReads()).toBe(0);
  });

  test("/pruner status computes them afresh every time", async () => {
    const { host, fake, fire, metricsReads } = await bootWithLargeGap();
    await fire("session_start", {});
    await host.commands.get("pruner")!.handler("status", fake.ctx);
    await host.commands.get("pruner")!.handler("status", fake.ctx);
    expect(metricsReads()).toBe(2);
  });
});

describe("the startup widget (spec 70 §11)", () => {
  async function startWith(showPruneStatusLine: boolean) {
    const agent = makeAgentDir({ enabled: true, showPruneStatusLine });
    cleanups.push(agent.cleanup);
    process.env.PI_CODING_AGENT_DIR = agent.dir;
    const host = makeFakePi();
    piCondense(host.pi as any);
    const fake = makeFakeCtx(host, { branch: [] });
    await host.handlers.get("session_start")!({}, fake.ctx);
    return fake.widgets.filter((w) => w.id === "pruner-boot");
  }

  test("is shown at session_start while the status line is on", async () => {
    expect(await startWith(true)).toEqual([{ id: "pruner-boot", lines: ["pruner loaded \u2014 pruning ON | model: default"] }]);
  });

  test("is never created when showPruneStatusLine is false", async () => {
    expect(await startWith(false)).toEqual([]);
  });

  test("/pruner on takes it away at once, so it never contradicts the footer", async () => {
    const agent = makeAgentDir({ enabled: false, showPruneStatusLine: true });
    cleanups.push(agent.cleanup);
    process.env.PI_CODING_AGENT_DIR = agent.dir;
    const host = makeFakePi();
    piCondense(host.pi as any);
    const fake = makeFakeCtx(host, { branch: [] });
    await host.handlers.get("session_start")!({}, fake.ctx);
    await host.commands.get("pruner")!.handler("on", fake.ctx);
    expect(fake.widgets.filter((w) => w.id === "pruner-boot").map((w) => w.lines)).toEqual([["pruner loaded \u2014 pruning OFF | model: default"], undefined]);
  });
});
