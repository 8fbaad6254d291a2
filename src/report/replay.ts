/**
 * Replays a parsed session for each configuration and totals what the main
 * model would have been sent and billed: per request the input, cache-read and
 * cache-write tokens (cache-sim.ts, the session model's TTL and the recorded
 * timestamps), prefix breaks, peak context, and dollars at the model's catalog
 * price; plus the summarizer's tokens. Chars become tokens at 4 chars per
 * token, or at the ratio calibrated against the recorded usage when the
 * session has it (the error of both is reported). Pure; `onProgress` and the
 * yields between chunks let a TUI show progress while a long replay runs.
 */
import type { SessionEntry } from "@earendil-works/pi-coding-agent";
import type { CostModel } from "../economics/cost-model.js";
import type { ContextPruneConfig } from "../types.js";
import { CacheSim } from "./cache-sim.js";
import { buildRequests, type ReplayRequest } from "./requests.js";
import { actualScenario, hasPrunerEntries, noPruningScenario, type Scenario, type SummarizerUse } from "./scenarios.js";
import type { SessionProblem } from "./session-parse.js";
import { calibrateSummaryEstimate, type SummaryEstimate } from "./summary-estimate.js";
import { whatIfScenario } from "./what-if.js";
import { fateOfOutputs, type OutputFate } from "./output-fates.js";

export const DEFAULT_CHARS_PER_TOKEN = 4;
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
  prefixBreaks: number;
  coldStarts: number;
  peakContext: number;
  /** Main model plus summarizer, or undefined when the model is unpriced. */
  dollars: number | undefined;
}

export interface TokenCalibration {
  /** Requests with recorded usage compared. */
  samples: number;
  charsPerToken: number;
  /** Mean absolute error per request of chars/4 against the recorded input, and of the calibrated ratio. */
  errorAtFour: number | undefined;
  errorCalibrated: number | undefined;
}

export interface ReplayReport {
  sessionId: string;
  requests: number;
  /** The session's main model as `provider/id` (the last request's). */
  model: string;
  cost: CostModel;
  scenarios: ScenarioSeries[];
  summaryEstimate: SummaryEstimate;
  tokens: TokenCalibration;
  outputs: OutputFate[];
  problems: SessionProblem[];
  notes: string[];
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
  /** The catalog entry of a `provider/id`, if the catalog has one. */
  costModelOf(provider: string | undefined, model: string | undefined): { cost: CostModel; contextWindow: number | undefined };
  onProgress?(done: number, total: number): void;
  /** Requests between two yields to the event loop (0: never yield). */
  yieldEvery?: number;
}

interface RawStep {
  chars: number;
  cachedChars: number;
  prefixBreak: boolean;
  cold: boolean;
}

