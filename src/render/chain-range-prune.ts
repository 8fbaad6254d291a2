/**
 * Phase 3: apply persisted chain-compression decisions. Each entry names its
 * range positionally (the unique anchor at `startUserTimestamp`, a user message
 * or another extension's custom message, through the unique assistant at
 * `finalAssistantTimestamp`); ids never decide what is
 * dropped, because provider ids are reused. An entry that does not resolve to
 * exactly one range is left alone and reported (fail closed).
 */
import type { AssistantMessage, ToolResultMessage, UserMessage } from "@earendil-works/pi-ai";
import { extractToolResultText } from "../capture/batch-capture.js";
import type { DiagnosticSink } from "./diagnostics.js";
import { imageBlocksOf, type ImageBlock } from "../capture/image-markers.js";
import { isAssistant, isChainAnchorCustom, isCustom, isToolResult, isUser, opensNoCalls, roleOf, type CustomMessage } from "../capture/message-shape.js";
import { type DroppedCall, keptArgumentsText, RangeCalls } from "../arguments/dropped-calls.js";
import { isRecoveryTool } from "../capture/recovery-call.js";
import { substituteBlockRefs } from "./nested-placeholders.js";
import { bareToolCallId, occKey, resultTimestampOf } from "../capture/occurrence-key.js";
import { isHeaderSafe, parseChainEntry } from "../capture/persisted-entries.js";
import { CHAIN_FRAME } from "../format/summary-frame.js";
import { CUSTOM_TYPE_SUMMARY } from "../names.js";
import type { ChainCompressionEntry, SummaryToolCallRef } from "../capture/records.js";

type BlockLookup = (blockId: string) => string | undefined;
type Reporter = Pick<DiagnosticSink, "report">;
/**
 * A protected result moved into the chain block: its text, and its images (kept as image blocks, never as
 * text); or, with `call`, the arguments (JSON) of a call the range drops that no ref gives back.
 */
type ProtectedOutput = { tool: string; text: string; images?: ImageBlock[]; call?: true };
type IndexRange = { startIndex: number; endIndex: number };
type Boundary = { count: number; first: number };

const SYNTHETIC_PREFIX = "<compressed-chain ";
const SYNTHETIC_ID = /^<compressed-chain id="([^"]*)"/;

export function isPerBatchSummaryMessage(msg: unknown): msg is CustomMessage {
  return isCustom(msg) && msg.customType === CUSTOM_TYPE_SUMMARY;
}

export function perBatchSummaryOverlapsDropped(
  msg: unknown,
  droppedOccKeys: Set<string>,
  droppedBareIds: Set<string>,
): boolean {
  const refs = (msg as { details?: { toolCallRefs?: unknown } } | null | undefined)?.details?.toolCallRefs;
  if (!Array.isArray(refs)) return false;
  return refs.some((value: unknown) => {
    const ref = value as Partial<SummaryToolCallRef> | null | undefined;
    if (typeof ref?.toolCallId !== "string") return false;
    const ts = resultTimestampOf(ref.resultTimestamp);
    if (ts !== undefined) return droppedOccKeys.has(occKey(ref.toolCallId, ts));
    return droppedBareIds.has(bareToolCallId(ref.toolCallId));
  });
}

export function withoutThinkingBlocks(msg: AssistantMessage): AssistantMessage {
  const content = Array.isArray(msg.content) ? msg.content.filter((block) => block?.type !== "thinking") : msg.content;
  return { ...msg, content };
}

