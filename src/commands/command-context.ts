/**
 * Shared plumbing for the `/pruner` subcommands: the injected dependency
 * bundle, config replacement with persistence, status refresh and notify
 * helpers. Subcommand modules receive a `CommandDeps` and never touch
 * `registerCommands`' positional parameters directly.
 */
import type { ExtensionAPI, ExtensionCommandContext } from "@earendil-works/pi-coding-agent";
import type { ToolCallIndexer } from "../archive/indexer.js";
import { showReport } from "../ui/report.js";
import { offStatusText, setPruneStatusWidget } from "../ui/status-line.js";
import { clearBootWidget } from "../ui/boot-widget.js";
import type { CapturedBatch, ChainCompressionEntry, SummarizerCacheTokens, SummarizerStats } from "../capture/records.js";
import type { ContextMetricsSnapshot, FlushOptions } from "../summarize/flush-types.js";
import type { ConfigBox, ContextPruneConfig } from "../settings/config-shape.js";
import type { DiagnosticKind } from "../render/diagnostics.js";
import type { LiveReclaim } from "../render/render-size.js";
import type { FlushResult } from "../summarize/flush.js";
import { CUSTOM_TYPE_TOGGLE } from "../names.js";
import type { KeptPrompts } from "../summarize/chain-pass.js";
import type { PolicyView } from "../ui/policy-status.js";
import type { SightView } from "../forgetting/sight-text.js";

export type FlushResultLike = FlushResult;

export interface CompactResult {
  compressedEntries: ChainCompressionEntry[];
  /** The compressed prompts' places on the branch (1 the first); absent: they are counted, not named. */
  prompts?: number[];
  kept: KeptPrompts;
  /** Outputs archived with the compressed prompts, with no summary of their own (0 when absent). */
  archived?: number;
  /** The footer's request figure before the compaction less the one after; absent when not measured. */
  tokensFewer?: number;
}

export type NotifyType = "info" | "warning" | "error";

/** The hooks `registerCommands` takes by name, after its positional 2.9.1 ones. */
export type CommandExtras = Pick<CommandDeps, "getSummarizerCache" | "measureContext" | "describeToggle" | "resetSummarizerFallback" | "getSight">;

/** Everything `registerCommands` was handed, plus the persistence hook. */
export interface CommandDeps {
  pi: ExtensionAPI;
  currentConfig: ConfigBox;
  flushPending: (ctx: ExtensionCommandContext, options?: FlushOptions) => Promise<FlushResultLike>;
  capturePendingBatches: (ctx: ExtensionCommandContext) => CapturedBatch[];
  getStats: () => SummarizerStats;
  getLiveReclaim: () => LiveReclaim | undefined;
  indexer: ToolCallIndexer;
  compactChains: (ctx: ExtensionCommandContext) => Promise<CompactResult>;
  getDiagnosticCounts?: () => Record<DiagnosticKind, number>;
  getContextMetrics?: (ctx: ExtensionCommandContext) => ContextMetricsSnapshot;
  getRearmed?: () => boolean;
  getPolicyView?: (ctx: ExtensionCommandContext) => PolicyView;
  /** While the summarizer has fallen back: the model in use and why; undefined otherwise. */
  getFallback?: (ctx: ExtensionCommandContext) => string | undefined;
  /** The summarizer's cache tokens, which its stats' input counter leaves out. */
  getSummarizerCache?: () => SummarizerCacheTokens;
  /** Measures the request the branch renders to now (the footer's figure), and returns it. */
  measureContext?: (ctx: ExtensionCommandContext) => LiveReclaim | undefined;
  /** What turning pruning on (`true`) or off costs the requests that follow; undefined when nothing changes. */
  describeToggle?: (ctx: ExtensionCommandContext, enabling: boolean) => string | undefined;
  /** Forgets the summarizer model's failures: a model the user just picked is tried at the next summary. */
  resetSummarizerFallback?: () => void;
  /** Live sight: what the agent went back for this session, and the raw window. */
  getSight?: (ctx: ExtensionCommandContext) => SightView;
  /** Fire-and-forget save; failures are reported through `ctx.ui.notify`. */
  persist: (ctx: ExtensionCommandContext, config: ContextPruneConfig) => void;
}

