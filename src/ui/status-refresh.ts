/** Recomposes the footer from the current state (reclaim and diagnostics; metrics are not in the footer). */
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { ContextPruneConfig, DiagnosticKind, LiveReclaim } from "../types.js";
import { ARCHIVE_MISS } from "../render/diagnostics.js";
import { setPruneStatusWidget } from "./status-line.js";

/** What the footer is made of (the host's extension state provides it). */
export interface StatusSource {
  config: { value: ContextPruneConfig };
  stats: { getLiveReclaim(): LiveReclaim | undefined };
  diagnostics: { counts(): Record<DiagnosticKind, number>; archiveMisses?(): number };
}

export function refreshStatus(state: StatusSource, ctx: ExtensionContext): void {
  const counts = { ...state.diagnostics.counts(), [ARCHIVE_MISS]: state.diagnostics.archiveMisses?.() ?? 0 };
  setPruneStatusWidget(ctx, state.config.value, state.stats.getLiveReclaim(), counts);
}

export function showStatusText(state: Pick<StatusSource, "config">, ctx: ExtensionContext, text: string): void {
  setPruneStatusWidget(ctx, state.config.value, text);
}
