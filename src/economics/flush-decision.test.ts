import { describe, expect, test } from "bun:test";
import type { CacheState } from "./cache-tracker.js";
import type { CostModel } from "./cost-model.js";
import { DeferralLedger } from "./deferral-ledger.js";
import { type DecisionInput, decideFlush, withDeferralBound } from "./flush-decision.js";

/** claude-sonnet-4-5 and claude-haiku-4-5 prices, dollars per token. */
const SONNET: CostModel = { priced: true, prices: { input: 3e-6, output: 15e-6, cacheRead: 0.3e-6, cacheWrite: 3.75e-6 }, ttlMs: 300_000, notes: [], label: "anthropic/claude-sonnet-4-5" };
const HAIKU: CostModel = { priced: true, prices: { input: 1e-6, output: 5e-6, cacheRead: 0.1e-6, cacheWrite: 1.25e-6 }, ttlMs: 300_000, notes: [], label: "anthropic/claude-haiku-4-5" };
const UNPRICED: CostModel = { priced: false, prices: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, ttlMs: 300_000, notes: [], label: "local/llama" };

const warm = (requests: number): CacheState => ({ temperature: "warm", expiresInMs: 200_000, lastHitRate: 0.9, requests });

function input(over: Partial<DecisionInput> = {}): DecisionInput {
  return {
    moment: "final-reply",
    cache: warm(20),
    main: SONNET,
    summarizer: HAIKU,
    figures: { suffixTokens: 10_000, removedTokens: 9_000, summaryTokens: 1_400, summarizerInputTokens: 9_500 },
    contextFraction: 0.2,
    pressure: 0.6,
    promptsSoFar: 4,
    runRequests: 3,
    ...over,
  };
}

describe("decideFlush", () => {
  test("a large removal near the end of a long session pays, with the figures recorded", () => {
    const d = decideFlush(input());
    expect(d.apply).toBe(true);
    expect(d.record.basis).toBe("pays");
    expect(d.record.figures?.removedTokens).toBe(9_000);
    expect(d.record.figures?.netSaving).toBeGreaterThan(0);
    expect(d.record.cache).toEqual({ temperature: "warm", expiresInMs: 200_000, lastHitRate: 0.9 });
  });

  test("a small removal deep in a warm prompt waits", () => {
    const d = decideFlush(input({ figures: { suffixTokens: 60_000, removedTokens: 3_000, summaryTokens: 450, summarizerInputTokens: 3_000 }, cache: warm(3), promptsSoFar: 1 }));
    expect(d.apply).toBe(false);
    expect(d.record.verdict).toBe("defer");
    expect(d.record.basis).toBe("wait");
    expect(d.record.reason).toContain("waiting until it pays or the cache expires");
  });

  test("context pressure applies whatever the cache says", () => {
    const d = decideFlush(input({ figures: { suffixTokens: 60_000, removedTokens: 100, summaryTokens: 15, summarizerInputTokens: 100 }, contextFraction: 0.65 }));
    expect(d.apply).toBe(true);
    expect(d.record.basis).toBe("pressure");
    expect(d.record.reason).toBe("the context is at 65% of the window, past the 60% pressure line");
  });

  test("pressure set to null never fires", () => {
    const d = decideFlush(input({ figures: { suffixTokens: 60_000, removedTokens: 100, summaryTokens: 15, summarizerInputTokens: 100 }, contextFraction: 0.99, pressure: null }));
    expect(d.record.basis).toBe("wait");
  });

  test("an expired cache applies: the rewrite is free", () => {
    const d = decideFlush(input({ cache: { temperature: "cold", requests: 8 }, figures: undefined }));
    expect(d.apply).toBe(true);
    expect(d.record.basis).toBe("cold");
  });

  test("the cold moment applies even before any request was seen", () => {
    expect(decideFlush(input({ moment: "cold", cache: { temperature: "cold", requests: 0 } })).record.basis).toBe("cold");
  });

  test("an unpriced model decides as 2.9.1: apply at the final reply, nothing within a run", () => {
    const reply = decideFlush(input({ main: UNPRICED }));
    expect(reply.apply).toBe(true);
    expect(reply.record.basis).toBe("fallback");
    expect(reply.record.reason).toBe("local/llama has no price in the catalog: summarizing at the agent's final reply, as the classic policy does");
    expect(decideFlush(input({ main: UNPRICED, moment: "in-run" })).apply).toBe(false);
  });

  test("a provider that reports no cache use, or no usage at all, falls back", () => {
    const unknown = decideFlush(input({ cache: { temperature: "unknown", reason: "the provider reports no cache use", requests: 5 } }));
    expect(unknown.record).toMatchObject({ basis: "fallback", verdict: "apply", reason: "the provider reports no cache use: summarizing at the agent's final reply, as the classic policy does" });
    const none = decideFlush(input({ cache: { temperature: "cold", requests: 0 } }));
    expect(none.record.reason).toBe("the provider reports no usage: summarizing at the agent's final reply, as the classic policy does");
  });

  test("a rewrite that could not be measured falls back", () => {
    expect(decideFlush(input({ figures: undefined })).record.reason).toBe("the request could not be measured: summarizing at the agent's final reply, as the classic policy does");
  });

  test("within a run the horizon is the run's own length so far; after a reply, the session's weighed by another prompt's odds", () => {
    const figures = { suffixTokens: 20_000, removedTokens: 12_000, summaryTokens: 1_800, summarizerInputTokens: 12_000 };
    const inRun = decideFlush(input({ moment: "in-run", cache: warm(40), figures, promptsSoFar: 1, runRequests: 6 }));
    const afterReply = decideFlush(input({ moment: "final-reply", cache: warm(40), figures, promptsSoFar: 1, runRequests: 6 }));
    expect(inRun.record.figures!.expectedRequests).toBe(6);
    expect(afterReply.record.figures!.expectedRequests).toBe(20);
  });

  test("absurd figures never throw and never apply a rewrite that removes nothing", () => {
    for (const bad of [Number.NaN, -5, Number.POSITIVE_INFINITY]) {
      const d = decideFlush(input({ figures: { suffixTokens: bad, removedTokens: bad, summaryTokens: bad, summarizerInputTokens: bad } }));
      expect(d.apply).toBe(false);
    }
  });
});

