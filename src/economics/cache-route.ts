/**
 * The cache rule a model's requests are billed by, decided from the model as
 * pi-ai sends its requests (PRUNING.md "How prefix caching works", the
 * provider table): not the API name alone, but where pi-ai puts Anthropic-style
 * markers on the wire.
 *
 * - `anthropic-messages`: `cache_control` markers, Anthropic's breakpoint rule.
 * - `bedrock-converse-stream`: `cachePoint` blocks, the breakpoint rule, when
 *   pi-ai adds them (Claude models that support caching, or any model with
 *   `AWS_BEDROCK_FORCE_CACHE=1` when its id names no Claude model). A Claude
 *   model pi-ai adds none for is not cached at all. Other models: Bedrock's
 *   automatic prefix cache.
 * - `openai-completions` with `cacheControlFormat: "anthropic"` in the model's
 *   compat (OpenRouter's `anthropic/*` models are detected; any model may set it):
 *   `cache_control` on content parts, the breakpoint rule.
 * - every other known API: the longest shared prefix.
 *
 * pi's long retention (`PI_CACHE_RETENTION=long`; pi 1.6.0 passes no
 * `cacheRetention` of its own on main requests, so pi-ai reads that variable)
 * makes the breakpoint routes mark for one hour, where the route supports it.
 * Pure: the environment is passed in.
 */
import type { CacheEnv } from "../settings/cache-env.js";
import type { CacheRule, CacheRuleOptions } from "./prompt-cache.js";

/** The request format a breakpoint route's markers go in. */
export type MarkerWire = "anthropic" | "bedrock" | "openai";

export type CacheRetention = "short" | "long";

/** What of a model the route depends on (pi-ai's `Model`, or a session's recorded api/provider/id). */
export interface RouteModel {
  api?: unknown;
  provider?: unknown;
  id?: unknown;
  name?: unknown;
  baseUrl?: unknown;
  compat?: unknown;
}

export interface CacheRoute {
  api: string | undefined;
  rule: CacheRule;
  /** Where the markers go (breakpoint rule only). */
  wire?: MarkerWire;
  /** The lifetime pi-ai asks for: "long" only where the route honors it. */
  retention: CacheRetention;
  /** Shorter prefixes are not cached. */
  minTokens: number;
  /** Read sizes are whole multiples of this. */
  increment: number;
  /** Why the cost policy cannot price this route (unknown API, a route that caches nothing); undefined when it can. */
  problem?: string;
}

const KNOWN_APIS = new Set([
  "anthropic-messages",
  "bedrock-converse-stream",
  "openai-completions",
  "openai-responses",
  "azure-openai-responses",
  "openai-codex-responses",
  "mistral-conversations",
  "google-generative-ai",
  "google-vertex",
  "pi-messages",
]);

/** Hosts whose OpenAI-compatible API refuses long retention (pi-ai's compat detection). */
const NO_LONG_RETENTION = [
  ["together", "api.together."],
  ["cloudflare-workers-ai", "api.cloudflare.com"],
  ["cloudflare-ai-gateway", "gateway.ai.cloudflare.com"],
  ["nvidia", "integrate.api.nvidia.com"],
  ["ant-ling", "api.ant-ling.com"],
];

const text = (value: unknown): string => (typeof value === "string" ? value : "");

function compatOf(model: RouteModel): Record<string, unknown> {
  const compat = model.compat;
  return typeof compat === "object" && compat !== null ? (compat as Record<string, unknown>) : {};
}

/** Lower-case id and name, each also with spaces, dots, colons and underscores as dashes (as pi-ai matches them). */
function nameCandidates(model: RouteModel): string[] {
  return [text(model.id), text(model.name)]
    .filter((value) => value.length > 0)
    .flatMap((value) => {
      const lower = value.toLowerCase();
      return [lower, lower.replace(/[\s_.:]+/g, "-")];
    });
}

/** pi-ai's `supportsPromptCaching` for Bedrock: whether it adds `cachePoint` blocks. */
function bedrockCachePoints(model: RouteModel, env: CacheEnv): "yes" | "no" | "claude-without" {
  const names = nameCandidates(model);
  if (!names.some((s) => s.includes("claude"))) return env.AWS_BEDROCK_FORCE_CACHE === "1" ? "yes" : "no";
  const cached = names.some((s) => /fable-5|opus-5|sonnet-5|haiku-5|-4-|claude-3-7-sonnet|claude-3-5-haiku/.test(s));
  return cached ? "yes" : "claude-without";
}

/** pi-ai's `cacheControlFormat` for `openai-completions`: the model's compat, else OpenRouter's `anthropic/*` models. */
function completionsCacheControl(model: RouteModel): boolean {
  const declared = compatOf(model).cacheControlFormat;
  if (declared !== undefined && declared !== null) return declared === "anthropic";
  return model.provider === "openrouter" && text(model.id).startsWith("anthropic/");
}

function completionsLongRetention(model: RouteModel): boolean {
  const declared = compatOf(model).supportsLongCacheRetention;
  if (typeof declared === "boolean") return declared;
  const baseUrl = text(model.baseUrl);
  return !NO_LONG_RETENTION.some(([provider, host]) => model.provider === provider || baseUrl.includes(host!));
}

