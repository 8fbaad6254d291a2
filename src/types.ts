/**
 * The contract every layer shares: custom entry types and well-known names, the settings' shape, its defaults
 * and the overlay's presets (2.9.1 exported them all from here). Each folder declares its own records beside
 * the code that owns them (AGENTS.md, "Where types live"); the contract's type names are re-exported at
 * the end, type-only. No other imports.
 */

// Custom entry types and well-known names
export const CUSTOM_TYPE_SUMMARY = "context-prune-summary";
export const CUSTOM_TYPE_INDEX = "context-prune-index";
export const CUSTOM_TYPE_STATS = "context-prune-stats";
export const CUSTOM_TYPE_FRONTIER = "context-prune-frontier";
export const CUSTOM_TYPE_DEDUP_ALIAS = "context-prune-dedup-alias";
export const CUSTOM_TYPE_CHAIN = "context-prune-chain";
export const CUSTOM_TYPE_DIAGNOSTIC = "context-prune-diagnostic";
export const CUSTOM_TYPE_FLUSH_METRICS = "context-prune-flush-metrics";
/** The summarizer's cache tokens, kept beside the stats snapshot (whose counters stay 2.9.1's). */
export const CUSTOM_TYPE_SUMMARIZER_CACHE = "context-prune-summarizer-cache";
/** Pruning turned on or off mid-session (`{ enabled }`), so a replay sends what the session sent. */
export const CUSTOM_TYPE_TOGGLE = "context-prune-toggle";
/** A report shown in the TUI chat (flush line, `/pruner status`, `/pruner stats`); never sent to the model. */
export const CUSTOM_TYPE_REPORT = "context-prune-report";

export const QUERY_TOOL_NAME = "context_tree_query";
export const EXTERNAL_COST_CHANNEL = "cost:external";
export const EXTERNAL_COST_SOURCE = "pi-condense";
export const STATUS_WIDGET_ID = "context-prune";
export const PROGRESS_WIDGET_ID = "context-prune-progress";

// Config
export type PruneOn = "on-demand" | "agent-message";
export type BatchingMode = "turn" | "agent-message";
export type SummarizerThinking = "default" | "off" | "minimal" | "low" | "medium" | "high" | "xhigh";

export interface ChainCompressionConfig {
  enabled: boolean;
  rollingWindow: number;
  stripFinalAssistantThinking: boolean;
  fuseRangeSummary: boolean;
}

export interface ErrorPurgeConfig {
  enabled: boolean;
  cooldownTurns: number;
  minArgChars: number;
}

export interface ContextPruneConfig {
  enabled: boolean;
  showPruneStatusLine: boolean;
  summarizerModel: string;
  summarizerThinking: SummarizerThinking;
  pruneOn: PruneOn;
  batchingMode: BatchingMode;
  quietOversizedSkips: boolean;
  minBatchChars: number;
  recoveryGraceTurns: number;
  summarizerIdleTimeoutMs: number;
  summarizerMaxTimeoutMs: number;
  protectedTools: string[];
  protectedPaths: string[];
  chainCompression: ChainCompressionConfig;
  purgeErrors: ErrorPurgeConfig;
  dedupByContentHash: boolean;
  autoBudgetThreshold: number | null;
  spillThreshold: number;
  spillPreviewBytes: number;
  budgetTurnDelta: number | null;
  /** Flush at a tool turn's end once the unsummarized tail past the frontier reaches this many tokens; null = off. */
  frontierGapThresholdTokens: number | null;
  /** Most images one request may carry; null = the built-in limit of the model's wire API (image-cap.ts). */
  maxImagesPerRequest: number | null;
  /** "cost": flush when it pays at the model's cache prices; "classic": exactly when 2.9.1 did. */
  flushPolicy: FlushPolicy;
  /** Share of the model's window above which the cost policy flushes whatever the cache says; null = off. */
  contextPressure: number | null;
  /** Anthropic only: the fourth `cache_control` marker pi-ai leaves unused goes before a rewrite (cache-breakpoint.ts). */
  cacheBreakpoint: boolean;
  /** Which batches the summarizer writes: "auto" only those that cannot be had again; "always" as 2.9.1 (classic implies it). */
  summaries: SummariesMode;
  /** A finished call's bulky argument strings (an edit's texts, a write's content) become markers naming their ref (arguments/stub.ts). */
  stubArguments: boolean;
}

export type FlushPolicy = "cost" | "classic";
export type SummariesMode = "auto" | "always" | "never";

