/**
 * Phase 1 of the render pipeline: a summarized tool result becomes a short
 * stub naming the ref `context_tree_query` resolves, and a recovery result
 * past its grace window becomes a stub naming the refs it recovered (it is
 * never archived itself: the same call gives it back). Positions are kept, so
 * the stubbed array lines up index for index with its input.
 *
 * The phase also reports each stub's exact JSON length, so the render's size
 * accounting does not walk thousands of stubs it has just built, and shows each
 * input message to an optional observer, so the render learns what its later
 * phases need of the input without walking it again.
 */
import { jsonLength, quotedLength } from "./json-size.js";
import { occKey, resultTimestampOf } from "../capture/occurrence-key.js";
import { isProtected, type ProtectionConfig } from "../capture/protected.js";
import { extractToolResultText } from "../capture/batch-capture.js";
import { withoutLeadingMarkers } from "../capture/image-markers.js";
import { IMAGE_OMITTED_NOTE } from "./image-cap.js";
import { callArgsOf, isRecoveryTool, recoveredRefs, rederivableRecovery } from "../capture/recovery-call.js";
import { recoveryStubText } from "./recovery-grace.js";
import { DecisionMemo, type StubText } from "./stub-decisions.js";
import { supersededStubText } from "../capture/stale-outputs.js";
import type { SupersededBy, ToolCallRecord } from "../capture/records.js";
import { contentBlocks, isRecoveryCallBlock, isToolResult, isUser, roleOf } from "../capture/message-shape.js";
import type { ToolCall, ToolResultMessage } from "@earendil-works/pi-ai";

/** The index lookups phase 1 makes (the archive's `ToolCallIndexer` provides them). */
export interface StubIndexer {
  isSummarized(occurrenceKey: string): boolean;
  hasLegacyBareRecord(toolCallId: string): boolean;
  getRecord(keyOrAlias: string): ToolCallRecord | undefined;
  getShortRefForToolCallId(occurrenceKey: string): string | undefined;
}

/**
 * The archive's answer to "does `ref` give back exactly this output?" (`ToolCallIndexer.answers`):
 * undefined when it does, else why not. The host always passes it; without it (2.9.1's callers and
 * duck-typed indexes) the index is taken at its word, as 2.9.1 did.
 */
export interface ArchiveCheck {
  answers(ref: string, occurrenceKey: string, output: ArchivedOutput): string | undefined;
  /** The ref names an archived output, and no other it could be read as (a recovery stub names it again). */
  resolves(ref: string): boolean;
  /** The ref gives back exactly these arguments (a chain that drops the call checks it). */
  givesArguments(ref: string, args: unknown): boolean;
  /** Told of an output left raw because the archive cannot give it back by the ref its stub would name. */
  miss: ArchiveMiss;
}

export type ArchiveMiss = (occurrenceKey: string, detail: string) => void;

/** The output a stub would replace, as the archive compares it. */
export interface ArchivedOutput {
  /** Its text as capture reads it, image marker lines first. */
  full(): string;
  /** When the image cap swapped some of its images for a note: its text besides its images, else undefined. */
  capped(): string | undefined;
}

export interface StubbedMessages {
  /** The input with stubs in place (each element the input's own or a stub built here), loose as 2.9.1's callers read it. */
  messages: any[];
  /** Per position: the stub's JSON length where a stub was placed, NaN elsewhere; null when nothing was stubbed. */
  stubSizes: Float64Array | null;
  /** Per position: the refs the stub there names (a later phase that drops it checks them); null with no stubs. */
  stubRefs: Array<readonly string[] | undefined> | null;
  /** Per position: the refs of an archived output the working set kept raw, which a chain may drop all the same; null with none. */
  keptRefs?: Array<readonly string[] | undefined> | null;
}

