/** Recomposes the footer from the current state (reclaim and diagnostics; metrics are not in the footer). */
import { argumentStubsOn } from "../arguments/fields.js";
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { CapturedBatch } from "../capture/records.js";
import type { ConfigBox } from "../settings/config-shape.js";
import type { DiagnosticKind } from "../render/diagnostics.js";
import type { LiveReclaim } from "../render/render-size.js";
import { isTrivialBatch } from "../summarize/flush-batches.js";
import { ARCHIVE_MISS } from "../render/diagnostics.js";
import { offStatusText, setPruneStatusWidget } from "./status-line.js";

/** What the footer is made of (the host's extension state provides it). */
export interface StatusSource {
  config: ConfigBox;
  stats: { getLiveReclaim(): LiveReclaim | undefined };
  diagnostics: { counts(): Record<DiagnosticKind, number>; archiveMisses?(): number };
}

export function refreshStatus(state: StatusSource, ctx: ExtensionContext): void {
  const counts = { ...state.diagnostics.counts(), [ARCHIVE_MISS]: state.diagnostics.archiveMisses?.() ?? 0 };
  setPruneStatusWidget(ctx, state.config.value, offStatusText(state.config) ?? state.stats.getLiveReclaim(), counts);
}

export function showStatusText(state: Pick<StatusSource, "config">, ctx: ExtensionContext, text: string): void {
  setPruneStatusWidget(ctx, state.config.value, text);
}

/**
 * The footer while tool turns wait: only those a flush would summarize are counted (one under
 * `minBatchChars` is left as it is), and the reclaim figure stays in view beside the count.
 */
export function showPending(state: StatusSource & { pending: readonly CapturedBatch[] }, ctx: ExtensionContext): void {
  const config = state.config.value;
  const waiting = state.pending.filter((batch) => !isTrivialBatch(batch, config.minBatchChars, argumentStubsOn(config))).length;
  const counts = { ...state.diagnostics.counts(), [ARCHIVE_MISS]: state.diagnostics.archiveMisses?.() ?? 0 };
  setPruneStatusWidget(ctx, config, state.stats.getLiveReclaim(), counts, undefined, waiting);
}