export function buildSyntheticChainMessage(
  entry: ChainCompressionEntry,
  summary: string,
  blockSummaryLookup?: BlockLookup,
  protectedOutputs: ProtectedOutput[] = [],
): UserMessage {
  const summaryText = typeof summary === "string" ? summary : "";
  const body = blockSummaryLookup
    ? substituteBlockRefs(summaryText, blockSummaryLookup, { selfBlockId: entry.blockId })
    : summaryText;
  // A ref that could close the header early is left out rather than written into it.
  const tools = Array.isArray(entry.toolRefs) ? entry.toolRefs.filter(isHeaderSafe).join(",") : "";
  const relocated = protectedOutputs
    .map((p) => (p.call ? `\n\n<kept-call tool="${p.tool}">\n${p.text}\n</kept-call>` : `\n\n<protected-output tool="${p.tool}">\n${p.text}\n</protected-output>`))
    .join("");
  const text = `<compressed-chain id="${entry.blockId}" tools="${tools}">\n${CHAIN_FRAME}\n${body}${relocated}\n</compressed-chain>`;
  const images = protectedOutputs.flatMap((p) => p.images ?? []);
  return { role: "user", content: [{ type: "text", text }, ...images], timestamp: entry.compressedAt };
}

export function resolveRange(
  entry: Pick<ChainCompressionEntry, "startUserTimestamp" | "finalAssistantTimestamp">,
  messages: readonly unknown[],
): IndexRange | null {
  return resolveWith(indexBoundaries(messages, [entry]), entry);
}

/** Phase 3 on its own: `compressChainRanges` without the list of created messages. */
export function applyChainCompressions(...args: Parameters<typeof compressChainRanges>): ChainRangeResult["messages"] {
  return compressChainRanges(...args).messages;
}

export interface ChainRangeResult {
  /** Loose as 2.9.1's callers read it: the input's own messages, and the synthetic and stripped ones made here. */
  messages: any[];
  /** The messages this phase made (synthetic chain messages, thinking-stripped finals); all others are carried over. */
  created: ReadonlySet<unknown>;
}

/** What a chain phase that changed nothing created. */
export const NOTHING_CREATED: ReadonlySet<unknown> = new Set();

/** Applies the chain entries and names the messages it created, for the render's size accounting. */
export function compressChainRanges(
  messages: unknown[],
  chainEntries: ChainCompressionEntry[],
  summaryTextForChain: (entry: ChainCompressionEntry) => string,
  stripFinalThinking: boolean,
  blockSummaryLookup?: BlockLookup,
  diagnostics?: Reporter,
  guard?: DropGuard,
): ChainRangeResult {
  const unchanged = { messages, created: NOTHING_CREATED };
  if (chainEntries.length === 0) return unchanged;
  const usable = usableEntries(chainEntries, diagnostics);
  const boundaries = indexBoundaries(messages, usable);
  const resolved: Array<{ entry: ChainCompressionEntry; range: IndexRange }> = [];
  for (const entry of usable) {
    const range = resolveWith(boundaries, entry);
    if (range) resolved.push({ entry, range });
    else diagnostics?.report("unresolved-range", String(entry.blockId), boundaryDetail(entry));
  }
  const accepted = acceptNonOverlapping(resolved, diagnostics);
  if (accepted.length === 0) return unchanged;

  const drops = collectDrops(messages, accepted, diagnostics, guard);
  const present = presentSyntheticIds(messages);
  const synthetics = new Map<number, UserMessage | null>();
  for (const [i, { entry, range }] of accepted.entries()) {
    const body = summaryTextForChain(entry);
    const synthetic = present.has(entry.blockId)
      ? null
      : buildSyntheticChainMessage(entry, body, blockSummaryLookup, drops.protectedOutputs[i]);
    synthetics.set(range.startIndex, synthetic);
  }
  return emit(messages, accepted, drops, synthetics, stripFinalThinking);
}

/** What the render knows of the archive when a chain drops outputs and calls (see stub-replace's one check). */
export interface DropGuard {
  /** The refs the stub at this position names (the archive gives the output back by them); undefined: no stub. */
  stubRefs(position: number): readonly string[] | undefined;
  miss(key: string, detail: string): void;
  /** The render's input at this position: a call's arguments before phases 1c and 2 changed them. */
  input(position: number): unknown;
  /** Whether `ref` gives back exactly these arguments. */
  givesArguments(ref: string, args: unknown): boolean;
}

// ---------------------------------------------------------------------------