export function replaceSummarizedResults<M>(
  messages: M[],
  indexer: StubIndexer,
  protection: ProtectionConfig | undefined,
  grace: ReadonlySet<string>,
  observe?: (msg: M) => void,
  archive?: ArchiveCheck,
  keep?: ReadonlySet<string>,
): StubbedMessages {
  const decisions = DecisionMemo.open(indexer, protection, messages.length);
  const recoveries = new RecoveryStubs(messages, protection, archive);
  let out: (M | ToolResultMessage)[] | null = null;
  let stubSizes: Float64Array | null = null;
  let stubRefs: Array<readonly string[] | undefined> = [];
  let keptRefs: Array<readonly string[] | undefined> | null = null;
  // Two results under one occurrence key cannot both be the archived original: neither is stubbed.
  const shared = new SharedKeys(messages);
  for (let i = 0; i < messages.length; i++) {
    const msg = messages[i];
    observe?.(msg);
    if (!isToolResult(msg)) {
      recoveries.pass(i, roleOf(msg));
      continue;
    }
    if (typeof msg.toolCallId !== "string") continue;
    let text = decisions.recall(i, msg);
    if (text !== undefined) decisions.keep(i);
    else {
      const key = decisions.keyOf(i, msg);
      text = stubTextFor(msg, key, indexer, protection, archive);
      decisions.remember(i, msg, key, text);
    }
    if (text === null && isRecoveryTool(msg.toolName)) text = recoveries.stubFor(msg, grace);
    if (text === null) continue;
    if (isRecoveryTool(msg.toolName) && inGrace(msg, grace)) continue;
    // The working set's latest view of a file stays raw (src/sight/working-set.ts); archived all the same.
    if (keep !== undefined && keep.size > 0 && keep.has(decisions.keyOf(i, msg))) {
      (keptRefs ??= [])[i] = text.refs;
      continue;
    }
    const earlier = shared.claim(i);
    if (earlier !== undefined) {
      if (earlier >= 0 && out !== null && stubSizes !== null) {
        out[earlier] = messages[earlier];
        stubSizes[earlier] = Number.NaN;
        stubRefs[earlier] = undefined;
      }
      continue;
    }
    if (out === null || stubSizes === null) {
      out = messages.slice();
      stubSizes = new Float64Array(messages.length).fill(Number.NaN);
    }
    out[i] = stubMessage(msg, text.text);
    stubSizes[i] = stubSize(msg, text);
    stubRefs[i] = text.refs;
  }
  decisions.close();
  if (out === null || stubSizes === null || !stubsRemain(out, messages)) return { messages, stubSizes: null, stubRefs: null, keptRefs };
  return { messages: out, stubSizes, stubRefs, keptRefs };
}

/**
 * Stubbed results that share an occurrence key. pi stamps results in order, so timestamps normally never
 * decrease along the transcript and only results carrying the current timestamp need comparing; the first
 * out-of-order (or missing) timestamp switches to a map over every stub of the render.
 */
class SharedKeys {
  private lastTs = Number.NEGATIVE_INFINITY;
  private sameTs: Array<{ id: string; at: number }> = [];
  /** Positions claimed in order (the first of each key); those later taken back are in `takenBack`. */
  private readonly stubbed: number[] = [];
  private readonly takenBack = new Set<number>();
  private byKey: Map<string, number> | null = null;

  /** Only positions holding a tool result are ever claimed. */
  constructor(private readonly messages: readonly unknown[]) {}

  /**
   * Claims position `i` for a stub. Undefined: go ahead. A number: the result shares its key with an
   * earlier one and must stay raw; a non-negative number is that earlier stub's position, to take back.
   */
  claim(i: number): number | undefined {
    const msg = this.messages[i] as ToolResultMessage;
    const ts = msg.timestamp;
    if (this.byKey === null && typeof ts === "number" && ts >= this.lastTs) return this.claimInOrder(i, msg.toolCallId, ts);
    return this.claimByKey(i);
  }

  private claimInOrder(i: number, id: string, ts: number): number | undefined {
    if (ts > this.lastTs) {
      this.lastTs = ts;
      this.sameTs = [];
    }
    for (const seen of this.sameTs) {
      if (seen.id !== id) continue;
      const earlier = seen.at;
      seen.at = -1;
      if (earlier >= 0) this.takenBack.add(earlier);
      return earlier;
    }
    this.sameTs.push({ id, at: i });
    this.stubbed.push(i);
    return undefined;
  }

