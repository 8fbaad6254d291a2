// Prompt-cache accounting for the loopback provider, through the pricing model pi-condense itself uses
// (src/economics/prompt-cache.ts), one rule per wire format. Tokens are chars / 4.
// - Anthropic requests (`anthropic-breakpoints`): entries only at `cache_control` breakpoints, each
//   breakpoint looking back at most 20 blocks, the model's minimum cacheable prefix, refresh on hit.
//   These are the figures the fake streams. The second figure, `prefix`, is issue 17's reading: the
//   longest run of leading blocks equal to the previous request's, up to the last breakpoint, no minimum.
// - OpenAI chat completions (`longest-prefix`): every request cached whole, the longest live shared
//   prefix read from 1,024 tokens up in steps of 128, the rest billed as plain input.
// - OpenAI chat completions carrying `cache_control` markers (the OpenRouter shape: an Anthropic model behind
//   an OpenAI-compatible API, pi-ai's `cacheControlFormat: "anthropic"`): the breakpoint rule over the blocks
//   that Anthropic model hashes (src/economics/openai-payload.ts), streamed as `cached_tokens` and
//   `cache_write_tokens` inside `prompt_tokens`, as OpenRouter reports them.
// Pure apart from hashing: the clock is injected, so tests advance a virtual one.
import { createHash } from "node:crypto";
import { type CacheRoute, cacheRouteOf, cacheRuleOptions } from "../../src/economics/cache-route.js";
import type { FloorRequest } from "../../src/economics/cost-floor.js";
import { scanOpenAiPayload } from "../../src/economics/openai-payload.js";
import { createPromptCache, type CacheBlock, type CacheRule, type PromptCache } from "../../src/economics/prompt-cache.js";

export interface CacheFigures {
  /** Billed at the input price. */
  inputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

export interface CacheUsage extends CacheFigures {
  /** The rule these figures follow (the one of the request's wire format). */
  rule: CacheRule;
  /** Within the lifetime of a cache entry, less was read than the previous request had cached. */
  prefixBreak: boolean;
  /** The session had cache entries but all had expired before this request. */
  expired: boolean;
  /** Anthropic requests only: the same request under the prefix reading (issue 17's model). */
  prefix?: CacheFigures;
}

export interface CacheSimOptions {
  ttlMs: number;
  now?: () => number;
  /**
   * The catalog model each fake model id stands for, whose documented minimum cacheable prefix applies
   * (`cacheRuleOptions`); an id not listed is looked up as itself.
   */
  modelIds?: Record<string, string>;
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

/** An OpenAI chat-completions body as the prefix cache sees it: each tool, then each message whole. */
export function openAiCacheBlocks(body: any): string[] {
  const tools = (Array.isArray(body?.tools) ? body.tools : []).map((t: unknown) => `tool:${JSON.stringify(t)}`);
  const messages = (Array.isArray(body?.messages) ? body.messages : []).map((m: unknown, i: number) => `${i}:${JSON.stringify(m)}`);
  return [...tools, ...messages];
}

const digest = (block: string) => createHash("sha1").update(block).digest("hex");

const charsOf = (blocks: string[]) => blocks.reduce((n, b) => n + b.length, 0);

function commonPrefix(a: string[], b: string[]): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/**
 * A request as the limit reads it (src/economics/cost-floor.ts): the blocks `account` bills under `rule`,
 * Anthropic's markers in place, and how many of them lead with the tools and the system prompt (on the
 * OpenAI wire a first message of role system or developer).
 */
export function floorBlocks(body: any, rule: CacheRule): Omit<FloorRequest, "outputTokens"> {
  const block = (b: string, breakpoint: boolean): CacheBlock => ({ key: digest(b), tokens: b.length / 4, breakpoint });
  if (rule === "longest-prefix") {
    const role = Array.isArray(body?.messages) ? body.messages[0]?.role : undefined;
    const tools = Array.isArray(body?.tools) ? body.tools.length : 0;
    return { blocks: openAiCacheBlocks(body).map((b) => block(b, false)), fixedBlocks: tools + (role === "system" || role === "developer" ? 1 : 0) };
  }
  const { blocks, breakpoints } = cacheBlocks(body);
  const marks = new Set(breakpoints);
  const fixedBlocks = blocks.filter((b) => b.startsWith("tool:") || b.startsWith("system:")).length;
  return { blocks: blocks.map((b, i) => block(b, marks.has(i + 1))), fixedBlocks };
}

/** Whole-token figures from a bill over chars / 4 blocks: differences of rounded totals, so a read equals the earlier read plus write exactly. */
function roundedFigures(read: number, cached: number, total: number): CacheFigures {
  return { inputTokens: Math.round(total) - Math.round(cached), cacheReadTokens: Math.round(read), cacheWriteTokens: Math.round(cached) - Math.round(read) };
}

/** Issue 17's reading: the blocks the previous request cached, up to the last breakpoint (`blocks`), and when. */
interface PrefixEntry {
  blocks: string[];
  at: number;
}

/** One cache per session (and per model for summarizer calls, which the caller keys apart). */
export class PromptCacheSim {
  private readonly caches = new Map<string, PromptCache>();
  private readonly prefixEntries = new Map<string, PrefixEntry>();
  private readonly now: () => number;

