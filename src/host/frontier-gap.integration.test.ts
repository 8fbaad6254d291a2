// The opt-in frontierGapThresholdTokens trigger at the turn_end gate, through index.ts (spec 70 §5.2).
import { afterAll, describe, expect, spyOn, test } from "bun:test";
import piCondense from "../../index.js";
import {
  assistantText,
  assistantWithTools,
  makeAgentDir,
  makeFakeCtx,
  makeFakePi,
  msgEntry,
  toolResult,
  user,
} from "../../test/fake-host.js";
import { CUSTOM_TYPE_FLUSH_METRICS, CUSTOM_TYPE_FRONTIER } from "../names.js";

const GAP_NOTICE = "pruner: tool output not yet summarized passed your threshold \u2014";

const cleanups: Array<() => void> = [];
afterAll(() => cleanups.forEach((fn) => fn()));

/** 51 text-only turns (assistant turns 0..50) and a frontier persisted at turn 50. */
function seededBranch(): any[] {
  const branch: any[] = [];
  for (let i = 0; i <= 50; i++) branch.push(msgEntry(user(i * 10)), msgEntry(assistantText(i * 10 + 5)));
  branch.push({
    type: "custom",
    customType: CUSTOM_TYPE_FRONTIER,
    data: {
      lastAttemptedToolCallId: "seed",
      lastAttemptedToolName: "bash",
      lastAttemptedTurnIndex: 50,
      lastAttemptedTimestamp: 505,
      attemptedBatchCount: 1,
      attemptedToolCallCount: 1,
      rawCharCount: 10,
      summaryCharCount: 5,
      outcome: "summarized",
    },
  });
  branch.push(msgEntry(user(1000)));
  return branch;
}

interface BootOptions {
  settings?: Record<string, unknown>;
  branch?: any[];
  tokens?: number;
  failMetrics?: boolean;
}

async function boot(opts: BootOptions = {}) {
  const agent = makeAgentDir({
    enabled: true,
    showPruneStatusLine: true,
    autoBudgetThreshold: null,
    budgetTurnDelta: null,
    frontierGapThresholdTokens: 1000,
    // Every batch is trivial: archived without a summarizer call.
    minBatchChars: 1_000_000,
    chainCompression: { enabled: false },
    ...opts.settings,
  });
  cleanups.push(agent.cleanup);
  process.env.PI_CODING_AGENT_DIR = agent.dir;
  const host = makeFakePi();
  piCondense(host.pi as any);
  const stacks: string[] = [];
  const fake = makeFakeCtx(host, {
    branch: opts.branch ?? seededBranch(),
    usage: { tokens: opts.tokens ?? 1000, contextWindow: 1_000_000 },
    onGetBranch: () => {
      const stack = new Error().stack ?? "";
      stacks.push(stack);
      if (opts.failMetrics && stack.includes("computeMetricsSnapshot")) throw new Error("branch unreadable");
    },
  });
  const fire = (name: string, event: any) => host.handlers.get(name)!(event, fake.ctx) as Promise<any>;
  await fire("session_start", {});
  let ts = 2000;
  /** One tool turn: the call and a result of `chars` characters land on the branch, then turn_end. */
  const toolTurn = async (id: string, chars: number) => {
    const call = assistantWithTools(ts, [{ id, name: "bash", args: { command: id } }]);
    const result = toolResult(ts + 5, id, "bash", "x".repeat(chars));
    ts += 100;
    fake.branch.push(msgEntry(call), msgEntry(result));
    await fire("turn_end", { message: call, toolResults: [result], turnIndex: 0 });
  };
  const metricsEntries = () => host.entries.filter((e) => e.customType === CUSTOM_TYPE_FLUSH_METRICS);
  const gapNotices = () => fake.notices.filter((n) => n.message.startsWith(GAP_NOTICE));
  const gateSnapshots = () => stacks.filter((s) => s.includes("computeMetricsSnapshot") && s.includes("evaluateBudgetGate")).length;
  return { host, fake, fire, toolTurn, metricsEntries, gapNotices, gateSnapshots };
}

