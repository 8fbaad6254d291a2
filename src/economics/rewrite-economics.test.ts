import { describe, expect, test } from "bun:test";
import type { CostModel } from "./cost-model.js";
import { expectedRemainingRequests, weighRewrite, moreRequestsWords } from "./rewrite-economics.js";

/** Input 1 per token, as in the units: read 0.1x, write 1.25x. */
const UNIT: CostModel = { priced: true, prices: { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 }, ttlMs: 300_000, notes: [], label: "unit" };
const FREE_SUMMARIZER: CostModel = { ...UNIT, prices: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } };
const figures = (suffix: number, removed: number, summary = 0, summarizerInput = 0) => ({
  suffixTokens: suffix,
  removedTokens: removed,
  summaryTokens: summary,
  summarizerInputTokens: summarizerInput,
});

describe("weighRewrite", () => {
  test("the one-time cost is 1.25(S-R) - 0.1S and each later request saves 0.1R", () => {
    const d = weighRewrite(figures(1000, 800), UNIT, FREE_SUMMARIZER, 0, false);
    expect(d.oneTimeCost).toBeCloseTo(1.25 * 200 - 0.1 * 1000);
    expect(d.savingPerRequest).toBeCloseTo(80);
  });

  test("removing 80% of the suffix pays back two requests after the rewrite, 30% twenty-six after it", () => {
    // (1.15S - 1.25R) / 0.1R requests after the one that carries the rewrite: 1.625 for R = 0.8S, 25.8 for R = 0.3S.
    expect(weighRewrite(figures(1000, 800), UNIT, FREE_SUMMARIZER, 2, false).apply).toBe(false);
    expect(weighRewrite(figures(1000, 800), UNIT, FREE_SUMMARIZER, 3, false).apply).toBe(true);
    expect(weighRewrite(figures(1000, 300), UNIT, FREE_SUMMARIZER, 26, false).apply).toBe(false);
    expect(weighRewrite(figures(1000, 300), UNIT, FREE_SUMMARIZER, 27, false).apply).toBe(true);
  });

  test("the request that carries the rewrite saves nothing more than the rewrite's cost counts", () => {
    const d = weighRewrite(figures(1000, 800), UNIT, FREE_SUMMARIZER, 4, false);
    expect(d.netSaving).toBeCloseTo(3 * d.savingPerRequest - d.oneTimeCost);
  });

  test("on a cold cache the rewrite costs nothing and the next request alone pays for it", () => {
    const d = weighRewrite(figures(1000, 300), UNIT, FREE_SUMMARIZER, 0, true);
    expect(d.oneTimeCost).toBe(0);
    expect(d.apply).toBe(true);
  });

  test("the summarizer's tokens are part of the price", () => {
    const summarizer: CostModel = { ...UNIT, prices: { input: 0.3, output: 1.5, cacheRead: 0.03, cacheWrite: 0.4 } };
    const d = weighRewrite(figures(1000, 800, 80, 800), UNIT, summarizer, 3, false);
    expect(d.summarizerCost).toBeCloseTo(800 * 0.3 + 80 * 1.5);
    expect(d.apply).toBe(false);
  });

  test("summaries that replace the outputs reduce the saving", () => {
    expect(weighRewrite(figures(1000, 800, 800), UNIT, FREE_SUMMARIZER, 100, false).apply).toBe(false);
  });

  test("absurd figures never make it apply or throw", () => {
    for (const bad of [Number.NaN, -5, Number.POSITIVE_INFINITY]) {
      const d = weighRewrite(figures(bad, bad, bad, bad), UNIT, FREE_SUMMARIZER, bad, false);
      expect(d.apply).toBe(false);
    }
  });

  test("the reason says it in dollars and plain words", () => {
    expect(weighRewrite(figures(1000, 800), UNIT, FREE_SUMMARIZER, 5, false).reason).toMatch(/^summarizing pays: about \$\d/);
    expect(weighRewrite(figures(1000, 300), UNIT, FREE_SUMMARIZER, 1, false).reason).toContain("waiting until it pays or the cache expires");
  });
});

describe("expectedRemainingRequests", () => {
  test("within a run it expects as many more requests as the session has had", () => {
    expect(expectedRemainingRequests(20, 1, "in-run")).toBe(20);
    expect(expectedRemainingRequests(0, 0, "in-run")).toBe(1);
  });

  test("after the final reply it weighs them by the chance of another prompt", () => {
    expect(expectedRemainingRequests(8, 1, "after-reply")).toBe(4);
    expect(expectedRemainingRequests(40, 9, "after-reply")).toBe(36);
  });

  test("bad counts read as none", () => {
    expect(expectedRemainingRequests(Number.NaN, Number.NaN, "after-reply")).toBe(0);
  });
});

