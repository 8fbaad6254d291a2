/**
 * The size of the rewrite a flush would cause, measured on the branch as the
 * provider receives it: the suffix from the first pending tool result to the
 * end (the reply about to be written included), the tokens the stubs remove,
 * and estimates of the summaries and the summarizer's input.
 */
import type { RewriteFigures } from "../economics/rewrite-economics.js";
import { occKey } from "../capture/occurrence-key.js";
import { requestChars } from "../render/message-size.js";
import type { CapturedBatch, CapturedToolCall } from "../capture/records.js";
import { CUSTOM_TYPE_SUMMARY } from "../names.js";
import { SUMMARY_FRAME } from "../format/summary-frame.js";
import { stubbableChars } from "../arguments/fields.js";
import { isAssistant, isToolResult, loose } from "../capture/message-shape.js";
import type { WriteSight } from "../sight/working-set.js";

const CHARS_PER_TOKEN = 4;
/** A stub line: the ref, the tool and a few words. */
const STUB_CHARS = 200;
/** The share of its output a summary is assumed to keep (PRUNING.md compares it with measured flushes). */
export const SUMMARY_SHARE = 0.15;
/** What a summary message adds besides its body: the frame that opens it and the refs footer that closes it. */
const SUMMARY_MESSAGE_CHARS = SUMMARY_FRAME.length + 140;
/** The summarizer reads at most head and tail of each output (summarizer-window.ts). */
const SUMMARIZER_CHARS_PER_OUTPUT = 8_000;

function resultKey(message: unknown): string | undefined {
  if (!isToolResult(message) || typeof message.toolCallId !== "string") return undefined;
  return occKey(message.toolCallId, typeof message.timestamp === "number" ? message.timestamp : undefined);
}

/**
 * Undefined when none of the pending outputs is on the branch (nothing to measure). An output `isCopy`
 * accepts is stubbed as a copy of an archived one: no summary, no summarizer call. The calls `argumentsDone`
 * accepts have their bulky arguments become markers too (argument stubs), in the same rewrite, which then
 * starts at their call.
 */
export function measureRewrite(
  messages: readonly unknown[],
  pending: readonly CapturedBatch[],
  closing?: unknown,
  isCopy: (call: CapturedToolCall) => boolean = () => false,
  argumentsDone: (call: CapturedToolCall) => boolean = () => false,
  sight?: WriteSight,
): RewriteFigures | undefined {
  const calls = new Map<string, CapturedToolCall>();
  for (const batch of pending) for (const call of batch.toolCalls) calls.set(occKey(call.toolCallId, call.resultTimestamp), call);
  let first = -1;
  let firstKept = -1;
  let removed = 0;
  let summarizerInput = 0;
  let summaryChars = 0;
  const saved = new Map<string, number>();
  for (let i = 0; i < messages.length; i++) {
    const key = resultKey(messages[i]);
    if (key !== undefined && sight?.released.has(key) && !calls.has(key)) {
      // A kept output the working set lets go in this rewrite: it is stubbed too, and the rewrite starts there.
      if (first < 0) first = i;
      const chars = Math.max(0, requestChars(messages[i]) - STUB_CHARS);
      removed += chars;
      saved.set(key, chars / CHARS_PER_TOKEN);
      continue;
    }
    const call = key === undefined ? undefined : calls.get(key);
    if (!call || key === undefined) continue;
    // An output the working set keeps stays raw: the rewrite neither removes it nor starts at it.
    if (sight?.kept.has(key)) {
      if (firstKept < 0) firstKept = i;
      continue;
    }
    if (first < 0) first = i;
    const chars = requestChars(messages[i]);
    const args = argumentsDone(call) ? stubbableChars(call.toolName, call.args) : 0;
    if (args > 0) first = Math.min(first, callIndex(messages, i));
    const stubbed = Math.max(0, chars - STUB_CHARS) + args;
    removed += stubbed;
    const copy = isCopy(call);
    const summary = copy ? 0 : chars * SUMMARY_SHARE;
    saved.set(key, Math.max(0, stubbed - summary) / CHARS_PER_TOKEN);
    if (copy) continue;
    summaryChars += summary;
    summarizerInput += Math.min(chars, SUMMARIZER_CHARS_PER_OUTPUT);
  }
  // Every pending output kept raw: a rewrite that removes nothing, measured from where it would start.
  if (first < 0) first = firstKept;
  if (first < 0) return undefined;
  // Each batch with an output to summarize adds one summary message.
  for (const batch of pending) if (batch.toolCalls.some((call) => !isCopy(call))) summaryChars += SUMMARY_MESSAGE_CHARS;
  let suffix = closing === undefined ? 0 : requestChars(closing);
  for (let i = first; i < messages.length; i++) suffix += requestChars(messages[i]);
  return {
    suffixTokens: suffix / CHARS_PER_TOKEN,
    removedTokens: removed / CHARS_PER_TOKEN,
    summaryTokens: summaryChars / CHARS_PER_TOKEN,
    summarizerInputTokens: summarizerInput / CHARS_PER_TOKEN,
    savedTokensByKey: saved,
    ...reach(messages, first, closing),
    ...(sight && sight.hidden.length > 0 ? { recovery: expectedRecovery(sight.hidden) } : {}),
  };
}

