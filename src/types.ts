/**
 * Shared declarations: persisted entry shapes, config, constants and presets.
 * Pure data: no runtime imports.
 */

// ---------------------------------------------------------------------------
// Custom entry types and well-known names
// ---------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------
// Diagnostics
// ---------------------------------------------------------------------------

export type DiagnosticKind = "unresolved-range" | "range-id-mismatch" | "orphan-sweep" | "backfill-empty";

export interface DiagnosticEntryData {
  kind: DiagnosticKind;
  detail: string;
}

// ---------------------------------------------------------------------------
// Config
// ---------------------------------------------------------------------------

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
export const SUMMARIES_MODES: PresetOption<SummariesMode>[] = [
  { value: "auto", label: "Auto" },
  { value: "always", label: "Always" },
  { value: "never", label: "Never" },
];

// ---------------------------------------------------------------------------
// UI presets (values are strings: the settings list cycles strings)
// ---------------------------------------------------------------------------

export interface PresetOption<V extends string = string> {
  value: V;
  label: string;
}

export const SUMMARIZER_THINKING_LEVELS: PresetOption<SummarizerThinking>[] = [
  { value: "default", label: "Default" },
  { value: "off", label: "Off" },
  { value: "minimal", label: "Minimal" },
  { value: "low", label: "Low" },
  { value: "medium", label: "Medium" },
  { value: "high", label: "High" },
  { value: "xhigh", label: "XHigh" },
];

export const PRUNE_ON_MODES: PresetOption<PruneOn>[] = [
  { value: "agent-message", label: "On agent message" },
  { value: "on-demand", label: "On demand" },
];

export const BATCHING_MODES: PresetOption<BatchingMode>[] = [
  { value: "turn", label: "Per turn" },
  { value: "agent-message", label: "Per agent message" },
];

export const MIN_BATCH_CHARS_PRESETS: PresetOption[] = [
  { value: "0", label: "0 (disabled)" },
  { value: "500", label: "500" },
  { value: "1000", label: "1000 (default)" },
  { value: "2000", label: "2000" },
  { value: "5000", label: "5000" },
];

export const RECOVERY_GRACE_PRESETS: PresetOption[] = [
  { value: "0", label: "0 (disabled)" },
  { value: "1", label: "1" },
  { value: "3", label: "3 (default)" },
  { value: "5", label: "5" },
  { value: "8", label: "8" },
];

export const SUMMARIZER_IDLE_TIMEOUT_PRESETS: PresetOption[] = [
  { value: "0", label: "0 (disabled)" },
  { value: "10000", label: "10s" },
  { value: "20000", label: "20s (default)" },
  { value: "45000", label: "45s" },
  { value: "90000", label: "90s" },
];

export const SUMMARIZER_MAX_TIMEOUT_PRESETS: PresetOption[] = [
  { value: "0", label: "0 (disabled)" },
  { value: "120000", label: "120s" },
  { value: "180000", label: "180s (default)" },
  { value: "300000", label: "300s" },
  { value: "600000", label: "600s" },
];

export const AUTO_BUDGET_PRESETS: PresetOption[] = [
  { value: "0", label: "Off (default)" },
  { value: "0.6", label: "60%" },
  { value: "0.7", label: "70%" },
  { value: "0.8", label: "80%" },
  { value: "0.9", label: "90%" },
];

export const ROLLING_WINDOW_PRESETS: PresetOption[] = [
  { value: "1", label: "1" },
  { value: "2", label: "2" },
  { value: "3", label: "3 (default)" },
  { value: "5", label: "5" },
  { value: "10", label: "10" },
];

export const PURGE_COOLDOWN_PRESETS: PresetOption[] = [
  { value: "1", label: "1" },
  { value: "2", label: "2 (default)" },
  { value: "3", label: "3" },
  { value: "5", label: "5" },
  { value: "10", label: "10" },
];

export const PURGE_MIN_ARG_PRESETS: PresetOption[] = [
  { value: "100", label: "100" },
  { value: "500", label: "500 (default)" },
  { value: "1000", label: "1000" },
  { value: "5000", label: "5000" },
];

// ---------------------------------------------------------------------------
// Capture and index
// ---------------------------------------------------------------------------

