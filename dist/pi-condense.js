import {
  CUSTOM_TYPE_SUMMARY,
  CUSTOM_TYPE_INDEX,
  CUSTOM_TYPE_STATS,
  CUSTOM_TYPE_FRONTIER,
  CUSTOM_TYPE_DEDUP_ALIAS,
  CUSTOM_TYPE_CHAIN,
  CUSTOM_TYPE_FLUSH_METRICS,
  CUSTOM_TYPE_TOGGLE,
  CUSTOM_TYPE_SIGHT,
  QUERY_TOOL_NAME,
  loose,
  roleOf,
  isAssistant,
  isToolResult,
  isUser,
  isCustom,
  isToolCall,
  contentBlocks,
  toolCallBlocks,
  isTextOnlyAssistant,
  looseEntry,
  entryMessage,
  isChainAnchorCustom,
  toolResultImagesByDigest,
  imagesForMarkers,
  NOT_FOUND_NOTE,
  isRecoveryTool,
  occKey,
  resultTimestampOf,
  parseOccKey,
  corruptEntryMessage,
  parseIndexEntry,
  parseChainEntry,
  parseAliasEntry,
  parseFrontierEntry,
  parseSightEntry,
  captureBatch,
  captureUnindexedBatchesFromSession,
  groupBatchesByMode,
  projectBranchMessages,
  framedSummary,
  resolveRange,
  BATCH_BODY_HEADER,
  deterministicBody,
  selectEligible,
  withRecoveredRefs,
  compressEligible,
  archiveChainMembers,
  detectChains,
  withClosingMessage,
  errorMessage,
  isStaleContextError,
  sessionAppenderOf,
  runtimeDelivery,
  sessionDelivery,
  safeNotify,
  isProtected,
  protectionPredicate,
  inGraceRecoveryToolCallIds,
  createSupersedeState,
  lowerFloor,
  earliestResultTimestamp,
  earliestChainStart,
  estimateTokens,
  formatCompactCount,
  StatsAccumulator,
  emitExternalCost,
  FallbackController,
  summarizerInUse,
  resolveModel,
  summarizeRange,
  showReport,
  registerReportRenderer,
  ARCHIVE_MISS,
  DiagnosticSink,
  offStatusText,
  setPruneStatusWidget,
  showBootWidget,
  safeNotify2,
  shouldBudgetFlush,
  usageFraction,
  shouldDeltaFlush,
  shouldFrontierGapFlush,
  plural,
  DEFAULT_CONFIG,
  setEnabled,
  modelCommand,
  thinkingCommand,
  pruneOnCommand,
  batchingCommand,
  protectedToolsCommand,
  protectedPathsCommand,
  minBatchCharsCommand,
  recoveryGraceCommand,
  dedupCommand,
  settingsCommand,
  settingsPath,
  loadConfigWithWarnings,
  SettingsSaveError,
  saveConfig,
  reportWords,
  normalizeSummaryToolCallRefs,
  formatSummaryToolCallRefs,
  makeSummaryDetails,
  substituteInlineRefs,
  RetryLedger,
  markerCandidates,
  argumentStubsOn,
  holdsStubbableArguments,
  flushReportLine,
  notifyArchived,
  notifyUnusable,
  cacheRouteOf,
  cardOf,
  pricesAt,
  costModelFor,
  MAX_BREAKPOINTS,
  createPromptCache,
  dollars,
  LiveSight,
  WIDENED_EXTRA_TURNS,
  recentRate,
  windowMove,
  processCacheEnv,
  spareMarkerIndex,
  jsonArrayLength,
  charsOf,
  requestChars,
  archivedCopyOf,
  archivedCopyOf2,
  readOwnSidecar,
  blobDirFor,
  nodeSidecarFiles,
  writeSidecarNamed,
  spillOversizedBatch,
  ToolCallIndexer,
  imageLimitFor,
  capImages,
  argumentHorizon,
  archivedMarker,
  sightOfWrite,
  sightOptions,
  requestSizesOf,
  workingSetOf,
  pruneMessages,
  archiveWrites,
  dedupBatches,
  classifyBatches,
  summarizeSlots,
  isTrivialBatch,
  withoutSummaryOf,
  BlockRefIssuer,
  DeferralLedger,
  chainItemKey,
  firstPendingIndex,
  pendingKeys,
  IN_RUN_RECENT_TURNS,
  inRunCandidates,
  weighFlushBatches,
  weighChains,
  summariesMode,
  splitBatches,
  staleOutputsOf
} from "./chunks/index-r3w7jg55.js";

// src/summarize/chain-pass.ts
function makeFuseRange(state, ctx, signal) {
  if (!state.config.value.chainCompression?.fuseRangeSummary)
    return;
  return async (text) => {
    const result = await summarizeRange(text, state.config.value, ctx, { controller: state.fallback, signal });
    if (!result)
      return null;
    state.stats.add(result.usage);
    state.stats.addRangesSummarized(1);
    return result.summaryText;
  };
}
async function compress(state, ctx, run) {
  const config = state.config.value;
  const { messages, rollingWindow, appendEntry } = run;
  const { chains, inGrace, eligible } = selectChains(state, messages, run.graceSource, rollingWindow, run.heldKeys);
  const sm = ctx.sessionManager;
  const backfill = {
    spillThreshold: config.spillThreshold,
    spillPreviewBytes: config.spillPreviewBytes,
    sessionDir: sm.getSessionDir(),
    sessionId: sm.getSessionId(),
    files: state.files
  };
  const unarchivable = await archiveChainMembers(eligible, {
    indexer: state.indexer,
    messages,
    backfill: { ...backfill, appendEntry },
    onWriteFailed: (error) => state.writeFaults.report(error, (message) => safeNotify(ctx, message, "warning"))
  });
  for (const key of unarchivable)
    inGrace.add(key);
  const result = await compressEligible(chains, rollingWindow, {
    indexer: state.indexer,
    blockRefs: state.blockRefs,
    appendEntry,
    now: Date.now,
    fuseRange: makeFuseRange(state, ctx, run.signal),
    messages,
    diagnostics: state.diagnostics,
    backfill
  }, inGrace);
  const starts = chains.map((chain) => chain.startUserTimestamp);
  return { ...result, prompts: result.compressedEntries.map((entry) => starts.indexOf(entry.startUserTimestamp) + 1) };
}
function previewEligibleChains(state, messages, closingMessage) {
  const config = state.config.value;
  if (!config.chainCompression?.enabled)
    return [];
  const closing = isOnBranch(messages, closingMessage) ? undefined : closingMessage;
  return selectChains(state, withClosingMessage(messages, closing), messages, config.chainCompression.rollingWindow).eligible;
}
function nextChainToCompress(state, messages) {
  const config = state.config.value;
  if (!config.chainCompression?.enabled)
    return;
  const window = Math.max(0, config.chainCompression.rollingWindow - 1);
  return selectChains(state, messages, messages, window).eligible[0]?.middleToolCallIds[0];
}
function selectChains(state, messages, graceSource, rollingWindow, heldKeys) {
  const chains = withRecoveredRefs(detectChains(messages, protectionPredicate(state)), messages);
  const inGrace = inGraceRecoveryToolCallIds(graceSource, state.config.value.recoveryGraceTurns);
  for (const key of heldKeys ?? [])
    inGrace.add(key);
  const alreadyCompressed = new Set(state.indexer.getChainEntries().map((entry) => entry.startUserTimestamp));
  return { chains, inGrace, eligible: selectEligible(chains, rollingWindow, alreadyCompressed, inGrace) };
}
function recordCompressions(state, entries) {
  lowerFloor(state.supersede, earliestChainStart(entries));
  state.stats.addChainsCompressed(entries.length);
  state.stats.persist(state.pi);
  state.stats.persistCacheTokens((customType, data) => state.pi.appendEntry(customType, data));
  emitExternalCost(state.pi, state.stats);
}
var NOTHING_COMPRESSED = { prompts: [], archived: 0 };
async function compressAfterFlush(state, ctx, messages, after) {
  try {
    const closing = isOnBranch(messages, after.closingMessage) ? undefined : after.closingMessage;
    const indexed = state.indexer.getIndex().size;
    const result = await compress(state, ctx, {
      messages: withClosingMessage(messages, closing),
      graceSource: messages,
      rollingWindow: state.config.value.chainCompression.rollingWindow,
      appendEntry: after.appendEntry,
      heldKeys: after.heldKeys,
      signal: after.signal
    });
    const entries = result.compressedEntries;
    if (entries.length > 0) {
      recordCompressions(state, entries);
      refreshQuietly(state, ctx, closing);
    }
    return { prompts: result.prompts, archived: state.indexer.getIndex().size - indexed };
  } catch (err) {
    if (!isStaleContextError(err))
      safeNotify(ctx, `pruner: compressing earlier prompts' work failed: ${errorMessage(err)}`, "warning");
    return NOTHING_COMPRESSED;
  }
}
function refreshQuietly(state, ctx, closingMessage) {
  try {
    state.status.refresh(ctx, closingMessage);
  } catch (err) {
    if (!isStaleContextError(err))
      console.error("pi-condense: status refresh after a chain compression failed", err);
  }
}
function isOnBranch(messages, value) {
  if (!value)
    return false;
  const message = loose(value) ?? {};
  for (let i = messages.length - 1;i >= 0; i--) {
    const other = loose(messages[i]);
    if (other?.role === message.role && other?.timestamp === message.timestamp)
      return true;
  }
  return false;
}
async function compressClosedChains(state, ctx, signal) {
  if (!state.config.value.chainCompression?.enabled)
    return NOTHING_COMPRESSED;
  let messages;
  let appendEntry;
  try {
    messages = projectBranchMessages(ctx.sessionManager.getBranch());
    const session = sessionAppenderOf(ctx);
    appendEntry = (customType, data) => session.appendCustomEntry(customType, data);
  } catch (err) {
    if (!isStaleContextError(err))
      console.error("pi-condense: reading the branch for chain compression failed", err);
    return NOTHING_COMPRESSED;
  }
  return compressAfterFlush(state, ctx, messages, { closingMessage: undefined, appendEntry, heldKeys: new Set, signal });
}
function keptPrompts(state, messages, nothingArchivable, compressedNow) {
  const { chains, eligible } = selectChains(state, messages, messages, 0);
  const compressed = new Set(state.indexer.getChainEntries().map((entry) => entry.startUserTimestamp));
  const justNow = new Set(compressedNow.map((entry) => entry.startUserTimestamp));
  const open = new Set(eligible.map((chain) => chain.startUserTimestamp));
  const kept = { alreadyCompressed: 0, underWay: 0, noToolCalls: 0, readBack: 0, nothingArchivable };
  for (const chain of chains) {
    if (justNow.has(chain.startUserTimestamp))
      continue;
    if (compressed.has(chain.startUserTimestamp))
      kept.alreadyCompressed++;
    else if (chain.finalAssistantTimestamp === null)
      kept.underWay++;
    else if (chain.middleToolCallIds.length === 0)
      kept.noToolCalls++;
    else if (!open.has(chain.startUserTimestamp))
      kept.readBack++;
  }
  return kept;
}
async function compactChains(state, ctx) {
  const messages = projectBranchMessages(ctx.sessionManager.getBranch());
  const appendEntry = (customType, data) => state.pi.appendEntry(customType, data);
  const indexed = state.indexer.getIndex().size;
  const before = state.status.measure(ctx);
  const result = await compress(state, ctx, { messages, graceSource: messages, rollingWindow: 0, appendEntry });
  let after = before;
  if (result.compressedEntries.length > 0) {
    recordCompressions(state, result.compressedEntries);
    after = measureQuietly(state, ctx);
  }
  const nothingArchivable = result.skipped.filter((s) => s.reason === "no-summary").length;
  const tokensFewer = before !== undefined && after !== undefined ? estimateTokens(before) - estimateTokens(after) : undefined;
  return {
    compressedEntries: result.compressedEntries,
    prompts: result.prompts,
    kept: keptPrompts(state, messages, nothingArchivable, result.compressedEntries),
    archived: state.indexer.getIndex().size - indexed,
    ...tokensFewer !== undefined ? { tokensFewer } : {}
  };
}
function measureQuietly(state, ctx) {
  try {
    const size = state.status.measure(ctx);
    state.status.refresh(ctx);
    return size;
  } catch (err) {
    if (!isStaleContextError(err))
      console.error("pi-condense: status refresh after a chain compression failed", err);
    return;
  }
}

// src/commands/commands.ts
import { Text } from "@earendil-works/pi-tui";

// src/commands/command-help.ts
var NAME_WIDTH = 16;
function item(value, description) {
  return { value, label: `${value.padEnd(NAME_WIDTH)} — ${description}` };
}
var SUBCOMMANDS = [
  item("settings", "open the settings overlay"),
  item("on", "turn pruning on"),
  item("off", "turn pruning off"),
  item("status", "the settings, the summarizer's use, the context now"),
  item("model", "show or set the summarizer model"),
  item("thinking", "show or set the summarizer's thinking level"),
  item("prune-on", "choose when tool outputs are summarized"),
  item("batching", "one summary per tool turn, or per reply"),
  item("stats", "the summarizer's token use and cost"),
  item("report", "replay a session: tokens and dollars, pruned or not"),
  item("tree", "browse the archived tool outputs"),
  item("now", "summarize the waiting tool outputs now"),
  item("compact", "compress every finished earlier prompt's work now"),
  item("protected-tools", "tools whose outputs are never summarized"),
  item("protected-paths", "file globs whose reads are never summarized"),
  item("min-batch-chars", "size under which outputs are left as they are"),
  item("recovery-grace", "how long a recovered output stays whole"),
  item("dedup", "point repeated outputs at their earlier copy"),
  item("help", "show this help")
];
function completeSubcommand(prefix) {
  if (SUBCOMMANDS.some((entry) => entry.value === prefix))
    return [];
  return SUBCOMMANDS.filter((entry) => entry.value.startsWith(prefix)).map((entry) => ({ ...entry }));
}
var USAGE = [
  ["/pruner settings", "Open the settings overlay"],
  ["/pruner on", "Turn pruning on"],
  ["/pruner off", "Turn pruning off"],
  ["/pruner status", "Show the settings, the summarizer's use so far and the context now"],
  ["/pruner model", "Show the summarizer model"],
  ["/pruner model <id>", "Set the summarizer model (e.g. anthropic/claude-haiku-4-5); pi must know it"],
  ["/pruner model <id>:<thinking>", "Set model and thinking level in one step (e.g. openai/gpt-5-mini:low)"],
  ["/pruner thinking", "Show the summarizer's thinking level"],
  ["/pruner thinking <level>", "Set it: default, off, minimal, low, medium, high, xhigh"],
  ["/pruner prune-on", "Pick when tool outputs are summarized"],
  ["/pruner prune-on on-demand", "Summarize only when you run /pruner now"],
  [
    "/pruner prune-on agent-message",
    "Summarize after the agent's final reply (default; keeps the provider's cache hitting)"
  ],
  ["/pruner batching", "Pick what one summary covers"],
  ["/pruner batching turn", "One summary per tool turn of the agent (default)"],
  ["/pruner batching agent-message", "One summary per reply: every tool turn from your message to the agent's answer"],
  ["/pruner stats", "The summarizer's calls, tokens and cost so far"],
  ["/pruner report", "Replay this session: tokens, cache reads and writes, dollars, with and without pruning"],
  ["/pruner report <file.jsonl>", "Replay any pi session file; key=value overrides the what-if's settings"],
  ["/pruner report --model <id>", "Price the replay at that catalog model (e.g. anthropic/claude-sonnet-4-5)"],
  ["/pruner tree", "Browse the summarized tool outputs; Ctrl-O opens the selected summary"],
  ["/pruner now", "Summarize the waiting tool outputs right away; each summarizer call shows live progress while it runs"],
  ["/pruner protected-tools", "Edit the tools whose outputs are never summarized"],
  ["/pruner protected-tools <names>", "Set that list directly (comma or space separated; none clears it, default restores it)"],
  ["/pruner protected-paths", "Edit the file globs whose reads are never summarized"],
  ["/pruner protected-paths <globs>", "Set those globs directly (comma or space separated; none clears them, default restores them)"],
  ["/pruner min-batch-chars", "Show the size under which a turn's outputs are left as they are"],
  ["/pruner min-batch-chars <n>", "Set that size in characters (0 summarizes everything)"],
  ["/pruner recovery-grace", "Show for how many of your prompts a recovered output stays whole"],
  ["/pruner recovery-grace <n>", "Set that number (0: a recovered output stays whole only until your next prompt)"],
  ["/pruner compact", "Compress the work of every finished earlier prompt now, also the most recent ones"],
  ["/pruner dedup", "Show whether repeated outputs point at their earlier copy"],
  ["/pruner dedup on|off", "Switch that on or off"],
  ["/pruner help", "Show this help"]
];
var SECTIONS = [
  [
    "Small outputs (min-batch-chars):",
    "When a tool turn's outputs add up to fewer characters than this (default 1000), summarizing would save " + "little: they stay as they are, with no summarizer call, and are not offered again. The Quiet skip " + "notifications setting (/pruner settings) leaves them out of the line a run ends with."
  ],
  [
    "Protected tools and paths:",
    "Outputs of protected tools (e.g. todowrite, todoread) and reads of protected files (skill files by default) " + "are never summarized; of a file read several times only the newest read stays whole. Names of tools that " + "do not exist are ignored."
  ],
  [
    "Repeated outputs (dedup):",
    "On by default. An output identical to one summarized earlier is not summarized again: it points at the " + "earlier copy's ref, and context_tree_query returns it."
  ],
  [
    "What a summary covers (batching):",
    "turn (default) makes one summary per tool turn of the agent; agent-message makes one per reply, from your " + "message to the agent's answer."
  ],
  [
    "When to summarize (prune-on):",
    "agent-message (default) summarizes after the agent's final reply; on-demand only when you run /pruner now."
  ],
  [
    "Why this matters:",
    "Every change to earlier context makes the provider re-read it at full price (a cache miss), so summaries " + "are made once per finished piece of work, not after every tool turn."
  ],
  ["Related:", "Anthropic prompt caching docs: https://docs.claude.com/en/docs/build-with-claude/prompt-caching"]
];
var SETTINGS_LOCATION = "Settings are stored under the contextPrune key of <agent-dir>/settings.json, where <agent-dir> is " + "$PI_CODING_AGENT_DIR when set, otherwise ~/.pi/agent.";
function helpText() {
  const lines = ["pruner — summarizes tool outputs the agent already used, and keeps every original recoverable.", "", "Usage:"];
  for (const [command, description] of USAGE)
    lines.push(`  ${command.padEnd(41)}${description}`);
  for (const [heading, body] of SECTIONS)
    lines.push("", heading, `  ${body}`);
  lines.push("", SETTINGS_LOCATION);
  return lines.join(`
`);
}

