/**
 * Turning assistant turns and their tool results into CapturedBatches, on the
 * live `turn_end` path and on the session-branch rescan path, plus the
 * summarizer serialization and per-user-span grouping of batches.
 */
import { toolCallBlocks } from "./message-shape.js";
import { occKey, resultTimestampOf } from "./occurrence-key.js";
import type { BatchingMode, CapturedBatch, CapturedToolCall } from "./types.js";

const SERIALIZE_RESULT_CHARS = 2000;
/** Results per turn up to which a linear scan beats a map lookup (the crossover measured on bun: 16-24). */
const SCAN_LIMIT = 16;

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

/**
 * The first result per tool-call id, matched with `===` (a NaN id finds
 * nothing). A turn usually has a handful of results, which an array scan
 * serves fastest; past SCAN_LIMIT a map takes over, so one turn with a huge
 * batch stays linear.
 */
class FirstResults {
  private list: any[] = [];
  private byId: Map<unknown, any> | null = null;

  static of(results: any[]): FirstResults {
    const first = new FirstResults();
    for (const result of results) first.add(result);
    return first;
  }

  /** Keeps `result` unless an earlier one carries its id. */
  add(result: any): void {
    const id = result?.toolCallId;
    if (this.byId !== null) {
      if (id === id && !this.byId.has(id)) this.byId.set(id, result);
      return;
    }
    if (this.scan(id) >= 0) return;
    this.list.push(result);
    if (this.list.length > SCAN_LIMIT) {
      const byId = new Map<unknown, any>();
      // The list holds no repeated id (NaN aside, which never matches and is left out).
      for (const kept of this.list) {
        const keptId = kept?.toolCallId;
        if (keptId === keptId) byId.set(keptId, kept);
      }
      this.byId = byId;
      this.list = [];
    }
  }

  get(id: unknown): any {
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

function captureCall(block: any, results: FirstResults): CapturedToolCall {
  const args = block.input ?? block.args ?? block.arguments ?? {};
  const match = results.get(block.id);
  if (!match) {
    return { toolCallId: block.id, toolName: block.name, args, resultText: "(no result)", isError: false };
  }
  const call: CapturedToolCall = {
    toolCallId: block.id,
    toolName: block.name,
    args,
    resultText: extractToolResultText(match),
    isError: match.isError ?? false,
  };
  const resultTimestamp = resultTimestampOf(match.timestamp);
  if (resultTimestamp !== undefined) call.resultTimestamp = resultTimestamp;
  return call;
}

export function captureBatch(message: any, toolResults: any[], turnIndex: number, timestamp: number): CapturedBatch {
  const results = FirstResults.of(toolResults ?? []);
  return {
    turnIndex,
    timestamp,
    assistantText: textBlocks(message?.content).join("\n").trim(),
    toolCalls: toolCallBlocks(message).map((block) => captureCall(block, results)),
  };
}

interface OpenTurn {
  entry: any;
  message: any;
  turnIndex: number;
  userTurnGroup: number;
  results: FirstResults;
}

function batchTimestamp(entry: any, message: any): number {
  if (entry.timestamp) return new Date(entry.timestamp).getTime();
  return message.timestamp ?? Date.now();
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
  if (!Array.isArray(content) || turn.results.isEmpty) return undefined;
  for (const block of content) {
    if (block?.type !== "toolCall" || !block.id) continue;
    const result = turn.results.get(block.id);
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
  // One open turn at a time; its results are reused, since a batch copies what it keeps.
  const open: OpenTurn = { entry: undefined, message: undefined, turnIndex: 0, userTurnGroup: 0, results: new FirstResults() };
  const closeOpen = () => {
    const batch = open.message === undefined ? undefined : batchFromTurn(open, indexer, exclude);
    if (batch) batches.push(batch);
    open.message = undefined;
    open.results.clear();
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
    } else if (message.role === "toolResult" && open.message !== undefined) {
      open.results.add(message);
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