describe("the frontier-gap trigger", () => {
  test("two tool turns: the one that brings the gap to the threshold flushes, with trigger frontier-gap", async () => {
    const { toolTurn, metricsEntries, gapNotices, fake } = await boot();
    await toolTurn("tc1", 2000);
    expect(metricsEntries()).toHaveLength(0);
    await toolTurn("tc2", 2000);
    const entries = metricsEntries();
    expect(entries).toHaveLength(1);
    expect(entries[0]!.via).toBe("session");
    expect(entries[0]!.data).toMatchObject({ trigger: "frontier-gap", capturedBatches: 2, processedBatches: 2 });
    expect(entries[0]!.data.metrics.frontierGapTokens).toBeGreaterThanOrEqual(1000);
    expect(gapNotices()).toEqual([
      { message: "pruner: tool output not yet summarized passed your threshold \u2014 summarizing 2 waiting tool turns now", type: "info" },
    ]);
    expect(fake.notices.some((n) => n.message.startsWith("pruner: the context"))).toBe(false);
  });

  test("a single pending turn is named in the singular", async () => {
    const { toolTurn, gapNotices } = await boot();
    await toolTurn("tc1", 5000);
    expect(gapNotices().map((n) => n.message)).toEqual([
      "pruner: tool output not yet summarized passed your threshold \u2014 summarizing 1 waiting tool turn now",
    ]);
  });

  test("the flush resets the gap: the next small turn does not fire again", async () => {
    const { toolTurn, metricsEntries } = await boot();
    await toolTurn("tc1", 2000);
    await toolTurn("tc2", 2000);
    await toolTurn("tc3", 2000);
    expect(metricsEntries()).toHaveLength(1);
  });

  test("budget and gap hit on the same turn: trigger budget, with the budget notice", async () => {
    const { toolTurn, metricsEntries, gapNotices, fake } = await boot({ settings: { autoBudgetThreshold: 0.5 }, tokens: 600_000 });
    await toolTurn("tc1", 5000);
    expect(metricsEntries().map((e) => e.data.trigger)).toEqual(["budget"]);
    expect(fake.notices.map((n) => n.message)).toContain("pruner: the context reached your auto-flush budget \u2014 summarizing 1 waiting tool turn now");
    expect(gapNotices()).toEqual([]);
  });

  test("delta and gap hit on the same turn: trigger delta, with the delta notice", async () => {
    const { fake, toolTurn, metricsEntries, gapNotices } = await boot({ settings: { budgetTurnDelta: 0.1 }, tokens: 1000 });
    await toolTurn("tc1", 100);
    fake.setUsage(200_000);
    await toolTurn("tc2", 5000);
    expect(metricsEntries().map((e) => e.data.trigger)).toEqual(["delta"]);
    expect(fake.notices.map((n) => n.message)).toContain("pruner: the context grew past your per-turn limit \u2014 summarizing 2 waiting tool turns now");
    expect(gapNotices()).toEqual([]);
  });

  test("with the threshold null there is no gap flush and no snapshot is computed at the gate", async () => {
    const { toolTurn, metricsEntries, gapNotices, gateSnapshots } = await boot({ settings: { frontierGapThresholdTokens: null } });
    await toolTurn("tc1", 20_000);
    await toolTurn("tc2", 20_000);
    expect(metricsEntries()).toHaveLength(0);
    expect(gapNotices()).toEqual([]);
    expect(gateSnapshots()).toBe(0);
  });

  test("with a threshold set, each gated turn computes a fresh snapshot", async () => {
    const { toolTurn, gateSnapshots } = await boot({ settings: { frontierGapThresholdTokens: 1_000_000 } });
    await toolTurn("tc1", 100);
    await toolTurn("tc2", 100);
    expect(gateSnapshots()).toBe(2);
  });

  test("a failed computation does not fire (no earlier snapshot stands in) and is logged", async () => {
    const errors = spyOn(console, "error").mockImplementation(() => {});
    try {
      const { toolTurn, metricsEntries } = await boot({ failMetrics: true });
      await toolTurn("tc1", 20_000);
      await toolTurn("tc2", 20_000);
      expect(metricsEntries()).toHaveLength(0);
      expect(errors.mock.calls.filter((args) => args[0] === "pi-condense: context metrics computation failed")).toHaveLength(2);
    } finally {
      errors.mockRestore();
    }
  });

  test("work recovered after a reload with an empty queue: trigger rearmed, with the recovered-work notice", async () => {
    const branch = seededBranch();
    branch.push(
      msgEntry(assistantWithTools(1100, [{ id: "old", name: "bash" }])),
      msgEntry(toolResult(1105, "old", "bash", "y".repeat(8000))),
    );
    const { fire, metricsEntries, gapNotices } = await boot({ branch });
    await fire("turn_end", { message: assistantText(1200, "thinking aloud"), toolResults: [], turnIndex: 1 });
    expect(metricsEntries().map((e) => e.data.trigger)).toEqual(["rearmed"]);
    expect(gapNotices().map((n) => n.message)).toEqual([
      "pruner: tool output not yet summarized passed your threshold \u2014 summarizing tool output found after the reload",
    ]);
  });
});