// Entries are never mutated, so one that passed once passes again: each render checks only new ones.
const validEntries = new WeakSet<object>();

/** Entries are validated at load; one that slipped through invalid is left alone (fail closed), never rendered. */
function usableEntries(entries: ChainCompressionEntry[], diagnostics?: Reporter): ChainCompressionEntry[] {
  let usable: ChainCompressionEntry[] | undefined;
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i];
    const known = typeof entry === "object" && entry !== null && validEntries.has(entry);
    const parsed = known ? ({ ok: true, value: entry } as const) : parseChainEntry(entry);
    if (parsed.ok && parsed.value === entry && !known) validEntries.add(entry);
    if (parsed.ok && parsed.value === entry && usable === undefined) continue;
    usable ??= entries.slice(0, i);
    if (parsed.ok) {
      usable.push(parsed.value);
      continue;
    }
    const named = (entry as { blockId?: unknown } | null)?.blockId;
    const blockId = isHeaderSafe(named) ? named : "?";
    diagnostics?.report("unresolved-range", `invalid:${blockId}`, `blockId=${blockId} skipped: invalid entry (${parsed.reason})`);
  }
  return usable ?? entries;
}

type Boundaries = { anchors: Map<unknown, Boundary>; assistants: Map<unknown, Boundary> };

/**
 * Counts the anchors (user or eligible custom messages) and the assistants at the entries' boundary
 * timestamps, so each entry resolves in O(1); a user and a custom sharing a start are two matches.
 */
function indexBoundaries(
  messages: readonly unknown[],
  entries: ReadonlyArray<Pick<ChainCompressionEntry, "startUserTimestamp" | "finalAssistantTimestamp">>,
): Boundaries {
  const anchors = new Map<unknown, Boundary>();
  const assistants = new Map<unknown, Boundary>();
  for (const entry of entries) {
    anchors.set(entry.startUserTimestamp, { count: 0, first: -1 });
    assistants.set(entry.finalAssistantTimestamp, { count: 0, first: -1 });
  }
  for (let i = 0; i < messages.length; i++) {
    const msg = messages[i];
    const role = roleOf(msg);
    const map = role === "assistant" ? assistants : role === "user" || isChainAnchorCustom(msg) ? anchors : null;
    const seen = map?.get((msg as { timestamp?: unknown }).timestamp);
    if (seen === undefined) continue;
    if (seen.count++ === 0) seen.first = i;
  }
  return { anchors, assistants };
}

function resolveWith(
  boundaries: Boundaries,
  entry: Pick<ChainCompressionEntry, "startUserTimestamp" | "finalAssistantTimestamp">,
): IndexRange | null {
  const { startUserTimestamp: start, finalAssistantTimestamp: final } = entry;
  // Map lookups match NaN to NaN; the rule is `===`, under which NaN never matches.
  if (typeof start !== "number" || typeof final !== "number" || Number.isNaN(start) || Number.isNaN(final)) return null;
  const anchor = boundaries.anchors.get(start);
  const assistant = boundaries.assistants.get(final);
  if (anchor?.count !== 1 || assistant?.count !== 1) return null;
  if (anchor.first >= assistant.first) return null;
  return { startIndex: anchor.first, endIndex: assistant.first };
}

function boundaryDetail(entry: ChainCompressionEntry): string {
  const final = entry.finalAssistantTimestamp === null ? "null" : String(entry.finalAssistantTimestamp);
  return `blockId=${entry.blockId} start=${entry.startUserTimestamp} final=${final}`;
}

