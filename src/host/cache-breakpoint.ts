/**
 * The spare breakpoint at the host (doc/configuration.md "The spare cache
 * breakpoint"): pi's `before_provider_request` hands over the request body
 * pi-ai built; on a route billed by Anthropic's breakpoint rule (Anthropic's
 * API, Claude on Bedrock, an OpenRouter-style chat completion with
 * `cache_control`), with fewer than four markers, one more goes where
 * `spareMarkerIndex` says it reads more of the cache, in that wire's form
 * (`PayloadCodec`). Each session and model keeps the previous request's block
 * keys and a model of the breakpoint cache billed with every request let
 * through, markers as sent.
 */
import { createHash } from "node:crypto";
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { anthropicCodec } from "../economics/anthropic-payload.js";
import { bedrockCodec } from "../economics/bedrock-payload.js";
import type { CacheTracker } from "../economics/cache-tracker.js";
import type { MarkerWire } from "../economics/cache-route.js";
import { costModelFor } from "../economics/cost-model.js";
import { openAiCodec } from "../economics/openai-payload.js";
import type { PayloadCodec, PayloadScan } from "../economics/payload-scan.js";
import { type CacheBlock, MAX_BREAKPOINTS, type PromptCache, createPromptCache } from "../economics/prompt-cache.js";
import { spareMarkerIndex } from "../economics/spare-breakpoint.js";
import { parseOccKey } from "../capture/occurrence-key.js";
import type { CapturedBatch } from "../capture/records.js";
import type { ContextPruneConfig } from "../settings/config-shape.js";
import { cacheRouteOf } from "../economics/cache-route.js";
import { processCacheEnv } from "../settings/cache-env.js";

const CODECS: Record<MarkerWire, PayloadCodec> = { anthropic: anthropicCodec, bedrock: bedrockCodec, openai: openAiCodec };
/** Sessions and models remembered at once; the oldest is dropped first. */
const MAX_REMEMBERED = 8;

/** What the handler reads of the extension state. */
export interface BreakpointState {
  config: { value: ContextPruneConfig };
  /** Usage the provider reported: a provider that never reports cache use gets no marker. */
  cache: CacheTracker;
  breakpoint: SpareBreakpoint;
  /** Batches captured and not yet summarized: where the next rewrite will start. */
  pending: readonly CapturedBatch[];
  /** Occurrence keys of kept outputs the next archive write lets go: that rewrite starts at them. */
  releasable?: ReadonlySet<string>;
  /** The first tool call id of the chain the chain pass compresses next, if any: a rewrite ahead too. */
  nextChainStart?: () => string | undefined;
}

export interface RequestFacts {
  sessionId: string;
  /** The request's wire format: how its body is read and marked. */
  codec: PayloadCodec;
  /** The model's minimum cacheable prefix in tokens. */
  minTokens: number;
  ttlMs: number;
  /** Requests were answered, and none reported a cache read or write. */
  cacheUnused: boolean;
  /** Tool call ids (as pi-ai writes them on this wire) of the outputs waiting to be summarized. */
  pending?: ReadonlySet<string>;
  /** The tool call id of the first output of the chain compressed next; asked only when a marker may go there. */
  chainStart?: () => string | undefined;
}

interface Remembered {
  keys: string[];
  cache: PromptCache;
}

const sha1 = (text: string): string => createHash("sha1").update(text).digest("base64");

export class SpareBreakpoint {
  private readonly remembered = new Map<string, Remembered>();

  constructor(private readonly now: () => number = Date.now) {}

  forget(): void {
    this.remembered.clear();
  }

