/**
 * `/pruner` subcommands that act on the session: `now` (manual flush with
 * live progress), `compact` (retroactive chain compression) and `tree`
 * (pruned tool-call browser).
 */
import type { ExtensionCommandContext } from "@earendil-works/pi-coding-agent";
import { errorMessage, info, refreshStatus, safeNotify, warn } from "./command-context.js";
import type { FlushResultLike, NotifyType, SubcommandHandler } from "./command-context.js";
import { openProgressWidget } from "../ui/command-progress.js";
import type { ToolCallIndexer } from "../archive/indexer.js";
import { plural } from "../plural.js";
import { buildPruneTree, showTreeBrowser } from "../ui/tree-browser.js";
import type { ChainCompressionEntry } from "../types.js";

const FRONTIER_NOTE = "the frontier still moved past this range.";

export function flushNotice(result: FlushResultLike, minBatchChars: number): { message: string; type: NotifyType } {
  if (!result.ok) {
    const detail = result.error ? ` (${result.error})` : "";
    return {
      message: `pruner: nothing flushed — ${result.reason}${detail}`,
      type: result.reason === "empty" ? "info" : "warning",
    };
  }
  const raw = result.rawCharCount;
  const summary = result.summaryCharCount;
  switch (result.reason) {
    case "skipped-oversized":
      return {
        message:
          `pruner: skipped pruning ${plural(result.toolCallCount, "tool call")} — the summary (${summary} chars) ` +
          `was larger than the raw output (${raw} chars); ${FRONTIER_NOTE}`,
        type: "warning",
      };
    case "skipped-trivial":
      return {
        message:
          `pruner: skipped ${plural(result.toolCallCount, "trivial tool call")} — ${raw} raw chars is under ` +
          `minBatchChars=${minBatchChars}; no LLM call was made and ${FRONTIER_NOTE}`,
        type: "info",
      };
    case "skipped-deduped": {
      const n = result.dedupedCount ?? result.toolCallCount;
      return {
        message:
          `pruner: ${plural(n, "tool call")} matched earlier prunes and ${n === 1 ? "was" : "were"} deduplicated ` +
          `(${raw} raw chars); no LLM call was made and ${FRONTIER_NOTE}`,
        type: "info",
      };
    }
    default:
      return {
        message:
          `pruner: pruned ${plural(result.toolCallCount, "tool call")} from ` +
          `${plural(result.batchCount, "batch", "batches")} — summary ${summary} chars vs ${raw} raw chars.`,
        type: "info",
      };
  }
}

export const nowCommand: SubcommandHandler = async (deps, ctx) => {
  if (!deps.currentConfig.value.enabled) {
    warn(ctx, "Context pruning is disabled. Run /pruner on first.");
    return;
  }
  const batches = deps.capturePendingBatches(ctx);
  if (batches.length === 0) {
    info(ctx, "pruner: nothing pending — no batches to summarize");
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
  const notice = flushNotice(result, deps.currentConfig.value.minBatchChars);
  safeNotify(ctx, notice.message, notice.type);
};

function reclaimedTokens(indexer: ToolCallIndexer, entries: ChainCompressionEntry[]): number {
  let chars = 0;
  for (const entry of entries) {
    const keys = entry.droppedOccurrenceKeys ?? entry.droppedToolCallIds;
    for (const record of indexer.lookupToolCalls(keys)) chars += record.resultText.length;
  }
  return Math.ceil(chars / 4);
}

export const compactCommand: SubcommandHandler = async (deps, ctx) => {
  let compressed: ChainCompressionEntry[];
  let skipped: number;
  try {
    ({ compressedEntries: compressed, skipped } = await deps.compactChains(ctx));
  } catch (err) {
    warn(ctx, `pruner: compact failed: ${errorMessage(err)}`);
    return;
  }
  if (compressed.length === 0) {
    const note = skipped > 0 ? ` (${plural(skipped, "chain")} skipped: no per-batch summary to compress)` : "";
    info(ctx, `pruner: no chains eligible for compaction${note}`);
    return;
  }
  const blocks = compressed.map((entry) => entry.blockId).join(", ");
  const tokens = reclaimedTokens(deps.indexer, compressed);
  info(ctx, `pruner: compacted ${plural(compressed.length, "chain")} (${blocks}), reclaimed ~${tokens} tokens`);
};

export const treeCommand: SubcommandHandler = async (deps, ctx: ExtensionCommandContext) => {
  const roots = buildPruneTree(ctx, deps.indexer);
  if (roots.length === 0) {
    info(ctx, "No pruned tool calls found in this session.");
    return;
  }
  await showTreeBrowser(ctx, roots);
};
