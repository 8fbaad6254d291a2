/**
 * Live sight (issue 42): what the agent actually went back for, read off a session branch. Three kinds of
 * recovery, each one call of the agent:
 *
 * - `query`: a `context_tree_query` call naming a ref (or raw id, or chain block) the archive held when the
 *   request was sent, or searching the archive; a call naming only refs the archive does not hold recovered
 *   nothing and is not counted.
 * - `re-read`: a read (pi's `read`, or a plain `cat`/`head`/`tail`/`sed -n` of one file) of lines an earlier
 *   read of the same path showed, where every such earlier read since the path was last changed was archived
 *   before the request (a raw one in view means the agent re-read what it could see). A successful `edit` or
 *   `write` of the path changes it, and so may any other shell command that names its file (a word of the
 *   command whose last path segment is the file's).
 * - `failed-edit`: an `edit` that failed, with a line of its old text (8 characters or more, trimmed) that
 *   only archived outputs or arguments held: an earlier output archived before the request, or an earlier
 *   call's bulky argument (`arguments/fields.ts`) archived with its output and from an earlier prompt, and
 *   no output or argument still raw; looked up in the latest 1,000 answered calls.
 *
 * "Archived before the request" is read from the branch's order: an index, summary, alias or chain entry
 * that comes before the assistant message making the call. The walk is incremental (`feed` takes the
 * whole branch and reads only what it has not seen; a branch that no longer continues the one it read
 * starts it over), and bad or foreign entries are skipped, never thrown on. Pure.
 */
import { extractToolResultText } from "../capture/batch-capture.js";
import { contentBlocks, isAssistant, isToolCall, isToolResult, isUser, loose, looseEntry, opensNoCalls } from "../capture/message-shape.js";
import { bareToolCallId, occKey, resultTimestampOf } from "../capture/occurrence-key.js";
import { parseAliasEntry, parseChainEntry, parseIndexEntry, parseSummaryEntry } from "../capture/persisted-entries.js";
import { isRecoveryTool, recoveryCallOf } from "../capture/recovery-call.js";
import { deliveredRange, type LineRange, type ReadSpan, pathArgOf, normalizeFilePath, readToolSpan, shellReadSpan } from "../capture/stale-outputs.js";
import type { SummaryToolCallRef } from "../capture/records.js";
import { bulkyFields } from "../arguments/fields.js";
import { CUSTOM_TYPE_CHAIN, CUSTOM_TYPE_DEDUP_ALIAS, CUSTOM_TYPE_INDEX, CUSTOM_TYPE_SUMMARY } from "../names.js";

export type RecoveryKind = "query" | "re-read" | "failed-edit";

/** An edit's old-text line shorter than this (`}`, `else:`) is everywhere: it is not counted (here and by miss-model.ts). */
export const MIN_EDIT_LINE = 8;

/** One call that went back for archived output. */
export interface Recovery {
  kind: RecoveryKind;
  /** The request whose reply made the call: 0 for the branch's first assistant message. */
  request: number;
  /** The refs of the archived outputs it went back for (none for a search of the whole archive). */
  refs: string[];
  /** The file a re-read or a failed edit named. */
  path?: string;
  /** The request's input as the provider reported it (fresh, cache read and cache write tokens); 0 when it reported none. */
  contextTokens: number;
  /** Characters of the call's result: what the round trip brought back. */
  returnedChars: number;
}

interface OpenCall {
  name: string;
  args: Record<string, unknown>;
  request: number;
  userTurn: number;
  contextTokens: number;
}

interface SeenRead {
  key: string;
  range: LineRange | undefined;
}

/** An earlier answered call, for the failed-edit check: its output and its bulky arguments. */
interface Holder {
  call: OpenCall;
  result: ResultLike;
}

interface ResultLike {
  toolCallId?: unknown;
  timestamp?: unknown;
  isError?: unknown;
}

