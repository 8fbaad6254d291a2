/**
 * Type validation of every persisted `context-prune-*` value that is read
 * back, in one place. Session files outlive versions and can be edited by
 * hand, so each reader takes entries only through these parsers: one per
 * entry type, each returning a clean typed value or the reason the entry (or
 * one record inside it) is unusable. A present field of the wrong type makes
 * its entry or record bad; absent optional fields stay absent; unknown extra
 * fields are kept. Valid objects are returned as they are, not copied.
 * Pure: callers report the reasons (`corruptEntryMessage`).
 */
import type { ChainCompressionEntry, DedupAliasEntryData, PruneFrontier, PruneFrontierOutcome, SummarizerCacheTokens, SummarizerStats, SummaryToolCallRef, ToolCallRecord } from "./records.js";

export type Parsed<T> = { ok: true; value: T } | { ok: false; reason: string };

type Obj = Record<string, unknown>;

interface Field {
  key: string;
  expected: string;
  test: (value: unknown) => boolean;
  required?: true;
}

const BLOCK_ID = /^b\d+$/;
const SHA256_HEX = /^[0-9a-f]{64}$/;
// The stub shows a record's outcome verbatim: one line, no control characters, bounded.
const OUTCOME_READ_LIMIT = 300;
const OUTCOME_TEXT = /^[^\u0000-\u001f\u007f]*$/;
// The digest is shown verbatim too; its read limit sits a little above what a digest is written at (300).
const DIGEST_READ_LIMIT = 400;
// Refs end up inside `<compressed-chain id=".." tools="..">` headers and stub text.
const HEADER_SAFE = /^[^"<>\r\n]+$/;
const OUTCOMES: ReadonlySet<unknown> = new Set<PruneFrontierOutcome>([
  "summarized",
  "skipped-oversized",
  "skipped-trivial",
  "skipped-deduped",
]);

const ok = <T>(value: T): Parsed<T> => ({ ok: true, value });
const bad = <T>(reason: string): Parsed<T> => ({ ok: false, reason });

export const isPlainObject = (value: unknown): value is Obj =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const isString = (value: unknown): value is string => typeof value === "string";
const isNonEmptyString = (value: unknown): value is string => typeof value === "string" && value !== "";
const isBoolean = (value: unknown): value is boolean => typeof value === "boolean";
const isFiniteNumber = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);
const isCount = (value: unknown): boolean => isFiniteNumber(value) && value >= 0;
const isStringList = (value: unknown): value is string[] => Array.isArray(value) && value.every(isString);

const isOutcome = (value: unknown): boolean =>
  typeof value === "string" && value !== "" && value.length <= OUTCOME_READ_LIMIT && OUTCOME_TEXT.test(value);

const isDigest = (value: unknown): boolean =>
  typeof value === "string" && value !== "" && value.length <= DIGEST_READ_LIMIT && OUTCOME_TEXT.test(value);
const DIGEST_EXPECTED = `a single-line string of at most ${DIGEST_READ_LIMIT} characters`;

/** A string that cannot break the `<compressed-chain>` header it may be written into. */
export const isHeaderSafe = (value: unknown): value is string => typeof value === "string" && HEADER_SAFE.test(value);

/** The first field that is missing (when required) or of the wrong type; JSON cannot hold `undefined`, so that is absence. */
function fieldProblem(data: Obj, fields: readonly Field[]): string | undefined {
  for (const field of fields) {
    const value = data[field.key];
    if (value === undefined) {
      if (field.required) return `${field.key} is missing`;
    } else if (!field.test(value)) {
      return `${field.key} is not ${field.expected}`;
    }
  }
  return undefined;
}

export function corruptEntryMessage(customType: string, reason: string): string {
  return `pi-condense: skipped corrupt ${customType} entry (${reason})`;
}

export function corruptPartMessage(customType: string, reason: string): string {
  return `pi-condense: skipped part of a corrupt ${customType} entry (${reason})`;
}

// ---------------------------------------------------------------------------
// Records and refs
// ---------------------------------------------------------------------------

