/**
 * Turning assistant turns and their tool results into CapturedBatches, on the
 * live `turn_end` path and on the session-branch rescan path, plus the
 * summarizer serialization and per-user-span grouping of batches.
 */
import { imageMarkerLines } from "./image-markers.js";
import { entryMessage, isAssistant, isPrunerCustomType, isToolResult, isUser, looseEntry, toolCallBlocks, type LooseMessage } from "./message-shape.js";
import { callArgsOf } from "./recovery-call.js";
import type { AssistantMessage, ToolCall } from "@earendil-works/pi-ai";
import { occKey, resultTimestampOf } from "./occurrence-key.js";
import { outcomeFacts } from "../digest/outcome-facts.js";
import { outputDigest } from "../digest/output-digest.js";
import { recordArgs } from "./persisted-entries.js";
import type { BatchingMode } from "../settings/config-shape.js";
import type { CapturedBatch, CapturedToolCall } from "./records.js";

export { imageDigest, imageMarkerDigests } from "./image-markers.js";
/** Results per turn up to which a linear scan beats a map lookup (the crossover measured on bun: 16-24). */
const SCAN_LIMIT = 16;

/** A tool result as capture pairs it with its call: whatever the transcript held, each field checked on use. */
type ResultLike = { toolCallId?: unknown; isError?: unknown; timestamp?: unknown; content?: unknown } | null | undefined;

function textBlocks(content: unknown): string[] {
  if (!Array.isArray(content)) return [];
  const texts: string[] = [];
  for (const block of content) {
    if (block?.type === "text" && typeof block.text === "string") texts.push(block.text);
  }
  return texts;
}

/** One `[image returned: …]` marker line per image block, then the text blocks, joined with newlines. */
export function extractToolResultText(msg: unknown): string {
  const content = (msg as ResultLike)?.content;
  const markers = imageMarkerLines(content);
  const texts = textBlocks(content);
  return (markers.length === 0 ? texts : [...markers, ...texts]).join("\n");
}

/**
 * The first result per tool-call id, matched with `===` (a NaN id finds
 * nothing). A turn usually has a handful of results, which an array scan
 * serves fastest; past SCAN_LIMIT a map takes over, so one turn with a huge
 * batch stays linear.
 */
class FirstResults {
  private list: ResultLike[] = [];
  private byId: Map<unknown, ResultLike> | null = null;

  static of(results: readonly unknown[]): FirstResults {
    const first = new FirstResults();
    for (const result of results) first.add(result);
    return first;
  }

  /** Keeps `result` unless an earlier one carries its id. */
  add(value: unknown): void {
    const result = value as ResultLike;
    const id = result?.toolCallId;
    if (this.byId !== null) {
      if (id === id && !this.byId.has(id)) this.byId.set(id, result);
      return;
    }
    if (this.scan(id) >= 0) return;
    this.list.push(result);
    if (this.list.length > SCAN_LIMIT) {
      const byId = new Map<unknown, ResultLike>();
      // The list holds no repeated id (NaN aside, which never matches and is left out).
      for (const kept of this.list) {
        const keptId = kept?.toolCallId;
        if (keptId === keptId) byId.set(keptId, kept);
      }
      this.byId = byId;
      this.list = [];
    }
  }

  get(id: unknown): ResultLike {
    if (this.byId !== null) return id === id ? this.byId.get(id) : undefined;
    const at = this.scan(id);
    return at < 0 ? undefined : this.list[at];
  }

  get isEmpty(): boolean {
    return this.byId === null ? this.list.length === 0 : this.byId.size === 0;
  }

  clear(): void {
    this.list.length = 0;
    this.byId = null;
  }

  private scan(id: unknown): number {
    const list = this.list;
    for (let i = 0; i < list.length; i++) if (list[i]?.toolCallId === id) return i;
    return -1;
  }
}

// Captured values become persisted records, so they take the types the rebuild accepts (persisted-entries.ts).
function captureCall(block: ToolCall, results: FirstResults): CapturedToolCall {
  const args = recordArgs(callArgsOf(block));
  const toolName = typeof block.name === "string" ? block.name : "";
  const match = results.get(block.id);
  if (!match) {
    return { toolCallId: block.id, toolName, args, resultText: "(no result)", isError: false };
  }
  const call: CapturedToolCall = {
    toolCallId: block.id,
    toolName,
    args,
    resultText: extractToolResultText(match),
    isError: match.isError === true,
  };
  const resultTimestamp = resultTimestampOf(match.timestamp);
  if (resultTimestamp !== undefined) call.resultTimestamp = resultTimestamp;
  const outcome = outcomeFacts(toolName, args, call.resultText, call.isError);
  if (outcome !== undefined) call.outcome = outcome;
  const digest = outputDigest(toolName, args, call.resultText, call.isError);
  if (digest !== undefined) call.digest = digest;
  return call;
}