// src/commands/commands.ts
function onDemand(load, pick) {
  return async (deps, ctx, args) => pick(await load())(deps, ctx, args);
}
var actions = () => import("./chunks/command-actions-w09p26jc.js");
var reports = () => import("./chunks/command-report-2pn4kfar.js");
var HANDLERS = new Map([
  ["settings", settingsCommand],
  ["on", setEnabled(true)],
  ["off", setEnabled(false)],
  ["status", onDemand(reports, (m) => m.statusCommand)],
  ["model", modelCommand],
  ["thinking", thinkingCommand],
  ["prune-on", pruneOnCommand],
  ["batching", batchingCommand],
  ["stats", onDemand(reports, (m) => m.statsCommand)],
  ["report", onDemand(() => import("./chunks/command-replay-5m2zk6s9.js"), (m) => m.reportCommand)],
  ["tree", onDemand(actions, (m) => m.treeCommand)],
  ["now", onDemand(actions, (m) => m.nowCommand)],
  ["compact", onDemand(actions, (m) => m.compactCommand)],
  ["protected-tools", protectedToolsCommand],
  ["protected-paths", protectedPathsCommand],
  ["min-batch-chars", minBatchCharsCommand],
  ["recovery-grace", recoveryGraceCommand],
  ["dedup", dedupCommand],
  ["help", async (deps, ctx) => showReport(deps.pi, ctx, helpText())]
]);
function firstToken(text) {
  return text.trim().split(/\s+/)[0] || undefined;
}
var MAX_ARGS = new Map([
  ...["settings", "on", "off", "status", "stats", "tree", "now", "compact", "help"].map((name) => [name, 0]),
  ...["thinking", "prune-on", "batching", "min-batch-chars", "recovery-grace", "dedup"].map((name) => [name, 1])
]);
function extraWordsNotice(subcommand, args) {
  const max = MAX_ARGS.get(subcommand);
  if (max === undefined || args.length <= max)
    return;
  const takes = max === 0 ? "takes no arguments" : "takes one argument";
  const extra = args.slice(max).join(" ");
  return `pruner: /pruner ${subcommand} ${takes}, so nothing was done ("${extra}" is more than it reads). Run /pruner help for usage.`;
}
async function runPruner(deps, args, ctx) {
  const parts = (args ?? "").trim().split(/\s+/);
  let subcommand = parts[0]?.toLowerCase() || undefined;
  let subArgs = subcommand === "report" ? reportWords((args ?? "").trim().slice(parts[0].length)) : parts.slice(1);
  if (!subcommand) {
    const choice = await ctx.ui.select("pruner — choose a subcommand", SUBCOMMANDS.map((entry) => entry.label));
    if (choice === undefined)
      return;
    subcommand = firstToken(choice);
    subArgs = [];
    if (!subcommand)
      return;
  }
  const handler = HANDLERS.get(subcommand);
  if (!handler) {
    safeNotify2(ctx, `Unknown subcommand: "${parts[0] || subcommand}". Run /pruner help for usage.`);
    return;
  }
  const extra = extraWordsNotice(subcommand, subArgs);
  if (extra) {
    safeNotify2(ctx, extra, "warning");
    return;
  }
  await handler(deps, ctx, subArgs);
}
function settingsFileName() {
  try {
    return settingsPath();
  } catch {
    return "settings.json";
  }
}
function persist(ctx, config) {
  const file = settingsFileName();
  saveConfig(config).catch((err) => {
    const failure = err instanceof SettingsSaveError ? err : undefined;
    const reason = (failure?.reason ?? errorMessage(err)).replace(/[.\s]+$/, "");
    safeNotify2(ctx, `pruner: could not save settings to ${failure?.path ?? file}: ${reason}. The change applies to this session only.`, "error");
  });
}
function contentText(content) {
  if (typeof content === "string")
    return content;
  if (!Array.isArray(content))
    return "";
  return content.filter((part) => part?.type === "text" && typeof part.text === "string").map((part) => part.text).join(`
`);
}
function renderSummaryMessage(message, options, theme) {
  const count = normalizeSummaryToolCallRefs(message.details).length;
  const header = theme.fg("accent", `[pruner] summary of ${count} tool output${count === 1 ? "" : "s"}`);
  return new Text(options.expanded ? `${header}
${contentText(message.content)}` : header, 0, 0);
}
function registerCommands(pi, currentConfig, flushPending, capturePendingBatches, getStats, getLiveReclaim, indexer, compactChains, getDiagnosticCounts, getContextMetrics, _getCachedMetrics, getRearmed, getPolicyView, getFallback, extras = {}) {
  const deps = {
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
    persist
  };
  pi.registerCommand("pruner", {
    description: "Context-prune settings and commands",
    getArgumentCompletions: (prefix) => completeSubcommand(prefix ?? ""),
    handler: async (args, ctx) => {
      try {
        await runPruner(deps, args, ctx);
      } catch (err) {
        safeNotify2(ctx, `pruner: command failed: ${errorMessage(err)}`, "error");
      }
    }
  });
  pi.registerMessageRenderer(CUSTOM_TYPE_SUMMARY, (message, options, theme) => {
    try {
      return renderSummaryMessage(message, options, theme);
    } catch (err) {
      console.error("pi-condense: rendering a summary message failed", err);
      return;
    }
  });
}

// src/archive/write-faults.ts
var FILE_SYSTEM_REFUSALS = new Set(["ENOSPC", "EDQUOT", "EACCES", "EPERM", "EROFS", "EIO"]);
function codeOf(error) {
  const code = error?.code;
  return typeof code === "string" ? code : undefined;
}
function messageOf(error) {
  return error instanceof Error ? error.message : String(error);
}
function isFileSystemRefusal(error) {
  const code = codeOf(error);
  return code !== undefined && FILE_SYSTEM_REFUSALS.has(code);
}

class WriteFaults {
  told = new Set;
  report(error, notify) {
    const kind = codeOf(error) ?? "other";
    if (this.told.has(kind))
      return;
    this.told.add(kind);
    notify(`pruner: could not write to the archive (${messageOf(error)}); outputs it could not archive stay in context in full`);
  }
  reset() {
    this.told.clear();
  }
}

// src/capture/frontier.ts
class PruneFrontierTracker {
  current = null;
  attemptedAhead = new Set;
  reset() {
    this.current = null;
    this.attemptedAhead.clear();
  }
  noteAttemptedAhead(keys) {
    for (const key of keys)
      this.attemptedAhead.add(key);
  }
  wasAttemptedAhead(key) {
    return this.attemptedAhead.has(key);
  }
  get() {
    return this.current ? { ...this.current } : null;
  }
  fromJSON(data) {
    const parsed = parseFrontierEntry(data);
    if (parsed.ok)
      this.current = parsed.value;
  }
  reconstructFromSession(ctx) {
    this.reset();
    for (const value of ctx.sessionManager.getBranch()) {
      const entry = looseEntry(value);
      if (entry?.type !== "custom" || entry.customType !== CUSTOM_TYPE_FRONTIER || !entry.data)
        continue;
      const parsed = parseFrontierEntry(entry.data);
      if (parsed.ok)
        this.current = parsed.value;
      else
        console.error(corruptEntryMessage(CUSTOM_TYPE_FRONTIER, parsed.reason));
    }
  }
  advance(frontier) {
    this.current = { ...frontier };
  }
  persist(pi) {
    if (this.current)
      pi.appendEntry(CUSTOM_TYPE_FRONTIER, this.current);
  }
}

// src/economics/cache-tracker.ts
var RECENT = 5;
var ABSURD_TOKENS = 1e8;
function plausible(value) {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 && value < ABSURD_TOKENS;
}
function requestUsageOf(usage, at) {
  const u = usage;
  if (typeof at !== "number" || !Number.isFinite(at))
    return;
  if (!plausible(u?.input) || !plausible(u?.cacheRead) || !plausible(u?.cacheWrite))
    return;
  return { at, input: u.input, cacheRead: u.cacheRead, cacheWrite: u.cacheWrite };
}
function hitRate(requests) {
  let read = 0;
  let total = 0;
  for (const r of requests) {
    read += r.cacheRead;
    total += r.input + r.cacheRead + r.cacheWrite;
  }
  return total > 0 ? read / total : undefined;
}

class CacheTracker {
  recent = [];
  count = 0;
  cacheReported = false;
  evicted = false;
  record(usage) {
    this.evicted = false;
    this.count++;
    if (usage.cacheRead > 0 || usage.cacheWrite > 0)
      this.cacheReported = true;
    this.recent.push(usage);
    if (this.recent.length > RECENT)
      this.recent.shift();
  }
  invalidate() {
    if (this.recent.length > 0)
      this.evicted = true;
  }
  touch(at) {
    const last = this.recent[this.recent.length - 1];
    if (last && Number.isFinite(at) && at > last.at)
      this.recent[this.recent.length - 1] = { ...last, at };
  }
  reset() {
    this.recent = [];
    this.count = 0;
    this.cacheReported = false;
    this.evicted = false;
  }
  get requests() {
    return this.count;
  }
  get reportsCacheUse() {
    return this.cacheReported;
  }
  get lastInputTokens() {
    const last = this.recent[this.recent.length - 1];
    return last ? last.input + last.cacheRead + last.cacheWrite : undefined;
  }
  get growthTokens() {
    let grown = 0;
    let count = 0;
    for (let i = 1;i < this.recent.length; i++) {
      const before = this.recent[i - 1];
      const after = this.recent[i];
      const growth = after.input + after.cacheRead + after.cacheWrite - (before.input + before.cacheRead + before.cacheWrite);
      if (growth > 0) {
        grown += growth;
        count++;
      }
    }
    return count === 0 ? 0 : grown / count;
  }
  state(now, ttlMs) {
    const last = this.recent[this.recent.length - 1];
    const base = { requests: this.count, lastRequestAt: last?.at, lastHitRate: last ? hitRate([last]) : undefined, recentHitRate: hitRate(this.recent) };
    if (!last)
      return { ...base, temperature: "cold" };
    if (this.evicted)
      return { ...base, temperature: "cold", reason: "the model, thinking level or context changed since the last request" };
    if (!this.cacheReported)
      return { ...base, temperature: "unknown", reason: "the provider reports no cache use" };
    if (now < last.at)
      return { ...base, temperature: "unknown", reason: "the clock went backwards" };
    const left = last.at + ttlMs - now;
    return left > 0 ? { ...base, temperature: "warm", expiresInMs: left } : { ...base, temperature: "cold" };
  }
}

// src/ui/status-refresh.ts
function refreshStatus(state, ctx) {
  const counts = { ...state.diagnostics.counts(), [ARCHIVE_MISS]: state.diagnostics.archiveMisses?.() ?? 0 };
  setPruneStatusWidget(ctx, state.config.value, offStatusText(state.config) ?? state.stats.getLiveReclaim(), counts);
}
function showStatusText(state, ctx, text) {
  setPruneStatusWidget(ctx, state.config.value, text);
}
function showPending(state, ctx) {
  const config = state.config.value;
  const waiting = state.pending.filter((batch) => !isTrivialBatch(batch, config.minBatchChars, argumentStubsOn(config))).length;
  const counts = { ...state.diagnostics.counts(), [ARCHIVE_MISS]: state.diagnostics.archiveMisses?.() ?? 0 };
  setPruneStatusWidget(ctx, config, state.stats.getLiveReclaim(), counts, undefined, waiting);
}

// src/host/context-metrics.ts
function assistantToolCalls(msg) {
  return isAssistant(msg) ? toolCallBlocks(msg) : [];
}

class BranchSizes {
  prefix;
  constructor(branch, sizeOf) {
    this.prefix = new Float64Array(branch.length + 1);
    for (let i = 0;i < branch.length; i++)
      this.prefix[i + 1] = this.prefix[i] + sizeOf(branch[i]);
  }
  of(i) {
    return this.prefix[i + 1] - this.prefix[i];
  }
  sum(from, to) {
    return to < from ? 0 : this.prefix[to + 1] - this.prefix[from];
  }
}
function openSegmentStart(branch) {
  for (let i = branch.length - 1;i >= 0; i--) {
    if (isTextOnlyAssistant(branch[i]))
      return i + 1;
  }
  return 0;
}
function openCycleThinkingChars(branch, openStart) {
  let chars = 0;
  for (let i = openStart;i < branch.length; i++) {
    const msg = branch[i];
    if (!isAssistant(msg) || !Array.isArray(msg.content))
      continue;
    for (const block of msg.content) {
      if (block?.type === "thinking")
        chars += charsOf(block);
    }
  }
  return chars;
}

class ChainLocator {
  branch;
  anchorAt = new Map;
  assistantsAt = new Map;
  nextUser;
  constructor(branch) {
    this.branch = branch;
    this.nextUser = new Int32Array(branch.length);
    let next = -1;
    for (let i = branch.length - 1;i >= 0; i--) {
      this.nextUser[i] = next;
      if (isUser(branch[i]))
        next = i;
    }
    for (let i = 0;i < branch.length; i++) {
      const value = branch[i];
      if (isUser(value) || isChainAnchorCustom(value)) {
        const time = loose(value).timestamp;
        if (!this.anchorAt.has(time))
          this.anchorAt.set(time, i);
      }
      if (isAssistant(value)) {
        const seen = this.assistantsAt.get(value.timestamp);
        if (seen === undefined)
          this.assistantsAt.set(value.timestamp, i);
        else if (typeof seen === "number")
          this.assistantsAt.set(value.timestamp, [seen, i]);
        else
          seen.push(i);
      }
    }
  }
  span(chain) {
    const startIdx = this.anchorAt.get(chain.startUserTimestamp);
    if (startIdx === undefined)
      return null;
    let endIdx;
    if (chain.finalAssistantTimestamp === null) {
      const nextUser = this.nextUser[startIdx];
      endIdx = nextUser < 0 ? this.branch.length - 1 : nextUser - 1;
    } else {
      const found = firstAtOrAfter(this.assistantsAt.get(chain.finalAssistantTimestamp), startIdx);
      if (found < 0)
        return null;
      endIdx = found;
    }
    return endIdx < startIdx ? null : [startIdx, endIdx];
  }
}
function firstAtOrAfter(recorded, min) {
  if (recorded === undefined)
    return -1;
  if (typeof recorded === "number")
    return recorded >= min ? recorded : -1;
  const ascending = recorded;
  let lo = 0;
  let hi = ascending.length;
  while (lo < hi) {
    const mid = lo + hi >>> 1;
    if (ascending[mid] < min)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < ascending.length ? ascending[lo] : -1;
}
function largestChainChars(branch, sizes, isProtected) {
  const locator = new ChainLocator(branch);
  let largest = 0;
  for (const chain of detectChains(branch, isProtected)) {
    const span = locator.span(chain);
    if (span)
      largest = Math.max(largest, sizes.sum(span[0], span[1]));
  }
  return largest;
}
function locateFrontier(branch, frontier) {
  if (!frontier)
    return null;
  let turn = 0;
  for (let i = 0;i < branch.length; i++) {
    if (!isAssistant(branch[i]))
      continue;
    if (turn++ !== frontier.lastAttemptedTurnIndex)
      continue;
    const ids = assistantToolCalls(branch[i]).map((block) => block.id);
    const k = ids.indexOf(frontier.lastAttemptedToolCallId);
    if (k < 0)
      return null;
    const next = branch.findIndex((m, j) => j > i && isAssistant(m));
    return { index: i, turnEnd: next < 0 ? branch.length : next, excludedIds: new Set(ids.slice(0, k + 1)) };
  }
  return null;
}
function noteCallArgs(msg, callArgs) {
  const calls = assistantToolCalls(msg);
  for (let j = calls.length - 1;j >= 0; j--) {
    const call = calls[j];
    callArgs.set(call.id, call.input ?? call.arguments);
  }
}
function callArgsFor(callArgs, toolCallId) {
  return toolCallId === toolCallId ? callArgs.get(toolCallId) : undefined;
}
function frontierGapTokens(branch, sizes, frontier, isSummarized, isProtected) {
  const boundary = locateFrontier(branch, frontier);
  const start = boundary ? boundary.index + 1 : 0;
  const callArgs = new Map;
  let gap = 0;
  for (let i = 0;i < branch.length; i++) {
    const msg = branch[i];
    if (isAssistant(msg))
      noteCallArgs(msg, callArgs);
    if (i < start || !isToolResult(msg) || typeof msg.toolCallId !== "string")
      continue;
    if (boundary && i < boundary.turnEnd && boundary.excludedIds.has(msg.toolCallId))
      continue;
    if (isSummarized(occKey(msg.toolCallId, resultTimestampOf(msg.timestamp))))
      continue;
    if (isRecoveryTool(msg.toolName) || isProtected(msg.toolName, callArgsFor(callArgs, msg.toolCallId)))
      continue;
    gap += estimateTokens(sizes.of(i));
  }
  return gap;
}
function computeContextMetrics(branch, frontier, isSummarized, isProtected, sizeOf = charsOf) {
  const sizes = new BranchSizes(branch, sizeOf);
  const totalChars = sizes.sum(0, branch.length - 1);
  const openStart = openSegmentStart(branch);
  const openChars = sizes.sum(openStart, branch.length - 1);
  const numerator = Math.max(largestChainChars(branch, sizes, isProtected), openChars);
  return {
    openCycleThinkingTokens: estimateTokens(openCycleThinkingChars(branch, openStart)),
    largestChainSharePct: totalChars === 0 ? 0 : Math.round(100 * numerator / totalChars),
    frontierGapTokens: frontierGapTokens(branch, sizes, frontier, isSummarized, isProtected)
  };
}

// src/host/metrics-snapshot.ts
function computeMetricsSnapshot(state, ctx) {
  try {
    return computeContextMetrics(projectBranchMessages(ctx.sessionManager.getBranch()), state.frontier.get(), (key) => state.indexer.isSummarized(key), protectionPredicate(state), requestChars);
  } catch (err) {
    if (!isStaleContextError(err))
      console.error("pi-condense: context metrics computation failed", err);
    return;
  }
}

// src/host/request-render.ts
import { buildSessionContext } from "@earendil-works/pi-coding-agent";
function renderRequest(state, messages, branch, quiet = false, closing) {
  const config = state.config.value;
  const supersede = quiet ? { floor: state.supersede.floor, activated: new Set(state.supersede.activated) } : state.supersede;
  const miss = quiet ? undefined : (key, detail) => state.diagnostics.reportArchiveMiss(key, detail);
  return pruneMessages(messages, state.indexer, config.chainCompression, config.purgeErrors, config, config.recoveryGraceTurns, quiet ? undefined : state.diagnostics, { state: supersede, isProtected: protectionPredicate(state) }, state.indexer.archiveCheck(miss), argumentStubsOn(config), argumentHorizon(branch), sightOptions(config, archiveWrites(closing === undefined ? branch : [...branch, { type: "message", message: closing }])));
}
function nextRequestMessages(branch, closingMessage) {
  const messages = branchMessages(branch);
  return closingMessage && !isOnBranch(messages, closingMessage) ? [...messages, closingMessage] : messages;
}
function branchMessages(branch) {
  const leaf = looseEntry(branch[branch.length - 1]);
  if (typeof leaf?.id === "string") {
    try {
      return buildSessionContext(branch, leaf.id).messages;
    } catch {}
  }
  return projectBranchMessages(branch);
}
function measureNextRequest(state, ctx, closingMessage) {
  let result;
  try {
    const branch = ctx.sessionManager.getBranch();
    result = renderRequest(state, nextRequestMessages(branch, closingMessage), branch, true, closingMessage);
  } catch (err) {
    console.error("pi-condense: measuring the next request failed", err);
    return;
  }
  const shown = requestSizesOf(result);
  if (shown)
    state.stats.setLiveReclaim(shown.beforeChars, shown.afterChars);
  return shown ? shown.afterChars : requestSize(result.messages);
}
function requestSize(messages) {
  let chars = 0;
  for (const message of messages)
    chars += requestChars(message);
  return jsonArrayLength(chars, messages.length);
}
function measureBothWays(state, ctx) {
  try {
    const branch = ctx.sessionManager.getBranch();
    const messages = nextRequestMessages(branch, undefined);
    const result = renderRequest(state, messages, branch, true);
    const sizes = requestSizesOf(result);
    if (!result.pruned || !sizes)
      return;
    let first = 0;
    while (first < messages.length && result.messages[first] === messages[first])
      first++;
    return { rawChars: sizes.beforeChars, prunedChars: sizes.afterChars, sharedChars: requestSize(messages.slice(0, first)) };
  } catch (err) {
    console.error("pi-condense: measuring the next request both ways failed", err);
    return;
  }
}
var MAX_RESPONSES = 3;
function recordedTokens(value) {
  const entry = looseEntry(value);
  const message = entry?.type === "message" ? entry.message : undefined;
  if (!isAssistant(message))
    return;
  const usage = requestUsageOf(message.usage, 0);
  const total = usage ? usage.input + usage.cacheRead + usage.cacheWrite : 0;
  return total > 0 ? total : undefined;
}
function answeredRequest(state, branch, at) {
  const before = branch.slice(0, at);
  const indexer = new ToolCallIndexer(() => {});
  indexer.extendFromEntries(before, before);
  if (indexer.getIndex().size === 0 && indexer.getChainEntries().length === 0)
    return { archived: false };
  const result = renderRequest({ ...state, indexer }, branchMessages(before), before, true);
  return { archived: true, chars: requestSizesOf(result)?.afterChars };
}
function calibrateFromBranch(state, ctx) {
  try {
    const branch = ctx.sessionManager.getBranch();
    let tried = 0;
    for (let at = branch.length - 1;at >= 0 && tried < MAX_RESPONSES; at--) {
      const recorded = recordedTokens(branch[at]);
      if (recorded === undefined)
        continue;
      tried++;
      const sent = answeredRequest(state, branch, at);
      if (!sent.archived)
        return;
      if (sent.chars === undefined)
        continue;
      state.stats.noteSentRequest(sent.chars);
      state.stats.calibrate(recorded);
      return;
    }
  } catch (err) {
    console.error("pi-condense: anchoring the token estimate on the last response failed; it counts the system prompt until the next response", err);
  }
}

// src/host/safe-points.ts
class SafePoints {
  waiting = [];
  leaving = false;
  holders = 0;
  async wait(ctx) {
    if (this.leaving || this.holders > 0 || isIdle(ctx))
      return;
    await new Promise((resolve) => this.waiting.push(resolve));
  }
  leave() {
    this.leaving = true;
    this.reached();
  }
  reached() {
    const waiting = this.waiting;
    this.waiting = [];
    for (const resolve of waiting)
      resolve();
  }
  async holdOpen(until) {
    this.holders++;
    this.reached();
    try {
      await until;
    } finally {
      this.holders--;
    }
  }
}
function isIdle(ctx) {
  try {
    return ctx.isIdle?.() !== false;
  } catch {
    return true;
  }
}

// src/host/cache-breakpoint.ts
import { createHash } from "node:crypto";

// src/economics/payload-scan.ts
var isObject = (value) => typeof value === "object" && value !== null && !Array.isArray(value);

class MarkerTally {
  count = 0;
  markedThinking = false;
  values = new Set;
  first;
  note(value, onThinking) {
    this.count++;
    if (onThinking)
      this.markedThinking = true;
    if (this.values.size === 0)
      this.first = value;
    this.values.add(JSON.stringify(value));
  }
  get value() {
    return this.values.size === 1 ? this.first : undefined;
  }
}
function replacedAt(list, index, item) {
  return list.map((current, i) => i === index ? item : current);
}
function normalizedToolUseId(id) {
  return id.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64);
}

