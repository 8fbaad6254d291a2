/**
 * Context-metrics snapshot over the persisted branch, cached between
 * refreshes: the footer reads the cache on every render, and recomputation
 * happens only at the points the spec names (reload, tool turns, flush entry,
 * `/pruner status`).
 */
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { projectBranch } from "../capture/batch-capture.js";
import { type ProtectionConfig, protectionPredicate } from "../capture/protected.js";
import type { ContextMetricsSnapshot, PruneFrontier } from "../types.js";
import { computeContextMetrics } from "./context-metrics.js";

/** What the snapshot reads, and the cache it writes. */
export interface MetricsSource {
  config: { value: ProtectionConfig };
  indexer: { isSummarized(occurrenceKey: string): boolean };
  frontier: { get(): PruneFrontier | null };
  metricsCache: ContextMetricsSnapshot | undefined;
}

/** Never throws: on failure the previous cache stays and is returned. */
export function computeMetricsSnapshot(state: MetricsSource, ctx: ExtensionContext): ContextMetricsSnapshot | undefined {
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