const RECORD_FIELDS: readonly Field[] = [
  { key: "toolCallId", expected: "a non-empty string", test: isNonEmptyString, required: true },
  { key: "toolName", expected: "a string", test: isString, required: true },
  { key: "resultText", expected: "a string", test: isString, required: true },
  { key: "isError", expected: "a boolean", test: isBoolean },
  { key: "turnIndex", expected: "a finite number", test: isFiniteNumber, required: true },
  { key: "timestamp", expected: "a finite number", test: isFiniteNumber, required: true },
  { key: "resultTimestamp", expected: "a finite number", test: isFiniteNumber },
  { key: "spillPath", expected: "a string", test: isString },
  { key: "spillBytes", expected: "a number >= 0", test: isCount },
  { key: "spillSha256", expected: "64 lowercase hex digits", test: (v) => isString(v) && SHA256_HEX.test(v) },
  { key: "resultPreview", expected: "a string", test: isString },
  { key: "contentHash", expected: "a string", test: isString },
  { key: "outcome", expected: `a single-line string of at most ${OUTCOME_READ_LIMIT} characters`, test: isOutcome },
  { key: "unsummarized", expected: "true", test: (v) => v === true },
  { key: "supersededBy", expected: "a stale rule with its tool (and a path or command)", test: isSupersededBy },
];

const STALE_RULES: ReadonlySet<unknown> = new Set(["edited", "reread", "rerun"]);

// The stub names the path or command: one line, bounded like outcome facts.
function isSupersededBy(value: unknown): boolean {
  if (!isPlainObject(value) || !STALE_RULES.has(value.rule) || !isOutcome(value.toolName)) return false;
  return (value.path === undefined || isOutcome(value.path)) && (value.command === undefined || isOutcome(value.command));
}

/**
 * Arguments are shown and matched against protection globs, never executed.
 * Missing or null arguments load as `{}`; any other value that is not an
 * object (a capture of a provider that sent unparsed argument text) is kept
 * under `_raw` instead of costing the record its archived output.
 */
export function recordArgs(value: unknown): Record<string, unknown> {
  if (isPlainObject(value)) return value;
  return value === undefined || value === null ? {} : { _raw: value };
}

/**
 * A record, or the reason it is unusable. A bad `digest` alone costs the record only its digest: the
 * record loads without it (its stub then shows the outcome facts) and `parseIndexEntry` names it.
 */
export function parseToolCallRecord(value: unknown): Parsed<ToolCallRecord> {
  if (!isPlainObject(value)) return bad("is not an object");
  const problem = fieldProblem(value, RECORD_FIELDS);
  if (problem !== undefined) return bad(problem);
  const digestBad = value.digest !== undefined && !isDigest(value.digest);
  if (isPlainObject(value.args) && !digestBad) return ok(value as unknown as ToolCallRecord);
  const { digest, ...rest } = value;
  const record = { ...rest, args: recordArgs(value.args) } as unknown as ToolCallRecord;
  if (!digestBad && digest !== undefined) record.digest = digest as string;
  return ok(record);
}

/** How many records that load were left without their digest, and the first of them. */
function badDigests(list: unknown[]): { count: number; first?: number } {
  let count = 0;
  let first: number | undefined;
  for (let i = 0; i < list.length; i++) {
    const value = list[i];
    if (!isPlainObject(value) || value.digest === undefined || isDigest(value.digest) || fieldProblem(value, RECORD_FIELDS) !== undefined) continue;
    count++;
    first ??= i;
  }
  return first === undefined ? { count } : { count, first };
}

const REF_FIELDS: readonly Field[] = [
  { key: "shortId", expected: 'a ref without ", <, > or line breaks', test: isHeaderSafe, required: true },
  { key: "toolCallId", expected: "a non-empty string", test: isNonEmptyString, required: true },
  { key: "resultTimestamp", expected: "a finite number", test: isFiniteNumber },
];

export function parseSummaryRef(value: unknown): Parsed<SummaryToolCallRef> {
  if (!isPlainObject(value)) return bad("is not an object");
  const problem = fieldProblem(value, REF_FIELDS);
  if (problem !== undefined) return bad(problem);
  const ref: SummaryToolCallRef = { shortId: value.shortId as string, toolCallId: value.toolCallId as string };
  if (value.resultTimestamp !== undefined) ref.resultTimestamp = value.resultTimestamp as number;
  return ok(ref);
}

/** Every element parsed, or the first failure named by its position. */
function parseAll<T>(list: unknown[], name: string, parse: (value: unknown) => Parsed<T>): Parsed<T[]> {
  const out: T[] = [];
  for (let i = 0; i < list.length; i++) {
    const parsed = parse(list[i]);
    if (!parsed.ok) return bad(`${name}[${i}] ${parsed.reason}`);
    out.push(parsed.value);
  }
  return ok(out);
}

