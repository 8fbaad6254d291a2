/**
 * Replays a parsed session for each configuration and totals what the main
 * model would have been sent and billed: per request the input, cache-read and
 * cache-write tokens (cache-sim.ts: the cache rule of the session model's
 * route, its TTL under the route's retention and the recorded timestamps), prefix breaks, peak
 * context, and dollars at the catalog price of the request's own model and the
 * tier its input falls in (series.ts). The simulation follows the recording's
 * cache events: the run that says what was sent (as recorded, or pi alone for
 * a session without pi-condense entries) is replayed first, and where its
 * recorded reply read far less from the cache than the simulation does (a model
 * or thinking-level change, a restart, an eviction) every configuration starts
 * cold at that request; pi's cache-warming refreshes are sent again by every
 * configuration whose prompt pi-ai's warming rule still finds worth it. Beside
 * the simulation, the bill pi recorded (recorded-bill.ts); plus the summarizer's
 * tokens, and the limit of the no-pruning run (economics/cost-floor.ts) in
 * the same tokens and prices. pi-condense's configurations (as recorded, what-if) carry its spare
 * Anthropic breakpoint when `cacheBreakpoint` is on; pi alone never does, and
 * the what-if is billed a second time with the breakpoint the other way. Chars become tokens at 4 chars per
 * token, or at the ratio calibrated against the recorded usage when the
 * session has it (the error of both is reported). Pure; `onProgress` and the
 * yields between chunks let a TUI show progress while a long replay runs.
 */
import { LiveSight } from "../forgetting/live-sight.js";
import { type SightFigures, sightFigures } from "../forgetting/sight-text.js";
import { type Api, type CacheWarmingPhase, evaluateCacheWarming, type Model } from "@earendil-works/pi-ai";
import type { SessionEntry } from "@earendil-works/pi-coding-agent";
import { type CacheRoute, cacheRouteOf } from "../economics/cache-route.js";
import { cardOf, type CostModel, costModelFor, pricesAt, type TokenPrices } from "../economics/cost-model.js";
import type { CacheEnv } from "../settings/cache-env.js";
import type { ContextPruneConfig } from "../settings/config-shape.js";
import type { CacheRule } from "../economics/prompt-cache.js";
import { CachePricer, cacheSetup, type CacheStep, type RefreshStep } from "./cache-sim.js";
import { FloorTally, floorDollars, type CostFloor } from "../economics/cost-floor.js";
import { buildRequests, type ReplayRequest } from "./requests.js";
import { actualScenario, hasPrunerEntries, noPruningScenario, type Scenario } from "./scenarios.js";
import type { SessionProblem } from "./session-parse.js";
import { DEFAULT_CHARS_PER_TOKEN } from "../format/figures.js";
import { calibrateSummaryEstimate, type SummaryEstimate } from "./summary-estimate.js";
import { whatIfScenario } from "./what-if.js";
import type { PolicyBets } from "./what-if-policy.js";
import { MissCounter } from "../forgetting/miss-model.js";
import { type PricedRun, series, type ScenarioSeries, type ScenarioTotals, type SeriesPricing } from "../bill/series.js";
import { recordedBill, type RecordedBill, recordedPrices } from "../bill/recorded-bill.js";
import { fateOfOutputs, type OutputFate } from "./output-fates.js";

const WHAT_IF = "what-if";

export type { ScenarioSeries, ScenarioTotals } from "../bill/series.js";

export interface TokenCalibration {
  /** Requests with recorded usage compared. */
  samples: number;
  charsPerToken: number;
  /** Mean absolute error per request of chars/4 against the recorded input, and of the calibrated ratio. */
  errorAtFour: number | undefined;
  errorCalibrated: number | undefined;
}

export interface CacheReport {
  rule: CacheRule;
  /** The API whose rule it is. */
  api: string | undefined;
  /** The model's route: where its markers go, its retention, and why it cannot be priced when it cannot. */
  route: CacheRoute;
  /** The as-recorded and what-if configurations carry pi-condense's spare breakpoint (Anthropic only). */
  spareBreakpoint: boolean;
  /** Anthropic: the what-if's totals with the spare breakpoint the other way. */
  whatIfOther?: { spareBreakpoint: boolean; totals: ScenarioTotals };
  /** Anthropic: the what-if's totals under the longest-prefix rule, for comparison. */
  whatIfPrefix?: ScenarioTotals;
}

