/**
 * Read-only reports: `/pruner status` and `/pruner stats`.
 */
import { policyStatusBlock } from "../ui/policy-status.js";
import type { ExtensionCommandContext } from "@earendil-works/pi-coding-agent";
import { showReport } from "../ui/report.js";
import type { CommandDeps, SubcommandHandler } from "./command-context.js";
import { thinkingLabel } from "./command-config.js";
import { formatCompactCount, formatCost, formatTokens } from "../summarize/stats.js";
import type { ContextMetricsSnapshot, ContextPruneConfig, LiveReclaim, SummarizerStats } from "../types.js";
import { contextSentText } from "../ui/status-line.js";

function seconds(ms: number): string {
  return ms === 0 ? "no limit" : `${Math.round(ms / 1000)} s`;
}

/** The words /pruner status uses for each setting's values (the overlay's search finds them too). */
export const WHEN: Record<string, string> = {
  "agent-message": "after the agent's final reply",
  "on-demand": "only on /pruner now",
};
export const BATCHES: Record<string, string> = {
  turn: "one per tool turn",
  "agent-message": "one per agent reply",
};
export const REPEATED_OUTPUTS = { on: "pointed at their earlier copy", off: "summarized again" };

function settingsBlock(config: ContextPruneConfig): string {
  return [
    "pruner status:",
    `  pruning:           ${config.enabled ? "on" : "off"}`,
    `  summarizer model:  ${config.summarizerModel} (thinking: ${thinkingLabel(config.summarizerThinking)})`,
    `  summarizer waits:  ${seconds(config.summarizerIdleTimeoutMs)} without output, ${seconds(config.summarizerMaxTimeoutMs)} in all`,
    `  summarizes:        ${WHEN[config.pruneOn] ?? config.pruneOn}`,
    `  summaries:         ${BATCHES[config.batchingMode] ?? config.batchingMode}`,
    `  repeated outputs:  ${config.dedupByContentHash ? REPEATED_OUTPUTS.on : REPEATED_OUTPUTS.off}`,
    `  footer line:       ${config.showPruneStatusLine ? "on" : "off"}`,
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

function contextBlock(metrics: ContextMetricsSnapshot, rearmed: boolean, reclaim: LiveReclaim | undefined): string {
  return (
    "\n  --- context now (what the provider receives) ---" +
    `\n  context sent:                     ${contextSentText(reclaim)}` +
    `\n  thinking since the last reply:    ${formatCompactCount(metrics.openCycleThinkingTokens)} tokens` +
    `\n  largest prompt's work:            ${metrics.largestChainSharePct}% of the context` +
    `\n  tool output not yet summarized:   ${formatCompactCount(metrics.frontierGapTokens)} tokens` +
    (rearmed ? "\n  found after reload:               earlier tool output waiting to be summarized" : "")
  );
}

export function statusReport(deps: CommandDeps, ctx: ExtensionCommandContext): string {
  const stats = deps.getStats();
  let text = settingsBlock(deps.currentConfig.value);
  const inUse = deps.getFallback?.(ctx);
  if (inUse) text += `\n  in use now:        ${inUse}`;
  text += stats.callCount > 0 ? `\n  --- summarizer use ---${usageLines(stats)}` : "\n  (no summarizer calls yet)";
  if (deps.getContextMetrics) {
    text += contextBlock(deps.getContextMetrics(ctx), Boolean(deps.getRearmed?.()), deps.getLiveReclaim());
  }
  if (deps.getPolicyView) text += policyStatusBlock(deps.getPolicyView(ctx));
  return text;
}

export function statsReport(stats: SummarizerStats, reclaim?: LiveReclaim): string {
  const chains = stats.chainsCompressed ?? 0;
  const compressed = chains > 0 ? `\n  earlier prompts compressed: ${chains}` : "";
  const sent = `\n  context sent: ${contextSentText(reclaim)}`;
  if (stats.callCount === 0 && chains === 0) return reclaim && reclaim.beforeChars > 0 ? `pruner stats: no summarizer calls yet.${sent}` : "pruner stats: no summarizer calls yet.";
  const spent = stats.callCount > 0 ? `${usageLines(stats)}\n  (calls, tokens and cost are the summarizer's own)` : "";
  return `pruner stats:${spent}${sent}${compressed}`;
}

export const statusCommand: SubcommandHandler = async (deps, ctx) => {
  showReport(deps.pi, ctx, statusReport(deps, ctx));
};

export const statsCommand: SubcommandHandler = async (deps, ctx) => {
  showReport(deps.pi, ctx, statsReport(deps.getStats(), deps.getLiveReclaim()));
};
