/**
 * Which argument strings of a tool call are bulky enough to archive and stub (render phase 1c), and the
 * stubbed copy of the arguments: same keys in the same order, arrays of the same length, every value of
 * the same type, only the chosen strings replaced. Pure.
 *
 * pi's `edit` (a `path` and an `edits` list of `{ oldText, newText }`, or the older top-level pair) and
 * `write` (`path`, `content`) are recognized by their shape as well as their name: their texts are stubbed
 * from `EDIT_WRITE_MIN_CHARS`. Any other call, a tool named `edit` with another shape included, has only
 * its top-level strings of `OTHER_TOOL_MIN_CHARS` or more stubbed.
 */
import { editDigest, writeDigest } from "./marker.js";

/** A marker is about 120 characters; shorter texts gain too little to be worth a recovery. */
export const EDIT_WRITE_MIN_CHARS = 200;
/** Another tool's argument is usually a command or a query the agent may reuse: only a large one is stubbed. */
export const OTHER_TOOL_MIN_CHARS = 2000;

/** A key the marker can name so the copy guard reads it back (marker.ts); others stay raw. */
const MARKER_KEY = /^[A-Za-z_$][\w$]{0,60}$/;

export type CallShape = "edit" | "write" | "other";

/** One stubbable string: where it sits in the arguments, its text, and the digest its marker carries. */
export interface BulkyField {
  /** `content`, `newText`, `edits[2].oldText`: the marker's name for it. */
  label: string;
  /** Its place: a top-level key, or an `edits` index and key. */
  key: string;
  index?: number;
  text: string;
  digest?: string;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function isEditPair(value: unknown): value is { oldText: string; newText: string } {
  return isPlainObject(value) && typeof value.oldText === "string" && typeof value.newText === "string";
}

/** Whether argument stubs are on: `stubArguments`, except under `flushPolicy: "classic"`, which is 2.9.1's policy and implies them off. */
export function argumentStubsOn(config: { flushPolicy: string; stubArguments: boolean }): boolean {
  return config.stubArguments && config.flushPolicy !== "classic";
}

/** pi's own shape for the name, or `other`. */
export function callShape(toolName: unknown, args: Record<string, unknown>): CallShape {
  if (typeof args.path !== "string") return "other";
  if (toolName === "write" && typeof args.content === "string") return "write";
  if (toolName !== "edit") return "other";
  const list = args.edits;
  const listOk = list === undefined || (Array.isArray(list) && list.every(isEditPair));
  const legacy = args.oldText !== undefined || args.newText !== undefined;
  const legacyOk = !legacy || isEditPair({ oldText: args.oldText, newText: args.newText });
  return listOk && legacyOk && (list !== undefined || legacy) ? "edit" : "other";
}

/** The strings of a call's arguments that are archived and stubbed once it is done with; [] when none or unsafe. */
export function bulkyFields(toolName: unknown, args: unknown): BulkyField[] {
  if (!isPlainObject(args)) return [];
  const shape = callShape(toolName, args);
  if (shape === "write") {
    const content = args.content as string;
    return content.length >= EDIT_WRITE_MIN_CHARS ? [{ label: "content", key: "content", text: content, digest: writeDigest(content) }] : [];
  }
  if (shape === "edit") return editFields(args);
  const fields: BulkyField[] = [];
  for (const [key, value] of Object.entries(args)) {
    if (typeof value === "string" && value.length >= OTHER_TOOL_MIN_CHARS && key !== "path" && MARKER_KEY.test(key)) fields.push({ label: key, key, text: value });
  }
  return fields;
}

function editFields(args: Record<string, unknown>): BulkyField[] {
  const fields: BulkyField[] = [];
  const pair = (oldText: string, newText: string, index?: number) => {
    const at = (key: string) => (index === undefined ? { label: key, key } : { label: `edits[${index}].${key}`, key, index });
    if (oldText.length >= EDIT_WRITE_MIN_CHARS) fields.push({ ...at("oldText"), text: oldText });
    if (newText.length >= EDIT_WRITE_MIN_CHARS) fields.push({ ...at("newText"), text: newText, digest: editDigest(oldText, newText) });
  };
  if (typeof args.oldText === "string" && typeof args.newText === "string") pair(args.oldText, args.newText);
  if (Array.isArray(args.edits)) args.edits.forEach((edit: { oldText: string; newText: string }, i) => pair(edit.oldText, edit.newText, i));
  return fields;
}

/** About what a marker takes in the request, digest included. */
export const MARKER_CHARS = 150;

/** The characters the markers would take off a call's arguments: 0 when none is stubbable. */
export function stubbableChars(toolName: unknown, args: unknown): number {
  let chars = 0;
  for (const field of bulkyFields(toolName, args)) chars += Math.max(0, field.text.length - MARKER_CHARS);
  return chars;
}

/** Whether any of the calls has argument strings a marker would stand for. */
export function holdsStubbableArguments(calls: ReadonlyArray<{ toolName: string; args: unknown }>): boolean {
  return calls.some((call) => stubbableChars(call.toolName, call.args) > 0);
}

/** The same field's text in another arguments object (the archived record's), or undefined. */
export function fieldText(args: unknown, field: BulkyField): string | undefined {
  if (!isPlainObject(args)) return undefined;
  if (field.index === undefined) {
    const value = args[field.key];
    return typeof value === "string" ? value : undefined;
  }
  const list = args.edits;
  const entry = Array.isArray(list) ? list[field.index] : undefined;
  const value = isPlainObject(entry) ? entry[field.key] : undefined;
  return typeof value === "string" ? value : undefined;
}

/** A copy of the arguments with each field's string replaced by its marker; the input is never mutated. */
export function withMarkers(args: Record<string, unknown>, replaced: Array<{ field: BulkyField; marker: string }>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...args };
  let edits: unknown[] | undefined;
  for (const { field, marker } of replaced) {
    if (field.index === undefined) {
      out[field.key] = marker;
      continue;
    }
    edits ??= [...(args.edits as unknown[])];
    edits[field.index] = { ...(edits[field.index] as Record<string, unknown>), [field.key]: marker };
  }
  if (edits !== undefined) out.edits = edits;
  return out;
}
