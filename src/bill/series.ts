/**
 * One configuration's replayed requests in tokens and dollars: each request's
 * chars, cache reads and writes (cache-sim.ts) become tokens at the calibrated
 * chars per token and are priced as pi-ai bills a usage, at the request's own
 * model and the tier its input falls in (`pricesFor`); pi's cache-warming
 * refreshes (a read of the request sent again, one output token) count in
 * every figure; the recoveries the miss model found are priced beside them.
 * Pure.
 */
import type { CostModel, TokenPrices } from "../economics/cost-model.js";
import { recoveryCost, type RequestMisses } from "../forgetting/miss-model.js";

/** A replayed request as the cache simulation billed it (report/cache-sim.ts), in chars. */
export interface BilledStep {
  /** Input chars of the request (system prompt included). */
  chars: number;
  /** Read from the cache. */
  cachedChars: number;
  /** Written to the cache; the rest (chars - cached - written) is plain input. */
  writtenChars: number;
  /** A warm request that does not extend the previous one. */
  prefixBreak: boolean;
  /** The previous request's cache had expired, there was none, or the recording shows it empty. */
  cold: boolean;
  lookbackMiss: boolean;
  /** The recording showed a cold start here that the simulation's clock did not. */
  recordedCold?: boolean;
}

/** One of pi's cache-warming refreshes as billed: the request sent again, in chars. */
export interface BilledRefresh {
  cached: number;
  written: number;
  chars: number;
}

/** The summarizer's use by a configuration: tokens recorded, or chars until the ratio is known. */
export interface SummarizerUse {
  input: number;
  output: number;
  unit: "tokens" | "chars";
  /** Recorded dollars, when the session says (the actual run); otherwise priced here. */
  recordedCost?: number;
  calls: number;
}

/** The configurations a replay compares: pi alone, what the session sent, the what-if. */
export type ScenarioName = "none" | "actual" | "whatif";

export interface ScenarioSeries {
  name: ScenarioName;
  label: string;
  /** Per request, tokens. */
  context: number[];
  cacheRead: number[];
  cacheWrite: number[];
  /** Dollars spent up to and including each request (main model only, its warming refreshes included). */
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
  /** Cold starts the recording showed that the simulation's clock did not (a model or thinking-level change, an eviction). */
  recordedColdStarts: number;
  /** Warm requests that rewrote nothing yet read less than the previous one cached (Anthropic's 20-block lookback). */
  lookbackMisses: number;
  /** pi's cache-warming refreshes this configuration sent, and what they cost (included in `dollars`; undefined unpriced). */
  refreshes: number;
  refreshDollars: number | undefined;
  peakContext: number;
  /** Main model plus summarizer, or undefined when the model is unpriced. */
  dollars: number | undefined;
  /** Replies that used an item the request no longer showed (miss-model.ts), the items, and what recovering them costs (undefined unpriced). */
  recoveries: number;
  misses: number;
  /** Of the misses, the lines of an edit's old text (the rest are identifiers). */
  editLineMisses: number;
  recoveryDollars: number | undefined;
}

/** One configuration's run as the replay produced it. */
export interface PricedRun {
  scenario: { name: ScenarioName; label: string; summarizer(): SummarizerUse };
  /** Per request, what its reply could no longer see. */
  misses: Array<RequestMisses | undefined>;
}

export interface SeriesPricing {
  /** The prices request `index` is billed at, with `inputTokens` of input. */
  pricesFor(index: number, inputTokens: number): TokenPrices;
  priced: boolean;
  summarizer: CostModel;
  charsPerToken: number;
  /** The recorded summarizer dollars stand (not when the run is priced as another model). */
  trustRecorded: boolean;
}

function summarizerTokens(use: SummarizerUse, charsPerToken: number): { input: number; output: number } {
  return use.unit === "tokens" ? { input: use.input, output: use.output } : { input: use.input / charsPerToken, output: use.output / charsPerToken };
}

interface Tally {
  dollars: number;
  output: number;
  uncached: number;
  refreshDollars: number;
  refreshes: number;
  refreshRead: number;
  refreshWrite: number;
}