/** Lines of one failed edit's old text looked up; an old text longer than this is judged by its first lines. */
const MAX_EDIT_LINES = 40;
/** Refs named for one failed edit. */
const MAX_EDIT_REFS = 3;
/** Answered calls a failed edit's old text is looked up in: the latest, so a long session costs no more per edit. */
const EDIT_LOOKBACK = 1_000;
// What separates the words of a shell command, for the file names it mentions.
const COMMAND_SEPARATORS = /[\s'"`;|&<>()=,]+/;

export class LiveSight {
  private readonly cwd: string | undefined;
  private seen = 0;
  private last: unknown;
  private requestCount = 0;
  private userTurns = 0;
  private readonly found: Recovery[] = [];
  private readonly archivedAt = new Map<string, number>();
  private readonly refOfKey = new Map<string, string>();
  private readonly keyOfRef = new Map<string, string>();
  private readonly knownIds = new Set<string>();
  private readonly aliasOf = new Map<string, string>();
  private readonly open = new Map<string, OpenCall>();
  private readonly readsOf = new Map<string, SeenRead[]>();
  /** The paths of `readsOf` by their last segment, so a shell command finds the files it names in its own length. */
  private readonly pathsByName = new Map<string, Set<string>>();
  private readonly holders: Holder[] = [];

  /** `cwd`: the session's working directory, so a relative path matches its absolute spelling. */
  constructor(options: { cwd?: string } = {}) {
    this.cwd = options.cwd;
  }

  /** Requests (assistant messages) on the branch read so far. */
  get requests(): number {
    return this.requestCount;
  }

  get recoveries(): readonly Recovery[] {
    return this.found;
  }

  /** Reads the entries of `branch` not read yet; a branch that does not continue the one read starts over. */
  feed(branch: readonly unknown[]): void {
    if (!this.continues(branch)) this.reset();
    for (let i = this.seen; i < branch.length; i++) this.entry(branch[i]);
    this.seen = branch.length;
    this.last = branch.length > 0 ? branch[branch.length - 1] : undefined;
  }

  private continues(branch: readonly unknown[]): boolean {
    if (this.seen === 0) return true;
    if (branch.length < this.seen) return false;
    const at = branch[this.seen - 1];
    if (at === this.last) return true;
    const [a, b] = [looseEntry(at)?.id, looseEntry(this.last)?.id];
    return typeof a === "string" && a === b;
  }

  private reset(): void {
    this.seen = 0;
    this.requestCount = 0;
    this.userTurns = 0;
    this.found.length = 0;
    this.holders.length = 0;
    for (const map of [this.archivedAt, this.refOfKey, this.keyOfRef, this.aliasOf, this.open, this.readsOf, this.pathsByName]) map.clear();
    this.knownIds.clear();
  }

  private entry(value: unknown): void {
    const entry = looseEntry(value);
    if (entry === undefined) return;
    if (entry.type === "message") this.message(entry.message);
    else if (entry.type === "custom") this.custom(entry.customType, entry.data);
    else if (entry.type === "custom_message") {
      // A custom message goes to the provider as a user message: it closes the calls still open.
      this.open.clear();
      if (entry.customType === CUSTOM_TYPE_SUMMARY) this.summary(entry);
    }
  }

  private message(message: unknown): void {
    if (isAssistant(message)) return this.assistant(message);
    if (isToolResult(message)) return this.result(message);
    if (isUser(message)) this.userTurns++;
    this.open.clear();
  }

  private assistant(message: Parameters<typeof opensNoCalls>[0]): void {
    const request = this.requestCount++;
    this.open.clear();
    if (opensNoCalls(message)) return;
    const contextTokens = reportedInput(message);
    for (const block of contentBlocks(message)) {
      if (!isToolCall(block) || typeof block.id !== "string") continue;
      this.open.set(block.id, { name: String(block.name), args: argsOf(block), request, userTurn: this.userTurns, contextTokens });
    }
  }

  private result(message: ResultLike): void {
    if (typeof message.toolCallId !== "string") return;
    const call = this.open.get(message.toolCallId);
    if (call === undefined) return;
    this.open.delete(message.toolCallId);
    if (isRecoveryTool(call.name)) return this.query(call, message);
    const isError = message.isError === true;
    const span = readSpanOf(call, this.cwd);
    if (span !== undefined) this.reRead(call, span, message);
    const mutated = (call.name === "edit" || call.name === "write") && !isError ? pathArgOf(call.args) : undefined;
    if (mutated !== undefined) this.forget(normalizeFilePath(mutated, this.cwd));
    if (span === undefined && call.name === "bash") this.forgetNamedBy(call.args.command);
    if (call.name === "edit" && isError) this.failedEdit(call, message);
    if (span !== undefined && !isError) {
      const range = deliveredRange(span.range, extractToolResultText(message), call.name === "read" ? "file" : "output");
      this.remember(span.path, { key: keyOf(message), range });
    }
    this.holders.push({ call, result: message });
    if (this.holders.length >= 2 * EDIT_LOOKBACK) this.holders.splice(0, this.holders.length - EDIT_LOOKBACK);
  }

  private query(call: OpenCall, result: unknown): void {
    const named = recoveryCallOf(call.args);
    let refs: string[] = [];
    if (named !== null) {
      refs = [...new Set(named.toolCallIds)].filter((id) => this.holds(id, call.request));
      if (refs.length === 0) return;
    } else if (!isArchiveSearch(call.args)) return;
    this.record({ kind: "query", request: call.request, refs, contextTokens: call.contextTokens, returnedChars: extractToolResultText(result).length });
  }

  /** Whether the archive held what `id` names when `request` was sent: a ref, an occurrence key, a raw id, a chain block. */
  private holds(id: string, request: number): boolean {
    if (!this.knownIds.has(id)) return false;
    const key = this.keyOfRef.get(id) ?? id;
    const at = this.archivedAt.get(key);
    return at === undefined || at <= request;
  }

  private reRead(call: OpenCall, span: ReadSpan, result: unknown): void {
    const earlier = (this.readsOf.get(span.path) ?? []).filter((read) => overlaps(span.range, read.range));
    if (earlier.length === 0 || earlier.some((read) => !this.archivedBy(read.key, call.request))) return;
    const latest = earlier[earlier.length - 1]!;
    this.record({ kind: "re-read", request: call.request, refs: [this.refOf(latest.key)], path: span.path, contextTokens: call.contextTokens, returnedChars: extractToolResultText(result).length });
  }

  /**
   * A shell command other than a plain read may change any file it names (`sed -i`, `>`, `mv`, a formatter):
   * reading such a file again is not taken as a recovery. A file is named by its last path segment.
   */
  private forgetNamedBy(command: unknown): void {
    if (typeof command !== "string" || this.readsOf.size === 0) return;
    for (const word of command.split(COMMAND_SEPARATORS)) {
      const paths = this.pathsByName.get(lastSegment(word));
      if (paths !== undefined) for (const path of [...paths]) this.forget(path);
    }
  }

  private remember(path: string, read: SeenRead): void {
    push(this.readsOf, path, read);
    const name = lastSegment(path);
    const paths = this.pathsByName.get(name);
    if (paths === undefined) this.pathsByName.set(name, new Set([path]));
    else paths.add(path);
  }

  private forget(path: string): void {
    if (!this.readsOf.delete(path)) return;
    const name = lastSegment(path);
    const paths = this.pathsByName.get(name);
    paths?.delete(path);
    if (paths?.size === 0) this.pathsByName.delete(name);
  }

  private failedEdit(call: OpenCall, result: unknown): void {
    const lines = oldTextLines(call.args);
    if (lines.length === 0) return;
    const archived = new Set<string>();
    const raw = new Set<string>();
    const holdersOf = new Map<string, Holder[]>();
    for (const holder of this.holders.slice(-EDIT_LOOKBACK)) {
      const earlier = holder.call;
      if (earlier.request >= call.request) continue;
      const outputHidden = this.archivedBy(keyOf(holder.result), call.request);
      const argsHidden = outputHidden && earlier.userTurn < call.userTurn;
      const output = extractToolResultText(holder.result);
      const args = bulkyFields(earlier.name, earlier.args).map((field) => field.text);
      for (const line of lines) {
        const inOutput = output.includes(line);
        const inArgs = args.some((text) => text.includes(line));
        if ((inOutput && !outputHidden) || (inArgs && !argsHidden)) raw.add(line);
        else if (inOutput || inArgs) {
          archived.add(line);
          push(holdersOf, line, holder);
        }
      }
    }
    const only = lines.filter((line) => archived.has(line) && !raw.has(line));
    if (only.length === 0) return;
    const refs = [...new Set(only.flatMap((line) => holdersOf.get(line)!.map((h) => this.refOf(keyOf(h.result)))))].slice(0, MAX_EDIT_REFS);
    const path = pathArgOf(call.args);
    this.record({
      kind: "failed-edit",
      request: call.request,
      refs,
      ...(path === undefined ? {} : { path: normalizeFilePath(path, this.cwd) }),
      contextTokens: call.contextTokens,
      returnedChars: extractToolResultText(result).length,
    });
  }

  private record(recovery: Recovery): void {
    this.found.push(recovery);
  }

  private archivedBy(key: string, request: number): boolean {
    const at = this.archivedAt.get(key);
    return at !== undefined && at <= request;
  }

  private refOf(key: string): string {
    return this.refOfKey.get(key) ?? this.refOfKey.get(this.aliasOf.get(key) ?? "") ?? bareToolCallId(key);
  }

  // ---- archive facts ------------------------------------------------------

  private custom(customType: unknown, data: unknown): void {
    if (customType === CUSTOM_TYPE_INDEX) {
      const parsed = parseIndexEntry(data);
      if (!parsed.ok) return;
      for (const record of parsed.value.toolCalls) this.archive(occKey(record.toolCallId, record.resultTimestamp));
      for (const ref of parsed.value.refs) this.link(ref);
    } else if (customType === CUSTOM_TYPE_DEDUP_ALIAS) {
      const parsed = parseAliasEntry(data);
      if (!parsed.ok) return;
      const alias = occKey(parsed.value.newToolCallId, parsed.value.newResultTimestamp);
      this.aliasOf.set(alias, occKey(parsed.value.originalToolCallId, parsed.value.originalResultTimestamp));
      this.archive(alias);
    } else if (customType === CUSTOM_TYPE_CHAIN) {
      const parsed = parseChainEntry(data);
      if (!parsed.ok) return;
      for (const key of parsed.value.droppedOccurrenceKeys ?? []) this.archive(key);
      this.knownIds.add(parsed.value.blockId);
    }
  }

  private summary(entry: { content?: unknown; details?: unknown }): void {
    const parsed = parseSummaryEntry(entry);
    if (parsed.ok) for (const ref of parsed.value.refs) this.link(ref);
  }

  private link(ref: SummaryToolCallRef): void {
    const key = occKey(ref.toolCallId, ref.resultTimestamp);
    if (!this.refOfKey.has(key)) this.refOfKey.set(key, ref.shortId);
    this.keyOfRef.set(ref.shortId, key);
    this.knownIds.add(ref.shortId);
    this.archive(key);
  }

  private archive(key: string): void {
    if (this.archivedAt.has(key)) return;
    this.archivedAt.set(key, this.requestCount);
    this.knownIds.add(key);
    this.knownIds.add(bareToolCallId(key));
  }
}

/** The input the provider reported for a request: fresh input, cache reads and cache writes. */
function reportedInput(message: unknown): number {
  const usage = loose(loose(message)?.usage);
  if (usage === undefined) return 0;
  let total = 0;
  for (const field of ["input", "cacheRead", "cacheWrite"]) {
    const value = usage[field];
    if (typeof value === "number" && Number.isFinite(value) && value > 0) total += value;
  }
  return total;
}

function argsOf(block: unknown): Record<string, unknown> {
  const call = loose(block);
  const args = call?.arguments ?? call?.input ?? call?.args;
  return typeof args === "object" && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
}

/** A `context_tree_query` search of the whole archive: a pattern and no refs. */
function isArchiveSearch(args: Record<string, unknown>): boolean {
  const ids = args.toolCallIds;
  const noRefs = ids === undefined || (Array.isArray(ids) && ids.length === 0);
  return noRefs && typeof args.pattern === "string" && args.pattern !== "";
}

// The programs of the plain shell reads (stale-outputs.ts `shellReadSpan`): any other command is not parsed.
const SHELL_READ = /^\s*(?:cat|head|tail|sed)\s/;

function readSpanOf(call: OpenCall, cwd: string | undefined): ReadSpan | undefined {
  if (call.name === "read") return readToolSpan(call.args, cwd);
  const command = call.args.command;
  if (call.name !== "bash" || typeof command !== "string" || !SHELL_READ.test(command)) return undefined;
  return shellReadSpan(command, cwd);
}

function keyOf(result: ResultLike): string {
  return occKey(String(result.toolCallId), resultTimestampOf(result.timestamp));
}

/** Whether two reads of one file share a line; a read whose lines are unknown shares them all. */
function overlaps(a: LineRange, b: LineRange | undefined): boolean {
  if (b === undefined) return true;
  if ("last" in a || "last" in b) {
    const other = "last" in a ? b : a;
    return "last" in other || other.end === Infinity;
  }
  return a.start <= b.end && b.start <= a.end;
}

/** The distinct old-text lines of an edit's arguments (pi's `edits` list, or the older top-level `oldText`) worth looking up. */
function oldTextLines(args: Record<string, unknown>): string[] {
  const edits: unknown[] = Array.isArray(args.edits) ? args.edits : [args];
  const lines = new Set<string>();
  for (const edit of edits) {
    const oldText = loose(edit)?.oldText;
    if (typeof oldText !== "string") continue;
    for (const line of oldText.split("\n")) {
      const trimmed = line.trim();
      if (trimmed.length >= MIN_EDIT_LINE) lines.add(trimmed);
      if (lines.size >= MAX_EDIT_LINES) return [...lines];
    }
  }
  return [...lines];
}

function lastSegment(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

function push<K, T>(map: Map<K, T[]>, key: K, value: T): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}
