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

const fingerprints = new WeakMap<object, string>();
const sizes = new WeakMap<object, number>();

function fingerprint(message: any): string {
  if (typeof message !== "object" || message === null) return String(message);
  let known = fingerprints.get(message);
  if (known === undefined) {
    known = JSON.stringify(message) ?? "null";
    fingerprints.set(message, known);
  }
  return known;
}

/** Chars of one message as the render measures it (an image at a flat 6,400). */
export function messageChars(message: any): number {
  if (typeof message !== "object" || message === null) return 4;
  let known = sizes.get(message);
  if (known === undefined) {
    known = elementChars(message) + 1;
    sizes.set(message, known);
  }
  return known;
}

function same(a: any, b: any): boolean {
  return a === b || fingerprint(a) === fingerprint(b);
}

export class CacheSim {
  private previous: SimRequest | undefined;
  private previousChars = 0;

  constructor(private readonly ttlMs: number) {}

  step(request: SimRequest): CacheStep {
    let total = request.systemChars;
    for (const message of request.messages) total += messageChars(message);
    const previous = this.previous;
    const warm = previous !== undefined && request.time - previous.time <= this.ttlMs && request.time >= previous.time;
    let shared = 0;
    let extends_ = false;
    if (warm && previous.systemVersion === request.systemVersion) {
      shared = request.systemChars;
      const limit = Math.min(previous.messages.length, request.messages.length);
      let i = 0;
      while (i < limit && same(previous.messages[i], request.messages[i])) {
        shared += messageChars(request.messages[i]);
        i++;
      }
      extends_ = i === previous.messages.length;
    }
    const prefixBreak = warm && this.previousChars > 0 && !extends_;
    this.previous = request;
    this.previousChars = total;
    return { chars: total, cachedChars: shared, prefixBreak, cold: !warm };
  }
}