/** Outer ranges win over ranges nested inside them; the first entry claiming a start index wins. */
function acceptNonOverlapping(
  resolved: Array<{ entry: ChainCompressionEntry; range: IndexRange }>,
  diagnostics?: Reporter,
): Array<{ entry: ChainCompressionEntry; range: IndexRange }> {
  const accepted: typeof resolved = [];
  const claimedStarts = new Set<number>();
  for (const candidate of resolved) {
    const { startIndex } = candidate.range;
    const outer = resolved.find(
      (other) => other !== candidate && other.range.startIndex < startIndex && startIndex < other.range.endIndex,
    );
    const key = `overlap:${candidate.entry.blockId}`;
    if (outer) {
      diagnostics?.report(
        "unresolved-range",
        key,
        `blockId=${candidate.entry.blockId} skipped: range nests inside blockId=${outer.entry.blockId}`,
      );
    } else if (claimedStarts.has(startIndex)) {
      diagnostics?.report(
        "unresolved-range",
        key,
        `blockId=${candidate.entry.blockId} skipped: range duplicates startIndex=${startIndex} already claimed`,
      );
    } else {
      claimedStarts.add(startIndex);
      accepted.push(candidate);
    }
  }
  return accepted;
}

const INTERIOR = 1;
const BOUNDARY = 2;

interface Drops {
  /** Per message: INTERIOR inside an accepted range, BOUNDARY at its start or final message. */
  zone: Uint8Array;
  droppedOccKeys: Set<string>;
  droppedBareIds: Set<string>;
  protectedOutputs: ProtectedOutput[][];
}

/**
 * With a guard, an output the stub phase did not stub leaves the range only inside the block, verbatim,
 * as a protected one does: the archive could not give it back (or it is a recovery too short to stub).
 * A stub naming a ref the block's header does not is kept inside the block the same way. And a call leaves
 * with its arguments only when that one ref gives them back; the block keeps the others (dropped-calls.ts),
 * each before the outputs of its turn.
 */
function collectDrops(
  messages: readonly unknown[],
  accepted: Array<{ entry: ChainCompressionEntry; range: IndexRange }>,
  diagnostics?: Reporter,
  guard?: DropGuard,
): Drops {
  const drops: Drops = {
    zone: new Uint8Array(messages.length),
    droppedOccKeys: new Set(),
    droppedBareIds: new Set(),
    protectedOutputs: [],
  };
  for (const { entry, range } of accepted) {
    const protectedIds = new Set(Array.isArray(entry.protectedToolCallIds) ? entry.protectedToolCallIds : []);
    const headerRefs = new Set(Array.isArray(entry.toolRefs) ? entry.toolRefs : []);
    const actual = new Set<string>();
    const calls = guard && new RangeCalls();
    const relocated: Array<ProtectedOutput | DroppedCall> = [];
    drops.zone[range.startIndex]! |= BOUNDARY;
    drops.zone[range.endIndex]! |= BOUNDARY;
    for (let i = range.startIndex + 1; i < range.endIndex; i++) {
      drops.zone[i]! |= INTERIOR;
      const msg = messages[i];
      if (isToolResult(msg)) {
        const id = msg.toolCallId;
        if (typeof id !== "string") continue;
        actual.add(id);
        drops.droppedBareIds.add(id);
        drops.droppedOccKeys.add(occKey(id, resultTimestampOf(msg.timestamp)));
        const call = calls?.answer(id);
        if (protectedIds.has(id)) relocated.push(relocatedOutput(msg));
        else if (guard) {
          const named = guard.stubRefs(i);
          if (named === undefined && !isRecoveryTool(msg.toolName)) guard.miss(occKey(id, resultTimestampOf(msg.timestamp)), `kept in chain ${entry.blockId}: not in the archive`);
          if (named === undefined || !named.every((ref) => headerRefs.has(ref))) relocated.push(relocatedOutput(msg));
          else if (call !== undefined && !call.ambiguous && named.length === 1) call.covered = guard.givesArguments(named[0]!, call.original);
        }
      } else if (isAssistant(msg) && Array.isArray(msg.content)) {
        for (const block of msg.content) {
          if (block?.type !== "toolCall" || typeof block.id !== "string") continue;
          actual.add(block.id);
          drops.droppedBareIds.add(block.id);
        }
        const opened = calls?.open(msg.content, guard!.input(i)) ?? [];
        if (!opensNoCalls(msg)) relocated.push(...opened);
      }
    }
    drops.protectedOutputs.push(relocated.flatMap(keptPiece));
    reportIdMismatch(entry, actual, diagnostics);
  }
  return drops;
}

