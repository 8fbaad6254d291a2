/**
 * The session-local tool-call index ("cold memory"): occurrence-keyed records,
 * short refs, content-hash dedup aliases, per-batch summary bodies and the
 * chain registry. Rebuilt from session custom entries on reload.
 */
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { hashToolResult } from "../capture/content-hash.js";
import { withoutLeadingMarkers } from "../capture/image-markers.js";
import { type AliasCall, recordsFromTranscript, walkBranch } from "./index-branch-walk.js";
import { trackChanges } from "../render/index-generation.js";
import { occKey, parseOccKey, resultTimestampOf } from "../capture/occurrence-key.js";
import { applySpill, type SidecarFiles, writeSidecar } from "../capture/spill.js";
import { buildShortToolCallRefs, refOccurrenceKeys } from "./summary-refs.js";
import type { ArchiveCheck, ArchivedOutput, ArchiveMiss } from "../render/stub-replace.js";
import { unframedSummary } from "../format/summary-frame.js";
import { CUSTOM_TYPE_DEDUP_ALIAS, CUSTOM_TYPE_INDEX } from "../names.js";
import type { CapturedBatch, ChainCompressionEntry, SummaryToolCallRef, ToolCallRecord } from "../capture/records.js";

type AppendEntry = (customType: string, data?: unknown) => void;

/** A sidecar holds the text; its record keeps the hash and size taken at archive time to compare with. */
function sidecarDiffers(record: ToolCallRecord, output: ArchivedOutput): string | undefined {
  if (typeof record.contentHash === "string") {
    return hashToolResult(String(record.toolName), output.full()) === record.contentHash ? undefined : "the archived hash differs";
  }
  if (typeof record.spillBytes === "number") {
    return Buffer.byteLength(output.full(), "utf8") === record.spillBytes ? undefined : "the archived size differs";
  }
  return undefined;
}

/** Deeper arguments are never taken as equal (a chain then keeps them): what a model writes is shallow. */
const MAX_ARGS_DEPTH = 32;

/**
 * Whether two JSON values are the same data, keys in the same order (as their JSON texts would be): pi hands
 * every render a fresh copy, so this runs per dropped call and render, and compares without serializing.
 */
function sameData(a: unknown, b: unknown, depth: number): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null || depth >= MAX_ARGS_DEPTH) return false;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, i) => sameData(item, b[i], depth + 1));
  if (Array.isArray(b) || Object.getPrototypeOf(a) !== Object.prototype || Object.getPrototypeOf(b) !== Object.prototype) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  for (let i = 0; i < keysA.length; i++) {
    const key = keysA[i]!;
    if (key !== keysB[i] || !sameData((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], depth + 1)) return false;
  }
  return true;
}

/** N of a `t<N>` short ref (the same as matching /^t(\d+)$/), without allocating a match. */
function shortRefNumber(shortId: string): number | undefined {
  if (shortId.length < 2 || shortId.charCodeAt(0) !== 0x74) return undefined;
  for (let i = 1; i < shortId.length; i++) {
    const c = shortId.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return undefined;
  }
  return Number(shortId.slice(1));
}

interface SummaryBody {
  keys: string[];
  text: string;
}

/**
 * Keys grouped under a name: occurrence keys by bare tool-call id, alias keys by their original. Most groups
 * hold one key (providers that mint unique ids), so a group is a lone key until a second one arrives; a set
 * per record would cost a reload thousands of sets.
 */
class KeyGroups {
  private readonly groups = new Map<string, string | Set<string>>();

  add(bareId: string, key: string): void {
    const group = this.groups.get(bareId);
    if (group === undefined) this.groups.set(bareId, key);
    else if (typeof group === "string") {
      if (group !== key) this.groups.set(bareId, new Set([group, key]));
    } else group.add(key);
  }

  /** The id's key when it names exactly one occurrence. */
  sole(bareId: string): string | undefined {
    const group = this.groups.get(bareId);
    if (typeof group === "string") return group;
    return group?.size === 1 ? group.values().next().value : undefined;
  }

  keys(bareId: string): Iterable<string> {
    const group = this.groups.get(bareId);
    return group === undefined ? [] : typeof group === "string" ? [group] : group;
  }