// ---------------------------------------------------------------------------
// context-prune-index
// ---------------------------------------------------------------------------

export interface IndexEntry {
  toolCalls: ToolCallRecord[];
  backfilled: boolean;
  refs: SummaryToolCallRef[];
  /** Set when some records or refs were left out; the rest of the entry loads. */
  partial?: string;
}

/** Keeps the good elements; the list itself is reused when nothing was dropped or copied. */
function keepValid<T>(
  list: unknown[],
  parse: (value: unknown) => Parsed<T>,
): { kept: T[]; dropped: number; firstProblem?: string } {
  let kept: T[] | undefined;
  let dropped = 0;
  let firstProblem: string | undefined;
  for (let i = 0; i < list.length; i++) {
    const parsed = parse(list[i]);
    if (parsed.ok && parsed.value === list[i] && kept === undefined) continue;
    kept ??= list.slice(0, i) as T[];
    if (parsed.ok) kept.push(parsed.value);
    else {
      dropped++;
      firstProblem ??= `[${i}] ${parsed.reason}`;
    }
  }
  return { kept: kept ?? (list as T[]), dropped, firstProblem };
}

export function parseIndexEntry(data: unknown): Parsed<IndexEntry> {
  if (!isPlainObject(data)) return bad("data is not an object");
  if (!Array.isArray(data.toolCalls)) return bad("toolCalls is not a list");
  if (data.backfilled !== undefined && !isBoolean(data.backfilled)) return bad("backfilled is not a boolean");
  if (data.refs !== undefined && !Array.isArray(data.refs)) return bad("refs is not a list");
  const records = keepValid(data.toolCalls, parseToolCallRecord);
  const refs = Array.isArray(data.refs) ? keepValid(data.refs, parseSummaryRef) : { kept: [], dropped: 0 };
  const entry: IndexEntry = { toolCalls: records.kept, backfilled: data.backfilled === true, refs: refs.kept };
  const parts: string[] = [];
  if (records.dropped > 0) {
    parts.push(`${records.dropped} of ${data.toolCalls.length} record(s), first toolCalls${records.firstProblem}`);
  }
  if (refs.dropped > 0) parts.push(`${refs.dropped} ref(s), first refs${refs.firstProblem}`);
  const digests = badDigests(data.toolCalls);
  if (digests.count > 0) parts.push(`${digests.count} digest(s), first toolCalls[${digests.first}] digest is not ${DIGEST_EXPECTED}`);
  if (parts.length > 0) entry.partial = parts.join("; ");
  return ok(entry);
}

// ---------------------------------------------------------------------------
// context-prune-summary (custom_message)
// ---------------------------------------------------------------------------

export interface SummaryEntry {
  refs: SummaryToolCallRef[];
  /** The summary markdown: the content string, or the text blocks of a block list joined with "\n". */
  text: string;
}

const SUMMARY_DETAIL_FIELDS: readonly Field[] = [
  { key: "toolNames", expected: "a list of strings", test: isStringList },
  { key: "turnIndex", expected: "a finite number", test: isFiniteNumber },
  { key: "timestamp", expected: "a finite number", test: isFiniteNumber },
];

function summaryText(content: unknown): Parsed<string> {
  if (content === undefined) return ok("");
  if (typeof content === "string") return ok(content);
  if (!Array.isArray(content)) return bad("content is not a string or a list of blocks");
  const texts: string[] = [];
  for (let i = 0; i < content.length; i++) {
    const block = content[i];
    if (!isPlainObject(block) || !isString(block.type)) return bad(`content[${i}] is not a content block`);
    if (block.type !== "text") continue;
    if (!isString(block.text)) return bad(`content[${i}].text is not a string`);
    texts.push(block.text);
  }
  return ok(texts.join("\n"));
}

function summaryRefs(details: Obj): Parsed<SummaryToolCallRef[]> {
  const { toolCallRefs, toolCallIds } = details;
  if (toolCallRefs !== undefined) {
    if (!Array.isArray(toolCallRefs)) return bad("details.toolCallRefs is not a list");
    return parseAll(toolCallRefs, "details.toolCallRefs", parseSummaryRef);
  }
  if (toolCallIds === undefined) return bad("details carry no refs list");
  if (!Array.isArray(toolCallIds) || !toolCallIds.every(isNonEmptyString)) {
    return bad("details.toolCallIds is not a list of non-empty strings");
  }
  // Pre-short-ref summaries: the id is its own ref.
  return ok(toolCallIds.map((id) => ({ shortId: id, toolCallId: id })));
}

