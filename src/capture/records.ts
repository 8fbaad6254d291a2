/**
 * The records capture builds and the extension persists: captured batches, index records and refs, dedup
 * aliases, chain entries, the frontier, the summarizer's stats. `persisted-entries.ts` reads them back.
 */

/**
 * What capture learns of an output and its record keeps: the sidecar of a spilled output (SHA-256 of its bytes
 * as written, absent on records of versions before it was recorded), the facts and digest read at capture
 * (the stub shows them verbatim), and whether it was archived without a summary or went stale (absent on
 * summarized records and those of older versions).
 */
export interface OutputFacts {
  spillPath?: string;
  spillBytes?: number;
  spillSha256?: string;
  resultPreview?: string;
  contentHash?: string;
  outcome?: string;
  digest?: string;
  unsummarized?: true;
  supersededBy?: SupersededBy;
}

export interface CapturedToolCall extends OutputFacts {
  toolCallId: string;
  toolName: string;
  args: Record<string, unknown>;
  resultText: string;
  isError: boolean;
  /** The ToolResultMessage's own timestamp; absent means legacy (bare-id keyed). */
  resultTimestamp?: number;
}

/** What made an output stale, as persisted on its record. */
export interface SupersededBy {
  rule: "edited" | "reread" | "rerun";
  toolName: string;
  path?: string;
  command?: string;
}

export interface CapturedBatch {
  turnIndex: number;
  /** Batch-level timestamp; never an identity discriminant. */
  timestamp: number;
  assistantText: string;
  toolCalls: CapturedToolCall[];
  /** Set only by the session-rescan path. */
  userTurnGroup?: number;
}

export interface ToolCallRecord extends OutputFacts {
  toolCallId: string;
  toolName: string;
  args: Record<string, unknown>;
  /** "" for spilled records. */
  resultText: string;
  isError: boolean;
  /** -1 for backfilled records. */
  turnIndex: number;
  timestamp: number;
  resultTimestamp?: number;
}

export interface SummaryToolCallRef {
  shortId: string;
  toolCallId: string;
  resultTimestamp?: number;
}

export interface IndexEntryData {
  toolCalls: ToolCallRecord[];
  backfilled?: true;
  refs?: SummaryToolCallRef[];
}

export interface DedupAliasEntryData {
  newToolCallId: string;
  originalToolCallId: string;
  newResultTimestamp?: number;
  originalResultTimestamp?: number;
  /** Tolerated on read, never written. */
  hash?: string;
  /** The duplicate's own arguments, when they differ from the original's. */
  args?: Record<string, unknown>;
  /** The duplicate's own error flag, when it differs from the original's. */
  isError?: boolean;
}

export interface SummaryMessageDetails {
  toolCallRefs: SummaryToolCallRef[];
  toolNames: string[];
  turnIndex: number;
  timestamp: number;
}

/** Persisted as the data of a `context-prune-chain` custom entry. */
export interface ChainCompressionEntry {
  blockId: string;
  startUserTimestamp: number;
  droppedToolCallIds: string[];
  droppedOccurrenceKeys?: string[];
  protectedToolCallIds?: string[];
  finalAssistantTimestamp: number | null;
  toolRefs: string[];
  compressedAt: number;
  rangeSummaryText?: string;
  bodySource?: "deterministic";
}

export type PruneFrontierOutcome = "summarized" | "skipped-oversized" | "skipped-trivial" | "skipped-deduped";

export interface PruneFrontier {
  lastAttemptedToolCallId: string;
  lastAttemptedToolName: string;
  lastAttemptedTurnIndex: number;
  lastAttemptedTimestamp: number;
  attemptedBatchCount: number;
  attemptedToolCallCount: number;
  rawCharCount: number;
  summaryCharCount: number;
  outcome: PruneFrontierOutcome;
}

export interface SummarizerStats {
  totalInputTokens: number;
  totalOutputTokens: number;
  totalCost: number;
  callCount: number;
  chainsCompressed: number;
  rangesSummarized: number;
}

/** Cache tokens of the summarizer's calls: with `totalInputTokens`, the input the provider billed. */
export interface SummarizerCacheTokens {
  cacheReadTokens: number;
  cacheWriteTokens: number;
}
