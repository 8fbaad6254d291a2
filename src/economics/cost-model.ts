/**
 * What a token costs with the model in use, and how long its prompt cache
 * lives: from the model's catalog entry (`model.cost` in dollars per million
 * tokens, `model.promptCache` in seconds) and the retention of its cache
 * route (`cache-route.ts`). Pure.
 *
 * Long retention on a breakpoint route (pi's `PI_CACHE_RETENTION=long`: pi-ai
 * marks for one hour) bills a write at 2x the input price, Anthropic's
 * 1-hour rate (pi-ai's `calculateCost` bills `cacheWrite1h` the same way),
 * and lives the catalog's long lifetime, 1 hour when it names none.
 *
 * Fallbacks, each named in `notes` so a decision can say what it assumed, and
 * the catalog's missing prices listed in `missingPrices` so the policy can
 * refuse to weigh what it would only guess:
 * - no positive input price: the model is unpriced and the policy decides as 2.9.1 did;
 * - no positive cache-read price: 10% of the input price (Anthropic's ratio);
 * - no positive cache-write price: the input price (OpenAI and Gemini bill a cache miss as plain input);
 * - no positive output price: 5x the input price;
 * - no cache lifetime in the catalog: 5 minutes (Anthropic's default retention), 1 hour when long.
 *
 * Price tiers (`model.cost.tiers`, price-tiers.ts): `card` holds the base
 * prices and each tier's, with the same fallbacks, for every estimate;
 * `catalog` holds the catalog's own figures (a missing price is 0), which is
 * what pi-ai bills a recorded usage at.
 */
import { getPromptCacheTtlMs } from "@earendil-works/pi-ai";
import type { Api, Model } from "@earendil-works/pi-ai";
import { type CacheRoute, LONG_WRITE_FACTOR } from "./cache-route.js";
import { catalogPrices, catalogTiers, flatCard, type PriceTier, type RateCard, ratesAt, type TokenPrices } from "./price-tiers.js";

export type { TokenPrices } from "./price-tiers.js";

export const DEFAULT_CACHE_TTL_MS = 5 * 60_000;
export const LONG_CACHE_TTL_MS = 60 * 60_000;
const PER_MILLION = 1_000_000;

export type CatalogPrice = "cacheRead" | "cacheWrite" | "output";

export interface CostModel {
  /** False when the catalog gives no input price: nothing can be weighed in dollars. */
  priced: boolean;
  prices: TokenPrices;
  /** How long a cache entry lives after the request that wrote or read it. */
  ttlMs: number;
  /** What was assumed for missing figures, in plain words. */
  notes: string[];
  /** `provider/id` of the model priced, for reports. */
  label: string;
  /** Prices the catalog does not give (missing, 0 or not a number), whatever was assumed for them. */
  missingPrices?: CatalogPrice[];
  /** The cache writes for one hour at the long-retention price. */
  longRetention?: boolean;
  /** `prices` and the catalog's price tiers above them, with the same fallbacks (absent: no tiers). */
  card?: RateCard;
  /** The catalog's figures as pi-ai bills a usage: missing prices 0, no fallbacks, writes at the short rate. */
  catalog?: RateCard;
}

/** The model's prices with their tiers. */
export function cardOf(cost: CostModel): RateCard {
  return cost.card ?? flatCard(cost.prices);
}

/** The prices a request of `inputTokens` tokens of input is billed at. */
export function pricesAt(cost: CostModel, inputTokens: number): TokenPrices {
  return cost.card ? ratesAt(cost.card, inputTokens) : cost.prices;
}

function positive(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : undefined;
}

/** The catalog's lifetime for the retention tier; without one, 1 hour for a long breakpoint cache, else 5 minutes. */
function cacheTtlMs(model: Model<Api>, retention: CacheRoute["retention"], longBreakpoints: boolean, notes: string[]): number {
  let ttl: number | undefined;
  try {
    ttl = getPromptCacheTtlMs(model, { cacheRetention: retention });
  } catch {
    ttl = undefined;
  }
  if (ttl !== undefined && Number.isFinite(ttl) && ttl > 0) return ttl;
  notes.push(`the catalog gives no cache lifetime: assuming ${longBreakpoints ? "1 hour" : "5 minutes"}`);
  return longBreakpoints ? LONG_CACHE_TTL_MS : DEFAULT_CACHE_TTL_MS;
}

/**
 * The model's prices and cache lifetime under its cache route (`route`: the retention, and whether long
 * retention reprices the write; without one, short retention).
 */
export function costModelFor(model: Model<Api> | undefined, route?: Pick<CacheRoute, "rule" | "retention">): CostModel {
  const notes: string[] = [];
  const label = model ? `${String(model.provider)}/${String(model.id)}` : "no model";
  const cost = (model as { cost?: Record<string, unknown> } | undefined)?.cost;
  const input = positive(cost?.input);
  if (!model || input === undefined) {
    const none = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
    return { priced: false, prices: none, ttlMs: DEFAULT_CACHE_TTL_MS, notes: [`${label} has no input price in the catalog`], label, card: flatCard(none), catalog: flatCard(none) };
  }
  if (positive(cost?.cacheRead) === undefined) notes.push("no cache-read price: assuming 10% of the input price");
  if (positive(cost?.cacheWrite) === undefined) notes.push("no cache-write price: a cache miss is billed as input");
  if (positive(cost?.output) === undefined) notes.push("no output price: assuming 5x the input price");
  const missingPrices = (["cacheRead", "cacheWrite", "output"] as const).filter((key) => positive(cost?.[key]) === undefined);
  const long = route?.retention === "long" && route.rule === "anthropic-breakpoints";
  if (long && positive(cost?.cacheWrite) !== undefined) notes.push(`long cache retention: a write costs ${LONG_WRITE_FACTOR}x the input price`);
  const prices = filledPrices(cost!, long);
  const read = catalogTiers(cost?.tiers, label);
  notes.push(...read.notes);
  const tiers: PriceTier[] = read.tiers.map((tier) => ({ inputTokensAbove: tier.inputTokensAbove, prices: filledPrices(perMillion(tier.prices), long) }));
  return {
    priced: true,
    prices,
    ttlMs: cacheTtlMs(model, route?.retention ?? "short", long, notes),
    notes,
    label,
    ...(missingPrices.length > 0 ? { missingPrices } : {}),
    ...(long ? { longRetention: true } : {}),
    card: { base: prices, tiers },
    catalog: { base: catalogPrices(cost).prices, tiers: read.tiers },
  };
}

function perMillion(prices: TokenPrices): Record<string, unknown> {
  return { input: prices.input * PER_MILLION, output: prices.output * PER_MILLION, cacheRead: prices.cacheRead * PER_MILLION, cacheWrite: prices.cacheWrite * PER_MILLION };
}

/** Dollars per token from dollars per million, the missing prices assumed as the module header says. */
function filledPrices(cost: Record<string, unknown>, long: boolean): TokenPrices {
  const input = positive(cost.input) ?? 0;
  const write = positive(cost.cacheWrite);
  return {
    input: input / PER_MILLION,
    output: (positive(cost.output) ?? input * 5) / PER_MILLION,
    cacheRead: (positive(cost.cacheRead) ?? input * 0.1) / PER_MILLION,
    cacheWrite: (long && write !== undefined ? input * LONG_WRITE_FACTOR : (write ?? input)) / PER_MILLION,
  };
}