export function parseSummaryEntry(entry: { content?: unknown; details?: unknown }): Parsed<SummaryEntry> {
  const details = entry.details;
  if (!isPlainObject(details)) return bad("details is not an object");
  const problem = fieldProblem(details, SUMMARY_DETAIL_FIELDS);
  if (problem !== undefined) return bad(`details.${problem}`);
  const refs = summaryRefs(details);
  if (!refs.ok) return refs;
  const text = summaryText(entry.content);
  if (!text.ok) return text;
  return ok({ refs: refs.value, text: text.value });
}

// ---------------------------------------------------------------------------
// context-prune-chain
// ---------------------------------------------------------------------------

const CHAIN_FIELDS: readonly Field[] = [
  { key: "blockId", expected: 'a block id "b<digits>"', test: (v) => isString(v) && BLOCK_ID.test(v), required: true },
  { key: "startUserTimestamp", expected: "a finite number", test: isFiniteNumber, required: true },
  { key: "droppedToolCallIds", expected: "a list of strings", test: isStringList, required: true },
  { key: "droppedOccurrenceKeys", expected: "a list of strings", test: isStringList },
  { key: "protectedToolCallIds", expected: "a list of strings", test: isStringList },
  {
    key: "finalAssistantTimestamp",
    expected: "a finite number or null",
    test: (v) => v === null || isFiniteNumber(v),
    required: true,
  },
  {
    key: "toolRefs",
    expected: 'a list of refs without ", <, > or line breaks',
    test: (v) => Array.isArray(v) && v.every(isHeaderSafe),
    required: true,
  },
  { key: "compressedAt", expected: "a finite number", test: isFiniteNumber, required: true },
  { key: "rangeSummaryText", expected: "a string", test: (v) => v === null || isString(v) },
  { key: "bodySource", expected: '"deterministic"', test: (v) => v === "deterministic" },
];

/** The entry itself when valid (a `null` range summary, meaning none, is dropped from a copy). */
export function parseChainEntry(data: unknown): Parsed<ChainCompressionEntry> {
  if (!isPlainObject(data)) return bad("data is not an object");
  const problem = fieldProblem(data, CHAIN_FIELDS);
  if (problem !== undefined) return bad(problem);
  if (data.rangeSummaryText !== null) return ok(data as unknown as ChainCompressionEntry);
  const { rangeSummaryText: _none, ...rest } = data;
  return ok(rest as unknown as ChainCompressionEntry);
}

// ---------------------------------------------------------------------------
// context-prune-dedup-alias
// ---------------------------------------------------------------------------

const ALIAS_FIELDS: readonly Field[] = [
  { key: "newToolCallId", expected: "a non-empty string", test: isNonEmptyString, required: true },
  { key: "originalToolCallId", expected: "a non-empty string", test: isNonEmptyString, required: true },
  { key: "newResultTimestamp", expected: "a finite number", test: isFiniteNumber },
  { key: "originalResultTimestamp", expected: "a finite number", test: isFiniteNumber },
  { key: "hash", expected: "a string", test: isString },
  { key: "args", expected: "an object", test: isPlainObject },
  { key: "isError", expected: "a boolean", test: (value) => typeof value === "boolean" },
];

export function parseAliasEntry(data: unknown): Parsed<DedupAliasEntryData> {
  if (!isPlainObject(data)) return bad("data is not an object");
  const problem = fieldProblem(data, ALIAS_FIELDS);
  return problem === undefined ? ok(data as unknown as DedupAliasEntryData) : bad(problem);
}

// ---------------------------------------------------------------------------
// context-prune-frontier and context-prune-stats
// ---------------------------------------------------------------------------

// JSON writes NaN and Infinity as null, so for these snapshots null reads as "missing" and takes the default.
const orNull = (test: (value: unknown) => boolean) => (value: unknown) => value === null || test(value);