/**
 * The limit (economics/cost-floor.ts) of the no-pruning run, in tokens at the calibrated chars per token:
 * each block written once, the output, the tools and system read per request.
 */
export interface LimitReport {
  written: number;
  uncached: number;
  fixedRead: number;
  output: number;
  /** Undefined when the model is unpriced. */
  dollars: number | undefined;
}

export interface ReplayReport {
  sessionId: string;
  requests: number;
  /** The session's main model as `provider/id` (the last request's). */
  model: string;
  cost: CostModel;
  cache: CacheReport;
  scenarios: ScenarioSeries[];
  limit: LimitReport;
  summaryEstimate: SummaryEstimate;
  tokens: TokenCalibration;
  outputs: OutputFate[];
  problems: SessionProblem[];
  notes: string[];
  /** The what-if's bets under the cost policy (deferrals, rewrites made early), in dollars at the catalog prices; absent otherwise. */
  bets?: PolicyBets;
  /** What pi recorded the branch cost (recorded-bill.ts), beside the simulation. */
  recorded: RecordedBill;
  /** What the agent went back for as the session ran (forgetting/live-sight.ts); only for a session pi-condense ran in. */
  sight?: SightFigures;
}

export interface ReplayOptions {
  sessionId: string;
  branch: SessionEntry[];
  problems: SessionProblem[];
  config: ContextPruneConfig;
  /** What the what-if's settings change from the current ones, in words. */
  overrides: string[];
  /** Price at this catalog model instead of the session's (`--model`). */
  priceAs?: { provider: string; id: string };
  /**
   * The catalog entry of a `provider/id`, if the catalog has one (`api`: the catalog's, for `--model`;
   * `model`: the entry itself, whose compat and name decide the cache route and whose prices are then
   * taken under that route's retention).
   */
  costModelOf(provider: string | undefined, model: string | undefined): { cost: CostModel; contextWindow: number | undefined; api?: string; model?: Model<Api> };
  /** The environment pi-ai reads for caching (`PI_CACHE_RETENTION`, `AWS_BEDROCK_FORCE_CACHE`); default none. */
  cacheEnv?: CacheEnv;
  onProgress?(done: number, total: number): void;
  /** Requests between two yields to the event loop (0: never yield). */
  yieldEvery?: number;
}

type RawStep = CacheStep;

interface RawRun extends PricedRun {
  scenario: Scenario;
  steps: RawStep[];
  /** Per request, the refreshes sent after it. */
  refreshes: RefreshStep[][];
  /** The same requests billed with the spare breakpoint the other way (the what-if of an Anthropic session). */
  alternative: RawStep[];
  alternativeRefreshes: RefreshStep[][];
  prefix: RawStep[];
  prefixRefreshes: RefreshStep[][];
  finalMessages: unknown[];
}

/** The cache each configuration is billed under. */
interface CachePlan {
  setup: ReturnType<typeof cacheSetup>;
  api: string | undefined;
  spareBreakpoint: boolean;
  /** Whether pi's warming would refresh a prompt of this many tokens (pi-ai's rule at the session model's prices). */
  warms(promptTokens: number, phase: CacheWarmingPhase): boolean;
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Chars per token so far on the run that says what was sent: the recorded input against the chars replayed. */
class RunningRatio {
  private chars = 0;
  private tokens = 0;

  add(chars: number, usage: ReplayRequest["usage"]): void {
    if (!usage) return;
    this.chars += chars;
    this.tokens += usage.input + usage.cacheRead + usage.cacheWrite;
  }

