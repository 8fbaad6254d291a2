/**
 * Message sizes, in two views.
 *
 * - The JSON view (`charsOf`, `elementChars`): the message object as JSON, the
 *   2.9.1 figure the render contract reports. Text-only messages measure
 *   exactly as their JSON.
 * - The request view (`requestChars`): only what the provider receives (role,
 *   content with tool-call arguments, the result's id, name and status), not
 *   `details`, timestamps, usage or other fields pi keeps for itself. A
 *   recovered output's `details` alone was 31.7k characters the provider never
 *   saw, and the footer counted it. This is the figure users are shown.
 *
 * Both price an image the way providers bill it, not by its base64 length: a
 * 137k-char screenshot costs about 1.6k tokens.
 *
 * `elementSizesOfEach`, the render's input walk, reuses the previous call's sizes for the messages
 * that did not change (`SizeMemo`, below).
 */
import { jsonLength, jsonSplitElementLengths, jsonSplitLength, type SplitLengths } from "./json-size.js";

export const IMAGE_TOKEN_ESTIMATE = 1600;
/** The chars/4 estimate everywhere else turns 6,400 proxy chars back into 1,600 tokens. */
const IMAGE_CHARS = IMAGE_TOKEN_ESTIMATE * 4;
const IMAGE_STANDIN = Object.freeze({ type: "image" });

/** How many top-level content blocks of the message are images. */
function imageCount(msg: unknown): number {
  const content = (msg as { content?: unknown } | null | undefined)?.content;
  if (!Array.isArray(content)) return 0;
  let images = 0;
  for (const block of content) if (isImage(block)) images++;
  return images;
}

/** The message with each top-level content image reduced to `{ type: "image" }` (call only when it has one). */
function withoutImageData(value: unknown): unknown {
  const msg = value as { content: unknown[] };
  const content = msg.content;
  return { ...msg, content: content.map((block) => (isImage(block) ? IMAGE_STANDIN : block)) };
}

function isImage(block: unknown): boolean {
  return (block as { type?: unknown } | null)?.type === "image";
}

/** A message's size in chars: its JSON with image data left out, plus 6,400 per image. */
export function charsOf(msg: unknown): number {
  const images = imageCount(msg);
  const value = images === 0 ? msg : withoutImageData(msg);
  return (jsonLength(value) ?? 0) + IMAGE_CHARS * images;
}

/** `charsOf` as an array element: what JSON.stringify cannot serialize is written `null`. */
export function elementChars(msg: unknown): number {
  const images = imageCount(msg);
  const value = images === 0 ? msg : withoutImageData(msg);
  return (jsonLength(value) ?? 4) + IMAGE_CHARS * images;
}

/** Top-level message fields that reach the provider (across pi's roles); everything else stays in pi. */
const REQUEST_FIELDS = new Set(["role", "content", "toolCallId", "toolName", "isError", "command", "output", "summary"]);

/** Each message object's request size, measured once: messages are never changed in place. */
const requestSizes = new WeakMap<object, number>();

/** A message's size as the provider receives it: request fields only, images at 6,400 chars each. */
export function requestChars(msg: unknown): number {
  const object = typeof msg === "object" && msg !== null ? msg : undefined;
  const known = object ? requestSizes.get(object) : undefined;
  if (known !== undefined) return known;
  const images = imageCount(msg);
  const value = images === 0 ? msg : withoutImageData(msg);
  const size = jsonSplitLength(value, REQUEST_FIELDS).counted + IMAGE_CHARS * images;
  if (object) requestSizes.set(object, size);
  return size;
}

/** Both views of one message as an array element: `full` is `elementChars`, `counted` is `requestChars`. */
export function elementSizes(msg: unknown): { full: number; counted: number } {
  const images = imageCount(msg);
  const value = images === 0 ? msg : withoutImageData(msg);
  const split = jsonSplitLength(value, REQUEST_FIELDS);
  return { full: split.full + IMAGE_CHARS * images, counted: split.counted + IMAGE_CHARS * images };
}

/**
 * `elementSizes` of each message. A message equal to the one at the same position in the previous
 * call reuses its sizes (`SizeMemo`, below); the others are measured in one walk, with json-size's
 * positional memo for long strings.
 */
export function elementSizesOfEach(messages: readonly unknown[]): SplitLengths {
  return renderInputMemo.sizesOf(messages, measureEach);
}

function measureEach(messages: readonly unknown[]): SplitLengths {
  let values = messages;
  let images: Float64Array | null = null;
  for (let i = 0; i < messages.length; i++) {
    const count = imageCount(messages[i]);
    if (count === 0) continue;
    if (images === null) {
      images = new Float64Array(messages.length);
      values = messages.slice();
    }
    images[i] = count;
    (values as unknown[])[i] = withoutImageData(messages[i]);
  }
  const sizes = jsonSplitElementLengths(values, REQUEST_FIELDS);
  if (images !== null) {
    for (let i = 0; i < images.length; i++) {
      sizes.full[i]! += IMAGE_CHARS * images[i]!;
      sizes.counted[i]! += IMAGE_CHARS * images[i]!;
    }
  }
  return sizes;
}

