/**
 * Phase 3 decisions: pick closed chains older than the rolling window and
 * persist one `context-prune-chain` entry per chain. A chain covered by any
 * per-batch summary reuses those summaries (optionally fused by an LLM); an
 * uncovered chain gets a zero-LLM deterministic body after its raw outputs
 * are backfilled into the recovery index, so nothing leaves context
 * unrecoverable. A `context_tree_query` recovery in a chain is derived from
 * the archive: it is not archived again, and the block names the refs it
 * recovered.
 */
import { extractToolResultText } from "../capture/batch-capture.js";
import type { BlockRefIssuer } from "./block-refs.js";
import { resolveRange } from "../render/chain-range-prune.js";
import { CallPairing } from "../arguments/call-pairing.js";
import { type ArchivedCall, archivedChainBody, type BodyCall, CHAIN_BODY_HEADER, deterministicBody } from "./deterministic-body.js";
import type { DiagnosticSink } from "../render/diagnostics.js";
import type { BackfillOptions } from "../archive/indexer.js";
import { bareToolCallId, occKey, parseOccKey, resultTimestampOf } from "../capture/occurrence-key.js";
import { outcomeFacts } from "../digest/outcome-facts.js";
import { recordArgs } from "../capture/persisted-entries.js";
import { callArgsOf, isRecoveryTool, recoveredRefs, rederivableRecovery, type RecoveryCall } from "../capture/recovery-call.js";
import { CUSTOM_TYPE_CHAIN } from "../names.js";
import type { ChainCompressionEntry, SummaryToolCallRef, ToolCallRecord } from "../capture/records.js";
import type { ChainRange } from "./chain-detector.js";
import { isAssistant, isToolCall, isToolResult } from "../capture/message-shape.js";
import type { ToolResultMessage } from "@earendil-works/pi-ai";

export interface ChainCompressorIndexerDeps {
  getChainEntries(): ChainCompressionEntry[];
  hasPerBatchSummaryCoveringAny(toolCallIds: string[]): boolean;
  getPerBatchSummariesForToolCallIds(toolCallIds: string[]): string[];
  getToolRefsForToolCallIds(toolCallIds: string[]): string[];
  registerChain(entry: ChainCompressionEntry): void;
  getIndex(): Map<string, ToolCallRecord>;
  backfillChainRecords(records: ToolCallRecord[], opts: BackfillOptions): Promise<SummaryToolCallRef[]>;
}

export interface CompressEligibleDeps {
  indexer: ChainCompressorIndexerDeps;
  blockRefs: Pick<BlockRefIssuer, "issue">;
  appendEntry: (customType: string, data: unknown) => void;
  now: () => number;
  fuseRange?: (perBatchSummaryText: string) => Promise<string | null>;
  /** Must be the exact array detection ran on. */
  messages: readonly unknown[];
  diagnostics: Pick<DiagnosticSink, "report">;
  backfill: Omit<BackfillOptions, "appendEntry">;
}

export interface CompressEligibleResult {
  compressedEntries: ChainCompressionEntry[];
  skipped: Array<{ startUserTimestamp: number; reason: "no-summary" | "already-compressed" }>;
}

function chainKeys(chain: ChainRange): string[] {
  const occurrences = chain.middleOccurrenceKeys ?? [];
  return occurrences.length > 0 ? occurrences : chain.middleToolCallIds;
}

function matchesGrace(chain: ChainRange, grace: Set<string>): boolean {
  const keys = chainKeys(chain);
  if (keys.some((key) => grace.has(key))) return true;
  const bareGrace = [...grace].filter((entry) => parseOccKey(entry).resultTimestamp === undefined);
  if (bareGrace.length === 0) return false;
  return keys.some((key) => bareGrace.includes(bareToolCallId(key)));
}

export function selectEligible(
  chains: ChainRange[],
  rollingWindow: number,
  alreadyCompressed: Set<number>,
  inGraceToolCallIds: Set<string> = new Set(),
): ChainRange[] {
  const candidates = chains.filter(
    (chain) =>
      chain.finalAssistantTimestamp !== null &&
      !alreadyCompressed.has(chain.startUserTimestamp) &&
      chain.middleToolCallIds.length > 0,
  );
  // Grace is applied after the cut so a deferred chain never shifts the window.
  const cut = candidates.slice(0, Math.max(0, candidates.length - rollingWindow));
  return cut.filter((chain) => !matchesGrace(chain, inGraceToolCallIds));
}

