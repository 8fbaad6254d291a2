/**
 * The one rule for an argument marker's text: it is built from the archived record its ref names, never from
 * the call it stands in, so the render (stub.ts) and the copy guard (copy-guard.ts) make the same text by
 * construction. A dedup alias resolves to its original's record: its field is replaced only where that record's
 * marker is exactly the one the alias's own field would make (same text, same digest), so a marker never
 * describes another edit. Pure.
 */
import { argumentMarker } from "./marker.js";
import { bulkyFields, fieldText, type BulkyField } from "./fields.js";
import type { ToolCallRecord } from "../capture/records.js";

/** Per record, per `ref` and field label: its marker, or null when the record has no such field. */
const made = new WeakMap<ToolCallRecord, Map<string, string | null>>();

/** The marker the render makes for the archived field `label` of `record` under `ref`; undefined when the record has none. */
export function archivedMarker(record: ToolCallRecord, label: string, ref: string): string | undefined {
  let byField = made.get(record);
  if (byField === undefined) made.set(record, (byField = new Map()));
  const key = `${ref}\u0000${label}`;
  let marker = byField.get(key);
  if (marker === undefined) {
    const field = bulkyFields(record.toolName, record.args).find((f) => f.label === label);
    marker = field === undefined ? null : argumentMarker(field.label, field.text, ref, field.digest);
    byField.set(key, marker);
  }
  return marker ?? undefined;
}

/**
 * The marker standing for a call's `field` under `ref`, whose record is `record`; undefined when the record
 * does not hold that very string, or holds it in an edit of another shape (its marker would describe that edit).
 */
export function markerStandingFor(record: ToolCallRecord, field: BulkyField, ref: string): string | undefined {
  if (fieldText(record.args, field) !== field.text) return undefined;
  const marker = archivedMarker(record, field.label, ref);
  return marker !== undefined && marker === argumentMarker(field.label, field.text, ref, field.digest) ? marker : undefined;
}
