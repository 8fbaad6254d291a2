/**
 * Exact `JSON.stringify(value).length` without building the JSON text.
 *
 * The render path reports before/after sizes on every pruning render, and pi
 * hands the `context` hook a fresh deep copy each time, so object identity
 * never survives between renders. Equal tool outputs do come back in the same
 * order, though: `jsonElementLengths` remembers each long string's size by its
 * position in the walk and reuses it when the string at that position is equal
 * (`===` compares contents; no hashing). Anything else is counted afresh.
 */

const MAX_DEPTH = 64;
const MEMO_MIN_LENGTH = 128;

/** Same as `JSON.stringify(value)?.length` (undefined when JSON.stringify yields undefined). */
export function jsonLength(value: unknown): number | undefined {
  return lengthOf(value, 0, null);
}

/**
 * Each element's length as a JSON array element (`null` for what JSON.stringify
 * cannot serialize). Long strings are memoized by walk position for the next call.
 */
export function jsonElementLengths(values: readonly unknown[]): Float64Array {
  const memo = positionalMemo.begin();
  const sizes = new Float64Array(values.length);
  for (let i = 0; i < values.length; i++) sizes[i] = lengthOf(values[i], 1, memo) ?? 4;
  positionalMemo.commit(memo);
  return sizes;
}

/** Each element's JSON length, and the part of it made of the members `counts` accepts (frame included). */
export interface SplitLengths {
  full: Float64Array;
  counted: Float64Array;
}

/**
 * Like `jsonElementLengths`, and in the same walk the length each element would have with only the
 * top-level members whose key is in `counted`. An element that is not a plain object counts whole.
 */
export function jsonSplitElementLengths(values: readonly unknown[], counted: ReadonlySet<string>): SplitLengths {
  const memo = positionalMemo.begin();
  const sizes: SplitLengths = { full: new Float64Array(values.length), counted: new Float64Array(values.length) };
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (isSplittable(value)) splitObjectLength(value as Record<string, unknown>, counted, memo, sizes, i);
    else sizes.full[i] = sizes.counted[i] = lengthOf(value, 1, memo) ?? 4;
  }
  positionalMemo.commit(memo);
  return sizes;
}

/** The JSON length of `value` and of its counted members alone. */
export function jsonSplitLength(value: unknown, counted: ReadonlySet<string>): { full: number; counted: number } {
  if (!isSplittable(value)) {
    const size = lengthOf(value, 0, null) ?? 4;
    return { full: size, counted: size };
  }
  const sizes: SplitLengths = { full: new Float64Array(1), counted: new Float64Array(1) };
  splitObjectLength(value as Record<string, unknown>, counted, null, sizes, 0);
  return { full: sizes.full[0]!, counted: sizes.counted[0]! };
}

function isSplittable(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value) && isPlainObject(value) && typeof (value as { toJSON?: unknown }).toJSON !== "function";
}

/** Writes both lengths at `at`; one pass over the members, no allocation (it runs for every message). */
function splitObjectLength(value: Record<string, unknown>, countedKeys: ReadonlySet<string>, memo: Memo | null, out: SplitLengths, at: number): void {
  let full = 2;
  let counted = 2;
  let fullMembers = 0;
  let countedMembers = 0;
  for (const key in value) {
    const member = lengthOf(value[key], 2, memo);
    if (member === undefined) continue;
    const size = keyLength(key) + 1 + member;
    full += size;
    fullMembers++;
    if (countedKeys.has(key)) {
      counted += size;
      countedMembers++;
    }
  }
  out.full[at] = full + Math.max(0, fullMembers - 1);
  out.counted[at] = counted + Math.max(0, countedMembers - 1);
}

/** Length of a JSON array text whose elements have the given total length. */
export function jsonArrayLength(elementChars: number, count: number): number {
  return 2 + elementChars + Math.max(0, count - 1);
}

