/**
 * The index rebuild's walk over a session branch: every `context-prune-*`
 * entry comes in only through the persisted-entries parsers, and a summary
 * whose index line a crash cut off gets its records back from the transcript.
 */
import { extractToolResultText } from "../capture/batch-capture.js";
import { occKey } from "../capture/occurrence-key.js";
import { contentBlocks, entryMessage, isAssistant, isToolCall, isToolResult } from "../capture/message-shape.js";
import { outcomeFacts } from "../digest/outcome-facts.js";
import { outputDigest } from "../digest/output-digest.js";
import {
  corruptEntryMessage,
  corruptPartMessage,
  isPlainObject,
  parseAliasEntry,
  parseChainEntry,
  parseIndexEntry,
  parseSummaryEntry,
  recordArgs,
} from "../capture/persisted-entries.js";
import { CUSTOM_TYPE_CHAIN, CUSTOM_TYPE_DEDUP_ALIAS, CUSTOM_TYPE_INDEX, CUSTOM_TYPE_SUMMARY, QUERY_TOOL_NAME } from "../names.js";
import type { ChainCompressionEntry, SummaryToolCallRef, ToolCallRecord } from "../capture/records.js";

export interface BranchVisitor {
  indexRecords(records: ToolCallRecord[], backfilled: boolean, refs: SummaryToolCallRef[]): void;
  summary(refs: SummaryToolCallRef[], text: string): void;
  chain(entry: ChainCompressionEntry): void;
  /** Refs the branch shows outside the index (a recovery call's arguments, a chain header): never minted again. */
  refsShown(refs: string[]): void;
  /** The raw ids of an assistant message's calls. */
  callIds(ids: unknown[]): void;
  /** Where an unreadable entry is reported; the console when absent. */
  report?(message: string): void;
}

function reportTo(visitor: BranchVisitor, message: string): void {
  if (visitor.report) visitor.report(message);
  else console.error(message);
}

export interface PendingAlias {
  newKey: string;
  originalKey: string;
  call?: AliasCall;
}

/** What a dedup alias records of its own call when it differs from the original's. */
export interface AliasCall {
  args?: Record<string, unknown>;
  isError?: boolean;
}

/** Records for the given occurrence keys, rebuilt from the transcript's tool results and their calls. */
/** Keys two results of the transcript carry: which of them a summary named cannot be told, so none is rebuilt. */
function keysOnSeveralResults(branch: unknown[], keys: ReadonlySet<string>): Set<string> {
  const seen = new Set<string>();
  const shared = new Set<string>();
  for (const entry of branch) {
    const msg = entryMessage(entry);
    if (!isToolResult(msg) || typeof msg.toolCallId !== "string" || typeof msg.timestamp !== "number") continue;
    const key = occKey(msg.toolCallId, msg.timestamp);
    if (!keys.has(key)) continue;
    if (seen.has(key)) shared.add(key);
    seen.add(key);
  }
  return shared;
}

export function recordsFromTranscript(branch: unknown[], keys: Set<string>): ToolCallRecord[] {
  const records: ToolCallRecord[] = [];
  const calls = new Map<unknown, { name: unknown; args: unknown }>();
  const shared = keysOnSeveralResults(branch, keys);
  let turnIndex = -1;
  for (const entry of branch) {
    const msg = entryMessage(entry);
    if (isAssistant(msg)) {
      turnIndex++;
      calls.clear();
      for (const block of contentBlocks(msg)) {
        if (!isToolCall(block)) continue;
        const loose = block as { arguments?: unknown; input?: unknown; args?: unknown };
        calls.set(block.id, { name: block.name, args: loose.arguments ?? loose.input ?? loose.args });
      }
    } else if (isToolResult(msg) && typeof msg.toolCallId === "string" && typeof msg.timestamp === "number") {
      const key = occKey(msg.toolCallId, msg.timestamp);
      const call = calls.get(msg.toolCallId);
      if (!keys.has(key) || !call || shared.has(key)) continue;
      keys.delete(key);
      const record: ToolCallRecord = {
        toolCallId: msg.toolCallId,
        toolName: typeof call.name === "string" ? call.name : String(msg.toolName ?? ""),
        args: recordArgs(call.args),
        resultText: extractToolResultText(msg),
        isError: msg.isError === true,
        turnIndex,
        timestamp: msg.timestamp,
        resultTimestamp: msg.timestamp,
      };
      // The same facts and digest the live capture read, so the stub matches the one the flush's record gave.
      const outcome = outcomeFacts(record.toolName, record.args, record.resultText, record.isError);
      if (outcome !== undefined) record.outcome = outcome;
      const digest = outputDigest(record.toolName, record.args, record.resultText, record.isError);
      if (digest !== undefined) record.digest = digest;
      records.push(record);
    }
  }
  return records;
}