// src/economics/anthropic-payload.ts
var MARKABLE_TYPES = new Set(["text", "image", "document", "search_result", "tool_use", "tool_result", "tool_addition", "tool_removal"]);
var THINKING_TYPES = new Set(["thinking", "redacted_thinking"]);
var hasMarker = (block) => block.cache_control !== undefined && block.cache_control !== null;
function noteMarker(tally, block) {
  if (!hasMarker(block))
    return false;
  tally.note(block.cache_control, THINKING_TYPES.has(block.type));
  return true;
}
function noteNested(tally, block) {
  let any = false;
  if (Array.isArray(block.content)) {
    for (const inner of block.content)
      if (isObject(inner) && noteMarker(tally, inner))
        any = true;
  }
  return any;
}
function scanAnthropicPayload(payload, digest) {
  if (!isObject(payload) || !Array.isArray(payload.messages))
    return;
  const tally = new MarkerTally;
  noteMarker(tally, payload);
  const blocks = [];
  const push = (prefix, value, place, marked, eligible) => {
    const { cache_control: _marker, ...rest } = value;
    const json = JSON.stringify(rest);
    const toolUseId = value.type === "tool_result" && typeof value.tool_use_id === "string" ? value.tool_use_id : undefined;
    blocks.push({ key: `${prefix}:${digest(json)}`, tokens: json.length / 4, marked, eligible, place, ...toolUseId !== undefined ? { toolUseId } : {} });
  };
  const addText = (prefix, text, place) => push(prefix, { type: "text", text }, place, false, false);
  const add = (prefix, block, place, markable) => {
    if (!isObject(block))
      return false;
    const own = noteMarker(tally, block);
    const marked = noteNested(tally, block) || own;
    push(prefix, block, place, marked, !marked && markable(block));
    return true;
  };
  const { tools, system, messages } = payload;
  if (tools !== undefined) {
    if (!Array.isArray(tools))
      return;
    for (const [index, tool] of tools.entries()) {
      if (!add("tool", tool, { section: "tools", index }, (t) => t.defer_loading !== true))
        return;
    }
  }
  if (typeof system === "string") {
    addText("system", system, { section: "system", index: undefined });
  } else if (Array.isArray(system)) {
    for (const [index, block] of system.entries()) {
      if (!add("system", block, { section: "system", index }, (b) => b.type === "text"))
        return;
    }
  } else if (system !== undefined)
    return;
  for (const [message, entry] of messages.entries()) {
    if (!isObject(entry) || typeof entry.role !== "string")
      return;
    const prefix = `${message}:${entry.role}`;
    const { content } = entry;
    if (typeof content === "string") {
      addText(prefix, content, { section: "messages", message, index: undefined });
      continue;
    }
    if (!Array.isArray(content))
      return;
    for (const [index, block] of content.entries()) {
      if (!add(prefix, block, { section: "messages", message, index }, (b) => MARKABLE_TYPES.has(b.type)))
        return;
    }
  }
  return { blocks, markers: tally.count, cacheControl: tally.value, markedThinking: tally.markedThinking };
}
function withMarker(payload, place, cacheControl) {
  const body = payload;
  const mark = (block) => isObject(block) ? { ...block, cache_control: cacheControl } : block;
  const replaced = (list, index) => {
    if (!Array.isArray(list) || index === undefined || !isObject(list[index]))
      return;
    return replacedAt(list, index, mark(list[index]));
  };
  if (place.section === "tools") {
    const tools = replaced(body.tools, place.index);
    return tools ? { ...body, tools } : payload;
  }
  if (place.section === "system") {
    const system = replaced(body.system, place.index);
    return system ? { ...body, system } : payload;
  }
  const messages = body.messages;
  const message = Array.isArray(messages) ? messages[place.message] : undefined;
  const content = isObject(message) ? replaced(message.content, place.index) : undefined;
  if (!content)
    return payload;
  return { ...body, messages: replacedAt(messages, place.message, { ...message, content }) };
}
var anthropicCodec = {
  modelOf: (payload) => isObject(payload) && typeof payload.model === "string" ? payload.model : undefined,
  scan: scanAnthropicPayload,
  withMarker,
  toolUseId: normalizedToolUseId
};

// src/economics/bedrock-payload.ts
var TOOL_KINDS = new Set(["toolSpec"]);
var SYSTEM_KINDS = new Set(["text"]);
var MESSAGE_KINDS = new Set(["text", "image", "document", "video", "toolUse", "toolResult"]);
var REASONING = "reasoningContent";
var isCachePoint = (block) => block.cachePoint !== undefined && block.cachePoint !== null;
function scanBedrockPayload(payload, digest) {
  if (!isObject(payload) || !Array.isArray(payload.messages))
    return;
  const tally = new MarkerTally;
  const blocks = [];
  let lastIsReasoning = false;
  const read = (list, prefix, placeOf, kinds) => {
    if (!Array.isArray(list))
      return false;
    for (const [index, block] of list.entries()) {
      if (!isObject(block))
        return false;
      if (isCachePoint(block)) {
        tally.note(block.cachePoint, lastIsReasoning);
        const last = blocks.at(-1);
        if (last)
          blocks[blocks.length - 1] = { ...last, marked: true, eligible: false };
        continue;
      }
      const json = JSON.stringify(block);
      const result = isObject(block.toolResult) && typeof block.toolResult.toolUseId === "string" ? block.toolResult.toolUseId : undefined;
      const eligible = Object.keys(block).length === 1 && kinds.has(Object.keys(block)[0]);
      blocks.push({ key: `${prefix}:${digest(json)}`, tokens: json.length / 4, marked: false, eligible, place: placeOf(index), ...result !== undefined ? { toolUseId: result } : {} });
      lastIsReasoning = block[REASONING] !== undefined;
    }
    return true;
  };
  const { toolConfig, system, messages } = payload;
  if (toolConfig !== undefined && toolConfig !== null) {
    if (!isObject(toolConfig))
      return;
    if (toolConfig.tools !== undefined && !read(toolConfig.tools, "tool", (index) => ({ section: "tools", index }), TOOL_KINDS))
      return;
  }
  if (system !== undefined && !read(system, "system", (index) => ({ section: "system", index }), SYSTEM_KINDS))
    return;
  for (const [message, entry] of messages.entries()) {
    if (!isObject(entry) || typeof entry.role !== "string")
      return;
    if (!read(entry.content, `${message}:${entry.role}`, (index) => ({ section: "messages", message, index }), MESSAGE_KINDS))
      return;
  }
  return { blocks, markers: tally.count, cacheControl: tally.value, markedThinking: tally.markedThinking };
}
function withCachePoint(payload, place, cachePoint) {
  const body = payload;
  const inserted = (list, index) => {
    if (!Array.isArray(list) || index === undefined || !isObject(list[index]))
      return;
    return [...list.slice(0, index + 1), { cachePoint }, ...list.slice(index + 1)];
  };
  if (place.section === "tools") {
    const toolConfig = body.toolConfig;
    const tools = isObject(toolConfig) ? inserted(toolConfig.tools, place.index) : undefined;
    return tools ? { ...body, toolConfig: { ...toolConfig, tools } } : payload;
  }
  if (place.section === "system") {
    const system = inserted(body.system, place.index);
    return system ? { ...body, system } : payload;
  }
  const messages = body.messages;
  const message = Array.isArray(messages) ? messages[place.message] : undefined;
  const content = isObject(message) ? inserted(message.content, place.index) : undefined;
  if (!content)
    return payload;
  return { ...body, messages: replacedAt(messages, place.message, { ...message, content }) };
}
var bedrockCodec = {
  modelOf: (payload) => isObject(payload) && typeof payload.modelId === "string" ? payload.modelId : undefined,
  scan: scanBedrockPayload,
  withMarker: withCachePoint,
  toolUseId: normalizedToolUseId
};

// src/economics/openai-payload.ts
var MARKED_ROLES = new Set(["system", "developer", "user", "assistant", "tool"]);
var markerOf = (value) => value.cache_control !== undefined && value.cache_control !== null ? value.cache_control : undefined;
function scanOpenAiPayload(payload, digest) {
  if (!isObject(payload) || !Array.isArray(payload.messages))
    return;
  const tally = new MarkerTally;
  const blocks = [];
  const push = (prefix, value, place, eligible, toolUseId) => {
    const marker = isObject(value) ? markerOf(value) : undefined;
    if (marker !== undefined)
      tally.note(marker, false);
    const { cache_control: _marker, ...rest } = isObject(value) ? value : { value };
    const json = JSON.stringify(rest);
    blocks.push({ key: `${prefix}:${digest(json)}`, tokens: json.length / 4, marked: marker !== undefined, eligible: eligible && marker === undefined, place, ...toolUseId !== undefined ? { toolUseId } : {} });
  };
  const { tools, messages } = payload;
  if (tools !== undefined) {
    if (!Array.isArray(tools))
      return;
    for (const [index, tool] of tools.entries()) {
      if (!isObject(tool))
        return;
      push("tool", tool, { section: "tools", index }, true);
    }
  }
  for (const [message, entry] of messages.entries()) {
    if (!isObject(entry) || typeof entry.role !== "string")
      return;
    const prefix = `${message}:${entry.role}`;
    const markable = MARKED_ROLES.has(entry.role);
    const toolUseId = entry.role === "tool" && typeof entry.tool_call_id === "string" ? entry.tool_call_id : undefined;
    if (markerOf(entry) !== undefined)
      tally.note(markerOf(entry), false);
    const reasoning = Array.isArray(entry.reasoning_details) ? entry.reasoning_details : [];
    for (const [index, detail] of reasoning.entries())
      push(`${prefix}:reasoning:${index}`, detail, { section: "messages", message, index: undefined }, false);
    const { content } = entry;
    if (typeof content === "string") {
      if (content.length > 0)
        push(prefix, { type: "text", text: content }, { section: "messages", message, index: undefined }, markable, toolUseId);
    } else if (Array.isArray(content)) {
      for (const [index, part] of content.entries()) {
        if (!isObject(part))
          return;
        const text = part.type === "text" && typeof part.text === "string" && part.text.length > 0;
        push(prefix, part, { section: "messages", message, index }, markable && text, toolUseId);
      }
    } else if (content !== null && content !== undefined)
      return;
    const calls = Array.isArray(entry.tool_calls) ? entry.tool_calls : [];
    for (const [index, call] of calls.entries())
      push(`${prefix}:call:${index}`, call, { section: "messages", message, index: undefined }, false);
  }
  return { blocks, markers: tally.count, cacheControl: tally.value, markedThinking: false };
}
function withCacheControl(payload, place, cacheControl) {
  const body = payload;
  if (place.section === "tools") {
    const tools = body.tools;
    if (!Array.isArray(tools) || !isObject(tools[place.index]))
      return payload;
    return { ...body, tools: replacedAt(tools, place.index, { ...tools[place.index], cache_control: cacheControl }) };
  }
  if (place.section !== "messages")
    return payload;
  const messages = body.messages;
  const message = Array.isArray(messages) ? messages[place.message] : undefined;
  if (!isObject(message))
    return payload;
  const { content } = message;
  let marked;
  if (place.index === undefined && typeof content === "string" && content.length > 0)
    marked = [{ type: "text", text: content, cache_control: cacheControl }];
  else if (place.index !== undefined && Array.isArray(content) && isObject(content[place.index]) && content[place.index].type === "text") {
    marked = replacedAt(content, place.index, { ...content[place.index], cache_control: cacheControl });
  }
  if (!marked)
    return payload;
  return { ...body, messages: replacedAt(messages, place.message, { ...message, content: marked }) };
}
var openAiCodec = {
  modelOf: (payload) => isObject(payload) && typeof payload.model === "string" ? payload.model : undefined,
  scan: scanOpenAiPayload,
  withMarker: withCacheControl,
  toolUseId: (id) => id
};

// src/host/cache-breakpoint.ts
var CODECS = { anthropic: anthropicCodec, bedrock: bedrockCodec, openai: openAiCodec };
var MAX_REMEMBERED = 8;
var sha1 = (text) => createHash("sha1").update(text).digest("base64");

class SpareBreakpoint {
  now;
  remembered = new Map;
  constructor(now = Date.now) {
    this.now = now;
  }
  forget() {
    this.remembered.clear();
  }
  place(payload, facts) {
    let modelId;
    let scan;
    try {
      modelId = facts.codec.modelOf(payload);
      scan = modelId === undefined ? undefined : facts.codec.scan(payload, sha1);
    } catch {
      return;
    }
    if (!scan)
      return;
    const name = `${facts.sessionId}\x00${modelId}`;
    const previous = this.remembered.get(name);
    const memory = previous ?? { keys: [], cache: createPromptCache("anthropic-breakpoints", { ttlMs: facts.ttlMs, minTokens: facts.minTokens }) };
    const at = this.now();
    const blocks = scan.blocks.map((b) => ({ key: b.key, tokens: b.tokens, breakpoint: b.marked }));
    const index = previous && !facts.cacheUnused ? spareIndex(scan, blocks, memory, at, facts) : undefined;
    let result;
    if (index !== undefined) {
      result = facts.codec.withMarker(payload, scan.blocks[index].place, structuredClone(scan.cacheControl));
      blocks[index] = { ...blocks[index], breakpoint: true };
    }
    memory.cache.bill({ at, blocks });
    memory.keys = blocks.map((b) => b.key);
    this.remember(name, memory);
    return result;
  }
  remember(name, memory) {
    this.remembered.delete(name);
    this.remembered.set(name, memory);
    if (this.remembered.size > MAX_REMEMBERED)
      this.remembered.delete(this.remembered.keys().next().value);
  }
}
function spareIndex(scan, blocks, memory, at, facts) {
  if (scan.markers === 0 || scan.markers >= MAX_BREAKPOINTS || scan.markedThinking || scan.cacheControl === undefined)
    return;
  const index = spareMarkerIndex({
    keys: blocks.map((b) => b.key),
    marked: scan.blocks.map((b) => b.marked),
    eligible: scan.blocks.map((b) => b.eligible),
    previousKeys: memory.keys,
    bestEntry: memory.cache.bestEntry?.({ at, blocks }) ?? 0,
    toolUseIds: scan.blocks.map((b) => b.toolUseId),
    messageOf: scan.blocks.map((b) => b.place.section === "messages" ? b.place.message : undefined),
    pending: () => facts.pending ?? new Set,
    chainStart: () => {
      const id = facts.chainStart?.();
      return id === undefined ? undefined : facts.codec.toolUseId(id);
    }
  });
  return index !== undefined && scan.blocks[index]?.eligible ? index : undefined;
}
function pendingToolUseIds(batches, releasable, codec) {
  const ids = new Set;
  for (const key of releasable)
    ids.add(codec.toolUseId(parseOccKey(key).toolCallId));
  for (const batch of batches)
    for (const call of batch.toolCalls)
      if (typeof call.toolCallId === "string")
        ids.add(codec.toolUseId(call.toolCallId));
  return ids;
}
function onBeforeProviderRequest(state, ctx, event) {
  const config = state.config.value;
  if (!config.enabled || !config.cacheBreakpoint) {
    state.breakpoint.forget();
    return;
  }
  const route = cacheRouteOf(ctx.model, processCacheEnv());
  if (route.wire === undefined)
    return;
  let sessionId;
  try {
    sessionId = ctx.sessionManager.getSessionId();
  } catch {
    return;
  }
  if (typeof sessionId !== "string")
    return;
  const codec = CODECS[route.wire];
  return state.breakpoint.place(event?.payload, {
    sessionId,
    codec,
    minTokens: route.minTokens,
    ttlMs: costModelFor(ctx.model, route).ttlMs,
    cacheUnused: state.cache.requests > 0 && !state.cache.reportsCacheUse,
    pending: pendingToolUseIds(state.pending, state.releasable ?? new Set, codec),
    ...state.nextChainStart ? { chainStart: state.nextChainStart } : {}
  });
}

// src/forgetting/sight-state.ts
class SightState {
  counter = new LiveSight;
  wide = false;
  narrowDue = false;
  get widened() {
    return this.wide;
  }
  extraTurns() {
    return this.wide ? WIDENED_EXTRA_TURNS : 0;
  }
  rebuild(branch, cwd) {
    this.counter = new LiveSight(cwd === undefined ? {} : { cwd });
    this.wide = false;
    this.narrowDue = false;
    for (const value of branch) {
      const entry = looseEntry(value);
      if (entry?.type !== "custom" || entry.customType !== CUSTOM_TYPE_SIGHT)
        continue;
      const parsed = parseSightEntry(entry.data);
      if (parsed.ok)
        this.wide = parsed.value.widened;
    }
  }
  update(branch) {
    this.counter.feed(branch);
  }
  view(cost) {
    return { recoveries: this.counter.recoveries, cost, rate: this.rate(), widened: this.wide, rawTurns: IN_RUN_RECENT_TURNS };
  }
  judge(pendingTurns, currentTurn) {
    const rate = this.rate();
    const move = windowMove(this.wide, rate);
    if (move === "widen")
      return this.set(true, rate);
    this.narrowDue = move === "narrow";
    if (!this.narrowDue)
      return;
    const current = currentTurn();
    if (current === undefined)
      return;
    const newest = current - IN_RUN_RECENT_TURNS;
    const held = pendingTurns.some((turn) => turn <= newest && turn > newest - WIDENED_EXTRA_TURNS);
    return held ? undefined : this.set(false, rate);
  }
  narrowingDue() {
    return this.wide && this.narrowDue;
  }
  narrowInRewrite() {
    return this.narrowingDue() ? this.set(false, this.rate()) : undefined;
  }
  rate() {
    return recentRate(this.counter.recoveries, this.counter.requests);
  }
  set(widened, rate) {
    this.wide = widened;
    this.narrowDue = false;
    return { entry: { widened, recoveries: rate.recoveries, window: rate.window }, notice: windowNotice(widened, rate) };
  }
}
function windowNotice(widened, rate) {
  const went = `the agent went back for archived output in ${plural(rate.recoveries, "request")} of the last ${rate.window} (${rate.per100.toFixed(1)} per 100)`;
  const wide = IN_RUN_RECENT_TURNS + WIDENED_EXTRA_TURNS;
  return widened ? `pruner: ${went}: the latest ${wide} tool turns now stay raw instead of ${IN_RUN_RECENT_TURNS}` : `pruner: ${went}: the latest ${IN_RUN_RECENT_TURNS} tool turns stay raw again instead of ${wide}`;
}

// src/host/extension-state.ts
function createExtensionState(pi, files = nodeSidecarFiles) {
  const state = {
    pi,
    config: { value: { ...DEFAULT_CONFIG } },
    indexer: new ToolCallIndexer,
    blockRefs: new BlockRefIssuer,
    stats: new StatsAccumulator,
    fallback: new FallbackController,
    diagnostics: new DiagnosticSink((customType, data) => pi.appendEntry(customType, data)),
    frontier: new PruneFrontierTracker,
    retries: new RetryLedger,
    pending: [],
    isFlushing: false,
    finalReplyFlush: undefined,
    safePoints: new SafePoints,
    previousFraction: null,
    cache: new CacheTracker,
    ledger: new DeferralLedger,
    policy: { last: undefined, told: new Set, coldFlushedFor: undefined, expiryTimer: undefined, warmingStopped: 0 },
    breakpoint: new SpareBreakpoint,
    renderedBranch: undefined,
    sight: new SightState,
    releasable: new Set,
    nextChainStart: () => state.renderedBranch ? nextChainToCompress(state, state.renderedBranch) : undefined,
    rearmedPending: false,
    supersede: createSupersedeState(),
    status: {
      refresh: (ctx, closingMessage) => {
        measureNextRequest(state, ctx, closingMessage);
        refreshStatus(state, ctx);
      },
      show: (ctx, text) => showStatusText(state, ctx, text),
      measure: (ctx) => measureNextRequest(state, ctx)
    },
    report: { show: (ctx, text) => showReport(pi, ctx, text) },
    files,
    writeFaults: new WriteFaults,
    metricsSnapshot: (ctx) => computeMetricsSnapshot(state, ctx)
  };
  return state;
}

