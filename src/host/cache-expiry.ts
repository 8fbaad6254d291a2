/**
 * Cost policy, cold cache: once the prompt cache has expired, the next request
 * writes the whole prompt anyway, so every finished rewrite is free. While the
 * session is idle a timer set for the expiry summarizes and writes them then,
 * so the user does not wait on the summarizer; a request that finds the cache
 * cold with work still pending (after a restart, say) starts the same flush
 * and waits for it like for a final-reply flush.
 */
import { looseEntry, roleOf } from "../capture/message-shape.js";
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { ExtensionState } from "./extension-state.js";
import { onCacheCold } from "./cold-cache.js";
import { startColdFlush } from "./final-reply-flush.js";
import { cacheTtlMs, costPolicyActive, noteCacheWarming, weighFlush } from "./flush-policy.js";
import type { FlushDecisionRecord } from "../economics/flush-decision.js";
import { cacheRouteOf } from "../economics/cache-route.js";
import { processCacheEnv } from "../settings/cache-env.js";

/**
 * A change the provider keys its cache on: another model (its own cache), a compaction (a new prefix), a new
 * thinking level on a breakpoint route (Anthropic drops the messages' cache entries; the recorded pi sessions
 * read nothing after each). The next request starts cold, so what is due is rewritten before it, for free;
 * supersession is activated too (`onCacheCold`).
 */
export function onCacheKeyChange(state: ExtensionState, ctx: ExtensionContext, change: "model" | "compaction" | "thinking"): void {
  onCacheCold(state);
  if (change === "thinking" && cacheRouteOf(ctx.model, processCacheEnv()).rule !== "anthropic-breakpoints") return;
  state.cache.invalidate();
}

/** Past the provider's own expiry, so the flush never races a cache entry still alive. */
const EXPIRY_MARGIN_MS = 1_000;

export function clearCacheExpiry(state: ExtensionState): void {
  if (state.policy.expiryTimer !== undefined) clearTimeout(state.policy.expiryTimer);
  state.policy.expiryTimer = undefined;
}

/** Arms the idle timer for the moment the cache expires (cost policy, warm cache only). */
export function scheduleCacheExpiry(state: ExtensionState, ctx: ExtensionContext): void {
  clearCacheExpiry(state);
  if (!costPolicyActive(state)) return;
  const cache = state.cache.state(Date.now(), cacheTtlMs(ctx));
  if (cache.temperature !== "warm" || cache.expiresInMs === undefined) return;
  const timer = setTimeout(() => void onExpired(state, ctx), cache.expiresInMs + EXPIRY_MARGIN_MS);
  (timer as { unref?: () => void }).unref?.();
  state.policy.expiryTimer = timer;
}

async function onExpired(state: ExtensionState, ctx: ExtensionContext): Promise<void> {
  state.policy.expiryTimer = undefined;
  try {
    if (!costPolicyActive(state) || state.isFlushing || state.finalReplyFlush || !isIdle(ctx)) return;
    noteCacheWarming(state, ctx);
    const cache = state.cache.state(Date.now(), cacheTtlMs(ctx));
    // pi's cache warming refreshed it meanwhile: wait for the new expiry.
    if (cache.temperature === "warm") return scheduleCacheExpiry(state, ctx);
    if (cache.temperature === "cold") await flushCold(state, ctx);
  } catch (err) {
    console.error("pi-condense: the cold-cache flush failed", err);
  }
}

/** Before a provider request: when the cache has expired, the rewrites still waiting run now. */
export async function flushIfCacheCold(state: ExtensionState, ctx: ExtensionContext): Promise<void> {
  if (!costPolicyActive(state) || state.isFlushing || state.finalReplyFlush || state.cache.requests === 0) return;
  const cold = () => state.cache.state(Date.now(), cacheTtlMs(ctx)).temperature === "cold";
  // Runs before every request: the branch is read only when the cache looks expired (a warming may have refreshed it).
  if (!cold()) return;
  noteCacheWarming(state, ctx);
  if (cold()) await flushCold(state, ctx);
}

async function flushCold(state: ExtensionState, ctx: ExtensionContext): Promise<void> {
  const expiredRequest = state.cache.state(Date.now(), cacheTtlMs(ctx)).lastRequestAt;
  if (expiredRequest !== undefined && state.policy.coldFlushedFor === expiredRequest) return;
  state.policy.coldFlushedFor = expiredRequest;
  onCacheCold(state);
  const unseen = unseenTurn(ctx);
  // Outputs no request has carried yet (a tool that ran past the cache's lifetime) wait: the model needs them first.
  const weighed = weighFlush(state, ctx, "cold", { select: (batches) => batches.filter((b) => b.turnIndex !== unseen) });
  const record: FlushDecisionRecord = weighed?.decision.record ?? {
    verdict: "apply",
    basis: "cold",
    reason: "the prompt cache has expired, so rewriting costs nothing extra",
    cache: { temperature: "cold" },
  };
  state.policy.last = record;
  await startColdFlush(state, ctx, record, weighed?.batches ?? []);
}

/** The session-wide index of the last assistant turn when tool results follow it: no request has carried them yet. */
function unseenTurn(ctx: ExtensionContext): number | undefined {
  let branch: readonly unknown[];
  try {
    branch = ctx.sessionManager.getBranch();
  } catch {
    return undefined;
  }
  let assistants = 0;
  let endsWithResults = false;
  for (const value of branch) {
    const entry = looseEntry(value);
    const role = entry?.type === "message" ? roleOf(entry.message) : undefined;
    if (role === "assistant") {
      assistants++;
      endsWithResults = false;
    } else if (role === "toolResult") endsWithResults = true;
  }
  return endsWithResults ? assistants - 1 : undefined;
}

function isIdle(ctx: ExtensionContext): boolean {
  try {
    return ctx.isIdle();
  } catch {
    return false;
  }
}
