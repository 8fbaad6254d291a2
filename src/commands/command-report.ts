/**
 * Read-only reports: `/pruner status` and `/pruner stats`.
 */
import { policyStatusBlock } from "../ui/policy-status.js";
import type { ExtensionCommandContext } from "@earendil-works/pi-coding-agent";
import { showReport } from "../ui/report.js";
import type { CommandDeps, SubcommandHandler } from "./command-context.js";
import { settingShown } from "./command-settings.js";
import { formatCompactCount, formatCost, formatTokens } from "../summarize/stats.js";
import type { ContextMetricsSnapshot } from "../summarize/flush-types.js";
import type { ConfigBox } from "../settings/config-shape.js";
import type { LiveReclaim } from "../render/render-size.js";
import type { SummarizerCacheTokens, SummarizerStats } from "../capture/records.js";
import { contextSentText } from "../ui/status-line.js";
import { DEFAULT_THINKING_WORDS, defaultModelWords, sessionModelKey } from "./command-config.js";
import { sightFigures, sightLine, type SightView, windowLine } from "../forgetting/sight-text.js";

/** Plain words after a value whose stored form does not say what it does. */
const MEANING: Record<string, Record<string, string>> = {
  pruneOn: { "agent-message": "after the agent's final reply", "on-demand": "only on /pruner now" },
  batchingMode: { turn: "one summary per tool turn", "agent-message": "one summary per agent reply" },
  summaries: {
    auto: "only for outputs that cannot be had again",
    always: "for every batch",
    never: "no summarizer calls",
  },
  dedupByContentHash: { true: "repeated outputs point at their earlier copy", false: "repeated outputs are handled like any other" },
  showPruneStatusLine: { true: "the footer line is shown", false: "the footer line is hidden" },
};

/** The settings status lists, by the overlay's names and values, so one setting reads the same everywhere. */
const STATUS_SETTINGS = [
  "enabled",
  "summarizerModel",
  "summarizerThinking",
  "summarizerIdleTimeoutMs",
  "summarizerMaxTimeoutMs",
  "pruneOn",
  "batchingMode",
  "summaries",
  "dedupByContentHash",
  "showPruneStatusLine",
];

const STATUS_LABEL_WIDTH = 26;

function meaningOf(id: string, value: string, box: ConfigBox, sessionModel: string | undefined): string | undefined {
  const config = box.value;
  if (id === "summaries" && config.flushPolicy === "classic" && value !== "always") return "always in effect: flushPolicy classic implies it";
  if (id === "enabled" && !config.enabled && box.offReason) return `off because ${box.offReason.detail}; fix it there, or /pruner on`;
  if (id === "summarizerModel" && value === "default") return defaultModelWords(sessionModel);
  if (id === "summarizerThinking" && value === "default") return DEFAULT_THINKING_WORDS;
  return MEANING[id]?.[value];
}

function settingsBlock(box: ConfigBox, sessionModel: string | undefined): string {
  const rows = STATUS_SETTINGS.map((id) => {
    const { label, value } = settingShown(id, box.value)!;
    const meaning = meaningOf(id, value, box, sessionModel);
    return `  ${`${label}:`.padEnd(STATUS_LABEL_WIDTH)}${value}${meaning ? ` (${meaning})` : ""}`;
  });
  return ["pruner status:", ...rows].join("\n");
}

const NO_CACHE: SummarizerCacheTokens = { cacheReadTokens: 0, cacheWriteTokens: 0 };

/** Input as the provider billed it: fresh input, cache reads and cache writes, the cache part named. */
function inputText(stats: SummarizerStats, cache: SummarizerCacheTokens): string {
  const cached = cache.cacheReadTokens + cache.cacheWriteTokens;
  const total = `${formatTokens(stats.totalInputTokens + cached)} tokens`;
  if (cached === 0) return total;
  return `${total} (${formatTokens(cache.cacheWriteTokens)} written to its cache, ${formatTokens(cache.cacheReadTokens)} read from it)`;
}

function usageLines(stats: SummarizerStats, cache: SummarizerCacheTokens = NO_CACHE): string {
  return (
    `\n  calls:       ${stats.callCount}` +
    `\n  input:       ${inputText(stats, cache)}` +
    `\n  output:      ${formatTokens(stats.totalOutputTokens)} tokens` +
    `\n  cost:        ${formatCost(stats.totalCost)}`
  );
}

