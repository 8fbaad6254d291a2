/**
 * The archive writes of a session branch, in order, as the working set reads them (working-set.ts): each
 * write's horizon (the time of the newest message before it, as `argumentHorizon` reads the last one), the
 * occurrence keys it archived (index entries and dedup aliases). Entries that follow one another under one
 * horizon are one write. A final-reply flush may write before pi has put the reply on the branch: a write whose
 * next message is a text reply is read at that reply, the end of the run it archived. A value of the wrong
 * shape is passed over. Pure.
 */
import { entryMessage, isAssistant, loose, looseEntry, toolCallBlocks } from "../capture/message-shape.js";
import { occKey } from "../capture/occurrence-key.js";
import { CUSTOM_TYPE_DEDUP_ALIAS, CUSTOM_TYPE_INDEX } from "../names.js";
import type { ArchiveWrite } from "./working-set.js";

/** The writes in `branch[0..end)`. */
export function archiveWrites(branch: readonly unknown[], end = branch.length): ArchiveWrite[] {
  const writes: ArchiveWrite[] = [];
  let newest: number | undefined;
  const stop = Math.min(end, branch.length);
  let open = false;
  for (let i = 0; i < stop; i++) {
    const entry = looseEntry(branch[i]);
    const message = entryMessage(entry);
    const time = loose(message)?.timestamp;
    if (typeof time === "number" && Number.isFinite(time)) {
      const last = writes[writes.length - 1];
      if (open && last && isAssistant(message) && !toolCallBlocks(message).length) writes[writes.length - 1] = { ...last, at: Math.max(last.at, time) };
      open = false;
      newest = time;
      continue;
    }
    if (entry?.type !== "custom" || newest === undefined) continue;
    const keys = entry.customType === CUSTOM_TYPE_INDEX ? indexKeys(entry.data) : entry.customType === CUSTOM_TYPE_DEDUP_ALIAS ? aliasKeys(entry.data) : undefined;
    if (keys === undefined) continue;
    const last = writes[writes.length - 1];
    if (open && last) writes[writes.length - 1] = { ...last, keys: [...last.keys, ...keys] };
    else writes.push({ at: newest, keys });
    open = true;
  }
  return writes;
}

function indexKeys(data: unknown): string[] {
  const calls = loose(data)?.toolCalls;
  if (!Array.isArray(calls)) return [];
  const keys: string[] = [];
  for (const call of calls) {
    const c = loose(call);
    if (typeof c?.toolCallId !== "string") continue;
    keys.push(occKey(c.toolCallId, typeof c.resultTimestamp === "number" ? c.resultTimestamp : undefined));
  }
  return keys;
}

function aliasKeys(data: unknown): string[] {
  const d = loose(data);
  if (typeof d?.newToolCallId !== "string") return [];
  return [occKey(d.newToolCallId, typeof d.newResultTimestamp === "number" ? d.newResultTimestamp : undefined)];
}