  private claimByKey(i: number): number | undefined {
    if (this.byKey === null) {
      this.byKey = new Map();
      for (const at of this.stubbed) this.byKey.set(this.keyAt(at), this.takenBack.has(at) ? -1 : at);
    }
    const key = this.keyAt(i);
    const earlier = this.byKey.get(key);
    if (earlier === undefined) {
      this.byKey.set(key, i);
      return undefined;
    }
    this.byKey.set(key, -1);
    return earlier;
  }

  private keyAt(i: number): string {
    const msg = this.messages[i] as ToolResultMessage;
    return occKey(msg.toolCallId, resultTimestampOf(msg.timestamp));
  }
}

/** Only recovery results are ever in their grace window, so only they make the window's pass run. */
function inGrace(msg: ToolResultMessage, grace: ReadonlySet<string>): boolean {
  return grace.size > 0 && grace.has(occKey(msg.toolCallId, resultTimestampOf(msg.timestamp)));
}

/** False when every stub was taken back (all of them were ambiguous): the render must then return its input. */
function stubsRemain(out: readonly unknown[], messages: readonly unknown[]): boolean {
  for (let i = 0; i < out.length; i++) if (out[i] !== messages[i]) return true;
  return false;
}

/** The stub a result gets, or null when it stays raw (the recovery grace window is checked separately). */
function stubTextFor(msg: ToolResultMessage, key: string, indexer: StubIndexer, protection: ProtectionConfig | undefined, archive?: ArchiveCheck): StubText | null {
  const found = archivedStub(msg, key, indexer, protection, archive);
  return found === null ? null : { ...found.text, refs: [found.ref] };
}

function archivedStub(msg: ToolResultMessage, key: string, indexer: StubIndexer, protection: ProtectionConfig | undefined, archive?: ArchiveCheck): { text: StubText; ref: string } | null {
  const id: string = msg.toolCallId;
  // Fail closed: the bare id is only trusted when it names a legacy-only record.
  const lookupKey = indexer.isSummarized(key) ? key : indexer.hasLegacyBareRecord(id) ? id : null;
  if (lookupKey === null) return null;

  const record = indexer.getRecord(lookupKey);
  if (protection && record && isProtected(record.toolName, record.args, protection)) return null;

  const ref = indexer.getShortRefForToolCallId(lookupKey) ?? id;
  const unanswered = archive?.answers(ref, lookupKey, { full: () => extractToolResultText(msg), capped: () => cappedText(msg) });
  if (unanswered !== undefined) {
    archive?.miss(key, `ref=${ref} ${unanswered}`);
    return null;
  }
  const outcome = ownOutcome(record, lookupKey);
  const own = isOwnRecord(record, lookupKey);
  if (own && isSupersededBy(record?.supersededBy)) return { ref, text: textStub(supersededStubText(ref, record.supersededBy)) };
  if (record?.unsummarized === true) return { ref, text: textStub(unsummarizedStubText(ref, outcome, own ? ownDigest(record) : undefined)) };
  // Records are validated at load; a spill field of the wrong type that slipped through gets the plain stub.
  if (typeof record?.spillPath !== "string" || record.spillPath === "") return { ref, text: summarizedStub(ref, outcome) };
  return { ref, text: textStub(spilledStub(record, ref, outcome)) };
}

/**
 * The record's outcome facts when they describe this very occurrence: a dedup duplicate resolves to its
 * original's record, whose facts may name another path, so it gets the stub without them.
 */
function ownOutcome(record: ToolCallRecord | undefined, lookupKey: string): string | undefined {
  if (typeof record?.outcome !== "string" || record.outcome === "") return undefined;
  return isOwnRecord(record, lookupKey) ? record.outcome : undefined;
}

// Records are validated at load; a digest that is not a non-empty string gets the stub without it.
function ownDigest(record: ToolCallRecord): string | undefined {
  return typeof record.digest === "string" && record.digest !== "" ? record.digest : undefined;
}

function isOwnRecord(record: ToolCallRecord | undefined, lookupKey: string): record is ToolCallRecord {
  return typeof record?.toolCallId === "string" && occKey(record.toolCallId, resultTimestampOf(record.resultTimestamp)) === lookupKey;
}

/**
 * The text of an output some of whose images the cap swapped for its note (image-cap.ts), without the
 * notes: the archive compares it with its record's text besides the image markers. Undefined when no
 * image was swapped.
 */
