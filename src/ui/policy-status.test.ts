import { describe, expect, test } from "bun:test";
import { archivedLine, cacheRuleLine, policyStatusBlock, type PolicyView, tierLine } from "./policy-status.js";

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

describe("the terms of /pruner status in plain words (issue 45, point 12)", () => {
  test("the cache rule line is followed by what the rule and the spare breakpoint mean", () => {
    const line = cacheRuleLine({ rule: "anthropic-breakpoints", wire: "anthropic", breakpoint: true, retention: "short", ttlMs: 300_000 } as PolicyView["cacheRule"]);
    const [rule, meaning] = line.split("\n");
    expect(rule).toBe("  cache rule: Anthropic breakpoints (20-block lookback), spare breakpoint on; short retention: entries live 5 min");
    expect(meaning).toStartWith("    (the provider reads from its cache the start of a request up to a point pi marks in it, looking back at most 20 blocks");
    expect(meaning).toContain("pi leaves one of the four marks unused: the spare breakpoint puts it just before the first block pi-condense rewrites");
    expect(cacheRuleLine({ rule: "longest-prefix" } as PolicyView["cacheRule"])).toBe(
      "  cache rule: longest shared prefix\n    (the provider reads from its cache the longest start a request shares with one it has seen)",
    );
  });

  test("outputs gone stale are counted as out of date, with what made them so", () => {
    expect(archivedLine("auto", { summarized: 2, withoutSummary: 5, stale: 0 })).toEndWith(
      "outputs so far: 2 summarized, 5 archived without a summary, 0 retired as out of date (a later read, edit or rerun of the same thing replaced them)",
    );
  });
});

describe("the last decision (issue 45, point 13)", () => {
  test("a flush that only left small outputs as they are is not called summarized", () => {
    const last = { verdict: "apply", basis: "pays", reason: "the waiting outputs are all under the minimum batch size, so they stay as they are", cache: { temperature: "warm" }, nothingRewritten: true } as const;
    const text = policyStatusBlock({ ...view(0.001, 0.002), last });
    expect(text).toContain("  last decision: nothing rewritten, because the waiting outputs are all under the minimum batch size, so they stay as they are");
    expect(policyStatusBlock({ ...view(0.001, 0.002), last: { ...last, nothingRewritten: undefined } })).toContain("  last decision: summarized, because");
  });
});