export function captureBatch(message: unknown, toolResults: readonly unknown[], turnIndex: number, timestamp: number): CapturedBatch {
  const results = FirstResults.of(toolResults ?? []);
  return {
    turnIndex,
    timestamp,
    assistantText: textBlocks((message as ResultLike)?.content).join("\n").trim(),
    // A call without a string id can neither be paired with its result nor keyed in the index.
    toolCalls: toolCallBlocks(message)
      .filter((block) => typeof block.id === "string")
      .map((block) => captureCall(block, results)),
  };
}

interface OpenTurn {
  entryTimestamp: unknown;
  message: AssistantMessage | undefined;
  turnIndex: number;
  userTurnGroup: number;
  results: FirstResults;
}

function batchTimestamp(entryTimestamp: unknown, message: AssistantMessage): number {
  if (entryTimestamp) return new Date(entryTimestamp as string).getTime();
  return message.timestamp ?? Date.now();
}

function batchFromTurn(
  turn: OpenTurn,
  indexer: { isSummarized(id: string): boolean },
  exclude: (toolName: string, args: unknown) => boolean,
): CapturedBatch | undefined {
  // Most turns on a reloaded branch are already indexed: allocate only for one that is not.
  let ready: Set<string> | undefined;
  let readyResults: ResultLike[] | undefined;
  const content = turn.message!.content;
  if (!Array.isArray(content) || turn.results.isEmpty) return undefined;
  for (const block of content) {
    if (block?.type !== "toolCall" || typeof block.id !== "string" || !block.id) continue;
    const result = turn.results.get(block.id);
    if (!result) continue;
    if (indexer.isSummarized(occKey(block.id, resultTimestampOf(result.timestamp)))) continue;
    if (exclude(block.name, (block as { input?: unknown }).input ?? block.arguments)) continue;
    (ready ??= new Set()).add(block.id);
    (readyResults ??= []).push(result);
  }
  if (ready === undefined || readyResults === undefined) return undefined;
  const batch = captureBatch(turn.message, readyResults, turn.turnIndex, batchTimestamp(turn.entryTimestamp, turn.message!));
  batch.toolCalls = batch.toolCalls.filter((call) => ready.has(call.toolCallId));
  batch.userTurnGroup = turn.userTurnGroup;
  return batch;
}

export function captureUnindexedBatchesFromSession(
  branch: readonly unknown[],
  indexer: { isSummarized(id: string): boolean },
  exclude: (toolName: string, args: unknown) => boolean = () => false,
): CapturedBatch[] {
  const batches: CapturedBatch[] = [];
  let turnIndex = 0;
  let userTurnGroup = 0;
  // One open turn at a time; its results are reused, since a batch copies what it keeps.
  const open: OpenTurn = { entryTimestamp: undefined, message: undefined, turnIndex: 0, userTurnGroup: 0, results: new FirstResults() };
  const closeOpen = () => {
    const batch = open.message === undefined ? undefined : batchFromTurn(open, indexer, exclude);
    if (batch) batches.push(batch);
    open.message = undefined;
    open.results.clear();
  };
  for (const value of branch) {
    const entry = looseEntry(value);
    // Another extension's custom message opens a chain like a user message: batches never merge across it.
    if (entry?.type === "custom_message" && !isPrunerCustomType(entry.customType)) userTurnGroup += 1;
    const message = entryMessage(entry);
    if (message === undefined) continue;
    if (isAssistant(message)) {
      closeOpen();
      open.entryTimestamp = entry!.timestamp;
      open.message = message;
      open.turnIndex = turnIndex;
      open.userTurnGroup = userTurnGroup;
      turnIndex += 1;
    } else if (isUser(message)) {
      userTurnGroup += 1;
    } else if (isToolResult(message) && open.message !== undefined) {
      open.results.add(message);
    }
  }
  closeOpen();
  return batches;
}

/** Chars of one result (and of one call's JSON arguments) the summarizer sees: head and tail halves. */
export const SUMMARIZER_WINDOW_CHARS = 8000;
/** The largest batch prompt body a summarizer call is given (about 75k tokens). */
export const SUMMARIZER_INPUT_LIMIT = 300_000;
// Big batches get narrower windows before they are given up on.
const WINDOW_LADDER = [SUMMARIZER_WINDOW_CHARS, 4000, 2000, 1000, 500];