export type SubcommandHandler = (deps: CommandDeps, ctx: ExtensionCommandContext, args: string[]) => Promise<void>;

export { errorMessage } from "../summarize/delivery.js";

/** A notify that can never throw into a command (stale ctx, missing UI). */
export function safeNotify(ctx: ExtensionCommandContext, message: string, type?: NotifyType): void {
  try {
    if (type === undefined) ctx.ui.notify(message);
    else ctx.ui.notify(message, type);
  } catch (err) {
    console.error("pi-condense: notify failed", err);
  }
}

export function info(ctx: ExtensionCommandContext, message: string): void {
  safeNotify(ctx, message, "info");
}

export function warn(ctx: ExtensionCommandContext, message: string): void {
  safeNotify(ctx, message, "warning");
}

/**
 * A setting the user just changed: in the TUI it stays in the chat like a flush's line, since pi's next
 * info notice would replace a plain notice.
 */
export function confirm(deps: CommandDeps, ctx: ExtensionCommandContext, message: string): void {
  showReport(deps.pi, ctx, message);
}

/** Footer refresh; a UI failure must not undo or abort an applied change. */
export function refreshStatus(deps: CommandDeps, ctx: ExtensionCommandContext, config = deps.currentConfig.value): void {
  try {
    const off = config.enabled ? undefined : offStatusText(deps.currentConfig);
    setPruneStatusWidget(ctx, config, off ?? deps.getLiveReclaim(), deps.getDiagnosticCounts?.());
  } catch (err) {
    console.error("pi-condense: status refresh failed", err);
  }
}

/**
 * A change of `enabled` by hand: written on the branch, so a replay knows which requests went out unpruned; the
 * start-up line naming the old state goes, and so does the settings problem that had left pruning off.
 */
export function recordToggle(deps: CommandDeps, ctx: ExtensionCommandContext, before: ContextPruneConfig, after: ContextPruneConfig): void {
  if (before.enabled === after.enabled) return;
  deps.currentConfig.offReason = undefined;
  clearBootWidget(ctx);
  try {
    deps.pi.appendEntry(CUSTOM_TYPE_TOGGLE, { enabled: after.enabled });
  } catch (err) {
    console.error("pi-condense: recording that pruning was turned on or off failed", err);
  }
}

/** What turning pruning on or off costs: measured before the change, while pruning's render still says it. */
export function toggleCost(deps: CommandDeps, ctx: ExtensionCommandContext, before: ContextPruneConfig, enabled: boolean): string | undefined {
  return before.enabled !== enabled ? deps.describeToggle?.(ctx, enabled) : undefined;
}

/** The cost line after a change of `enabled`, from the command or the overlay alike: a warning when pruning went off. */
export function showToggleCost(deps: CommandDeps, ctx: ExtensionCommandContext, cost: string | undefined, enabled: boolean): void {
  if (cost) showReport(deps.pi, ctx, `pruner: ${cost} ${enabled ? "/pruner off" : "/pruner on"} goes back.`, enabled ? "info" : "warning");
}

/** Replace the shared config with a patched copy and persist it. */
export function applyConfig(
  deps: CommandDeps,
  ctx: ExtensionCommandContext,
  patch: Partial<ContextPruneConfig>,
): ContextPruneConfig {
  const next: ContextPruneConfig = { ...deps.currentConfig.value, ...patch };
  deps.currentConfig.value = next;
  deps.persist(ctx, next);
  return next;
}

export function onOff(value: boolean): "ON" | "OFF" {
  return value ? "ON" : "OFF";
}