  constructor(private readonly options: CacheSimOptions) {
    this.now = options.now ?? Date.now;
  }

  get ttlMs(): number {
    return this.options.ttlMs;
  }

  private cacheFor(session: string, route: CacheRoute): PromptCache {
    const key = `${route.api}\u0000${route.rule}\u0000${session}`;
    let cache = this.caches.get(key);
    if (!cache) {
      cache = createPromptCache(route.rule, cacheRuleOptions(route, this.options.ttlMs));
      this.caches.set(key, cache);
    }
    return cache;
  }

  /**
   * The route a request is billed by: its wire format, and on the OpenAI wire whether the body carries
   * `cache_control` markers (the Anthropic model behind an OpenRouter-style API caches only at markers).
   */
  private routeOf(body: any, api: string): CacheRoute {
    const model = String(body?.model ?? "");
    const id = this.options.modelIds?.[model] ?? model;
    const marked = api === "openai-completions" && (scanOpenAiPayload(body, digest)?.markers ?? 0) > 0;
    return cacheRouteOf({ api, id, ...(marked ? { compat: { cacheControlFormat: "anthropic" } } : {}) });
  }

  /** Bill one request of `session` under the rule of its wire format and remember what it cached. */
  account(session: string, body: any, api: string = "anthropic-messages"): CacheUsage {
    const at = this.now();
    const route = this.routeOf(body, api);
    const cache = this.cacheFor(session, route);
    if (route.wire === "openai") return this.accountMarkedCompletions(cache, body, at);
    if (cache.rule === "longest-prefix") {
      const blocks = openAiCacheBlocks(body);
      const bill = cache.bill({ at, blocks: blocks.map((b) => ({ key: digest(b), tokens: b.length / 4, breakpoint: false })) });
      const total = Math.round(charsOf(blocks) / 4);
      // OpenAI bills no write: what is not read is plain input.
      return { rule: cache.rule, inputTokens: total - bill.cacheRead, cacheReadTokens: bill.cacheRead, cacheWriteTokens: 0, prefixBreak: bill.prefixBreak, expired: bill.expired };
    }
    const { blocks, cacheable, breakpoints } = cacheBlocks(body);
    const marks = new Set(breakpoints);
    const request: CacheBlock[] = blocks.map((b, i) => ({ key: digest(b), tokens: b.length / 4, breakpoint: marks.has(i + 1) }));
    const bill = cache.bill({ at, blocks: request });
    const total = charsOf(blocks) / 4;
    const figures = roundedFigures(bill.cacheRead, bill.cacheRead + bill.cacheWrite, total);
    return { rule: cache.rule, ...figures, prefixBreak: bill.prefixBreak, expired: bill.expired, prefix: this.prefixReading(session, blocks, cacheable, at) };
  }

  /** A chat-completions request with `cache_control` markers, billed by the breakpoint rule over its Anthropic blocks. */
  private accountMarkedCompletions(cache: PromptCache, body: any, at: number): CacheUsage {
    const scan = scanOpenAiPayload(body, digest)!;
    const bill = cache.bill({ at, blocks: scan.blocks.map((b) => ({ key: b.key, tokens: b.tokens, breakpoint: b.marked })) });
    const total = scan.blocks.reduce((n, b) => n + b.tokens, 0);
    return { rule: cache.rule, ...roundedFigures(bill.cacheRead, bill.cacheRead + bill.cacheWrite, total), prefixBreak: bill.prefixBreak, expired: bill.expired };
  }

  /** Issue 17's reading of an Anthropic request: the longest run of leading blocks equal to the previous request's. */
  private prefixReading(session: string, blocks: string[], cacheable: number, at: number): CacheFigures {
    const previous = this.prefixEntries.get(session);
    const alive = previous !== undefined && at >= previous.at && at - previous.at <= this.options.ttlMs;
    const hit = alive ? commonPrefix(previous.blocks, blocks.slice(0, cacheable)) : 0;
    if (cacheable > 0) this.prefixEntries.set(session, { blocks: blocks.slice(0, cacheable), at });
    const read = charsOf(blocks.slice(0, hit));
    const cached = charsOf(blocks.slice(0, cacheable));
    return { inputTokens: tokens(charsOf(blocks)) - tokens(cached), cacheReadTokens: tokens(read), cacheWriteTokens: tokens(cached) - tokens(read) };
  }
}