export const DEFAULT_CONFIG: ContextPruneConfig = {
  enabled: false,
  showPruneStatusLine: true,
  summarizerModel: "default",
  summarizerThinking: "default",
  pruneOn: "agent-message",
  batchingMode: "turn",
  quietOversizedSkips: false,
  minBatchChars: 1000,
  recoveryGraceTurns: 3,
  summarizerIdleTimeoutMs: 20000,
  summarizerMaxTimeoutMs: 180000,
  protectedTools: [],
  protectedPaths: ["**/skills/**/*.md", "**/gauntlet-overrides.md"],
  chainCompression: { enabled: true, rollingWindow: 3, stripFinalAssistantThinking: true, fuseRangeSummary: true },
  purgeErrors: { enabled: true, cooldownTurns: 2, minArgChars: 500 },
  dedupByContentHash: true,
  autoBudgetThreshold: null,
  spillThreshold: 65536,
  spillPreviewBytes: 2048,
  budgetTurnDelta: null,
  frontierGapThresholdTokens: null,
  maxImagesPerRequest: null,
  flushPolicy: "cost",
  contextPressure: 0.6,
  cacheBreakpoint: true,
  summaries: "auto",
  stubArguments: true,
};

export const FLUSH_POLICIES: readonly FlushPolicy[] = ["cost", "classic"];
export const SUMMARIES_MODES: PresetOption<SummariesMode>[] = options(["auto", "Auto"], ["always", "Always"], ["never", "Never"]);

// UI presets (values are strings: the settings list cycles strings)
export interface PresetOption<V extends string = string> {
  value: V;
  label: string;
}

function options<V extends string>(...pairs: [V, string][]): PresetOption<V>[] {
  return pairs.map(([value, label]) => ({ value, label }));
}

export const SUMMARIZER_THINKING_LEVELS: PresetOption<SummarizerThinking>[] = options(["default", "Default"], ["off", "Off"], ["minimal", "Minimal"], ["low", "Low"], ["medium", "Medium"], ["high", "High"], ["xhigh", "XHigh"]);
export const PRUNE_ON_MODES: PresetOption<PruneOn>[] = options(["agent-message", "On agent message"], ["on-demand", "On demand"]);
export const BATCHING_MODES: PresetOption<BatchingMode>[] = options(["turn", "Per turn"], ["agent-message", "Per agent message"]);
export const MIN_BATCH_CHARS_PRESETS: PresetOption[] = options(["0", "0 (disabled)"], ["500", "500"], ["1000", "1000 (default)"], ["2000", "2000"], ["5000", "5000"]);
export const RECOVERY_GRACE_PRESETS: PresetOption[] = options(["0", "0 (disabled)"], ["1", "1"], ["3", "3 (default)"], ["5", "5"], ["8", "8"]);
export const SUMMARIZER_IDLE_TIMEOUT_PRESETS: PresetOption[] = options(["0", "0 (disabled)"], ["10000", "10s"], ["20000", "20s (default)"], ["45000", "45s"], ["90000", "90s"]);
export const SUMMARIZER_MAX_TIMEOUT_PRESETS: PresetOption[] = options(["0", "0 (disabled)"], ["120000", "120s"], ["180000", "180s (default)"], ["300000", "300s"], ["600000", "600s"]);
export const AUTO_BUDGET_PRESETS: PresetOption[] = options(["0", "Off (default)"], ["0.6", "60%"], ["0.7", "70%"], ["0.8", "80%"], ["0.9", "90%"]);
export const ROLLING_WINDOW_PRESETS: PresetOption[] = options(["1", "1"], ["2", "2"], ["3", "3 (default)"], ["5", "5"], ["10", "10"]);
export const PURGE_COOLDOWN_PRESETS: PresetOption[] = options(["1", "1"], ["2", "2 (default)"], ["3", "3"], ["5", "5"], ["10", "10"]);
export const PURGE_MIN_ARG_PRESETS: PresetOption[] = options(["100", "100"], ["500", "500 (default)"], ["1000", "1000"], ["5000", "5000"]);

// 2.9.1's contract names these types as exports of this module; each is declared beside its owner.
export type { DiagnosticEntryData, DiagnosticKind } from "./render/diagnostics.js";
export type { LiveReclaim } from "./render/render-size.js";
export type { ChainRange } from "./chains/chain-detector.js";
export type { CapturedBatch, CapturedToolCall, ChainCompressionEntry, DedupAliasEntryData, IndexEntryData, PruneFrontier, PruneFrontierOutcome, SummarizerStats, SummaryMessageDetails, SummaryToolCallRef, ToolCallRecord } from "./capture/records.js";
export type { BatchTextProgressCallback, ContextMetricsSnapshot, FlushMetricsEntry, FlushOptions, FlushTrigger, ProgressCallback } from "./summarize/flush-types.js";
export type { ExternalCostUpdate } from "./summarize/stats.js";
export type { SummarizeBatchOptions, SummarizeBatchesOptions, SummarizeResult } from "./summarize/summarizer.js";
