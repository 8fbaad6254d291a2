/**
 * Footer status segment: `prune: ON|OFF`, the live reclaim estimate and the
 * diagnostics counters. The context-metrics suffix is rendered only for a
 * caller that passes metrics (the 2.9.1 signature); the live footer never
 * does, since it crowded the shared footer with figures nobody could act on.
 */
import { estimateTokens, formatCompactCount, tokenCountText } from "../format/figures.js";
import { ARCHIVE_MISS } from "../render/diagnostics.js";
import { STATUS_WIDGET_ID } from "../names.js";
import type { ContextMetricsSnapshot } from "../summarize/flush-types.js";
import type { ConfigBox, ContextPruneConfig } from "../settings/config-shape.js";
import type { DiagnosticKind } from "../render/diagnostics.js";
import type { LiveReclaim } from "../render/render-size.js";

const SEP = " \u00b7 ";
const STATUS_PREFIX = "\u2502 ";

type Counted = DiagnosticKind | typeof ARCHIVE_MISS;

const DIAG_LETTERS: ReadonlyArray<[Counted, string]> = [
  ["unresolved-range", "u"],
  ["range-id-mismatch", "m"],
  ["orphan-sweep", "o"],
  ["backfill-empty", "b"],
  [ARCHIVE_MISS, "a"],
];

function diagSuffix(diagnostics?: Partial<Record<Counted, number>>): string {
  if (!diagnostics) return "";
  const tokens: string[] = [];
  for (const [kind, letter] of DIAG_LETTERS) {
    const count = diagnostics[kind];
    if (typeof count === "number" && count > 0) tokens.push(`${letter}${count}`);
  }
  return tokens.length > 0 ? `${SEP}diag ${tokens.join("/")}` : "";
}

function metricsSuffix(metrics?: ContextMetricsSnapshot): string {
  if (!metrics || !(metrics.frontierGapTokens > 0)) return "";
  return (
    `${SEP}think ${formatCompactCount(metrics.openCycleThinkingTokens)}` +
    `${SEP}gap ${formatCompactCount(metrics.frontierGapTokens)}` +
    `${SEP}chain ${metrics.largestChainSharePct}%`
  );
}

/** The reclaim as every surface shows it: tokens sent without and with pruning, and the reduction. */
export function reclaimFigures(reclaim: LiveReclaim): { before: string; after: string; afterTokens: number; reduction: number } {
  const overhead = reclaim.overheadTokens ?? 0;
  const beforeTok = Math.max(0, estimateTokens(reclaim.beforeChars) + overhead);
  const afterTok = Math.max(0, estimateTokens(reclaim.afterChars) + overhead);
  const ratio = Math.round((1 - afterTok / beforeTok) * 100);
  // A sub-token "before" size would divide by zero; report no reduction.
  const reduction = Number.isFinite(ratio) ? Math.max(0, ratio) : 0;
  return { before: formatCompactCount(beforeTok), after: formatCompactCount(afterTok), afterTokens: afterTok, reduction };
}

/**
 * The line `/pruner status`, `/pruner stats` and `/pruner report` show for the reclaim the footer shows.
 * While pruning is off the request goes out unpruned: its size is the first figure.
 */
export function contextSentText(reclaim: LiveReclaim | undefined, pruning = true): string {
  if (!reclaim || !(reclaim.beforeChars > 0)) return pruning ? "no pruned request yet" : "pruning is off";
  const { before, after, afterTokens, reduction } = reclaimFigures(reclaim);
  if (!pruning) return `${before} tokens (pruning is off; ${after} with it)`;
  return `${tokenCountText(afterTokens)} (${before} without pruning, -${reduction}%)`;
}

function reclaimText(reclaim: LiveReclaim): string {
  const { before, after, reduction } = reclaimFigures(reclaim);
  return `${SEP}${before}->${after} (-${reduction}%)`;
}

/**
 * `pending`: tool turns waiting that a flush would summarize. Without a reclaim figure the footer reads
 * `prune: <n> pending`; with one the figure stays and the count follows it.
 */
export function pruneStatusText(
  config: Pick<ContextPruneConfig, "enabled">,
  reclaim?: LiveReclaim,
  diagnostics?: Partial<Record<Counted, number>>,
  metrics?: ContextMetricsSnapshot,
  pending = 0,
): string {
  if (!config.enabled) return "prune: OFF";
  const suffix = diagSuffix(diagnostics) + metricsSuffix(metrics);
  const hasReclaim = reclaim !== undefined && reclaim.beforeChars > 0;
  if (pending > 0 && !hasReclaim) return `prune: ${pending} pending${suffix}`;
  const waiting = pending > 0 ? `${SEP}${pending} pending` : "";
  if (!hasReclaim) return `prune: ON${suffix}`;
  return `prune: ON${reclaimText(reclaim)}${waiting}${suffix}`;
}

/** `prune: OFF` with the reason, while a settings problem (not the user) keeps pruning off; undefined otherwise. */
export function offStatusText(config: ConfigBox): string | undefined {
  if (config.value.enabled || !config.offReason) return undefined;
  return `${pruneStatusText(config.value)}${SEP}${config.offReason.footer}`;
}

export function setPruneStatusWidget(
  ctx: { ui: { setStatus: (id: string, text?: string) => void } },
  config: Pick<ContextPruneConfig, "enabled" | "showPruneStatusLine">,
  value?: LiveReclaim | string,
  diagnostics?: Record<DiagnosticKind, number>,
  metrics?: ContextMetricsSnapshot,
  pending?: number,
): void {
  if (!config.showPruneStatusLine) {
    ctx.ui.setStatus(STATUS_WIDGET_ID, undefined);
    return;
  }
  const text = typeof value === "string" ? value : pruneStatusText(config, value, diagnostics, metrics, pending);
  ctx.ui.setStatus(STATUS_WIDGET_ID, STATUS_PREFIX + text);
}