/** The text itself when it fits the window, else its head and tail around a marker naming the elided count. */
export function clipForSummarizer(text: string, window = SUMMARIZER_WINDOW_CHARS): string {
  if (text.length <= window) return text;
  const head = Math.ceil(window / 2);
  const tail = window - head;
  return `${text.slice(0, head)} ...[${text.length - window} chars elided]... ${text.slice(text.length - tail)}`;
}

function serializeCall(call: CapturedToolCall, index: number, window: number): string {
  const args = clipForSummarizer(String(JSON.stringify(call.args, null, 2)), window);
  const header = `[[${index + 1}:${call.toolName}]] Tool: ${call.toolName}(${args})`;
  return `${header}\nResult (${call.isError ? "ERROR" : "OK"}): ${clipForSummarizer(call.resultText, window)}`;
}

export function serializeBatchForSummarizer(batch: CapturedBatch, window = SUMMARIZER_WINDOW_CHARS): string {
  const parts: string[] = [];
  if (batch.assistantText) parts.push(`Assistant said: ${clipForSummarizer(batch.assistantText, window)}\n`);
  parts.push(batch.toolCalls.map((call, i) => serializeCall(call, i, window)).join("\n---\n"));
  return parts.join("\n");
}

/** The batch as the summarizer sees it, with the widest window that keeps it within the input limit; undefined when none does. */
export function serializeBatchWithinLimit(batch: CapturedBatch): string | undefined {
  for (const window of WINDOW_LADDER) {
    const text = serializeBatchForSummarizer(batch, window);
    if (text.length <= SUMMARIZER_INPUT_LIMIT) return text;
  }
  return undefined;
}

interface OpenGroup {
  batch: CapturedBatch;
  ownsCalls: boolean;
}

// The first merge builds a fresh toolCalls array (the shallow copy shares the
// source's); later merges append to that owned array to stay linear.
function mergeInto(group: OpenGroup, next: CapturedBatch): void {
  const texts = [group.batch.assistantText, next.assistantText].filter((t) => t);
  if (!group.ownsCalls) {
    group.batch.toolCalls = [...group.batch.toolCalls];
    group.ownsCalls = true;
  }
  // A loop, not push(...calls): spreading a huge batch overflows the stack.
  for (const call of next.toolCalls) group.batch.toolCalls.push(call);
  group.batch.assistantText = texts.join("\n\n");
  group.batch.turnIndex = next.turnIndex;
  group.batch.timestamp = next.timestamp;
}

export function groupBatchesByMode(batches: CapturedBatch[], mode: BatchingMode): CapturedBatch[] {
  if (mode !== "agent-message") return batches;
  const grouped: CapturedBatch[] = [];
  let open: OpenGroup | undefined;
  for (const batch of batches) {
    if (batch.userTurnGroup === undefined) {
      grouped.push(batch);
      open = undefined;
    } else if (open && open.batch.userTurnGroup === batch.userTurnGroup) {
      mergeInto(open, batch);
    } else {
      open = { batch: { ...batch }, ownsCalls: false };
      grouped.push(open.batch);
    }
  }
  return grouped;
}

/**
 * Message entries as messages, custom_message entries as the `custom` role the
 * model sees (timestamps in ms, as pi's own projection makes them, so anchors
 * match at render time); other entries dropped. What chain detection, the
 * chain pass and the context metrics read. Loose as 2.9.1's callers read it: its readers check each message.
 */
export function projectBranchMessages(branch: readonly unknown[]): any[] {
  const out: LooseMessage[] = [];
  for (const value of branch) {
    const entry = looseEntry(value);
    const message = entryMessage(entry);
    // Taken as pi wrote it: every reader of the projection checks each message through message-shape.ts.
    if (message !== undefined) {
      out.push(message as LooseMessage);
    } else if (entry?.type === "custom_message") {
      out.push({
        role: "custom",
        customType: entry.customType,
        content: entry.content,
        display: entry.display,
        details: entry.details,
        timestamp: entryTime(entry.timestamp),
      });
    }
  }
  return out;
}

/** pi writes ISO strings; anything else a session file holds must not throw on conversion (NaN anchors nothing). */
function entryTime(value: unknown): number {
  return typeof value === "string" || typeof value === "number" ? new Date(value).getTime() : Number.NaN;
}