// src/summarize/flush-persist.ts
function persistResults(prepared, summarized, state, delivery, now) {
  const totals = { toolCallCount: 0, rawCharCount: 0, summaryCharCount: 0, dedupedCount: 0 };
  const outcome = { processed: [], unresolved: [], newlyUnusable: [], settledPrefix: 0, totals };
  let gap = false;
  for (let i = 0;i < prepared.length; i++) {
    const item = prepared[i];
    let done;
    try {
      done = persistOne(item, summarized, i, state, delivery, now, outcome);
    } catch (err) {
      if (!isStaleContextError(err))
        throw err;
      outcome.unresolved.push(...prepared.slice(i));
      return outcome;
    }
    if (done === null) {
      outcome.unresolved.push(item);
      gap = true;
      continue;
    }
    outcome.processed.push(done);
    addTotals(totals, done);
    if (!gap)
      outcome.settledPrefix = i + 1;
  }
  return outcome;
}
function persistOne(item, summarized, position, state, delivery, now, outcome) {
  const slot = summarized.slots[position];
  if (slot === "deduped" || slot === "trivial")
    return { item, kind: slot, summaryChars: 0 };
  if (slot === "deferred" || slot === undefined)
    return null;
  if (slot === "archive")
    return persistArchived(item, state, delivery);
  if (slot === "unsummarized")
    return persistUnsummarized(item, state, delivery);
  if (slot !== null) {
    state.retries.forget(item.batch);
    const done = persistSummary(item, slot, state, delivery);
    state.stats.add(slot.usage);
    return done;
  }
  if (summarized.unusable.has(position) && state.retries.firstUnusableReport(item.batch))
    outcome.newlyUnusable.push(item);
  if (state.retries.recordFailure(item.batch, now) !== "exhausted")
    return null;
  return persistArchived(item, state, delivery);
}
function persistBody(item, body, state, delivery) {
  const { batch } = item;
  const refs = state.indexer.allocateSummaryRefs(batch);
  const summary = body(refs) + formatSummaryToolCallRefs(refs);
  const text = framedSummary(summary);
  const shortIds = refs.map((ref) => ref.shortId);
  if (summary.length > item.raw) {
    if (!(argumentStubsOn(state.config.value) && holdsStubbableArguments(batch.toolCalls)))
      return { text, oversized: true, refs: shortIds };
    archiveWithoutSummary(withoutSummaryOf(batch), refs, state, delivery);
    return { text: "", oversized: false, refs: shortIds, unsummarized: true };
  }
  delivery.sendSummary(text, makeSummaryDetails(batch, refs));
  state.indexer.registerSummaryRefs(refs);
  state.indexer.addBatch(batch, delivery.appendEntry, refs);
  state.indexer.registerSummaryBody(batch.toolCalls.map((tc) => occKey(tc.toolCallId, tc.resultTimestamp)), summary);
  return { text, oversized: false, refs: shortIds };
}
function persistSummary(item, result, state, delivery) {
  const toolNames = item.batch.toolCalls.map((tc) => tc.toolName);
  const done = persistBody(item, (refs) => substituteInlineRefs(result.summaryText, refs, toolNames), state, delivery);
  return {
    item,
    kind: done.unsummarized ? "unsummarized" : done.oversized ? "oversized" : "summarized",
    summaryLength: result.summaryText.length,
    summaryChars: done.text.length,
    refs: done.refs
  };
}
function persistArchived(item, state, delivery) {
  const calls = bodyCalls(item.batch);
  const done = persistBody(item, (refs) => deterministicBody(BATCH_BODY_HEADER, calls, refs.map((r) => r.shortId)), state, delivery);
  if (!done.oversized)
    state.retries.forget(item.batch);
  const kind = done.unsummarized ? "unsummarized" : done.oversized ? "oversized" : "archived";
  return { item, kind, summaryLength: done.text.length, summaryChars: done.text.length, refs: done.refs };
}
function persistUnsummarized(item, state, delivery) {
  const refs = state.indexer.allocateSummaryRefs(item.batch);
  archiveWithoutSummary(item.batch, refs, state, delivery);
  return { item, kind: "unsummarized", summaryChars: 0, refs: refs.map((ref) => ref.shortId) };
}
function archiveWithoutSummary(batch, refs, state, delivery) {
  state.indexer.addBatch(batch, delivery.appendEntry, refs);
  state.indexer.registerSummaryRefs(refs);
}
function bodyCalls(batch) {
  return batch.toolCalls.map((call) => ({
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    args: call.args,
    time: call.resultTimestamp ?? batch.timestamp
  }));
}
function addTotals(totals, done) {
  const { item } = done;
  totals.rawCharCount += item.raw + item.dedupedChars;
  totals.toolCallCount += item.batch.toolCalls.length + item.deduped.length;
  totals.dedupedCount += item.deduped.length;
  totals.summaryCharCount += done.summaryChars;
}
function frontierOutcome(processed) {
  if (processed.some((p) => p.kind === "summarized" || p.kind === "archived" || p.kind === "unsummarized"))
    return "summarized";
  if (processed.some((p) => p.kind === "oversized"))
    return "skipped-oversized";
  if (processed.some((p) => p.item.deduped.length > 0))
    return "skipped-deduped";
  return "skipped-trivial";
}
function stubEligibleCalls(prepared, processed) {
  const calls = prepared.flatMap((item) => item.deduped);
  for (const done of processed) {
    if (done.kind === "summarized" || done.kind === "archived" || done.kind === "unsummarized")
      calls.push(...done.item.batch.toolCalls);
  }
  return calls;
}
function totalsOf(processed) {
  const totals = { toolCallCount: 0, rawCharCount: 0, summaryCharCount: 0, dedupedCount: 0 };
  for (const p of processed)
    addTotals(totals, p);
  return totals;
}
function frontierSnapshot(prefix) {
  const totals = totalsOf(prefix);
  const last = prefix[prefix.length - 1].item;
  const calls = last.kind === "deduped" ? last.deduped : last.batch.toolCalls;
  const anchor = calls[calls.length - 1] ?? last.deduped[last.deduped.length - 1];
  return {
    lastAttemptedToolCallId: anchor.toolCallId,
    lastAttemptedToolName: anchor.toolName,
    lastAttemptedTurnIndex: last.batch.turnIndex,
    lastAttemptedTimestamp: last.batch.timestamp,
    attemptedBatchCount: prefix.length,
    attemptedToolCallCount: totals.toolCallCount,
    rawCharCount: totals.rawCharCount,
    summaryCharCount: totals.summaryCharCount,
    outcome: frontierOutcome(prefix)
  };
}

// src/capture/pending-batches.ts
function trimBatchToPendingRange(batch, isSummarized, frontier) {
  const remaining = batch.toolCalls.filter((tc) => !isSummarized(occKey(tc.toolCallId, tc.resultTimestamp)));
  if (remaining.length === 0)
    return null;
  const kept = { ...batch, toolCalls: remaining };
  if (!frontier)
    return kept;
  if (batch.turnIndex < frontier.lastAttemptedTurnIndex)
    return null;
  if (batch.turnIndex > frontier.lastAttemptedTurnIndex)
    return kept;
  const at = remaining.findIndex((tc) => tc.toolCallId === frontier.lastAttemptedToolCallId);
  if (at < 0)
    return kept;
  const after = remaining.slice(at + 1);
  return after.length === 0 ? null : { ...batch, toolCalls: after };
}
function capturePendingBatches(state, ctx, opts) {
  return groupBatchesByMode(pendingTurns(state, ctx, opts), state.config.value.batchingMode);
}
function frontierBarrier(state, ctx, attempted) {
  let barrier;
  for (const batch of pendingTurns(state, ctx)) {
    if (barrier !== undefined && batch.turnIndex >= barrier)
      continue;
    if (batch.toolCalls.some((call) => !attempted.has(occKey(call.toolCallId, call.resultTimestamp))))
      barrier = batch.turnIndex;
  }
  return barrier;
}
function pendingTurns(state, ctx, opts) {
  let captured;
  try {
    const isProtected = protectionPredicate(state);
    const exclude = (toolName, args) => isRecoveryTool(toolName) || isProtected(toolName, args);
    captured = captureUnindexedBatchesFromSession(ctx.sessionManager.getBranch(), state.indexer, exclude);
  } catch (err) {
    if (opts?.rethrow)
      throw err;
    captured = state.pending.slice();
  }
  const frontier = state.frontier.get();
  const done = (key) => state.indexer.isSummarized(key) || state.frontier.wasAttemptedAhead(key);
  const trimmed = [];
  for (const batch of withoutSharedKeys(captured)) {
    const kept = trimBatchToPendingRange(batch, done, frontier);
    if (kept)
      trimmed.push(kept);
  }
  return trimmed;
}
function withoutSharedKeys(batches) {
  const seen = new Set;
  const shared = new Set;
  for (const batch of batches) {
    for (const call of batch.toolCalls) {
      const key = occKey(call.toolCallId, call.resultTimestamp);
      if (seen.has(key))
        shared.add(key);
      else
        seen.add(key);
    }
  }
  if (shared.size === 0)
    return batches;
  const kept = [];
  for (const batch of batches) {
    const calls = batch.toolCalls.filter((call) => !shared.has(occKey(call.toolCallId, call.resultTimestamp)));
    if (calls.length > 0)
      kept.push(calls.length === batch.toolCalls.length ? batch : { ...batch, toolCalls: calls });
  }
  return kept;
}

// src/archive/query-tool-exposure.ts
function queryToolDeclared(pi) {
  try {
    return pi.getActiveTools().includes(QUERY_TOOL_NAME);
  } catch {
    return false;
  }
}
function declareQueryTool(pi, recoverable) {
  if (queryToolDeclared(pi))
    return true;
  if (!recoverable)
    return false;
  try {
    pi.setActiveTools([...pi.getActiveTools(), QUERY_TOOL_NAME]);
  } catch (err) {
    console.error("pi-condense: could not activate context_tree_query", err);
    return false;
  }
  return queryToolDeclared(pi);
}

// src/summarize/flush-types.ts
var EMPTY_METRICS_SNAPSHOT = {
  openCycleThinkingTokens: 0,
  largestChainSharePct: 0,
  frontierGapTokens: 0
};

// src/summarize/flush.ts
async function flushPending(state, ctx, options = {}) {
  if (state.isFlushing)
    return { ok: false, reason: "already-flushing" };
  state.rearmedPending = false;
  const attempt = {
    trigger: options.trigger ?? "manual",
    metrics: state.metricsSnapshot(ctx) ?? EMPTY_METRICS_SNAPSHOT,
    captured: 0,
    processed: 0,
    stubs: 0,
    outcome: "empty",
    decision: options.decision
  };
  try {
    return await runFlush(state, ctx, options, attempt);
  } finally {
    state.isFlushing = false;
    writeFlushMetrics(state, attempt);
  }
}
async function runFlush(state, ctx, options, attempt) {
  let delivery;
  try {
    delivery = options.delivery === "session" ? sessionDelivery(sessionAppenderOf(ctx)) : runtimeDelivery(state.pi);
  } catch (err) {
    attempt.outcome = "error";
    return failure(err);
  }
  if (delivery.kind === "session")
    attempt.writer = delivery.appendEntry;
  const batches = options.previewedBatches ?? capturePendingBatches(state, ctx);
  attempt.captured = batches.length;
  if (batches.length === 0)
    return { ok: false, reason: "empty" };
  const barrier = options.previewedBatches ? frontierBarrier(state, ctx, keysOf(batches)) : undefined;
  if (options.signal?.aborted) {
    attempt.outcome = "error";
    return { ok: false, reason: "aborted" };
  }
  state.pending.length = 0;
  state.isFlushing = true;
  let working = batches;
  try {
    const deduped = dedupBatches(batches, state, delivery.appendEntry);
    working = deduped.map((d) => d.batch);
    const now = Date.now();
    const split = batchSplitter(state, ctx);
    const prepared = classifyBatches(deduped, state.config.value.minBatchChars, (batch) => state.retries.status(batch, now), split, argumentStubsOn(state.config.value));
    return await processBatches(state, ctx, options, delivery, prepared, attempt, barrier);
  } catch (err) {
    restoreToQueue(state, working);
    attempt.outcome = "error";
    return handleFlushError(state, ctx, options, err);
  }
}
async function processBatches(state, ctx, options, delivery, prepared, attempt, barrier) {
  const config = state.config.value;
  if (prepared.some((p) => p.kind === "summarize"))
    ignoreStale(() => state.status.show(ctx, "prune: summarizing…"));
  const slots = await summarizeSlots(prepared, state, ctx, options);
  await options.beforePersist?.();
  if (options.signal?.aborted)
    throw new Error("flush: aborted before its results were written");
  const outcome = persistResults(prepared, slots, state, delivery, Date.now());
  const madeStubbable = stubEligibleCalls(prepared, outcome.processed);
  attempt.stubs = madeStubbable.length;
  declareQueryTool(state.pi, madeStubbable.length > 0);
  lowerFloor(state.supersede, earliestResultTimestamp(madeStubbable));
  restoreToQueue(state, outcome.unresolved.map((p) => p.batch));
  notifyUnusable(ctx, outcome.newlyUnusable);
  const { processed } = outcome;
  if (processed.length === 0) {
    ignoreStale(() => state.status.refresh(ctx));
    attempt.outcome = "error";
    return { ok: false, reason: "summarizer-failed" };
  }
  const settled = passable(processed.slice(0, outcome.settledPrefix), barrier);
  state.frontier.noteAttemptedAhead(unarchivedKeys(processed.slice(settled.length)));
  const chainMessages = config.chainCompression?.enabled && options.chains !== false ? snapshotBranchMessages(ctx) : null;
  try {
    persistFrontierAndStats(state, delivery, settled.length > 0 ? frontierSnapshot(settled) : null);
  } catch (err) {
    attempt.processed = processed.length;
    attempt.outcome = "error";
    return failure(err);
  }
  ignoreStale(() => state.status.refresh(ctx, options.closingMessage));
  ignoreStale(() => emitExternalCost(state.pi, state.stats));
  const chains = chainMessages ? await compressAfterFlush(state, ctx, chainMessages, {
    closingMessage: options.closingMessage,
    appendEntry: delivery.appendEntry,
    heldKeys: keysOf(outcome.unresolved.map((p) => p.batch)),
    signal: options.signal
  }) : { prompts: [], archived: 0 };
  const totals = totalsOf(processed);
  const line = flushReportLine(processed, chains, config);
  if (line)
    ignoreStale(() => state.report.show(ctx, line));
  notifyArchived(ctx, processed);
  attempt.processed = processed.length;
  const outcomeOfAll = frontierOutcome(processed);
  attempt.outcome = outcomeOfAll;
  return {
    ok: true,
    reason: resultReason(outcomeOfAll),
    batchCount: processed.length,
    toolCallCount: totals.toolCallCount,
    rawCharCount: totals.rawCharCount,
    summaryCharCount: totals.summaryCharCount,
    dedupedCount: totals.dedupedCount
  };
}
function keysOf(batches) {
  const keys = new Set;
  for (const batch of batches)
    for (const call of batch.toolCalls)
      keys.add(occKey(call.toolCallId, call.resultTimestamp));
  return keys;
}
function passable(settled, barrier) {
  if (barrier === undefined)
    return settled;
  const at = settled.findIndex((p) => p.item.batch.turnIndex >= barrier);
  return at < 0 ? settled : settled.slice(0, at);
}
function unarchivedKeys(processed) {
  const keys = [];
  for (const done of processed) {
    if (done.kind !== "trivial" && done.kind !== "oversized")
      continue;
    for (const call of done.item.batch.toolCalls)
      keys.push(occKey(call.toolCallId, call.resultTimestamp));
  }
  return keys;
}
function batchSplitter(state, ctx) {
  const config = state.config.value;
  const mode = summariesMode(config);
  const messages = mode === "always" ? null : snapshotBranchMessages(ctx);
  const stale = staleOutputsOf(messages ?? [], mode, (toolName, args) => isProtected(toolName, args, config));
  return (batch) => splitBatches([batch], mode, stale)[0];
}
function snapshotBranchMessages(ctx) {
  try {
    return projectBranchMessages(ctx.sessionManager.getBranch());
  } catch {
    return null;
  }
}
function persistFrontierAndStats(state, delivery, snapshot) {
  if (delivery.kind === "session") {
    if (snapshot) {
      delivery.appendEntry(CUSTOM_TYPE_FRONTIER, snapshot);
      state.frontier.advance(snapshot);
    }
    try {
      delivery.appendEntry(CUSTOM_TYPE_STATS, state.stats.getStats());
      state.stats.persistCacheTokens(delivery.appendEntry);
    } catch {}
    return;
  }
  if (snapshot) {
    const previous = state.frontier.get();
    state.frontier.advance(snapshot);
    try {
      state.frontier.persist(state.pi);
    } catch (err) {
      if (previous)
        state.frontier.advance(previous);
      else
        state.frontier.reset();
      throw err;
    }
  }
  state.stats.persist(state.pi);
  state.stats.persistCacheTokens((customType, data) => state.pi.appendEntry(customType, data));
}
function restoreToQueue(state, batches) {
  state.pending.unshift(...batches.filter((b) => b.toolCalls.length > 0));
}
function handleFlushError(state, ctx, options, err) {
  if (options.signal?.aborted) {
    ignoreStale(() => state.status.refresh(ctx));
    return { ok: false, reason: "aborted", error: errorMessage(err) };
  }
  if (isStaleContextError(err))
    return { ok: false, reason: "stale-context", error: errorMessage(err) };
  if (isFileSystemRefusal(err)) {
    console.error("pi-condense: a flush could not write to the session; its outputs stay in context:", err);
    state.writeFaults.report(err, (message) => safeNotify(ctx, message, "warning"));
  } else
    safeNotify(ctx, `pruner: summarization failed: ${errorMessage(err)}`, "error");
  return { ok: false, reason: "failed", error: errorMessage(err) };
}
function failure(err) {
  const reason = isStaleContextError(err) ? "stale-context" : "failed";
  return { ok: false, reason, error: errorMessage(err) };
}
function resultReason(outcome) {
  return outcome === "summarized" ? "flushed" : outcome;
}
function ignoreStale(fn) {
  try {
    fn();
  } catch (err) {
    if (!isStaleContextError(err))
      throw err;
  }
}
function recordDeferredFlush(state, ctx, trigger, pendingBatches, decision) {
  const metrics = state.metricsSnapshot(ctx) ?? EMPTY_METRICS_SNAPSHOT;
  writeFlushMetrics(state, { trigger, metrics, captured: pendingBatches, processed: 0, stubs: 0, outcome: "deferred", decision });
}
function writeFlushMetrics(state, attempt) {
  const entry = {
    ts: Date.now(),
    trigger: attempt.trigger,
    capturedBatches: attempt.captured,
    processedBatches: attempt.processed,
    stubCount: attempt.stubs,
    outcome: attempt.outcome,
    metrics: attempt.metrics,
    ...attempt.decision ? { decision: attempt.decision } : {}
  };
  try {
    if (attempt.writer)
      attempt.writer(CUSTOM_TYPE_FLUSH_METRICS, entry);
    else
      state.pi.appendEntry(CUSTOM_TYPE_FLUSH_METRICS, entry);
  } catch {}
}

