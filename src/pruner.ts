/**
 * The render-time pipeline run on every `context` event:
 *   1. stub-replace   summarized tool results become short stubs (this file)
 *   2. error-purge    arguments of old failed tool calls become a size marker
 *   3. chain-range    persisted chain decisions collapse closed chains
 *   4. orphan-sweep   no toolResult survives without its open toolCall; any
 *                     message that is neither assistant nor toolResult closes
 *                     the open set (barrier)
 *
 * Pure: the input is never mutated, untouched messages are carried by
 * reference, and a render that changes nothing returns the input array itself
 * without serializing anything, so the provider's prompt cache keeps hitting.
 */
import { createHash } from "node:crypto";
import { applyChainCompressions } from "./chain-range-prune.js";
import type { DiagnosticSink } from "./diagnostics.js";
import { purgeErroredArgs } from "./error-purge.js";
import { jsonLength, rotateStringSizeCache } from "./json-size.js";
import type { ToolCallIndexer } from "./indexer.js";
import { occKey, resultTimestampOf } from "./occurrence-key.js";
import { sweepOrphanToolResults } from "./orphan-sweep.js";
import { isProtected, type ProtectionConfig } from "./protected.js";
import { inGraceRecoveryToolCallIds } from "./recovery-grace.js";
import type { ChainCompressionConfig, ChainCompressionEntry, ErrorPurgeConfig, ToolCallRecord } from "./types.js";

type Reporter = Pick<DiagnosticSink, "report">;

export interface PruneResult {
  messages: any[];
  pruned: boolean;
  beforeChars: number;
  afterChars: number;
}

/** Length of the JSON text of the array: everything serialized counts, thinking and arguments included. */
export function sizeMessages(messages: any[]): number {
  return JSON.stringify(messages).length;
}

export function pruneMessages(
  messages: any[],
  indexer: ToolCallIndexer,
  chainCompression?: ChainCompressionConfig,
  errorPurge?: ErrorPurgeConfig,
  protection?: ProtectionConfig,
  recoveryGraceTurns = 0,
  diagnostics?: DiagnosticSink,
): PruneResult {
  const grace = inGraceRecoveryToolCallIds(messages, recoveryGraceTurns);
  let current = replaceSummarizedResults(messages, indexer, protection, grace);
  let pruned = current !== messages;

  if (errorPurge?.enabled) {
    const next = purgeErroredArgs(current, errorPurge);
    pruned ||= next !== current;
    current = next;
  }

  if (chainCompression?.enabled) {
    const next = compressChains(current, indexer, chainCompression);
    pruned ||= next !== current;
    current = next;
  }

  const swept = sweepOrphanToolResults(current);
  if (swept.sweptIds.length > 0) {
    reportSweep(swept.sweptIds, diagnostics);
    pruned = true;
    current = swept.messages;
  }

  if (!pruned) return { messages, pruned: false, beforeChars: 0, afterChars: 0 };
  const { beforeChars, afterChars } = measure(messages, current);
  return { messages: current, pruned: true, beforeChars, afterChars };

  function compressChains(input: any[], idx: ToolCallIndexer, config: ChainCompressionConfig): any[] {
    const entries = idx.getChainEntries();
    if (entries.length === 0) return input;
    const bodyFor = (entry: ChainCompressionEntry): string => chainBody(entry, idx);
    const lookup = (blockId: string): string | undefined => {
      const entry = idx.findChainEntryByBlockId?.(blockId);
      if (!entry) return undefined;
      const body = bodyFor(entry);
      return body === "" ? undefined : body;
    };
    return applyChainCompressions(
      input,
      entries,
      bodyFor,
      config.stripFinalAssistantThinking === true,
      lookup,
      diagnostics,
    );
  }
}

// ---------------------------------------------------------------------------
// Phase 1: stub-replace
// ---------------------------------------------------------------------------

type StubIndexer = Pick<ToolCallIndexer, "isSummarized" | "hasLegacyBareRecord" | "getRecord" | "getShortRefForToolCallId">;

function replaceSummarizedResults(
  messages: any[],
  indexer: StubIndexer,
  protection: ProtectionConfig | undefined,
  grace: Set<string>,
): any[] {
  let out: any[] | null = null;
  for (let i = 0; i < messages.length; i++) {
    const msg = messages[i];
    if (msg?.role !== "toolResult" || typeof msg.toolCallId !== "string") continue;
    const stub = stubFor(msg, indexer, protection, grace);
    if (!stub) continue;
    out ??= messages.slice();
    out[i] = stub;
  }
  return out ?? messages;
}

