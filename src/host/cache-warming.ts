/**
 * pi's cache warming (`cacheWarming`, default "idle"): before each refresh of the last request's cache entry
 * pi asks `cache_warming_decision`, its own verdict filled in. Under the cost policy a refresh can be waste:
 * when pi-condense has archived outputs since that request (a flush at the final reply, a chain compressed),
 * the next request rewrites from the first of them, so it reads only the part of the refreshed prompt before
 * that point. Then pi's own rule (pi-ai's `evaluateCacheWarming`: a 15% chance of a next request while idle,
 * $0.05 at least) is asked again for that part alone, and its "stop" is the answer; otherwise pi decides.
 * Stopped, the cache expires and the cost policy's cold flush rewrites whatever is due for free.
 */
import { evaluateCacheWarming, type Api, type CacheWarmingPhase, type Model } from "@earendil-works/pi-ai";
import type { CacheWarmingDecisionEvent, CacheWarmingDecisionEventResult, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { contentBlocks, entryMessage, isAssistant, isToolCall, isToolResult, isUser, loose, looseEntry } from "../capture/message-shape.js";
import { projectBranchMessages } from "../capture/batch-capture.js";
import { occKey } from "../capture/occurrence-key.js";
import { parseAliasEntry, parseChainEntry, parseIndexEntry } from "../capture/persisted-entries.js";
import { requestChars } from "../render/message-size.js";
import { CUSTOM_TYPE_CHAIN, CUSTOM_TYPE_DEDUP_ALIAS, CUSTOM_TYPE_INDEX } from "../names.js";
import type { ExtensionState } from "./extension-state.js";
import { costPolicyActive, systemTokens } from "./flush-policy.js";

/** What the archive writes since the last request rewrite: outputs (occurrence keys, call ids) and chains (their prompt's time). */
interface Rewritten {
  keys: Set<string>;
  calls: Set<string>;
  chainStarts: Set<number>;
}

/** The archive writes after the branch's last assistant message; undefined when there are none. */
function rewrittenSinceLastRequest(branch: readonly unknown[]): Rewritten | undefined {
  const found: Rewritten = { keys: new Set(), calls: new Set(), chainStarts: new Set() };
  let any = false;
  for (let i = branch.length - 1; i >= 0; i--) {
    const entry = looseEntry(branch[i]);
    if (entry?.type === "message" && isAssistant(entryMessage(entry))) break;
    if (entry?.type !== "custom") continue;
    if (entry.customType === CUSTOM_TYPE_INDEX) {
      const parsed = parseIndexEntry(entry.data);
      if (!parsed.ok) continue;
      for (const record of parsed.value.toolCalls) {
        found.keys.add(occKey(record.toolCallId, record.resultTimestamp));
        found.calls.add(record.toolCallId);
      }
      any ||= parsed.value.toolCalls.length > 0;
    } else if (entry.customType === CUSTOM_TYPE_DEDUP_ALIAS) {
      const parsed = parseAliasEntry(entry.data);
      if (!parsed.ok) continue;
      found.keys.add(occKey(parsed.value.newToolCallId, parsed.value.newResultTimestamp));
      found.calls.add(parsed.value.newToolCallId);
      any = true;
    } else if (entry.customType === CUSTOM_TYPE_CHAIN) {
      const parsed = parseChainEntry(entry.data);
      if (!parsed.ok) continue;
      found.chainStarts.add(parsed.value.startUserTimestamp);
      any = true;
    }
  }
  return any ? found : undefined;
}

/** Where the next request first differs from the last one: the first message an archive write since then changes. */
function rewritePoint(messages: readonly unknown[], rewritten: Rewritten): number | undefined {
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i];
    if (isUser(message) && rewritten.chainStarts.has(Number(loose(message)?.timestamp))) return i;
    // A call whose arguments the rewrite stubs changes before its output.
    if (isAssistant(message) && contentBlocks(message).some((block) => isToolCall(block) && rewritten.calls.has(String(block.id)))) return i;
    if (isToolResult(message) && rewritten.keys.has(occKey(String(message.toolCallId), typeof message.timestamp === "number" ? message.timestamp : undefined))) return i;
  }
  return undefined;
}

/**
 * The tokens of the refreshed prompt the next request still reads (the system prompt and tools, and the
 * conversation before the rewrite point); undefined when the next request rewrites nothing of it.
 */
export function readableAfterRewrite(state: ExtensionState, ctx: ExtensionContext): number | undefined {
  let branch: readonly unknown[];
  try {
    branch = ctx.sessionManager.getBranch();
  } catch {
    return undefined;
  }
  const rewritten = rewrittenSinceLastRequest(branch);
  if (!rewritten) return undefined;
  const messages = projectBranchMessages(branch);
  const point = rewritePoint(messages, rewritten);
  if (point === undefined) return undefined;
  let chars = 0;
  for (let i = 0; i < point; i++) chars += requestChars(messages[i]);
  const overhead = state.stats.getLiveReclaim()?.overheadTokens ?? 0;
  return (systemTokens(state, ctx).systemTokens ?? 0) + chars / 4 + overhead;
}

function phaseOf(ctx: ExtensionContext): CacheWarmingPhase {
  try {
    return ctx.isIdle() ? "idle" : "streaming";
  } catch {
    return "idle";
  }
}

/** `cache_warming_decision`: "stop" when the next request rewrites what the refresh would keep warm; else pi decides. */
export function onCacheWarmingDecision(state: ExtensionState, ctx: ExtensionContext, event: CacheWarmingDecisionEvent): CacheWarmingDecisionEventResult | undefined {
  if (event.action !== "warm" || !costPolicyActive(state) || !ctx.model) return undefined;
  const readable = readableAfterRewrite(state, ctx);
  if (readable === undefined) return undefined;
  const verdict = evaluateCacheWarming(ctx.model as Model<Api>, Math.round(readable), phaseOf(ctx));
  if (verdict.action === "warm") return undefined;
  state.policy.warmingStopped += 1;
  return { action: "stop" };
}