function cappedText(msg: ToolResultMessage): string | undefined {
  const texts: string[] = [];
  let swapped = false;
  for (const block of Array.isArray(msg.content) ? msg.content : []) {
    if (block?.type !== "text" || typeof block.text !== "string") continue;
    if (block.text === IMAGE_OMITTED_NOTE) swapped = true;
    else texts.push(block.text);
  }
  return swapped ? withoutLeadingMarkers(texts.join("\n")) : undefined;
}

// Records are validated at load; the render checks again so a value that slipped through gets a plain stub.
function isSupersededBy(value: unknown): value is SupersededBy {
  return typeof value === "object" && value !== null && ["edited", "reread", "rerun"].includes((value as SupersededBy).rule);
}

function textStub(text: string): StubText {
  return { text, quoted: quotedLength(text) };
}

/**
 * A record archived by choice, with no summary: the stub says so and carries the output's digest, or its
 * outcome facts on a record captured before digests. The digest form is compact: it stands in for outputs
 * of any size, so its fixed words are few.
 */
export function unsummarizedStubText(ref: string, facts: string | undefined, digest?: string): string {
  if (digest !== undefined) return `[\`${ref}\` archived: ${digest}]`;
  const lead = `[Archived without a summary, ref \`${ref}\`.`;
  return facts === undefined ? `${lead} ${SEARCH_HINT}]` : `${lead} Outcome: ${sentence(facts)} ${SEARCH_HINT}]`;
}

/**
 * Recovery results the index knows nothing of (they are never archived). One
 * is stubbed once its grace window is over and a later user message exists,
 * so a fresh recovery always reaches the model at least once; only a recovery
 * the same call gives back unchanged is stubbed, and only when the stub is
 * shorter. Every input is positional, so the decision never flips back.
 */
class RecoveryStubs {
  private users = 0;
  private totalUsers = -1;
  /** The assistant whose calls a result may answer: the last one, unless a barrier came since (as the orphan sweep rules). */
  private opener = -1;
  private callsOpener = -1;
  private calls: Map<unknown, ToolCall> | null = null;

  constructor(
    private readonly messages: readonly unknown[],
    private readonly protection: ProtectionConfig | undefined,
    private readonly archive: ArchiveCheck | undefined,
  ) {}

  pass(i: number, role: unknown): void {
    if (role === "assistant") {
      this.opener = i;
      return;
    }
    if (role === "user") this.users += 1;
    this.opener = -1;
  }

  stubFor(msg: ToolResultMessage, grace: ReadonlySet<string>): StubText | null {
    if (inGrace(msg, grace)) return null;
    if (this.totalUsers < 0) this.totalUsers = this.messages.reduce((n: number, m) => (isUser(m) ? n + 1 : n), 0);
    if (this.totalUsers <= this.users) return null;
    const block = this.callBlock(msg.toolCallId);
    if (block === undefined) return null;
    const args = callArgsOf(block);
    const call = rederivableRecovery(msg, args);
    if (call === null || (this.protection && isProtected(msg.toolName, args, this.protection))) return null;
    const archive = this.archive;
    const gone = archive ? recoveredRefs(call).filter((ref) => !archive.resolves(ref)) : [];
    if (gone.length > 0) {
      archive?.miss(occKey(msg.toolCallId, resultTimestampOf(msg.timestamp)), `recovery of ${gone.join(",")}: not in the archive`);
      return null;
    }
    const text = recoveryStubText(call);
    return longerThan(msg.content, text.length) ? { text, quoted: quotedLength(text), refs: recoveredRefs(call) } : null;
  }

  private callBlock(id: string): ToolCall | undefined {
    if (this.opener < 0) return undefined;
    if (this.callsOpener !== this.opener) {
      this.callsOpener = this.opener;
      this.calls = new Map();
      for (const block of contentBlocks(this.messages[this.opener])) {
        if (isRecoveryCallBlock(block) && !this.calls.has(block.id)) this.calls.set(block.id, block);
      }
    }
    return this.calls?.get(id);
  }
}

/** True when the content holds an image, or more text than `length`. */
function longerThan(content: unknown, length: number): boolean {
  if (!Array.isArray(content)) return false;
  let chars = 0;
  for (const block of content) {
    if (block?.type === "image") return true;
    if (block?.type === "text" && typeof block.text === "string") chars += block.text.length;
  }
  return chars > length;
}