function readIndexEntry(data: unknown, visitor: BranchVisitor): void {
  const parsed = parseIndexEntry(data);
  if (!parsed.ok) return reportTo(visitor, corruptEntryMessage(CUSTOM_TYPE_INDEX, parsed.reason));
  const { toolCalls, backfilled, refs, partial } = parsed.value;
  if (partial !== undefined) reportTo(visitor, corruptPartMessage(CUSTOM_TYPE_INDEX, partial));
  visitor.indexRecords(toolCalls, backfilled, refs);
}

function readSummaryEntry(entry: { content?: unknown; details?: unknown }, visitor: BranchVisitor): void {
  const parsed = parseSummaryEntry(entry);
  if (!parsed.ok) return reportTo(visitor, corruptEntryMessage(CUSTOM_TYPE_SUMMARY, parsed.reason));
  visitor.summary(parsed.value.refs, parsed.value.text);
}

function readChainEntry(data: unknown, visitor: BranchVisitor): void {
  const parsed = parseChainEntry(data);
  if (!parsed.ok) return reportTo(visitor, corruptEntryMessage(CUSTOM_TYPE_CHAIN, parsed.reason));
  visitor.chain(parsed.value);
  if (Array.isArray(parsed.value.toolRefs)) visitor.refsShown(parsed.value.toolRefs);
}

function readAliasEntry(data: unknown, visitor: BranchVisitor): PendingAlias | undefined {
  const parsed = parseAliasEntry(data);
  if (!parsed.ok) {
    reportTo(visitor, corruptEntryMessage(CUSTOM_TYPE_DEDUP_ALIAS, parsed.reason));
    return undefined;
  }
  const alias = parsed.value;
  const call: AliasCall = {};
  if (alias.args !== undefined) call.args = alias.args;
  if (alias.isError !== undefined) call.isError = alias.isError;
  return {
    newKey: occKey(alias.newToolCallId, alias.newResultTimestamp),
    originalKey: occKey(alias.originalToolCallId, alias.originalResultTimestamp),
    call: call.args === undefined && call.isError === undefined ? undefined : call,
  };
}

/** One ordered walk; dedup aliases are returned for a second pass after all refs exist. */
/** An assistant's call ids, and the refs its `context_tree_query` calls asked for: the model saw them, and may ask for them again. */
function readCalls(message: unknown, visitor: BranchVisitor): void {
  if (!isPlainObject(message) || message.role !== "assistant" || !Array.isArray(message.content)) return;
  const ids: unknown[] = [];
  for (const block of message.content) {
    if (!isPlainObject(block) || block.type !== "toolCall") continue;
    ids.push(block.id);
    if (block.name !== QUERY_TOOL_NAME || !isPlainObject(block.arguments)) continue;
    const asked = block.arguments.toolCallIds;
    if (Array.isArray(asked)) visitor.refsShown(asked.filter((id): id is string => typeof id === "string"));
  }
  if (ids.length > 0) visitor.callIds(ids);
}

export function walkBranch(branch: unknown, visitor: BranchVisitor): PendingAlias[] {
  const aliases: PendingAlias[] = [];
  if (!Array.isArray(branch)) return aliases;
  for (const entry of branch) {
    if (!isPlainObject(entry)) continue;
    if (entry.type === "custom_message" && entry.customType === CUSTOM_TYPE_SUMMARY) {
      readSummaryEntry(entry, visitor);
    } else if (entry.type === "message") {
      readCalls(entry.message, visitor);
    } else if (entry.type !== "custom") {
      continue;
    } else if (entry.customType === CUSTOM_TYPE_INDEX) {
      readIndexEntry(entry.data, visitor);
    } else if (entry.customType === CUSTOM_TYPE_CHAIN) {
      readChainEntry(entry.data, visitor);
    } else if (entry.customType === CUSTOM_TYPE_DEDUP_ALIAS) {
      const alias = readAliasEntry(entry.data, visitor);
      if (alias) aliases.push(alias);
    }
  }
  return aliases;
}
