// Real refusals for a session's blob directory, for disk-faults.e2e.test.ts: the strongest mechanism this
// machine allows, named in `mechanism` so a run says which one it exercised. No product code is involved:
// pi and the extension meet the refusal from the file system itself.
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface DiskFault {
  /** What was done, and the error the extension meets. */
  mechanism: string;
  /** Puts the directory back, so the sandbox can be removed (unmounts a tmpfs). */
  undo(): void;
}

const FILE_IN_PLACE = "a regular file where the blob directory belongs (mkdir fails with EEXIST)";

/** A tmpfs mounted on `dir` (root with CAP_SYS_ADMIN only; elsewhere mount fails at once, it never prompts). */
function mountTmpfs(dir: string, options: string): boolean {
  mkdirSync(dir, { recursive: true });
  if (spawnSync("mount", ["-t", "tmpfs", "-o", options, "tmpfs", dir], { stdio: "ignore" }).status === 0) return true;
  rmdirSync(dir);
  return false;
}

function unmount(dir: string): void {
  spawnSync("umount", ["-l", dir], { stdio: "ignore" });
}

function fileInPlace(blobDir: string, why: string): DiskFault {
  writeFileSync(blobDir, "not a directory\n");
  return { mechanism: `${FILE_IN_PLACE}; ${why}`, undo: () => {} };
}

/** True when a directory made read-only by chmod still takes new entries (root ignores the mode bits). */
function chmodIgnored(dir: string): boolean {
  const probe = join(dir, ".write-probe");
  try {
    mkdirSync(probe);
  } catch {
    return false;
  }
  rmdirSync(probe);
  return true;
}

/**
 * A read-only session directory, where the blob directory would be created: `chmod 0555` (EACCES) for an
 * ordinary user; as root, where chmod stops nothing, a read-only tmpfs on the blob directory (EROFS), or
 * when mounting is not allowed either, a file in its place.
 */
export function readOnlyBlobDir(sessionDir: string, blobDir: string): DiskFault {
  chmodSync(sessionDir, 0o555);
  if (!chmodIgnored(sessionDir)) {
    return { mechanism: "session directory chmod 0555 (mkdir of the blob directory fails with EACCES)", undo: () => chmodSync(sessionDir, 0o755) };
  }
  chmodSync(sessionDir, 0o755);
  if (mountTmpfs(blobDir, "ro,size=16k,mode=0700")) {
    return { mechanism: "running as root, so chmod stops nothing: a read-only tmpfs on the blob directory (EROFS)", undo: () => unmount(blobDir) };
  }
  return fileInPlace(blobDir, "running as root without mount rights, so neither chmod nor a read-only mount is available");
}

/**
 * A full disk under the blob directory: a 64 KiB tmpfs filled to the last byte (ENOSPC). Where mounting is
 * not allowed, a file in place of the blob directory: the same refused-write path, with another error code
 * (ENOSPC itself is covered through the fault-injecting file layer, src/host/disk-faults.integration.test.ts).
 */
export function fullBlobDir(blobDir: string): DiskFault {
  if (!mountTmpfs(blobDir, "size=64k,mode=0700")) return fileInPlace(blobDir, "mounting a tmpfs is not allowed here");
  try {
    writeFileSync(join(blobDir, "filler"), Buffer.alloc(1024 * 1024, 0x78));
  } catch (error) {
    if ((error as { code?: string }).code !== "ENOSPC") throw error;
  }
  return { mechanism: "a 64 KiB tmpfs on the blob directory, filled (ENOSPC)", undo: () => unmount(blobDir) };
}