describe("expectedRemainingRequests on the five bench shapes", () => {
  /** Requests per prompt (tool turns plus the reply) of `npm run bench:session`'s shapes. */
  const SHAPES: Record<string, number[]> = {
    "a multi-task": Array(8).fill(4),
    "b one long chain": [201],
    "c short": [4, 4],
    "d idle gaps": Array(6).fill(3),
    "e re-reads": Array(30).fill(4),
  };

  /**
   * Estimate over truth at every request that has a successor: within a prompt, the run's requests so far
   * against the run's remaining ones; at its end, the session's against the session's.
   */
  function ratios(prompts: number[]): number[] {
    const total = prompts.reduce((a, b) => a + b, 0);
    const out: number[] = [];
    let seen = 0;
    prompts.forEach((requests, p) => {
      for (let i = 1; i <= requests; i++) {
        seen++;
        if (i < requests) out.push(expectedRemainingRequests(i, p + 1, "in-run") / (requests - i));
        else if (total - seen > 0) out.push(expectedRemainingRequests(seen, p + 1, "after-reply") / (total - seen));
      }
    });
    return out;
  }

  for (const [name, prompts] of Object.entries(SHAPES)) {
    test(`is unbiased on shape ${name}: the geometric mean of estimate over truth is within 0.5x-2x`, () => {
      const r = ratios(prompts);
      const geometricMean = Math.exp(r.reduce((a, x) => a + Math.log(x), 0) / r.length);
      expect(geometricMean).toBeGreaterThan(0.5);
      expect(geometricMean).toBeLessThan(2);
    });

    test(`is within a factor of 4 of the truth at half the decisions of shape ${name} or more`, () => {
      const r = ratios(prompts);
      expect(r.filter((x) => x >= 0.25 && x <= 4).length / r.length).toBeGreaterThanOrEqual(0.5);
    });
  }
});

describe("weighRewrite under the session API's cache rule", () => {
  const deep = { ...figures(1000, 800), prefixTokens: 50_000, suffixBlocks: 41 };
  const near = { ...deep, suffixBlocks: 12 };
  const anthropic = (breakpoint: boolean) => ({ rule: "anthropic-breakpoints" as const, breakpoint });

  test("Anthropic without the spare breakpoint writes the conversation before a deep rewrite again", () => {
    const d = weighRewrite(deep, UNIT, FREE_SUMMARIZER, 0, false, anthropic(false));
    expect(d.rereadTokens).toBe(50_000);
    expect(d.oneTimeCost).toBeCloseTo(1.25 * (50_000 + 200) - 0.1 * (50_000 + 1000));
  });

  test("the spare breakpoint makes a deep rewrite cost what the longest-prefix rule says", () => {
    const withMarker = weighRewrite(deep, UNIT, FREE_SUMMARIZER, 5, false, anthropic(true));
    const prefix = weighRewrite(deep, UNIT, FREE_SUMMARIZER, 5, false);
    expect(withMarker.oneTimeCost).toBe(prefix.oneTimeCost);
    expect(withMarker.rereadTokens).toBe(0);
  });

  test("a rewrite within the 20-block lookback costs the same under both rules", () => {
    expect(weighRewrite(near, UNIT, FREE_SUMMARIZER, 5, false, anthropic(false)).oneTimeCost).toBe(weighRewrite(near, UNIT, FREE_SUMMARIZER, 5, false).oneTimeCost);
  });

  test("a rewrite that pays under the prefix rule waits under Anthropic's, and says why", () => {
    expect(weighRewrite(deep, UNIT, FREE_SUMMARIZER, 10, false).apply).toBe(true);
    const d = weighRewrite(deep, UNIT, FREE_SUMMARIZER, 10, false, anthropic(false));
    expect(d.apply).toBe(false);
    expect(d.reason).toContain("the 50000 tokens before it are written again too");
  });

  test("on a cold cache nothing before the rewrite is written twice", () => {
    expect(weighRewrite(deep, UNIT, FREE_SUMMARIZER, 0, true, anthropic(false)).rereadTokens).toBe(0);
  });
});

