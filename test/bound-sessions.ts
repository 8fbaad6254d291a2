/**
 * The bound on waiting, checked on generated sessions (issue 33 item 1): each session is replayed by the
 * report (`replaySession`) twice, the what-if deciding as the classic policy and as the cost policy, both
 * billed under the session model's rule (claude-sonnet-4-5: Anthropic's breakpoints with the spare
 * breakpoint, the default; gpt-5.1: the longest shared prefix; catalog prices); the cost policy's dollars
 * must not exceed classic's by more than the bound its bets carry: what each
 * deferral owed plus its largest step (economics/deferral-ledger.ts `deferralBound`), plus the one-time cost
 * of each rewrite it made within a run, before the classic policy would have. Sessions vary in length,
 * prompts, pauses (some past the cache's lifetime), output sizes (tiny to large), parallel calls, user
 * messages with whole files pasted in, and runs that end in an aborted or errored turn. Shared by the
 * property test (src/report/deferral-bound.property.test.ts) and bench:session (10,000 sessions).
 */
import type { SessionEntry } from "@earendil-works/pi-coding-agent";
import { getBuiltinModel } from "@earendil-works/pi-ai/providers/all";
import fc from "fast-check";
import { costModelFor } from "../src/economics/cost-model.js";
import { deferralBound } from "../src/economics/deferral-ledger.js";
import { replaySession, type ReplayReport } from "../src/report/replay.js";
import { DEFAULT_CONFIG, type ContextPruneConfig } from "../src/settings/config-shape.js";

const MINUTE = 60_000;
/** Anthropic's breakpoint rule (with the spare breakpoint, the default) and OpenAI's longest-prefix rule. */
const MODELS = [
  { provider: "anthropic", id: "claude-sonnet-4-5", api: "anthropic-messages" },
  { provider: "openai", id: "gpt-5.1", api: "openai-responses" },
] as const;

interface GenTurn {
  outputs: number[];
}

interface GenPrompt {
  userChars: number;
  pauseMs: number;
  turns: GenTurn[];
  end: "reply" | "aborted" | "error";
}

export interface BoundCase {
  prompts: GenPrompt[];
  systemChars: number;
  model: 0 | 1;
  chains: boolean;
  minBatchChars: number;
}

const SIZES = [40, 600, 1_500, 4_000, 12_000, 30_000];

export const boundCases: fc.Arbitrary<BoundCase> = fc.record({
  prompts: fc.array(
    fc.record({
      userChars: fc.oneof(fc.integer({ min: 1, max: 300 }), fc.integer({ min: 5_000, max: 40_000 })),
      pauseMs: fc.oneof(fc.integer({ min: 1_000, max: 60_000 }), fc.constant(0), fc.integer({ min: 6 * MINUTE, max: 30 * MINUTE })),
      turns: fc.array(fc.record({ outputs: fc.array(fc.constantFrom(...SIZES), { minLength: 1, maxLength: 3 }) }), { maxLength: 12 }),
      end: fc.constantFrom<GenPrompt["end"]>("reply", "reply", "reply", "reply", "aborted", "error"),
    }),
    { minLength: 1, maxLength: 24 },
  ),
  systemChars: fc.integer({ min: 5_000, max: 40_000 }),
  model: fc.constantFrom<0 | 1>(0, 0, 1),
  chains: fc.boolean(),
  minBatchChars: fc.constantFrom(0, 1_000),
});

