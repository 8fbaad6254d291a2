/**
 * Registers the `/pruner` command (dispatch, argument completion) and the
 * `context-prune-summary` message renderer, and re-exports the footer status
 * helpers. The subcommands themselves live in the `command-*` modules.
 */
import type {
  ExtensionAPI,
  ExtensionCommandContext,
  MessageRenderOptions,
  Theme,
} from "@earendil-works/pi-coding-agent";
import { Text } from "@earendil-works/pi-tui";
import {
  batchingCommand,
  dedupCommand,
  minBatchCharsCommand,
  modelCommand,
  protectedPathsCommand,
  protectedToolsCommand,
  pruneOnCommand,
  recoveryGraceCommand,
  setEnabled,
  thinkingCommand,
} from "./command-config.js";
import { errorMessage, safeNotify } from "./command-context.js";
import type { CommandDeps, CommandExtras, CompactResult, FlushResultLike, SubcommandHandler } from "./command-context.js";
import { completeSubcommand, helpText, SUBCOMMANDS } from "./command-help.js";
import { settingsCommand } from "./command-settings.js";
import { reportWords } from "./report-args.js";
import { showReport } from "../ui/report.js";
import { saveConfig, SettingsSaveError, settingsPath } from "../settings/config.js";
import type { ToolCallIndexer } from "../archive/indexer.js";
import { normalizeSummaryToolCallRefs } from "../archive/summary-refs.js";
import { CUSTOM_TYPE_SUMMARY } from "../names.js";
import type { CapturedBatch, SummarizerStats } from "../capture/records.js";
import type { ContextMetricsSnapshot, FlushOptions } from "../summarize/flush-types.js";
import type { ConfigBox, ContextPruneConfig } from "../settings/config-shape.js";
import type { DiagnosticKind } from "../render/diagnostics.js";
import type { LiveReclaim } from "../render/render-size.js";

import type { PolicyView } from "../ui/policy-status.js";
export { pruneStatusText, setPruneStatusWidget } from "../ui/status-line.js";
export type { CompactResult, FlushResultLike } from "./command-context.js";

/**
 * A subcommand whose module loads when it first runs: the report, the tree and the status texts pull in code
 * (the replay and its miss model, the tree browser) that a session needs only when the user asks, so pi starts
 * without parsing it (`npm run bench:startup`).
 */
function onDemand<M>(load: () => Promise<M>, pick: (module: M) => SubcommandHandler): SubcommandHandler {
  return async (deps, ctx, args) => pick(await load())(deps, ctx, args);
}

const actions = () => import("./command-actions.js");
const reports = () => import("./command-report.js");

const HANDLERS = new Map<string, SubcommandHandler>([
  ["settings", settingsCommand],
  ["on", setEnabled(true)],
  ["off", setEnabled(false)],
  ["status", onDemand(reports, (m) => m.statusCommand)],
  ["model", modelCommand],
  ["thinking", thinkingCommand],
  ["prune-on", pruneOnCommand],
  ["batching", batchingCommand],
  ["stats", onDemand(reports, (m) => m.statsCommand)],
  ["report", onDemand(() => import("./command-replay.js"), (m) => m.reportCommand)],
  ["tree", onDemand(actions, (m) => m.treeCommand)],
  ["now", onDemand(actions, (m) => m.nowCommand)],
  ["compact", onDemand(actions, (m) => m.compactCommand)],
  ["protected-tools", protectedToolsCommand],
  ["protected-paths", protectedPathsCommand],
  ["min-batch-chars", minBatchCharsCommand],
  ["recovery-grace", recoveryGraceCommand],
  ["dedup", dedupCommand],
  ["help", async (deps, ctx) => showReport(deps.pi, ctx, helpText())],
]);

function firstToken(text: string): string | undefined {
  return text.trim().split(/\s+/)[0] || undefined;
}

/** Arguments each subcommand reads; the others (model, the protected lists, report) check their own. */
const MAX_ARGS = new Map<string, number>([
  ...["settings", "on", "off", "status", "stats", "tree", "now", "compact", "help"].map((name) => [name, 0] as const),
  ...["thinking", "prune-on", "batching", "min-batch-chars", "recovery-grace", "dedup"].map((name) => [name, 1] as const),
]);

/** Words a subcommand would not read: refused whole, so `/pruner off now` neither turns pruning off nor runs now. */
function extraWordsNotice(subcommand: string, args: string[]): string | undefined {
  const max = MAX_ARGS.get(subcommand);
  if (max === undefined || args.length <= max) return undefined;
  const takes = max === 0 ? "takes no arguments" : "takes one argument";
  const extra = args.slice(max).join(" ");
  return `pruner: /pruner ${subcommand} ${takes}, so nothing was done ("${extra}" is more than it reads). Run /pruner help for usage.`;
}

