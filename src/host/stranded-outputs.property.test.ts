/**
 * No output stranded behind the frontier (issue 33, item 0), over generated sessions driven through the
 * real extension with the cost policy deciding on a warm cache: runs that end in an error or aborted
 * stop, in-run flushes, deferred final replies, idle pauses past the cache's lifetime, `/pruner now` and
 * `/pruner compact` between prompts, a summarizer that sometimes fails. After the session, the state a
 * reload rebuilds from the session file (index and frontier) must hold every output the classic policy
 * would have archived either archived or still waiting (captured by the next flush): 0 stranded.
 *
 * The check is `test/stranded-outputs.ts`, shared with the real-pi e2e.
 */
import { afterAll, afterEach, describe, expect, mock, setSystemTime, test } from "bun:test";
import * as actualCompat from "@earendil-works/pi-ai/compat";
import fc from "fast-check";
import { makeAgentDir, streamReply } from "../../test/fake-host.js";
import { type SimCall, startSim, type Sim } from "../../test/session-sim.js";

let failNext = () => false;
const failed = () => ({
  async *[Symbol.asyncIterator]() {},
  result: async () => ({ role: "assistant", stopReason: "error", errorMessage: "HTTP 529", content: [] }),
});
mock.module("@earendil-works/pi-ai/compat", () => ({
  ...actualCompat,
  stream: (_model: any, context: any) => {
    if (failNext()) return failed();
    const prompt: string = context.messages[0].content[0].text;
    const labels = [...new Set(prompt.match(/\[\[\d+:[^\]\s]+\]\]/g) ?? [])];
    return streamReply(labels.map((l) => `- ${l} ran`).join("\n") || "- summary");
  },
}));

const { strandedOutputs } = await import("../../test/stranded-outputs.js");

const RUNS = Number(process.env.STRANDED_RUNS ?? 60);
const cleanups: Array<() => void> = [];
afterAll(() => cleanups.forEach((fn) => fn()));
afterEach(() => setSystemTime());

const SONNET = { id: "claude-sonnet-4-5", provider: "anthropic", api: "anthropic-messages", cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }, promptCache: { short: 300 }, contextWindow: 200_000 };
const WARM = { input: 50, cacheRead: 20_000, cacheWrite: 500 };
const SIZES = [200, 700, 3_000, 8_000, 24_000];

type End = "reply" | "error" | "aborted";
type Between = "nothing" | "idle" | "now" | "compact";
interface PromptSpec {
  turns: number[][];
  end: End;
  between: Between;
}
interface CaseSpec {
  prompts: PromptSpec[];
  minBatchChars: number;
  batchingMode: "turn" | "agent-message";
  summaries: "auto" | "always";
  chains: boolean;
  failures: boolean;
}

const promptArb: fc.Arbitrary<PromptSpec> = fc.record({
  // Long runs of big outputs are what makes the policy summarize within a run.
  turns: fc.oneof(
    fc.array(fc.array(fc.integer({ min: 0, max: SIZES.length - 1 }), { minLength: 1, maxLength: 2 }), { minLength: 1, maxLength: 4 }),
    fc.array(fc.array(fc.constantFrom(3, 4, 4), { minLength: 1, maxLength: 2 }), { minLength: 8, maxLength: 16 }),
  ),
  end: fc.constantFrom<End>("reply", "reply", "error", "aborted"),
  between: fc.constantFrom<Between>("nothing", "nothing", "nothing", "idle", "now", "compact"),
});
const caseArb: fc.Arbitrary<CaseSpec> = fc.record({
  prompts: fc.array(promptArb, { minLength: 1, maxLength: 7 }),
  minBatchChars: fc.constantFrom(0, 1_000),
  batchingMode: fc.constantFrom<CaseSpec["batchingMode"]>("turn", "turn", "agent-message"),
  summaries: fc.constantFrom<CaseSpec["summaries"]>("auto", "always"),
  chains: fc.boolean(),
  failures: fc.boolean(),
});

const settle = () => new Promise((resolve) => setTimeout(resolve, 5));

function configOf(spec: CaseSpec): Record<string, unknown> {
  return {
    enabled: true,
    flushPolicy: "cost",
    minBatchChars: spec.minBatchChars,
    batchingMode: spec.batchingMode,
    summaries: spec.summaries,
    dedupByContentHash: false,
    chainCompression: { enabled: spec.chains, rollingWindow: 1, stripFinalAssistantThinking: true, fuseRangeSummary: false },
  };
}

async function drive(sim: Sim, spec: CaseSpec): Promise<void> {
  let n = 0;
  const call = (size: number): SimCall => {
    n += 1;
    return { id: `c${n}`, name: "read", args: { path: `/src/f${n}.ts` }, text: `line ${n} `.repeat(Math.ceil(SIZES[size]! / 8)).slice(0, SIZES[size]!) };
  };
  for (const p of spec.prompts) {
    // The clock stands at the run's end: no request is later than now, and the cache stays warm.
    setSystemTime(new Date(sim.now() + (p.turns.length + 2) * 1_100));
    const turns = p.turns.map((sizes) => sizes.map(call));
    const stopped = p.end === "reply" ? undefined : { reason: p.end, calls: [call(0)] };
    await sim.prompt({ turns, usage: WARM, ...(stopped ? { stopped } : {}) });
    await settle();
    if (p.between === "idle") {
      sim.advance(10 * 60_000);
      setSystemTime(new Date(sim.now()));
    }
    if (p.between === "now") await sim.host.commands.get("pruner").handler("now", sim.ctx);
    if (p.between === "compact") await sim.host.commands.get("pruner").handler("compact", sim.ctx);
    await settle();
  }
}

describe("no output stranded behind the frontier", () => {
  test(`holds over ${RUNS} generated sessions with stopped runs, in-run and deferred flushes`, async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, fc.integer(), async (spec, seed) => {
        const agent = makeAgentDir(configOf(spec));
        cleanups.push(agent.cleanup);
        process.env.PI_CODING_AGENT_DIR = agent.dir;
        let draws = seed;
        failNext = () => spec.failures && ((draws = (draws * 1103515245 + 12345) | 0) & 7) === 0;
        const sim = await startSim({ startTs: Date.now() - 60_000 });
        (sim.ctx as any).model = SONNET;
        await sim.fire("session_start", { reason: "startup" });
        await drive(sim, spec);
        await sim.fire("session_shutdown", { reason: "quit" });
        expect(strandedOutputs(sim.fake.branch, spec)).toEqual([]);
      }),
      {
        numRuns: RUNS,
        ...(process.env.STRANDED_SEED ? { seed: Number(process.env.STRANDED_SEED), path: process.env.STRANDED_PATH, endOnFailure: true } : {}),
      },
    );
  }, 600_000);
});