  clear(): void {
    this.groups.clear();
  }
}

function recordFromCall(batch: CapturedBatch, call: CapturedBatch["toolCalls"][number]): ToolCallRecord {
  const record: ToolCallRecord = {
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    args: call.args,
    resultText: call.resultText,
    isError: call.isError,
    turnIndex: batch.turnIndex,
    timestamp: batch.timestamp,
  };
  if (call.resultTimestamp !== undefined) record.resultTimestamp = call.resultTimestamp;
  if (call.spillPath !== undefined) record.spillPath = call.spillPath;
  if (call.spillBytes !== undefined) record.spillBytes = call.spillBytes;
  if (call.spillSha256 !== undefined) record.spillSha256 = call.spillSha256;
  if (call.resultPreview !== undefined) record.resultPreview = call.resultPreview;
  // Persisted so a reload seeds dedup without hashing every archived output again (a spill already set it).
  record.contentHash = call.contentHash ?? hashToolResult(call.toolName, call.resultText);
  if (call.outcome !== undefined) record.outcome = call.outcome;
  if (call.digest !== undefined) record.digest = call.digest;
  if (call.unsummarized) record.unsummarized = true;
  if (call.supersededBy !== undefined) record.supersededBy = call.supersededBy;
  return record;
}

/** The live record map; every edit, ours or a `getIndex` holder's, is reported with the key it touched. */
class RecordMap extends Map<string, ToolCallRecord> {
  constructor(
    private readonly onChange: (key: string, record: ToolCallRecord | undefined) => void,
    private readonly onClear: () => void,
  ) {
    super();
  }

  override set(key: string, record: ToolCallRecord): this {
    this.onChange(key, record);
    return super.set(key, record);
  }

  override delete(key: string): boolean {
    this.onChange(key, super.get(key));
    return super.delete(key);
  }

  override clear(): void {
    this.onClear();
    super.clear();
  }
}

function displayTime(record: ToolCallRecord): number {
  return record.resultTimestamp ?? record.timestamp;
}

function ownCallDetails(call: AliasCall | undefined, original: ToolCallRecord | undefined): AliasCall | undefined {
  if (!call) return undefined;
  const own: AliasCall = {};
  if (call.args !== undefined && JSON.stringify(call.args) !== JSON.stringify(original?.args)) own.args = call.args;
  if (call.isError !== undefined && call.isError !== (original?.isError ?? false)) own.isError = call.isError;
  return own.args === undefined && own.isError === undefined ? undefined : own;
}

/** Where backfilled oversized outputs are spilled, and how the backfilled index entry is written. */
export interface BackfillOptions {
  spillThreshold: number;
  spillPreviewBytes: number;
  sessionDir: string;
  sessionId: string;
  appendEntry: AppendEntry;
  /** Node's file system unless a test injects faults. */
  files?: SidecarFiles;
}

export class ToolCallIndexer {
  /** `report`: where unreadable entries are reported (the console when absent). */
  constructor(private readonly report?: (message: string) => void) {}

  // What a render stub depends on (records, refs, aliases) is logged with the names it touched, so renders can reuse decisions.
  private readonly changes = trackChanges(this);
  private readonly records: Map<string, ToolCallRecord> = new RecordMap(
    (key, record) => this.recordChanged(key, record),
    () => this.changes.touchedEverything(),
  );
  private readonly keysByBareId = new KeyGroups();
  private readonly shortToKey = new Map<string, string>();
  private readonly keyToShort = new Map<string, string>();
  private nextShortNumber = 1;
  /** Raw tool-call ids of the session shaped like a short ref (`t6`): never minted as refs. */
  private readonly refShapedIds = new Set<string>();
  private readonly hashToCanonical = new Map<string, string>();
  private pendingSeeds: ToolCallRecord[] = [];
  private readonly aliasToOriginal = new Map<string, string>();
  private readonly aliasKeysByBareId = new KeyGroups();
  private readonly aliasCalls = new Map<string, AliasCall>();
  /** Alias keys by the original they resolve to: a change to the original's record changes what they render. */
  private readonly aliasesByOriginal = new KeyGroups();
  private summaryBodies: SummaryBody[] = [];
  /** Summary body positions per occurrence key: one number in the common case, a list when several bodies cover it. */
  private readonly bodiesByKey = new Map<string, number | number[]>();
  private readonly chainsByStart = new Map<number, ChainCompressionEntry>();
  private sortedChains: ChainCompressionEntry[] | undefined;

