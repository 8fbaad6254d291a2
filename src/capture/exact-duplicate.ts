/**
 * Dedup only ever aliases an exact copy. The content hash ignores line endings
 * and trailing blanks, but recovering an alias returns the original's text,
 * so the alias must be that text byte for byte.
 */
import type { CapturedToolCall, ToolCallRecord } from "./records.js";
import { occKey } from "./occurrence-key.js";

/** What dedup needs of the index (the archive's `ToolCallIndexer`). */
export interface DedupIndex {
  lookupByContent(toolName: string, resultText: string): string | undefined;
  getRecord?(keyOrAlias: string): ToolCallRecord | undefined;
}

export interface DedupCandidate {
  key: string;
  /** Absent when the index cannot show the original (a duck-typed index): the hash match is trusted. */
  record?: ToolCallRecord;
}

/** The indexed output whose content hash this output matches. */
export function dedupCandidate(indexer: DedupIndex, toolName: string, resultText: string): DedupCandidate | undefined {
  const key = indexer.lookupByContent(toolName, resultText);
  if (key === undefined) return undefined;
  return { key, record: indexer.getRecord?.(key) };
}

/** True when the original's full text (`storedText`, read from its sidecar when spilled) is exactly this output. */
export function isExactCopy(candidate: DedupCandidate, toolName: string, resultText: string, storedText?: string): boolean {
  const { record } = candidate;
  if (!record) return true;
  if (record.toolName !== toolName) return false;
  return (record.spillPath ? storedText : record.resultText) === resultText;
}

/** The archived output an inline call is an exact copy of (never the call itself): what a flush's dedup aliases. */
export function archivedCopyOf(indexer: DedupIndex, call: CapturedToolCall): DedupCandidate | undefined {
  const candidate = dedupCandidate(indexer, call.toolName, call.resultText);
  if (!candidate || candidate.key === occKey(call.toolCallId, call.resultTimestamp)) return undefined;
  return isExactCopy(candidate, call.toolName, call.resultText) ? candidate : undefined;
}