/** The chance the agent needs again an output of a file it is working on, once hidden; and an edit's chance to fail on old text it no longer sees. */
export const NEED_CHANCE = 0.5;
export const FAILED_EDIT_CHANCE = 0.25;

/** Each hidden view: read again with that chance (a round trip, its text written), and for an edited file a failed edit and its retry. */
function expectedRecovery(hidden: WriteSight["hidden"]): { roundTrips: number; rereadTokens: number } {
  let roundTrips = 0;
  let rereadTokens = 0;
  for (const view of hidden) {
    roundTrips += NEED_CHANCE + (view.edited ? FAILED_EDIT_CHANCE : 0);
    rereadTokens += (NEED_CHANCE * view.chars) / CHARS_PER_TOKEN;
  }
  return { roundTrips, rereadTokens };
}

/** The assistant message whose call the result at `resultIndex` answers: the nearest one before it. */
function callIndex(messages: readonly unknown[], resultIndex: number): number {
  for (let i = resultIndex - 1; i >= 0; i--) if (isAssistant(messages[i])) return i;
  return resultIndex;
}

/** Content blocks of a message as the provider counts them (a tool result or string content is one). */
export function contentBlocks(message: unknown): number {
  if (isToolResult(message)) return 1;
  const content = loose(message)?.content;
  return Array.isArray(content) ? Math.max(1, content.length) : 1;
}

/** How far back a rewrite starting at message `first` lies: the conversation before it, the blocks after it. */
function reach(messages: readonly unknown[], first: number, closing?: unknown): { prefixTokens: number; suffixBlocks: number } {
  let prefix = 0;
  for (let i = 0; i < first; i++) prefix += requestChars(messages[i]);
  let blocks = closing === undefined ? 0 : contentBlocks(closing);
  for (let i = first; i < messages.length; i++) blocks += contentBlocks(messages[i]);
  return { prefixTokens: prefix / CHARS_PER_TOKEN, suffixBlocks: blocks };
}

/** A message as the request will show it once the flush is written: indexed and pending outputs as stubs. */
function viewChars(message: unknown, stubbed: (key: string) => boolean): number {
  const key = resultKey(message);
  return key !== undefined && stubbed(key) ? STUB_CHARS : requestChars(message);
}

/**
 * What compressing `chains` adds to a flush that rewrites from `flushStart` (the first pending output's
 * index; the end when the flush rewrites nothing): the region before it that the chain rewrite reaches too,
 * the chain middles the blocks remove, and the blocks (and the range summaries) that replace them.
 */