/** The footer's figure, or while pruning is off (no request renders) one measured now. */
export function currentReclaim(deps: CommandDeps, ctx: ExtensionCommandContext): LiveReclaim | undefined {
  if (deps.currentConfig.value.enabled) return deps.getLiveReclaim();
  return deps.measureContext?.(ctx) ?? deps.getLiveReclaim();
}

function contextBlock(metrics: ContextMetricsSnapshot, rearmed: boolean, reclaim: LiveReclaim | undefined, pruning: boolean): string {
  return (
    "\n  --- context now (what the provider receives) ---" +
    `\n  context sent:                     ${contextSentText(reclaim, pruning)}` +
    `\n  thinking since the last reply:    ${formatCompactCount(metrics.openCycleThinkingTokens)} tokens` +
    `\n  largest prompt's work:            ${metrics.largestChainSharePct}% of the context` +
    `\n  tool output not yet summarized:   ${formatCompactCount(metrics.frontierGapTokens)} tokens` +
    (rearmed ? "\n  found after reload:               earlier tool output waiting to be summarized" : "")
  );
}

export function statusReport(deps: CommandDeps, ctx: ExtensionCommandContext): string {
  const stats = deps.getStats();
  let text = settingsBlock(deps.currentConfig, sessionModelKey(ctx));
  const inUse = deps.getFallback?.(ctx);
  if (inUse) text += `\n  ${"in use now:".padEnd(STATUS_LABEL_WIDTH)}${inUse}`;
  text += stats.callCount > 0 ? `\n  --- summarizer use ---${usageLines(stats, deps.getSummarizerCache?.())}` : "\n  (no summarizer calls yet)";
  if (deps.getContextMetrics) {
    text += contextBlock(deps.getContextMetrics(ctx), Boolean(deps.getRearmed?.()), currentReclaim(deps, ctx), deps.currentConfig.value.enabled);
  }
  if (deps.getPolicyView) text += policyStatusBlock(deps.getPolicyView(ctx));
  const sight = deps.getSight?.(ctx);
  if (sight) text += sightBlock(sight, deps.currentConfig.value.flushPolicy !== "classic");
  return text;
}

/** What the agent went back for; under the cost policy, the raw window its in-run flushes leave. */
function sightBlock(sight: SightView, inRunWindow: boolean): string {
  const window = inRunWindow ? `\n  ${windowLine(sight.widened, sight.rate, sight.rawTurns)}` : "";
  return `\n  --- live sight ---\n  ${sightLine(sightFigures(sight.recoveries, sight.cost))}${window}`;
}

/** `sight`: live sight's line (`sightLine`), shown last. */
export function statsReport(stats: SummarizerStats, reclaim?: LiveReclaim, cache?: SummarizerCacheTokens, pruning = true, sight?: string): string {
  const chains = stats.chainsCompressed ?? 0;
  const compressed = chains > 0 ? `\n  earlier prompts compressed: ${chains}` : "";
  const sent = `\n  context sent: ${contextSentText(reclaim, pruning)}`;
  const went = sight === undefined ? "" : `\n  ${sight}`;
  if (stats.callCount === 0 && chains === 0) return (reclaim && reclaim.beforeChars > 0 ? `pruner stats: no summarizer calls yet.${sent}` : "pruner stats: no summarizer calls yet.") + went;
  const spent = stats.callCount > 0 ? `${usageLines(stats, cache)}\n  (calls, tokens and cost are the summarizer's own)` : "";
  return `pruner stats:${spent}${sent}${compressed}${went}`;
}

export const statusCommand: SubcommandHandler = async (deps, ctx) => {
  showReport(deps.pi, ctx, statusReport(deps, ctx));
};

export const statsCommand: SubcommandHandler = async (deps, ctx) => {
  const sight = deps.getSight?.(ctx);
  const went = sight ? sightLine(sightFigures(sight.recoveries, sight.cost)) : undefined;
  showReport(deps.pi, ctx, statsReport(deps.getStats(), currentReclaim(deps, ctx), deps.getSummarizerCache?.(), deps.currentConfig.value.enabled, went));
};
