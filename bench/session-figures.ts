// What one bench run cost, from the loopback provider's request log: the main model's cache figures as
// the simulation billed them under the rule of the run's wire format, the summarizer's tokens, prefix
// breaks, and dollars at catalog prices (each request at the price tier its input falls in, as pi-ai bills a
// usage); for Anthropic runs also the dollars under the prefix reading; and the limit of the run's main
// requests (src/economics/cost-floor.ts).
import type { ModelCost } from "@earendil-works/pi-ai";
import { FloorTally, floorDollars } from "../src/economics/cost-floor.js";
import { cacheRouteOf } from "../src/economics/cache-route.js";
import { catalogPrices, catalogTiers, type RateCard, type TokenPrices, usageDollars } from "../src/economics/price-tiers.js";
import type { RecordedRequest } from "../test/e2e/fake-llm.js";
import { floorBlocks, type CacheFigures } from "../test/e2e/cache-sim.js";
import { cacheModelIds } from "../test/e2e/priced-models.js";
import type { RunForgetting } from "./session-forgetting.js";
import type { RunWarming } from "./session-warming.js";

export interface RunFigures {
  mainRequests: number;
  inputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  outputTokens: number;
  summarizerRequests: number;
  /** Prompt tokens of the summarizer calls, cached or not. */
  summarizerInputTokens: number;
  summarizerOutputTokens: number;
  prefixBreaks: number;
  /** Main requests that found the session's cache entry expired. */
  coldRequests: number;
  /** pi's cache-warming refreshes (in `costUsd`, not in the main-request figures). */
  warmRequests: number;
  /** The headline: every request priced under the rule of the API it ran on (cache-sim.ts). */
  costUsd: number;
  /** Anthropic runs: the same requests under the prefix reading (issue 17's model); undefined on other wires. */
  prefixCostUsd?: number;
  /**
   * The least these main requests can cost under the run's rule: each block written once, the output, the
   * tools and system read per request. The tables measure every variant against the no-extension run's.
   */
  limitUsd: number;
  /** What the run's agent could no longer see, as the miss model counts it on the session file (session-forgetting.ts). */
  forgetting?: RunForgetting;
  /** What pi's cache warming did (shapes whose cache lifetime lets pi warm; session-warming.ts). */
  warming?: RunWarming;
}

/** Prices per model id of the fake provider (dollars per million tokens). */
export type PriceList = Record<string, ModelCost>;

/** The fake's completion tokens per answer (the scripted replies set none). */
const OUTPUT_TOKENS = 20;

function priceOf(prices: PriceList, model: string): ModelCost {
  const price = prices[model];
  if (!price) throw new Error(`no price for model ${model}`);
  return price;
}

/** A model's catalog prices with their tiers, in dollars per token; `miss`: a cache write billed as plain input (the prefix rule). */
function cardOf(price: ModelCost, miss = false): RateCard {
  const adjust = (p: TokenPrices): TokenPrices => (miss ? { ...p, cacheWrite: p.input } : p);
  const tiers = catalogTiers((price as { tiers?: unknown }).tiers, "bench").tiers;
  return { base: adjust(catalogPrices(price as unknown as Record<string, unknown>).prices), tiers: tiers.map((t) => ({ ...t, prices: adjust(t.prices) })) };
}

/** A request's bill as pi-ai computes it from the usage the fake reported (in dollars). */
const dollars = (c: CacheFigures, price: ModelCost) => usageDollars(cardOf(price), { input: c.inputTokens, cacheRead: c.cacheReadTokens, cacheWrite: c.cacheWriteTokens, output: OUTPUT_TOKENS });

/** The limit of a run's main requests, priced as `dollars` prices their bills (on the OpenAI wire a miss is plain input). */
function limitOf(requests: RecordedRequest[], prices: PriceList): number {
  const main = requests.filter((r) => r.status === 200 && r.kind === "main" && r.cache);
  const first = main[0];
  if (!first) return 0;
  const rule = first.cache!.rule;
  const { minTokens } = cacheRouteOf({ api: first.api, id: cacheModelIds(first.api)[first.model] ?? first.model });
  const tally = new FloorTally(rule, minTokens);
  for (const r of main) tally.add({ ...floorBlocks(r.body, rule), outputTokens: OUTPUT_TOKENS });
  return floorDollars(tally.result(), cardOf(priceOf(prices, first.model), rule === "longest-prefix"));
}

export function runFigures(requests: RecordedRequest[], prices: PriceList): RunFigures {
  const f: RunFigures = {
    mainRequests: 0,
    inputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    outputTokens: 0,
    summarizerRequests: 0,
    summarizerInputTokens: 0,
    summarizerOutputTokens: 0,
    prefixBreaks: 0,
    coldRequests: 0,
    warmRequests: 0,
    costUsd: 0,
    limitUsd: 0,
  };
  let headline = 0;
  let prefixOnly = 0;
  let everyPrefix = true;
  for (const req of requests) {
    if (req.status !== 200) continue;
    const price = priceOf(prices, req.model);
    const c = req.cache;
    if (!c) throw new Error(`request ${req.seq} was not billed by the cache simulation`);
    headline += dollars(c, price);
    if (c.prefix) prefixOnly += dollars(c.prefix, price);
    else everyPrefix = false;
    if (req.kind === "warm") {
      f.warmRequests++;
      continue;
    }
    if (req.kind === "summarizer") {
      // Summarizer calls are cached under their own key (pi's compaction calls send no cache_control: plain input).
      f.summarizerRequests++;
      f.summarizerInputTokens += c.inputTokens + c.cacheReadTokens + c.cacheWriteTokens;
      f.summarizerOutputTokens += OUTPUT_TOKENS;
      continue;
    }
    f.mainRequests++;
    f.inputTokens += c.inputTokens;
    f.cacheReadTokens += c.cacheReadTokens;
    f.cacheWriteTokens += c.cacheWriteTokens;
    f.outputTokens += OUTPUT_TOKENS;
    if (c.prefixBreak) f.prefixBreaks++;
    if (c.expired) f.coldRequests++;
  }
  f.costUsd = headline;
  if (everyPrefix && f.mainRequests > 0) f.prefixCostUsd = prefixOnly;
  f.limitUsd = limitOf(requests, prices);
  return f;
}