const FRONTIER_FIELDS: readonly Field[] = [
  { key: "lastAttemptedToolCallId", expected: "a non-empty string", test: isNonEmptyString, required: true },
  { key: "lastAttemptedToolName", expected: "a string", test: orNull(isString) },
  { key: "lastAttemptedTurnIndex", expected: "a finite number", test: orNull(isFiniteNumber) },
  { key: "lastAttemptedTimestamp", expected: "a finite number", test: orNull(isFiniteNumber) },
  { key: "attemptedBatchCount", expected: "a finite number", test: orNull(isFiniteNumber) },
  { key: "attemptedToolCallCount", expected: "a finite number", test: orNull(isFiniteNumber) },
  { key: "rawCharCount", expected: "a finite number", test: orNull(isFiniteNumber) },
  { key: "summaryCharCount", expected: "a finite number", test: orNull(isFiniteNumber) },
  { key: "outcome", expected: "a frontier outcome", test: orNull((v) => OUTCOMES.has(v)) },
];

const numberOr = (value: unknown, fallback: number): number => (typeof value === "number" ? value : fallback);

/** A new frontier with exactly the nine fields, defaults for missing ones; unknown legacy fields are dropped. */
export function parseFrontierEntry(data: unknown): Parsed<PruneFrontier> {
  if (!isPlainObject(data)) return bad("data is not an object");
  const problem = fieldProblem(data, FRONTIER_FIELDS);
  if (problem !== undefined) return bad(problem);
  return ok({
    lastAttemptedToolCallId: data.lastAttemptedToolCallId as string,
    lastAttemptedToolName: isString(data.lastAttemptedToolName) ? data.lastAttemptedToolName : "unknown",
    lastAttemptedTurnIndex: numberOr(data.lastAttemptedTurnIndex, 0),
    lastAttemptedTimestamp: numberOr(data.lastAttemptedTimestamp, 0),
    attemptedBatchCount: numberOr(data.attemptedBatchCount, 0),
    attemptedToolCallCount: numberOr(data.attemptedToolCallCount, 0),
    rawCharCount: numberOr(data.rawCharCount, 0),
    summaryCharCount: numberOr(data.summaryCharCount, 0),
    outcome: OUTCOMES.has(data.outcome) ? (data.outcome as PruneFrontierOutcome) : "summarized",
  });
}

const STATS_KEYS = [
  "totalInputTokens",
  "totalOutputTokens",
  "totalCost",
  "callCount",
  "chainsCompressed",
  "rangesSummarized",
] as const;

const STATS_FIELDS: readonly Field[] = STATS_KEYS.map((key) => ({ key, expected: "a number >= 0", test: orNull(isCount) }));

const CACHE_FIELDS: readonly Field[] = ["cacheReadTokens", "cacheWriteTokens"].map((key) => ({ key, expected: "a number >= 0", test: orNull(isCount) }));

/** Pruning turned on or off: `{ enabled: boolean }`. */
export function parseToggleEntry(data: unknown): Parsed<{ enabled: boolean }> {
  if (!isPlainObject(data) || typeof data.enabled !== "boolean") return bad("enabled is not a boolean");
  return ok({ enabled: data.enabled });
}

/** Live sight's raw window: `{ widened, recoveries, window }`; only `widened` is read back, the counts are for the reader of the file. */
export function parseSightEntry(data: unknown): Parsed<{ widened: boolean }> {
  if (!isPlainObject(data) || typeof data.widened !== "boolean") return bad("widened is not a boolean");
  return ok({ widened: data.widened });
}

/** A snapshot of the summarizer's cache tokens; a missing counter is 0. */
export function parseSummarizerCacheEntry(data: unknown): Parsed<SummarizerCacheTokens> {
  if (!isPlainObject(data)) return bad("data is not an object");
  const problem = fieldProblem(data, CACHE_FIELDS);
  if (problem !== undefined) return bad(problem);
  return ok({ cacheReadTokens: numberOr(data.cacheReadTokens, 0), cacheWriteTokens: numberOr(data.cacheWriteTokens, 0) });
}

/** A full snapshot; missing counters (legacy entries) are 0. */
export function parseStatsEntry(data: unknown): Parsed<SummarizerStats> {
  if (!isPlainObject(data)) return bad("data is not an object");
  const problem = fieldProblem(data, STATS_FIELDS);
  if (problem !== undefined) return bad(problem);
  const stats = {} as SummarizerStats;
  for (const key of STATS_KEYS) stats[key] = numberOr(data[key], 0);
  return ok(stats);
}