export interface CapturedToolCall {
  toolCallId: string;
  toolName: string;
  args: Record<string, unknown>;
  resultText: string;
  isError: boolean;
  /** The ToolResultMessage's own timestamp; absent means legacy (bare-id keyed). */
  resultTimestamp?: number;
  spillPath?: string;
  spillBytes?: number;
  /** SHA-256 (hex) of the sidecar's bytes as written; with `spillBytes`, what a read checks the sidecar against. */
  spillSha256?: string;
  resultPreview?: string;
  contentHash?: string;
  /** Outcome facts read at capture (`digest/outcome-facts.ts`); the stub shows them verbatim. */
  outcome?: string;
  /** The output's digest read at capture (`digest/output-digest.ts`); an unsummarized stub shows it verbatim. */
  digest?: string;
  /** Archived without a summary (`summaries`, a stale output): the stub says so and shows the output's facts. */
  unsummarized?: true;
  /** Why this output went stale, when it did (`capture/stale-outputs.ts`); the stub names it. */
  supersededBy?: SupersededBy;
}

/** What made an output stale, as persisted on its record. */
export interface SupersededBy {
  rule: "edited" | "reread" | "rerun";
  toolName: string;
  path?: string;
  command?: string;
}

export interface CapturedBatch {
  turnIndex: number;
  /** Batch-level timestamp; never an identity discriminant. */
  timestamp: number;
  assistantText: string;
  toolCalls: CapturedToolCall[];
  /** Set only by the session-rescan path. */
  userTurnGroup?: number;
}

export interface ToolCallRecord {
  toolCallId: string;
  toolName: string;
  args: Record<string, unknown>;
  /** "" for spilled records. */
  resultText: string;
  isError: boolean;
  /** -1 for backfilled records. */
  turnIndex: number;
  timestamp: number;
  resultTimestamp?: number;
  spillPath?: string;
  spillBytes?: number;
  /** SHA-256 (hex) of the sidecar's bytes as written; absent on records of versions before it was recorded. */
  spillSha256?: string;
  resultPreview?: string;
  contentHash?: string;
  /** Outcome facts read at capture (`digest/outcome-facts.ts`); the stub shows them verbatim. */
  outcome?: string;
  /** The output's digest read at capture (`digest/output-digest.ts`); an unsummarized stub shows it verbatim. */
  digest?: string;
  /** Archived without a summary; the stub says so (absent on summarized records and those of older versions). */
  unsummarized?: true;
  /** Set when the output was retired as stale; the stub names what superseded it. */
  supersededBy?: SupersededBy;
}

export interface SummaryToolCallRef {
  shortId: string;
  toolCallId: string;
  resultTimestamp?: number;
}

export interface IndexEntryData {
  toolCalls: ToolCallRecord[];
  backfilled?: true;
  refs?: SummaryToolCallRef[];
}

export interface DedupAliasEntryData {
  newToolCallId: string;
  originalToolCallId: string;
  newResultTimestamp?: number;
  originalResultTimestamp?: number;
  /** Tolerated on read, never written. */
  hash?: string;
  /** The duplicate's own arguments, when they differ from the original's. */
  args?: Record<string, unknown>;
  /** The duplicate's own error flag, when it differs from the original's. */
  isError?: boolean;
}

export interface SummaryMessageDetails {
  toolCallRefs: SummaryToolCallRef[];
  toolNames: string[];
  turnIndex: number;
  timestamp: number;
}

// ---------------------------------------------------------------------------
// Chains
// ---------------------------------------------------------------------------

/** Detection-time shape of one chain; never persisted. */
export interface ChainRange {
  startUserTimestamp: number;
  middleToolCallIds: string[];
  middleOccurrenceKeys?: string[];
  protectedToolCallIds?: string[];
  /** null = interrupted chain. */
  finalAssistantTimestamp: number | null;
  /** Refs the chain's `context_tree_query` recoveries showed (added by the chain pass, `withRecoveredRefs`): the block names them. */
  recoveredRefs?: string[];
}

/** Persisted as the data of a `context-prune-chain` custom entry. */
export interface ChainCompressionEntry {
  blockId: string;
  startUserTimestamp: number;
  droppedToolCallIds: string[];
  droppedOccurrenceKeys?: string[];
  protectedToolCallIds?: string[];
  finalAssistantTimestamp: number | null;
  toolRefs: string[];
  compressedAt: number;
  rangeSummaryText?: string;
  bodySource?: "deterministic";
}

// ---------------------------------------------------------------------------
// Frontier, metrics, stats
// ---------------------------------------------------------------------------

export type PruneFrontierOutcome = "summarized" | "skipped-oversized" | "skipped-trivial" | "skipped-deduped";

export interface PruneFrontier {
  lastAttemptedToolCallId: string;
  lastAttemptedToolName: string;
  lastAttemptedTurnIndex: number;
  lastAttemptedTimestamp: number;
  attemptedBatchCount: number;
  attemptedToolCallCount: number;
  rawCharCount: number;
  summaryCharCount: number;
  outcome: PruneFrontierOutcome;
}

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