/**
 * The minimum cacheable prefix in tokens, from the providers' documentation: Anthropic by model (Opus 4.5
 * and later and Haiku 4.5: 4,096; Sonnet 4.6 and the Haiku 3 models: 2,048; the rest 1,024), on every
 * route, matched on the id and the name whatever their separators (`claude-sonnet-4-5`,
 * `anthropic/claude-haiku-4.5`, `us.anthropic.claude-opus-4-6-v1`); OpenAI and Google: 1,024.
 */
function anthropicMinimum(model: RouteModel): number {
  const names = nameCandidates(model).join(" ");
  if (/opus-4-(5|6|7)|haiku-4-5/.test(names)) return 4096;
  if (/sonnet-4-6|haiku-3|claude-3-5-haiku|claude-3-haiku/.test(names)) return 2048;
  return 1024;
}

function breakpoints(api: string, wire: MarkerWire, model: RouteModel, long: boolean): CacheRoute {
  return { api, rule: "anthropic-breakpoints", wire, retention: long ? "long" : "short", minTokens: anthropicMinimum(model), increment: 1 };
}

function longestPrefix(api: string | undefined, long: boolean, problem?: string): CacheRoute {
  const openai = api !== undefined && (api.startsWith("openai") || api.startsWith("azure-openai"));
  return { api, rule: "longest-prefix", retention: long ? "long" : "short", minTokens: 1024, increment: openai ? 128 : 1, ...(problem ? { problem } : {}) };
}

/** The route of a model's requests. Never throws: anything unreadable is an unknown API. */
export function cacheRouteOf(model: RouteModel | undefined, env: CacheEnv = {}): CacheRoute {
  const api = typeof model?.api === "string" ? model.api : undefined;
  const long = env.PI_CACHE_RETENTION === "long";
  if (!model || api === undefined) return longestPrefix(undefined, false, "the model names no API, so its cache rule is unknown");
  if (!KNOWN_APIS.has(api)) return longestPrefix(api, false, `the API ${api} is not one pi-condense knows the cache rule of`);
  if (api === "anthropic-messages") return breakpoints(api, "anthropic", model, long && compatOf(model).supportsLongCacheRetention !== false);
  if (api === "bedrock-converse-stream") {
    const points = bedrockCachePoints(model, env);
    if (points === "yes") return breakpoints(api, "bedrock", model, long);
    if (points === "claude-without") {
      const id = text(model.id) || "this model";
      return { api, rule: "uncached", retention: "short", minTokens: 0, increment: 1, problem: `pi-ai sends no cache points for ${id} on Bedrock, so nothing is cached` };
    }
  }
  if (api === "openai-completions" && completionsCacheControl(model)) return breakpoints(api, "openai", model, long && completionsLongRetention(model));
  return longestPrefix(api, long);
}

/** The rule's options for the prompt-cache model, at a given lifetime. */
export function cacheRuleOptions(route: CacheRoute, ttlMs: number): CacheRuleOptions {
  return { ttlMs, minTokens: route.minTokens, ...(route.increment > 1 ? { increment: route.increment } : {}) };
}

/** Anthropic bills a 1-hour cache write at twice the input price (a 5-minute one at 1.25x). */
export const LONG_WRITE_FACTOR = 2;

const WIRE_WORDS: Record<MarkerWire, string> = {
  anthropic: "(",
  bedrock: "on Bedrock (cachePoint blocks, ",
  openai: "through chat completions (cache_control on content parts, ",
};

/** The rule in the words `/pruner status` and `/pruner report` use. */
export function cacheRuleWords(rule: CacheRule, wire: MarkerWire | undefined): string {
  if (rule === "longest-prefix") return "longest shared prefix";
  if (rule === "uncached") return "none";
  return `Anthropic breakpoints ${WIRE_WORDS[wire ?? "anthropic"]}20-block lookback)`;
}

/**
 * What the rule means, for a reader who does not know the terms: how the provider finds what it has cached
 * and, on a breakpoint route, what pi-condense's spare breakpoint does (`spare`: it is on).
 */
export function cacheRuleMeaning(rule: CacheRule, spare?: boolean): string {
  if (rule === "uncached") return "the provider caches nothing here: every request is paid in full";
  if (rule === "longest-prefix") return "the provider reads from its cache the longest start a request shares with one it has seen";
  const marks = "the provider reads from its cache the start of a request up to a point pi marks in it, looking back at most 20 blocks, messages or parts of them, from each mark";
  if (spare === undefined) return marks;
  const extra = "pi leaves one of the four marks unused: the spare breakpoint puts it just before the first block pi-condense rewrites, so what comes before stays a cache read";
  return `${marks}; ${extra}${spare ? "" : ", and is off here"}`;
}

/** A breakpoint cache's retention in words: its lifetime, and what a write costs when long. */
export function retentionWords(retention: CacheRetention, ttlMs: number): string {
  const minutes = Math.round(ttlMs / 60_000);
  const lifetime = minutes >= 60 && minutes % 60 === 0 ? `${minutes / 60} h` : `${minutes} min`;
  if (retention === "short") return `short retention: entries live ${lifetime}`;
  return `long retention: entries live ${lifetime}, a write costs ${LONG_WRITE_FACTOR}x the input price`;
}