  // ---- rebuild -----------------------------------------------------------

  reconstructFromSession(ctx: ExtensionContext): void {
    this.clear();
    const branch: unknown = ctx.sessionManager.getBranch();
    this.ingest(branch, branch);
  }

  /**
   * Adds what `entries` persist, where `entries` continue the branch this index was built from: the same
   * index a rebuild over the longer branch gives. `transcript` is where outputs a crash left without an
   * index line are looked up. For the offline replay, which follows a branch entry by entry.
   */
  extendFromEntries(entries: unknown[], transcript: unknown): void {
    this.ingest(entries, transcript);
  }

  private ingest(entries: unknown, transcript: unknown): void {
    const summarizedKeys: string[] = [];
    const aliases = walkBranch(entries, {
      indexRecords: (records, backfilled, refs) => {
        for (const record of records) {
          if (this.indexRecord(record) && !backfilled) this.pendingSeeds.push(record);
        }
        // Flushes and spills persist their refs on the index entry too, so a ref survives a crash before its summary line.
        if (Array.isArray(refs)) this.registerSummaryRefs(refs);
      },
      summary: (refs, text) => {
        this.registerSummaryRefs(refs);
        summarizedKeys.push(...refOccurrenceKeys(refs));
        if (text) this.pushSummaryBody(refOccurrenceKeys(refs), unframedSummary(text));
      },
      chain: (entry) => this.storeChain(entry),
      refsShown: (refs) => this.reserveRefs(refs),
      callIds: (ids) => this.noteCallIds(ids),
      report: this.report,
    });
    for (const alias of aliases) this.linkAlias(alias.newKey, alias.originalKey, alias.call);
    this.restoreUnindexedSummarized(transcript, summarizedKeys);
  }

  /**
   * A flush writes a batch's summary line before its index line. When pi was killed between the two,
   * the summary names outputs that have no record; they are rebuilt from the transcript (in memory only),
   * so the outputs are not summarized a second time and their refs resolve.
   */
  private restoreUnindexedSummarized(branch: unknown, summarizedKeys: string[]): void {
    const missing = new Set(summarizedKeys.filter((key) => !this.isSummarized(key)));
    if (missing.size === 0 || !Array.isArray(branch)) return;
    for (const record of recordsFromTranscript(branch, missing)) this.indexRecord(record);
  }

  private clear(): void {
    this.records.clear();
    this.keysByBareId.clear();
    this.shortToKey.clear();
    this.keyToShort.clear();
    this.nextShortNumber = 1;
    this.refShapedIds.clear();
    this.hashToCanonical.clear();
    this.pendingSeeds = [];
    this.aliasToOriginal.clear();
    this.aliasKeysByBareId.clear();
    this.aliasCalls.clear();
    this.aliasesByOriginal.clear();
    this.summaryBodies = [];
    this.bodiesByKey.clear();
    this.chainsByStart.clear();
    this.sortedChains = undefined;
  }

  // ---- records -----------------------------------------------------------

  /**
   * The first record under an occurrence key stays: a second output that collides with it (same id,
   * same millisecond) is never archived in its place, live or on reload, so the first stays recoverable.
   */
  private indexRecord(record: ToolCallRecord): boolean {
    const key = occKey(record.toolCallId, resultTimestampOf(record.resultTimestamp));
    if (this.records.has(key)) return false;
    this.records.set(key, record);
    this.keysByBareId.add(record.toolCallId, key);
    this.noteCallIds([record.toolCallId]);
    return true;
  }

