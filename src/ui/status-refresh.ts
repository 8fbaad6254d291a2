/** Recomposes the footer from the current state (reclaim, diagnostics, cached metrics). */
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { setPruneStatusWidget } from "../commands/commands.js";
import type { ExtensionState } from "../host/extension-state.js";

export function refreshStatus(state: ExtensionState, ctx: ExtensionContext): void {
  setPruneStatusWidget(ctx, state.config.value, state.stats.getLiveReclaim(), state.diagnostics.counts(), state.metricsCache);
}

export function showStatusText(state: ExtensionState, ctx: ExtensionContext, text: string): void {
  setPruneStatusWidget(ctx, state.config.value, text);
}
