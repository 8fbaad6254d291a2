/**
 * Read-only reports: `/pruner status` and `/pruner stats`.
 */
import type { ExtensionCommandContext } from "@earendil-works/pi-coding-agent";
import { info } from "./command-context.js";
import type { CommandDeps, SubcommandHandler } from "./command-context.js";
import { thinkingLabel } from "./command-config.js";
import { formatCompactCount, formatCost, formatTokens } from "../summarize/stats.js";
import { BATCHING_MODES, PRUNE_ON_MODES } from "../types.js";
import type { ContextMetricsSnapshot, ContextPruneConfig, SummarizerStats } from "../types.js";

function timeoutText(ms: number): string {
  return ms === 0 ? "disabled" : `${Math.round(ms / 1000)}s`;
}

function settingsBlock(config: ContextPruneConfig): string {
  const trigger = PRUNE_ON_MODES.find((m) => m.value === config.pruneOn)?.label ?? config.pruneOn;
  const batching = BATCHING_MODES.find((m) => m.value === config.batchingMode)?.label ?? config.batchingMode;
  return [
    "pruner status:",
    `  enabled:  ${config.enabled}`,
    `  model:    ${config.summarizerModel}`,
    `  thinking: ${thinkingLabel(config.summarizerThinking)} (${config.summarizerThinking})`,
    `  idle to:  ${timeoutText(config.summarizerIdleTimeoutMs)}`,
    `  max to:   ${timeoutText(config.summarizerMaxTimeoutMs)}`,
    `  trigger:  ${trigger}`,
    `  batching: ${batching} (${config.batchingMode})`,
    `  dedup:    ${config.dedupByContentHash ? "on" : "off"}`,
    `  status:   ${config.showPruneStatusLine ? "on" : "off"}`,
  ].join("\n");
}

function usageLines(stats: SummarizerStats): string {
  return (
    `\n  calls:       ${stats.callCount}` +
    `\n  input:       ${formatTokens(stats.totalInputTokens)} tokens` +
    `\n  output:      ${formatTokens(stats.totalOutputTokens)} tokens` +
    `\n  cost:        ${formatCost(stats.totalCost)}`
  );
}

function contextBlock(metrics: ContextMetricsSnapshot, rearmed: boolean): string {
  return (
    "\n  --- context ---" +
    `\n  thinking:     ${formatCompactCount(metrics.openCycleThinkingTokens)} tokens (open segment)` +
    `\n  chain share:  ${metrics.largestChainSharePct}%` +
    `\n  frontier gap: ${formatCompactCount(metrics.frontierGapTokens)} tokens` +
    (rearmed ? "\n  rearmed:      yes" : "")
  );
}

export function statusReport(deps: CommandDeps, ctx: ExtensionCommandContext): string {
  const stats = deps.getStats();
  let text = settingsBlock(deps.currentConfig.value);
  text += stats.callCount > 0 ? `\n  --- summarizer ---${usageLines(stats)}` : "\n  (no summarizer calls yet)";
  if (deps.getContextMetrics) {
    text += contextBlock(deps.getContextMetrics(ctx), Boolean(deps.getRearmed?.()));
  }
  return text;
}

export function statsReport(stats: SummarizerStats): string {
  const chains = stats.chainsCompressed ?? 0;
  if (stats.callCount === 0 && chains === 0) return "pruner stats: no summarizer calls yet.";
  return `pruner stats:${usageLines(stats)}${chains > 0 ? `\n  chains:      ${chains} compressed` : ""}`;
}

export const statusCommand: SubcommandHandler = async (deps, ctx) => {
  info(ctx, statusReport(deps, ctx));
};

export const statsCommand: SubcommandHandler = async (deps, ctx) => {
  info(ctx, statsReport(deps.getStats()));
};
