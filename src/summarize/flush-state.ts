/**
 * What the summarize layer reads and changes of the extension's state: the
 * pieces a flush and a chain pass use, plus the host services they call
 * (the footer, the report line, the context-metrics snapshot). The host's ExtensionState
 * provides all of it; the layer never sees more.
 */
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { ToolCallIndexer } from "../archive/indexer.js";
import type { WriteFaults } from "../archive/write-faults.js";
import type { SidecarFiles } from "../capture/spill.js";
import type { PruneFrontierTracker } from "../capture/frontier.js";
import type { BlockRefIssuer } from "../chains/block-refs.js";
import type { DiagnosticSink } from "../render/diagnostics.js";
import type { SupersedeState } from "../render/supersede.js";
import type { CapturedBatch } from "../capture/records.js";
import type { ContextMetricsSnapshot } from "./flush-types.js";
import type { ConfigBox } from "../settings/config-shape.js";
import type { RetryLedger } from "./retry-ledger.js";
import type { StatsAccumulator } from "./stats.js";
import type { FallbackController } from "./summarizer-fallback.js";

/** The footer, as a flush updates it. */
export interface StatusPort {
  /** `closingMessage`: the reply a final-reply flush runs on, which pi writes to the branch after the flush starts. */
  refresh(ctx: ExtensionContext, closingMessage?: unknown): void;
  /**
   * Measures the request the branch renders to now, as the footer shows it; returns the characters of its
   * pruned messages, or undefined when the render failed (the footer keeps its last figure).
   */
  measure(ctx: ExtensionContext): number | undefined;
  show(ctx: ExtensionContext, text: string): void;
}

/** Where a flush's closing line goes (a chat entry in the TUI, a notice elsewhere). */
export interface ReportPort {
  show(ctx: ExtensionContext, text: string): void;
}

export interface FlushState {
  pi: ExtensionAPI;
  config: ConfigBox;
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
  /** Set at reload when unflushed work was found; opens the turn_end gate once. */
  rearmedPending: boolean;
  /** Protected-path supersession: a flush and a chain pass lower its floor where the next render rewrites anyway. */
  supersede: SupersedeState;
  status: StatusPort;
  report: ReportPort;
  /** Where sidecars are written (node's file system; a test injects faults). */
  files: SidecarFiles;
  /** Refused archive writes, told to the user once per kind. */
  writeFaults: WriteFaults;
  /** A context-metrics snapshot of the branch, or undefined when it cannot be computed. */
  metricsSnapshot(ctx: ExtensionContext): ContextMetricsSnapshot | undefined;
}