/** A relocated output as it is; a dropped call only when no ref gives its arguments back and it has some. */
function keptPiece(piece: ProtectedOutput | DroppedCall): ProtectedOutput[] {
  if (!("block" in piece)) return [piece];
  const text = piece.covered ? undefined : keptArgumentsText(piece.block.arguments);
  return text === undefined ? [] : [{ tool: isHeaderSafe(piece.block.name) ? piece.block.name : "", text, call: true }];
}

function relocatedOutput(msg: ToolResultMessage): ProtectedOutput {
  const images = imageBlocksOf(msg.content);
  const output: ProtectedOutput = { tool: toolNameOf(msg), text: extractToolResultText(msg) };
  if (images.length > 0) output.images = images;
  return output;
}

/** The tool name for a relocation tag; one that could break the tag is not written. */
function toolNameOf(msg: ToolResultMessage): string {
  return isHeaderSafe(msg.toolName) ? msg.toolName : "";
}

/** Diagnostic only: the positional range always wins over the recorded ids. */
function reportIdMismatch(entry: ChainCompressionEntry, actual: Set<string>, diagnostics?: Reporter): void {
  const recordedIds = Array.isArray(entry.droppedToolCallIds) ? entry.droppedToolCallIds : [];
  const recorded = new Set(recordedIds.filter((id) => typeof id === "string").map((id) => bareToolCallId(id)));
  const same = recorded.size === actual.size && [...recorded].every((id) => actual.has(id));
  if (same) return;
  diagnostics?.report(
    "range-id-mismatch",
    String(entry.blockId),
    `blockId=${entry.blockId} recorded=${recorded.size} actual=${actual.size}`,
  );
}

function presentSyntheticIds(messages: readonly unknown[]): Set<string> {
  const ids = new Set<string>();
  for (const msg of messages) {
    if (!isUser(msg) || !Array.isArray(msg.content)) continue;
    const text = (msg.content[0] as { text?: unknown } | undefined)?.text;
    if (typeof text !== "string" || !text.startsWith(SYNTHETIC_PREFIX)) continue;
    const match = SYNTHETIC_ID.exec(text);
    if (match) ids.add(match[1]);
  }
  return ids;
}

function emit(
  messages: readonly unknown[],
  accepted: Array<{ entry: ChainCompressionEntry; range: IndexRange }>,
  drops: Drops,
  synthetics: Map<number, UserMessage | null>,
  stripFinalThinking: boolean,
): ChainRangeResult {
  const finals = new Set(accepted.map((a) => a.range.endIndex));
  const created = new Set<unknown>();
  // Filled by index and trimmed at the end: growing a 30k-element array by push costs several times more.
  const out: unknown[] = new Array(messages.length + synthetics.size);
  let n = 0;
  for (let i = 0; i < messages.length; i++) {
    const msg = messages[i];
    const summary = isPerBatchSummaryMessage(msg);
    const droppable = isAssistant(msg) || isToolResult(msg) || summary;
    if ((drops.zone[i]! & INTERIOR) !== 0 && droppable) continue;
    if (summary && perBatchSummaryOverlapsDropped(msg, drops.droppedOccKeys, drops.droppedBareIds)) continue;
    if ((drops.zone[i]! & BOUNDARY) === 0) {
      out[n++] = msg;
      continue;
    }
    // A range's final position holds the assistant it resolved to.
    const kept = stripFinalThinking && finals.has(i) ? withoutThinkingBlocks(msg as AssistantMessage) : msg;
    if (kept !== msg) created.add(kept);
    out[n++] = kept;
    const synthetic = synthetics.get(i);
    if (synthetic) {
      created.add(synthetic);
      out[n++] = synthetic;
    }
  }
  out.length = n;
  return { messages: out, created };
}
