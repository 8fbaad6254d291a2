/**
 * Context-metrics snapshot over the persisted branch, cached between
 * refreshes: the footer reads the cache on every render, and recomputation
 * happens only at the points the spec names (reload, tool turns, flush entry,
 * `/pruner status`).
 */
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { computeContextMetrics } from "./context-metrics.js";
import { type ExtensionState, protectionPredicate } from "./extension-state.js";
import type { ContextMetricsSnapshot } from "../types.js";

export const EMPTY_METRICS_SNAPSHOT: ContextMetricsSnapshot = {
  openCycleThinkingTokens: 0,
  largestChainSharePct: 0,
  frontierGapTokens: 0,
};

/** Message entries as messages, custom_message entries as the `custom` role the model sees. */
export function projectBranch(branch: any[]): any[] {
  const out: any[] = [];
  for (const entry of branch) {
    if (entry?.type === "message" && entry.message) {
      out.push(entry.message);
    } else if (entry?.type === "custom_message") {
      out.push({
        role: "custom",
        customType: entry.customType,
        content: entry.content,
        display: entry.display,
        details: entry.details,
        timestamp: new Date(entry.timestamp).getTime(),
      });
    }
  }
  return out;
}

/** Message entries only, unwrapped: what chain detection and capture read. */
export function branchMessages(branch: any[]): any[] {
  const out: any[] = [];
  for (const entry of branch) if (entry?.type === "message" && entry.message) out.push(entry.message);
  return out;
}

/** Never throws: on failure the previous cache stays and is returned. */
export function computeMetricsSnapshot(state: ExtensionState, ctx: ExtensionContext): ContextMetricsSnapshot | undefined {
  try {
    const projection = projectBranch(ctx.sessionManager.getBranch());
    state.metricsCache = computeContextMetrics(
      projection,
      state.frontier.get(),
      (key) => state.indexer.isSummarized(key),
      protectionPredicate(state),
    );
  } catch (err) {
    console.error("pi-condense: context metrics computation failed", err);
  }
  return state.metricsCache;
}
