/**
 * A forked session starts with the parent's entries but an empty blob
 * directory of its own: its spilled records still name the parent's
 * sidecars. At the fork (`session_start` with reason "fork", whose
 * `previousSessionFile` pi itself provides) those sidecars are copied into
 * the fork's own blob directory under the same names, so recovery, which only
 * ever reads the session's own directory, finds them. The parent's files are
 * read with the same confinement rules as the session's own.
 */
import { closeSync, openSync, readSync } from "node:fs";
import { access } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { readOwnSidecar } from "../capture/sidecar-read.js";
import { blobDirFor, writeSidecarNamed } from "../capture/spill.js";
import type { ToolCallRecord } from "../capture/records.js";

const HEADER_BYTES = 64 * 1024;

export interface InheritTarget {
  sessionDir: string;
  sessionId: string;
}

/** Copies the sidecars the records name from the parent session's blob directory; returns how many were copied. */
export async function inheritSidecars(records: Iterable<ToolCallRecord>, parentSessionFile: string, own: InheritTarget): Promise<number> {
  if (!own.sessionDir) return 0;
  const parentId = sessionIdOf(parentSessionFile);
  if (parentId === undefined) return 0;
  const parentBlobDir = blobDirFor(dirname(parentSessionFile), parentId);
  const ownBlobDir = blobDirFor(own.sessionDir, own.sessionId);
  if (parentBlobDir === ownBlobDir) return 0;
  let copied = 0;
  for (const record of records) {
    if (typeof record.spillPath !== "string") continue;
    const name = basename(record.spillPath);
    if (await exists(join(ownBlobDir, name))) continue;
    const read = await readOwnSidecar(parentBlobDir, join(parentBlobDir, name));
    if (read.kind !== "ok") continue;
    await writeSidecarNamed(own.sessionDir, own.sessionId, name, read.text);
    copied++;
  }
  return copied;
}

/** The `id` of a session file's header line, or undefined when it cannot be read. */
function sessionIdOf(file: string): string | undefined {
  try {
    const fd = openSync(file, "r");
    try {
      const buffer = Buffer.alloc(HEADER_BYTES);
      const read = readSync(fd, buffer, 0, HEADER_BYTES, 0);
      const line = buffer.subarray(0, read).toString("utf8").split("\n", 1)[0] ?? "";
      const header = JSON.parse(line);
      return header?.type === "session" && typeof header.id === "string" ? header.id : undefined;
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
