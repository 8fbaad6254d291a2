/**
 * The provider's prompt cache, simulated over a sequence of requests: a
 * request reads from the cache the longest prefix it shares with the previous
 * request, if that one was sent less than the TTL ago, and writes the rest.
 * A prefix break is a warm request that does not extend the previous one
 * (something already cached was rewritten). Sizes are chars (the caller
 * turns them into tokens once the chars-per-token ratio is calibrated). Pure.
 */
import { elementChars } from "../render/message-size.js";

export interface CacheStep {
  /** Input chars of the request (system prompt included). */
  chars: number;
  /** Of which read from the cache; the rest is written. */
  cachedChars: number;
  prefixBreak: boolean;
  /** The previous request's cache had expired (or there was none). */
  cold: boolean;
}

export interface SimRequest {
  time: number;
  messages: any[];
  systemChars: number;
  systemVersion: number;
}

const sizes = new WeakMap<object, number>();

/** Chars of one message as the render measures it (an image at a flat 6,400), plus its separating comma. */
export function messageChars(message: any): number {
  if (typeof message !== "object" || message === null) return 4;
  let known = sizes.get(message);
  if (known === undefined) {
    known = elementChars(message) + 1;
    sizes.set(message, known);
  }
  return known;
}

/** Structural equality of two JSON-like values; identical references short-cut at every level. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    if (a.length !== other.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameValue(a[i], other[i])) return false;
    return true;
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  // for-in rather than Object.keys: this runs for every rebuilt stub of every request, without allocating.
  let count = 0;
  for (const key in left) {
    if (!Object.hasOwn(right, key) || !sameValue(left[key], right[key])) return false;
    count++;
  }
  for (const _key in right) count--;
  return count === 0;
}

/**
 * A render builds its stubs afresh every time. Replacing each message equal to the one at the same
 * position in the previous render by that earlier object keeps identities stable from request to
 * request, so the cache comparison and the size memo work by reference.
 */
export class StableMessages {
  private previous: any[] = [];

  stable(messages: any[]): any[] {
    const previous = this.previous;
    let out = messages;
    const limit = Math.min(previous.length, messages.length);
    for (let i = 0; i < limit; i++) {
      const message = messages[i];
      if (message === previous[i] || !sameValue(message, previous[i])) continue;
      if (out === messages) out = messages.slice();
      out[i] = previous[i];
    }
    this.previous = out;
    return out;
  }
}

export class CacheSim {
  private previous: SimRequest | undefined;
  /** `cumulative[i]`: chars of the previous request's first i messages (system prompt excluded). */
  private cumulative: number[] = [0];

  constructor(private readonly ttlMs: number) {}

  step(request: SimRequest): CacheStep {
    const previous = this.previous;
    const messages = request.messages;
    let i = 0;
    if (previous !== undefined) {
      const limit = Math.min(previous.messages.length, messages.length);
      while (i < limit && (messages[i] === previous.messages[i] || sameValue(messages[i], previous.messages[i]))) i++;
    }
    const matched = i;
    const cumulative = this.cumulative;
    cumulative.length = matched + 1;
    for (; i < messages.length; i++) cumulative.push(cumulative[i]! + messageChars(messages[i]));
    const total = request.systemChars + cumulative[messages.length]!;
    const warm = previous !== undefined && request.time - previous.time <= this.ttlMs && request.time >= previous.time;
    const sameSystem = previous !== undefined && previous.systemVersion === request.systemVersion;
    const shared = warm && sameSystem ? request.systemChars + cumulative[matched]! : 0;
    const extendsPrevious = sameSystem && previous !== undefined && matched === previous.messages.length;
    this.previous = request;
    return { chars: total, cachedChars: shared, prefixBreak: warm && !extendsPrevious, cold: !warm };
  }
}