function stubFor(msg: any, indexer: StubIndexer, protection: ProtectionConfig | undefined, grace: Set<string>): any {
  const id: string = msg.toolCallId;
  const key = occKey(id, resultTimestampOf(msg.timestamp));
  // Fail closed: the bare id is only trusted when it names a legacy-only record.
  const lookupKey = indexer.isSummarized(key) ? key : indexer.hasLegacyBareRecord(id) ? id : null;
  if (lookupKey === null) return null;

  const record = indexer.getRecord(lookupKey);
  if (protection && record && isProtected(record.toolName, record.args, protection)) return null;
  if (grace.has(key)) return null;

  const ref = indexer.getShortRefForToolCallId(lookupKey) ?? id;
  const text = record?.spillPath ? spilledStub(record, ref) : summarizedStub(ref);
  return {
    role: "toolResult",
    toolCallId: id,
    toolName: msg.toolName,
    content: [{ type: "text", text }],
    isError: false,
    timestamp: msg.timestamp,
  };
}

function summarizedStub(ref: string): string {
  return `[Summarized in pruner summary, ref \`${ref}\`. Use context_tree_query to retrieve full output.]`;
}

function spilledStub(record: ToolCallRecord, ref: string): string {
  const bytes = typeof record.spillBytes === "number" ? String(record.spillBytes) : "?";
  return [
    `[Oversized output spilled to file \u2014 ${bytes} bytes.]`,
    `Tool: ${record.toolName}`,
    "Preview (head):",
    record.resultPreview ?? "",
    `Full output \u2014 read this file (offset/limit supported): ${record.spillPath}`,
    `Or use context_tree_query with ref \`${ref}\`.`,
  ].join("\n");
}

// ---------------------------------------------------------------------------
// Phase 3 body selection
// ---------------------------------------------------------------------------

function chainBody(entry: ChainCompressionEntry, indexer: Pick<ToolCallIndexer, "getPerBatchSummaryTextForToolCallIds">): string {
  if (entry.rangeSummaryText !== undefined && entry.rangeSummaryText !== null) return entry.rangeSummaryText;
  const keys = Array.isArray(entry.droppedOccurrenceKeys)
    ? entry.droppedOccurrenceKeys
    : Array.isArray(entry.droppedToolCallIds)
      ? entry.droppedToolCallIds
      : [];
  return indexer.getPerBatchSummaryTextForToolCallIds(keys);
}

// ---------------------------------------------------------------------------
// Phase 4 reporting
// ---------------------------------------------------------------------------

function reportSweep(sweptIds: string[], diagnostics?: Reporter): void {
  const sorted = [...sweptIds].sort();
  const key = createHash("sha1").update(sorted.join(",")).digest("hex").slice(0, 16);
  const shown = sorted.slice(0, 5).join(", ");
  const more = sorted.length > 5 ? ` ... +${sorted.length - 5} more` : "";
  diagnostics?.report("orphan-sweep", key, `swept ${sorted.length} orphan toolResult(s): ${shown}${more}`);
}

// ---------------------------------------------------------------------------
// Size accounting
// ---------------------------------------------------------------------------

/**
 * Same values as `sizeMessages(input)` and `sizeMessages(output)`, without
 * building JSON text: each input message is measured once (large strings via
 * a cache that survives between renders), and output messages carried over by
 * reference reuse their input size.
 */
function measure(input: any[], output: any[]): { beforeChars: number; afterChars: number } {
  rotateStringSizeCache();
  const sizes = new Map<unknown, number>();
  let before = 0;
  for (const msg of input) {
    const size = elementSize(msg);
    if (msg !== null && typeof msg === "object") sizes.set(msg, size);
    before += size;
  }
  let after = 0;
  for (const msg of output) after += sizes.get(msg) ?? elementSize(msg);
  return { beforeChars: arraySize(before, input.length), afterChars: arraySize(after, output.length) };
}

function elementSize(value: unknown): number {
  // JSON.stringify writes `null` for array elements it cannot serialize.
  return jsonLength(value) ?? 4;
}

function arraySize(elementChars: number, count: number): number {
  return 2 + elementChars + Math.max(0, count - 1);
}
