/**
 * When live sight widens the raw window (issue 42): the rate of recoveries over the session's recent
 * requests, and the two thresholds it is judged by. Pure.
 *
 * The rate is the requests whose reply went back for archived output (`live-sight.ts`) among the last
 * `SIGHT_WINDOW_REQUESTS` requests, per 100. Measured on the shared corpus with every output archived as soon
 * as the in-run window let it go (the most the policy hides), agents that never saw pruning re-read what they
 * had read before 0.7 to 1.3 times per 100 requests; no 40-request window held 4 such requests, 2.5% of the
 * mini-swe-agent windows held 3 (PRUNING.md, "Live sight"). So 4 in 40 (10 per 100) is a rate pruning
 * caused, not the agent's habit, and about the recoveries per 100 requests the issue counted for 2.9.1's
 * timing; the window narrows again at 1 in 40 (2.5 per 100), the habit's level, so it does not flap.
 * A window shorter than 40 requests is counted as 40: a session's first requests cannot tip it alone.
 */
import type { Recovery } from "./live-sight.js";

export const SIGHT_WINDOW_REQUESTS = 40;
/** Requests with a recovery among the last `SIGHT_WINDOW_REQUESTS` that widen the raw window. */
export const WIDEN_AT_RECOVERIES = 4;
/** At or below this many the widened window narrows again. */
export const NARROW_AT_RECOVERIES = 1;
/** Tool turns the widened window keeps raw beyond the in-run window. */
export const WIDENED_EXTRA_TURNS = 2;

export interface SightRate {
  /** Requests with a recovery among the last `window` requests. */
  recoveries: number;
  window: number;
  per100: number;
}

/** The recent rate: requests with a recovery among the last `SIGHT_WINDOW_REQUESTS` of `requests`. */
export function recentRate(recoveries: readonly Recovery[], requests: number): SightRate {
  const from = requests - SIGHT_WINDOW_REQUESTS;
  const recent = new Set<number>();
  for (let i = recoveries.length - 1; i >= 0; i--) {
    const request = recoveries[i]!.request;
    if (request < from) break;
    recent.add(request);
  }
  return { recoveries: recent.size, window: SIGHT_WINDOW_REQUESTS, per100: (100 * recent.size) / SIGHT_WINDOW_REQUESTS };
}

/** What the rate asks of the window: widen it, let it narrow (at a rewrite that happens anyway), or nothing. */
export function windowMove(widened: boolean, rate: SightRate): "widen" | "narrow" | undefined {
  if (!widened && rate.recoveries >= WIDEN_AT_RECOVERIES) return "widen";
  if (widened && rate.recoveries <= NARROW_AT_RECOVERIES) return "narrow";
  return undefined;
}
