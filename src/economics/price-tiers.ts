/**
 * Request-wide price tiers: pi-ai's catalog prices many models by the size of
 * the request (`model.cost.tiers`, each with `inputTokensAbove`), and bills a
 * usage at the rates of the highest tier whose threshold its input (fresh
 * input, cache reads and cache writes together) passes, for every token of
 * the request, output included (pi-ai's `calculateCost`). `usageDollars` is
 * that computation; the test over the catalog holds it to pi-ai's to the cent.
 *
 * A catalog's tier list is read leniently: out of order is sorted; a tier
 * with a missing, negative or non-numeric price or threshold is left out (the
 * request is priced at the tier below), a second tier at the same threshold
 * too (pi-ai takes the first); each named in `notes`. Pure.
 */

/** Dollars per token. */
export interface TokenPrices {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export interface PriceTier {
  /** The tier applies to a request whose input passes this many tokens. */
  inputTokensAbove: number;
  prices: TokenPrices;
}

/** A model's prices: the base rates and the tiers above them, by threshold ascending. */
export interface RateCard {
  base: TokenPrices;
  tiers: readonly PriceTier[];
}

/** A usage as pi records it (tokens); `cacheWrite1h` is the part of `cacheWrite` written for one hour. */
export interface UsageTokens {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  cacheWrite1h?: number;
}

const PER_MILLION = 1_000_000;
const PRICE_KEYS = ["input", "output", "cacheRead", "cacheWrite"] as const;

export const flatCard = (prices: TokenPrices): RateCard => ({ base: prices, tiers: [] });

/** The rates a request with `inputTokens` of input is billed at. */
export function ratesAt(card: RateCard, inputTokens: number): TokenPrices {
  let rates = card.base;
  for (const tier of card.tiers) {
    if (inputTokens > tier.inputTokensAbove) rates = tier.prices;
    else break;
  }
  return rates;
}

/** The index of the tier a request falls in: 0 for the base rates, k for the k-th tier. */
export function tierIndexAt(card: RateCard, inputTokens: number): number {
  let index = 0;
  for (const tier of card.tiers) {
    if (inputTokens > tier.inputTokensAbove) index++;
    else break;
  }
  return index;
}

function count(value: number | undefined): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0;
}

/** What a usage costs at the card's rates, as pi-ai's `calculateCost` computes it (a 1-hour write at twice the input rate). */
export function usageDollars(card: RateCard, usage: UsageTokens): number {
  const input = count(usage.input);
  const cacheRead = count(usage.cacheRead);
  const cacheWrite = count(usage.cacheWrite);
  const rates = ratesAt(card, input + cacheRead + cacheWrite);
  const longWrite = Math.min(cacheWrite, count(usage.cacheWrite1h));
  return (
    rates.input * input +
    rates.output * count(usage.output) +
    rates.cacheRead * cacheRead +
    rates.cacheWrite * (cacheWrite - longWrite) +
    rates.input * 2 * longWrite
  );
}

function price(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** The catalog's dollars per million tokens as dollars per token; a missing or negative price is 0 (named in `missing`). */
export function catalogPrices(cost: Record<string, unknown> | undefined): { prices: TokenPrices; missing: string[] } {
  const missing: string[] = [];
  const prices = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  for (const key of PRICE_KEYS) {
    const value = price(cost?.[key]);
    if (value === undefined) missing.push(key);
    prices[key] = (value ?? 0) / PER_MILLION;
  }
  return { prices, missing };
}

/** `inputTokensAbove` of a tier as the catalog wrote it, for notes. */
function thresholdText(value: unknown): string {
  return typeof value === "number" ? value.toLocaleString("en-US") : JSON.stringify(value) ?? "missing";
}

/**
 * The catalog's tiers (`model.cost.tiers`) as dollars per token, by threshold ascending, the unusable ones
 * left out and named in `notes` (`label`: the model, for the notes).
 */
export function catalogTiers(raw: unknown, label: string): { tiers: PriceTier[]; notes: string[] } {
  const notes: string[] = [];
  if (raw === undefined) return { tiers: [], notes };
  if (!Array.isArray(raw)) return { tiers: [], notes: [`${label}: the catalog's price tiers are not a list, ignored`] };
  const read: PriceTier[] = [];
  raw.forEach((value: unknown) => {
    const tier = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
    const above = tier.inputTokensAbove;
    if (typeof above !== "number" || !Number.isFinite(above) || above < 0) {
      notes.push(`${label}: a price tier with threshold ${thresholdText(above)} is not a token count, ignored`);
      return;
    }
    const { prices, missing } = catalogPrices(tier);
    if (missing.length > 0) {
      notes.push(`${label}: the price tier above ${thresholdText(above)} tokens has no valid ${missing.join(", ")} price, ignored (priced at the tier below)`);
      return;
    }
    if (above === 0) notes.push(`${label}: a price tier above 0 tokens prices every request`);
    read.push({ inputTokensAbove: above, prices });
  });
  const sorted = [...read].sort((a, b) => a.inputTokensAbove - b.inputTokensAbove);
  if (sorted.some((tier, i) => tier !== read[i])) notes.push(`${label}: the catalog's price tiers are out of order, read by threshold`);
  const tiers = sorted.filter((tier, i) => i === 0 || tier.inputTokensAbove !== sorted[i - 1]!.inputTokensAbove);
  if (tiers.length < sorted.length) notes.push(`${label}: two price tiers share a threshold, the first one listed is used`);
  return { tiers, notes };
}

/** A request that reads `read` tokens from the cache and writes `write` to it, at the tier of their sum. */
export function cachedRequestDollars(card: RateCard, read: number, write: number): number {
  const r = ratesAt(card, read + write);
  return r.cacheRead * Math.max(0, read) + r.cacheWrite * Math.max(0, write);
}

/**
 * What `n` requests save when each reads `to` tokens instead of `from` (the k-th: `from + (k-1)·growth`
 * read, `growth` written, at the tier of the whole request): a crossing of a tier by either moves every
 * token of that request to the other rates. `n` may be fractional (the last request weighed by its share).
 * Closed form: between two crossings the saving grows linearly.
 */
export function savingOver(card: RateCard, from: number, to: number, growth: number, n: number): number {
  if (!(n > 0)) return 0;
  const g = Math.max(0, growth);
  const term = (k: number) => cachedRequestDollars(card, from + (k - 1) * g, g) - cachedRequestDollars(card, to + (k - 1) * g, g);
  if (g === 0 || card.tiers.length === 0) return term(1) * n;
  const whole = Math.floor(n);
  // The k-th request's input is start + k·g: it passes a threshold T from k > (T - start) / g on.
  const ends = new Set<number>();
  for (const tier of card.tiers) {
    for (const start of [from, to]) {
      const last = Math.floor((tier.inputTokensAbove - start) / g);
      if (last >= 1 && last < whole) ends.add(last);
    }
  }
  let total = 0;
  let first = 1;
  for (const end of [...[...ends].sort((a, b) => a - b), whole]) {
    if (end < first) continue;
    total += ((end - first + 1) * (term(first) + term(end))) / 2;
    first = end + 1;
  }
  return total + (n - whole) * term(whole + 1);
}
