// Prompt-cache accounting for the loopback provider, the way Anthropic bills a request: the prefix an
// earlier request of the same session wrote (still alive) is read, the rest up to the request's last
// `cache_control` breakpoint is written, what follows the breakpoint is plain input. Tokens are chars / 4.
// Pure: the clock is injected, so tests advance a virtual one.

export interface CacheUsage {
  inputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** Within the TTL, the cached prefix is shorter than what the previous request had cached. */
  prefixBreak: boolean;
  /** The session had a cache entry but it expired before this request. */
  expired: boolean;
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

function stripCacheControl(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripCacheControl);
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (k !== "cache_control") out[k] = stripCacheControl(v);
    return out;
  }
  return value;
}

const hasBreakpoint = (block: unknown) => !!block && typeof block === "object" && "cache_control" in block;

/**
 * An Anthropic request body as the cache sees it: one string per cacheable unit (each tool, each
 * system block, each content block of each message, in that order), and the count of units up to
 * and including the last one marked `cache_control` (0 when nothing is marked: nothing is cached).
 */
export function cacheBlocks(body: any): { blocks: string[]; cacheable: number } {
  const blocks: string[] = [];
  let cacheable = 0;
  const push = (prefix: string, block: unknown) => {
    blocks.push(prefix + JSON.stringify(stripCacheControl(block)));
    if (hasBreakpoint(block)) cacheable = blocks.length;
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
  return { blocks, cacheable };
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
    const { blocks, cacheable } = cacheBlocks(body);
    const totalChars = charsOf(blocks);
    const previous = this.entries.get(session);
    const alive = previous !== undefined && now >= previous.at && now - previous.at <= this.options.ttlMs;
    const hit = alive ? commonPrefix(previous.blocks, blocks.slice(0, cacheable)) : 0;
    const readChars = charsOf(blocks.slice(0, hit));
    const cachedChars = charsOf(blocks.slice(0, cacheable));
    if (cacheable > 0) this.entries.set(session, { blocks: blocks.slice(0, cacheable), chars: cachedChars, at: now });
    return {
      inputTokens: tokens(totalChars - cachedChars),
      cacheReadTokens: tokens(readChars),
      cacheWriteTokens: tokens(cachedChars - readChars),
      prefixBreak: alive && readChars < previous.chars,
      expired: previous !== undefined && !alive,
    };
  }
}