  // Dedup candidates are queued in arrival order and seeded on the first content lookup. Records
  // persist their hash; only those written before hashes were persisted are hashed here.
  private drainSeeds(): void {
    for (const record of this.pendingSeeds) {
      let hash = typeof record.contentHash === "string" ? record.contentHash : undefined;
      if (hash === undefined && typeof record.resultText === "string") {
        hash = hashToolResult(String(record.toolName), record.resultText);
      }
      if (hash === undefined || this.hashToCanonical.has(hash)) continue;
      this.hashToCanonical.set(hash, occKey(record.toolCallId, resultTimestampOf(record.resultTimestamp)));
    }
    this.pendingSeeds = [];
  }

  /** A record set or deleted under `key` changes the stubs of that key, of its record's bare id and of the aliases resolving to it. */
  private recordChanged(key: string, record: ToolCallRecord | undefined): void {
    if (!this.changes.change()) return;
    this.changes.touched(key);
    if (typeof record?.toolCallId === "string") this.changes.touched(record.toolCallId);
    if (this.aliasToOriginal.size > 0) for (const alias of this.aliasesByOriginal.keys(key)) this.changes.touched(alias);
  }

  isSummarized(occurrenceKey: string): boolean {
    return this.records.has(occurrenceKey) || this.aliasToOriginal.has(occurrenceKey);
  }

  getIndex(): Map<string, ToolCallRecord> {
    return this.records;
  }

  /**
   * `refs`, when given, are persisted on the entry as well (the caller registers them). The records are
   * indexed only once the entry is written: an output whose entry failed is never stubbed.
   */
  addBatch(batch: CapturedBatch, appendEntry: AppendEntry, refs?: SummaryToolCallRef[]): void {
    const records = batch.toolCalls.map((call) => recordFromCall(batch, call));
    appendEntry(CUSTOM_TYPE_INDEX, refs ? { toolCalls: records, refs } : { toolCalls: records });
    for (const record of records) if (this.indexRecord(record)) this.pendingSeeds.push(record);
  }

  /**
   * The one resolution order, for the render, phase 1c and `context_tree_query` alike: a short ref first
   * (the name stubs, markers, summaries and chain blocks show), then a record key, a dedup alias, a bare id
   * naming one occurrence. A raw id that equals a ref minted before it arrived is reached by its own ref or
   * its occurrence key; refs are never minted equal to a raw id the session has shown.
   */
  resolveToolCallId(input: string): string | undefined {
    const short = this.shortToKey.get(input);
    if (short !== undefined) return this.records.has(short) ? short : (this.aliasToOriginal.get(short) ?? short);
    if (this.records.has(input)) return input;
    const original = this.aliasToOriginal.get(input);
    if (original !== undefined) return original;
    return this.keysByBareId.sole(input);
  }

  getRecord(toolCallIdOrAlias: string): ToolCallRecord | undefined {
    const key = this.resolveToolCallId(toolCallIdOrAlias);
    return key === undefined ? undefined : this.records.get(key);
  }

  lookupToolCalls(toolCallIds: string[]): ToolCallRecord[] {
    const found: ToolCallRecord[] = [];
    for (const id of toolCallIds) {
      const record = this.getRecord(id);
      if (record) found.push(record);
    }
    return found;
  }

  getRecordsForId(input: string): ToolCallRecord[] {
    if (this.shortToKey.has(input)) {
      const named = this.getRecord(input);
      return named ? [named] : [];
    }
    const collected: ToolCallRecord[] = [];
    for (const key of this.keysByBareId.keys(input)) {
      const record = this.records.get(key);
      if (record) collected.push(record);
    }
    for (const aliasKey of this.aliasKeysByBareId.keys(input)) {
      // A key re-indexed under its own record (backfill) is already listed above.
      if (this.records.has(aliasKey)) continue;
      const original = this.records.get(this.aliasToOriginal.get(aliasKey) ?? "");
      if (original) collected.push(this.aliasView(original, aliasKey));
    }
    if (collected.length > 0) return collected.sort((a, b) => displayTime(a) - displayTime(b) || 0);
    const single = this.getRecord(input);
    return single ? [single] : [];
  }

