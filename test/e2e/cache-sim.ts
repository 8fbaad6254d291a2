// Prompt-cache accounting for the loopback provider, the way Anthropic bills a request: the prefix an
// earlier request of the same session wrote (still alive) is read, the rest up to the request's last
// `cache_control` breakpoint is written, what follows the breakpoint is plain input. Tokens are chars / 4.
// Two readings of "the prefix an earlier request wrote": the reported one is the longest run of leading
// blocks equal to the previous request's (issue 17's model); the strict one follows Anthropic's documented
// lookup, where entries exist only at breakpoints and each breakpoint looks back at most 20 blocks.
// Pure apart from hashing: the clock is injected, so tests advance a virtual one.
import { createHash } from "node:crypto";

export interface CacheUsage {
  inputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** Within the TTL, the cached prefix is shorter than what the previous request had cached. */
  prefixBreak: boolean;
  /** The session had a cache entry but it expired before this request. */
  expired: boolean;
  /** The same request under Anthropic's breakpoint lookup (see `strictHit`). */
  strict: { cacheReadTokens: number; cacheWriteTokens: number };
}

export interface CacheSimOptions {
  ttlMs: number;
  now?: () => number;
}

interface Entry {
  blocks: string[];
  chars: number;
  at: number;
}

/** A clock a test moves by hand. */
export class VirtualClock {
  constructor(private t = 0) {}
  readonly now = (): number => this.t;
  advance(ms: number): void {
    this.t += ms;
  }
}

const tokens = (chars: number) => Math.round(chars / 4);

/** A request part without Anthropic's `cache_control` markers, which move between requests. */
export function stripCacheControl(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripCacheControl);
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (k !== "cache_control") out[k] = stripCacheControl(v);
    return out;
  }
  return value;
}

const hasBreakpoint = (block: unknown) => !!block && typeof block === "object" && "cache_control" in block;

/** Blocks Anthropic looks back from a breakpoint for an earlier entry. */
export const LOOKBACK_BLOCKS = 20;

/**
 * An Anthropic request body as the cache sees it: one string per cacheable unit (each tool, each
 * system block, each content block of each message, in that order), the block counts at which a
 * `cache_control` marker ends (`breakpoints`), and the last of them (`cacheable`, 0 when nothing is
 * marked: nothing is cached).
 */
export function cacheBlocks(body: any): { blocks: string[]; cacheable: number; breakpoints: number[] } {
  const blocks: string[] = [];
  const breakpoints: number[] = [];
  const push = (prefix: string, block: unknown) => {
    blocks.push(prefix + JSON.stringify(stripCacheControl(block)));
    if (hasBreakpoint(block)) breakpoints.push(blocks.length);
  };
  for (const tool of Array.isArray(body?.tools) ? body.tools : []) push("tool:", tool);
  const system = body?.system;
  if (typeof system === "string") push("system:", system);
  else if (Array.isArray(system)) for (const b of system) push("system:", b);
  (Array.isArray(body?.messages) ? body.messages : []).forEach((m: any, i: number) => {
    const content = typeof m?.content === "string" ? [{ type: "text", text: m.content }] : Array.isArray(m?.content) ? m.content : [];
    // The message index keeps two equal blocks of different messages apart.
    for (const b of content) push(`${i}:${m?.role}:`, b);
  });
  return { blocks, cacheable: breakpoints.at(-1) ?? 0, breakpoints };
}

/** `keys[q]` names the prefix of the first q blocks. */
function prefixKeys(blocks: string[], upTo: number): string[] {
  const keys = [""];
  for (let q = 1; q <= upTo; q++) keys.push(createHash("sha1").update(keys[q - 1]!).update("\u0000").update(blocks[q - 1]!).digest("hex"));
  return keys;
}

/**
 * Anthropic's lookup: each breakpoint checks its own prefix and the block boundaries up to
 * LOOKBACK_BLOCKS before it for a live entry; the longest hit is read. Entries are written at every
 * breakpoint; a hit refreshes its entry. `entries` maps a prefix key to the time it was last used.
 */
function strictHit(entries: Map<string, number>, keys: string[], breakpoints: number[], live: (at: number) => boolean): number {
  let hit = 0;
  for (const b of breakpoints) {
    for (let q = b; q >= Math.max(1, b - LOOKBACK_BLOCKS); q--) {
      const at = entries.get(keys[q]!);
      if (at !== undefined && live(at)) {
        hit = Math.max(hit, q);
        break;
      }
    }
  }
  return hit;
}

const charsOf = (blocks: string[]) => blocks.reduce((n, b) => n + b.length, 0);

function commonPrefix(a: string[], b: string[]): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/** One cache per session: the entry the last main request wrote, alive for `ttlMs` after it. */
export class PromptCacheSim {
  private readonly entries = new Map<string, Entry>();
  private readonly strictEntries = new Map<string, Map<string, number>>();
  private readonly now: () => number;

  constructor(private readonly options: CacheSimOptions) {
    this.now = options.now ?? Date.now;
  }

  get ttlMs(): number {
    return this.options.ttlMs;
  }

  /** Bill one main request of `session` and remember what it cached. */
  account(session: string, body: unknown): CacheUsage {
    const now = this.now();
    const { blocks, cacheable, breakpoints } = cacheBlocks(body);
    const totalChars = charsOf(blocks);
    const live = (at: number) => now >= at && now - at <= this.options.ttlMs;
    const previous = this.entries.get(session);
    const alive = previous !== undefined && live(previous.at);
    const hit = alive ? commonPrefix(previous.blocks, blocks.slice(0, cacheable)) : 0;
    const readChars = charsOf(blocks.slice(0, hit));
    const cachedChars = charsOf(blocks.slice(0, cacheable));
    if (cacheable > 0) this.entries.set(session, { blocks: blocks.slice(0, cacheable), chars: cachedChars, at: now });
    const strictRead = charsOf(blocks.slice(0, this.strictAccount(session, blocks, breakpoints, live, now)));
    return {
      // Differences of rounded totals: a read equals the previous request's read plus write, exactly.
      inputTokens: tokens(totalChars) - tokens(cachedChars),
      cacheReadTokens: tokens(readChars),
      cacheWriteTokens: tokens(cachedChars) - tokens(readChars),
      prefixBreak: alive && readChars < previous.chars,
      expired: previous !== undefined && !alive,
      strict: { cacheReadTokens: tokens(strictRead), cacheWriteTokens: tokens(cachedChars) - tokens(strictRead) },
    };
  }

  /** The strict hit in blocks; writes and refreshes the session's breakpoint entries, drops dead ones. */
  private strictAccount(session: string, blocks: string[], breakpoints: number[], live: (at: number) => boolean, now: number): number {
    const entries = this.strictEntries.get(session) ?? new Map<string, number>();
    this.strictEntries.set(session, entries);
    const keys = prefixKeys(blocks, breakpoints.at(-1) ?? 0);
    const hit = strictHit(entries, keys, breakpoints, live);
    for (const [key, at] of entries) if (!live(at)) entries.delete(key);
    if (hit > 0) entries.set(keys[hit]!, now);
    for (const b of breakpoints) entries.set(keys[b]!, now);
    return hit;
  }
}
