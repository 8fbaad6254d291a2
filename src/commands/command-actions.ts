/**
 * `/pruner` subcommands that act on the session: `now` (manual flush, with
 * live progress while the summarizer runs), `compact` (retroactive chain compression) and `tree`
 * (pruned tool-call browser).
 */
import { tokenCountText } from "../format/figures.js";
import type { ExtensionCommandContext } from "@earendil-works/pi-coding-agent";
import { errorMessage, info, refreshStatus, safeNotify, warn } from "./command-context.js";
import type { CompactResult, FlushResultLike, NotifyType, SubcommandHandler } from "./command-context.js";
import { openProgressWidget } from "../ui/command-progress.js";
import { plural } from "../format/plural.js";
import { compressedPromptsText } from "../summarize/flush-report.js";
import { showReport } from "../ui/report.js";
import { buildPruneTree, showTreeBrowser } from "../ui/tree-browser.js";
import type { KeptPrompts } from "../summarize/chain-pass.js";
import { nextPromptsWord } from "./command-config.js";

const NOT_FLUSHED: Record<string, string> = {
  empty: "nothing to summarize yet",
  "already-flushing": "a summary run is already going; try again when it ends",
  "summarizer-failed": "the summarizer could not summarize anything",
  "stale-context": "the session changed while summarizing",
  failed: "summarizing failed",
  aborted: "summarizing was stopped",
};

/**
 * What `/pruner now` says when its flush did nothing; a flush that did something ends with its own line
 * (flush-report.ts), so there is nothing to add. Undefined then.
 */
export function flushNotice(result: FlushResultLike): { message: string; type: NotifyType } | undefined {
  if (result.ok) return undefined;
  const detail = result.error ? ` (${result.error})` : "";
  return {
    message: `pruner: ${NOT_FLUSHED[result.reason] ?? result.reason}${detail}`,
    type: result.reason === "empty" ? "info" : "warning",
  };
}

export const nowCommand: SubcommandHandler = async (deps, ctx) => {
  if (!deps.currentConfig.value.enabled) {
    warn(ctx, "Context pruning is disabled. Run /pruner on first.");
    return;
  }
  const batches = deps.capturePendingBatches(ctx);
  if (batches.length === 0) {
    info(ctx, "pruner: nothing to summarize yet");
    // Still records an `empty` flush-metrics entry; the result carries no news.
    await deps.flushPending(ctx, { previewedBatches: batches, trigger: "manual" });
    return;
  }
  const widget = openProgressWidget(ctx, batches);
  let result: FlushResultLike;
  try {
    result = await deps.flushPending(ctx, {
      previewedBatches: batches,
      onProgress: (index, _total, _batch, stage) =>
        stage === "start" ? widget.updateRow(index, "running", 0) : widget.updateRow(index, stage),
      onBatchTextProgress: (index, _total, _batch, received) => widget.updateRow(index, "running", received),
    });
  } finally {
    widget.clearWidget();
  }
  refreshStatus(deps, ctx);
  const notice = flushNotice(result);
  if (notice) safeNotify(ctx, notice.message, notice.type);
};


/** Why the prompts left on the branch stay whole, so "nothing to compress" is never a riddle. */
function keptNote(kept: KeptPrompts, graceTurns: number): string {
  const parts: string[] = [];
  if (kept.alreadyCompressed > 0) parts.push(`${plural(kept.alreadyCompressed, "prompt")} already compressed`);
  if (kept.readBack > 0) {
    parts.push(`${plural(kept.readBack, "prompt")} holding an output read back recently (kept whole for ${nextPromptsWord(graceTurns)} after the read)`);
  }
  if (kept.nothingArchivable > 0) parts.push(`${plural(kept.nothingArchivable, "prompt")} whose outputs are protected or could not be archived`);
  if (kept.noToolCalls > 0) parts.push(`${plural(kept.noToolCalls, "prompt")} with no tool output to compress`);
  if (kept.underWay > 0) parts.push(`${plural(kept.underWay, "prompt")} still under way`);
  return parts.length > 0 ? `: ${parts.join("; ")}` : "";
}

/** The next request's change, as the footer's figure moved: the compressed blocks' raw outputs were mostly stubs already. */
function savingText(tokensFewer: number | undefined): string {
  if (tokensFewer === undefined) return "";
  if (tokensFewer <= 0) return "; the next request is no smaller (its outputs were stubs already)";
  return `; the next request is about ${tokenCountText(tokensFewer)} smaller`;
}

export const compactCommand: SubcommandHandler = async (deps, ctx) => {
  let result: CompactResult;
  try {
    result = await deps.compactChains(ctx);
  } catch (err) {
    warn(ctx, `pruner: compact failed: ${errorMessage(err)}`);
    return;
  }
  const compressed = result.compressedEntries;
  if (compressed.length === 0) {
    showReport(deps.pi, ctx, `pruner: no earlier prompt's work left to compress${keptNote(result.kept, deps.currentConfig.value.recoveryGraceTurns)}`);
    return;
  }
  const line = compressedPromptsText(compressed.length, result.prompts ?? [], result.archived ?? 0);
  showReport(deps.pi, ctx, `pruner: ${line}${savingText(result.tokensFewer)}`);
};

export const treeCommand: SubcommandHandler = async (deps, ctx: ExtensionCommandContext) => {
  const roots = buildPruneTree(ctx, deps.indexer);
  if (roots.length === 0) {
    info(ctx, "No summarized tool outputs in this session yet.");
    return;
  }
  await showTreeBrowser(ctx, roots);
};