  private aliasView(original: ToolCallRecord, aliasKey: string): ToolCallRecord {
    const view: ToolCallRecord = { ...original, toolCallId: parseOccKey(aliasKey).toolCallId };
    const own = this.aliasCalls.get(aliasKey);
    if (own?.args !== undefined) view.args = own.args;
    if (own?.isError !== undefined) view.isError = own.isError;
    const { resultTimestamp } = parseOccKey(aliasKey);
    if (resultTimestamp === undefined) delete view.resultTimestamp;
    else view.resultTimestamp = resultTimestamp;
    return view;
  }

  /**
   * Whether `ref` gives back exactly the output archived under `occurrenceKey` (an alias: its original),
   * whose text besides its image markers is `output`: undefined when it does, else why not. The render
   * asks before every stub. A sidecar's text is checked when it is read; images by their digest.
   */
  answers(ref: string, occurrenceKey: string, output: ArchivedOutput): string | undefined {
    const record = this.getRecord(occurrenceKey);
    if (record === undefined) return "no record";
    if (this.getRecord(ref) !== record) return "the ref names another output";
    if (!this.shortToKey.has(ref) && this.getRecordsForId(ref).length > 1) return "the raw id names several outputs";
    if (typeof record.spillPath === "string" && record.spillPath !== "") return sidecarDiffers(record, output);
    if (record.resultText === output.full()) return undefined;
    const capped = output.capped();
    const text = record.resultText;
    return capped !== undefined && withoutLeadingMarkers(text) !== text && withoutLeadingMarkers(text) === capped ? undefined : "the archived text differs";
  }

  /** The render's check against this archive before it stubs or drops an output. */
  archiveCheck(miss: ArchiveMiss = () => {}): ArchiveCheck {
    return {
      answers: (ref, key, output) => this.answers(ref, key, output),
      resolves: (ref) => this.resolvesPlainly(ref),
      givesArguments: (ref, args) => this.givesArguments(ref, args),
      miss,
    };
  }

  /**
   * Whether a recovery's `ref` names one archived output without doubt: a raw id shaped like a ref that is no
   * registered ref (its entry lost, or a provider's id) may be what the model meant or a ref it was shown.
   */
  private resolvesPlainly(ref: string): boolean {
    if (this.refShapedIds.has(ref) && !this.shortToKey.has(ref)) return false;
    return this.getRecord(ref) !== undefined;
  }

  /** Whether the record `ref` names holds exactly these arguments (same JSON): a chain may then drop the call. */
  givesArguments(ref: string, args: unknown): boolean {
    const record = this.getRecord(ref);
    return record !== undefined && sameData(record.args, args, 0);
  }

  hasLegacyBareRecord(toolCallId: string): boolean {
    return this.records.has(toolCallId) && this.keysByBareId.sole(toolCallId) !== undefined;
  }

  // ---- short refs --------------------------------------------------------

  registerSummaryRefs(refs: SummaryToolCallRef[]): void {
    const logged = this.changes.change();
    for (const ref of refs) {
      if (!ref || typeof ref.shortId !== "string" || typeof ref.toolCallId !== "string") continue;
      if (!ref.shortId || !ref.toolCallId) continue;
      const key = occKey(ref.toolCallId, resultTimestampOf(ref.resultTimestamp));
      if (logged) {
        this.changes.touched(key);
        this.changes.touched(ref.toolCallId);
        this.changes.touched(ref.shortId);
        for (const alias of this.aliasesByOriginal.keys(key)) this.changes.touched(alias);
      }
      if (ref.shortId !== key) {
        this.shortToKey.set(ref.shortId, key);
        this.keyToShort.set(key, ref.shortId);
      }
      const number = shortRefNumber(ref.shortId);
      if (number !== undefined) this.nextShortNumber = Math.max(this.nextShortNumber, number + 1);
    }
  }

  /** Refs the session has shown are never minted for another output, even when their entries were lost. */
  private reserveRefs(refs: string[]): void {
    for (const ref of refs) {
      const number = shortRefNumber(ref);
      if (number !== undefined) this.nextShortNumber = Math.max(this.nextShortNumber, number + 1);
    }
  }