type ChainSpan = Pick<ChainRange, "startUserTimestamp" | "finalAssistantTimestamp" | "protectedToolCallIds">;
type SpanCall = { toolName: string; args: Record<string, unknown> };

/**
 * Each unprotected toolResult in the chain's span with the call it answers (call-pairing.ts: two calls sharing
 * an id in one message each get their own result), else the call registered last for its id earlier in the span.
 */
function forEachChainResult(messages: readonly unknown[], chain: ChainSpan, visit: (msg: ToolResultMessage, call: SpanCall) => void): void {
  const range = resolveRange(chain, messages);
  if (!range) return;
  const protectedIds = new Set(chain.protectedToolCallIds ?? []);
  const calls = new Map<string, SpanCall>();
  const pairing = new CallPairing<SpanCall>();
  for (let i = range.startIndex + 1; i < range.endIndex; i++) {
    const msg = messages[i];
    if (isAssistant(msg) && Array.isArray(msg.content)) {
      const opened: Array<readonly [string, SpanCall]> = [];
      for (const block of msg.content) {
        if (!isToolCall(block)) continue;
        const call = { toolName: typeof block.name === "string" ? block.name : "", args: recordArgs(callArgsOf(block)) };
        calls.set(block.id, call);
        opened.push([block.id, call]);
      }
      pairing.open(opened);
    } else if (isToolResult(msg)) {
      const call = pairing.answer(msg.toolCallId) ?? calls.get(msg.toolCallId);
      if (call && typeof msg.toolCallId === "string" && !protectedIds.has(msg.toolCallId)) visit(msg, call);
    }
  }
}

function finiteTimestamp(msg: ToolResultMessage): number | undefined {
  const ts = msg.timestamp;
  return typeof ts === "number" && Number.isFinite(ts) ? ts : undefined;
}

/** A recovery the archive gives back unchanged: not archived again; the chain block names the refs it recovered. */
export interface ChainRecovery {
  occurrenceKey: string;
  call: RecoveryCall;
  body: BodyCall;
}

export function chainRecoveries(messages: readonly unknown[], chain: ChainSpan): ChainRecovery[] {
  const found: ChainRecovery[] = [];
  forEachChainResult(messages, chain, (msg, call) => {
    const ts = finiteTimestamp(msg);
    if (ts === undefined || !isRecoveryTool(call.toolName)) return;
    const recovery = rederivableRecovery(msg, call.args);
    if (recovery === null) return;
    found.push({
      occurrenceKey: occKey(msg.toolCallId, ts),
      call: recovery,
      body: { toolCallId: msg.toolCallId, toolName: call.toolName, args: call.args, time: ts },
    });
  });
  return found;
}

export function extractChainRecords(messages: readonly unknown[], chain: ChainSpan, isIndexed: (occurrenceKey: string) => boolean): ToolCallRecord[] {
  const records: ToolCallRecord[] = [];
  forEachChainResult(messages, chain, (msg, call) => {
    // Only what the index can read back is archived: a string id and a finite timestamp.
    const ts = finiteTimestamp(msg);
    if (ts === undefined || isIndexed(occKey(msg.toolCallId, ts))) return;
    if (isRecoveryTool(call.toolName) && rederivableRecovery(msg, call.args) !== null) return;
    records.push({
      toolCallId: msg.toolCallId,
      toolName: call.toolName,
      args: call.args,
      resultText: extractToolResultText(msg),
      isError: msg.isError === true,
      turnIndex: -1,
      timestamp: ts,
      resultTimestamp: ts,
    });
  });
  return records;
}

/** `recoveries`: calls of the chain that are not archived (rederivable recoveries), listed beside the records. */
export function buildDeterministicBody(records: ToolCallRecord[], refs: string[], recoveries: BodyCall[] = []): string {
  const calls = records.map((r) => ({ toolCallId: r.toolCallId, toolName: r.toolName, args: r.args, time: r.resultTimestamp ?? r.timestamp }));
  return deterministicBody(CHAIN_BODY_HEADER, [...calls, ...recoveries], refs);
}

