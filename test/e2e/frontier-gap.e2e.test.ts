// Real pi 1.6.0 + pi-condense: one long chain with no text reply until the end flushes mid-run once the
// unsummarized tail reaches frontierGapThresholdTokens, with both budget triggers off (spec 70 §5.2,
// issue 15 e2e scenario 3). The same run without the threshold flushes only at the final reply.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { customEntries, disposeSandbox, mainRequests, makeSandbox, runPrint, sessionEntries, type Sandbox } from "./harness.js";
import { APIS, bash, flushMetrics, problems, reportMetrics, say, seqOutput } from "./scenario-kit.js";
import { stubRefs, toolMessages } from "./wire-view.js";

// Each result is about 5,000 chars of JSON (about 1,250 tokens): the second one takes the gap past 2,000.
const THRESHOLD = 2000;
const longChain = () => [bash("echo gap-1; seq 1 1000"), bash("echo gap-2; seq 1 1000"), bash("echo gap-3; seq 1 1000"), say("Long task done.")];
const settings = (frontierGapThresholdTokens: number | null) => ({
  enabled: true,
  minBatchChars: 0,
  autoBudgetThreshold: null,
  budgetTurnDelta: null,
  frontierGapThresholdTokens,
});

for (const api of APIS) {
  describe(`the frontier-gap trigger inside one long chain over ${api}`, () => {
    let sb: Sandbox;
    beforeAll(async () => {
      sb = await makeSandbox({ api, contextWindow: 1_000_000, contextPrune: settings(THRESHOLD), script: { main: longChain() } });
    });
    afterAll(async () => {
      reportMetrics(`frontier-gap/${api}`, sb);
      await disposeSandbox(sb);
    });

    test("the turn that crosses the threshold flushes before the next request, which carries the stubs", async () => {
      const run = await runPrint(sb, ["run the long task"]);
      expect(run.code).toBe(0);
      expect(sb.fake.requests.map((r) => r.kind)).toEqual(["main", "main", "summarizer", "summarizer", "main", "main", "summarizer"]);
      const mains = mainRequests(sb);
      expect(stubRefs(mains[1]!)).toEqual([]);
      expect(stubRefs(mains[2]!)).toEqual(["t1", "t2"]);
    });

    test("flush metrics record one frontier-gap flush mid-run at a gap past the threshold, then the final reply's", () => {
      const metrics = customEntries(sessionEntries(sb), "context-prune-flush-metrics").map((e) => e.data);
      expect(metrics.map((m) => [m.trigger, m.outcome, m.capturedBatches])).toEqual([
        ["frontier-gap", "summarized", 2],
        ["message-end", "summarized", 1],
      ]);
      expect(metrics[0].metrics.frontierGapTokens).toBeGreaterThanOrEqual(THRESHOLD);
      expect(metrics[1].metrics.frontierGapTokens).toBeLessThan(THRESHOLD);
      expect(problems(sb)).toEqual([]);
    });

    test("the third result, past the new frontier, is still raw in the last request", () => {
      const last = mainRequests(sb).at(-1)!;
      expect(stubRefs(last)).toEqual(["t1", "t2"]);
      expect(toolMessages(last).at(-1)!.text).toBe(`gap-3\n${seqOutput(1000)}`);
    });
  });
}

describe("the same long chain with frontierGapThresholdTokens null (control)", () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await makeSandbox({ contextWindow: 1_000_000, contextPrune: settings(null), script: { main: longChain() } });
  });
  afterAll(() => disposeSandbox(sb));

  test("flushes only at the final reply, and no request before it carries a stub", async () => {
    const run = await runPrint(sb, ["run the long task"]);
    expect(run.code).toBe(0);
    expect(flushMetrics(sessionEntries(sb)).map((m) => m.trigger)).toEqual(["message-end"]);
    expect(mainRequests(sb).flatMap(stubRefs)).toEqual([]);
  });
});
