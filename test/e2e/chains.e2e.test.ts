// Real pi 1.6.0 + pi-condense: budget trigger inside a run, chain compression after the rolling
// window, recovery through context_tree_query, reused tool-call ids (spec 60 §7 scenarios 4-7, 16).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { customEntries, disposeSandbox, makeSandbox, mainRequests, runPrint, sessionEntries, type Sandbox } from "./harness.js";
import { APIS, bash, flushMetrics, problems, query, reportMetrics, say, seqOutput } from "./scenario-kit.js";
import { compressedChainIds, declaredToolNames, stubRefs, toolMessages, userMessages } from "./wire-view.js";

const chainPrompt = (k: number) => [bash(`echo chain-${k}; seq 1 120`), say(`Chain ${k} closed.`)];

for (const api of APIS) {
  describe(`budget trigger inside one print run over ${api} (scenario 4)`, () => {
    let sb: Sandbox;
    beforeAll(async () => {
      sb = await makeSandbox({
        api,
        contextWindow: 200000,
        contextPrune: { enabled: true, minBatchChars: 0, autoBudgetThreshold: 0.5 },
        script: { main: [{ ...bash("seq 1 300"), promptTokens: 120000 }, say("Done under budget.")] },
      });
    });
    afterAll(async () => {
      reportMetrics(`budget/${api}`, sb);
      await disposeSandbox(sb);
    });

    test("a summarizer request happens between main request 1 and 2, and request 2 already shows the stub", async () => {
      const run = await runPrint(sb, ["count"]);
      expect(run.code).toBe(0);
      expect(sb.fake.requests.map((r) => r.kind)).toEqual(["main", "summarizer", "main"]);
      expect(stubRefs(mainRequests(sb)[1]!)).toEqual(["t1"]);
    });

    test("flush metrics record a budget flush that summarized, then an empty message-end flush", () => {
      expect(flushMetrics(sessionEntries(sb)).map((m) => [m.trigger, m.outcome])).toEqual([
        ["budget", "summarized"],
        ["message-end", "empty"],
      ]);
      expect(problems(sb)).toEqual([]);
    });
  });

  describe(`chain compression and recovery over ${api} (scenarios 5, 6, 16)`, () => {
    let sb: Sandbox;
    beforeAll(async () => {
      sb = await makeSandbox({ api, script: { main: [1, 2, 3, 4, 5, 6].flatMap(chainPrompt) } });
    });
    afterAll(async () => {
      reportMetrics(`chains/${api}`, sb);
      await disposeSandbox(sb);
    });

    test("after six closed chains the last request holds b1 and b2 blocks in place of their turns", async () => {
      const run = await runPrint(sb, ["p1", "p2", "p3", "p4", "p5", "p6"]);
      expect(run.code).toBe(0);
      const last = mainRequests(sb).at(-1)!;
      expect(compressedChainIds(last)).toEqual(["b1", "b2"]);
      const blocks = userMessages(last).filter((t) => t.startsWith("<compressed-chain"));
      expect(blocks[0]!.startsWith('<compressed-chain id="b1" tools="t1">')).toBe(true);
      expect(blocks[1]!.startsWith('<compressed-chain id="b2" tools="t2">')).toBe(true);
      expect(toolMessages(last).some((m) => m.text.includes("chain-1") || m.text.includes("chain-2"))).toBe(false);
    });

    test("later chains keep their stubs and the newest tool result stays raw", () => {
      const last = mainRequests(sb).at(-1)!;
      expect(stubRefs(last)).toEqual(["t3", "t4", "t5"]);
      expect(toolMessages(last).at(-1)!.text).toBe(`chain-6\n${seqOutput(120)}`);
    });

    test("context-prune-chain entries are persisted and no request was rejected or orphaned", () => {
      expect(customEntries(sessionEntries(sb), "context-prune-chain").map((e) => e.data.blockId)).toEqual(["b1", "b2", "b3"]);
      expect(problems(sb)).toEqual([]);
    });

    test("context_tree_query for t1 returns the original output of the compressed chain verbatim", async () => {
      sb.fake.setScript({ main: [query("t1"), say("Recovered it.")] });
      const before = mainRequests(sb).length;
      const run = await runPrint(sb, ["what did chain 1 print?"], ["-c"]);
      expect(run.code).toBe(0);
      const first = mainRequests(sb)[before]!;
      expect(declaredToolNames(first)).toContain("context_tree_query");
      const answer = toolMessages(mainRequests(sb)[before + 1]!).at(-1)!;
      expect(answer.text.startsWith("## toolRef: t1\n")).toBe(true);
      expect(answer.text).toContain(`chain-1\n${seqOutput(120)}`);
      expect(problems(sb)).toEqual([]);
    });
  });
}

describe("reused tool-call ids (scenario 7)", () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await makeSandbox({
      script: { main: [bash("echo FIRST-RUN; seq 1 100", "dup_1"), bash("echo SECOND-RUN; seq 1 100", "dup_1"), say("Ran both."), query("t2"), say("Got t2.")] },
    });
  });
  afterAll(async () => {
    reportMetrics("id-collision", sb);
    await disposeSandbox(sb);
  });

  test("the two occurrences of dup_1 get stubs t1 and t2 and a query for t2 returns the second output", async () => {
    const run = await runPrint(sb, ["run twice", "show t2"]);
    expect(run.code).toBe(0);
    const mains = mainRequests(sb);
    expect(stubRefs(mains[3]!)).toEqual(["t1", "t2"]);
    const answer = toolMessages(mains[4]!).at(-1)!;
    expect(answer.text.startsWith("## toolRef: t2\n")).toBe(true);
    expect(answer.text).toContain("SECOND-RUN");
    expect(answer.text).not.toContain("FIRST-RUN");
    expect(problems(sb)).toEqual([]);
  });
});