async function runPruner(deps: CommandDeps, args: string, ctx: ExtensionCommandContext): Promise<void> {
  const parts = (args ?? "").trim().split(/\s+/);
  // The footer says ON and OFF in capitals; the subcommand is the same word.
  let subcommand = parts[0]?.toLowerCase() || undefined;
  // A report path may hold spaces: its words are split as a shell would (quotes, escaped spaces).
  let subArgs = subcommand === "report" ? reportWords((args ?? "").trim().slice(parts[0]!.length)) : parts.slice(1);
  if (!subcommand) {
    const choice = await ctx.ui.select(
      "pruner — choose a subcommand",
      SUBCOMMANDS.map((entry) => entry.label),
    );
    if (choice === undefined) return;
    subcommand = firstToken(choice);
    subArgs = [];
    if (!subcommand) return;
  }
  const handler = HANDLERS.get(subcommand);
  if (!handler) {
    safeNotify(ctx, `Unknown subcommand: "${parts[0] || subcommand}". Run /pruner help for usage.`);
    return;
  }
  const extra = extraWordsNotice(subcommand, subArgs);
  if (extra) {
    safeNotify(ctx, extra, "warning");
    return;
  }
  await handler(deps, ctx, subArgs);
}

function settingsFileName(): string {
  try {
    return settingsPath();
  } catch {
    return "settings.json";
  }
}

/** Fire-and-forget save; a failure is reported once and the in-memory change stays in effect. */
function persist(ctx: ExtensionCommandContext, config: ContextPruneConfig): void {
  // Resolved now: saveConfig resolves the same path synchronously, and the agent dir may change later.
  const file = settingsFileName();
  saveConfig(config).catch((err) => {
    const failure = err instanceof SettingsSaveError ? err : undefined;
    const reason = (failure?.reason ?? errorMessage(err)).replace(/[.\s]+$/, "");
    safeNotify(
      ctx,
      `pruner: could not save settings to ${failure?.path ?? file}: ${reason}. The change applies to this session only.`,
      "error",
    );
  });
}

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((part) => part?.type === "text" && typeof part.text === "string")
    .map((part) => part.text)
    .join("\n");
}

function renderSummaryMessage(
  message: { content: unknown; details?: unknown },
  options: Pick<MessageRenderOptions, "expanded">,
  theme: Theme,
): Text {
  const count = normalizeSummaryToolCallRefs(message.details).length;
  const header = theme.fg("accent", `[pruner] summary of ${count} tool output${count === 1 ? "" : "s"}`);
  return new Text(options.expanded ? `${header}\n${contentText(message.content)}` : header, 0, 0);
}

export function registerCommands(
  pi: ExtensionAPI,
  currentConfig: ConfigBox,
  flushPending: (ctx: ExtensionCommandContext, options?: FlushOptions) => Promise<FlushResultLike>,
  capturePendingBatches: (ctx: ExtensionCommandContext) => CapturedBatch[],
  getStats: () => SummarizerStats,
  getLiveReclaim: () => LiveReclaim | undefined,
  indexer: ToolCallIndexer,
  compactChains: (ctx: ExtensionCommandContext) => Promise<CompactResult>,
  getDiagnosticCounts?: () => Record<DiagnosticKind, number>,
  getContextMetrics?: (ctx: ExtensionCommandContext) => ContextMetricsSnapshot,
  // Position 11 kept for 2.9.1 callers; the footer no longer shows metrics, so nothing reads it.
  _getCachedMetrics?: () => ContextMetricsSnapshot | undefined,
  getRearmed?: () => boolean,
  getPolicyView?: (ctx: ExtensionCommandContext) => PolicyView,
  getFallback?: (ctx: ExtensionCommandContext) => string | undefined,
  extras: CommandExtras = {},
): void {
  const deps: CommandDeps = {
    pi,
    currentConfig,
    flushPending,
    capturePendingBatches,
    getStats,
    getLiveReclaim,
    indexer,
    compactChains,
    getDiagnosticCounts,
    getContextMetrics,
    getRearmed,
    getPolicyView,
    getFallback,
    ...extras,
    persist,
  };
  pi.registerCommand("pruner", {
    description: "Context-prune settings and commands",
    getArgumentCompletions: (prefix: string) => completeSubcommand(prefix ?? ""),
    handler: async (args, ctx) => {
      try {
        await runPruner(deps, args, ctx);
      } catch (err) {
        safeNotify(ctx, `pruner: command failed: ${errorMessage(err)}`, "error");
      }
    },
  });
  pi.registerMessageRenderer(CUSTOM_TYPE_SUMMARY, (message, options, theme) => {
    try {
      return renderSummaryMessage(message, options, theme);
    } catch (err) {
      console.error("pi-condense: rendering a summary message failed", err);
      return undefined;
    }
  });
}