describe("the first rewrite also declares context_tree_query", () => {
  const near = { ...figures(1000, 800), prefixTokens: 50_000, suffixBlocks: 5 };
  const declaring = { rule: "anthropic-breakpoints" as const, breakpoint: true, declaresTool: true };

  test("the conversation before it is written again, even within reach of a marker", () => {
    expect(weighRewrite(near, UNIT, FREE_SUMMARIZER, 5, false, declaring).rereadTokens).toBe(50_000);
  });

  test("under the longest-prefix rule too: the tool list leads the prefix", () => {
    expect(weighRewrite(near, UNIT, FREE_SUMMARIZER, 5, false, { rule: "longest-prefix", breakpoint: false, declaresTool: true }).rereadTokens).toBe(50_000);
  });

  test("the decision says the declaration is why it waits", () => {
    const d = weighRewrite(near, UNIT, FREE_SUMMARIZER, 10, false, declaring);
    expect(d.apply).toBe(false);
    expect(d.reason).toContain("declares context_tree_query");
  });

  test("on a cold cache the declaration costs nothing extra", () => {
    expect(weighRewrite(near, UNIT, FREE_SUMMARIZER, 5, true, declaring).rereadTokens).toBe(0);
  });
});

describe("the spare breakpoint needs a live entry before the rewrite", () => {
  const deep = { ...figures(1000, 800), prefixTokens: 50_000, suffixBlocks: 41 };
  const rule = { rule: "anthropic-breakpoints" as const, breakpoint: true, ttlMs: 300_000 };

  test("an entry no request touched for longer than the cache lifetime is gone: the prefix is written again", () => {
    expect(weighRewrite({ ...deep, entryAgeMs: 400_000 }, UNIT, FREE_SUMMARIZER, 5, false, rule).rereadTokens).toBe(50_000);
  });

  test("an entry touched within the lifetime is read", () => {
    expect(weighRewrite({ ...deep, entryAgeMs: 200_000 }, UNIT, FREE_SUMMARIZER, 5, false, rule).rereadTokens).toBe(0);
  });
});

describe("weighRewrite after the final reply", () => {
  const after = { nextRequestChance: 0.5, summarizerPaidAnyway: true };
  const summarizer: CostModel = { ...UNIT, prices: { input: 0.3, output: 1.5, cacheRead: 0.03, cacheWrite: 0.4 } };

  test("only a next request pays the cache rewrite: its cost is weighed by the chance one comes", () => {
    const now = weighRewrite(figures(1000, 800), UNIT, FREE_SUMMARIZER, 2, false);
    const later = weighRewrite(figures(1000, 800), UNIT, FREE_SUMMARIZER, 2, false, undefined, after);
    expect(later.oneTimeCost).toBeCloseTo(now.oneTimeCost * 0.5);
  });

  test("the summarizer, paid at the cache's expiry anyway, is reported but not weighed", () => {
    const d = weighRewrite(figures(1000, 800, 80, 800), UNIT, summarizer, 3, false, undefined, after);
    expect(d.summarizerCost).toBeCloseTo(800 * 0.3 + 80 * 1.5);
    // The next request comes with a chance of 0.5 and carries the rewrite: 2.5 more requests save.
    expect(d.netSaving).toBeCloseTo(2.5 * d.savingPerRequest - d.oneTimeCost);
    expect(d.apply).toBe(true);
  });
});

describe("the requests a rewrite is weighed over, in words (issue 45, point 13)", () => {
  test("an expectation is said as the nearest whole number of requests", () => {
    expect(moreRequestsWords(1.5)).toBe("about 2 more requests");
    expect(moreRequestsWords(1.2)).toBe("about 1 more request");
    expect(moreRequestsWords(0.3)).toBe("less than one more request");
    expect(moreRequestsWords(Number.NaN)).toBe("less than one more request");
  });
});

describe("weighRewrite with what the rewrite hides of the working set (issue 42)", () => {
  test("each expected recovery adds a request over the context and its reply, and the text read again, to the one-time cost", () => {
    const plain = weighRewrite(figures(1000, 800), UNIT, FREE_SUMMARIZER, 5, false);
    const hiding = weighRewrite({ ...figures(1000, 800), prefixTokens: 4000, recovery: { roundTrips: 2, rereadTokens: 300 } }, UNIT, FREE_SUMMARIZER, 5, false);
    // Context 4000 + 1000 read at 0.1, 100 output tokens at 5, per round trip; 300 tokens written at 1.25.
    expect(hiding.oneTimeCost - plain.oneTimeCost).toBeCloseTo(2 * (5000 * 0.1 + 100 * 5) + 300 * 1.25);
  });

  test("a rewrite that pays without the charge may wait once its hiding is priced", () => {
    expect(weighRewrite(figures(1000, 800), UNIT, FREE_SUMMARIZER, 10, false).apply).toBe(true);
    expect(weighRewrite({ ...figures(1000, 800), recovery: { roundTrips: 1, rereadTokens: 800 } }, UNIT, FREE_SUMMARIZER, 10, false).apply).toBe(false);
  });
});
