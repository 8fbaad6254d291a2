/**
 * session_start / session_tree: rebuild every piece of state from the branch
 * and probe for work captured before a reload (the rearm flag). Nothing here
 * calls a model or flushes.
 */
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { loadConfigWithWarnings, settingsPath } from "../settings/config.js";
import { plural } from "../format/plural.js";
import { showReport } from "../ui/report.js";
import { safeNotify } from "../summarize/delivery.js";
import type { ExtensionState } from "./extension-state.js";
import { onSessionReset } from "./cold-cache.js";
import { clearCacheExpiry, scheduleCacheExpiry } from "./cache-expiry.js";
import { rebuildPolicyState } from "./flush-policy.js";
import { declareQueryTool } from "../archive/query-tool-exposure.js";
import { capturePendingBatches } from "../capture/pending-batches.js";
import { inheritSidecars } from "../archive/sidecar-inherit.js";
import { showBootWidget } from "../ui/boot-widget.js";
import { refreshStatus } from "../ui/status-refresh.js";
import { calibrateFromBranch } from "./request-render.js";


export async function onSessionStart(
  state: ExtensionState,
  ctx: ExtensionContext,
  event: { reason?: unknown; previousSessionFile?: unknown } = {},
): Promise<void> {
  const { config, warnings, offReason } = await loadConfigWithWarnings();
  state.config.value = config;
  state.config.offReason = offReason;
  state.writeFaults.reset();
  rebuildFromBranch(state, ctx, true);
  if (event.reason === "fork" && typeof event.previousSessionFile === "string") await inheritFromParent(state, ctx, event.previousSessionFile);
  if (state.config.value.enabled) scheduleCacheExpiry(state, ctx);
  if (state.config.value.showPruneStatusLine) showBootWidget(ctx, state.config.value);
  showSettingsWarnings(state, ctx, warnings);
}

/**
 * On a fresh session each warning is a notice. A resumed one draws its transcript after session_start, which
 * would bury the notices above it: there they become one report, drawn as the chat's last entry.
 */
function showSettingsWarnings(state: ExtensionState, ctx: ExtensionContext, warnings: string[]): void {
  if (warnings.length === 0) return;
  if (!hasTranscript(ctx)) {
    for (const warning of warnings) safeNotify(ctx, warning, "warning");
    return;
  }
  const lines = warnings.map((warning) => `  ${warning.replace(/^pruner: (settings\.json )?/, "")}`);
  showReport(state.pi, ctx, [`pruner: ${plural(warnings.length, "problem")} in the contextPrune settings of ${settingsPath()}:`, ...lines].join("\n"), "warning");
}

function hasTranscript(ctx: ExtensionContext): boolean {
  try {
    return ctx.sessionManager.getBranch().length > 0;
  } catch {
    return false;
  }
}

/** A fork's spilled records name the parent's sidecars: copy them into the fork's own archive. */
async function inheritFromParent(state: ExtensionState, ctx: ExtensionContext, parentSessionFile: string): Promise<void> {
  try {
    const sm = ctx.sessionManager;
    await inheritSidecars(state.indexer.getIndex().values(), parentSessionFile, { sessionDir: sm.getSessionDir(), sessionId: sm.getSessionId() });
  } catch (err) {
    console.error("pi-condense: copying the parent session's sidecars into the fork failed", err);
  }
}

export function onSessionTree(state: ExtensionState, ctx: ExtensionContext): void {
  rebuildFromBranch(state, ctx, false);
}

/** The branch is read once per rebuild step; the rearm probe is the 4th read. */
function rebuildFromBranch(state: ExtensionState, ctx: ExtensionContext, resetFallback: boolean): void {
  state.indexer.reconstructFromSession(ctx);
  if (state.config.value.enabled) upgradeLegacyRefs(state);
  state.blockRefs.rebuildFrom(state.indexer.getChainEntries().map((entry) => entry.blockId));
  state.stats.reconstructFromSession(ctx);
  if (resetFallback) state.fallback.reset();
  state.diagnostics.reset();
  state.frontier.reconstructFromSession(ctx);
  state.pending.length = 0;
  state.previousFraction = null;
  state.rearmedPending = false;
  onSessionReset(state);
  clearCacheExpiry(state);
  if (state.config.value.enabled) probeRearm(state, ctx);
  rebuildPolicyState(state, ctx);
  rebuildSight(state, ctx);
  declareQueryTool(state.pi, state.indexer.getIndex().size > 0);
  showResumedFigure(state, ctx);
}

/**
 * A session with archived outputs shows the figure of the request it will send next at once, not only
 * `prune: ON` until a request is rendered; a new session has nothing to measure and starts no render.
 */
function showResumedFigure(state: ExtensionState, ctx: ExtensionContext): void {
  if (!state.config.value.enabled || state.indexer.getIndex().size === 0) {
    refreshStatus(state, ctx);
    return;
  }
  calibrateFromBranch(state, ctx);
  try {
    // Counts only while no response anchored the estimate.
    state.stats.noteSystemPrompt(ctx.getSystemPrompt().length);
  } catch {
    // A host without a system prompt to read: the figure counts the messages alone until a request.
  }
  state.status.refresh(ctx);
}

/** Live sight counts this branch afresh; its raw window is the one last persisted on it. */
function rebuildSight(state: ExtensionState, ctx: ExtensionContext): void {
  try {
    state.sight.rebuild(ctx.sessionManager.getBranch(), typeof ctx.cwd === "string" ? ctx.cwd : undefined);
  } catch (err) {
    console.error("pi-condense: reading live sight's window from the branch failed; it starts narrow", err);
  }
}

function upgradeLegacyRefs(state: ExtensionState): void {
  try {
    state.indexer.upgradeLegacyRefs((customType, data) => state.pi.appendEntry(customType, data));
  } catch (err) {
    console.error("pi-condense: giving older records a short ref failed; their outputs stay raw", err);
  }
}

/** Only records whether recoverable work exists; the next gated turn_end flushes it. */
function probeRearm(state: ExtensionState, ctx: ExtensionContext): void {
  try {
    state.rearmedPending = capturePendingBatches(state, ctx, { rethrow: true }).length > 0;
  } catch (err) {
    console.error("pi-condense: reload rearm probe failed", err);
  }
}