// Control characters, quote, backslash, and surrogates (a lone one is escaped, a pair is not).
const MAY_NEED_ESCAPE = /[\u0000-\u001f"\\\ud800-\udfff]/;

/** JSON-quoted length of a string: the escapes JSON.stringify writes, counted without writing them. */
export function quotedLength(text: string): number {
  // Most text needs no escape; the regex engine scans for one far faster than a charCodeAt loop.
  if (!MAY_NEED_ESCAPE.test(text)) return text.length + 2;
  const n = text.length;
  let extra = 0;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x20 && c !== 0x22 && c !== 0x5c && (c < 0xd800 || c > 0xdfff)) continue;
    if (c === 0x22 || c === 0x5c || c === 0x08 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d) extra += 1;
    else if (c < 0x20) extra += 5;
    else if (c <= 0xdbff && i + 1 < n && isLowSurrogate(text.charCodeAt(i + 1))) i++;
    else extra += 5; // a lone surrogate is written as a six-character \u escape
  }
  return n + 2 + extra;
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

// ---------------------------------------------------------------------------

interface Memo {
  texts: string[];
  sizes: number[];
  count: number;
}

class PositionalMemo {
  private previous: Memo = { texts: [], sizes: [], count: 0 };

  begin(): Memo {
    // Sized like the last walk and filled by index: growing by push costs more than the walk.
    const capacity = this.previous.count + 64;
    return { texts: new Array(capacity), sizes: new Array(capacity), count: 0 };
  }

  sizeOf(memo: Memo, text: string): number {
    const k = memo.count++;
    const size = k < this.previous.count && this.previous.texts[k] === text ? this.previous.sizes[k]! : quotedLength(text);
    memo.texts[k] = text;
    memo.sizes[k] = size;
    return size;
  }

  commit(memo: Memo): void {
    memo.texts.length = memo.count;
    memo.sizes.length = memo.count;
    this.previous = memo;
  }
}

const positionalMemo = new PositionalMemo();

function stringLength(text: string, memo: Memo | null): number {
  if (memo === null || text.length < MEMO_MIN_LENGTH) return quotedLength(text);
  return positionalMemo.sizeOf(memo, text);
}

function lengthOf(value: unknown, depth: number, memo: Memo | null): number | undefined {
  switch (typeof value) {
    case "string":
      return stringLength(value, memo);
    case "number":
      return numberLength(value);
    case "boolean":
      return value ? 4 : 5;
    case "object":
      if (value === null) return 4;
      if (depth > MAX_DEPTH || typeof (value as { toJSON?: unknown }).toJSON === "function") return viaStringify(value);
      if (Array.isArray(value)) return arrayLength(value, depth, memo);
      if (!isPlainObject(value)) return viaStringify(value);
      return objectLength(value as Record<string, unknown>, depth, memo);
    case "bigint":
      return viaStringify(value);
    default:
      return undefined;
  }
}

function numberLength(value: number): number {
  if (!Number.isFinite(value)) return 4;
  if (Number.isSafeInteger(value) && value >= 0) return digitCount(value);
  return String(value).length;
}

const POWERS_OF_TEN = Array.from({ length: 16 }, (_, i) => 10 ** i);

/** Decimal digits of a non-negative safe integer (below 10^16). */
function digitCount(value: number): number {
  let digits = 1;
  while (digits < 16 && value >= POWERS_OF_TEN[digits]!) digits++;
  return digits;
}

function arrayLength(values: unknown[], depth: number, memo: Memo | null): number {
  let total = jsonArrayLength(0, values.length);
  for (let i = 0; i < values.length; i++) total += lengthOf(values[i], depth + 1, memo) ?? 4;
  return total;
}

function objectLength(value: Record<string, unknown>, depth: number, memo: Memo | null): number {
  let total = 2;
  let members = 0;
  // for-in visits own string keys in the same order as JSON.stringify; plain objects inherit no enumerables.
  for (const key in value) {
    const member = lengthOf(value[key], depth + 1, memo);
    if (member === undefined) continue;
    total += keyLength(key) + 1 + member;
    members++;
  }
  return total + Math.max(0, members - 1);
}

// Property names repeat across every message ("role", "content", ...).
const keyLengths = new Map<string, number>();
const KEY_CACHE_LIMIT = 4096;

function keyLength(key: string): number {
  let size = keyLengths.get(key);
  if (size === undefined) {
    if (keyLengths.size >= KEY_CACHE_LIMIT) keyLengths.clear();
    size = quotedLength(key);
    keyLengths.set(key, size);
  }
  return size;
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function viaStringify(value: unknown): number | undefined {
  return JSON.stringify(value)?.length;
}