// src/host/flush-policy.ts
function costPolicyActive(state) {
  const config = state.config.value;
  return config.enabled && config.flushPolicy === "cost" && config.pruneOn === "agent-message";
}
function costPolicyIdleReason(state) {
  const config = state.config.value;
  if (!config.enabled)
    return "pruning is off";
  if (config.pruneOn === "on-demand")
    return "tool outputs are summarized only on /pruner now";
  return;
}
function sightView(state, ctx) {
  try {
    state.sight.update(ctx.sessionManager.getBranch());
  } catch (err) {
    console.error("pi-condense: counting recoveries failed", err);
  }
  let cost;
  try {
    cost = mainCostModel(ctx);
  } catch {
    cost = undefined;
  }
  return state.sight.view(cost);
}
function recordRequest(state, message) {
  if (!isAssistant(message))
    return;
  const usage = requestUsageOf(message.usage, typeof message.timestamp === "number" ? message.timestamp : Date.now());
  if (usage)
    state.cache.record(usage);
}
function calibrateTokens(state, message) {
  if (!isAssistant(message))
    return false;
  const usage = requestUsageOf(message.usage, 0);
  return usage !== undefined && state.stats.calibrate(usage.input + usage.cacheRead + usage.cacheWrite);
}
function rebuildPolicyState(state, ctx) {
  state.cache.reset();
  state.ledger.reset();
  state.policy.last = undefined;
  state.policy.coldFlushedFor = undefined;
  state.policy.told.clear();
  let branch;
  try {
    branch = ctx.sessionManager.getBranch();
  } catch {
    return;
  }
  for (const value of branch) {
    const entry = looseEntry(value);
    if (entry?.type === "message")
      recordRequest(state, entry.message);
    else if (entry?.type === "usage" && entry.kind === "cache_warm")
      state.cache.touch(Date.parse(String(entry.timestamp)));
    else if (entry?.type === "custom" && entry.customType === CUSTOM_TYPE_FLUSH_METRICS)
      state.policy.last = decisionOf(entry.data) ?? state.policy.last;
  }
}
function decisionOf(data) {
  const d = loose(loose(data)?.decision);
  const verdict = d?.verdict;
  const basis = d?.basis;
  const reason = d?.reason;
  if (!d || verdict !== "apply" && verdict !== "defer" || typeof basis !== "string" || typeof reason !== "string")
    return;
  const cached = loose(d.cache)?.temperature;
  const temperature = cached === "warm" || cached === "cold" ? cached : "unknown";
  return { verdict, basis, reason: reason.slice(0, 500), cache: { temperature }, ...d.nothingRewritten === true ? { nothingRewritten: true } : {} };
}
function noteCacheWarming(state, ctx) {
  let branch;
  try {
    branch = ctx.sessionManager.getBranch();
  } catch {
    return;
  }
  for (let i = branch.length - 1;i >= 0; i--) {
    const entry = looseEntry(branch[i]);
    if (entry?.type === "message" && isAssistant(entry.message))
      return;
    if (entry?.type === "usage" && entry.kind === "cache_warm")
      return state.cache.touch(Date.parse(String(entry.timestamp)));
  }
}
function rewriteCacheRule(state, ctx) {
  const config = state.config.value;
  const route = cacheRouteOf(ctx.model, processCacheEnv());
  return {
    rule: route.rule,
    breakpoint: config.enabled && config.cacheBreakpoint,
    ...queryToolDeclared(state.pi) ? {} : { declaresTool: true, declaredToolTokens: queryToolTokens(state) },
    retention: route.retention,
    ...route.wire ? { wire: route.wire } : {},
    ...route.problem ? { problem: route.problem } : {}
  };
}
function mainCostModel(ctx) {
  return costModelFor(ctx.model, cacheRouteOf(ctx.model, processCacheEnv()));
}
function cacheTtlMs(ctx) {
  return mainCostModel(ctx).ttlMs;
}
function rewriteForced(state, ctx) {
  const pressure = state.config.value.contextPressure;
  const fraction = usageFraction(safeContextUsage(ctx));
  if (pressure !== null && fraction !== null && fraction >= pressure)
    return true;
  const cache = state.cache.state(Date.now(), cacheTtlMs(ctx));
  return cache.temperature === "cold" && cache.requests > 0;
}
function weighFlush(state, ctx, moment, opts = {}) {
  const all = capturePendingBatches(state, ctx);
  const batches = opts.select ? opts.select(all) : all;
  if (batches.length === 0)
    return;
  const messages = branchMessages2(ctx);
  const main = mainCostModel(ctx);
  const decision = weighFlushBatches({
    moment,
    batches,
    messages,
    closing: opts.closing,
    ...systemTokens(state, ctx),
    minBatchChars: state.config.value.minBatchChars,
    stubArguments: argumentStubsOn(state.config.value),
    withoutSummary: messages ? withoutSummaryPredicate(state, messages, batches) : () => false,
    cache: state.cache.state(Date.now(), main.ttlMs),
    main,
    summarizer: summarizerCostModel(state, ctx),
    contextFraction: usageFraction(safeContextUsage(ctx)),
    pressure: state.config.value.contextPressure,
    promptsSoFar: messages ? messages.filter(isUser).length : 0,
    runRequests: messages ? requestsSinceLastPrompt(messages) : 0,
    cacheRule: rewriteCacheRule(state, ctx),
    ...requestSize2(state, ctx),
    ...opts.bound ? { bound: { ledger: state.ledger, ...opts.bound } } : {},
    ...sightOf(state, ctx, messages, opts.closing)
  });
  if (!opts.quiet)
    noteDecision(state, ctx, decision);
  return { decision, batches, messages };
}
function stillWaiting(state) {
  const compressed = new Set(state.indexer.getChainEntries().map((entry) => chainItemKey(entry.startUserTimestamp)));
  return (kind, key) => kind === "chains" ? !compressed.has(key) : !state.indexer.isSummarized(key);
}
function sightOf(state, ctx, messages, closing) {
  if (!messages)
    return {};
  let branch;
  try {
    branch = ctx.sessionManager.getBranch();
  } catch {
    return {};
  }
  const options = sightOptions(state.config.value, archiveWrites(branch));
  if (!options)
    return {};
  const seen = closing === undefined || messages.includes(closing) ? messages : [...messages, closing];
  const last = loose(seen[seen.length - 1])?.timestamp;
  const at = typeof last === "number" ? last : Date.now();
  return { sight: (keys) => sightOfWrite(seen, options, at, keys) };
}
function chargeDeferrals(state, message) {
  if (!isAssistant(message) || !costPolicyActive(state))
    return;
  state.ledger.charge(stillWaiting(state));
}
function withoutSummaryPredicate(state, messages, batches) {
  const config = state.config.value;
  const mode = summariesMode(config);
  const stale = staleOutputsOf(messages, mode, (toolName, args) => isProtected(toolName, args, config));
  const unsummarized = new Set;
  for (const part of splitBatches(batches, mode, stale)) {
    for (const call of part.withoutSummary.toolCalls)
      unsummarized.add(occKey(call.toolCallId, call.resultTimestamp));
  }
  const dedup = config.dedupByContentHash;
  return (call) => unsummarized.has(occKey(call.toolCallId, call.resultTimestamp)) || dedup && archivedCopyOf(state.indexer, call) !== undefined;
}
function weighChainPass(state, ctx, closing, weighed, flushApplies = true) {
  const { messages } = weighed;
  if (!messages)
    return false;
  const ranges = previewEligibleChains(state, messages, closing).flatMap((chain) => resolveRange(chain, messages) ?? []);
  const pending = flushApplies ? pendingKeys(weighed.batches) : new Set;
  const verdict = weighChains({
    messages,
    ranges,
    flushStart: flushApplies ? firstPendingIndex(messages, weighed.batches) : messages.length,
    stubbed: (key) => pending.has(key) || state.indexer.isSummarized(key),
    expectedRequests: weighed.decision.record.figures?.expectedRequests ?? 0,
    now: Date.now(),
    fused: state.config.value.chainCompression.fuseRangeSummary,
    main: mainCostModel(ctx),
    summarizer: summarizerCostModel(state, ctx),
    cacheRule: rewriteCacheRule(state, ctx),
    ledger: state.ledger,
    ...requestSize2(state, ctx)
  });
  if (!verdict)
    return false;
  weighed.decision.record.chains = { verdict: verdict.apply ? "apply" : "defer", netSaving: verdict.netSaving };
  return verdict.apply;
}
function requestSize2(state, ctx) {
  const counted = safeContextUsage(ctx)?.tokens;
  const contextTokens = typeof counted === "number" && Number.isFinite(counted) && counted > 0 ? counted : state.cache.lastInputTokens;
  return contextTokens === undefined ? {} : { size: { contextTokens, growthTokens: state.cache.growthTokens } };
}
function queryToolTokens(state) {
  try {
    const tool = state.pi.getAllTools().find((t) => t.name === QUERY_TOOL_NAME);
    return tool ? toolChars(tool) / 4 : 0;
  } catch {
    return 0;
  }
}
function toolChars(tool) {
  return JSON.stringify({ name: tool.name, description: tool.description, parameters: tool.parameters }).length;
}
function systemTokens(state, ctx) {
  try {
    const active = new Set(state.pi.getActiveTools());
    let chars = ctx.getSystemPrompt().length;
    for (const tool of state.pi.getAllTools()) {
      if (active.has(tool.name))
        chars += toolChars(tool);
    }
    return { systemTokens: chars / 4 };
  } catch {
    return {};
  }
}
function summarizerCostModel(state, ctx) {
  let model;
  try {
    model = resolveModel(state.config.value, ctx);
  } catch {
    model = undefined;
  }
  return costModelFor(model ?? ctx.model);
}
function noteDecision(state, ctx, decision) {
  state.policy.last = decision.record;
  if (decision.record.basis !== "fallback" || state.policy.told.has(decision.record.reason))
    return;
  state.policy.told.add(decision.record.reason);
  safeNotify(ctx, `pruner: ${decision.record.reason}`, "info");
}
function requestsSinceLastPrompt(messages) {
  let requests = 0;
  for (let i = messages.length - 1;i >= 0 && !isUser(messages[i]); i--)
    if (isAssistant(messages[i]))
      requests++;
  return requests;
}
function branchMessages2(ctx) {
  try {
    return projectBranchMessages(ctx.sessionManager.getBranch());
  } catch {
    return;
  }
}
function safeContextUsage(ctx) {
  try {
    return ctx.getContextUsage?.();
  } catch {
    return;
  }
}
function policyView(state, ctx) {
  const config = state.config.value;
  let pending;
  try {
    pending = weighFlush(state, ctx, "final-reply", { quiet: true })?.decision.record;
  } catch {
    pending = undefined;
  }
  return {
    policy: config.flushPolicy,
    idleReason: costPolicyIdleReason(state),
    cache: state.cache.state(Date.now(), cacheTtlMs(ctx)),
    pending,
    last: state.policy.last,
    cacheRule: { ...rewriteCacheRule(state, ctx), ttlMs: cacheTtlMs(ctx) },
    summaries: summariesMode(config),
    archived: archivedCounts(state),
    waiting: waitingAccounts(state),
    ...tierView(state, ctx),
    warmingStopped: state.policy.warmingStopped
  };
}
function waitingAccounts(state) {
  const waiting = stillWaiting(state);
  return ["reply", "chains"].flatMap((kind) => {
    const open = state.ledger.account(kind);
    if (!open || ![...open.items.keys()].some((key) => waiting(kind, key)))
      return [];
    return [{ kind, regret: open.regret, owed: open.owed }];
  });
}
function tierView(state, ctx) {
  const main = mainCostModel(ctx);
  const card = cardOf(main);
  if (!main.priced || card.tiers.length === 0 || !(card.base.input > 0))
    return {};
  const thresholds = card.tiers.map((tier) => ({ above: tier.inputTokensAbove, multiple: tier.prices.input / card.base.input }));
  return { tiers: { thresholds, contextTokens: requestSize2(state, ctx).size?.contextTokens } };
}
function archivedCounts(state) {
  const counts = { summarized: 0, withoutSummary: 0, stale: 0 };
  for (const [key, record] of state.indexer.getIndex()) {
    if (record.supersededBy !== undefined)
      counts.stale++;
    else if (state.indexer.hasPerBatchSummaryCoveringAny([key]))
      counts.summarized++;
    else
      counts.withoutSummary++;
  }
  return counts;
}

// src/host/toggle-cost.ts
function rates(rule, prices) {
  if (rule === "uncached")
    return { read: prices.input, rewrite: prices.input };
  return { read: prices.cacheRead, rewrite: rule === "anthropic-breakpoints" ? prices.cacheWrite : prices.input };
}
var REWRITE_WORDS = {
  "anthropic-breakpoints": (tokens) => `; the ${tokens} tokens from the first pruned output on are written to the provider's cache again`,
  "longest-prefix": (tokens) => `; the ${tokens} tokens from the first pruned output on are billed as fresh input again`,
  uncached: () => ""
};
function moreOrLess(amount) {
  return amount >= 0 ? `${dollars(amount)} more` : `${dollars(-amount)} less`;
}
function backToLastRequest(ctx, enabling) {
  let branch;
  try {
    branch = ctx.sessionManager.getBranch();
  } catch {
    return false;
  }
  let firstToggleSince;
  for (let i = branch.length - 1;i >= 0; i--) {
    const entry = branch[i];
    if (entry?.type === "message" && entry.message?.role === "assistant")
      break;
    if (entry?.type === "custom" && entry.customType === CUSTOM_TYPE_TOGGLE && typeof entry.data?.enabled === "boolean") {
      firstToggleSince = entry.data.enabled;
    }
  }
  return firstToggleSince !== undefined && firstToggleSince !== enabling;
}
function toggleCostText(state, ctx, enabling) {
  if (backToLastRequest(ctx, enabling))
    return;
  const sizes = measureBothWays(state, ctx);
  if (!sizes)
    return;
  const overhead = state.stats.getLiveReclaim()?.overheadTokens ?? 0;
  const raw = estimateTokens(sizes.rawChars) + overhead;
  const pruned = estimateTokens(sizes.prunedChars) + overhead;
  const shared = estimateTokens(sizes.sharedChars) + overhead;
  const [from, to] = enabling ? [raw, pruned] : [pruned, raw];
  const rewritten = Math.max(0, to - shared);
  const how = enabling ? "pruned" : "unpruned";
  const route = cacheRouteOf(ctx.model, processCacheEnv());
  const head = `The next request sends the history ${how}: about ${formatCompactCount(to)} tokens instead of ${formatCompactCount(from)}` + `${REWRITE_WORDS[route.rule](formatCompactCount(rewritten))}.`;
  const cost = costModelFor(ctx.model, route);
  if (!cost.priced)
    return `${head} (${cost.label || "this model"} has no catalog price, so no dollars.)`;
  const was = rates(route.rule, pricesAt(cost, from));
  const will = rates(route.rule, pricesAt(cost, to));
  const next = shared * will.read + rewritten * will.rewrite - from * was.read;
  const later = to * will.read - from * was.read;
  return `${head} At ${cost.label}'s prices that request costs about ${moreOrLess(next)} than ${enabling ? "staying unpruned" : "with pruning on"}, and each later one about ${moreOrLess(later)}.`;
}

// src/archive/query-tool.ts
import { resolve } from "node:path";
import { Type } from "typebox";

// src/archive/line-pattern.ts
var MAX_MATCH_CHARS = 1e4;
var MAX_PROGRAM = 4000;
var MAX_REPEAT = 1000;
var EXPRESSION = /^\/([\s\S]+)\/([a-z]*)$/;
function compilePattern(source) {
  if (source === "")
    return { ok: false, error: "the pattern is empty" };
  const expression = EXPRESSION.exec(source);
  if (expression === null) {
    return { ok: true, pattern: { label: `literal ${JSON.stringify(source)}`, test: (line) => line.includes(source) } };
  }
  const [, body, flags] = expression;
  if (!/^i?$/.test(flags))
    return { ok: false, error: `flag "${flags}" is not supported (only i, for ignore case)` };
  const ignoreCase = flags === "i";
  try {
    const program = compile(new Parser(body, ignoreCase).parse());
    const label = `expression ${source}`;
    return { ok: true, pattern: { label, test: (line) => run(program, ignoreCase ? line.toLowerCase() : line) } };
  } catch (error) {
    if (error instanceof PatternError)
      return { ok: false, error: error.message };
    throw error;
  }
}

class PatternError extends Error {
}
var isDigit = (c) => c >= 48 && c <= 57;
var isWordCode = (c) => isDigit(c) || c >= 65 && c <= 90 || c >= 97 && c <= 122 || c === 95;
var isSpace = (c) => c === 32 || c >= 9 && c <= 13 || c === 160 || c === 65279 || c >= 8192 && c <= 8202 || c === 8232 || c === 8233 || c === 12288 || c === 5760 || c === 8239 || c === 8287;
var not = (test) => (c) => !test(c);
var CLASS_ESCAPES = { d: isDigit, D: not(isDigit), w: isWordCode, W: not(isWordCode), s: isSpace, S: not(isSpace) };
var CONTROL_ESCAPES = { t: 9, n: 10, r: 13, f: 12, v: 11, "0": 0 };

