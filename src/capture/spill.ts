/**
 * Sidecar files for oversized tool results: file naming, the head preview
 * kept in the index record, and the eager spill done at capture time.
 */
import { createHash } from "node:crypto";
import { constants } from "node:fs";
import { lstat, mkdir, open } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import { hashToolResult } from "./content-hash.js";
import { dedupCandidate, type DedupIndex, isExactCopy } from "./exact-duplicate.js";
import { occKey } from "./occurrence-key.js";
import { readOwnSidecar } from "./sidecar-read.js";
import type { CapturedBatch, CapturedToolCall, SummaryToolCallRef } from "../types.js";

/** Longest sanitized file stem; longer ids keep a prefix plus a hash of the full id. */
export const MAX_SIDECAR_STEM = 128;
const HASH_SUFFIX_CHARS = 40;
const UNSAFE_CHARS = /[^A-Za-z0-9_-]/g;

export function sanitizeId(toolCallId: string): string {
  const safe = toolCallId.replace(UNSAFE_CHARS, "_");
  if (safe === "") return "_";
  if (safe.length <= MAX_SIDECAR_STEM) return safe;
  const digest = createHash("sha1").update(toolCallId, "utf8").digest("hex");
  return `${safe.slice(0, MAX_SIDECAR_STEM - HASH_SUFFIX_CHARS - 1)}-${digest}`;
}

// pi's own session-id rule (a single name, never `.` or `..`): ids it would accept keep their old directory name.
const PI_SESSION_ID = /^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/;

/** The directory's own name: a session id from a session header can hold `/` or `..`, so it never names a path as is. */
function blobDirName(sessionId: string): string {
  const id = String(sessionId);
  const stem = PI_SESSION_ID.test(id) && id.length <= MAX_SIDECAR_STEM ? id : sanitizeId(id);
  return `${stem}-blobs`;
}

export function blobDirFor(sessionDir: string, sessionId: string): string {
  return join(sessionDir, blobDirName(sessionId));
}

export function blobPathFor(sessionDir: string, sessionId: string, toolCallId: string): string {
  return join(blobDirFor(sessionDir, sessionId), `${sanitizeId(toolCallId)}.txt`);
}

export function headPreview(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text, "utf8") <= maxBytes) return text;
  // Every UTF-16 unit encodes to at least one byte, so this prefix covers maxBytes.
  const bytes = Buffer.from(text.slice(0, maxBytes), "utf8");
  let cut = Math.max(0, maxBytes);
  while (cut > 0 && (bytes[cut]! & 0xc0) === 0x80) cut -= 1;
  const head = bytes.subarray(0, cut).toString("utf8");
  const newline = head.lastIndexOf("\n");
  return newline > 0 ? head.slice(0, newline) : head;
}

export function applySpill(
  record: { toolName: string; resultText: string; spillBytes?: number; resultPreview?: string; spillPath?: string; contentHash?: string },
  spillPath: string,
  previewBytes: number,
): void {
  const full = record.resultText;
  record.spillBytes = Buffer.byteLength(full, "utf8");
  record.resultPreview = headPreview(full, previewBytes);
  record.spillPath = spillPath;
  record.contentHash = hashToolResult(record.toolName, full);
  record.resultText = "";
}

// O_NOFOLLOW keeps a planted symlink in the blob directory from redirecting the write.
const WRITE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | (constants.O_NOFOLLOW ?? 0);

/**
 * Write one sidecar (dir 0o700, file 0o600) and return its absolute path (pi keeps a relative
 * `--session-dir` relative, and recovery refuses relative paths). Errors propagate.
 */
export async function writeSidecar(sessionDir: string, sessionId: string, key: string, text: string): Promise<string> {
  return writeSidecarNamed(sessionDir, sessionId, basename(blobPathFor(sessionDir, sessionId, key)), text);
}

/** `writeSidecar` under a given file name (a sidecar name, never a path). */
export async function writeSidecarNamed(sessionDir: string, sessionId: string, name: string, text: string): Promise<string> {
  const dir = blobDirFor(sessionDir, sessionId);
  const path = join(dir, basename(name));
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await assertRealDirectory(dir);
  const handle = await open(path, WRITE_FLAGS, 0o600);
  try {
    await handle.writeFile(text, "utf8");
    await handle.chmod(0o600);
  } finally {
    await handle.close();
  }
  return resolve(path);
}

