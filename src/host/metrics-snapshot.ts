/**
 * Context metrics on demand. They are computed only where someone reads them
 * (the flush-metrics entry, `/pruner status`, the frontier-gap gate) and never
 * cached: the footer no longer shows them, and a stale snapshot is worse than
 * none (it showed a gap right after a flush had closed it). Sizes are the
 * request view: what the provider receives, the figure users see.
 */
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { projectBranchMessages } from "../capture/batch-capture.js";
import { type ProtectionConfig, protectionPredicate } from "../capture/protected.js";
import type { ContextMetricsSnapshot } from "../summarize/flush-types.js";
import type { PruneFrontier } from "../capture/records.js";
import { requestChars } from "../render/message-size.js";
import { isStaleContextError } from "../summarize/delivery.js";
import { computeContextMetrics } from "./context-metrics.js";

/** What the snapshot reads. */
export interface MetricsSource {
  config: { value: ProtectionConfig };
  indexer: { isSummarized(occurrenceKey: string): boolean };
  frontier: { get(): PruneFrontier | null };
}

/** Never throws: a failed computation is logged and yields no snapshot. */
export function computeMetricsSnapshot(state: MetricsSource, ctx: ExtensionContext): ContextMetricsSnapshot | undefined {
  try {
    return computeContextMetrics(
      projectBranchMessages(ctx.sessionManager.getBranch()),
      state.frontier.get(),
      (key) => state.indexer.isSummarized(key),
      protectionPredicate(state),
      requestChars,
    );
  } catch (err) {
    // A session replaced under a running flush is not a failure worth a stack trace.
    if (!isStaleContextError(err)) console.error("pi-condense: context metrics computation failed", err);
    return undefined;
  }
}
