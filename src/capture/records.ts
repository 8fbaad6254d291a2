/**
 * The records capture builds and the extension persists: captured batches, index records and refs, dedup
 * aliases, chain entries, the frontier, the summarizer's stats. `persisted-entries.ts` reads them back.
 */

export interface CapturedToolCall {
  toolCallId: string;
  toolName: string;
  args: Record<string, unknown>;
  resultText: string;
  isError: boolean;
  /** The ToolResultMessage's own timestamp; absent means legacy (bare-id keyed). */
  resultTimestamp?: number;
  spillPath?: string;
  spillBytes?: number;
  /** SHA-256 (hex) of the sidecar's bytes as written; with `spillBytes`, what a read checks the sidecar against. */
  spillSha256?: string;
  resultPreview?: string;
  contentHash?: string;
  /** Outcome facts read at capture (`digest/outcome-facts.ts`); the stub shows them verbatim. */
  outcome?: string;
  /** The output's digest read at capture (`digest/output-digest.ts`); an unsummarized stub shows it verbatim. */
  digest?: string;
  /** Archived without a summary (`summaries`, a stale output): the stub says so and shows the output's facts. */
  unsummarized?: true;
  /** Why this output went stale, when it did (`capture/stale-outputs.ts`); the stub names it. */
  supersededBy?: SupersededBy;
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

export interface ToolCallRecord {
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
  spillPath?: string;
  spillBytes?: number;
  /** SHA-256 (hex) of the sidecar's bytes as written; absent on records of versions before it was recorded. */
  spillSha256?: string;
  resultPreview?: string;
  contentHash?: string;
  /** Outcome facts read at capture (`digest/outcome-facts.ts`); the stub shows them verbatim. */
  outcome?: string;
  /** The output's digest read at capture (`digest/output-digest.ts`); an unsummarized stub shows it verbatim. */
  digest?: string;
  /** Archived without a summary; the stub says so (absent on summarized records and those of older versions). */
  unsummarized?: true;
  /** Set when the output was retired as stale; the stub names what superseded it. */
  supersededBy?: SupersededBy;
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