  /**
   * Raw tool-call ids the session has shown (an assistant's calls): one shaped like a short ref is never
   * minted as one, so no ref a stub or marker names can be read as that call's raw id.
   */
  noteCallIds(ids: Iterable<unknown>): void {
    for (const id of ids) if (typeof id === "string" && shortRefNumber(id) !== undefined) this.refShapedIds.add(id);
  }

  /** The next refs, one per call, skipping numbers a raw id of the session (or of these calls) already spells. */
  private mintRefs(calls: ReadonlyArray<{ toolCallId: string; resultTimestamp?: number }>): SummaryToolCallRef[] {
    this.noteCallIds(calls.map((call) => call.toolCallId));
    const refs: SummaryToolCallRef[] = [];
    for (const call of calls) {
      while (this.refShapedIds.has(`t${this.nextShortNumber}`)) this.nextShortNumber++;
      const { refs: [ref] } = buildShortToolCallRefs([call], this.nextShortNumber);
      refs.push(ref!);
      this.nextShortNumber++;
    }
    return refs;
  }

  allocateSummaryRefs(batch: CapturedBatch): SummaryToolCallRef[] {
    return this.mintRefs(batch.toolCalls);
  }

  /**
   * Mints and persists a short ref for each given key that has a record of its own but no ref yet
   * (outputs archived before spills carried refs), as a refs-only backfilled index entry.
   */
  ensureShortRefs(occurrenceKeys: string[], appendEntry: AppendEntry): void {
    const missing = occurrenceKeys.filter((key) => this.records.has(key) && !this.keyToShort.has(key));
    if (missing.length === 0) return;
    const refs = this.mintRefs(missing.map(parseOccKey));
    appendEntry(CUSTOM_TYPE_INDEX, { toolCalls: [], backfilled: true, refs });
    this.registerSummaryRefs(refs);
  }

  /** An alias without a ref of its own answers to its original's. */
  getShortRefForToolCallId(occurrenceKey: string): string | undefined {
    const own = this.keyToShort.get(occurrenceKey);
    if (own !== undefined) return own;
    const original = this.aliasToOriginal.get(occurrenceKey);
    return original === undefined ? undefined : this.keyToShort.get(original);
  }

  /**
   * Gives every record without a short ref one, persisted once (records of 2.9.1 and earlier: its eager
   * spill wrote none, and providers reuse raw ids, so only a short ref names one output unambiguously).
   */
  upgradeLegacyRefs(appendEntry: AppendEntry): void {
    this.ensureShortRefs([...this.records.keys()], appendEntry);
  }

  getToolRefsForToolCallIds(toolCallIds: string[]): string[] {
    const refs: string[] = [];
    for (const key of toolCallIds) {
      const short = this.keyToShort.get(key);
      if (short !== undefined) refs.push(short);
    }
    return refs;
  }

  // ---- content dedup -----------------------------------------------------

  lookupByContent(toolName: string, resultText: string): string | undefined {
    this.drainSeeds();
    return this.hashToCanonical.get(hashToolResult(toolName, resultText));
  }

  /**
   * `call` carries the duplicate's own arguments and error flag; they are persisted only where they differ from
   * the original's. The alias is linked only once its entry is written.
   */
  registerDuplicate(newKey: string, originalKey: string, appendEntry: AppendEntry, call?: AliasCall): void {
    if (newKey === originalKey) return;
    const own = ownCallDetails(call, this.records.get(originalKey));
    const fresh = parseOccKey(newKey);
    const original = parseOccKey(originalKey);
    const data: Record<string, unknown> = { newToolCallId: fresh.toolCallId };
    if (fresh.resultTimestamp !== undefined) data.newResultTimestamp = fresh.resultTimestamp;
    data.originalToolCallId = original.toolCallId;
    if (original.resultTimestamp !== undefined) data.originalResultTimestamp = original.resultTimestamp;
    if (own?.args !== undefined) data.args = own.args;
    if (own?.isError !== undefined) data.isError = own.isError;
    appendEntry(CUSTOM_TYPE_DEDUP_ALIAS, data);
    this.linkAlias(newKey, originalKey, own);
  }

