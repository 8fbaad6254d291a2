/**
 * Replays a parsed session for each configuration and totals what the main
 * model would have been sent and billed: per request the input, cache-read and
 * cache-write tokens (cache-sim.ts: the cache rule of the session model's
 * route, its TTL under the route's retention and the recorded timestamps), prefix breaks, peak
 * context, and dollars at the model's catalog price; plus the summarizer's
 * tokens, and the limit of the no-pruning run (economics/cost-floor.ts) in
 * the same tokens and prices. pi-condense's configurations (as recorded, what-if) carry its spare
 * Anthropic breakpoint when `cacheBreakpoint` is on; pi alone never does, and
 * the what-if is billed a second time with the breakpoint the other way. Chars become tokens at 4 chars per
 * token, or at the ratio calibrated against the recorded usage when the
 * session has it (the error of both is reported). Pure; `onProgress` and the
 * yields between chunks let a TUI show progress while a long replay runs.
 */
import type { Api, Model } from "@earendil-works/pi-ai";
import type { SessionEntry } from "@earendil-works/pi-coding-agent";
import { type CacheRoute, cacheRouteOf } from "../economics/cache-route.js";
import { type CostModel, costModelFor } from "../economics/cost-model.js";
import type { CacheEnv } from "../settings/cache-env.js";
import type { ContextPruneConfig } from "../settings/config-shape.js";
import type { CacheRule } from "../economics/prompt-cache.js";
import { CachePricer, cacheSetup, type CacheStep } from "./cache-sim.js";
import { FloorTally, floorDollars, type CostFloor } from "../economics/cost-floor.js";
import { buildRequests, type ReplayRequest } from "./requests.js";
import { actualScenario, hasPrunerEntries, noPruningScenario, type Scenario, type SummarizerUse } from "./scenarios.js";
import type { SessionProblem } from "./session-parse.js";
import { DEFAULT_CHARS_PER_TOKEN } from "../format/figures.js";
import { calibrateSummaryEstimate, type SummaryEstimate } from "./summary-estimate.js";
import { whatIfScenario } from "./what-if.js";
import type { PolicyBets } from "./what-if-policy.js";
import { MissCounter, recoveryCost, type RequestMisses } from "../forgetting/miss-model.js";
import { fateOfOutputs, type OutputFate } from "./output-fates.js";

const WHAT_IF = "what-if";

export interface ScenarioSeries {
  name: Scenario["name"];
  label: string;
  /** Per request, tokens. */
  context: number[];
  cacheRead: number[];
  cacheWrite: number[];
  /** Dollars spent up to and including each request (main model only). */
  cumulativeCost: number[];
  totals: ScenarioTotals;
}

export interface ScenarioTotals {
  requests: number;
  input: number;
  cacheRead: number;
  cacheWrite: number;
  output: number;
  summarizerInput: number;
  summarizerOutput: number;
  summarizerCalls: number;
  /** Input tokens neither read from nor written to the cache (billed at the input price). */
  uncached: number;
  prefixBreaks: number;
  coldStarts: number;
  /** Warm requests that rewrote nothing yet read less than the previous one cached (Anthropic's 20-block lookback). */
  lookbackMisses: number;
  peakContext: number;
  /** Main model plus summarizer, or undefined when the model is unpriced. */
  dollars: number | undefined;
  /** Replies that used an item the request no longer showed (miss-model.ts), the items, and what recovering them costs (undefined unpriced). */
  recoveries: number;
  misses: number;
  recoveryDollars: number | undefined;
}

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

interface RawRun {
  scenario: Scenario;
  steps: RawStep[];
  /** The same requests billed with the spare breakpoint the other way (the what-if of an Anthropic session). */
  alternative: RawStep[];
  prefix: RawStep[];
  finalMessages: unknown[];
  /** Per request, what its reply could no longer see. */
  misses: Array<RequestMisses | undefined>;
}

