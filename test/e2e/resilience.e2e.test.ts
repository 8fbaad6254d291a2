// Real pi 1.6.0 + pi-condense under hostile conditions: a foreign custom message spliced between a
// tool call and its result (gh-11), and a summarizer that fails or hangs (spec 60 §7 scenarios 12,
// 13, 15; seed gh-11).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { BATCH_MARKER, echoBatchSummary } from "./fake-llm.js";
import { customEntries, disposeSandbox, makeSandbox, mainRequests, notifications, runJson, runPiRpc, runPrint, sessionEntries, SUMMARIZER_MODEL, summarizerRequests, type Sandbox } from "./harness.js";
import { APIS, bash, flushMetrics, problems, reportMetrics, say, seqOutput } from "./scenario-kit.js";
import { stubRefs, toolMessages } from "./wire-view.js";

const prompt = (message: string) => ({ type: "prompt", message });

for (const api of APIS) {
  describe(`foreign custom message between a tool call and its result over ${api} (gh-11)`, () => {
    const script = () => ({ main: [bash("echo SPLICE; seq 1 80"), say("Spliced turn done."), say("Still alive.")] });

    test("control: without pi-condense the provider rejects the spliced shape", async () => {
      const sb = await makeSandbox({ api, contextPrune: null, script: script() });
      try {
        const run = await runPrint(sb, ["go"], [], { withExtension: false, extraExtensions: ["splice-foreign.ts"] });
        expect(run.code).toBe(1);
        expect(sb.fake.requests.filter((r) => r.status === 400)).toHaveLength(1);
      } finally {
        await disposeSandbox(sb);
      }
    });

    test("with pi-condense every request is accepted, the run and a follow-up prompt succeed", async () => {
      const sb = await makeSandbox({ api, script: script() });
      try {
        const run = await runPrint(sb, ["go", "continue"], [], { extraExtensions: ["splice-foreign.ts"] });
        expect(run.code).toBe(0);
        expect(run.stdout).toContain("Still alive.");
        expect(problems(sb)).toEqual([]);
        const entries = sessionEntries(sb);
        expect(customEntries(entries, "foreign-notice")).toHaveLength(1);
        expect(customEntries(entries, "context-prune-diagnostic").map((e) => e.data.kind)).toContain("orphan-sweep");
        reportMetrics(`gh-11/${api}`, sb);
      } finally {
        await disposeSandbox(sb);
      }
    });
  });
}

describe("JSON mode with a spliced foreign message (spec 60 §6 step 9)", () => {
  test("the orphan-sweep diagnostic streams as entry_appended while session-delivered summaries stay file-only", async () => {
    const sb = await makeSandbox({ script: { main: [bash("echo SPLICE; seq 1 80"), say("Spliced turn done.")] } });
    try {
      const run = await runJson(sb, ["go"], [], { extraExtensions: ["splice-foreign.ts"] });
      expect(run.code).toBe(0);
      expect(run.records[0].type).toBe("session");
      expect(run.records.at(-1).type).toBe("agent_settled");
      const streamed = run.records.filter((r) => r.type === "entry_appended").map((r) => r.entry.customType);
      expect(streamed).toContain("context-prune-diagnostic");
      expect(streamed).not.toContain("context-prune-summary");
      expect(customEntries(sessionEntries(sb), "context-prune-summary")).toHaveLength(1);
    } finally {
      await disposeSandbox(sb);
    }
  });
});

