/**
 * Budget gates for forcing an extra flush: an absolute usage threshold and a
 * per-turn growth delta, both measured against a window capped at 300k tokens
 * so they stay reachable on models with very large context windows; and the
 * frontier-gap gate, an absolute token count of unsummarized tail.
 */
import type { ContextUsage } from "@earendil-works/pi-coding-agent";
import type { ContextMetricsSnapshot } from "./flush-types.js";

export const MAX_BUDGET_WINDOW = 300_000;

function isShare(value: number | null | undefined): value is number {
  return typeof value === "number" && value > 0 && value <= 1;
}

function knownTokens(usage: ContextUsage | undefined): usage is ContextUsage & { tokens: number } {
  return usage !== undefined && usage !== null && usage.tokens != null && usage.contextWindow > 0;
}

export function shouldBudgetFlush(usage: ContextUsage | undefined, threshold: number | null): boolean {
  if (!isShare(threshold) || !knownTokens(usage)) return false;
  return usage.tokens >= Math.min(MAX_BUDGET_WINDOW, threshold * usage.contextWindow);
}

export function usageFraction(usage: ContextUsage | undefined): number | null {
  if (!knownTokens(usage)) return null;
  return usage.tokens / Math.min(usage.contextWindow, MAX_BUDGET_WINDOW);
}

export function shouldDeltaFlush(
  usage: ContextUsage | undefined,
  previousFraction: number | null,
  delta: number | null,
): boolean {
  if (!isShare(delta) || previousFraction == null) return false;
  const current = usageFraction(usage);
  if (current === null) return false;
  return current - previousFraction >= delta;
}

/** False without a threshold or without a snapshot (a failed computation never fires). */
export function shouldFrontierGapFlush(snapshot: ContextMetricsSnapshot | undefined, threshold: number | null): boolean {
  if (threshold === null || snapshot === undefined) return false;
  return snapshot.frontierGapTokens >= threshold;
}