  /** The body with the spare marker, or undefined to send it as it is. Never throws. */
  place(payload: unknown, facts: RequestFacts): unknown {
    let modelId: string | undefined;
    let scan: PayloadScan | undefined;
    try {
      modelId = facts.codec.modelOf(payload);
      scan = modelId === undefined ? undefined : facts.codec.scan(payload, sha1);
    } catch {
      return undefined;
    }
    if (!scan) return undefined;
    const name = `${facts.sessionId}\u0000${modelId}`;
    const previous = this.remembered.get(name);
    const memory = previous ?? { keys: [], cache: createPromptCache("anthropic-breakpoints", { ttlMs: facts.ttlMs, minTokens: facts.minTokens }) };
    const at = this.now();
    const blocks: CacheBlock[] = scan.blocks.map((b) => ({ key: b.key, tokens: b.tokens, breakpoint: b.marked }));
    const index = previous && !facts.cacheUnused ? spareIndex(scan, blocks, memory, at, facts) : undefined;
    let result: unknown;
    if (index !== undefined) {
      result = facts.codec.withMarker(payload, scan.blocks[index]!.place, structuredClone(scan.cacheControl));
      blocks[index] = { ...blocks[index]!, breakpoint: true };
    }
    memory.cache.bill({ at, blocks });
    memory.keys = blocks.map((b) => b.key);
    this.remember(name, memory);
    return result;
  }

  private remember(name: string, memory: Remembered): void {
    this.remembered.delete(name);
    this.remembered.set(name, memory);
    if (this.remembered.size > MAX_REMEMBERED) this.remembered.delete(this.remembered.keys().next().value!);
  }
}

/** In doubt (no marker: caching off; four; markers that differ; a marked thinking block) there is none. */
function spareIndex(scan: PayloadScan, blocks: CacheBlock[], memory: Remembered, at: number, facts: RequestFacts): number | undefined {
  if (scan.markers === 0 || scan.markers >= MAX_BREAKPOINTS || scan.markedThinking || scan.cacheControl === undefined) return undefined;
  const index = spareMarkerIndex({
    keys: blocks.map((b) => b.key),
    marked: scan.blocks.map((b) => b.marked),
    eligible: scan.blocks.map((b) => b.eligible),
    previousKeys: memory.keys,
    bestEntry: memory.cache.bestEntry?.({ at, blocks }) ?? 0,
    toolUseIds: scan.blocks.map((b) => b.toolUseId),
    messageOf: scan.blocks.map((b) => (b.place.section === "messages" ? b.place.message : undefined)),
    pending: () => facts.pending ?? new Set(),
    chainStart: () => {
      const id = facts.chainStart?.();
      return id === undefined ? undefined : facts.codec.toolUseId(id);
    },
  });
  return index !== undefined && scan.blocks[index]?.eligible ? index : undefined;
}

function pendingToolUseIds(batches: readonly CapturedBatch[], releasable: ReadonlySet<string>, codec: PayloadCodec): Set<string> {
  const ids = new Set<string>();
  for (const key of releasable) ids.add(codec.toolUseId(parseOccKey(key).toolCallId));
  for (const batch of batches) for (const call of batch.toolCalls) if (typeof call.toolCallId === "string") ids.add(codec.toolUseId(call.toolCallId));
  return ids;
}

/** `before_provider_request`: only while pruning and the setting are on, only on a breakpoint route. */
export function onBeforeProviderRequest(state: BreakpointState, ctx: ExtensionContext, event: { payload?: unknown }): unknown {
  const config = state.config.value;
  if (!config.enabled || !config.cacheBreakpoint) {
    state.breakpoint.forget();
    return undefined;
  }
  const route = cacheRouteOf(ctx.model, processCacheEnv());
  if (route.wire === undefined) return undefined;
  let sessionId: unknown;
  try {
    sessionId = ctx.sessionManager.getSessionId();
  } catch {
    return undefined;
  }
  if (typeof sessionId !== "string") return undefined;
  const codec = CODECS[route.wire];
  return state.breakpoint.place(event?.payload, {
    sessionId,
    codec,
    minTokens: route.minTokens,
    ttlMs: costModelFor(ctx.model, route).ttlMs,
    cacheUnused: state.cache.requests > 0 && !state.cache.reportsCacheUse,
    pending: pendingToolUseIds(state.pending, state.releasable ?? new Set(), codec),
    ...(state.nextChainStart ? { chainStart: state.nextChainStart } : {}),
  });
}
