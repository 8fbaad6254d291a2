/**
 * Reading a spilled output back, confined to this session's own blob
 * directory. The persisted `spillPath` only contributes its file name: the
 * file of that name in the own directory is read, wherever the path pointed
 * (a moved session directory, a fork's copied sidecars), and nothing outside
 * it ever is. Relative paths, non-sidecar names, links and special files are
 * refused before a byte is read. A record that carries the sidecar's size and
 * SHA-256 (written since both were recorded) gets its bytes back only when they
 * are still exactly what was archived.
 */
import { createHash } from "node:crypto";
import { constants } from "node:fs";
import { lstat, open } from "node:fs/promises";
import { basename, dirname, isAbsolute, join } from "node:path";

/** Largest sidecar read back; a bigger file is refused rather than loaded into memory. */
export const MAX_SIDECAR_READ_BYTES = 64 * 1024 * 1024;

// Our names, and upstream's capped form `<stem>.<16 hex of SHA-1>.txt` (pi-condense 2.10.1).
const SIDECAR_NAMES = [/^[A-Za-z0-9_-]+\.txt$/, /^[A-Za-z0-9_-]+\.[0-9a-f]{16}\.txt$/];

// O_NOFOLLOW refuses a symlink at the sidecar name; O_NONBLOCK keeps a FIFO from blocking the open.
const READ_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

export type SidecarRead =
  | { kind: "ok"; text: string }
  /** Nothing at the sidecar's place in this session's blob directory. */
  | { kind: "missing"; error: unknown }
  /** Something is there, or the record points elsewhere: not read, with the reason. */
  | { kind: "refused"; reason: string }
  /** The file is there, but its size or SHA-256 is not what was archived: its text is not returned. */
  | { kind: "changed"; reason: string };

/** What a sidecar held when it was written, as its record keeps it. */
export interface ArchivedCopy {
  bytes: number;
  sha256: string;
}

const refused = (reason: string): SidecarRead => ({ kind: "refused", reason });
const changed = (reason: string): SidecarRead => ({ kind: "changed", reason });

export function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** The size and hash a record kept of its sidecar; undefined for records written before both were kept. */
export function archivedCopyOf(record: { spillBytes?: unknown; spillSha256?: unknown }): ArchivedCopy | undefined {
  const { spillBytes, spillSha256 } = record;
  return typeof spillBytes === "number" && typeof spillSha256 === "string" ? { bytes: spillBytes, sha256: spillSha256 } : undefined;
}

/**
 * Reads the sidecar a record names from `ownBlobDir`, this session's blob
 * directory (`undefined` when the session has none), checked against `copy`
 * when the record kept one. Never throws.
 */
export async function readOwnSidecar(ownBlobDir: string | undefined, spillPath: unknown, copy?: ArchivedCopy): Promise<SidecarRead> {
  if (typeof spillPath !== "string") return { kind: "missing", error: new Error("spillPath is not a string") };
  if (ownBlobDir === undefined) return refused("this session has no session directory, so it has no archive to read from");
  const name = basename(spillPath);
  if (!isAbsolute(spillPath)) return refused("the recorded path is relative");
  if (!SIDECAR_NAMES.some((pattern) => pattern.test(name))) return refused("the recorded file name is not a sidecar name");
  try {
    const dir = await lstat(ownBlobDir);
    if (dir.isSymbolicLink() || !dir.isDirectory()) return refused("this session's blob directory is not a real directory");
    return await readRegularFile(join(ownBlobDir, name), copy);
  } catch (error) {
    if (isCode(error, "ENOENT")) return { kind: "missing", error };
    if (isCode(error, "ELOOP") || isCode(error, "EMLINK")) return refused("the sidecar is a symbolic link");
    return refused(`the sidecar could not be opened (${codeOf(error)})`);
  }
}

async function readRegularFile(path: string, copy: ArchivedCopy | undefined): Promise<SidecarRead> {
  const handle = await open(path, READ_FLAGS);
  try {
    const info = await handle.stat();
    if (!info.isFile()) return refused("the sidecar is not a regular file");
    if (copy && info.size !== copy.bytes) return changed(sizeChange(info.size, copy));
    if (info.size > MAX_SIDECAR_READ_BYTES) {
      return refused(`the sidecar is ${info.size} bytes, over the ${MAX_SIDECAR_READ_BYTES / (1024 * 1024)} MiB read limit`);
    }
    const bytes = await readAtMost(handle, info.size);
    if (copy && bytes.length !== copy.bytes) return changed(sizeChange(bytes.length, copy));
    if (copy && sha256Hex(bytes) !== copy.sha256) return changed("its content no longer matches the SHA-256 recorded when it was archived");
    return { kind: "ok", text: bytes.toString("utf8") };
  } finally {
    await handle.close();
  }
}

function sizeChange(size: number, copy: ArchivedCopy): string {
  return `it is ${size} bytes, ${copy.bytes} were archived`;
}

/** Reads `size` bytes from the start; a file that grew meanwhile is not read past what was checked. */
async function readAtMost(handle: Awaited<ReturnType<typeof open>>, size: number): Promise<Buffer> {
  const buffer = Buffer.alloc(size);
  let filled = 0;
  while (filled < size) {
    const { bytesRead } = await handle.read(buffer, filled, size - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : "error";
}

function isCode(error: unknown, code: string): boolean {
  return codeOf(error) === code;
}