class Parser {
  src;
  ignoreCase;
  at = 0;
  constructor(src, ignoreCase) {
    this.src = src;
    this.ignoreCase = ignoreCase;
  }
  parse() {
    const node = this.alternation();
    if (this.at < this.src.length)
      throw new PatternError(`unmatched ")" at position ${this.at + 1}`);
    return node;
  }
  alternation() {
    const items = [this.sequence()];
    while (this.peek() === "|") {
      this.at++;
      items.push(this.sequence());
    }
    return items.length === 1 ? items[0] : { t: "alt", items };
  }
  sequence() {
    const items = [];
    while (this.at < this.src.length && this.peek() !== "|" && this.peek() !== ")")
      items.push(this.quantified());
    return { t: "cat", items };
  }
  quantified() {
    const atom = this.atom();
    const bounds = this.quantifier();
    if (bounds === undefined)
      return atom;
    if (atom.t === "assert")
      throw new PatternError("nothing to repeat before a quantifier");
    if (this.peek() === "?")
      this.at++;
    return { t: "rep", node: atom, min: bounds[0], max: bounds[1] };
  }
  quantifier() {
    const c = this.peek();
    if (c === "*" || c === "+" || c === "?") {
      this.at++;
      return c === "*" ? [0, Infinity] : c === "+" ? [1, Infinity] : [0, 1];
    }
    if (c !== "{")
      return;
    const braces = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.at));
    if (braces === null)
      return;
    const min = Number(braces[1]);
    const max = braces[2] === undefined ? min : braces[3] === "" ? Infinity : Number(braces[3]);
    if (min > MAX_REPEAT || max !== Infinity && max > MAX_REPEAT)
      throw new PatternError(`repeat counts above ${MAX_REPEAT} are not supported`);
    if (max < min)
      throw new PatternError("a repeat range is out of order");
    this.at += braces[0].length;
    return [min, max];
  }
  atom() {
    const c = this.src[this.at++];
    if (c === "(")
      return this.group();
    if (c === "[")
      return { t: "char", test: this.charClass() };
    if (c === ".")
      return { t: "char", test: () => true };
    if (c === "^")
      return { t: "assert", kind: "bol" };
    if (c === "$")
      return { t: "assert", kind: "eol" };
    if (c === "\\")
      return this.escape();
    if (c === "*" || c === "+" || c === "?")
      throw new PatternError(`nothing to repeat before "${c}"`);
    const code = c.charCodeAt(0);
    return { t: "char", test: this.caseless((x) => x === code) };
  }
  group() {
    if (this.src.startsWith("?:", this.at))
      this.at += 2;
    else if (/^\?(=|!|<=|<!)/.test(this.src.slice(this.at, this.at + 3)))
      throw new PatternError("lookahead and lookbehind are not supported");
    else if (this.src.startsWith("?<", this.at)) {
      const close = this.src.indexOf(">", this.at);
      if (close < 0)
        throw new PatternError("a group name is not closed");
      this.at = close + 1;
    } else if (this.peek() === "?")
      throw new PatternError("this group syntax is not supported");
    const inner = this.alternation();
    if (this.src[this.at++] !== ")")
      throw new PatternError('a "(" is not closed');
    return inner;
  }
  escape() {
    const c = this.src[this.at++];
    if (c === undefined)
      throw new PatternError("the pattern ends with a lone backslash");
    if (c === "b")
      return { t: "assert", kind: "word" };
    if (c === "B")
      return { t: "assert", kind: "notword" };
    const test = this.escapeTest(c);
    return { t: "char", test: this.caseless(test) };
  }
  escapeTest(c) {
    if (c >= "1" && c <= "9")
      throw new PatternError("backreferences are not supported");
    const named = CLASS_ESCAPES[c];
    if (named)
      return named;
    const control = CONTROL_ESCAPES[c];
    if (control !== undefined)
      return (x) => x === control;
    if (c === "x" || c === "u") {
      const hex = new RegExp(`^[0-9a-fA-F]{${c === "x" ? 2 : 4}}`).exec(this.src.slice(this.at));
      if (hex === null)
        throw new PatternError(`\\${c} needs ${c === "x" ? 2 : 4} hex digits`);
      this.at += hex[0].length;
      const code = Number.parseInt(hex[0], 16);
      return (x) => x === code;
    }
    if (/[A-Za-z]/.test(c))
      throw new PatternError(`the escape \\${c} is not supported`);
    const code = c.charCodeAt(0);
    return (x) => x === code;
  }
  charClass() {
    const negated = this.peek() === "^";
    if (negated)
      this.at++;
    const tests = [];
    while (this.peek() !== "]") {
      if (this.at >= this.src.length)
        throw new PatternError('a "[" is not closed');
      const low = this.classAtom();
      if (this.peek() === "-" && this.src[this.at + 1] !== "]" && this.at + 1 < this.src.length && typeof low === "number") {
        this.at++;
        const high = this.classAtom();
        if (typeof high !== "number")
          throw new PatternError("a class range ends in a class escape");
        if (high < low)
          throw new PatternError("a class range is out of order");
        tests.push((x) => x >= low && x <= high);
      } else
        tests.push(typeof low === "number" ? (x) => x === low : low);
    }
    this.at++;
    const any = this.caseless((x) => tests.some((test) => test(x)));
    return negated ? not(any) : any;
  }
  classAtom() {
    const c = this.src[this.at++];
    if (c !== "\\")
      return c.charCodeAt(0);
    const e = this.src[this.at++];
    if (e === undefined)
      throw new PatternError("the pattern ends with a lone backslash");
    if (e === "b")
      return 8;
    if (CLASS_ESCAPES[e] || CONTROL_ESCAPES[e] !== undefined || e === "x" || e === "u" || e >= "1" && e <= "9" || /[A-Za-z]/.test(e)) {
      const test = this.escapeTest(e);
      return CLASS_ESCAPES[e] ? test : codeOf2(test);
    }
    return e.charCodeAt(0);
  }
  caseless(test) {
    if (!this.ignoreCase)
      return test;
    return (x) => test(x) || test(String.fromCharCode(x).toUpperCase().charCodeAt(0));
  }
  peek() {
    return this.src[this.at];
  }
}
function codeOf2(test) {
  for (let code = 0;code <= 65535; code++)
    if (test(code))
      return code;
  throw new PatternError("an escape in a class matches nothing");
}
function compile(root) {
  const program = [];
  const emit = (instruction) => {
    if (program.length >= MAX_PROGRAM)
      throw new PatternError("the expression is too large (repeat counts expand it)");
    program.push(instruction);
    return program.length - 1;
  };
  const gen = (node) => {
    if (node.t === "char")
      emit({ op: "char", test: node.test });
    else if (node.t === "assert")
      emit({ op: "assert", kind: node.kind });
    else if (node.t === "cat")
      for (const item of node.items)
        gen(item);
    else if (node.t === "alt") {
      const jumps = [];
      node.items.forEach((item, k) => {
        if (k === node.items.length - 1)
          return gen(item);
        const split = emit({ op: "split", a: 0, b: 0 });
        program[split].a = program.length;
        gen(item);
        jumps.push(emit({ op: "jump", to: 0 }));
        program[split].b = program.length;
      });
      for (const jump of jumps)
        program[jump].to = program.length;
    } else {
      for (let k = 0;k < node.min; k++)
        gen(node.node);
      if (node.max === Infinity) {
        const split = emit({ op: "split", a: program.length + 1, b: 0 });
        gen(node.node);
        emit({ op: "jump", to: split });
        program[split].b = program.length;
      } else {
        for (let k = node.min;k < node.max; k++) {
          const split = emit({ op: "split", a: program.length + 1, b: 0 });
          gen(node.node);
          program[split].b = program.length;
        }
      }
    }
  };
  gen(root);
  emit({ op: "match" });
  return program;
}
var wordAt = (line, at) => at >= 0 && at < line.length && isWordCode(line.charCodeAt(at));
function run(program, line) {
  const end = Math.min(line.length, MAX_MATCH_CHARS);
  const seen = new Int32Array(program.length).fill(-1);
  let current = [];
  let next = [];
  const stack = [];
  const add = (list, start, at, mark) => {
    stack.push(start);
    while (stack.length > 0) {
      const pc = stack.pop();
      if (seen[pc] === mark)
        continue;
      seen[pc] = mark;
      const ins = program[pc];
      if (ins.op === "match") {
        stack.length = 0;
        return true;
      }
      if (ins.op === "jump")
        stack.push(ins.to);
      else if (ins.op === "split")
        stack.push(ins.b, ins.a);
      else if (ins.op === "assert") {
        if (holds(ins.kind, line, at))
          stack.push(pc + 1);
      } else
        list.push(pc);
    }
    return false;
  };
  for (let at = 0;at <= end; at++) {
    if (add(current, 0, at, at))
      return true;
    if (at === end)
      break;
    const code = line.charCodeAt(at);
    next.length = 0;
    for (const pc of current) {
      const ins = program[pc];
      if (ins.test(code) && add(next, pc + 1, at + 1, at + 1))
        return true;
    }
    [current, next] = [next, current];
  }
  return false;
}
function holds(kind, line, at) {
  if (kind === "bol")
    return at === 0;
  if (kind === "eol")
    return at === line.length;
  const boundary = wordAt(line, at - 1) !== wordAt(line, at);
  return kind === "word" ? boundary : !boundary;
}

// src/archive/query-args.ts
var HELP = {
  toolCallIds: 'short refs as strings, e.g. ["t12"]',
  lines: 'a range as a string, e.g. "2001-4000", "head:N" or "tail:N"',
  pattern: 'text or a /regex/ as a string, e.g. "error" or "/fail(ed)?/i"'
};
function unusable(name, help) {
  return { error: `[${name} is not usable: pass ${help}]` };
}
function textOf(value) {
  try {
    return String(value);
  } catch {
    return;
  }
}
var NO_VALUE = Symbol("no value");
function argOf(params, name) {
  try {
    return params === undefined || params === null ? undefined : params[name];
  } catch {
    return NO_VALUE;
  }
}
function idsOf(raw) {
  const whole = unusable("toolCallIds", HELP.toolCallIds);
  if (raw === NO_VALUE)
    return whole;
  if (typeof raw === "string")
    return [raw];
  try {
    if (!Array.isArray(raw))
      return [];
    const ids = [];
    for (let at = 0;at < raw.length; at++) {
      const id = textOf(raw[at]);
      if (id === undefined)
        return unusable(`toolCallIds[${at}]`, HELP.toolCallIds);
      ids.push(id);
    }
    return ids;
  } catch {
    return whole;
  }
}
function optionalText(params, name) {
  const raw = argOf(params, name);
  if (raw === undefined || raw === null)
    return {};
  const text = raw === NO_VALUE ? undefined : textOf(raw);
  return text === undefined ? unusable(name, HELP[name]) : { text };
}
function readQueryArgs(params) {
  const ids = idsOf(argOf(params, "toolCallIds"));
  if (!Array.isArray(ids))
    return ids;
  const lines = optionalText(params, "lines");
  if ("error" in lines)
    return lines;
  const pattern = optionalText(params, "pattern");
  if ("error" in pattern)
    return pattern;
  const args = { ids };
  if (lines.text !== undefined)
    args.lines = lines.text;
  if (pattern.text !== undefined)
    args.pattern = pattern.text;
  return args;
}

// src/archive/query-paging.ts
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, truncateHead } from "@earendil-works/pi-coding-agent";
var RANGE = /^(\d+)\s*-\s*(\d*)$/;
var COUNT = /^(head|tail)\s*:\s*(\d+)$/i;
var RANGE_HELP = 'use "A-B" or "A-" with 1-based line numbers, e.g. "2001-4000", or "head:N" / "tail:N" for the first or last N lines';
function parseLineRange(value) {
  if (value === undefined)
    return {};
  const text = value.trim();
  if (text === "")
    return {};
  const count = COUNT.exec(text);
  if (count !== null) {
    const n = Number(count[2]);
    if (!Number.isSafeInteger(n) || n < 1)
      return { error: `[lines ${JSON.stringify(text)} is not a line range: ${RANGE_HELP}]` };
    return { range: count[1].toLowerCase() === "head" ? { first: 1, last: n, text } : { first: 1, tail: n, text } };
  }
  const match = RANGE.exec(text);
  const first = match ? Number(match[1]) : Number.NaN;
  const last = match?.[2] ? Number(match[2]) : undefined;
  if (!Number.isSafeInteger(first) || first < 1 || last !== undefined && (!Number.isSafeInteger(last) || last < first)) {
    return { error: `[lines ${JSON.stringify(text)} is not a line range: ${RANGE_HELP}]` };
  }
  return { range: last === undefined ? { first, text } : { first, last, text } };
}
function countableLines(text) {
  if (text.length === 0)
    return [];
  const lines = text.split(`
`);
  if (text.endsWith(`
`))
    lines.pop();
  return lines;
}
function rangeBounds(range, total) {
  if (range.tail !== undefined)
    return { first: Math.max(1, total - range.tail + 1), last: total };
  return { first: range.first, last: Math.min(range.last ?? total, total) };
}
function pastTheEnd(range, total) {
  const size = total === 1 ? "1 line" : `${total} lines`;
  return `[lines ${JSON.stringify(range.text)} starts past the end: this output has ${size}]`;
}
function pageOf(text, range, ref) {
  if (range === undefined)
    return { ...truncated(text, 1, ref), selected: text };
  const lines = countableLines(text);
  const total = lines.length;
  const { first, last } = rangeBounds(range, total);
  if (first > total)
    return { body: pastTheEnd(range, total), selected: "" };
  const tail = last === total && text.endsWith(`
`) ? `
` : "";
  const selected = lines.slice(first - 1, last).join(`
`) + tail;
  return { ...truncated(selected, first, ref), selected, linesHeader: `Lines: ${first}-${last} of ${total}` };
}
function truncated(selected, first, ref) {
  const result = truncateHead(selected, { maxLines: DEFAULT_MAX_LINES, maxBytes: DEFAULT_MAX_BYTES });
  if (!result.truncated)
    return { body: result.content };
  const last = first + result.totalLines - 1;
  const notes = [result.content, `[Output truncated: ${result.outputLines}/${result.totalLines} lines shown]`];
  let next = first + result.outputLines;
  if (result.outputLines === 0) {
    notes.push(`Line ${first} alone is larger than ${DEFAULT_MAX_BYTES / 1024} KiB and cannot be shown.`);
    next = first + 1;
  }
  if (next <= last)
    notes.push(`Next: ${QUERY_TOOL_NAME}({ toolCallIds: [${JSON.stringify(ref)}], lines: "${next}-${last}" })`);
  return { body: notes.join(`
`), truncated: true };
}

// src/archive/query-search.ts
var SEARCH_CHAR_CAP = 8000;
var CONTEXT_LINES = 2;
var MAX_GROUPS_PER_OUTPUT = 12;
var MAX_OUTPUTS_SHOWN = 10;
var SEARCH_TIME_BUDGET_MS = 2000;
var SHOWN_LINE_CHARS = 300;
var ARGS_CHARS = 160;
var CLOCK_EVERY_LINES = 256;
function searchOutputs(targets, pattern, range, clock = performance.now.bind(performance)) {
  const deadline = clock() + SEARCH_TIME_BUDGET_MS;
  const hits = [];
  for (let k = 0;k < targets.length; k++) {
    const target = targets[k];
    if (clock() > deadline)
      return { hits, unsearched: targets.length - k };
    const found = searchOne(target, pattern, range, () => clock() > deadline);
    hits.push(found);
    if (found.skipped === undefined && found.from + found.searched < rangeEnd(found, range))
      return { hits, unsearched: targets.length - k - 1 };
  }
  return { hits, unsearched: 0 };
}
function rangeEnd(hits, range) {
  return range === undefined ? hits.lines.length : rangeBounds(range, hits.lines.length).last;
}
var BINARY = /\u0000/;
function searchOne(target, pattern, range, overdue) {
  if (BINARY.test(target.text.slice(0, 8192)))
    return { target, matches: [], lines: [], from: 0, searched: 0, skipped: "binary output, not searched" };
  const lines = countableLines(target.text);
  let from = 0;
  let to = lines.length;
  if (range !== undefined) {
    const bounds = rangeBounds(range, lines.length);
    if (bounds.first > lines.length)
      return { target, matches: [], lines, from: 0, searched: 0, skipped: pastTheEnd(range, lines.length) };
    from = bounds.first - 1;
    to = bounds.last;
  }
  const matches = [];
  let at = from;
  for (;at < to; at++) {
    if ((at - from) % CLOCK_EVERY_LINES === 0 && at > from && overdue())
      break;
    if (pattern.test(lines[at]))
      matches.push(at);
  }
  return { target, matches, lines, from, searched: at - from };
}
function rankHits(hits) {
  return hits.filter((hit) => hit.matches.length > 0).sort((a, b) => b.matches.length - a.matches.length || b.target.time - a.target.time);
}
function shownLine(line) {
  return line.length <= SHOWN_LINE_CHARS ? line : `${line.slice(0, SHOWN_LINE_CHARS)}… [${line.length - SHOWN_LINE_CHARS} more chars]`;
}
function groupsOf(matches) {
  const groups = [];
  for (const match of matches) {
    const last = groups[groups.length - 1];
    if (last !== undefined && match - last[last.length - 1] <= 2 * CONTEXT_LINES + 1)
      last.push(match);
    else
      groups.push([match]);
  }
  return groups;
}
function groupText(lines, group, from, to) {
  const matched = new Set(group);
  const first = Math.max(from, group[0] - CONTEXT_LINES);
  const last = Math.min(to - 1, group[group.length - 1] + CONTEXT_LINES);
  const out = [];
  for (let at = first;at <= last; at++)
    out.push(`${at + 1}${matched.has(at) ? ":" : "-"} ${shownLine(lines[at])}`);
  return out.join(`
`);
}
function header(hit, pattern) {
  const { target } = hit;
  let args = "";
  try {
    args = JSON.stringify(target.args) ?? "";
  } catch {
    args = "(unprintable)";
  }
  if (args.length > ARGS_CHARS)
    args = `${args.slice(0, ARGS_CHARS)}…`;
  const lines = [`## toolRef: ${target.label}`, `Tool: ${target.toolName} · Status: ${target.isError ? "ERROR" : "OK"} · Args: ${args}`];
  if (target.note !== undefined)
    lines.push(`(${target.note})`);
  if (hit.skipped !== undefined)
    lines.push(hit.skipped.startsWith("[") ? hit.skipped : `(${hit.skipped})`);
  else {
    const count = hit.matches.length === 1 ? "1 matching line" : `${hit.matches.length} matching lines`;
    const partial = hit.searched < hit.lines.length ? ` (lines ${hit.from + 1}-${hit.from + hit.searched} of ${hit.lines.length} searched)` : ` of ${hit.lines.length}`;
    lines.push(`${count}${partial} for ${pattern.label}`);
  }
  return lines.join(`
`);
}
function outputText(hit, pattern, budget, patternArg) {
  const parts = [header(hit, pattern)];
  let used = parts[0].length;
  let shownMatches = 0;
  const groups = groupsOf(hit.matches);
  const to = hit.from + hit.searched;
  for (let g = 0;g < groups.length && g < MAX_GROUPS_PER_OUTPUT; g++) {
    const text = groupText(hit.lines, groups[g], hit.from, to);
    if (used + text.length + 4 > budget)
      break;
    parts.push(g === 0 ? text : `--
${text}`);
    used += text.length + 4;
    shownMatches += groups[g].length;
  }
  const more = hit.matches.length - shownMatches;
  if (more > 0) {
    const next = hit.matches[shownMatches] + 1;
    const call = `${QUERY_TOOL_NAME}({ toolCallIds: [${JSON.stringify(hit.target.label)}], pattern: ${JSON.stringify(patternArg)}, lines: "${next}-" })`;
    parts.push(`[${more} more ${more === 1 ? "match" : "matches"} not shown, from line ${next}; next: ${call}]`);
  }
  return { text: parts.join(`
`), shownMatches };
}
function formatSearch(run, pattern, patternArg, named) {
  const shown = new Map;
  const blocks = [];
  const hits = named ? run.hits : rankHits(run.hits);
  let budget = SEARCH_CHAR_CAP;
  let cutOutputs = 0;
  let cutMatches = 0;
  hits.forEach((hit, k) => {
    if (!named && k >= MAX_OUTPUTS_SHOWN || budget < 200) {
      cutOutputs += 1;
      cutMatches += hit.matches.length;
      return;
    }
    const { text, shownMatches } = outputText(hit, pattern, budget, patternArg);
    blocks.push(text);
    budget -= text.length;
    shown.set(hit.target.label, { matches: hit.matches.length, shownMatches, chars: text.length });
  });
  const lead = named ? [] : [archiveSummary(run, hits, pattern, patternArg)];
  const notes = [];
  if (cutOutputs > 0) {
    notes.push(`[${cutOutputs} more ${cutOutputs === 1 ? "output" : "outputs"} with ${cutMatches} more ${cutMatches === 1 ? "match" : "matches"} not shown (answer capped at ${SEARCH_CHAR_CAP} characters); name refs or narrow the pattern]`);
  }
  if (run.unsearched > 0)
    notes.push(`[search stopped after ${SEARCH_TIME_BUDGET_MS / 1000} s: ${run.unsearched} more ${run.unsearched === 1 ? "output was" : "outputs were"} not searched; name refs to search them]`);
  if (named && run.hits.every((hit) => hit.matches.length === 0))
    notes.push(literalHint(pattern, patternArg));
  const text = [...lead, ...blocks, ...notes].filter((part) => part !== "").join(`

---

`);
  return { text, shown };
}
function archiveSummary(run, ranked, pattern, patternArg) {
  const searched = run.hits.filter((hit) => hit.skipped === undefined).length;
  const outputs = `${searched} archived ${searched === 1 ? "output" : "outputs"}`;
  if (ranked.length === 0) {
    const hint = literalHint(pattern, patternArg);
    return `No archived output of this session matches ${pattern.label} (${outputs} searched).${hint === "" ? "" : ` ${hint}`}`;
  }
  const total = ranked.reduce((n, hit) => n + hit.matches.length, 0);
  return `Search for ${pattern.label} over ${outputs}: ${total} matching ${total === 1 ? "line" : "lines"} in ${ranked.length} ${ranked.length === 1 ? "output" : "outputs"}, most matches first.`;
}
var LOOKS_LIKE_EXPRESSION = /\.\*|\\[dwsb]|\|\w|\[\w+-\w+\]|\+\)|\w\+|\^\w|\w\$$/;
function literalHint(pattern, patternArg) {
  if (!pattern.label.startsWith("literal ") || !LOOKS_LIKE_EXPRESSION.test(patternArg))
    return "";
  return `(The pattern was searched as a literal string; write /${patternArg}/ for a regular expression.)`;
}