/** The cache each configuration is billed under. */
interface CachePlan {
  setup: ReturnType<typeof cacheSetup>;
  api: string | undefined;
  spareBreakpoint: boolean;
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** The configurations' runs, and the limit of the no-pruning one. */
async function runAll(scenarios: Scenario[], requests: ReplayRequest[], plan: CachePlan, options: ReplayOptions): Promise<{ runs: RawRun[]; floor: CostFloor }> {
  const runs: RawRun[] = scenarios.map((scenario) => ({ scenario, steps: [], alternative: [], prefix: [], finalMessages: [], misses: [] }));
  const counters = scenarios.map(() => new MissCounter());
  const anthropic = plan.setup.rule === "anthropic-breakpoints";
  const floor = new FloorTally(plan.setup.rule, plan.setup.options.minTokens);
  // pi alone never has the spare breakpoint; only the what-if is billed both ways.
  const pricers = scenarios.map(
    (scenario) =>
      new CachePricer(plan.setup, anthropic && scenario.name !== "none" && plan.spareBreakpoint, anthropic && scenario.name === "whatif", scenario.name === "none" ? floor : undefined),
  );
  const total = requests.length * scenarios.length;
  let done = 0;
  options.onProgress?.(0, total);
  for (let s = 0; s < scenarios.length; s++) {
    const run = runs[s]!;
    for (let r = 0; r < requests.length; r++) {
      const request = requests[r]!;
      const messages = await run.scenario.messagesAt(request);
      const pending = run.scenario.pending?.bind(run.scenario);
      const priced = pricers[s]!.step({
        time: request.time,
        messages,
        systemChars: request.systemChars,
        systemVersion: request.systemVersion,
        outputTokens: request.outputTokens,
        ...(pending ? { pending } : {}),
      });
      run.steps.push(priced.step);
      run.misses.push(counters[s]!.observe(request.bare, messages, request.systemText, request.reply));
      if (priced.alternative) run.alternative.push(priced.alternative);
      if (priced.prefix) run.prefix.push(priced.prefix);
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

function summarizerTokens(use: SummarizerUse, charsPerToken: number): { input: number; output: number } {
  return use.unit === "tokens" ? { input: use.input, output: use.output } : { input: use.input / charsPerToken, output: use.output / charsPerToken };
}

/** `trustRecorded`: the recorded summarizer dollars stand (not when the run is priced as another model). */
function series(run: RawRun, steps: RawStep[], requests: ReplayRequest[], cost: CostModel, summarizerCost: CostModel, charsPerToken: number, trustRecorded: boolean): ScenarioSeries {
  const p = cost.prices;
  const sp = summarizerCost.prices;
  const out: ScenarioSeries = { name: run.scenario.name, label: run.scenario.label, context: [], cacheRead: [], cacheWrite: [], cumulativeCost: [], totals: undefined as never };
  let dollars = 0;
  let output = 0;
  let prefixBreaks = 0;
  let coldStarts = 0;
  let lookbackMisses = 0;
  let uncached = 0;
  let peak = 0;
  steps.forEach((step, i) => {
    const context = step.chars / charsPerToken;
    const read = step.cachedChars / charsPerToken;
    const write = step.writtenChars / charsPerToken;
    const plain = Math.max(0, context - read - write);
    const tokensOut = requests[i]!.outputTokens;
    out.context.push(context);
    out.cacheRead.push(read);
    out.cacheWrite.push(write);
    dollars += read * p.cacheRead + write * p.cacheWrite + plain * p.input + tokensOut * p.output;
    out.cumulativeCost.push(dollars);
    output += tokensOut;
    uncached += plain;
    if (step.prefixBreak) prefixBreaks += 1;
    if (step.cold) coldStarts += 1;
    if (step.lookbackMiss) lookbackMisses += 1;
    peak = Math.max(peak, context);
  });
  let recoveries = 0;
  let misses = 0;
  let recoveryDollars = 0;
  run.misses.forEach((missed, i) => {
    if (!missed) return;
    recoveries += 1;
    misses += missed.items.length;
    recoveryDollars += recoveryCost(steps[i]!.chars / charsPerToken, missed.holderChars / charsPerToken, p);
  });
  const use = run.scenario.summarizer();
  const summarizer = summarizerTokens(use, charsPerToken);
  const priced = summarizer.input * sp.input + summarizer.output * sp.output;
  const summarizerDollars = trustRecorded && use.recordedCost !== undefined ? use.recordedCost : priced;
  out.totals = {
    requests: steps.length,
    input: sum(out.context),
    cacheRead: sum(out.cacheRead),
    cacheWrite: sum(out.cacheWrite),
    output,
    summarizerInput: summarizer.input,
    summarizerOutput: summarizer.output,
    summarizerCalls: use.calls,
    uncached,
    prefixBreaks,
    coldStarts,
    lookbackMisses,
    peakContext: peak,
    dollars: cost.priced ? dollars + summarizerDollars : undefined,
    recoveries,
    misses,
    recoveryDollars: cost.priced ? recoveryDollars : undefined,
  };
  return out;
}

function sum(values: number[]): number {
  let total = 0;
  for (const value of values) total += value;
  return total;
}

export async function replaySession(options: ReplayOptions): Promise<ReplayReport> {
  const requests = buildRequests(options.branch);
  const last = requests[requests.length - 1];
  const found = options.priceAs ? options.costModelOf(options.priceAs.provider, options.priceAs.id) : options.costModelOf(last?.provider, last?.model);
  // The rule follows the model the session is priced at: its own last one, or `--model`'s API when the catalog names it.
  const api = options.priceAs ? (found.api ?? last?.api) : last?.api;
  const identity = { api, provider: options.priceAs?.provider ?? last?.provider, id: options.priceAs?.id ?? last?.model };
  const route = cacheRouteOf({ ...found.model, ...identity }, options.cacheEnv);
  const cost = found.model ? costModelFor(found.model, route) : found.cost;
  const { contextWindow } = found;
  const plan: CachePlan = { setup: cacheSetup(route, cost.ttlMs), api, spareBreakpoint: options.config.cacheBreakpoint };
  const summaryEstimate = calibrateSummaryEstimate(options.branch);
  const recorded = hasPrunerEntries(options.branch);
  const scenarios: Scenario[] = [noPruningScenario()];
  if (recorded) scenarios.push(actualScenario(options.branch, options.config));
  const config = options.config;
  const costPolicy = config.flushPolicy === "cost" && config.pruneOn === "agent-message" && cost.priced;
  const cacheRule = { rule: route.rule, breakpoint: plan.spareBreakpoint, retention: route.retention, ...(route.problem ? { problem: route.problem } : {}) };
  const policy = costPolicy ? { main: cost, summarizer: summarizerCostModel(options, cost), cacheRule } : undefined;
  scenarios.push(whatIfScenario(config, summaryEstimate, contextWindow, WHAT_IF, policy));
  const { runs, floor } = await runAll(scenarios, requests, plan, options);
  const tokens = calibrateTokens(requests, runs[recorded ? 1 : 0]!);
  const summarizerCost = summarizerCostModel(options, cost);
  const trustRecorded = options.priceAs === undefined;
  const series_ = runs.map((run) => series(run, run.steps, requests, cost, summarizerCost, tokens.charsPerToken, trustRecorded));
  const whatIfRun = runs.find((run) => run.scenario.name === "whatif");
  const cache: CacheReport = { rule: plan.setup.rule, api, route, spareBreakpoint: plan.setup.rule === "anthropic-breakpoints" && plan.spareBreakpoint };
  if (whatIfRun && whatIfRun.alternative.length === whatIfRun.steps.length && plan.setup.rule === "anthropic-breakpoints") {
    const totals = series(whatIfRun, whatIfRun.alternative, requests, cost, summarizerCost, tokens.charsPerToken, trustRecorded).totals;
    cache.whatIfOther = { spareBreakpoint: !plan.spareBreakpoint, totals };
  }
  if (whatIfRun && whatIfRun.prefix.length === whatIfRun.steps.length && plan.setup.rule === "anthropic-breakpoints") {
    cache.whatIfPrefix = series(whatIfRun, whatIfRun.prefix, requests, cost, summarizerCost, tokens.charsPerToken, trustRecorded).totals;
  }
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
    notes: [...priceNotes(options, cost, last), ...replayNotes(options, recorded, series_, policy !== undefined)],
    ...(whatIfRun?.scenario.bets ? { bets: whatIfRun.scenario.bets() } : {}),
  };
}

function limitOf(floor: CostFloor, cost: CostModel, charsPerToken: number): LimitReport {
  return {
    written: floor.written / charsPerToken,
    uncached: floor.uncached / charsPerToken,
    fixedRead: floor.fixedRead / charsPerToken,
    output: floor.outputTokens,
    dollars: cost.priced ? floorDollars(floor, cost.prices, charsPerToken) : undefined,
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