/** The chains with the refs their rederivable recoveries showed; a chain without one is passed on as is. */
export function withRecoveredRefs(chains: ChainRange[], messages: readonly unknown[]): ChainRange[] {
  // Resolving a chain's range walks the whole branch: only chains holding a recovery are looked at.
  const recoveryKeys = new Set<string>();
  for (const msg of messages) {
    if (isToolResult(msg) && isRecoveryTool(msg.toolName) && typeof msg.toolCallId === "string") {
      recoveryKeys.add(occKey(msg.toolCallId, resultTimestampOf(msg.timestamp)));
    }
  }
  if (recoveryKeys.size === 0) return chains;
  return chains.map((chain) => {
    if (chain.finalAssistantTimestamp === null || !(chain.middleOccurrenceKeys ?? []).some((key) => recoveryKeys.has(key))) return chain;
    const refs = chainRecoveries(messages, chain).flatMap((r) => recoveredRefs(r.call));
    return refs.length === 0 ? chain : { ...chain, recoveredRefs: [...new Set(refs)] };
  });
}

/** The refs of the chain's own records, then the refs its recoveries showed, each once. */
function blockRefsWith(toolRefs: string[], recovered: string[]): string[] {
  return recovered.length === 0 ? toolRefs : [...new Set([...toolRefs, ...recovered])];
}

function buildEntry(
  chain: ChainRange,
  blockId: string,
  toolRefs: string[],
  compressedAt: number,
  body: { rangeSummaryText?: string; deterministic: boolean },
): ChainCompressionEntry {
  const entry: ChainCompressionEntry = {
    blockId,
    startUserTimestamp: chain.startUserTimestamp,
    droppedToolCallIds: [...chain.middleToolCallIds],
    finalAssistantTimestamp: chain.finalAssistantTimestamp,
    toolRefs,
    compressedAt,
  };
  if (body.rangeSummaryText !== undefined) entry.rangeSummaryText = body.rangeSummaryText;
  if (body.deterministic) entry.bodySource = "deterministic";
  if (chain.protectedToolCallIds && chain.protectedToolCallIds.length > 0) {
    entry.protectedToolCallIds = [...chain.protectedToolCallIds];
  }
  if (chain.middleOccurrenceKeys && chain.middleOccurrenceKeys.length > 0) {
    entry.droppedOccurrenceKeys = [...chain.middleOccurrenceKeys];
  }
  return entry;
}

/** Append before register: the registry never holds an entry whose write failed. */
function persist(entry: ChainCompressionEntry, deps: CompressEligibleDeps, out: ChainCompressionEntry[]): void {
  deps.appendEntry(CUSTOM_TYPE_CHAIN, entry);
  deps.indexer.registerChain(entry);
  out.push(entry);
}

async function fusedText(keys: string[], deps: CompressEligibleDeps): Promise<string | undefined> {
  if (!deps.fuseRange) return undefined;
  const summaries = deps.indexer.getPerBatchSummariesForToolCallIds(keys);
  if (summaries.length < 2) return undefined;
  try {
    const fused = await deps.fuseRange(summaries.join("\n\n"));
    return typeof fused === "string" && fused.trim() !== "" ? fused : undefined;
  } catch {
    // The renderer falls back to concatenating the per-batch summaries.
    return undefined;
  }
}

async function compressCovered(chain: ChainRange, keys: string[], deps: CompressEligibleDeps): Promise<ChainCompressionEntry> {
  const blockId = deps.blockRefs.issue();
  const toolRefs = blockRefsWith(deps.indexer.getToolRefsForToolCallIds(keys), chain.recoveredRefs ?? []);
  const rangeSummaryText = await fusedText(keys, deps);
  return buildEntry(chain, blockId, toolRefs, deps.now(), { rangeSummaryText, deterministic: false });
}

function isFullyProtected(chain: ChainRange): boolean {
  const protectedIds = new Set(chain.protectedToolCallIds ?? []);
  return chain.middleToolCallIds.length > 0 && chain.middleToolCallIds.every((id) => protectedIds.has(id));
}