interface RawRun {
  scenario: Scenario;
  steps: RawStep[];
  finalMessages: any[];
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

async function runAll(scenarios: Scenario[], requests: ReplayRequest[], ttlMs: number, options: ReplayOptions): Promise<RawRun[]> {
  const runs: RawRun[] = scenarios.map((scenario) => ({ scenario, steps: [], finalMessages: [] }));
  const sims = scenarios.map(() => new CacheSim(ttlMs));
  const total = requests.length * scenarios.length;
  let done = 0;
  options.onProgress?.(0, total);
  for (let s = 0; s < scenarios.length; s++) {
    const run = runs[s]!;
    for (let r = 0; r < requests.length; r++) {
      const request = requests[r]!;
      const messages = await run.scenario.messagesAt(request);
      run.steps.push(sims[s]!.step({ time: request.time, messages, systemChars: request.systemChars, systemVersion: request.systemVersion }));
      if (r === requests.length - 1) run.finalMessages = messages;
      done += 1;
      if (options.yieldEvery && done % options.yieldEvery === 0) {
        options.onProgress?.(done, total);
        await tick();
      }
    }
  }
  options.onProgress?.(total, total);
  return runs;
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
function series(run: RawRun, requests: ReplayRequest[], cost: CostModel, summarizerCost: CostModel, charsPerToken: number, trustRecorded: boolean): ScenarioSeries {
  const p = cost.prices;
  const sp = summarizerCost.prices;
  const out: ScenarioSeries = { name: run.scenario.name, label: run.scenario.label, context: [], cacheRead: [], cacheWrite: [], cumulativeCost: [], totals: undefined as never };
  let dollars = 0;
  let output = 0;
  let prefixBreaks = 0;
  let coldStarts = 0;
  let peak = 0;
  run.steps.forEach((step, i) => {
    const context = step.chars / charsPerToken;
    const read = step.cachedChars / charsPerToken;
    const tokensOut = requests[i]!.outputTokens;
    out.context.push(context);
    out.cacheRead.push(read);
    out.cacheWrite.push(context - read);
    dollars += read * p.cacheRead + (context - read) * p.cacheWrite + tokensOut * p.output;
    out.cumulativeCost.push(dollars);
    output += tokensOut;
    if (step.prefixBreak) prefixBreaks += 1;
    if (step.cold) coldStarts += 1;
    peak = Math.max(peak, context);
  });
  const use = run.scenario.summarizer();
  const summarizer = summarizerTokens(use, charsPerToken);
  const priced = summarizer.input * sp.input + summarizer.output * sp.output;
  const summarizerDollars = trustRecorded && use.recordedCost !== undefined ? use.recordedCost : priced;
  out.totals = {
    requests: run.steps.length,
    input: sum(out.context),
    cacheRead: sum(out.cacheRead),
    cacheWrite: sum(out.cacheWrite),
    output,
    summarizerInput: summarizer.input,
    summarizerOutput: summarizer.output,
    summarizerCalls: use.calls,
    prefixBreaks,
    coldStarts,
    peakContext: peak,
    dollars: cost.priced ? dollars + summarizerDollars : undefined,
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
  const { cost, contextWindow } = options.priceAs
    ? options.costModelOf(options.priceAs.provider, options.priceAs.id)
    : options.costModelOf(last?.provider, last?.model);
  const summaryEstimate = calibrateSummaryEstimate(options.branch);
  const recorded = hasPrunerEntries(options.branch);
  const scenarios: Scenario[] = [noPruningScenario()];
  if (recorded) scenarios.push(actualScenario(options.branch, options.config));
  const config = options.config;
  const costPolicy = config.flushPolicy === "cost" && config.pruneOn === "agent-message" && cost.priced;
  const policy = costPolicy ? { main: cost, summarizer: summarizerCostModel(options, cost) } : undefined;
  scenarios.push(whatIfScenario(config, summaryEstimate, contextWindow, WHAT_IF, policy));
  const runs = await runAll(scenarios, requests, cost.ttlMs, options);
  const tokens = calibrateTokens(requests, runs[recorded ? 1 : 0]!);
  const summarizerCost = summarizerCostModel(options, cost);
  const series_ = runs.map((run) => series(run, requests, cost, summarizerCost, tokens.charsPerToken, options.priceAs === undefined));
  return {
    sessionId: options.sessionId,
    requests: requests.length,
    model: modelName(last),
    cost,
    scenarios: series_,
    summaryEstimate,
    tokens,
    outputs: fateOfOutputs(options.branch, runs.map((run) => ({ label: run.scenario.label, messages: run.finalMessages }))),
    problems: options.problems,
    notes: [...priceNotes(options, cost, last), ...replayNotes(options, recorded, series_, policy !== undefined)],
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
      ? `what-if: ${settings}, with the cost policy's flush decisions at the final reply, after an expired cache and past contextPressure (its in-run flushes and chain weighing are not simulated)`
      : `what-if: ${settings}, with 2.9.1's flush timing (the final reply, budget gates)`,
  );
  const whatIf = scenarios.find((s) => s.name === "whatif");
  if (whatIf && whatIf.totals.summarizerCalls === 0 && options.config.pruneOn === "agent-message" && options.config.autoBudgetThreshold === null) {
    notes.push("what-if summarized nothing: no final text reply ended a tool run, or every batch was under minBatchChars; try autoBudgetThreshold=0.1 or frontierGapThresholdTokens=2000");
  }
  return notes;
}
