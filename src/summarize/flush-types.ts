/**
 * What a flush is asked to do and what it records: its options and progress callbacks, its trigger, the
 * flush-metrics entry and the context metrics snapshot on it.
 */
import type { CapturedBatch, PruneFrontierOutcome } from "../capture/records.js";
import type { FlushDecisionRecord } from "../economics/flush-decision.js";

/** The snapshot recorded when none could be computed. */
export const EMPTY_METRICS_SNAPSHOT: ContextMetricsSnapshot = {
  openCycleThinkingTokens: 0,
  largestChainSharePct: 0,
  frontierGapTokens: 0,
};

export interface ContextMetricsSnapshot {
  /** Estimated tokens of thinking blocks in the trailing open segment. */
  openCycleThinkingTokens: number;
  /** Integer 0..100. */
  largestChainSharePct: number;
  /** Estimated tokens of eligible unsummarized tool results after the frontier. */
  frontierGapTokens: number;
}

export type FlushTrigger =
  | "budget"
  | "delta"
  | "frontier-gap"
  | "message-end"
  | "manual"
  | "rearmed"
  /** Cost policy: within a run, once summarizing pays. */
  | "in-run"
  /** Cost policy: the context passed `contextPressure`. */
  | "pressure"
  /** Cost policy: the prompt cache expired, so the rewrite is free. */
  | "cache-cold";

export interface FlushMetricsEntry {
  ts: number;
  trigger: FlushTrigger;
  capturedBatches: number;
  processedBatches: number;
  /** Tool calls this flush made stub-eligible (indexed calls plus dedup aliases). */
  stubCount: number;
  outcome: PruneFrontierOutcome | "empty" | "error" | "deferred";
  metrics: ContextMetricsSnapshot;
  /** Cost policy only: the decision behind this attempt (a deferral is an entry of its own). */
  decision?: FlushDecisionRecord;
}

export type ProgressCallback = (
  index: number,
  total: number,
  batch: CapturedBatch,
  stage: "start" | "done" | "skipped",
) => void;

export type BatchTextProgressCallback = (
  index: number,
  total: number,
  batch: CapturedBatch,
  receivedChars: number,
) => void;

export interface FlushOptions {
  /** Default "runtime". */
  delivery?: "runtime" | "session";
  onProgress?: ProgressCallback;
  onBatchTextProgress?: BatchTextProgressCallback;
  /** Skip internal capture and use these batches. */
  previewedBatches?: CapturedBatch[];
  signal?: AbortSignal;
  /** Default "manual". */
  trigger?: FlushTrigger;
  /** The final assistant message of a message_end flush, not yet on the branch. */
  closingMessage?: unknown;
  /** Awaited after the summarizer calls and before anything is written (the final-reply flush waits for a safe moment). */
  beforePersist?: () => Promise<void>;
  /** Default true: compress closed chains after the flush. The cost policy saves that rewrite for a cold cache. */
  chains?: boolean;
  /** Recorded on the flush-metrics entry. */
  decision?: FlushDecisionRecord;
}