/**
 * No output of the chain has a summary (the deterministic path), and some were archived without one by
 * choice (`summaries`, which "always" and classic never do): the rest were too small to summarize.
 */
function archivedByChoice(indexed: ToolCallRecord[], recoveries: ChainRecovery[]): boolean {
  return recoveries.length === 0 && indexed.some((record) => record.unsummarized === true);
}

const inCallOrder = (records: ToolCallRecord[]) => [...records].sort((a, b) => (a.resultTimestamp ?? a.timestamp) - (b.resultTimestamp ?? b.timestamp));

function archivedCall(record: ToolCallRecord, deps: CompressEligibleDeps): ArchivedCall {
  const ref = deps.indexer.getToolRefsForToolCallIds([occKey(record.toolCallId, record.resultTimestamp)])[0] ?? record.toolCallId;
  const outcome = record.outcome ?? outcomeFacts(record.toolName, record.args, record.resultText, record.isError);
  return { ref, toolName: record.toolName, args: record.args, outcome, staleRule: record.supersededBy?.rule };
}

/** Returns null when the chain must stay raw until a later flush retries it. */
async function compressDeterministic(
  chain: ChainRange,
  keys: string[],
  deps: CompressEligibleDeps,
): Promise<ChainCompressionEntry | null> {
  const index = deps.indexer.getIndex();
  const indexed = keys.filter((key) => index.has(key)).map((key) => index.get(key) as ToolCallRecord);
  // Map membership, not isSummarized: a dedup alias has no record of its own.
  const fresh = extractChainRecords(deps.messages ?? [], chain, (key) => index.has(key));
  const recoveries = chainRecoveries(deps.messages ?? [], chain);
  if (fresh.length === 0 && indexed.length === 0 && recoveries.length === 0) {
    if (!isFullyProtected(chain)) {
      deps.diagnostics.report("backfill-empty", String(chain.startUserTimestamp), `middles=${chain.middleToolCallIds.length}`);
    }
    return null;
  }
  if (fresh.length > 0) {
    try {
      await deps.indexer.backfillChainRecords(fresh, { ...deps.backfill, appendEntry: deps.appendEntry });
    } catch {
      return null;
    }
  }
  const recovered = recoveries.flatMap((r) => recoveredRefs(r.call));
  const toolRefs = blockRefsWith(deps.indexer.getToolRefsForToolCallIds(keys), recovered);
  const blockId = deps.blockRefs.issue();
  const rangeSummaryText = archivedByChoice(indexed, recoveries)
    ? archivedChainBody(inCallOrder([...indexed, ...fresh]).map((record) => archivedCall(record, deps)))
    : buildDeterministicBody([...indexed, ...fresh], toolRefs, recoveries.map((r) => r.body));
  return buildEntry(chain, blockId, toolRefs, deps.now(), { rangeSummaryText, deterministic: true });
}

export async function compressEligible(
  chains: ChainRange[],
  rollingWindow: number,
  deps: CompressEligibleDeps,
  inGraceToolCallIds: Set<string> = new Set(),
): Promise<CompressEligibleResult> {
  const alreadyCompressed = new Set(deps.indexer.getChainEntries().map((entry) => entry.startUserTimestamp));
  const compressedEntries: ChainCompressionEntry[] = [];
  const skipped: CompressEligibleResult["skipped"] = chains
    .filter((chain) => chain.finalAssistantTimestamp !== null && alreadyCompressed.has(chain.startUserTimestamp))
    .map((chain) => ({ startUserTimestamp: chain.startUserTimestamp, reason: "already-compressed" as const }));
  for (const chain of selectEligible(chains, rollingWindow, alreadyCompressed, inGraceToolCallIds)) {
    const keys = chainKeys(chain);
    const entry = deps.indexer.hasPerBatchSummaryCoveringAny(keys)
      ? await compressCovered(chain, keys, deps)
      : await compressDeterministic(chain, keys, deps);
    if (entry) persist(entry, deps, compressedEntries);
    else skipped.push({ startUserTimestamp: chain.startUserTimestamp, reason: "no-summary" });
  }
  return { compressedEntries, skipped };
}
