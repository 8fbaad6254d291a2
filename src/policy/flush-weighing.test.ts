import { describe, expect, test } from "bun:test";
import type { CapturedBatch } from "../capture/records.js";
import { DeferralLedger } from "../economics/deferral-ledger.js";
import { type ChainWeighingInput, type FlushWeighingInput, inRunCandidates, weighChains, weighFlushBatches } from "./flush-weighing.js";

const batch = (turnIndex: number, userTurnGroup: number): CapturedBatch => ({ turnIndex, userTurnGroup, timestamp: turnIndex, assistantText: "", toolCalls: [] });
const turns = (batches: CapturedBatch[]) => batches.map((b) => b.turnIndex);

describe("inRunCandidates", () => {
  // Prompt 1 (group 1) left turns 0 and 1 deferred; the run of prompt 2 (group 2) is at turn 6.
  const pending = [batch(0, 1), batch(1, 1), batch(3, 2), batch(4, 2), batch(5, 2), batch(6, 2)];

  test("takes the run's own batches except the two latest tool turns", () => {
    expect(turns(inRunCandidates(pending, 6, false))).toEqual([3, 4]);
  });

  test("with the rewrite forced it takes earlier prompts' deferred batches too", () => {
    expect(turns(inRunCandidates(pending, 6, true))).toEqual([0, 1, 3, 4]);
  });

  test("early in a run nothing is old enough", () => {
    expect(inRunCandidates([batch(0, 1), batch(3, 2)], 3, false)).toEqual([]);
  });

  test("live sight's extra turns keep that many more of the latest tool turns raw", () => {
    expect(turns(inRunCandidates(pending, 7, false, 2))).toEqual([3]);
    expect(turns(inRunCandidates(pending, 7, true, 2))).toEqual([0, 1, 3]);
  });
});

const SONNET = { priced: true, prices: { input: 3e-6, output: 15e-6, cacheRead: 0.3e-6, cacheWrite: 3.75e-6 }, ttlMs: 300_000, notes: [], label: "anthropic/claude-sonnet-4-5" };
const WARM = { temperature: "warm" as const, expiresInMs: 200_000, lastHitRate: 0.9, requests: 3 };
const call = (id: string, chars: number) => ({ toolCallId: id, toolName: "read", args: {}, resultText: "x".repeat(chars), isError: false, resultTimestamp: 1 });
const output = (id: string, chars: number) => ({ role: "toolResult", toolCallId: id, toolName: "read", content: [{ type: "text", text: "x".repeat(chars) }], isError: false, timestamp: 1 });
const user = (text: string) => ({ role: "user", content: [{ type: "text", text }], timestamp: 0 });

function weighing(batches: CapturedBatch[], messages: any[], over: Partial<FlushWeighingInput> = {}): FlushWeighingInput {
  return {
    moment: "final-reply",
    batches,
    messages,
    minBatchChars: 1_000,
    withoutSummary: () => true,
    cache: WARM,
    main: SONNET,
    summarizer: SONNET,
    contextFraction: 0.1,
    pressure: 0.6,
    promptsSoFar: 1,
    runRequests: 3,
    cacheRule: { rule: "longest-prefix", breakpoint: false },
    ...over,
  };
}

describe("weighFlushBatches", () => {
  test("waiting outputs all under the minimum batch size apply at once: nothing is rewritten", () => {
    const small = { ...batch(0, 1), toolCalls: [call("a", 300)] };
    const d = weighFlushBatches(weighing([small], [user("go"), output("a", 300)]));
    expect(d.apply).toBe(true);
    expect(d.record.reason).toContain("under the minimum batch size");
  });

  test("within a run, waiting outputs all under the minimum batch size wait for the reply: no flush after every tool turn", () => {
    const small = { ...batch(0, 1), toolCalls: [call("a", 300)] };
    expect(weighFlushBatches(weighing([small], [user("go"), output("a", 300)], { moment: "in-run" })).apply).toBe(false);
  });

  test("small batches are left out of the measure of the others", () => {
    const big = { ...batch(2, 1), toolCalls: [call("b", 4_000)] };
    const small = { ...batch(0, 1), toolCalls: [call("a", 300)] };
    const messages = [user("go"), output("a", 300), user("x".repeat(40_000)), output("b", 4_000)];
    const both = weighFlushBatches(weighing([small, big], messages));
    const alone = weighFlushBatches(weighing([big], messages));
    expect(both.record.figures?.suffixTokens).toBe(alone.record.figures?.suffixTokens);
  });

  test("with a ledger, a wait goes on its account with what each output saves per request", () => {
    const ledger = new DeferralLedger();
    const big = { ...batch(0, 1), toolCalls: [call("b", 4_000)] };
    const messages = [user("go"), output("b", 4_000), user("x".repeat(200_000))];
    const d = weighFlushBatches(weighing([big], messages, { bound: { ledger, kind: "reply", enter: true } }));
    expect(d.apply).toBe(false);
    const [[key, saving]] = [...ledger.account("reply")!.items];
    expect(key).toBe("b@1");
    // The output's size in the request (its JSON) less a stub, at the cache-read price: no summary replaces a copy.
    expect(saving / (((4_000 - 200) / 4) * 0.3e-6)).toBeWithin(1, 1.05);
  });
});

describe("weighChains", () => {
  const chainMessages = [user("one"), { role: "assistant", content: [{ type: "text", text: "a".repeat(80_000) }], timestamp: 2 }, user("two")];
  const input = (ledger: DeferralLedger, over: Partial<ChainWeighingInput> = {}): ChainWeighingInput => ({
    messages: chainMessages,
    ranges: [{ startIndex: 0, endIndex: 2 }],
    flushStart: 3,
    stubbed: () => false,
    expectedRequests: 50,
    now: 10,
    fused: false,
    main: SONNET,
    summarizer: SONNET,
    cacheRule: { rule: "longest-prefix", breakpoint: false },
    ledger,
    ...over,
  });

  test("a chain pass that pays compresses", () => {
    expect(weighChains(input(new DeferralLedger()))?.apply).toBe(true);
  });

  test("a chain pass that does not pay waits on the chains' account", () => {
    const ledger = new DeferralLedger();
    expect(weighChains(input(ledger, { expectedRequests: 0.1 }))?.apply).toBe(false);
    expect(ledger.account("chains")?.items.has("chain@0")).toBe(true);
  });

  test("once waiting for it has cost what it owed, the chain pass compresses on the bound", () => {
    const ledger = new DeferralLedger();
    weighChains(input(ledger, { expectedRequests: 0.1 }));
    for (let i = 0; i < 1_000 && !ledger.due("chains", 0); i++) ledger.charge(() => true);
    expect(weighChains(input(ledger, { expectedRequests: 0.1 }))?.apply).toBe(true);
    expect(ledger.settled().at(-1)).toMatchObject({ kind: "chains", bound: true });
  });

  test("no eligible chain: nothing to weigh", () => {
    expect(weighChains(input(new DeferralLedger(), { ranges: [] }))).toBeUndefined();
  });
});