  get value(): number {
    return this.tokens > 0 && this.chars > 0 ? this.chars / this.tokens : DEFAULT_CHARS_PER_TOKEN;
  }
}

/**
 * The run that says what was sent goes first (`sent`): where its recorded replies read far less from the
 * cache than it simulates, each later configuration starts cold at that request too.
 */
async function runAll(scenarios: Scenario[], sent: number, requests: ReplayRequest[], plan: CachePlan, options: ReplayOptions): Promise<{ runs: RawRun[]; floor: CostFloor }> {
  const runs: RawRun[] = scenarios.map((scenario) => ({ scenario, steps: [], refreshes: [], alternative: [], alternativeRefreshes: [], prefix: [], prefixRefreshes: [], finalMessages: [], misses: [] }));
  const anthropic = plan.setup.rule === "anthropic-breakpoints";
  const floor = new FloorTally(plan.setup.rule, plan.setup.options.minTokens);
  const refreshes = requests.some((request) => request.refreshes);
  const coldAt = requests.map(() => false);
  const ratio = new RunningRatio();
  const total = requests.length * scenarios.length;
  let done = 0;
  options.onProgress?.(0, total);
  for (const s of [sent, ...scenarios.keys()].filter((s, i, all) => all.indexOf(s) === i)) {
    const run = runs[s]!;
    const name = run.scenario.name;
    const counter = new MissCounter();
    // pi alone never has the spare breakpoint; only the what-if is billed both ways.
    const pricer = new CachePricer(plan.setup, anthropic && name !== "none" && plan.spareBreakpoint, anthropic && name === "whatif", name === "none" ? floor : undefined, refreshes);
    for (let r = 0; r < requests.length; r++) {
      const request = requests[r]!;
      const messages = await run.scenario.messagesAt(request, coldAt[r]);
      const pending = run.scenario.pending?.bind(run.scenario);
      const priced = pricer.step({
        time: request.time,
        messages,
        systemChars: request.systemChars,
        systemVersion: request.systemVersion,
        outputTokens: request.outputTokens,
        ...(pending ? { pending } : {}),
        ...(s === sent ? (request.usage ? { recordedRead: request.usage.cacheRead * ratio.value } : {}) : { coldStart: coldAt[r] }),
      });
      if (s === sent) {
        if (priced.step.recordedCold) coldAt[r] = true;
        ratio.add(priced.step.chars, request.usage);
      }
      run.steps.push(priced.step);
      run.misses.push(counter.observe(request.bare, messages, request.systemText, request.reply));
      if (priced.alternative) run.alternative.push(priced.alternative);
      if (priced.prefix) run.prefix.push(priced.prefix);
      sendRefreshes(run, pricer, request, priced.step.chars / ratio.value, name === "whatif" ? plan.warms : undefined);
      if (r === requests.length - 1) run.finalMessages = messages;
      done += 1;
      if (options.yieldEvery && done % options.yieldEvery === 0) {
        options.onProgress?.(done, total);
        await tick();
      }
    }
  }
  options.onProgress?.(total, total);
  return { runs, floor: floor.result() };
}

/**
 * pi's warming refreshes after a request, as this configuration sends them: all of them for what was
 * recorded and for pi alone (a prompt at least as large); for the what-if only while pi's rule, at its
 * prompt's size, still warms (`warms`), and none after the first it would stop.
 */
function sendRefreshes(run: RawRun, pricer: CachePricer, request: ReplayRequest, promptTokens: number, warms: CachePlan["warms"] | undefined): void {
  const main: RefreshStep[] = [];
  const alternative: RefreshStep[] = [];
  const prefix: RefreshStep[] = [];
  const phase = request.endsRun ? "idle" : "streaming";
  for (const refresh of request.refreshes ?? []) {
    if (warms && !warms(promptTokens, phase)) break;
    const billed = pricer.refresh(refresh.time);
    if (billed.step) main.push(billed.step);
    if (billed.alternative) alternative.push(billed.alternative);
    if (billed.prefix) prefix.push(billed.prefix);
  }
  run.refreshes.push(main);
  run.alternativeRefreshes.push(alternative);
  run.prefixRefreshes.push(prefix);
}

function meanAbsError(requests: ReplayRequest[], steps: RawStep[], charsPerToken: number): number | undefined {
  let sum = 0;
  let n = 0;
  requests.forEach((request, i) => {
    const usage = request.usage;
    if (!usage) return;
    const recorded = usage.input + usage.cacheRead + usage.cacheWrite;
    sum += Math.abs(steps[i]!.chars / charsPerToken - recorded) / recorded;
    n += 1;
  });
  return n === 0 ? undefined : sum / n;
}

/** Calibrated against the run that says what was sent: the recorded one when the session has pruner entries, pi alone otherwise. */
function calibrateTokens(requests: ReplayRequest[], sent: RawRun): TokenCalibration {
  let recorded = 0;
  let chars = 0;
  let samples = 0;
  requests.forEach((request, i) => {
    if (!request.usage) return;
    recorded += request.usage.input + request.usage.cacheRead + request.usage.cacheWrite;
    chars += sent.steps[i]!.chars;
    samples += 1;
  });
  if (samples === 0 || recorded === 0) {
    return { samples: 0, charsPerToken: DEFAULT_CHARS_PER_TOKEN, errorAtFour: undefined, errorCalibrated: undefined };
  }
  const charsPerToken = chars / recorded;
  return {
    samples,
    charsPerToken,
    errorAtFour: meanAbsError(requests, sent.steps, DEFAULT_CHARS_PER_TOKEN),
    errorCalibrated: meanAbsError(requests, sent.steps, charsPerToken),
  };
}

/**
 * The prices each request is billed at: its own recorded model's (the catalog entry under the session's
 * cache route), at the tier its input falls in; a model the catalog does not price is billed as the
 * session's model (named in `notes`); with `--model`, every request at that model.
 */
function requestPricing(options: ReplayOptions, requests: ReplayRequest[], main: CostModel, route: CacheRoute, notes: string[]): (index: number, inputTokens: number) => TokenPrices {
  if (options.priceAs) return (_index, tokens) => pricesAt(main, tokens);
  const byModel = new Map<string, CostModel>();
  const unknown = new Map<string, number>();
  const costs = requests.map((request) => {
    const name = modelName(request);
    let cost = byModel.get(name);
    if (!cost) {
      const found = options.costModelOf(request.provider, request.model);
      cost = found.model ? costModelFor(found.model, route) : found.cost;
      byModel.set(name, cost);
    }
    if (cost.priced) return cost;
    if (main.priced && name !== main.label) unknown.set(name, (unknown.get(name) ?? 0) + 1);
    return main;
  });
  for (const [name, count] of unknown) notes.push(`${count} ${count === 1 ? "reply" : "replies"} of ${name}, which pi's model catalog does not price, billed at ${main.label}'s prices`);
  return (index, tokens) => pricesAt(costs[index] ?? main, tokens);
}

/** A recording whose clock goes back: each such request is billed as a cold start, named once. */
function clockNotes(requests: ReplayRequest[]): string[] {
  let back = 0;
  for (let i = 1; i < requests.length; i++) if (requests[i]!.time < requests[i - 1]!.time) back++;
  return back === 0 ? [] : [`${back} ${back === 1 ? "request is" : "requests are"} dated before the one before (the clock went back, or the entries are out of order): each is billed as a cold start`];
}

/** pi's cache-warming rule (pi-ai's `evaluateCacheWarming`) at the session model's catalog entry; without one, as recorded. */
function warmingRule(model: Model<Api> | undefined): CachePlan["warms"] {
  if (!model) return () => true;
  return (tokens, phase) => {
    try {
      return evaluateCacheWarming(model, Math.max(0, Math.round(tokens)), phase).action === "warm";
    } catch {
      return true;
    }
  };
}

export async function replaySession(options: ReplayOptions): Promise<ReplayReport> {
  const requests = buildRequests(options.branch);
  const last = requests[requests.length - 1];
  const found = options.priceAs ? options.costModelOf(options.priceAs.provider, options.priceAs.id) : options.costModelOf(last?.provider, last?.model);
  // The rule follows the model the session is priced at: its own last one, or `--model`'s API when the catalog names it.
  const api = options.priceAs ? (found.api ?? last?.api) : last?.api;
  const identity = { api, provider: options.priceAs?.provider ?? last?.provider, id: options.priceAs?.id ?? last?.model };
  const route = cacheRouteOf({ ...found.model, ...identity }, options.cacheEnv);
  const cost = found.model ? costModelFor(found.model, route) : (recordedCostModel(options, identity, route) ?? found.cost);
  const { contextWindow } = found;
  const plan: CachePlan = { setup: cacheSetup(route, cost.ttlMs), api, spareBreakpoint: options.config.cacheBreakpoint, warms: warmingRule(found.model) };
  const summaryEstimate = calibrateSummaryEstimate(options.branch);
  const recorded = hasPrunerEntries(options.branch);
  const scenarios: Scenario[] = [noPruningScenario()];
  if (recorded) scenarios.push(actualScenario(options.branch, options.config));
  const config = options.config;
  const costPolicy = config.flushPolicy === "cost" && config.pruneOn === "agent-message" && cost.priced;
  const cacheRule = { rule: route.rule, breakpoint: plan.spareBreakpoint, retention: route.retention, ...(route.problem ? { problem: route.problem } : {}) };
  const summarizerCost = summarizerCostModel(options, cost);
  const policy = costPolicy ? { main: cost, summarizer: summarizerCost, cacheRule } : undefined;
  scenarios.push(whatIfScenario(config, summaryEstimate, contextWindow, WHAT_IF, policy));
  const sent = recorded ? 1 : 0;
  const { runs, floor } = await runAll(scenarios, sent, requests, plan, options);
  const tokens = calibrateTokens(requests, runs[sent]!);
  const pricingNotes: string[] = [];
  const pricing: SeriesPricing = {
    pricesFor: requestPricing(options, requests, cost, route, pricingNotes),
    priced: cost.priced,
    summarizer: summarizerCost,
    charsPerToken: tokens.charsPerToken,
    trustRecorded: options.priceAs === undefined,
  };
  const outputTokens = requests.map((request) => request.outputTokens);
  const series_ = runs.map((run) => series(run, run.steps, run.refreshes, outputTokens, pricing));
  const whatIfRun = runs.find((run) => run.scenario.name === "whatif");
  const cache: CacheReport = { rule: plan.setup.rule, api, route, spareBreakpoint: plan.setup.rule === "anthropic-breakpoints" && plan.spareBreakpoint };
  if (whatIfRun && whatIfRun.alternative.length === whatIfRun.steps.length && plan.setup.rule === "anthropic-breakpoints") {
    const totals = series(whatIfRun, whatIfRun.alternative, whatIfRun.alternativeRefreshes, outputTokens, pricing).totals;
    cache.whatIfOther = { spareBreakpoint: !plan.spareBreakpoint, totals };
  }
  if (whatIfRun && whatIfRun.prefix.length === whatIfRun.steps.length && plan.setup.rule === "anthropic-breakpoints") {
    cache.whatIfPrefix = series(whatIfRun, whatIfRun.prefix, whatIfRun.prefixRefreshes, outputTokens, pricing).totals;
  }
  const bill = recordedBill(options.branch, (provider, model) => {
    const found = options.costModelOf(provider, model).cost;
    return found.priced ? found.catalog : undefined;
  });
  return {
    sessionId: options.sessionId,
    requests: requests.length,
    model: modelName(last),
    cost,
    cache,
    scenarios: series_,
    limit: limitOf(floor, cost, tokens.charsPerToken),
    summaryEstimate,
    tokens,
    outputs: fateOfOutputs(options.branch, runs.map((run) => ({ label: run.scenario.label, messages: run.finalMessages }))),
    problems: options.problems,
    notes: [...priceNotes(options, cost, last), ...pricingNotes, ...clockNotes(requests), ...bill.notes, ...replayNotes(options, recorded, series_, policy !== undefined)],
    recorded: bill,
    ...(whatIfRun?.scenario.bets ? { bets: whatIfRun.scenario.bets() } : {}),
    ...(recorded ? sightOf(options.branch, cost) : {}),
  };
}

/** Live sight counted off the recorded branch, priced at the session model's prices; none when the count fails. */
function sightOf(branch: readonly unknown[], cost: CostModel): { sight?: SightFigures } {
  try {
    const counter = new LiveSight();
    counter.feed(branch);
    return { sight: sightFigures(counter.recoveries, cost) };
  } catch (err) {
    console.error("pi-condense: counting the recorded recoveries failed", err);
    return {};
  }
}

/**
 * A model pi's catalog does not know (a custom model, a proxy) priced at the rates its recorded usage shows,
 * unless a model was named with `--model`.
 */
function recordedCostModel(options: ReplayOptions, identity: { api?: string; provider?: string; id?: string }, route: CacheRoute): CostModel | undefined {
  if (options.priceAs) return undefined;
  const prices = recordedPrices(options.branch, identity.provider, identity.id);
  if (!prices) return undefined;
  const cost = costModelFor({ ...identity, cost: prices } as unknown as Model<Api>, route);
  const shown = (key: keyof typeof prices) => `${key === "cacheRead" ? "cache read" : key === "cacheWrite" ? "cache write" : key} $${prices[key].toFixed(2)}`;
  const note = `${cost.label} is not in pi's model catalog: priced at the rates its recorded usage shows (per million tokens: ${(["input", "output", "cacheRead", "cacheWrite"] as const).map(shown).join(", ")})`;
  return { ...cost, notes: [note, ...cost.notes] };
}

function limitOf(floor: CostFloor, cost: CostModel, charsPerToken: number): LimitReport {
  return {
    written: floor.written / charsPerToken,
    uncached: floor.uncached / charsPerToken,
    fixedRead: floor.fixedRead / charsPerToken,
    output: floor.outputTokens,
    dollars: cost.priced ? floorDollars(floor, cardOf(cost), charsPerToken) : undefined,
  };
}

function priceNotes(options: ReplayOptions, cost: CostModel, last: ReplayRequest | undefined): string[] {
  const asked = options.priceAs ? `${options.priceAs.provider}/${options.priceAs.id}` : undefined;
  if (!cost.priced) return [`${asked ?? modelName(last)} has no price in pi's model catalog: tokens only, no dollars`];
  return asked ? [`priced as ${asked} (--model), not as ${modelName(last)}`, ...cost.notes] : cost.notes;
}

function modelName(request: ReplayRequest | undefined): string {
  return request?.provider && request.model ? `${request.provider}/${request.model}` : "an unnamed model";
}

/** The summarizer is priced at `summarizerModel` when the catalog has it, else at the session's model (what "default" means). */
function summarizerCostModel(options: ReplayOptions, main: CostModel): CostModel {
  const value = String(options.config.summarizerModel ?? "default");
  const slash = value.indexOf("/");
  if (value === "default" || slash <= 0) return main;
  const found = options.costModelOf(value.slice(0, slash), value.slice(slash + 1)).cost;
  return found.priced ? found : main;
}

function replayNotes(options: ReplayOptions, recorded: boolean, scenarios: ScenarioSeries[], costPolicy: boolean): string[] {
  const notes: string[] = [];
  if (!recorded) notes.push("the session has no pi-condense entries: what it sent is the no-pruning run");
  const settings = options.overrides.length > 0 ? `your settings with ${options.overrides.join(", ")}` : "your current settings";
  notes.push(
    costPolicy
      ? `what-if: ${settings}, with the cost policy's flush decisions at the final reply, after an expired cache and once the context passes contextPressure, the share of the window where it summarizes whatever the cost (its in-run flushes are not simulated; after a flush that paid, earlier prompts' work is compressed only when that pays too)`
      : `what-if: ${settings}, with the classic policy's timing (at the agent's final reply, and at the budget gates)`,
  );
  const whatIf = scenarios.find((s) => s.name === "whatif");
  if (options.config.pruneOn === "on-demand") {
    const same = whatIf && whatIf.totals.summarizerCalls === 0 ? ", so the what-if equals no pruning" : "";
    notes.push(
      `what-if: your settings summarize only when you run /pruner now, which a replay cannot do${same}; ` +
        "add pruneOn=agent-message to see what summarizing after each final reply saves",
    );
  }
  if (whatIf && whatIf.totals.summarizerCalls === 0 && options.config.pruneOn === "agent-message" && options.config.autoBudgetThreshold === null) {
    notes.push("what-if summarized nothing: no final text reply ended a tool run, or every batch was under minBatchChars; try autoBudgetThreshold=0.1 or frontierGapThresholdTokens=2000");
  }
  return notes;
}
