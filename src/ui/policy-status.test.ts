import { describe, expect, test } from "bun:test";
import { policyStatusBlock, type PolicyView, tierLine } from "./policy-status.js";

function view(savingPerRequest: number, netSaving: number): PolicyView {
  const figures = { suffixTokens: 100, removedTokens: 32, summaryTokens: 0, expectedRequests: 3, oneTimeCost: 0, savingPerRequest, summarizerCost: 0, netSaving };
  return {
    policy: "cost",
    idleReason: undefined,
    cache: { temperature: "cold", requests: 0 } as PolicyView["cache"],
    pending: { verdict: "defer", basis: "wait", reason: "it does not pay", figures } as NonNullable<PolicyView["pending"]>,
    last: undefined,
    cacheRule: { rule: "longest-prefix" } as PolicyView["cacheRule"],
    summaries: "auto",
    archived: { summarized: 0, withoutSummary: 0, stale: 0 },
    waiting: [{ kind: "reply", regret: -0.000001, owed: 0.00001 }],
  };
}

describe("the policy block of /pruner status (issue 36, point 6)", () => {
  test("an amount that rounds to nothing reads $0.0000, never $-0.0000", () => {
    const text = policyStatusBlock(view(-0.000004, 0.000001));
    expect(text).not.toContain("$-");
    expect(text).toContain("$0.0000 per request");
    expect(text).toContain("$0.0000 paid of the $0.0000 the rewrite owed");
  });

  test("a rewrite that would make each request dearer says how much more it costs", () => {
    const text = policyStatusBlock(view(-0.0012, -0.004));
    expect(text).toContain("$0.0012 more per request");
    expect(text).toContain("net $0.0040 lost");
  });
});

describe("the price tiers line", () => {
  test("names each threshold with its multiple and the tier the context is billed at", () => {
    const thresholds = [{ above: 272_000, multiple: 2 }];
    expect(tierLine({ thresholds, contextTokens: 96_400 })).toBe("  price tiers: above 272k tokens 2x; the context (96k tokens) is billed at the base price");
    expect(tierLine({ thresholds, contextTokens: 300_000 })).toBe("  price tiers: above 272k tokens 2x; the context (300k tokens) is billed at the tier above 272k (2x)");
    expect(tierLine({ thresholds: [{ above: 32_000, multiple: 1.6667 }, { above: 128_000, multiple: 2.6667 }], contextTokens: undefined })).toBe(
      "  price tiers: above 32k tokens 1.67x, above 128k tokens 2.67x (every token of a request at the tier its input falls in)",
    );
  });
});
