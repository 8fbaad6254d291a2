/**
 * Chain compression runs: after a successful flush (rolling window from
 * config) and from `/pruner compact` (window 0: every eligible closed chain).
 */
import { loose, type LooseMessage } from "../capture/message-shape.js";
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { archiveChainMembers } from "../chains/chain-archive.js";
import { compressEligible, selectEligible, withRecoveredRefs } from "../chains/chain-compressor.js";
import { detectChains, withClosingMessage } from "../chains/chain-detector.js";
import { type AppendEntry, errorMessage, isStaleContextError, safeNotify, sessionAppenderOf } from "./delivery.js";
import type { FlushState } from "./flush-state.js";
import { protectionPredicate } from "../capture/protected.js";
import { projectBranchMessages } from "../capture/batch-capture.js";
import { inGraceRecoveryToolCallIds } from "../render/recovery-grace.js";
import { earliestChainStart, lowerFloor } from "../render/supersede.js";
import { emitExternalCost } from "./stats.js";
import { estimateTokens } from "../format/figures.js";
import { summarizeRange } from "./summarizer.js";
import type { ChainCompressionEntry } from "../capture/records.js";
import type { ChainRange } from "../chains/chain-detector.js";

export function makeFuseRange(
  state: FlushState,
  ctx: ExtensionContext,
  signal?: AbortSignal,
): ((text: string) => Promise<string | null>) | undefined {
  if (!state.config.value.chainCompression?.fuseRangeSummary) return undefined;
  return async (text) => {
    const result = await summarizeRange(text, state.config.value, ctx, { controller: state.fallback, signal });
    if (!result) return null;
    state.stats.add(result.usage);
    state.stats.addRangesSummarized(1);
    return result.summaryText;
  };
}

interface ChainPassRun {
  /** What chain detection runs on (for a flush, the branch plus its closing message). */
  messages: unknown[];
  /** Where recovery grace is measured. */
  graceSource: readonly unknown[];
  rollingWindow: number;
  appendEntry: AppendEntry;
  /** Occurrence keys of batches a flush left for later: chains holding them wait. */
  heldKeys?: ReadonlySet<string>;
  signal?: AbortSignal;
}

async function compress(state: FlushState, ctx: ExtensionContext, run: ChainPassRun) {
  const config = state.config.value;
  const { messages, rollingWindow, appendEntry } = run;
  const { chains, inGrace, eligible } = selectChains(state, messages, run.graceSource, rollingWindow, run.heldKeys);
  const sm = ctx.sessionManager;
  const backfill = {
    spillThreshold: config.spillThreshold,
    spillPreviewBytes: config.spillPreviewBytes,
    sessionDir: sm.getSessionDir(),
    sessionId: sm.getSessionId(),
    files: state.files,
  };
  const unarchivable = await archiveChainMembers(eligible, {
    indexer: state.indexer,
    messages,
    backfill: { ...backfill, appendEntry },
    onWriteFailed: (error) => state.writeFaults.report(error, (message) => safeNotify(ctx, message, "warning")),
  });
  for (const key of unarchivable) inGrace.add(key);
  const result = await compressEligible(
    chains,
    rollingWindow,
    {
      indexer: state.indexer,
      blockRefs: state.blockRefs,
      appendEntry,
      now: Date.now,
      fuseRange: makeFuseRange(state, ctx, run.signal),
      messages,
      diagnostics: state.diagnostics,
      backfill,
    },
    inGrace,
  );
  // The user counts prompts, not block ids: each compressed one by its place among the branch's prompts.
  const starts = chains.map((chain) => chain.startUserTimestamp);
  return { ...result, prompts: result.compressedEntries.map((entry) => starts.indexOf(entry.startUserTimestamp) + 1) };
}

/**
 * The chains the chain pass after a flush would compress now (the rolling window from config), with the
 * closing message threaded on: a preview that writes nothing, for the cost policy's weighing.
 */
export function previewEligibleChains(state: FlushState, messages: unknown[], closingMessage?: unknown): ChainRange[] {
  const config = state.config.value;
  if (!config.chainCompression?.enabled) return [];
  const closing = isOnBranch(messages, closingMessage) ? undefined : closingMessage;
  return selectChains(state, withClosingMessage(messages, closing), messages, config.chainCompression.rollingWindow).eligible;
}

