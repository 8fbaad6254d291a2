/**
 * Turning assistant turns and their tool results into CapturedBatches, on the
 * live `turn_end` path and on the session-branch rescan path, plus the
 * summarizer serialization and per-user-span grouping of batches.
 */
import { toolCallBlocks } from "./message-shape.js";
import { occKey, resultTimestampOf } from "./occurrence-key.js";
import { recordArgs } from "./persisted-entries.js";
import type { BatchingMode, CapturedBatch, CapturedToolCall } from "./types.js";

const SERIALIZE_RESULT_CHARS = 2000;

function textBlocks(content: unknown): string[] {
  if (!Array.isArray(content)) return [];
  const texts: string[] = [];
  for (const block of content) {
    if (block?.type === "text" && typeof block.text === "string") texts.push(block.text);
  }
  return texts;
}

export function extractToolResultText(msg: any): string {
  return textBlocks(msg?.content).join("\n");
}

// Captured values become persisted records, so they take the types the rebuild accepts (persisted-entries.ts).
function captureCall(block: any, toolResults: any[]): CapturedToolCall {
  const args = recordArgs(block.input ?? block.args ?? block.arguments);
  const toolName = typeof block.name === "string" ? block.name : "";
  const match = toolResults.find((r) => r?.toolCallId === block.id);
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
  return call;
}

export function captureBatch(message: any, toolResults: any[], turnIndex: number, timestamp: number): CapturedBatch {
  return {
    turnIndex,
    timestamp,
    assistantText: textBlocks(message?.content).join("\n").trim(),
    // A call without a string id can neither be paired with its result nor keyed in the index.
    toolCalls: toolCallBlocks(message)
      .filter((block) => typeof block.id === "string")
      .map((block) => captureCall(block, toolResults ?? [])),
  };
}

interface OpenTurn {
  entry: any;
  message: any;
  turnIndex: number;
  userTurnGroup: number;
  /** The first result for each id, in arrival order (a turn has a handful; an array beats a map here). */
  results: any[];
}

function batchTimestamp(entry: any, message: any): number {
  if (entry.timestamp) return new Date(entry.timestamp).getTime();
  return message.timestamp ?? Date.now();
}

function firstResultFor(results: any[], id: unknown): any {
  for (const result of results) if (result.toolCallId === id) return result;
  return undefined;
}

function batchFromTurn(
  turn: OpenTurn,
  indexer: { isSummarized(id: string): boolean },
  exclude: (toolName: string, args: unknown) => boolean,
): CapturedBatch | undefined {
  // Most turns on a reloaded branch are already indexed: allocate only for one that is not.
  let ready: Set<string> | undefined;
  let readyResults: any[] | undefined;
  const content = turn.message.content;
  if (!Array.isArray(content) || turn.results.length === 0) return undefined;
  for (const block of content) {
    if (block?.type !== "toolCall" || typeof block.id !== "string" || !block.id) continue;
    const result = firstResultFor(turn.results, block.id);
    if (!result) continue;
    if (indexer.isSummarized(occKey(block.id, resultTimestampOf(result.timestamp)))) continue;
    if (exclude(block.name, block.input ?? block.arguments)) continue;
    (ready ??= new Set()).add(block.id);
    (readyResults ??= []).push(result);
  }
  if (ready === undefined || readyResults === undefined) return undefined;
  const batch = captureBatch(turn.message, readyResults, turn.turnIndex, batchTimestamp(turn.entry, turn.message));
  batch.toolCalls = batch.toolCalls.filter((call) => ready.has(call.toolCallId));
  batch.userTurnGroup = turn.userTurnGroup;
  return batch;
}

export function captureUnindexedBatchesFromSession(
  branch: any[],
  indexer: { isSummarized(id: string): boolean },
  exclude: (toolName: string, args: unknown) => boolean = () => false,
): CapturedBatch[] {
  const batches: CapturedBatch[] = [];
  let turnIndex = 0;
  let userTurnGroup = 0;
  // One open turn at a time; its results array is reused, since a batch copies what it keeps.
  const open: OpenTurn = { entry: undefined, message: undefined, turnIndex: 0, userTurnGroup: 0, results: [] };
  const closeOpen = () => {
    const batch = open.message === undefined ? undefined : batchFromTurn(open, indexer, exclude);
    if (batch) batches.push(batch);
    open.message = undefined;
    open.results.length = 0;
  };
  for (const entry of branch) {
    if (entry?.type !== "message" || !entry.message) continue;
    const message = entry.message;
    if (message.role === "assistant") {
      closeOpen();
      open.entry = entry;
      open.message = message;
      open.turnIndex = turnIndex;
      open.userTurnGroup = userTurnGroup;
      turnIndex += 1;
    } else if (message.role === "user") {
      userTurnGroup += 1;
    } else if (message.role === "toolResult" && open.message !== undefined && !firstResultFor(open.results, message.toolCallId)) {
      open.results.push(message);
    }
  }
  closeOpen();
  return batches;
}

function serializeCall(call: CapturedToolCall, index: number): string {
  const text = call.resultText;
  const shown =
    text.length > SERIALIZE_RESULT_CHARS
      ? `${text.slice(0, SERIALIZE_RESULT_CHARS)} ...[${text.length - SERIALIZE_RESULT_CHARS} chars truncated]`
      : text;
  const header = `[[${index + 1}:${call.toolName}]] Tool: ${call.toolName}(${JSON.stringify(call.args, null, 2)})`;
  return `${header}\nResult (${call.isError ? "ERROR" : "OK"}): ${shown}`;
}

export function serializeBatchForSummarizer(batch: CapturedBatch): string {
  const parts: string[] = [];
  if (batch.assistantText) parts.push(`Assistant said: ${batch.assistantText}\n`);
  parts.push(batch.toolCalls.map(serializeCall).join("\n---\n"));
  return parts.join("\n");
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
  group.batch.toolCalls.push(...next.toolCalls);
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
