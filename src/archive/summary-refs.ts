/**
 * Short refs (`tN`) for summarized tool calls: minting, normalizing persisted
 * summary details, the refs footer, and rewriting the summarizer's
 * `[[N:toolname]]` labels into inline refs.
 */
import { occKey } from "../capture/occurrence-key.js";
import type { CapturedBatch, SummaryToolCallRef } from "../capture/records.js";

export type { SummaryToolCallRef } from "../capture/records.js";

export interface SummaryMessageDetailsLike {
  toolCallRefs?: SummaryToolCallRef[];
  toolCallIds?: string[];
}

const ANCHORED_LABEL = /^(\s*(?:[-*]\s+)?)\[\[(\d+):([^\]\n]+)\]\]\s*/;
const ANY_LABEL = /\[\[\d+:[^\]\n]+\]\]\s*/g;
const FENCE = "```";

function makeRef(shortId: string, toolCallId: string, resultTimestamp: unknown): SummaryToolCallRef {
  const ref: SummaryToolCallRef = { shortId, toolCallId };
  if (typeof resultTimestamp === "number") ref.resultTimestamp = resultTimestamp;
  return ref;
}

export function buildShortToolCallRefs(
  calls: { toolCallId: string; resultTimestamp?: number }[],
  startIndex: number,
): { refs: SummaryToolCallRef[]; nextIndex: number } {
  const refs = calls.map((call, offset) => makeRef(`t${startIndex + offset}`, call.toolCallId, call.resultTimestamp));
  return { refs, nextIndex: startIndex + calls.length };
}

export function normalizeSummaryToolCallRefs(details: unknown): SummaryToolCallRef[] {
  if (typeof details !== "object" || details === null) return [];
  const { toolCallRefs, toolCallIds } = details as { toolCallRefs?: unknown; toolCallIds?: unknown };
  if (Array.isArray(toolCallRefs)) {
    return toolCallRefs
      .filter((ref) => ref != null && typeof ref.shortId === "string" && typeof ref.toolCallId === "string")
      .map((ref) => makeRef(ref.shortId, ref.toolCallId, ref.resultTimestamp));
  }
  if (Array.isArray(toolCallIds)) {
    return toolCallIds.filter((id): id is string => typeof id === "string").map((id) => ({ shortId: id, toolCallId: id }));
  }
  return [];
}

export function formatSummaryToolCallRefs(refs: SummaryToolCallRef[]): string {
  const list = refs.map((ref) => `\`${ref.shortId}\``).join(", ");
  return `\n\n---\n**Summarized tool refs**: ${list}\nUse \`context_tree_query\` with these refs to retrieve the original full outputs.`;
}

export function makeSummaryDetails(
  batch: CapturedBatch,
  refs: SummaryToolCallRef[],
): { toolCallRefs: SummaryToolCallRef[]; toolNames: string[]; turnIndex: number; timestamp: number } {
  return {
    toolCallRefs: refs,
    toolNames: batch.toolCalls.map((call) => call.toolName),
    turnIndex: batch.turnIndex,
    timestamp: batch.timestamp,
  };
}

function decorateLine(line: string, refs: SummaryToolCallRef[], toolNames: string[]): string {
  const anchored = line.replace(ANCHORED_LABEL, (_match, prefix: string, digits: string, name: string) => {
    const position = Number(digits) - 1;
    const ref = refs[position];
    const expected = toolNames[position];
    if (!ref || expected === undefined) return prefix;
    if (name.trim().toLowerCase() !== expected.trim().toLowerCase()) return prefix;
    return `${prefix}\`${ref.shortId}\` `;
  });
  return anchored.replace(ANY_LABEL, "");
}

export function substituteInlineRefs(text: string, refs: SummaryToolCallRef[], toolNames: string[]): string {
  if (text === "") return "";
  let inFence = false;
  return text
    .split("\n")
    .map((line) => {
      if (line.trimStart().startsWith(FENCE)) {
        inFence = !inFence;
        return line;
      }
      return inFence ? line : decorateLine(line, refs, toolNames);
    })
    .join("\n");
}

/** Occurrence keys a list of refs denotes (bare id for legacy refs). */
export function refOccurrenceKeys(refs: SummaryToolCallRef[]): string[] {
  return refs.map((ref) => occKey(ref.toolCallId, ref.resultTimestamp));
}