/** Why the cost policy applied or deferred a flush, with the figures it weighed (dollars, tokens). */
export interface FlushDecisionRecord {
  verdict: "apply" | "defer";
  /**
   * cold: the cache expired; pays: the saving beats the rewrite; wait: it does not yet; bound: waiting has cost
   * what the rewrite would have (economics/deferral-ledger.ts); pressure: near the window; fallback: decided as
   * 2.9.1 (reason says why).
   */
  basis: "cold" | "pays" | "wait" | "bound" | "pressure" | "fallback";
  reason: string;
  cache: { temperature: "warm" | "cold" | "unknown"; expiresInMs?: number; lastHitRate?: number };
  figures?: {
    suffixTokens: number;
    removedTokens: number;
    summaryTokens: number;
    expectedRequests: number;
    oneTimeCost: number;
    savingPerRequest: number;
    summarizerCost: number;
    netSaving: number;
    /** Tokens before the rewrite point the provider's cache rule writes again (0 when it finds them). */
    rereadTokens?: number;
    /** The cache rule the rewrite was priced by, and whether the spare breakpoint was on. */
    cacheRule?: "anthropic-breakpoints" | "longest-prefix" | "uncached";
    breakpoint?: boolean;
    /** What the next request pays for the rewrite itself if it is made now (not weighed by its chance; no summarizer). */
    rewriteCost?: number;
  };
  /** While the work waits: what waiting has cost so far (`paid`, dollars of extra reads) against what the rewrite owed when first put off. */
  bound?: { paid: number; owed: number };
  /** A warm flush that pays: whether compressing the closed chains past the window pays too (dollars net). */
  chains?: { verdict: "apply" | "defer"; netSaving: number };
}

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

export interface SummarizerStats {
  totalInputTokens: number;
  totalOutputTokens: number;
  totalCost: number;
  callCount: number;
  chainsCompressed: number;
  rangesSummarized: number;
}

/** Cache tokens of the summarizer's calls: with `totalInputTokens`, the input the provider billed. */
export interface SummarizerCacheTokens {
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

export interface ExternalCostUpdate {
  source: string;
  totalCost: number;
  inputTokens?: number;
  outputTokens?: number;
}

export interface LiveReclaim {
  beforeChars: number;
  afterChars: number;
  /**
   * Tokens a request carries beyond its messages at characters ÷ 4: the system prompt and tool declarations,
   * and the tokenizer's own difference once a response to a rewritten request reported its real size.
   */
  overheadTokens?: number;
}

// ---------------------------------------------------------------------------
// Flush and summarizer options
// ---------------------------------------------------------------------------

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
  closingMessage?: any;
  /** Awaited after the summarizer calls and before anything is written (the final-reply flush waits for a safe moment). */
  beforePersist?: () => Promise<void>;
  /** Default true: compress closed chains after the flush. The cost policy saves that rewrite for a cold cache. */
  chains?: boolean;
  /** Recorded on the flush-metrics entry. */
  decision?: FlushDecisionRecord;
}

export type FallbackTransition = "enter" | "recover" | "none";
export type CallTarget = "primary" | "fallback";

export interface TargetDecision {
  target: CallTarget;
  wasProbe: boolean;
}

/** The outage-fallback state a summarizer call consults (implemented by `FallbackController`). */
export interface SummarizerFallback {
  chooseTarget(): TargetDecision;
  onPrimarySuccess(wasProbe: boolean): FallbackTransition;
  onFallbackSuccess(): FallbackTransition;
  onPrimaryFailFallbackOk(wasProbe: boolean): FallbackTransition;
  onFallbackOnlyFail(): void;
  onBothDown(): void;
  recordPrimaryFailure?(message: string): void;
  /** The primary's last error, when one was recorded. */
  readonly cause?: string;
}

export interface SummarizeBatchOptions {
  onTextProgress?: (receivedChars: number) => void;
  /** Called when the model answered but the reply was empty or cut off (no notice is shown for it). */
  onUnusable?: () => void;
  signal?: AbortSignal;
  controller?: SummarizerFallback;
}

export interface SummarizeBatchesOptions {
  onBatchTextProgress?: BatchTextProgressCallback;
  onBatchUnusable?: (index: number) => void;
  signal?: AbortSignal;
  controller?: SummarizerFallback;
}

export interface SummarizeResult {
  summaryText: string;
  usage: {
    input: number;
    output: number;
    cacheRead: number;
    cacheWrite: number;
    totalTokens: number;
    cost: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
  };
}