export function measureChainRewrite(
  messages: readonly unknown[],
  chains: ReadonlyArray<{ startIndex: number; endIndex: number }>,
  flushStart: number,
  stubbed: (key: string) => boolean,
): (RewriteFigures & { entryWrittenAt?: number }) | undefined {
  if (chains.length === 0) return undefined;
  const first = Math.min(...chains.map((c) => c.startIndex));
  let removed = 0;
  for (const chain of chains) removed += droppedChars(messages, chain, stubbed);
  let extra = 0;
  for (let i = first; i < Math.min(flushStart, messages.length); i++) extra += viewChars(messages[i], stubbed);
  const block = removed * SUMMARY_SHARE + STUB_CHARS * chains.length;
  return {
    suffixTokens: Math.max(extra, removed) / CHARS_PER_TOKEN,
    removedTokens: removed / CHARS_PER_TOKEN,
    summaryTokens: block / CHARS_PER_TOKEN,
    summarizerInputTokens: removed / CHARS_PER_TOKEN,
    savedTokensByKey: chainSavings(messages, chains, stubbed),
    ...reach(messages, first),
    ...entryWrittenAt(messages, first),
  };
}

/**
 * What compressing a chain drops, as the request shows it: the messages between its start and its final reply,
 * and the per-batch summary messages of its outputs (the render drops those wherever they sit).
 */
function droppedChars(messages: readonly unknown[], chain: { startIndex: number; endIndex: number }, stubbed: (key: string) => boolean): number {
  let chars = 0;
  const outputs = new Set<string>();
  for (let i = chain.startIndex + 1; i < chain.endIndex; i++) {
    chars += viewChars(messages[i], stubbed);
    const message = messages[i];
    if (isToolResult(message) && typeof message.toolCallId === "string") outputs.add(message.toolCallId);
  }
  for (let i = chain.endIndex; i < messages.length; i++) {
    const message = loose(messages[i]);
    const refs = message?.customType === CUSTOM_TYPE_SUMMARY ? loose(message.details)?.toolCallRefs : undefined;
    if (Array.isArray(refs) && refs.some((ref: { toolCallId?: unknown }) => typeof ref?.toolCallId === "string" && outputs.has(ref.toolCallId))) chars += requestChars(messages[i]);
  }
  return chars;
}

/** The key a chain is deferred under: its start message's time, as its compression entry records it. */
export function chainItemKey(startUserTimestamp: number): string {
  return `chain@${startUserTimestamp}`;
}

/** Per chain (keyed by `chainItemKey` of its start message): the middle it drops, less the block that replaces it. */
function chainSavings(messages: readonly unknown[], chains: ReadonlyArray<{ startIndex: number; endIndex: number }>, stubbed: (key: string) => boolean): Map<string, number> {
  const saved = new Map<string, number>();
  for (const chain of chains) {
    const start = loose(messages[chain.startIndex])?.timestamp;
    if (typeof start !== "number") continue;
    const middle = droppedChars(messages, chain, stubbed);
    saved.set(chainItemKey(start), Math.max(0, middle * (1 - SUMMARY_SHARE) - STUB_CHARS) / CHARS_PER_TOKEN);
  }
  return saved;
}

/**
 * When the entry right before a chain rewrite was last written: by the request answered by the first reply
 * after the chain's start (its conversation marker sat on the start message). Nothing later touches it.
 */
function entryWrittenAt(messages: readonly unknown[], first: number): { entryWrittenAt?: number } {
  for (let i = first; i < messages.length; i++) {
    const m = messages[i];
    if (isAssistant(m)) return typeof m.timestamp === "number" && Number.isFinite(m.timestamp) ? { entryWrittenAt: m.timestamp } : {};
  }
  return {};
}

/** The index of the first of `pending`'s outputs on the branch; the branch's length when none is on it. */
export function firstPendingIndex(messages: readonly unknown[], pending: readonly CapturedBatch[]): number {
  const keys = pendingKeys(pending);
  const found = messages.findIndex((m) => {
    const key = resultKey(m);
    return key !== undefined && keys.has(key);
  });
  return found < 0 ? messages.length : found;
}

/** The occurrence keys of the batches' calls. */
export function pendingKeys(batches: readonly CapturedBatch[]): Set<string> {
  const keys = new Set<string>();
  for (const batch of batches) for (const call of batch.toolCalls) keys.add(occKey(call.toolCallId, call.resultTimestamp));
  return keys;
}
