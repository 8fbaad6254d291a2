/**
 * What the prompt cache did, from the usage pi records for each main-model
 * request (assistant messages, and pi's own cache-warming refreshes): when the
 * cache was last touched and how much of the recent requests it served. The
 * cache is warm while less than its lifetime has passed since then. Pure apart
 * from the state it keeps.
 */

export interface RequestUsage {
  /** Milliseconds since the epoch. */
  at: number;
  input: number;
  cacheRead: number;
  cacheWrite: number;
}

export type CacheTemperature = "warm" | "cold" | "unknown";

export interface CacheState {
  temperature: CacheTemperature;
  /** Why the temperature is unknown, or cold before the cache's lifetime ran out, in plain words. */
  reason?: string;
  lastRequestAt?: number;
  /** Milliseconds until the cache entry expires (warm only). */
  expiresInMs?: number;
  /** Share of the last request's prompt read from the cache, 0..1. */
  lastHitRate?: number;
  /** Share over the recent requests, 0..1. */
  recentHitRate?: number;
  /** Main-model requests seen in this session branch. */
  requests: number;
}

const RECENT = 5;
/** More than this many tokens in one request is not a usage figure to trust. */
const ABSURD_TOKENS = 100_000_000;

function plausible(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 && value < ABSURD_TOKENS;
}

/** A usage record from an assistant message or a usage entry, or undefined when its figures are not usable. */
export function requestUsageOf(usage: unknown, at: unknown): RequestUsage | undefined {
  const u = usage as { input?: unknown; cacheRead?: unknown; cacheWrite?: unknown } | null | undefined;
  if (typeof at !== "number" || !Number.isFinite(at)) return undefined;
  if (!plausible(u?.input) || !plausible(u?.cacheRead) || !plausible(u?.cacheWrite)) return undefined;
  return { at, input: u.input, cacheRead: u.cacheRead, cacheWrite: u.cacheWrite };
}

function hitRate(requests: RequestUsage[]): number | undefined {
  let read = 0;
  let total = 0;
  for (const r of requests) {
    read += r.cacheRead;
    total += r.input + r.cacheRead + r.cacheWrite;
  }
  return total > 0 ? read / total : undefined;
}

export class CacheTracker {
  private recent: RequestUsage[] = [];
  private count = 0;
  /** True once any request reported cache figures; a provider that never does leaves the cache unknown. */
  private cacheReported = false;
  /** Something the provider keys its cache on changed (the model, the thinking level): cold until the next request. */
  private evicted = false;

  record(usage: RequestUsage): void {
    this.evicted = false;
    this.count++;
    if (usage.cacheRead > 0 || usage.cacheWrite > 0) this.cacheReported = true;
    this.recent.push(usage);
    if (this.recent.length > RECENT) this.recent.shift();
  }

  /** The next request finds nothing cached, whatever the clock says. */
  invalidate(): void {
    if (this.recent.length > 0) this.evicted = true;
  }

  /** pi refreshed the cache without a real request: it stays warm from then on. */
  touch(at: number): void {
    const last = this.recent[this.recent.length - 1];
    if (last && Number.isFinite(at) && at > last.at) this.recent[this.recent.length - 1] = { ...last, at };
  }

  reset(): void {
    this.recent = [];
    this.count = 0;
    this.cacheReported = false;
    this.evicted = false;
  }

  get requests(): number {
    return this.count;
  }

  /** Some request reported cache reads or writes. */
  get reportsCacheUse(): boolean {
    return this.cacheReported;
  }

  /** The last request's whole input (fresh, read and written), in tokens; undefined before one. */
  get lastInputTokens(): number | undefined {
    const last = this.recent[this.recent.length - 1];
    return last ? last.input + last.cacheRead + last.cacheWrite : undefined;
  }

  /** What a request added to the next of late, in tokens: the mean growth of the recent requests that grew. */
  get growthTokens(): number {
    let grown = 0;
    let count = 0;
    for (let i = 1; i < this.recent.length; i++) {
      const before = this.recent[i - 1]!;
      const after = this.recent[i]!;
      const growth = after.input + after.cacheRead + after.cacheWrite - (before.input + before.cacheRead + before.cacheWrite);
      if (growth > 0) {
        grown += growth;
        count++;
      }
    }
    return count === 0 ? 0 : grown / count;
  }

  state(now: number, ttlMs: number): CacheState {
    const last = this.recent[this.recent.length - 1];
    const base = { requests: this.count, lastRequestAt: last?.at, lastHitRate: last ? hitRate([last]) : undefined, recentHitRate: hitRate(this.recent) };
    if (!last) return { ...base, temperature: "cold" };
    if (this.evicted) return { ...base, temperature: "cold", reason: "the model, thinking level or context changed since the last request" };
    if (!this.cacheReported) return { ...base, temperature: "unknown", reason: "the provider reports no cache use" };
    if (now < last.at) return { ...base, temperature: "unknown", reason: "the clock went backwards" };
    const left = last.at + ttlMs - now;
    return left > 0 ? { ...base, temperature: "warm", expiresInMs: left } : { ...base, temperature: "cold" };
  }
}