/** The session as pi would have written it without pi-condense. */
export function entriesOf(gen: BoundCase): SessionEntry[] {
  const entries: any[] = [];
  let time = Date.UTC(2026, 0, 1);
  const add = (message: Record<string, unknown>) => {
    entries.push({ type: "message", id: `e${entries.length}`, parentId: entries.length ? `e${entries.length - 1}` : null, timestamp: new Date(time).toISOString(), message: { ...message, timestamp: time } });
  };
  const model = MODELS[gen.model];
  const assistant = (content: unknown[], stopReason = "stop") => add({ role: "assistant", content, provider: model.provider, model: model.id, api: model.api, stopReason });
  add({ role: "system", content: "", sections: { preamble: "s".repeat(gen.systemChars) } });
  gen.prompts.forEach((p, n) => {
    time += p.pauseMs;
    add({ role: "user", content: `prompt ${n} `.padEnd(p.userChars, "u") });
    p.turns.forEach((t, k) => {
      time += 2_000;
      const calls = t.outputs.map((_, c) => ({ type: "toolCall", id: `c${n}_${k}_${c}`, name: "bash", arguments: { command: `run ${n} ${k} ${c}` } }));
      assistant([{ type: "text", text: `step ${k}` }, ...calls]);
      time += 1_000;
      t.outputs.forEach((chars, c) => {
        const id = `c${n}_${k}_${c}`;
        add({ role: "toolResult", toolCallId: id, toolName: "bash", content: [{ type: "text", text: `${id} `.padEnd(chars, "o") }], isError: false });
      });
    });
    time += 2_000;
    if (p.end === "reply") assistant([{ type: "text", text: `done ${n}` }]);
    else assistant([{ type: "toolCall", id: `cut${n}`, name: "bash", arguments: { command: "sleep" } }], p.end);
  });
  return entries;
}

function catalog(provider: string | undefined, id: string | undefined) {
  const model = provider && id ? (getBuiltinModel as any)(provider, id) : undefined;
  return { cost: costModelFor(model), contextWindow: model?.contextWindow, model };
}

function configOf(gen: BoundCase, flushPolicy: ContextPruneConfig["flushPolicy"]): ContextPruneConfig {
  return {
    ...DEFAULT_CONFIG,
    enabled: true,
    flushPolicy,
    chainCompression: { ...DEFAULT_CONFIG.chainCompression, enabled: gen.chains },
    minBatchChars: gen.minBatchChars,
  };
}

async function whatIf(entries: SessionEntry[], config: ContextPruneConfig): Promise<ReplayReport> {
  return replaySession({ sessionId: "s", branch: entries, problems: [], config, overrides: [], costModelOf: catalog });
}

/**
 * The bound's figures are estimates (tokens as characters / 4, a stub as 200 characters, a summary as a
 * share of its output), so the simulated bill may exceed it by their error: at most this share of classic's.
 */
export const ESTIMATE_SLACK = 0.001;

export interface BoundCheck {
  classic: number;
  cost: number;
  /** The most the cost policy may cost over classic: its deferrals' bound and its early rewrites. */
  bound: number;
  deferrals: number;
  boundRewrites: number;
  /** Every deferral's regret stayed within what it owed plus one step (the rule itself, account by account). */
  accountsHeld: boolean;
  earlyRewrites: number;
  held: boolean;
}

/** One generated session: classic's and the cost policy's what-if dollars and the bound. */
export async function checkBound(gen: BoundCase): Promise<BoundCheck> {
  const entries = entriesOf(gen);
  const classic = (await whatIf(entries, configOf(gen, "classic"))).scenarios.find((s) => s.name === "whatif")!.totals.dollars!;
  const report = await whatIf(entries, configOf(gen, "cost"));
  const cost = report.scenarios.find((s) => s.name === "whatif")!.totals.dollars!;
  const bets = report.bets ?? { deferrals: [], earlyRewrites: [] };
  const bound = deferralBound(bets.deferrals) + bets.earlyRewrites.reduce((sum, c) => sum + Math.max(0, c), 0);
  return {
    classic,
    cost,
    bound,
    deferrals: bets.deferrals.length,
    boundRewrites: bets.deferrals.filter((d) => d.bound).length,
    accountsHeld: bets.deferrals.every((d) => d.regret <= d.owed + d.step + 1e-12),
    earlyRewrites: bets.earlyRewrites.length,
    held: cost <= classic + bound + ESTIMATE_SLACK * classic,
  };
}
