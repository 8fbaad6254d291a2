/**
 * What turning pruning off or on costs the requests that follow, said before the next request is sent. That
 * request sends the history the other way: from the first message the two differ at, the provider's cache
 * holds nothing it can read, so the rest is written to the cache again (Anthropic's rule) or billed as fresh
 * input (a longest-prefix cache); every later request then reads the other size. Sizes are the footer's
 * estimate; prices the session model's catalog prices under its cache rule (src/economics/), each request at
 * the price tier its size falls in.
 */
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { cacheRouteOf } from "../economics/cache-route.js";
import type { CacheRule } from "../economics/prompt-cache.js";
import { costModelFor, pricesAt, type TokenPrices } from "../economics/cost-model.js";
import { dollars } from "../economics/rewrite-economics.js";
import { estimateTokens, formatCompactCount } from "../format/figures.js";
import { processCacheEnv } from "../settings/cache-env.js";
import type { ExtensionState } from "./extension-state.js";
import { measureBothWays } from "./request-render.js";
import { CUSTOM_TYPE_TOGGLE } from "../names.js";

/** Dollars per token of what the cache holds, and of what it must take in again. */
function rates(rule: CacheRule, prices: TokenPrices): { read: number; rewrite: number } {
  if (rule === "uncached") return { read: prices.input, rewrite: prices.input };
  return { read: prices.cacheRead, rewrite: rule === "anthropic-breakpoints" ? prices.cacheWrite : prices.input };
}

/** What the provider does with the part from the first pruned output on, which its cache holds only the other way. */
const REWRITE_WORDS: Record<CacheRule, (tokens: string) => string> = {
  "anthropic-breakpoints": (tokens) => `; the ${tokens} tokens from the first pruned output on are written to the provider's cache again`,
  "longest-prefix": (tokens) => `; the ${tokens} tokens from the first pruned output on are billed as fresh input again`,
  uncached: () => "",
};

function moreOrLess(amount: number): string {
  return amount >= 0 ? `${dollars(amount)} more` : `${dollars(-amount)} less`;
}

/**
 * True when pruning goes back to how the last request was sent: it was turned the other way since, and no
 * request went out in between, so the provider's cache still holds the history as that request sent it.
 */
function backToLastRequest(ctx: ExtensionContext, enabling: boolean): boolean {
  let branch: readonly unknown[];
  try {
    branch = ctx.sessionManager.getBranch();
  } catch {
    return false;
  }
  let firstToggleSince: boolean | undefined;
  for (let i = branch.length - 1; i >= 0; i--) {
    const entry = branch[i] as { type?: string; customType?: string; data?: { enabled?: unknown }; message?: { role?: string } };
    if (entry?.type === "message" && entry.message?.role === "assistant") break;
    if (entry?.type === "custom" && entry.customType === CUSTOM_TYPE_TOGGLE && typeof entry.data?.enabled === "boolean") {
      firstToggleSince = entry.data.enabled;
    }
  }
  return firstToggleSince !== undefined && firstToggleSince !== enabling;
}

/** The sentences `/pruner on|off` adds; undefined when the next request is the same either way, as far as the cache goes. */
export function toggleCostText(state: ExtensionState, ctx: ExtensionContext, enabling: boolean): string | undefined {
  if (backToLastRequest(ctx, enabling)) return undefined;
  const sizes = measureBothWays(state, ctx);
  if (!sizes) return undefined;
  const overhead = state.stats.getLiveReclaim()?.overheadTokens ?? 0;
  const raw = estimateTokens(sizes.rawChars) + overhead;
  const pruned = estimateTokens(sizes.prunedChars) + overhead;
  const shared = estimateTokens(sizes.sharedChars) + overhead;
  const [from, to] = enabling ? [raw, pruned] : [pruned, raw];
  const rewritten = Math.max(0, to - shared);
  const how = enabling ? "pruned" : "unpruned";
  const route = cacheRouteOf(ctx.model, processCacheEnv());
  const head =
    `The next request sends the history ${how}: about ${formatCompactCount(to)} tokens instead of ${formatCompactCount(from)}` +
    `${REWRITE_WORDS[route.rule](formatCompactCount(rewritten))}.`;
  const cost = costModelFor(ctx.model, route);
  if (!cost.priced) return `${head} (${cost.label || "this model"} has no catalog price, so no dollars.)`;
  // Each request at the price tier its size falls in.
  const was = rates(route.rule, pricesAt(cost, from));
  const will = rates(route.rule, pricesAt(cost, to));
  const next = shared * will.read + rewritten * will.rewrite - from * was.read;
  const later = to * will.read - from * was.read;
  return `${head} At ${cost.label}'s prices that request costs about ${moreOrLess(next)} than ${enabling ? "staying unpruned" : "with pruning on"}, and each later one about ${moreOrLess(later)}.`;
}
