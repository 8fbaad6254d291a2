/**
 * Archive writes that were refused: a sidecar, the blob directory, or a session entry (a full disk, no
 * permission, a read-only mount). The output they were for stays in context in full; the user is told
 * once per kind of refusal and session, not once per output: a full disk refuses every write after it.
 */

// What a failed session append says when the file system refused it (pi's appendFileSync throws these as they are).
const FILE_SYSTEM_REFUSALS: ReadonlySet<string> = new Set(["ENOSPC", "EDQUOT", "EACCES", "EPERM", "EROFS", "EIO"]);

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A refusal of the file system, not a failure of pi-condense's own: a flush that meets one reports it here. */
export function isFileSystemRefusal(error: unknown): boolean {
  const code = codeOf(error);
  return code !== undefined && FILE_SYSTEM_REFUSALS.has(code);
}

export class WriteFaults {
  private told = new Set<string>();

  /** Tells `notify` of the first refusal of each kind (its error code) this session; the callers log every one. */
  report(error: unknown, notify: (message: string) => void): void {
    const kind = codeOf(error) ?? "other";
    if (this.told.has(kind)) return;
    this.told.add(kind);
    notify(`pruner: could not write to the archive (${messageOf(error)}); outputs it could not archive stay in context in full`);
  }

  reset(): void {
    this.told.clear();
  }
}
