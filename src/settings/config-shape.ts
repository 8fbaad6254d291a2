/**
 * The `contextPrune` settings' shape, their defaults and the words each mode setting takes (with the labels the
 * overlay shows). `config.ts` validates against these; every layer reads the shape from here.
 */

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
  /** The working set (src/sight/working-set.ts): how many prompts an edited or written file stays in it after the one that changed it began; 0 = its run only; null = no working set. */
  workingSetPrompts: number | null;
}

/** Why pruning is off when a settings problem turned it off, not the user: a few words for the footer, the whole problem for `/pruner status`. */
export interface SettingsOffReason {
  footer: string;
  detail: string;
}

/** The live settings every layer shares; `offReason` lasts until pruning is turned on or off by hand. */
export interface ConfigBox {
  value: ContextPruneConfig;
  offReason?: SettingsOffReason;
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
  workingSetPrompts: 0,
};

/** A value a setting takes and its label in the overlay (values are strings: the settings list cycles strings). */
export interface PresetOption<V extends string = string> {
  value: V;
  label: string;
}

export function presetOptions<V extends string>(...pairs: [V, string][]): PresetOption<V>[] {
  return pairs.map(([value, label]) => ({ value, label }));
}

export const SUMMARIZER_THINKING_LEVELS: PresetOption<SummarizerThinking>[] = presetOptions(["default", "Default"], ["off", "Off"], ["minimal", "Minimal"], ["low", "Low"], ["medium", "Medium"], ["high", "High"], ["xhigh", "XHigh"]);
export const PRUNE_ON_MODES: PresetOption<PruneOn>[] = presetOptions(["agent-message", "On agent message"], ["on-demand", "On demand"]);
export const BATCHING_MODES: PresetOption<BatchingMode>[] = presetOptions(["turn", "Per turn"], ["agent-message", "Per agent message"]);
export const FLUSH_POLICIES: readonly FlushPolicy[] = ["cost", "classic"];
export const SUMMARIES_MODES: PresetOption<SummariesMode>[] = presetOptions(["auto", "Auto"], ["always", "Always"], ["never", "Never"]);