/** A refresh: the request sent again with one output token, billed at the tier of its input. */
function priceRefreshes(refreshes: BilledRefresh[], index: number, pricing: SeriesPricing, tally: Tally): void {
  for (const refresh of refreshes) {
    const read = refresh.cached / pricing.charsPerToken;
    const write = refresh.written / pricing.charsPerToken;
    const plain = Math.max(0, refresh.chars / pricing.charsPerToken - read - write);
    const p = pricing.pricesFor(index, read + write + plain);
    const dollars = read * p.cacheRead + write * p.cacheWrite + plain * p.input + p.output;
    tally.dollars += dollars;
    tally.refreshDollars += dollars;
    tally.refreshes += 1;
    tally.refreshRead += read;
    tally.refreshWrite += write;
    tally.output += 1;
  }
}

/** `outputTokens`: per request, its reply's output tokens. */
export function series(run: PricedRun, steps: BilledStep[], refreshes: BilledRefresh[][], outputTokens: readonly number[], pricing: SeriesPricing): ScenarioSeries {
  const cpt = pricing.charsPerToken;
  const out: ScenarioSeries = { name: run.scenario.name, label: run.scenario.label, context: [], cacheRead: [], cacheWrite: [], cumulativeCost: [], totals: undefined as never };
  const tally: Tally = { dollars: 0, output: 0, uncached: 0, refreshDollars: 0, refreshes: 0, refreshRead: 0, refreshWrite: 0 };
  let prefixBreaks = 0;
  let coldStarts = 0;
  let recordedColdStarts = 0;
  let lookbackMisses = 0;
  let peak = 0;
  steps.forEach((step, i) => {
    const context = step.chars / cpt;
    const read = step.cachedChars / cpt;
    const write = step.writtenChars / cpt;
    const plain = Math.max(0, context - read - write);
    const tokensOut = outputTokens[i] ?? 0;
    const p = pricing.pricesFor(i, context);
    out.context.push(context);
    out.cacheRead.push(read);
    out.cacheWrite.push(write);
    tally.dollars += read * p.cacheRead + write * p.cacheWrite + plain * p.input + tokensOut * p.output;
    priceRefreshes(refreshes[i] ?? [], i, pricing, tally);
    out.cumulativeCost.push(tally.dollars);
    tally.output += tokensOut;
    tally.uncached += plain;
    if (step.prefixBreak) prefixBreaks += 1;
    if (step.cold) coldStarts += 1;
    if (step.recordedCold) recordedColdStarts += 1;
    if (step.lookbackMiss) lookbackMisses += 1;
    peak = Math.max(peak, context);
  });
  let recoveries = 0;
  let misses = 0;
  let editLineMisses = 0;
  let recoveryDollars = 0;
  run.misses.forEach((missed, i) => {
    if (!missed) return;
    recoveries += 1;
    misses += missed.items.length;
    editLineMisses += missed.editLines;
    const context = steps[i]!.chars / cpt;
    recoveryDollars += recoveryCost(context, missed.holderChars / cpt, pricing.pricesFor(i, context));
  });
  const use = run.scenario.summarizer();
  const summarizer = summarizerTokens(use, cpt);
  const sp = pricing.summarizer.prices;
  const summarizerDollars = pricing.trustRecorded && use.recordedCost !== undefined ? use.recordedCost : summarizer.input * sp.input + summarizer.output * sp.output;
  out.totals = {
    requests: steps.length,
    input: sum(out.context),
    cacheRead: sum(out.cacheRead) + tally.refreshRead,
    cacheWrite: sum(out.cacheWrite) + tally.refreshWrite,
    output: tally.output,
    summarizerInput: summarizer.input,
    summarizerOutput: summarizer.output,
    summarizerCalls: use.calls,
    uncached: tally.uncached,
    prefixBreaks,
    coldStarts,
    recordedColdStarts,
    lookbackMisses,
    refreshes: tally.refreshes,
    refreshDollars: pricing.priced ? tally.refreshDollars : undefined,
    peakContext: peak,
    dollars: pricing.priced ? tally.dollars + summarizerDollars : undefined,
    recoveries,
    misses,
    editLineMisses,
    recoveryDollars: pricing.priced ? recoveryDollars : undefined,
  };
  return out;
}

function sum(values: number[]): number {
  let total = 0;
  for (const value of values) total += value;
  return total;
}