// ---------------------------------------------------------------------------
// Sizes carried from one render to the next
//
// pi hands the `context` hook a fresh deep copy on every request, so object identity never
// survives between renders and a memo keyed on message objects would never hit. What survives is
// content: `SizeMemo` keeps, per position, the previous message's leaves (its primitives, member
// names and shape, in walk order) with the sizes measured for it. A message whose leaves are the
// same reuses those sizes. Comparing is cheaper than measuring (no escape counting, no key
// lengths; equal strings compare as memory) and exact: the same leaves in the same shape are the
// same JSON. Strings are immutable, so a hook that edits the previous messages in place cannot
// change what is remembered. Anything the walk does not know (a class instance, `toJSON`, a
// function, a NaN) is measured afresh every time.
// ---------------------------------------------------------------------------

const LEAF_OBJECT = Symbol("object");
const LEAF_ARRAY = Symbol("array");
const LEAF_END = Symbol("end");
const MAX_LEAF_DEPTH = 64;

export class SizeMemo {
  private leaves: Array<unknown[] | null> = [];
  private full = new Float64Array(0);
  private counted = new Float64Array(0);

  /** Each message's sizes: remembered where the message at that position is unchanged, `measure`d for the rest. */
  sizesOf(messages: readonly unknown[], measure: (changed: unknown[]) => SplitLengths): SplitLengths {
    const n = messages.length;
    const full = new Float64Array(n);
    const counted = new Float64Array(n);
    const leaves: Array<unknown[] | null> = new Array(n);
    const changed: number[] = [];
    for (let i = 0; i < n; i++) {
      const previous = i < this.leaves.length ? this.leaves[i]! : null;
      if (previous !== null && sameLeaves(messages[i], previous)) {
        full[i] = this.full[i]!;
        counted[i] = this.counted[i]!;
        leaves[i] = previous;
      } else changed.push(i);
    }
    if (changed.length > 0) {
      const sizes = measure(changed.map((i) => messages[i]));
      changed.forEach((i, k) => {
        full[i] = sizes.full[k]!;
        counted[i] = sizes.counted[k]!;
        leaves[i] = leavesOf(messages[i]);
      });
    }
    this.leaves = leaves;
    this.full = full;
    this.counted = counted;
    // Copies: what the caller does with its sizes must not reach the memo.
    return { full: full.slice(), counted: counted.slice() };
  }
}

/** The value's leaves in walk order, or null when it holds something the walk does not know. */
function leavesOf(value: unknown): unknown[] | null {
  const out: unknown[] = [];
  return collect(value, out, 0) ? out : null;
}

function collect(value: unknown, out: unknown[], depth: number): boolean {
  switch (typeof value) {
    case "string":
    case "number":
    case "boolean":
    case "undefined":
      out.push(value);
      return true;
    case "object":
      if (value === null) {
        out.push(null);
        return true;
      }
      if (depth > MAX_LEAF_DEPTH) return false;
      if (Array.isArray(value)) {
        out.push(LEAF_ARRAY, value.length);
        for (let i = 0; i < value.length; i++) if (!collect(value[i], out, depth + 1)) return false;
        return true;
      }
      if (!isPlain(value)) return false;
      out.push(LEAF_OBJECT);
      for (const key in value) {
        out.push(key);
        if (!collect((value as Record<string, unknown>)[key], out, depth + 1)) return false;
      }
      out.push(LEAF_END);
      return true;
    default:
      return false;
  }
}

let cursor = 0;

/**
 * True when `value`'s leaves are exactly `leaves` (a NaN never matches, so it is measured afresh).
 * Leaves delimit themselves (an array's length, an object's end), so matching one value to the end
 * consumes all of them.
 */
function sameLeaves(value: unknown, leaves: readonly unknown[]): boolean {
  cursor = 0;
  return matches(value, leaves, 0);
}

function matches(value: unknown, leaves: readonly unknown[], depth: number): boolean {
  if (typeof value !== "object" || value === null) return leaves[cursor++] === value;
  if (depth > MAX_LEAF_DEPTH) return false;
  if (Array.isArray(value)) {
    if (leaves[cursor++] !== LEAF_ARRAY || leaves[cursor++] !== value.length) return false;
    for (let i = 0; i < value.length; i++) if (!matches(value[i], leaves, depth + 1)) return false;
    return true;
  }
  if (leaves[cursor++] !== LEAF_OBJECT || !isPlain(value)) return false;
  for (const key in value) {
    if (leaves[cursor++] !== key) return false;
    if (!matches((value as Record<string, unknown>)[key], leaves, depth + 1)) return false;
  }
  return leaves[cursor++] === LEAF_END;
}

function isPlain(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return (proto === Object.prototype || proto === null) && typeof (value as { toJSON?: unknown }).toJSON !== "function";
}

// One memo: the render measures its input here once per request, and consecutive requests share their prefix.
const renderInputMemo = new SizeMemo();
