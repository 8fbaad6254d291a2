// Real pi 1.6.0 + pi-condense: smoke, final-boundary flush, stubs in the next request, resume
// rebuild and --no-session, on both wire formats (spec 60 §7 scenarios 1-3, 8, 14, 15, 16).
import { readdirSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { customEntries, disposeSandbox, makeSandbox, mainRequests, runPrint, sessionEntries, sessionFile, sessionFiles, summarizerRequests, type Sandbox } from "./harness.js";
import { APIS, bash, flushMetrics, probeLog, problems, pruneEntries, reportMetrics, say, seqOutput } from "./scenario-kit.js";
import { stubRefs, toolMessages, userMessages } from "./wire-view.js";

describe("extension loaded but disabled (scenario 1)", () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await makeSandbox({ contextPrune: null, script: { main: [bash("seq 1 300"), say("Counted to 300.")] } });
  });
  afterAll(() => disposeSandbox(sb));

  test("the bash tool really runs and its raw output reaches the provider untouched", async () => {
    const run = await runPrint(sb, ["count"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("Counted to 300.\n");
    const [, second] = mainRequests(sb);
    expect(toolMessages(second!)[0]!.text).toBe(seqOutput(300));
  });

  test("no summarizer request is made and no context-prune entry is written", () => {
    expect(summarizerRequests(sb)).toHaveLength(0);
    expect(pruneEntries(sessionEntries(sb))).toEqual([]);
    expect(problems(sb)).toEqual([]);
  });
});

for (const api of APIS) {
  describe(`final-boundary flush, stubs and resume over ${api} (scenarios 2, 3, 8, 16)`, () => {
    let sb: Sandbox;
    beforeAll(async () => {
      sb = await makeSandbox({ api, script: { main: [bash("echo first; seq 1 300"), bash("echo second; seq 1 200"), say("Both counts done.")] } });
    });
    afterAll(async () => {
      reportMetrics(`flush/${api}`, sb);
      await disposeSandbox(sb);
    });

    test("one summarizer request per batch follows the final main response and no extra main request happens", async () => {
      const run = await runPrint(sb, ["count twice"]);
      expect(run.code).toBe(0);
      expect(run.stdout).toBe("Both counts done.\n");
      expect(sb.fake.requests.map((r) => r.kind)).toEqual(["main", "main", "main", "summarizer", "summarizer"]);
    });

    test("index and display:false summary entries land after the closing assistant message, which pi wrote first", () => {
      const entries = sessionEntries(sb);
      const summaries = customEntries(entries, "context-prune-summary");
      expect(summaries).toHaveLength(2);
      expect(summaries.every((e) => e.type === "custom_message" && e.display === false)).toBe(true);
      expect(customEntries(entries, "context-prune-index")).toHaveLength(2);
      const finalAssistant = entries.findLastIndex((e) => e.type === "message" && e.message.role === "assistant");
      expect(entries.indexOf(summaries[0])).toBeGreaterThan(finalAssistant);
      expect(summaries[0].content).toContain("**Summarized tool refs**: `t1`");
      expect(summaries[1].content).toContain("**Summarized tool refs**: `t2`");
    });

    test("frontier, stats and one message-end flush-metrics entry with outcome summarized are persisted", () => {
      const entries = sessionEntries(sb);
      expect(customEntries(entries, "context-prune-frontier")).toHaveLength(1);
      expect(customEntries(entries, "context-prune-stats").length).toBeGreaterThanOrEqual(1);
      expect(flushMetrics(entries)).toMatchObject([{ trigger: "message-end", outcome: "summarized", capturedBatches: 2, processedBatches: 2 }]);
    });

    test("a continued session's first request carries the t1/t2 stubs and the summaries as user messages", async () => {
      sb.fake.setScript({ main: [say("Resumed answer.")] });
      const before = mainRequests(sb).length;
      const run = await runPrint(sb, ["what happened?"], ["-c"]);
      expect(run.code).toBe(0);
      const first = mainRequests(sb)[before]!;
      expect(stubRefs(first)).toEqual(["t1", "t2"]);
      expect(toolMessages(first).some((m) => m.text.includes("first\n1\n2\n"))).toBe(false);
      const users = userMessages(first);
      expect(users.filter((t) => t.includes("**Summarized tool refs**"))).toHaveLength(2);
    });

    test("--session <absolute path> rebuilds the index at startup so the first request is stubbed", async () => {
      sb.fake.setScript({ main: [say("Opened by path.")] });
      const file = sessionFile(sb);
      const before = mainRequests(sb).length;
      const run = await runPrint(sb, ["and now?"], ["--session", file], { extraExtensions: ["probe.ts"] });
      expect(run.code).toBe(0);
      expect(stubRefs(mainRequests(sb)[before]!)).toEqual(["t1", "t2"]);
      expect(probeLog(sb).filter((l) => l.event === "session_start").map((l) => l.reason)).toEqual(["startup"]);
      expect(sessionFiles(sb)).toEqual([file]);
    });

    test("no request was rejected and no tool message was orphaned (scenario 15)", () => {
      expect(problems(sb)).toEqual([]);
    });
  });
}

describe("--no-session (scenario 14)", () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await makeSandbox({ script: { main: [bash("seq 1 300"), say("Counted."), say("Second prompt answered.")] } });
  });
  afterAll(() => disposeSandbox(sb));

  test("the second prompt's request carries the stub while nothing is written and stderr stays empty", async () => {
    const run = await runPrint(sb, ["count", "again"], ["--no-session"]);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe("");
    const last = mainRequests(sb).at(-1)!;
    expect(stubRefs(last)).toEqual(["t1"]);
    expect(readdirSync(sb.sessionDir)).toEqual([]);
    expect(problems(sb)).toEqual([]);
  });
});