/**
 * The first tool call of the chain the chain pass compresses next: the oldest closed chain past the window
 * once the chain under way closes too (one fewer in the window). Undefined when compression is off or no
 * such chain exists. A preview that writes nothing, for the spare breakpoint's placement.
 */
export function nextChainToCompress(state: FlushState, messages: readonly unknown[]): string | undefined {
  const config = state.config.value;
  if (!config.chainCompression?.enabled) return undefined;
  const window = Math.max(0, config.chainCompression.rollingWindow - 1);
  return selectChains(state, messages, messages, window).eligible[0]?.middleToolCallIds[0];
}

/**
 * The chains of `messages`, the keys deferred like in-grace recoveries (a batch a flush left for later holds
 * its chain back too: after the window cut), and the closed chains past the window not yet compressed.
 */
function selectChains(state: FlushState, messages: readonly unknown[], graceSource: readonly unknown[], rollingWindow: number, heldKeys?: ReadonlySet<string>) {
  const chains = withRecoveredRefs(detectChains(messages, protectionPredicate(state)), messages);
  const inGrace = inGraceRecoveryToolCallIds(graceSource, state.config.value.recoveryGraceTurns);
  for (const key of heldKeys ?? []) inGrace.add(key);
  const alreadyCompressed = new Set(state.indexer.getChainEntries().map((entry) => entry.startUserTimestamp));
  return { chains, inGrace, eligible: selectEligible(chains, rollingWindow, alreadyCompressed, inGrace) };
}

function recordCompressions(state: FlushState, entries: ChainCompressionEntry[]): void {
  // The next render rewrites from the first new chain on: earlier protected reads after it may be superseded.
  lowerFloor(state.supersede, earliestChainStart(entries));
  state.stats.addChainsCompressed(entries.length);
  state.stats.persist(state.pi);
  state.stats.persistCacheTokens((customType, data) => state.pi.appendEntry(customType, data));
  emitExternalCost(state.pi, state.stats);
}

/**
 * What a chain pass did: the prompts whose work it compressed, by their place on the branch (1 the first),
 * and the outputs it archived with them (no summary of their own).
 */
export interface ChainPassOutcome {
  prompts: number[];
  archived: number;
}

const NOTHING_COMPRESSED: ChainPassOutcome = { prompts: [], archived: 0 };

/** Non-fatal: a failure is a warning and never changes the flush outcome. */
export async function compressAfterFlush(
  state: FlushState,
  ctx: ExtensionContext,
  messages: unknown[],
  after: { closingMessage: unknown; appendEntry: AppendEntry; heldKeys: ReadonlySet<string>; signal?: AbortSignal },
): Promise<ChainPassOutcome> {
  try {
    // A flush that wrote after the reply reached the session finds it there, not necessarily last.
    const closing = isOnBranch(messages, after.closingMessage) ? undefined : after.closingMessage;
    const indexed = state.indexer.getIndex().size;
    const result = await compress(state, ctx, {
      messages: withClosingMessage(messages, closing),
      graceSource: messages,
      rollingWindow: state.config.value.chainCompression.rollingWindow,
      appendEntry: after.appendEntry,
      heldKeys: after.heldKeys,
      signal: after.signal,
    });
    const entries = result.compressedEntries;
    if (entries.length > 0) {
      recordCompressions(state, entries);
      refreshQuietly(state, ctx, closing);
    }
    return { prompts: result.prompts, archived: state.indexer.getIndex().size - indexed };
  } catch (err) {
    if (!isStaleContextError(err)) safeNotify(ctx, `pruner: compressing earlier prompts' work failed: ${errorMessage(err)}`, "warning");
    return NOTHING_COMPRESSED;
  }
}

/** The footer after a compression; the compression is written, so a footer failure must not report it failed. */
function refreshQuietly(state: FlushState, ctx: ExtensionContext, closingMessage?: unknown): void {
  try {
    state.status.refresh(ctx, closingMessage);
  } catch (err) {
    if (!isStaleContextError(err)) console.error("pi-condense: status refresh after a chain compression failed", err);
  }
}

