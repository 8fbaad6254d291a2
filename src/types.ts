/**
 * The contract's face: every name 2.9.1 exported from this module, re-exported from the module that owns it, for
 * consumers that import `pi-condense/src/types`. No module inside `src/` imports it (`npm run check:deps`).
 */

export * from "./names.js";
export { BATCHING_MODES, DEFAULT_CONFIG, FLUSH_POLICIES, PRUNE_ON_MODES, SUMMARIES_MODES, SUMMARIZER_THINKING_LEVELS } from "./settings/config-shape.js";
export type { BatchingMode, ChainCompressionConfig, ContextPruneConfig, ErrorPurgeConfig, FlushPolicy, PresetOption, PruneOn, SummariesMode, SummarizerThinking } from "./settings/config-shape.js";
export * from "./commands/settings-presets.js";
export type { DiagnosticEntryData, DiagnosticKind } from "./render/diagnostics.js";
export type { LiveReclaim } from "./render/render-size.js";
export type { ChainRange } from "./chains/chain-detector.js";
export type { CapturedBatch, CapturedToolCall, ChainCompressionEntry, DedupAliasEntryData, IndexEntryData, PruneFrontier, PruneFrontierOutcome, SummarizerStats, SummaryMessageDetails, SummaryToolCallRef, ToolCallRecord } from "./capture/records.js";
export type { BatchTextProgressCallback, ContextMetricsSnapshot, FlushMetricsEntry, FlushOptions, FlushTrigger, ProgressCallback } from "./summarize/flush-types.js";
export type { ExternalCostUpdate } from "./summarize/stats.js";
export type { SummarizeBatchOptions, SummarizeBatchesOptions, SummarizeResult } from "./summarize/summarizer.js";
