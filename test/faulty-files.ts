/**
 * A fault-injecting sidecar file layer: node's own (`nodeSidecarFiles`), except that the operations named in
 * `faults` throw the error node throws when the disk says no (ENOSPC, EACCES, EROFS): an Error whose
 * `code`, `errno`, `syscall` and `path` are set as node sets them. `faults` can be changed between writes
 * (the disk fills up, or has room again).
 */
import { constants } from "node:os";
import { nodeSidecarFiles, type SidecarFiles } from "../src/capture/spill.js";

export type DiskRefusal = "ENOSPC" | "EACCES" | "EROFS";
export type FileOp = keyof SidecarFiles;

const DESCRIPTIONS: Record<DiskRefusal, string> = {
  ENOSPC: "no space left on device",
  EACCES: "permission denied",
  EROFS: "read-only file system",
};

/** The error node's fs raises for `code` on `syscall` of `path`. */
export function systemError(code: DiskRefusal, syscall: string, path: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(`${code}: ${DESCRIPTIONS[code]}, ${syscall} '${path}'`);
  error.code = code;
  error.errno = -constants.errno[code];
  error.syscall = syscall;
  error.path = path;
  return error;
}

// A full disk fails the write of a created file; a permission or a read-only mount fails its open.
const SYSCALLS: Record<FileOp, (code: DiskRefusal) => string> = {
  mkdir: () => "mkdir",
  lstat: () => "lstat",
  create: (code) => (code === "ENOSPC" ? "write" : "open"),
};

export interface FaultyFiles extends SidecarFiles {
  faults: Partial<Record<FileOp, DiskRefusal>>;
  /** Every refused operation, in order. */
  refused: Array<{ op: FileOp; path: string; code: DiskRefusal }>;
}

export function faultyFiles(faults: Partial<Record<FileOp, DiskRefusal>> = {}): FaultyFiles {
  const layer: FaultyFiles = {
    faults,
    refused: [],
    mkdir: (dir) => guarded("mkdir", dir, () => nodeSidecarFiles.mkdir(dir)),
    lstat: (path) => guarded("lstat", path, () => nodeSidecarFiles.lstat(path)),
    create: (path, bytes) => guarded("create", path, () => nodeSidecarFiles.create(path, bytes)),
  };
  async function guarded<T>(op: FileOp, path: string, run: () => Promise<T>): Promise<T> {
    const code = layer.faults[op];
    if (code === undefined) return run();
    layer.refused.push({ op, path, code });
    throw systemError(code, SYSCALLS[op](code), path);
  }
  return layer;
}
