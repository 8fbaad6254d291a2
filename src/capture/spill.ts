/**
 * Sidecar files for oversized tool results: file naming, the head preview
 * kept in the index record, and the eager spill done at capture time. A
 * sidecar is created, never replaced: the blob directory is shared by every
 * pi process on the session file and by every branch of it.
 */
import { createHash } from "node:crypto";
import { constants } from "node:fs";
import { lstat, mkdir, open, unlink } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { hashToolResult } from "./content-hash.js";
import { dedupCandidate, type DedupIndex, isExactCopy } from "./exact-duplicate.js";
import { occKey } from "./occurrence-key.js";
import { type ArchivedCopy, archivedCopyOf, readOwnSidecar, sha256Hex } from "./sidecar-read.js";
import type { CapturedBatch, CapturedToolCall, SummaryToolCallRef } from "./records.js";

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
  record: { toolName: string; resultText: string; spillBytes?: number; spillSha256?: string; resultPreview?: string; spillPath?: string; contentHash?: string },
  spillPath: string,
  previewBytes: number,
): void {
  const full = record.resultText;
  // The same bytes the sidecar was written with: a read gives the text back only while they match.
  const bytes = Buffer.from(full, "utf8");
  record.spillBytes = bytes.length;
  record.spillSha256 = sha256Hex(bytes);
  record.resultPreview = headPreview(full, previewBytes);
  record.spillPath = spillPath;
  record.contentHash = hashToolResult(record.toolName, full);
  record.resultText = "";
}

/** The file operations a sidecar write uses; tests inject a layer that fails them. */
export interface SidecarFiles {
  /** `mkdir -p`, owner-only. */
  mkdir(dir: string): Promise<void>;
  lstat(path: string): Promise<{ isSymbolicLink(): boolean; isDirectory(): boolean }>;
  /**
   * Creates `path` holding exactly `bytes`, owner-only and never through a link; fails with `EEXIST` when
   * anything is there. A failed write leaves no file behind.
   */
  create(path: string, bytes: Uint8Array): Promise<void>;
}

// O_EXCL: never replace a file, and never follow a symlink planted at the name (O_NOFOLLOW where it exists too).
const CREATE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

export const nodeSidecarFiles: SidecarFiles = {
  mkdir: async (dir) => {
    await mkdir(dir, { recursive: true, mode: 0o700 });
  },
  lstat: (path) => lstat(path),
  create: async (path, bytes) => {
    const handle = await open(path, CREATE_FLAGS, 0o600);
    try {
      try {
        await handle.writeFile(bytes);
        await handle.chmod(0o600);
      } finally {
        await handle.close();
      }
    } catch (error) {
      // A partial body must never sit under a sidecar name (a full disk fails the write halfway).
      await unlink(path).catch(() => undefined);
      throw error;
    }
  },
};

/**
 * Write one sidecar (dir 0o700, file 0o600) and return its absolute path (pi keeps a relative
 * `--session-dir` relative, and recovery refuses relative paths). Errors propagate.
 */
export async function writeSidecar(sessionDir: string, sessionId: string, key: string, text: string, files?: SidecarFiles): Promise<string> {
  return writeSidecarNamed(sessionDir, sessionId, basename(blobPathFor(sessionDir, sessionId, key)), text, files);
}

/**
 * `writeSidecar` under a given file name (a sidecar name, never a path). A name already holding these exact
 * bytes is reused; a name holding another body (another process's output under the same key) is left alone
 * and the body goes to `<stem>.<16 hex of its SHA-256>.txt`.
 */
export async function writeSidecarNamed(
  sessionDir: string,
  sessionId: string,
  name: string,
  text: string,
  files: SidecarFiles = nodeSidecarFiles,
): Promise<string> {
  const dir = resolve(blobDirFor(sessionDir, sessionId));
  await files.mkdir(dir);
  await assertRealDirectory(dir, files);
  const bytes = Buffer.from(text, "utf8");
  const copy: ArchivedCopy = { bytes: bytes.length, sha256: sha256Hex(bytes) };
  const own = join(dir, basename(name));
  const path = (await createOnce(files, own, bytes, copy)) ?? (await createOnce(files, contentAddressed(own, copy), bytes, copy));
  if (path === undefined) throw new Error(`spill: both ${own} and its content-addressed name hold other bodies; refusing to replace them`);
  return path;
}

/** `path` when it now holds exactly these bytes (written here, or already there); undefined when another body holds it. */
async function createOnce(files: SidecarFiles, path: string, bytes: Uint8Array, copy: ArchivedCopy): Promise<string | undefined> {
  try {
    await files.create(path, bytes);
    return path;
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code !== "EEXIST") throw error;
    const there = await readOwnSidecar(dirname(path), path, copy);
    return there.kind === "ok" ? path : undefined;
  }
}