// mkdir accepts an existing symlink to a directory; writing through it would leave the session dir.
async function assertRealDirectory(dir: string): Promise<void> {
  const info = await lstat(dir);
  if (info.isSymbolicLink()) throw new Error(`spill: blob directory ${dir} is a symbolic link; refusing to write`);
  if (!info.isDirectory()) throw new Error(`spill: blob directory ${dir} is not a directory; refusing to write`);
}

/** What an eager spill needs of the index (the archive's `ToolCallIndexer`; test doubles may omit the optional members). */
export interface SpillIndex extends DedupIndex {
  registerDuplicate(newKey: string, originalKey: string, appendEntry: (customType: string, data?: unknown) => void, call?: CapturedToolCall): void;
  addBatch(batch: CapturedBatch, appendEntry: (customType: string, data?: unknown) => void, refs?: SummaryToolCallRef[]): void;
  isSummarized?(occurrenceKey: string): boolean;
  allocateSummaryRefs?(batch: CapturedBatch): SummaryToolCallRef[];
  registerSummaryRefs(refs: SummaryToolCallRef[]): void;
}

interface SpillArgs {
  batch: CapturedBatch;
  indexer: SpillIndex;
  config: { spillThreshold: number; spillPreviewBytes: number; dedupByContentHash: boolean };
  sessionDir: string;
  sessionId: string;
  appendEntry: (customType: string, data?: unknown) => void;
}

async function dedupCall(call: CapturedToolCall, key: string, args: SpillArgs): Promise<boolean> {
  if (!args.config.dedupByContentHash) return false;
  const candidate = dedupCandidate(args.indexer, call.toolName, call.resultText);
  if (!candidate || candidate.key === key) return false;
  const stored = candidate.record?.spillPath ? await spilledText(candidate.record, args) : undefined;
  if (!isExactCopy(candidate, call.toolName, call.resultText, stored)) return false;
  args.indexer.registerDuplicate(key, candidate.key, args.appendEntry, call);
  return true;
}

/** The full text of a spilled original, read back from this session's blob directory. */
async function spilledText(record: { spillPath?: string }, args: SpillArgs): Promise<string | undefined> {
  if (!args.sessionDir) return undefined;
  const read = await readOwnSidecar(blobDirFor(args.sessionDir, args.sessionId), record.spillPath);
  return read.kind === "ok" ? read.text : undefined;
}

async function spillCall(call: CapturedToolCall, key: string, args: SpillArgs): Promise<boolean> {
  let path = blobPathFor(args.sessionDir, args.sessionId, key);
  try {
    path = await writeSidecar(args.sessionDir, args.sessionId, key, call.resultText);
  } catch (error) {
    console.error(`spill: failed to write sidecar for ${call.toolCallId} at ${path}:`, error);
    return false;
  }
  applySpill(call, path, args.config.spillPreviewBytes);
  return true;
}

export async function spillOversizedBatch(args: SpillArgs): Promise<Set<string>> {
  const handled = new Set<string>();
  const spilled: CapturedToolCall[] = [];
  for (const call of args.batch.toolCalls) {
    if (call.resultText.length < args.config.spillThreshold) continue;
    const key = occKey(call.toolCallId, call.resultTimestamp);
    // The key already names an archived output (same id, same millisecond): writing would replace its sidecar.
    if (args.indexer.isSummarized?.(key)) continue;
    if (await dedupCall(call, key, args)) {
      handled.add(call.toolCallId);
      // Without a session dir (--no-session) a sidecar would land in the working directory.
    } else if (args.sessionDir && (await spillCall(call, key, args))) {
      spilled.push(call);
      handled.add(call.toolCallId);
    }
  }
  if (spilled.length > 0) {
    const { turnIndex, timestamp } = args.batch;
    const batch = { turnIndex, timestamp, assistantText: "", toolCalls: spilled };
    // A ref of its own: with reused provider ids the bare id would name every occurrence.
    const refs = args.indexer.allocateSummaryRefs?.(batch);
    if (refs) args.indexer.registerSummaryRefs(refs);
    args.indexer.addBatch(batch, args.appendEntry, refs);
  }
  return handled;
}