describe("summarizer answering HTTP 500 with no distinct fallback (scenario 12)", () => {
  let sb: Sandbox;
  let records: any[] = [];
  beforeAll(async () => {
    sb = await makeSandbox({
      script: { main: [bash("seq 1 300"), say("Counted."), say("Answered again.")], summarizers: [{ marker: BATCH_MARKER, reply: { status: 500 } }] },
    });
    const rpc = await runPiRpc(sb, [prompt("count"), prompt("again")]);
    records = rpc.records;
    expect(rpc.code).toBe(0);
  });
  afterAll(() => disposeSandbox(sb));

  test("the session finishes and the raw output stays in the later request", () => {
    expect(summarizerRequests(sb).length).toBeGreaterThanOrEqual(1);
    const last = mainRequests(sb).at(-1)!;
    expect(stubRefs(last)).toEqual([]);
    expect(toolMessages(last)[0]!.text).toBe(seqOutput(300));
    expect(problems(sb)).toEqual([]);
  });

  test("nothing is indexed or summarized and the flush outcome is error", () => {
    const entries = sessionEntries(sb);
    expect(customEntries(entries, "context-prune-index")).toHaveLength(0);
    expect(customEntries(entries, "context-prune-summary")).toHaveLength(0);
    expect(flushMetrics(entries)[0]).toMatchObject({ trigger: "message-end", outcome: "error", processedBatches: 0 });
  });

  test("the failure is reported through an error notify", () => {
    const failure = notifications(records).find((n) => n.message.startsWith("pruner: summarization failed: "));
    expect(failure?.notifyType).toBe("error");
    expect(failure?.message).toContain("500");
  });
});

describe("summarizer stalling with a short idle timeout (scenario 13)", () => {
  test("the run ends long before the stall, nothing is stubbed and the flush outcome is error", async () => {
    const sb = await makeSandbox({
      contextPrune: { enabled: true, minBatchChars: 0, summarizerIdleTimeoutMs: 600 },
      script: { main: [bash("seq 1 300"), say("Counted."), say("Again.")], summarizers: [{ marker: BATCH_MARKER, reply: { stallMs: 20000 } }] },
    });
    try {
      const run = await runPrint(sb, ["count", "again"]);
      expect(run.code).toBe(0);
      expect(run.ms).toBeLessThan(15000);
      expect(stubRefs(mainRequests(sb).at(-1)!)).toEqual([]);
      expect(flushMetrics(sessionEntries(sb)).map((m) => m.outcome)).toEqual(["error", "error"]);
      expect(problems(sb)).toEqual([]);
    } finally {
      await disposeSandbox(sb);
    }
  });
});

const FALLBACK_NOTICE = "pi-condense: summarizer model Fake Summarizer failing, using session model Fake Model until it recovers";

const distinctCases = [
  { label: "answering HTTP 500", failure: { status: 500 } },
  { label: "hanging past the idle timeout", failure: { stallMs: 20000 } },
];

for (const c of distinctCases) {
  describe(`distinct summarizer model ${c.label} (outage fallback)`, () => {
    test("the session model rescues the summary, the fallback notice appears and the stub applies", async () => {
      const sb = await makeSandbox({
        contextPrune: { enabled: true, minBatchChars: 0, summarizerModel: `fake/${SUMMARIZER_MODEL}`, summarizerIdleTimeoutMs: 600 },
        script: {
          main: [bash("seq 1 300"), say("Counted."), say("Answered again.")],
          summarizers: [{ marker: BATCH_MARKER, model: SUMMARIZER_MODEL, reply: c.failure }, { marker: BATCH_MARKER, reply: echoBatchSummary }],
        },
      });
      try {
        const rpc = await runPiRpc(sb, [prompt("count"), prompt("again")]);
        expect(rpc.code).toBe(0);
        expect(summarizerRequests(sb).map((r) => r.model)).toEqual([SUMMARIZER_MODEL, "fake-model"]);
        // One warning, its cause and fix on the second line (issue 36, point 16).
        const warnings = notifications(rpc.records).filter((n) => n.notifyType === "warning");
        expect(warnings).toHaveLength(1);
        expect(warnings[0]!.message).toStartWith(`${FALLBACK_NOTICE}\nCause: `);
        expect(warnings[0]!.message).toContain("To fix: ");
        expect(stubRefs(mainRequests(sb).at(-1)!)).toEqual(["t1"]);
        expect(problems(sb)).toEqual([]);
      } finally {
        await disposeSandbox(sb);
      }
    });
  });
}