function stubMessage(msg: ToolResultMessage, text: string): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId: msg.toolCallId,
    toolName: msg.toolName,
    content: [{ type: "text", text }],
    isError: false,
    timestamp: msg.timestamp,
  };
}

// The JSON of a stub with an empty id and text and without its two optional members.
const STUB_FRAME = JSON.stringify(stubMessage({ toolCallId: "" } as ToolResultMessage, "")).length - 4;

/** `JSON.stringify(stubMessage(msg, text.text)).length`, from the parts that vary. */
function stubSize(msg: ToolResultMessage, text: StubText): number {
  return STUB_FRAME + quotedLength(msg.toolCallId) + text.quoted + memberLength(TOOL_NAME_MEMBER, msg.toolName) + memberLength(TIMESTAMP_MEMBER, msg.timestamp);
}

/** A stub's request-view size from its JSON length: of its fields only the timestamp stays in pi. */
export function stubRequestSize(stubJsonLength: number, stub: { timestamp?: unknown }): number {
  return stubJsonLength - memberLength(TIMESTAMP_MEMBER, stub.timestamp);
}

// `"toolName":` and `"timestamp":` with the comma that separates the member: the same for every stub.
const TOOL_NAME_MEMBER = quotedLength("toolName") + 2;
const TIMESTAMP_MEMBER = quotedLength("timestamp") + 2;

/** Length of `"key":value,` as one member of an object (`frame` is the key's part), or 0 when JSON.stringify omits the value. */
function memberLength(frame: number, value: unknown): number {
  const size = jsonLength(value);
  return size === undefined ? 0 : frame + size;
}

// The same stubs are rendered on every request; reusing their text skips rebuilding and re-measuring it.
const summarizedTexts = new Map<string, StubText>();
const SUMMARIZED_TEXT_LIMIT = 1 << 16;

function summarizedStub(ref: string, outcome: string | undefined): StubText {
  const cacheKey = outcome === undefined ? ref : `${ref}\u0000${outcome}`;
  let stub = summarizedTexts.get(cacheKey);
  if (stub === undefined) {
    if (summarizedTexts.size >= SUMMARIZED_TEXT_LIMIT) summarizedTexts.clear();
    const text = summarizedStubText(ref, outcome);
    stub = { text, quoted: quotedLength(text) };
    summarizedTexts.set(cacheKey, stub);
  }
  return stub;
}

/** The stub of a summarized output: 2.9.1's text, with the output's outcome facts when the record has them. */
export function summarizedStubText(ref: string, outcome: string | undefined): string {
  return outcome === undefined
    ? `[Summarized in pruner summary, ref \`${ref}\`. Use context_tree_query to retrieve full output.]`
    : `[Summarized in pruner summary, ref \`${ref}\`. Outcome: ${sentence(outcome)} ${SEARCH_HINT}]`;
}

const SEARCH_HINT = "Use context_tree_query to retrieve the full output, or pass pattern to search it.";
const DIGEST_HINT = "context_tree_query: verbatim or pattern";

function sentence(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

// The stub names no file: recovery goes through context_tree_query, which reads only this session's archive.
function spilledStub(record: ToolCallRecord, ref: string, outcome: string | undefined): string {
  const bytes = typeof record.spillBytes === "number" ? String(record.spillBytes) : "?";
  const lines = [`[Oversized output spilled to file \u2014 ${bytes} bytes.]`, `Tool: ${typeof record.toolName === "string" ? record.toolName : ""}`];
  if (outcome !== undefined) lines.push(`Outcome: ${outcome}`);
  lines.push("Preview (head):", typeof record.resultPreview === "string" ? record.resultPreview : "", `Full output: use context_tree_query with ref \`${ref}\`.`);
  const paging = `It comes back at most 2000 lines (50 KiB) at a time; pass lines for a later part, e.g. context_tree_query({ toolCallIds: [${JSON.stringify(ref)}], lines: "2001-4000" })`;
  lines.push(outcome === undefined ? `${paging}.` : `${paging}, or pass pattern to search it, e.g. pattern: "error".`);
  return lines.join("\n");
}
