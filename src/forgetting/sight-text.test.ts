import { describe, expect, test } from "bun:test";
import { getBuiltinModel } from "@earendil-works/pi-ai/providers/all";
import { costModelFor } from "../economics/cost-model.js";
import type { Recovery } from "./live-sight.js";
import { sightFigures, sightLine, windowLine } from "./sight-text.js";

const recovery = (request: number, refs: string[], kind: Recovery["kind"] = "query"): Recovery => ({ kind, request, refs, contextTokens: 20_000, returnedChars: 4_000 });
const sonnet = costModelFor(getBuiltinModel("anthropic", "claude-sonnet-4-5") as any, { rule: "anthropic-breakpoints", retention: "short" });

describe("sightFigures", () => {
  test("each round trip is the request read from the cache, what came back written and 100 output tokens", () => {
    const figures = sightFigures([recovery(4, ["t12"])], sonnet);
    const p = sonnet.prices;
    expect(figures.dollars).toBeCloseTo(20_000 * p.cacheRead + 1_000 * p.cacheWrite + 100 * p.output, 10);
  });

  test("two recoveries made by one reply are one extra request", () => {
    const figures = sightFigures([recovery(4, ["t1"]), recovery(4, ["t2"], "re-read"), recovery(9, ["t1"])], sonnet);
    expect(figures).toMatchObject({ outputs: 3, refs: ["t1", "t2"], extraRequests: 2, byKind: { query: 2, "re-read": 1, "failed-edit": 0 } });
  });

  test("a model without a price leaves the dollars unknown", () => {
    expect(sightFigures([recovery(1, ["t1"])], costModelFor(undefined)).dollars).toBeUndefined();
  });
});

describe("sightLine", () => {
  test("says how many archived outputs, which refs, about what they cost and the extra requests", () => {
    const line = sightLine(sightFigures([recovery(12, ["t12"]), recovery(17, ["t17"]), recovery(20, ["t20"], "re-read")], sonnet));
    expect(line).toMatch(/^the agent went back for 3 archived outputs this session \(t12, t17, t20\): about \$0\.\d+ and 3 extra requests \(2 context_tree_query calls, 1 read of a file read before\)$/);
  });

  test("zero recoveries get a plain line", () => {
    expect(sightLine(sightFigures([], sonnet))).toBe("the agent went back for no archived output this session");
  });

  test("names the first eight refs and counts the rest", () => {
    const many = Array.from({ length: 11 }, (_, i) => recovery(i, [`t${i + 1}`]));
    expect(sightLine(sightFigures(many, sonnet))).toContain("(t1, t2, t3, t4, t5, t6, t7, t8 and 3 more)");
  });

  test("an unpriced model's line leaves the price out", () => {
    expect(sightLine(sightFigures([recovery(1, ["t1"], "failed-edit")], costModelFor(undefined)))).toBe(
      "the agent went back for 1 archived output this session (t1): 1 extra request (1 failed edit)",
    );
  });
});

describe("windowLine", () => {
  const rate = { recoveries: 2, window: 40, per100: 5 };

  test("a narrow window says its width and the threshold it widens at", () => {
    expect(windowLine(false, rate, 2)).toBe("raw window: the latest 2 tool turns stay raw; 2 requests of the last 40 went back (5.0 per 100), it widens at 4");
  });

  test("a widened window says how wide it is now", () => {
    expect(windowLine(true, rate, 2)).toBe("raw window: widened, the latest 4 tool turns stay raw instead of 2; 2 requests of the last 40 went back (5.0 per 100)");
  });
});
