/**
 * Session-scoped state of one extension instance. The factory in index.ts
 * creates exactly one of these per call; handlers and the flush share it.
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { BlockRefIssuer } from "../chains/block-refs.js";
import { DiagnosticSink } from "../render/diagnostics.js";
import { type BackgroundFlush, SafePoints } from "./safe-points.js";
import { PruneFrontierTracker } from "../capture/frontier.js";
import { ToolCallIndexer } from "../archive/indexer.js";
import { isProtected } from "../capture/protected.js";
import { RetryLedger } from "../summarize/retry-ledger.js";
import { StatsAccumulator } from "../summarize/stats.js";
import { FallbackController } from "../summarize/summarizer-fallback.js";
import { type CapturedBatch, type ContextMetricsSnapshot, type ContextPruneConfig, DEFAULT_CONFIG } from "../types.js";

export interface ExtensionState {
  pi: ExtensionAPI;
  config: { value: ContextPruneConfig };
  indexer: ToolCallIndexer;
  blockRefs: BlockRefIssuer;
  stats: StatsAccumulator;
  fallback: FallbackController;
  diagnostics: DiagnosticSink;
  frontier: PruneFrontierTracker;
  /** Summarizer failures per batch: backoff and the switch to a deterministic archive. */
  retries: RetryLedger;
  /** Live-captured batches: the flush's fallback data source and the counter behind notices and the gate. */
  pending: CapturedBatch[];
  isFlushing: boolean;
  /** The final-reply flush while it runs in the background (see final-reply-flush.ts). */
  finalReplyFlush: BackgroundFlush | undefined;
  safePoints: SafePoints;
  previousFraction: number | null;
  /** Set at reload when unflushed work was found; opens the turn_end gate once. */
  rearmedPending: boolean;
  metricsCache: ContextMetricsSnapshot | undefined;
}

export function createExtensionState(pi: ExtensionAPI): ExtensionState {
  return {
    pi,
    config: { value: { ...DEFAULT_CONFIG } },
    indexer: new ToolCallIndexer(),
    blockRefs: new BlockRefIssuer(),
    stats: new StatsAccumulator(),
    fallback: new FallbackController(),
    diagnostics: new DiagnosticSink((customType, data) => pi.appendEntry(customType, data)),
    frontier: new PruneFrontierTracker(),
    retries: new RetryLedger(),
    pending: [],
    isFlushing: false,
    finalReplyFlush: undefined,
    safePoints: new SafePoints(),
    previousFraction: null,
    rearmedPending: false,
    metricsCache: undefined,
  };
}

/** Always reads the live config, so `/pruner` edits apply at once. */
export function protectionPredicate(state: ExtensionState): (toolName: string, args: unknown) => boolean {
  return (toolName, args) => isProtected(toolName, args, state.config.value);
}
