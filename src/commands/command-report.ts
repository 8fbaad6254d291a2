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

function seconds(ms: number): string {
  return ms === 0 ? "no limit" : `${Math.round(ms / 1000)} s`;
}

const WHEN: Record<string, string> = {
  "agent-message": "after the agent's final reply",
  "on-demand": "only on /pruner now",
};
const BATCHES: Record<string, string> = {
  turn: "one per tool turn",
  "agent-message": "one per agent reply",
};

function settingsBlock(config: ContextPruneConfig): string {
  return [
    "pruner status:",
    `  pruning:           ${config.enabled ? "on" : "off"}`,
    `  summarizer model:  ${config.summarizerModel} (thinking: ${thinkingLabel(config.summarizerThinking)})`,
    `  summarizer waits:  ${seconds(config.summarizerIdleTimeoutMs)} without output, ${seconds(config.summarizerMaxTimeoutMs)} in all`,
    `  summarizes:        ${WHEN[config.pruneOn] ?? config.pruneOn}`,
    `  summaries:         ${BATCHES[config.batchingMode] ?? config.batchingMode}`,
    `  repeated outputs:  ${config.dedupByContentHash ? "pointed at their earlier copy" : "summarized again"}`,
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
    text += contextBlock(deps.getContextMetrics(ctx), Boolean(deps.getRearmed?.()));
  }
  if (deps.getPolicyView) text += policyStatusBlock(deps.getPolicyView(ctx));
  return text;
}

/** What pruning took out of the last request sent to the model, counted as the footer counts it. */
function savedLine(reclaim: LiveReclaim | undefined): string {
  if (!reclaim || !(reclaim.beforeChars > 0)) return "\n  context saved: nothing yet (no request sent since pruning took anything out)";
  const before = Math.round(reclaim.beforeChars / 4);
  const after = Math.round(reclaim.afterChars / 4);
  const pct = Math.max(0, Math.round((1 - after / before) * 100));
  return (
    `\n  context saved: ${formatCompactCount(Math.max(0, before - after))} tokens in the last request to the model ` +
    `(${formatCompactCount(before)} \u2192 ${formatCompactCount(after)}, -${pct}%)`
  );
}

export function statsReport(stats: SummarizerStats, reclaim?: LiveReclaim): string {
  const chains = stats.chainsCompressed ?? 0;
  const compressed = chains > 0 ? `\n  earlier prompts compressed: ${chains}` : "";
  if (stats.callCount === 0 && chains === 0) {
    return reclaim && reclaim.beforeChars > 0 ? `pruner stats: no summarizer calls yet.${savedLine(reclaim)}` : "pruner stats: no summarizer calls yet.";
  }
  const spent = stats.callCount > 0 ? `${usageLines(stats)}\n  (calls, tokens and cost are the summarizer's own)` : "";
  return `pruner stats:${spent}${savedLine(reclaim)}${compressed}`;
}

export const statusCommand: SubcommandHandler = async (deps, ctx) => {
  showReport(deps.pi, ctx, statusReport(deps, ctx));
};

export const statsCommand: SubcommandHandler = async (deps, ctx) => {
  showReport(deps.pi, ctx, statsReport(deps.getStats(), deps.getLiveReclaim()));
};
