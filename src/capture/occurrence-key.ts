/**
 * Occurrence identity. Provider tool-call ids are reused across a session, so
 * one tool-call occurrence is keyed by `<id>@<resultTimestamp>` (the
 * ToolResultMessage's own timestamp). A bare id is the legacy key shape.
 */

const SEPARATOR = "@";
const DIGITS = /^[0-9]+$/;

export function occKey(toolCallId: string, resultTimestamp?: number): string {
  if (resultTimestamp === undefined) return toolCallId;
  const slot = interned.get(resultTimestamp);
  const known = slot === undefined ? undefined : findInterned(slot, toolCallId);
  if (known !== undefined) return known;
  const key = `${toolCallId}${SEPARATOR}${resultTimestamp}`;
  intern(resultTimestamp, slot, { toolCallId, key });
  return key;
}

// Keys are interned. The index stores them and every render keys the same
// occurrences again from a fresh copy of the transcript; getting back the very
// string the index holds lets map lookups compare by identity with the hash
// already cached. One map probe by timestamp (near unique per occurrence)
// replaces building, hashing and comparing a new string.
interface InternedKey {
  toolCallId: string;
  key: string;
}

const interned = new Map<number, InternedKey | InternedKey[]>();
let internedCount = 0;
const INTERN_LIMIT = 1 << 18;
const MAX_SHARED_TIMESTAMP = 16;

function findInterned(slot: InternedKey | InternedKey[], toolCallId: string): string | undefined {
  if (!Array.isArray(slot)) return slot.toolCallId === toolCallId ? slot.key : undefined;
  for (const entry of slot) if (entry.toolCallId === toolCallId) return entry.key;
  return undefined;
}

function intern(resultTimestamp: number, slot: InternedKey | InternedKey[] | undefined, entry: InternedKey): void {
  if (internedCount >= INTERN_LIMIT) {
    interned.clear();
    internedCount = 0;
    slot = undefined;
  }
  if (slot === undefined) interned.set(resultTimestamp, entry);
  else if (!Array.isArray(slot)) interned.set(resultTimestamp, [slot, entry]);
  else if (slot.length < MAX_SHARED_TIMESTAMP) slot.push(entry);
  else return;
  internedCount++;
}

export function resultTimestampOf(value: unknown): number | undefined {
  return typeof value === "number" ? value : undefined;
}

export function parseOccKey(key: string): { toolCallId: string; resultTimestamp?: number } {
  // Ids may contain "@" themselves (some providers embed payloads), so split at the last one.
  const at = key.lastIndexOf(SEPARATOR);
  if (at <= 0) return { toolCallId: key };
  const suffix = key.slice(at + 1);
  if (!DIGITS.test(suffix)) return { toolCallId: key };
  return { toolCallId: key.slice(0, at), resultTimestamp: Number(suffix) };
}

export function bareToolCallId(key: string): string {
  return parseOccKey(key).toolCallId;
}
