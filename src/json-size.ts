/**
 * Exact `JSON.stringify(value).length` without building the JSON text.
 *
 * The render path reports before/after sizes on every pruning render, and pi
 * hands the `context` hook a fresh deep copy each time, so object identity
 * never survives between renders. Tool outputs do survive as equal strings,
 * though: large strings' escaped lengths are kept in a content-keyed cache
 * that lives for two render generations, so a render re-measures only what
 * is new instead of re-serializing the whole transcript.
 */

const CACHE_MIN_LENGTH = 512;
const MAX_DEPTH = 64;
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

interface CachedSize {
  size: number;
  generation: number;
}

const cache = new Map<string, CachedSize>();
let generation = 0;

/** Starts a cache generation: strings not seen in the previous one are released. */
export function rotateStringSizeCache(): void {
  generation++;
  for (const [text, entry] of cache) if (entry.generation < generation - 1) cache.delete(text);
}

/** Same as `JSON.stringify(value)?.length` (undefined when JSON.stringify yields undefined). */
export function jsonLength(value: unknown): number | undefined {
  return lengthOf(value, 0);
}

function lengthOf(value: unknown, depth: number): number | undefined {
  switch (typeof value) {
    case "string":
      return stringLength(value);
    case "number":
      return Number.isFinite(value) ? String(value).length : 4;
    case "boolean":
      return value ? 4 : 5;
    case "object":
      if (value === null) return 4;
      if (depth > MAX_DEPTH || typeof (value as { toJSON?: unknown }).toJSON === "function") return viaStringify(value);
      if (Array.isArray(value)) return arrayLength(value, depth);
      if (!isPlainObject(value)) return viaStringify(value);
      return objectLength(value as Record<string, unknown>, depth);
    case "bigint":
      return viaStringify(value);
    default:
      return undefined;
  }
}

function arrayLength(values: unknown[], depth: number): number {
  let total = 2 + Math.max(0, values.length - 1);
  for (let i = 0; i < values.length; i++) total += lengthOf(values[i], depth + 1) ?? 4;
  return total;
}

function objectLength(value: Record<string, unknown>, depth: number): number {
  let total = 2;
  let members = 0;
  // for-in visits own string keys in the same order as JSON.stringify; plain objects inherit no enumerables.
  for (const key in value) {
    const member = lengthOf(value[key], depth + 1);
    if (member === undefined) continue;
    total += stringLength(key) + 1 + member;
    members++;
  }
  return total + Math.max(0, members - 1);
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function viaStringify(value: unknown): number | undefined {
  return JSON.stringify(value)?.length;
}

function stringLength(text: string): number {
  if (text.length < CACHE_MIN_LENGTH) return NEEDS_ESCAPE.test(text) ? JSON.stringify(text).length : text.length + 2;
  const cached = cache.get(text);
  if (cached) {
    cached.generation = generation;
    return cached.size;
  }
  const size = JSON.stringify(text).length;
  cache.set(text, { size, generation });
  return size;
}
