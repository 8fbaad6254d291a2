/** Recomposes the footer from the current state (reclaim, diagnostics, cached metrics). */
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { ContextMetricsSnapshot, ContextPruneConfig, DiagnosticKind, LiveReclaim } from "../types.js";
import { setPruneStatusWidget } from "./status-line.js";

/** What the footer is made of (the host's extension state provides it). */
export interface StatusSource {
  config: { value: ContextPruneConfig };
  stats: { getLiveReclaim(): LiveReclaim | undefined };
  diagnostics: { counts(): Record<DiagnosticKind, number> };
  metricsCache: ContextMetricsSnapshot | undefined;
}

export function refreshStatus(state: StatusSource, ctx: ExtensionContext): void {
  setPruneStatusWidget(ctx, state.config.value, state.stats.getLiveReclaim(), state.diagnostics.counts(), state.metricsCache);
}

export function showStatusText(state: Pick<StatusSource, "config">, ctx: ExtensionContext, text: string): void {
  setPruneStatusWidget(ctx, state.config.value, text);
}
