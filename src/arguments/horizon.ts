/**
 * The argument horizon: the newest message the latest archive write had seen. Phase 1c judges whether a
 * call is done with only from messages at or behind it, so an argument stub appears in the request that
 * also carries that write's output stubs and never breaks the provider's cache on its own.
 *
 * It is read off the branch (the last index or alias entry, then the message before it), so it is the same
 * after a reload and in a replay of the session file.
 */
import { entryMessage, loose, looseEntry } from "../capture/message-shape.js";
import { CUSTOM_TYPE_DEDUP_ALIAS, CUSTOM_TYPE_INDEX } from "../names.js";

const ARCHIVE_WRITES = new Set<unknown>([CUSTOM_TYPE_INDEX, CUSTOM_TYPE_DEDUP_ALIAS]);

/** Nothing archived yet: no message is behind the horizon. */
export const NO_HORIZON = Number.NEGATIVE_INFINITY;

/** The timestamp of the newest message before the last archive write in `branch[0..end)`. */
export function argumentHorizon(branch: readonly unknown[], end = branch.length): number {
  let i = Math.min(end, branch.length) - 1;
  while (i >= 0 && !isArchiveWrite(branch[i])) i--;
  for (i--; i >= 0; i--) {
    const time = loose(entryMessage(branch[i]))?.timestamp;
    if (typeof time === "number" && Number.isFinite(time)) return time;
  }
  return NO_HORIZON;
}

/** Whether `message` is at or behind `horizon`; undefined means every message is (callers without a session). */
export function behindHorizon(message: unknown, horizon: number | undefined): boolean {
  if (horizon === undefined) return true;
  const time = loose(message)?.timestamp;
  return typeof time === "number" && time <= horizon;
}

function isArchiveWrite(entry: unknown): boolean {
  const e = looseEntry(entry);
  return e?.type === "custom" && ARCHIVE_WRITES.has(e.customType);
}