  private linkAlias(newKey: string, originalKey: string, own?: AliasCall): void {
    // An alias whose original is not in the archive (its entry lost or corrupt) names nothing to give back.
    if (!this.records.has(originalKey)) return;
    if (this.changes.change()) this.changes.touched(newKey);
    this.aliasToOriginal.set(newKey, originalKey);
    this.aliasesByOriginal.add(originalKey, newKey);
    this.aliasKeysByBareId.add(parseOccKey(newKey).toolCallId, newKey);
    if (own && (own.args !== undefined || own.isError !== undefined)) this.aliasCalls.set(newKey, own);
    // A key that later got a ref of its own (a chain backfill) keeps it on reload, as it did live.
    const short = this.keyToShort.get(originalKey);
    if (short !== undefined && !this.keyToShort.has(newKey)) this.keyToShort.set(newKey, short);
  }

  // ---- per-batch summary bodies -------------------------------------------

  registerSummaryBody(toolCallIds: string[], text: string): void {
    if (!text || toolCallIds.length === 0) return;
    this.pushSummaryBody([...toolCallIds], text);
  }

  /** Takes ownership of `keys`. */
  private pushSummaryBody(keys: string[], text: string): void {
    const position = this.summaryBodies.length;
    this.summaryBodies.push({ keys, text });
    for (const key of keys) {
      const known = this.bodiesByKey.get(key);
      if (known === undefined) this.bodiesByKey.set(key, position);
      else if (typeof known === "number") {
        if (known !== position) this.bodiesByKey.set(key, [known, position]);
      } else if (known[known.length - 1] !== position) known.push(position);
    }
  }

  private bodyPositionsFor(keys: string[]): number[] {
    const positions = new Set<number>();
    for (const key of keys) {
      const known = this.bodiesByKey.get(key);
      if (typeof known === "number") positions.add(known);
      else for (const position of known ?? []) positions.add(position);
    }
    return [...positions].sort((a, b) => a - b);
  }

  hasPerBatchSummaryCoveringAny(toolCallIds: string[]): boolean {
    return toolCallIds.some((key) => this.bodiesByKey.has(key));
  }

  getPerBatchSummariesForToolCallIds(toolCallIds: string[]): string[] {
    const texts = new Set<string>();
    for (const position of this.bodyPositionsFor(toolCallIds)) texts.add(this.summaryBodies[position]!.text);
    return [...texts];
  }

  getPerBatchSummaryTextForToolCallIds(toolCallIds: string[]): string {
    return this.getPerBatchSummariesForToolCallIds(toolCallIds).join("\n\n");
  }

  // ---- chain registry ----------------------------------------------------

  registerChain(entry: ChainCompressionEntry): void {
    this.storeChain(entry);
  }

  private storeChain(entry: ChainCompressionEntry): void {
    this.chainsByStart.set(entry.startUserTimestamp, entry);
    this.sortedChains = undefined;
  }

  getChainEntries(): ChainCompressionEntry[] {
    if (!this.sortedChains) {
      this.sortedChains = [...this.chainsByStart.values()].sort((a, b) => a.startUserTimestamp - b.startUserTimestamp);
    }
    return [...this.sortedChains];
  }

  findChainEntryByBlockId(blockId: string): ChainCompressionEntry | undefined {
    for (const entry of this.chainsByStart.values()) if (entry.blockId === blockId) return entry;
    return undefined;
  }

  // ---- deterministic backfill ----------------------------------------------

  async backfillChainRecords(records: ToolCallRecord[], opts: BackfillOptions): Promise<SummaryToolCallRef[]> {
    for (const record of records) {
      // Without a session dir (--no-session) there is nowhere safe to spill: keep the text inline.
      if (!opts.sessionDir || record.resultText.length < opts.spillThreshold) continue;
      const key = occKey(record.toolCallId, record.resultTimestamp);
      const path = await writeSidecar(opts.sessionDir, opts.sessionId, key, record.resultText, opts.files);
      applySpill(record, path, opts.spillPreviewBytes);
    }
    const refs = this.mintRefs(records);
    opts.appendEntry(CUSTOM_TYPE_INDEX, { toolCalls: records, backfilled: true, refs });
    for (const record of records) this.indexRecord(record);
    this.registerSummaryRefs(refs);
    return refs;
  }
}