export function isOnBranch(messages: readonly unknown[], value: unknown): boolean {
  if (!value) return false;
  const message: LooseMessage = loose(value) ?? {};
  for (let i = messages.length - 1; i >= 0; i--) {
    const other = loose(messages[i]);
    if (other?.role === message.role && other?.timestamp === message.timestamp) return true;
  }
  return false;
}

/** The chain pass alone (rolling window from config), for a cold cache with no batch to flush. */
export async function compressClosedChains(state: FlushState, ctx: ExtensionContext, signal?: AbortSignal): Promise<ChainPassOutcome> {
  if (!state.config.value.chainCompression?.enabled) return NOTHING_COMPRESSED;
  let messages: unknown[];
  let appendEntry: AppendEntry;
  try {
    messages = projectBranchMessages(ctx.sessionManager.getBranch());
    const session = sessionAppenderOf(ctx);
    appendEntry = (customType, data) => session.appendCustomEntry(customType, data);
  } catch (err) {
    if (!isStaleContextError(err)) console.error("pi-condense: reading the branch for chain compression failed", err);
    return NOTHING_COMPRESSED;
  }
  return compressAfterFlush(state, ctx, messages, { closingMessage: undefined, appendEntry, heldKeys: new Set(), signal });
}

/** Prompts `/pruner compact` left as they are, by why. */
export interface KeptPrompts {
  alreadyCompressed: number;
  underWay: number;
  noToolCalls: number;
  readBack: number;
  nothingArchivable: number;
}

/** Why each prompt on the branch that is not compressed after a compaction stayed so. */
function keptPrompts(state: FlushState, messages: readonly unknown[], nothingArchivable: number, compressedNow: ChainCompressionEntry[]): KeptPrompts {
  const { chains, eligible } = selectChains(state, messages, messages, 0);
  const compressed = new Set(state.indexer.getChainEntries().map((entry) => entry.startUserTimestamp));
  const justNow = new Set(compressedNow.map((entry) => entry.startUserTimestamp));
  const open = new Set(eligible.map((chain) => chain.startUserTimestamp));
  const kept: KeptPrompts = { alreadyCompressed: 0, underWay: 0, noToolCalls: 0, readBack: 0, nothingArchivable };
  for (const chain of chains) {
    if (justNow.has(chain.startUserTimestamp)) continue;
    if (compressed.has(chain.startUserTimestamp)) kept.alreadyCompressed++;
    else if (chain.finalAssistantTimestamp === null) kept.underWay++;
    else if (chain.middleToolCallIds.length === 0) kept.noToolCalls++;
    else if (!open.has(chain.startUserTimestamp)) kept.readBack++;
  }
  return kept;
}

/** What `/pruner compact` did and left. */
export interface Compaction {
  compressedEntries: ChainCompressionEntry[];
  /** The compressed prompts' places on the branch (1 the first), in the entries' order. */
  prompts: number[];
  kept: KeptPrompts;
  /** Outputs archived with the compressed prompts, with no summary of their own. */
  archived: number;
  /**
   * How much smaller the next request is, in tokens: the footer's figure before the compaction less the one
   * after, so the two always agree. Undefined when either could not be measured.
   */
  tokensFewer?: number;
}

export async function compactChains(state: FlushState, ctx: ExtensionContext): Promise<Compaction> {
  const messages = projectBranchMessages(ctx.sessionManager.getBranch());
  const appendEntry: AppendEntry = (customType, data) => state.pi.appendEntry(customType, data);
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
    ...(tokensFewer !== undefined ? { tokensFewer } : {}),
  };
}

/** The footer after a compaction, and the size of the request it shows (undefined when it could not be measured). */
function measureQuietly(state: FlushState, ctx: ExtensionContext): number | undefined {
  try {
    const size = state.status.measure(ctx);
    state.status.refresh(ctx);
    return size;
  } catch (err) {
    if (!isStaleContextError(err)) console.error("pi-condense: status refresh after a chain compression failed", err);
    return undefined;
  }
}