// src/archive/query-tool.ts
var SIDECAR_MISSING = "(spilled output unavailable — sidecar file missing)";
var BLOCK_SEPARATOR = `

---

`;
var DESCRIPTION = "Return the full original output (images too) of tool calls replaced by stubs or summaries, by the short refs a stub " + 'or pruner-summary message shows: context_tree_query({ toolCallIds: ["t12", "t3"] }). A raw id used by several calls ' + 'returns each occurrence, labelled id@timestamp. lines: "2001-4000", "head:N" or "tail:N" for a part; pattern: text or /regex/i ' + "for matching lines only (no refs: searches all).";
var PARAM_DESCRIPTION = "Required unless pattern is given: short refs like t12 (or raw ids) from a stub or pruner-summary message; a repeated raw id returns every occurrence, as id@timestamp.";
var GUIDELINE = "For an archived tool call's full output, call context_tree_query with the ref its stub or summary shows.";
function sessionOf(ctx) {
  const manager = ctx?.sessionManager;
  let images;
  return {
    ownBlobDir: ownBlobDirOf(manager),
    images() {
      if (images === undefined) {
        try {
          images = toolResultImagesByDigest(manager?.getBranch());
        } catch (error) {
          console.error("context_tree_query: failed to read the session branch for images:", error);
          images = new Map;
        }
      }
      return images;
    }
  };
}
function ownBlobDirOf(manager) {
  try {
    const dir = manager?.getSessionDir();
    if (typeof dir !== "string" || dir === "")
      return;
    return resolve(blobDirFor(dir, manager.getSessionId()));
  } catch {
    return;
  }
}
function readFailure(spillPath, error) {
  console.error(`context_tree_query: failed to read spilled output at ${String(spillPath)}:`, error);
}
function withPreview(note, preview) {
  return preview ? `${note}
Preview (head):
${preview}` : note;
}
function unavailableReason(read, checked) {
  if (read.kind === "changed")
    return `the archived copy was changed or truncated after it was archived (${read.reason})`;
  if (read.kind === "missing")
    return checked ? "the archived copy was deleted" : "sidecar file missing";
  return read.reason;
}
function logFailedRead(spillPath, read) {
  readFailure(spillPath, read.kind === "missing" ? read.error : new Error(`${read.kind}: ${read.reason}`));
}
async function spilledBody(record, session) {
  const copy = archivedCopyOf2(record);
  const read = await readOwnSidecar(session.ownBlobDir, record.spillPath, copy);
  if (read.kind === "ok")
    return read.text;
  logFailedRead(record.spillPath, read);
  if (read.kind === "missing" && !copy)
    return record.resultPreview || SIDECAR_MISSING;
  const shown = read.kind === "changed" ? "none of it is shown" : "nothing was read";
  return withPreview(`(spilled output not available — ${unavailableReason(read, copy !== undefined)}; ${shown})`, record.resultPreview);
}
function rawBody(record, session) {
  return record.spillPath ? spilledBody(record, session) : String(record.resultText ?? "");
}
async function recordBlock(record, label, several, session, paging) {
  const lines = [`## toolRef: ${label}`];
  if (several && record.resultTimestamp === undefined)
    lines.push("Occurrence: legacy (no resultTimestamp)");
  const original = paging.error === undefined ? await rawBody(record, session) : undefined;
  const page = original !== undefined ? pageOf(original, paging.range, label) : { body: paging.error ?? "", selected: "" };
  lines.push(`Tool: ${record.toolName}`, `Args: ${JSON.stringify(record.args, null, 2)}`, `Status: ${record.isError ? "ERROR" : "OK"}`, `Turn: ${record.turnIndex}`);
  if (page.linesHeader !== undefined)
    lines.push(page.linesHeader);
  lines.push("", page.body);
  const images = page.selected.includes("[image returned: ") ? imagesForMarkers(page.selected, session.images()) : [];
  return { text: lines.join(`
`), images, page, original };
}
function factsOf(record, answer, shortRef) {
  const facts = {
    toolCallId: record.toolCallId,
    toolName: record.toolName,
    isError: record.isError === true,
    turnIndex: record.turnIndex,
    originalChars: answer.original?.length ?? 0,
    shownChars: answer.page.body.length,
    truncated: answer.page.truncated === true,
    spilled: typeof record.spillPath === "string" && record.spillPath !== "",
    images: answer.images.length
  };
  if (record.resultTimestamp !== undefined)
    facts.resultTimestamp = record.resultTimestamp;
  if (shortRef !== undefined)
    facts.shortRef = shortRef;
  if (answer.page.linesHeader !== undefined)
    facts.lines = answer.page.linesHeader.replace(/^Lines: /, "");
  return facts;
}
async function answersForId(indexer, id, results, session, paging) {
  const records = indexer.getRecordsForId(id);
  if (records.length === 0)
    return [{ text: `## toolRef: ${id}
${NOT_FOUND_NOTE}`, images: [] }];
  const several = records.length > 1;
  const answers = [];
  for (const record of records) {
    const label = several && record.resultTimestamp !== undefined ? `${id}@${record.resultTimestamp}` : id;
    const answer = await recordBlock(record, label, several, session, paging);
    answers.push(answer);
    results[label] = factsOf(record, answer, indexer.getShortRefForToolCallId(occKey(record.toolCallId, record.resultTimestamp)));
  }
  return answers;
}
async function searchableText(record, session) {
  if (!record.spillPath)
    return { text: String(record.resultText ?? "") };
  const copy = archivedCopyOf2(record);
  const read = await readOwnSidecar(session.ownBlobDir, record.spillPath, copy);
  if (read.kind === "ok")
    return { text: read.text };
  logFailedRead(record.spillPath, read);
  const reason = unavailableReason(read, copy !== undefined);
  return { text: record.resultPreview ?? "", note: `spilled output not available — ${reason}; only its preview was searched` };
}
async function targetOf(record, label, session) {
  const { text, note } = await searchableText(record, session);
  const target = { label, toolName: record.toolName, args: record.args, isError: record.isError === true, time: record.resultTimestamp ?? record.timestamp, text };
  if (note !== undefined)
    target.note = note;
  return { target, record };
}
async function searchTargets(indexer, ids, session, notFound) {
  const found = [];
  if (ids.length === 0) {
    for (const [key, record] of indexer.getIndex()) {
      if (isRecoveryTool(record.toolName))
        continue;
      found.push(await targetOf(record, indexer.getShortRefForToolCallId(key) ?? key, session));
    }
    return found;
  }
  for (const id of ids) {
    const records = indexer.getRecordsForId(id);
    if (records.length === 0)
      notFound.push(`## toolRef: ${id}
${NOT_FOUND_NOTE}`);
    const several = records.length > 1;
    for (const record of records) {
      found.push(await targetOf(record, several && record.resultTimestamp !== undefined ? `${id}@${record.resultTimestamp}` : id, session));
    }
  }
  return found;
}
async function searchAnswer(indexer, ids, patternArg, paging, session) {
  const compiled = compilePattern(patternArg);
  if (!compiled.ok)
    return { text: `[pattern ${JSON.stringify(patternArg)} is not usable: ${compiled.error}]`, results: {} };
  if (paging.error !== undefined)
    return { text: paging.error, results: {} };
  const notFound = [];
  const found = await searchTargets(indexer, ids, session, notFound);
  const run = searchOutputs(found.map((f) => f.target), compiled.pattern, paging.range);
  const answer = formatSearch(run, compiled.pattern, patternArg, ids.length > 0);
  const results = {};
  for (const { target, record } of found) {
    const shown = answer.shown.get(target.label);
    if (shown === undefined)
      continue;
    const facts = {
      toolCallId: record.toolCallId,
      toolName: record.toolName,
      isError: record.isError === true,
      turnIndex: record.turnIndex,
      originalChars: target.text.length,
      shownChars: shown.chars,
      truncated: shown.shownMatches < shown.matches,
      spilled: typeof record.spillPath === "string" && record.spillPath !== "",
      images: 0,
      matches: shown.matches,
      shownMatches: shown.shownMatches
    };
    if (record.resultTimestamp !== undefined)
      facts.resultTimestamp = record.resultTimestamp;
    const shortRef = indexer.getShortRefForToolCallId(occKey(record.toolCallId, record.resultTimestamp));
    if (shortRef !== undefined)
      facts.shortRef = shortRef;
    results[target.label] = facts;
  }
  return { text: [answer.text, ...notFound].filter((part) => part !== "").join(BLOCK_SEPARATOR), results };
}
var NOTHING_ASKED = "[Pass toolCallIds (short refs such as t12), or a pattern to search every archived output of this session.]";
function registerQueryTool(pi, indexer) {
  pi.registerTool({
    name: QUERY_TOOL_NAME,
    label: "Query Original Tool History",
    description: DESCRIPTION,
    defaultActive: false,
    promptSnippet: "Retrieve original pruned tool outputs by short ref",
    promptGuidelines: [GUIDELINE],
    parameters: Type.Object({
      toolCallIds: Type.Optional(Type.Array(Type.String(), { description: PARAM_DESCRIPTION })),
      lines: Type.Optional(Type.String()),
      pattern: Type.Optional(Type.String())
    }),
    async execute(_toolCallId, params, _signal, _onUpdate, ctx) {
      const args = readQueryArgs(params);
      if ("error" in args)
        return { content: [{ type: "text", text: args.error }], details: { results: {} } };
      const { ids, pattern } = args;
      const session = sessionOf(ctx);
      const paging = parseLineRange(args.lines);
      if (pattern !== undefined) {
        try {
          const { text, results } = await searchAnswer(indexer, ids, pattern, paging, session);
          return { content: [{ type: "text", text }], details: { results } };
        } catch (error) {
          console.error("context_tree_query: search failed:", error);
          return { content: [{ type: "text", text: `[search for ${JSON.stringify(pattern)} failed; nothing was returned]` }], details: { results: {} } };
        }
      }
      if (ids.length === 0)
        return { content: [{ type: "text", text: NOTHING_ASKED }], details: { results: {} } };
      const results = {};
      const texts = [];
      const images = [];
      for (const id of ids) {
        try {
          for (const answer of await answersForId(indexer, id, results, session, paging)) {
            texts.push(answer.text);
            images.push(...answer.images);
          }
        } catch (error) {
          console.error(`context_tree_query: failed to answer ${id}:`, error);
          texts.push(`## toolRef: ${id}
${NOT_FOUND_NOTE}`);
        }
      }
      const details = { results };
      return { content: [{ type: "text", text: texts.join(BLOCK_SEPARATOR) }, ...images], details };
    }
  });
}

// src/host/cold-cache.ts
function onCacheCold(state) {
  state.supersede.floor = 0;
}
function onSessionReset(state) {
  state.supersede.activated.clear();
  state.supersede.floor = 0;
}

// src/host/final-reply-flush.ts
var SETTLE_WAIT_MS = 15000;
async function startFinalReplyFlush(state, ctx, closingMessage, policy = {}) {
  await startBackgroundFlush(state, (signal) => flushPending(state, ctx, {
    ...policy,
    delivery: "session",
    closingMessage,
    trigger: "message-end",
    signal,
    beforePersist: () => state.safePoints.wait(ctx)
  }));
}
async function startColdFlush(state, ctx, decision, batches) {
  await startBackgroundFlush(state, async (signal) => {
    const beforePersist = () => state.safePoints.wait(ctx);
    const result = await flushPending(state, ctx, { delivery: "session", trigger: "cache-cold", decision, signal, beforePersist, previewedBatches: batches });
    if (!result.ok && result.reason === "empty" && !signal.aborted) {
      await beforePersist();
      await compressClosedChains(state, ctx, signal);
    }
  });
}
async function startBackgroundFlush(state, run) {
  const abort = new AbortController;
  const done = run(abort.signal).catch((err) => console.error("pi-condense: background flush failed", err));
  const flush = { done, abort, requestWaited: false };
  state.finalReplyFlush = flush;
  done.then(() => {
    if (state.finalReplyFlush === flush)
      state.finalReplyFlush = undefined;
  });
  await Promise.race([done, nextEventLoopTurn().promise]);
}
function nextEventLoopTurn() {
  return { promise: new Promise((resolve) => setImmediate(resolve)), cancel: () => {} };
}
async function settleBeforeRequest(state, ctx, waitMs = SETTLE_WAIT_MS) {
  const flush = state.finalReplyFlush;
  if (!flush)
    return [];
  const before = branchLength(ctx);
  const wait = flush.requestWaited ? nextEventLoopTurn() : timeoutAfter(waitMs);
  flush.requestWaited = true;
  await state.safePoints.holdOpen(Promise.race([flush.done, wait.promise]));
  wait.cancel();
  return before === undefined ? [] : appendedSummaries(ctx, before);
}
function timeoutAfter(ms) {
  let timer;
  const promise = new Promise((resolve) => timer = setTimeout(resolve, ms));
  return { promise, cancel: () => clearTimeout(timer) };
}
function branchLength(ctx) {
  try {
    return ctx.sessionManager.getBranch().length;
  } catch {
    return;
  }
}
function appendedSummaries(ctx, from) {
  try {
    return projectBranchMessages(ctx.sessionManager.getBranch().slice(from)).filter((m) => isCustom(m) && m.customType === CUSTOM_TYPE_SUMMARY);
  } catch {
    return [];
  }
}
async function settleRunningFlush(state, opts) {
  const flush = state.finalReplyFlush;
  if (!flush)
    return;
  const timeout = timeoutAfter(opts.waitMs ?? SETTLE_WAIT_MS);
  await state.safePoints.holdOpen(Promise.race([flush.done, timeout.promise]));
  timeout.cancel();
  if (!opts.abandon)
    return;
  flush.abort.abort();
  await flush.done;
}
async function settleOnShutdown(state, waitMs = SETTLE_WAIT_MS) {
  state.safePoints.leave();
  await settleRunningFlush(state, { waitMs, abandon: true });
}

// src/host/cache-expiry.ts
function onCacheKeyChange(state, ctx, change) {
  onCacheCold(state);
  if (change === "thinking" && cacheRouteOf(ctx.model, processCacheEnv()).rule !== "anthropic-breakpoints")
    return;
  state.cache.invalidate();
}
var EXPIRY_MARGIN_MS = 1000;
function clearCacheExpiry(state) {
  if (state.policy.expiryTimer !== undefined)
    clearTimeout(state.policy.expiryTimer);
  state.policy.expiryTimer = undefined;
}
function scheduleCacheExpiry(state, ctx) {
  clearCacheExpiry(state);
  if (!costPolicyActive(state))
    return;
  const cache = state.cache.state(Date.now(), cacheTtlMs(ctx));
  if (cache.temperature !== "warm" || cache.expiresInMs === undefined)
    return;
  const timer = setTimeout(() => void onExpired(state, ctx), cache.expiresInMs + EXPIRY_MARGIN_MS);
  timer.unref?.();
  state.policy.expiryTimer = timer;
}
async function onExpired(state, ctx) {
  state.policy.expiryTimer = undefined;
  try {
    if (!costPolicyActive(state) || state.isFlushing || state.finalReplyFlush || !isIdle2(ctx))
      return;
    noteCacheWarming(state, ctx);
    const cache = state.cache.state(Date.now(), cacheTtlMs(ctx));
    if (cache.temperature === "warm")
      return scheduleCacheExpiry(state, ctx);
    if (cache.temperature === "cold")
      await flushCold(state, ctx);
  } catch (err) {
    console.error("pi-condense: the cold-cache flush failed", err);
  }
}
async function flushIfCacheCold(state, ctx) {
  if (!costPolicyActive(state) || state.isFlushing || state.finalReplyFlush || state.cache.requests === 0)
    return;
  const cold = () => state.cache.state(Date.now(), cacheTtlMs(ctx)).temperature === "cold";
  if (!cold())
    return;
  noteCacheWarming(state, ctx);
  if (cold())
    await flushCold(state, ctx);
}
async function flushCold(state, ctx) {
  const expiredRequest = state.cache.state(Date.now(), cacheTtlMs(ctx)).lastRequestAt;
  if (expiredRequest !== undefined && state.policy.coldFlushedFor === expiredRequest)
    return;
  state.policy.coldFlushedFor = expiredRequest;
  onCacheCold(state);
  const unseen = unseenTurn(ctx);
  const weighed = weighFlush(state, ctx, "cold", { select: (batches) => batches.filter((b) => b.turnIndex !== unseen) });
  const record = weighed?.decision.record ?? {
    verdict: "apply",
    basis: "cold",
    reason: "the prompt cache has expired, so rewriting costs nothing extra",
    cache: { temperature: "cold" }
  };
  state.policy.last = record;
  await startColdFlush(state, ctx, record, weighed?.batches ?? []);
}
function unseenTurn(ctx) {
  let branch;
  try {
    branch = ctx.sessionManager.getBranch();
  } catch {
    return;
  }
  let assistants = 0;
  let endsWithResults = false;
  for (const value of branch) {
    const entry = looseEntry(value);
    const role = entry?.type === "message" ? roleOf(entry.message) : undefined;
    if (role === "assistant") {
      assistants++;
      endsWithResults = false;
    } else if (role === "toolResult")
      endsWithResults = true;
  }
  return endsWithResults ? assistants - 1 : undefined;
}
function isIdle2(ctx) {
  try {
    return ctx.isIdle();
  } catch {
    return false;
  }
}