describe("decideFlush on the session API's cache rule", () => {
  const deep = { suffixTokens: 10_000, removedTokens: 9_000, summaryTokens: 1_400, summarizerInputTokens: 9_500, prefixTokens: 150_000, suffixBlocks: 60 };

  test("a deep rewrite that pays under the prefix rule waits on Anthropic without the spare breakpoint", () => {
    expect(decideFlush(input({ figures: deep })).apply).toBe(true);
    const d = decideFlush(input({ figures: deep, cacheRule: { rule: "anthropic-breakpoints", breakpoint: false } }));
    expect(d.apply).toBe(false);
    expect(d.record.figures?.rereadTokens).toBe(150_000);
    expect(d.record.figures?.cacheRule).toBe("anthropic-breakpoints");
  });

  test("with the spare breakpoint the same rewrite pays, and the record says the breakpoint was on", () => {
    const d = decideFlush(input({ figures: deep, cacheRule: { rule: "anthropic-breakpoints", breakpoint: true } }));
    expect(d.apply).toBe(true);
    expect(d.record.figures?.breakpoint).toBe(true);
    expect(d.record.figures?.rereadTokens).toBe(0);
  });
});

describe("decideFlush after the reply and within a run", () => {
  const pricey: CostModel = { ...HAIKU, prices: { input: 50e-6, output: 250e-6, cacheRead: 5e-6, cacheWrite: 62.5e-6 } };

  test("at the final reply an expensive summarizer does not hold back a rewrite that pays: it is paid at the expiry anyway", () => {
    const d = decideFlush(input({ summarizer: pricey }));
    expect(d.apply).toBe(true);
    expect(d.record.figures!.summarizerCost).toBeGreaterThan(d.record.figures!.netSaving);
  });

  test("within a run the summarizer's price still counts", () => {
    expect(decideFlush(input({ moment: "in-run", runRequests: 20 })).apply).toBe(true);
    expect(decideFlush(input({ moment: "in-run", summarizer: pricey, runRequests: 20 })).apply).toBe(false);
  });
});

describe("withDeferralBound", () => {
  const waiting = () => decideFlush(input({ figures: { suffixTokens: 60_000, removedTokens: 3_000, summaryTokens: 450, summarizerInputTokens: 3_000 }, cache: warm(3), promptsSoFar: 1 }));
  const items = new Map([["a", 0.001]]);

  test("a wait opens the account with what the rewrite costs and records it on the decision", () => {
    const ledger = new DeferralLedger();
    const d = withDeferralBound(waiting(), ledger, "reply", { items, enter: true });
    expect(d.apply).toBe(false);
    const owed = ledger.account("reply")!.owed;
    expect(owed).toBeCloseTo(waiting().record.figures!.rewriteCost!, 10);
    expect(d.record.bound).toEqual({ paid: 0, owed });
  });

  test("once waiting has cost what the rewrite owed, the wait becomes a rewrite on the bound", () => {
    const ledger = new DeferralLedger();
    withDeferralBound(waiting(), ledger, "reply", { items, enter: true });
    const owed = ledger.account("reply")!.owed;
    for (let i = 0; i * 0.001 < owed; i++) ledger.charge(() => true);
    const d = withDeferralBound(waiting(), ledger, "reply", { items, enter: true });
    expect(d.apply).toBe(true);
    expect(d.record).toMatchObject({ verdict: "apply", basis: "bound" });
    expect(d.record.reason).toContain("as much as summarizing cost when it was put off");
    expect(ledger.account("reply")).toBeUndefined();
    expect(ledger.settled().at(-1)).toMatchObject({ kind: "reply", bound: true });
  });

  test("without enter a wait is only checked: no account opens", () => {
    const ledger = new DeferralLedger();
    expect(withDeferralBound(waiting(), ledger, "reply", { items, enter: false }).apply).toBe(false);
    expect(ledger.account("reply")).toBeUndefined();
  });

  test("a rewrite that pays closes the account", () => {
    const ledger = new DeferralLedger();
    withDeferralBound(waiting(), ledger, "reply", { items, enter: true });
    expect(withDeferralBound(decideFlush(input()), ledger, "reply", { items, enter: true }).record.basis).toBe("pays");
    expect(ledger.account("reply")).toBeUndefined();
  });

  test("a fallback that waits within a run is no deferral of the classic policy's: it passes through", () => {
    const ledger = new DeferralLedger();
    const d = withDeferralBound(decideFlush(input({ moment: "in-run", main: UNPRICED })), ledger, "reply", { items, enter: true });
    expect(d.record.basis).toBe("fallback");
    expect(ledger.account("reply")).toBeUndefined();
  });
});