function contentAddressed(path: string, copy: ArchivedCopy): string {
  return `${path.slice(0, -".txt".length)}.${copy.sha256.slice(0, 16)}.txt`;
}

// mkdir accepts an existing symlink to a directory; writing through it would leave the session dir.
async function assertRealDirectory(dir: string, files: SidecarFiles): Promise<void> {
  const info = await files.lstat(dir);
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
  /** Node's file system unless a test injects faults. */
  files?: SidecarFiles;
  /** Told of each archive write that failed (a sidecar, an index or alias entry); the output stays inline. */
  onWriteFailed?: (error: unknown) => void;
}

async function dedupCall(call: CapturedToolCall, key: string, args: SpillArgs): Promise<boolean> {
  if (!args.config.dedupByContentHash) return false;
  const candidate = dedupCandidate(args.indexer, call.toolName, call.resultText);
  if (!candidate || candidate.key === key) return false;
  const stored = candidate.record?.spillPath ? await spilledText(candidate.record, args) : undefined;
  if (!isExactCopy(candidate, call.toolName, call.resultText, stored)) return false;
  try {
    args.indexer.registerDuplicate(key, candidate.key, args.appendEntry, call);
  } catch (error) {
    console.error(`spill: failed to write the dedup alias of ${call.toolCallId}:`, error);
    args.onWriteFailed?.(error);
    return false;
  }
  return true;
}

/** The full text of a spilled original, read back from this session's blob directory, if it is still what was archived. */
async function spilledText(record: { spillPath?: string; spillBytes?: number; spillSha256?: string }, args: SpillArgs): Promise<string | undefined> {
  if (!args.sessionDir) return undefined;
  const read = await readOwnSidecar(blobDirFor(args.sessionDir, args.sessionId), record.spillPath, archivedCopyOf(record));
  return read.kind === "ok" ? read.text : undefined;
}

async function spillCall(call: CapturedToolCall, key: string, args: SpillArgs): Promise<boolean> {
  let path = blobPathFor(args.sessionDir, args.sessionId, key);
  try {
    path = await writeSidecar(args.sessionDir, args.sessionId, key, call.resultText, args.files);
  } catch (error) {
    console.error(`spill: failed to write sidecar for ${call.toolCallId} at ${path}:`, error);
    args.onWriteFailed?.(error);
    return false;
  }
  applySpill(call, path, args.config.spillPreviewBytes);
  return true;
}

export async function spillOversizedBatch(args: SpillArgs): Promise<Set<string>> {
  const handled = new Set<string>();
  const spilled: Array<{ call: CapturedToolCall; before: CapturedToolCall }> = [];
  for (const call of args.batch.toolCalls) {
    if (call.resultText.length < args.config.spillThreshold) continue;
    const key = occKey(call.toolCallId, call.resultTimestamp);
    // The key already names an archived output (same id, same millisecond): writing would replace its sidecar.
    if (args.indexer.isSummarized?.(key)) continue;
    if (await dedupCall(call, key, args)) {
      handled.add(call.toolCallId);
      continue;
    }
    const before = { ...call };
    // Without a session dir (--no-session) a sidecar would land in the working directory.
    if (args.sessionDir && (await spillCall(call, key, args))) spilled.push({ call, before });
  }
  if (spilled.length > 0 && indexSpilled(spilled, args)) for (const { call } of spilled) handled.add(call.toolCallId);
  return handled;
}

/**
 * The index entry commits a spill: nothing is indexed before it is written, and when it cannot be
 * written the calls get their text back and stay inline (their sidecars are left unnamed).
 */
function indexSpilled(spilled: Array<{ call: CapturedToolCall; before: CapturedToolCall }>, args: SpillArgs): boolean {
  const { turnIndex, timestamp } = args.batch;
  const batch = { turnIndex, timestamp, assistantText: "", toolCalls: spilled.map((s) => s.call) };
  // A ref of its own: with reused provider ids the bare id would name every occurrence.
  const refs = args.indexer.allocateSummaryRefs?.(batch);
  try {
    args.indexer.addBatch(batch, args.appendEntry, refs);
  } catch (error) {
    console.error("spill: failed to write the index entry of spilled outputs; they stay inline:", error);
    args.onWriteFailed?.(error);
    for (const { call, before } of spilled) restoreCall(call, before);
    return false;
  }
  if (refs) args.indexer.registerSummaryRefs(refs);
  return true;
}

function restoreCall(call: CapturedToolCall, before: CapturedToolCall): void {
  for (const field of ["spillPath", "spillBytes", "spillSha256", "resultPreview", "contentHash"] as const) delete call[field];
  Object.assign(call, before);
}