// src/archive/sidecar-inherit.ts
import { closeSync, openSync, readSync } from "node:fs";
import { access } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
var HEADER_BYTES = 64 * 1024;
async function inheritSidecars(records, parentSessionFile, own) {
  if (!own.sessionDir)
    return 0;
  const parentId = sessionIdOf(parentSessionFile);
  if (parentId === undefined)
    return 0;
  const parentBlobDir = blobDirFor(dirname(parentSessionFile), parentId);
  const ownBlobDir = blobDirFor(own.sessionDir, own.sessionId);
  if (parentBlobDir === ownBlobDir)
    return 0;
  let copied = 0;
  for (const record of records) {
    if (typeof record.spillPath !== "string")
      continue;
    const name = basename(record.spillPath);
    if (await exists(join(ownBlobDir, name)))
      continue;
    const read = await readOwnSidecar(parentBlobDir, join(parentBlobDir, name));
    if (read.kind !== "ok")
      continue;
    await writeSidecarNamed(own.sessionDir, own.sessionId, name, read.text);
    copied++;
  }
  return copied;
}
function sessionIdOf(file) {
  try {
    const fd = openSync(file, "r");
    try {
      const buffer = Buffer.alloc(HEADER_BYTES);
      const read = readSync(fd, buffer, 0, HEADER_BYTES, 0);
      const line = buffer.subarray(0, read).toString("utf8").split(`
`, 1)[0] ?? "";
      const header = JSON.parse(line);
      return header?.type === "session" && typeof header.id === "string" ? header.id : undefined;
    } finally {
      closeSync(fd);
    }
  } catch {
    return;
  }
}
async function exists(path) {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

// src/host/session-lifecycle.ts
async function onSessionStart(state, ctx, event = {}) {
  const { config, warnings, offReason } = await loadConfigWithWarnings();
  state.config.value = config;
  state.config.offReason = offReason;
  state.writeFaults.reset();
  rebuildFromBranch(state, ctx, true);
  if (event.reason === "fork" && typeof event.previousSessionFile === "string")
    await inheritFromParent(state, ctx, event.previousSessionFile);
  if (state.config.value.enabled)
    scheduleCacheExpiry(state, ctx);
  if (state.config.value.showPruneStatusLine)
    showBootWidget(ctx, state.config.value);
  showSettingsWarnings(state, ctx, warnings);
}
function showSettingsWarnings(state, ctx, warnings) {
  if (warnings.length === 0)
    return;
  if (!hasTranscript(ctx)) {
    for (const warning of warnings)
      safeNotify(ctx, warning, "warning");
    return;
  }
  const lines = warnings.map((warning) => `  ${warning.replace(/^pruner: (settings\.json )?/, "")}`);
  showReport(state.pi, ctx, [`pruner: ${plural(warnings.length, "problem")} in the contextPrune settings of ${settingsPath()}:`, ...lines].join(`
`), "warning");
}
function hasTranscript(ctx) {
  try {
    return ctx.sessionManager.getBranch().length > 0;
  } catch {
    return false;
  }
}
async function inheritFromParent(state, ctx, parentSessionFile) {
  try {
    const sm = ctx.sessionManager;
    await inheritSidecars(state.indexer.getIndex().values(), parentSessionFile, { sessionDir: sm.getSessionDir(), sessionId: sm.getSessionId() });
  } catch (err) {
    console.error("pi-condense: copying the parent session's sidecars into the fork failed", err);
  }
}
function onSessionTree(state, ctx) {
  rebuildFromBranch(state, ctx, false);
}
function rebuildFromBranch(state, ctx, resetFallback) {
  state.indexer.reconstructFromSession(ctx);
  if (state.config.value.enabled)
    upgradeLegacyRefs(state);
  state.blockRefs.rebuildFrom(state.indexer.getChainEntries().map((entry) => entry.blockId));
  state.stats.reconstructFromSession(ctx);
  if (resetFallback)
    state.fallback.reset();
  state.diagnostics.reset();
  state.frontier.reconstructFromSession(ctx);
  state.pending.length = 0;
  state.previousFraction = null;
  state.rearmedPending = false;
  onSessionReset(state);
  clearCacheExpiry(state);
  if (state.config.value.enabled)
    probeRearm(state, ctx);
  rebuildPolicyState(state, ctx);
  rebuildSight(state, ctx);
  declareQueryTool(state.pi, state.indexer.getIndex().size > 0);
  showResumedFigure(state, ctx);
}
function showResumedFigure(state, ctx) {
  if (!state.config.value.enabled || state.indexer.getIndex().size === 0) {
    refreshStatus(state, ctx);
    return;
  }
  calibrateFromBranch(state, ctx);
  try {
    state.stats.noteSystemPrompt(ctx.getSystemPrompt().length);
  } catch {}
  state.status.refresh(ctx);
}
function rebuildSight(state, ctx) {
  try {
    state.sight.rebuild(ctx.sessionManager.getBranch(), typeof ctx.cwd === "string" ? ctx.cwd : undefined);
  } catch (err) {
    console.error("pi-condense: reading live sight's window from the branch failed; it starts narrow", err);
  }
}
function upgradeLegacyRefs(state) {
  try {
    state.indexer.upgradeLegacyRefs((customType, data) => state.pi.appendEntry(customType, data));
  } catch (err) {
    console.error("pi-condense: giving older records a short ref failed; their outputs stay raw", err);
  }
}
function probeRearm(state, ctx) {
  try {
    state.rearmedPending = capturePendingBatches(state, ctx, { rethrow: true }).length > 0;
  } catch (err) {
    console.error("pi-condense: reload rearm probe failed", err);
  }
}

// src/arguments/copy-guard.ts
var GUARDED_TOOLS = new Set(["write", "edit"]);
var MAX_DEPTH = 4;
function copiedMarker(toolName, args, indexer) {
  if (typeof toolName !== "string" || !GUARDED_TOOLS.has(toolName))
    return;
  for (const text of stringsOf(args, 0)) {
    for (const candidate of markerCandidates(text))
      if (isLiveMarker(candidate, indexer))
        return candidate;
  }
  return;
}
function isLiveMarker(candidate, indexer) {
  const record = indexer.getRecord(candidate.ref);
  return record !== undefined && archivedMarker(record, candidate.field, candidate.ref) === candidate.text;
}
function copyGuardReason(toolName, marker) {
  return `pi-condense blocked this ${toolName}: its arguments hold the marker that stands for the archived ${marker.field} of ` + `${marker.ref}, not the text itself. Call context_tree_query({ toolCallIds: ["${marker.ref}"] }) for the original ` + "(its Args line holds it verbatim) and send the real text.";
}
function copyGuardNotice(toolName, args, marker) {
  const path = typeof args === "object" && args !== null ? args.path : undefined;
  const call = typeof path === "string" && path !== "" ? `${toolName === "edit" ? "edit of" : "write to"} ${path}` : toolName;
  return `pi-condense blocked the agent's ${call}: nothing was written (the change shown above was not applied). ` + `The call held a placeholder for text archived as ${marker.ref}, not the text itself; ` + "the agent was told how to fetch the original and try again.";
}
function* stringsOf(value, depth) {
  if (typeof value === "string") {
    yield value;
    return;
  }
  if (depth >= MAX_DEPTH || typeof value !== "object" || value === null)
    return;
  const items = Array.isArray(value) ? value : Object.values(value);
  for (const item of items)
    yield* stringsOf(item, depth + 1);
}

// src/host/copy-guard-hook.ts
function onToolCall(state, event, ctx) {
  const marker = copiedMarker(event.toolName, event.input, state.indexer);
  if (marker === undefined)
    return;
  const toolName = String(event.toolName);
  try {
    ctx.ui.notify(copyGuardNotice(toolName, event.input, marker), "warning");
  } catch (err) {
    console.error("pi-condense: telling the user about a blocked call failed", err);
  }
  return { block: true, reason: copyGuardReason(toolName, marker) };
}

// src/host/cache-warming.ts
import { evaluateCacheWarming } from "@earendil-works/pi-ai";
function rewrittenSinceLastRequest(branch) {
  const found = { keys: new Set, calls: new Set, chainStarts: new Set };
  let any = false;
  for (let i = branch.length - 1;i >= 0; i--) {
    const entry = looseEntry(branch[i]);
    if (entry?.type === "message" && isAssistant(entryMessage(entry)))
      break;
    if (entry?.type !== "custom")
      continue;
    if (entry.customType === CUSTOM_TYPE_INDEX) {
      const parsed = parseIndexEntry(entry.data);
      if (!parsed.ok)
        continue;
      for (const record of parsed.value.toolCalls) {
        found.keys.add(occKey(record.toolCallId, record.resultTimestamp));
        found.calls.add(record.toolCallId);
      }
      any ||= parsed.value.toolCalls.length > 0;
    } else if (entry.customType === CUSTOM_TYPE_DEDUP_ALIAS) {
      const parsed = parseAliasEntry(entry.data);
      if (!parsed.ok)
        continue;
      found.keys.add(occKey(parsed.value.newToolCallId, parsed.value.newResultTimestamp));
      found.calls.add(parsed.value.newToolCallId);
      any = true;
    } else if (entry.customType === CUSTOM_TYPE_CHAIN) {
      const parsed = parseChainEntry(entry.data);
      if (!parsed.ok)
        continue;
      found.chainStarts.add(parsed.value.startUserTimestamp);
      any = true;
    }
  }
  return any ? found : undefined;
}
function rewritePoint(messages, rewritten) {
  for (let i = 0;i < messages.length; i++) {
    const message = messages[i];
    if (isUser(message) && rewritten.chainStarts.has(Number(loose(message)?.timestamp)))
      return i;
    if (isAssistant(message) && contentBlocks(message).some((block) => isToolCall(block) && rewritten.calls.has(String(block.id))))
      return i;
    if (isToolResult(message) && rewritten.keys.has(occKey(String(message.toolCallId), typeof message.timestamp === "number" ? message.timestamp : undefined)))
      return i;
  }
  return;
}
function readableAfterRewrite(state, ctx) {
  let branch;
  try {
    branch = ctx.sessionManager.getBranch();
  } catch {
    return;
  }
  const rewritten = rewrittenSinceLastRequest(branch);
  if (!rewritten)
    return;
  const messages = projectBranchMessages(branch);
  const point = rewritePoint(messages, rewritten);
  if (point === undefined)
    return;
  let chars = 0;
  for (let i = 0;i < point; i++)
    chars += requestChars(messages[i]);
  const overhead = state.stats.getLiveReclaim()?.overheadTokens ?? 0;
  return (systemTokens(state, ctx).systemTokens ?? 0) + chars / 4 + overhead;
}
function phaseOf(ctx) {
  try {
    return ctx.isIdle() ? "idle" : "streaming";
  } catch {
    return "idle";
  }
}
function onCacheWarmingDecision(state, ctx, event) {
  if (event.action !== "warm" || !costPolicyActive(state) || !ctx.model)
    return;
  const readable = readableAfterRewrite(state, ctx);
  if (readable === undefined)
    return;
  const verdict = evaluateCacheWarming(ctx.model, Math.round(readable), phaseOf(ctx));
  if (verdict.action === "warm")
    return;
  state.policy.warmingStopped += 1;
  return { action: "stop" };
}

// src/host/turn-handlers.ts
async function onTurnEnd(state, ctx, event) {
  if (!state.config.value.enabled)
    return;
  if (costPolicyActive(state))
    judgeSight(state, ctx, event.message);
  const hasToolResults = Array.isArray(event.toolResults) && event.toolResults.length > 0;
  if (!hasToolResults && !state.rearmedPending)
    return;
  let pushed = false;
  if (hasToolResults) {
    pushed = await captureTurn(state, ctx, event);
  }
  if (!pushed && !state.rearmedPending)
    return;
  if (await evaluateBudgetGate(state, ctx))
    return;
  if (costPolicyActive(state))
    await weighInRunFlush(state, ctx, event.message);
}
async function weighInRunFlush(state, ctx, message) {
  if (state.isFlushing || state.finalReplyFlush)
    return;
  const current = sessionTurnIndex(ctx, message);
  if (current === undefined)
    return;
  const forced = rewriteForced(state, ctx);
  const extra = state.sight.extraTurns();
  let weighed = weighFlush(state, ctx, "in-run", { select: (batches) => inRunCandidates(batches, current, forced, extra) });
  let older = forced;
  if (!weighed?.decision.apply && !forced && state.ledger.account("reply")) {
    const all = weighFlush(state, ctx, "in-run", { select: (batches) => inRunCandidates(batches, current, true, extra), bound: { kind: "reply", enter: false, rentOnly: true }, quiet: true });
    if (all?.decision.apply)
      [weighed, older] = [all, true];
  }
  if (!weighed?.decision.apply)
    return;
  if (extra > 0 && state.sight.narrowingDue()) {
    const narrow = weighFlush(state, ctx, "in-run", { select: (batches) => inRunCandidates(batches, current, older), quiet: true });
    if (narrow?.decision.apply) {
      weighed = narrow;
      applySightChange(ctx, state.sight.narrowInRewrite());
    }
  }
  const { basis } = weighed.decision.record;
  const trigger = basis === "pressure" ? "pressure" : basis === "cold" ? "cache-cold" : "in-run";
  const flushed = new Set(weighed.batches.map((b) => b.turnIndex));
  const waiting = state.pending.filter((b) => !flushed.has(b.turnIndex));
  const chains = basis === "bound" ? weighChainPass(state, ctx, undefined, weighed) : basis !== "pays";
  await flushPending(state, ctx, {
    delivery: "session",
    trigger,
    previewedBatches: weighed.batches,
    decision: weighed.decision.record,
    chains
  });
  state.pending.push(...waiting.filter((b) => !state.pending.includes(b)));
}
function judgeSight(state, ctx, message) {
  try {
    state.sight.update(ctx.sessionManager.getBranch());
    const pendingTurns = state.pending.map((batch) => batch.turnIndex);
    applySightChange(ctx, state.sight.judge(pendingTurns, () => sessionTurnIndex(ctx, message)));
  } catch (err) {
    console.error("pi-condense: counting recoveries failed", err);
  }
}
function applySightChange(ctx, change) {
  if (!change)
    return;
  try {
    sessionAppenderOf(ctx).appendCustomEntry(CUSTOM_TYPE_SIGHT, change.entry);
  } catch (err) {
    console.error("pi-condense: recording the raw window failed; it holds until a reload", err);
  }
  safeNotify(ctx, change.notice, "info");
}
async function captureTurn(state, ctx, event) {
  const config = state.config.value;
  const turnIndex = sessionTurnIndex(ctx, event.message) ?? event.turnIndex ?? 0;
  const batch = captureBatch(event.message, event.toolResults ?? [], turnIndex, Date.now());
  const filtered = {
    ...batch,
    toolCalls: batch.toolCalls.filter((tc) => !isRecoveryTool(tc.toolName) && !isProtected(tc.toolName, tc.args, config))
  };
  await spillEagerly(state, ctx, filtered);
  declareQueryTool(state.pi, state.indexer.getIndex().size > 0);
  const kept = trimBatchToPendingRange(filtered, (key) => state.indexer.isSummarized(key), state.frontier.get());
  if (!kept)
    return false;
  state.pending.push(kept);
  showPending(state, ctx);
  return true;
}
function sessionTurnIndex(ctx, message) {
  if (!message)
    return;
  let branch;
  try {
    branch = ctx.sessionManager.getBranch();
  } catch {
    return;
  }
  const time = loose(message)?.timestamp;
  let assistants = 0;
  let found;
  for (const entry of branch) {
    const m = entryMessage(entry);
    if (!isAssistant(m))
      continue;
    if (m === message || m.timestamp === time && m.timestamp !== undefined)
      found = assistants;
    assistants++;
  }
  return found;
}
async function spillEagerly(state, ctx, batch) {
  const config = state.config.value;
  try {
    const sm = ctx.sessionManager;
    const session = sessionAppenderOf(ctx);
    await spillOversizedBatch({
      batch,
      indexer: state.indexer,
      config: {
        spillThreshold: config.spillThreshold,
        spillPreviewBytes: config.spillPreviewBytes,
        dedupByContentHash: config.dedupByContentHash
      },
      sessionDir: sm.getSessionDir(),
      sessionId: sm.getSessionId(),
      appendEntry: (customType, data) => session.appendCustomEntry(customType, data),
      files: state.files,
      onWriteFailed: (error) => state.writeFaults.report(error, (message) => safeNotify(ctx, message, "warning"))
    });
  } catch {}
}
async function evaluateBudgetGate(state, ctx) {
  const config = state.config.value;
  const usage = ctx.getContextUsage?.();
  const budgetHit = shouldBudgetFlush(usage, config.autoBudgetThreshold);
  const deltaHit = shouldDeltaFlush(usage, state.previousFraction, config.budgetTurnDelta);
  const fraction = usageFraction(usage);
  if (fraction != null)
    state.previousFraction = fraction;
  const n = state.pending.length;
  if (!(n > 0 || state.rearmedPending) || state.isFlushing)
    return false;
  const gapHit = !budgetHit && !deltaHit && frontierGapHit(state, ctx);
  if (!(budgetHit || deltaHit || gapHit))
    return false;
  const reason = budgetHit ? "the context reached your auto-flush budget" : deltaHit ? "the context grew past your per-turn limit" : "tool output not yet summarized passed your threshold";
  const what = n > 0 ? `summarizing ${plural(n, "waiting tool turn")} now` : "summarizing tool output found after the reload";
  safeNotify(ctx, `pruner: ${reason} — ${what}`, "info");
  const trigger = n === 0 ? "rearmed" : budgetHit ? "budget" : deltaHit ? "delta" : "frontier-gap";
  await flushPending(state, ctx, { delivery: "session", trigger });
  return true;
}
function frontierGapHit(state, ctx) {
  const threshold = state.config.value.frontierGapThresholdTokens;
  return typeof threshold === "number" && shouldFrontierGapFlush(state.metricsSnapshot(ctx), threshold);
}
function noteSystemPrompt(state, ctx) {
  try {
    state.stats.noteSystemPrompt(ctx.getSystemPrompt().length);
  } catch {}
}
async function onMessageEnd(state, ctx, event) {
  if (isAssistant(event.message))
    state.indexer.noteCallIds(contentBlocks(event.message).filter(isToolCall).map((block) => block.id));
  recordRequest(state, event.message);
  chargeDeferrals(state, event.message);
  if (calibrateTokens(state, event.message))
    refreshStatus(state, ctx);
  const config = state.config.value;
  if (!config.enabled || config.pruneOn !== "agent-message")
    return;
  if (!isTextOnlyAssistant(event.message))
    return;
  if (!costPolicyActive(state))
    return startFinalReplyFlush(state, ctx, event.message);
  const weighed = weighFlush(state, ctx, "final-reply", { closing: event.message, bound: { kind: "reply", enter: true } });
  if (!weighed || weighed.decision.apply) {
    const basis = weighed?.decision.record.basis;
    const chains = basis !== "pays" && basis !== "bound" || weighChainPass(state, ctx, event.message, weighed);
    return startFinalReplyFlush(state, ctx, event.message, { decision: weighed?.decision.record, chains });
  }
  if (weighChainPass(state, ctx, event.message, weighed, false)) {
    return startFinalReplyFlush(state, ctx, event.message, { decision: ridingOnChains(weighed.decision.record), chains: true });
  }
  const deferred = weighed;
  state.safePoints.wait(ctx).then(() => recordDeferredFlush(state, ctx, "message-end", deferred.batches.length, deferred.decision.record)).catch(() => {
    return;
  });
}
function ridingOnChains(record) {
  const reason = "compressing the earlier prompts' work is due, and the waiting outputs go in the same rewrite at no extra cost";
  return { ...record, verdict: "apply", basis: record.chains?.netSaving !== undefined && record.chains.netSaving > 0 ? "pays" : "bound", reason };
}
async function onSessionShutdown(state) {
  clearCacheExpiry(state);
  await settleOnShutdown(state);
}
async function onSessionBeforeTree(state) {
  await settleRunningFlush(state, { abandon: true });
}
function onAgentEnd(state, ctx) {
  state.safePoints.reached();
  if (!state.config.value.enabled)
    return;
  scheduleCacheExpiry(state, ctx);
  if (state.pending.length > 0)
    showPending(state, ctx);
  else if (state.rearmedPending)
    showStatusText(state, ctx, "prune: recovered pending (reload)");
}
async function onContext(state, ctx, event) {
  const config = state.config.value;
  const limit = imageLimitFor(config.maxImagesPerRequest, ctx.model?.api);
  const capped = limit === null ? undefined : capImages(event.messages, limit);
  if (!config.enabled)
    return capped ? { messages: capped } : undefined;
  if (!capped)
    return render(state, ctx, event.messages);
  try {
    return await render(state, ctx, capped) ?? { messages: capped };
  } catch (err) {
    console.error("pi-condense: context render failed; sending the image-capped request unpruned", err);
    return { messages: capped };
  }
}
async function onBeforeAgentStart(state, ctx) {
  if (!state.config.value.enabled)
    return;
  await flushIfCacheCold(state, ctx);
  await settleBeforeRequest(state, ctx);
  declareQueryTool(state.pi, state.indexer.getIndex().size > 0);
}
async function render(state, ctx, input) {
  await flushIfCacheCold(state, ctx);
  const written = await settleBeforeRequest(state, ctx);
  declareQueryTool(state.pi, state.indexer.getIndex().size > 0);
  const messages = written.length > 0 ? [...input, ...written] : input;
  state.renderedBranch = messages;
  const result = renderRequest(state, messages, ctx.sessionManager.getBranch());
  state.releasable = workingSetOf(result.messages)?.releasable ?? state.releasable;
  const shown = requestSizesOf(result);
  noteSystemPrompt(state, ctx);
  state.stats.noteSentRequest(shown?.afterChars);
  if (shown)
    state.stats.setLiveReclaim(shown.beforeChars, shown.afterChars);
  refreshStatus(state, ctx);
  return result.pruned || messages !== input ? { messages: result.messages } : undefined;
}

// index.ts
function piCondense(pi, files) {
  const state = createExtensionState(pi, files);
  pi.on("session_start", guarded("session_start", (event, ctx) => onSessionStart(state, ctx, event)));
  pi.on("session_tree", guarded("session_tree", (_event, ctx) => onSessionTree(state, ctx)));
  pi.on("turn_end", guarded("turn_end", (event, ctx) => onTurnEnd(state, ctx, event)));
  pi.on("message_end", guarded("message_end", (event, ctx) => onMessageEnd(state, ctx, event)));
  pi.on("agent_end", guarded("agent_end", (_event, ctx) => onAgentEnd(state, ctx)));
  pi.on("before_agent_start", guarded("before_agent_start", (_event, ctx) => onBeforeAgentStart(state, ctx)));
  pi.on("tool_call", guarded("tool_call", (event, ctx) => onToolCall(state, event, ctx)));
  pi.on("context", guarded("context", (event, ctx) => onContext(state, ctx, event)));
  pi.on("before_provider_request", guarded("before_provider_request", (event, ctx) => onBeforeProviderRequest(state, ctx, event)));
  pi.on("cache_warming_decision", guarded("cache_warming_decision", (event, ctx) => onCacheWarmingDecision(state, ctx, event)));
  pi.on("session_shutdown", guarded("session_shutdown", () => onSessionShutdown(state)));
  pi.on("session_before_tree", guarded("session_before_tree", () => onSessionBeforeTree(state)));
  pi.on("model_select", guarded("model_select", (_event, ctx) => onCacheKeyChange(state, ctx, "model")));
  pi.on("session_compact", guarded("session_compact", (_event, ctx) => onCacheKeyChange(state, ctx, "compaction")));
  pi.on("thinking_level_select", guarded("thinking_level_select", (_event, ctx) => onCacheKeyChange(state, ctx, "thinking")));
  registerQueryTool(pi, state.indexer);
  registerReportRenderer(pi);
  registerWithCommands(pi, state);
}
function registerWithCommands(pi, state) {
  registerCommands(commandsAfterRunningFlush(pi, state), state.config, (ctx, options) => flushPending(state, ctx, options), (ctx, opts) => capturePendingBatches(state, ctx, opts), () => state.stats.getStats(), () => state.stats.getLiveReclaim(), state.indexer, (ctx) => compactChains(state, ctx), () => state.diagnostics.counts(), (ctx) => computeMetricsSnapshot(state, ctx) ?? EMPTY_METRICS_SNAPSHOT, undefined, () => state.rearmedPending, (ctx) => policyView(state, ctx), (ctx) => summarizerInUse(state.fallback, ctx, state.config.value.summarizerModel), {
    getSummarizerCache: () => state.stats.getCacheTokens(),
    measureContext: (ctx) => {
      state.status.measure(ctx);
      return state.stats.getLiveReclaim();
    },
    describeToggle: (ctx, enabling) => toggleCostText(state, ctx, enabling),
    resetSummarizerFallback: () => state.fallback.reset(),
    getSight: (ctx) => sightView(state, ctx)
  });
}
function commandsAfterRunningFlush(pi, state) {
  const view = Object.create(pi);
  view.registerCommand = (name, options) => pi.registerCommand(name, {
    ...options,
    handler: async (args, ctx) => {
      await settleRunningFlush(state, { abandon: false });
      return options.handler(args, ctx);
    }
  });
  return view;
}
function guarded(name, handler) {
  return async (event, ctx) => {
    try {
      return await handler(event, ctx);
    } catch (err) {
      console.error(`pi-condense: ${name} handler failed`, err);
      return;
    }
  };
}
export {
  piCondense as default
};
