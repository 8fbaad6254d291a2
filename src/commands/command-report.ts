/**
 * Read-only reports: `/pruner status` and `/pruner stats`.
 */
import { policyStatusBlock } from "../ui/policy-status.js";
import type { ExtensionCommandContext } from "@earendil-works/pi-coding-agent";
import { showReport } from "../ui/report.js";
import type { CommandDeps, SubcommandHandler } from "./command-context.js";
import { thinkingLabel } from "./command-config.js";
import { formatCompactCount, formatCost, formatTokens } from "../summarize/stats.js";
import type { ContextMetricsSnapshot, ContextPruneConfig, SummarizerStats } from "../types.js";

function seconds(ms: number): string {
  return ms === 0 ? "no limit" : `${Math.round(ms / 1000)} s`;
}

/** The words for each setting's values, shared with the settings overlay so both say the same. */
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

function contextBlock(metrics: ContextMetricsSnapshot, rearmed: boolean): string {
  return (
    "\n  --- context now (what the provider receives) ---" +
    `\n  thinking since the last reply:    ${formatCompactCount(metrics.openCycleThinkingTokens)} tokens` +
    `\n  largest request:                  ${metrics.largestChainSharePct}% of the context` +
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
    text += contextBlock(deps.getContextMetrics(ctx), Boolean(deps.getRearmed?.()));
  }
  if (deps.getPolicyView) text += policyStatusBlock(deps.getPolicyView(ctx));
  return text;
}

export function statsReport(stats: SummarizerStats): string {
  const chains = stats.chainsCompressed ?? 0;
  if (stats.callCount === 0 && chains === 0) return "pruner stats: no summarizer calls yet.";
  return `pruner stats:${usageLines(stats)}${chains > 0 ? `\n  earlier requests compressed: ${chains}` : ""}`;
}

export const statusCommand: SubcommandHandler = async (deps, ctx) => {
  showReport(deps.pi, ctx, statusReport(deps, ctx));
};

export const statsCommand: SubcommandHandler = async (deps, ctx) => {
  showReport(deps.pi, ctx, statsReport(deps.getStats()));
};
