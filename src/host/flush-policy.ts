/**
 * The cost policy at the host: what the prompt cache did (fed from assistant
 * messages, pi's cache-warming refreshes and, after a reload, the branch),
 * and the inputs of each flush decision gathered from the session. The
 * decision itself is `decideFlush` (economics/flush-decision.ts).
 */
import { argumentStubsOn } from "../arguments/fields.js";
import { isAssistant, isUser, loose, looseEntry } from "../capture/message-shape.js";
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { projectBranchMessages } from "../capture/batch-capture.js";
import { capturePendingBatches } from "../capture/pending-batches.js";
import { requestUsageOf } from "../economics/cache-tracker.js";
import { cardOf, type CostModel, costModelFor } from "../economics/cost-model.js";
import type { SightView } from "../forgetting/sight-text.js";
import type { FlushDecision, FlushMoment } from "../economics/flush-decision.js";
import type { DeferralKind } from "../economics/deferral-ledger.js";
import { usageFraction } from "../summarize/budget.js";
import { safeNotify } from "../summarize/delivery.js";
import { resolveModel } from "../summarize/summarizer.js";
import { archivedCopyOf } from "../capture/exact-duplicate.js";
import { occKey } from "../capture/occurrence-key.js";
import { isProtected } from "../capture/protected.js";
import { splitBatches, staleOutputsOf, summariesMode } from "../summarize/summary-choice.js";
import type { CapturedBatch, CapturedToolCall } from "../capture/records.js";
import { CUSTOM_TYPE_FLUSH_METRICS, QUERY_TOOL_NAME } from "../names.js";
import type { FlushDecisionRecord } from "../economics/flush-decision.js";
import type { ExtensionState } from "./extension-state.js";
import type { ArchivedCounts, PolicyView, TierView } from "../ui/policy-status.js";
import { chainItemKey, firstPendingIndex, pendingKeys } from "../policy/rewrite-figures.js";
import { type RequestSize, weighChains, weighFlushBatches } from "../policy/flush-weighing.js";
import { previewEligibleChains } from "../summarize/chain-pass.js";
import { resolveRange } from "../render/chain-range-prune.js";
import type { RewriteCacheRule } from "../economics/rewrite-economics.js";
import { queryToolDeclared } from "../archive/query-tool-exposure.js";
import { cacheRouteOf } from "../economics/cache-route.js";
import { processCacheEnv } from "../settings/cache-env.js";
import { archiveWrites } from "../sight/archive-writes.js";
import { sightOfWrite, sightOptions, type WriteSight } from "../sight/working-set.js";

/** With `pruneOn: "on-demand"` nothing flushes on its own, so the cost policy has nothing to decide. */
export function costPolicyActive(state: ExtensionState): boolean {
  const config = state.config.value;
  return config.enabled && config.flushPolicy === "cost" && config.pruneOn === "agent-message";
}

/** Why the cost policy decides nothing, in the user's words; undefined while it decides. */
export function costPolicyIdleReason(state: ExtensionState): string | undefined {
  const config = state.config.value;
  if (!config.enabled) return "pruning is off";
  if (config.pruneOn === "on-demand") return "tool outputs are summarized only on /pruner now";
  return undefined;
}

/** What `/pruner status` and `stats` show of live sight: the count read up to now, priced at the session model. */
export function sightView(state: ExtensionState, ctx: ExtensionContext): SightView {
  try {
    state.sight.update(ctx.sessionManager.getBranch());
  } catch (err) {
    console.error("pi-condense: counting recoveries failed", err);
  }
  let cost: CostModel | undefined;
  try {
    cost = mainCostModel(ctx);
  } catch {
    cost = undefined;
  }
  return state.sight.view(cost);
}

/** A main-model response: its time and usage tell the tracker whether the cache is warm. */
export function recordRequest(state: ExtensionState, message: unknown): void {
  if (!isAssistant(message)) return;
  const usage = requestUsageOf(message.usage, typeof message.timestamp === "number" ? message.timestamp : Date.now());
  if (usage) state.cache.record(usage);
}

/** A response's real input size anchors the token estimate on the request it answered; true when it did. */
export function calibrateTokens(state: ExtensionState, message: unknown): boolean {
  if (!isAssistant(message)) return false;
  const usage = requestUsageOf(message.usage, 0);
  return usage !== undefined && state.stats.calibrate(usage.input + usage.cacheRead + usage.cacheWrite);
}

/** The cache as the branch left it (every response's usage in order, pi's warming refreshes) and the last decision. */
export function rebuildPolicyState(state: ExtensionState, ctx: ExtensionContext): void {
  state.cache.reset();
  // A rebuild (start, reload, a move in the tree) starts the accounts afresh: a deferral it cuts in two is bounded as two.
  state.ledger.reset();
  state.policy.last = undefined;
  state.policy.coldFlushedFor = undefined;
  state.policy.told.clear();
  let branch: readonly unknown[];
  try {
    branch = ctx.sessionManager.getBranch();
  } catch {
    return;
  }
  for (const value of branch) {
    const entry = looseEntry(value);
    if (entry?.type === "message") recordRequest(state, entry.message);
    else if (entry?.type === "usage" && entry.kind === "cache_warm") state.cache.touch(Date.parse(String(entry.timestamp)));
    else if (entry?.type === "custom" && entry.customType === CUSTOM_TYPE_FLUSH_METRICS) state.policy.last = decisionOf(entry.data) ?? state.policy.last;
  }
}

/** A persisted decision read back for `/pruner status`; anything malformed is ignored. */
function decisionOf(data: unknown): FlushDecisionRecord | undefined {
  const d = loose(loose(data)?.decision);
  const verdict = d?.verdict;
  const basis = d?.basis;
  const reason = d?.reason;
  if (!d || (verdict !== "apply" && verdict !== "defer") || typeof basis !== "string" || typeof reason !== "string") return undefined;
  const cached = loose(d.cache)?.temperature;
  const temperature = cached === "warm" || cached === "cold" ? cached : "unknown";
  // The basis is shown as read; /pruner status names it, nothing branches on it.
  return { verdict, basis: basis as FlushDecisionRecord["basis"], reason: reason.slice(0, 500), cache: { temperature }, ...(d.nothingRewritten === true ? { nothingRewritten: true } : {}) };
}

/** pi's cache warming refreshes the cache while idle and records each refresh as a `cache_warm` usage entry. */
export function noteCacheWarming(state: ExtensionState, ctx: ExtensionContext): void {
  let branch: readonly unknown[];
  try {
    branch = ctx.sessionManager.getBranch();
  } catch {
    return;
  }
  for (let i = branch.length - 1; i >= 0; i--) {
    const entry = looseEntry(branch[i]);
    if (entry?.type === "message" && isAssistant(entry.message)) return;
    if (entry?.type === "usage" && entry.kind === "cache_warm") return state.cache.touch(Date.parse(String(entry.timestamp)));
  }
}

/** The rule the session's model caches by, and whether the spare breakpoint helps it (`cacheBreakpoint`, pruning on). */
export function rewriteCacheRule(state: ExtensionState, ctx: ExtensionContext): RewriteCacheRule {
  const config = state.config.value;
  const route = cacheRouteOf(ctx.model, processCacheEnv());
  return {
    rule: route.rule,
    breakpoint: config.enabled && config.cacheBreakpoint,
    ...(queryToolDeclared(state.pi) ? {} : { declaresTool: true, declaredToolTokens: queryToolTokens(state) }),
    retention: route.retention,
    ...(route.wire ? { wire: route.wire } : {}),
    ...(route.problem ? { problem: route.problem } : {}),
  };
}

/** The session model's prices and cache lifetime under its route's retention. */
export function mainCostModel(ctx: ExtensionContext) {
  return costModelFor(ctx.model, cacheRouteOf(ctx.model, processCacheEnv()));
}

export function cacheTtlMs(ctx: ExtensionContext): number {
  return mainCostModel(ctx).ttlMs;
}

/** Past `contextPressure`, or with the cache expired: a rewrite happens whatever it costs. */
export function rewriteForced(state: ExtensionState, ctx: ExtensionContext): boolean {
  const pressure = state.config.value.contextPressure;
  const fraction = usageFraction(safeContextUsage(ctx));
  if (pressure !== null && fraction !== null && fraction >= pressure) return true;
  const cache = state.cache.state(Date.now(), cacheTtlMs(ctx));
  return cache.temperature === "cold" && cache.requests > 0;
}

export interface WeighedFlush {
  decision: FlushDecision;
  batches: CapturedBatch[];
  /** The branch as messages, as the decision measured it (undefined when it could not be read). */
  messages: unknown[] | undefined;
}

/** At a moment the policy acts on: the deferral account a wait goes on, and whether it enters the waiting outputs. */
export interface WaitBound {
  kind: DeferralKind;
  enter: boolean;
  rentOnly?: boolean;
}

/**
 * The decision on flushing `batches` (default: every pending batch) at this moment; undefined when there
 * is nothing to flush. A fallback reason is told once per session.
 */
export function weighFlush(
  state: ExtensionState,
  ctx: ExtensionContext,
  moment: FlushMoment,
  opts: { closing?: unknown; select?: (batches: CapturedBatch[]) => CapturedBatch[]; quiet?: boolean; bound?: WaitBound } = {},
): WeighedFlush | undefined {
  const all = capturePendingBatches(state, ctx);
  const batches = opts.select ? opts.select(all) : all;
  if (batches.length === 0) return undefined;
  const messages = branchMessages(ctx);
  const main = mainCostModel(ctx);
  const decision = weighFlushBatches({
    moment,
    batches,
    messages,
    closing: opts.closing,
    ...systemTokens(state, ctx),
    minBatchChars: state.config.value.minBatchChars,
    stubArguments: argumentStubsOn(state.config.value),
    withoutSummary: messages ? withoutSummaryPredicate(state, messages, batches) : () => false,
    cache: state.cache.state(Date.now(), main.ttlMs),
    main,
    summarizer: summarizerCostModel(state, ctx),
    contextFraction: usageFraction(safeContextUsage(ctx)),
    pressure: state.config.value.contextPressure,
    promptsSoFar: messages ? messages.filter(isUser).length : 0,
    runRequests: messages ? requestsSinceLastPrompt(messages) : 0,
    cacheRule: rewriteCacheRule(state, ctx),
    ...requestSize(state, ctx),
    ...(opts.bound ? { bound: { ledger: state.ledger, ...opts.bound } } : {}),
    ...sightOf(state, ctx, messages, opts.closing),
  });
  if (!opts.quiet) noteDecision(state, ctx, decision);
  return { decision, batches, messages };
}

/** Whether a deferred item still waits: a chain not compressed yet, an output not archived yet. */
function stillWaiting(state: ExtensionState): (kind: DeferralKind, key: string) => boolean {
  const compressed = new Set(state.indexer.getChainEntries().map((entry) => chainItemKey(entry.startUserTimestamp)));
  return (kind, key) => (kind === "chains" ? !compressed.has(key) : !state.indexer.isSummarized(key));
}

/** What a write now would keep raw, let go and hide of the working set, read off the branch; nothing where the working set is off. */
function sightOf(state: ExtensionState, ctx: ExtensionContext, messages: unknown[] | undefined, closing: unknown): { sight?: (keys: readonly string[]) => WriteSight } {
  if (!messages) return {};
  let branch: readonly unknown[];
  try {
    branch = ctx.sessionManager.getBranch();
  } catch {
    return {};
  }
  const options = sightOptions(state.config.value, archiveWrites(branch));
  if (!options) return {};
  const seen = closing === undefined || messages.includes(closing) ? messages : [...messages, closing];
  const last = loose(seen[seen.length - 1])?.timestamp;
  const at = typeof last === "number" ? last : Date.now();
  return { sight: (keys) => sightOfWrite(seen, options, at, keys) };
}

/** One main request was answered: each open deferral pays what its work still waiting would have saved on it. */
export function chargeDeferrals(state: ExtensionState, message: unknown): void {
  if (!isAssistant(message) || !costPolicyActive(state)) return;
  state.ledger.charge(stillWaiting(state));
}

/**
 * The outputs a flush of `batches` would stub with no summarizer call: copies of archived ones
 * (flush-batches.ts `dedupBatches`) and those `summaries` archives without a summary (summary-choice.ts).
 */
function withoutSummaryPredicate(state: ExtensionState, messages: readonly unknown[], batches: CapturedBatch[]): (call: CapturedToolCall) => boolean {
  const config = state.config.value;
  const mode = summariesMode(config);
  const stale = staleOutputsOf(messages, mode, (toolName, args) => isProtected(toolName, args, config));
  const unsummarized = new Set<string>();
  for (const part of splitBatches(batches, mode, stale)) {
    for (const call of part.withoutSummary.toolCalls) unsummarized.add(occKey(call.toolCallId, call.resultTimestamp));
  }
  const dedup = config.dedupByContentHash;
  return (call) => unsummarized.has(occKey(call.toolCallId, call.resultTimestamp)) || (dedup && archivedCopyOf(state.indexer, call) !== undefined);
}

/**
 * Whether the closed chains past the window are compressed now (`weighChains`), beside the flush weighed with
 * them (`flushApplies`: made now, rewriting from its first pending output and stubbing those outputs; else
 * measured as the chain rewrite alone, which the waiting outputs would then join). The verdict is added to
 * the record.
 */
export function weighChainPass(state: ExtensionState, ctx: ExtensionContext, closing: unknown, weighed: WeighedFlush, flushApplies = true): boolean {
  const { messages } = weighed;
  if (!messages) return false;
  const ranges = previewEligibleChains(state, messages, closing).flatMap((chain) => resolveRange(chain, messages) ?? []);
  const pending = flushApplies ? pendingKeys(weighed.batches) : new Set<string>();
  const verdict = weighChains({
    messages,
    ranges,
    flushStart: flushApplies ? firstPendingIndex(messages, weighed.batches) : messages.length,
    stubbed: (key) => pending.has(key) || state.indexer.isSummarized(key),
    expectedRequests: weighed.decision.record.figures?.expectedRequests ?? 0,
    now: Date.now(),
    fused: state.config.value.chainCompression.fuseRangeSummary,
    main: mainCostModel(ctx),
    summarizer: summarizerCostModel(state, ctx),
    cacheRule: rewriteCacheRule(state, ctx),
    ledger: state.ledger,
    ...requestSize(state, ctx),
  });
  if (!verdict) return false;
  weighed.decision.record.chains = { verdict: verdict.apply ? "apply" : "defer", netSaving: verdict.netSaving };
  return verdict.apply;
}

/** The context as pi counts it (else the last request's input as the provider reported it) and its recent growth: the price tier. */
function requestSize(state: ExtensionState, ctx: ExtensionContext): { size?: RequestSize } {
  const counted = safeContextUsage(ctx)?.tokens;
  const contextTokens = typeof counted === "number" && Number.isFinite(counted) && counted > 0 ? counted : state.cache.lastInputTokens;
  return contextTokens === undefined ? {} : { size: { contextTokens, growthTokens: state.cache.growthTokens } };
}

/** The recovery tool's definition as the provider receives it, in tokens (0 when the host does not list it). */
function queryToolTokens(state: ExtensionState): number {
  try {
    const tool = state.pi.getAllTools().find((t) => t.name === QUERY_TOOL_NAME);
    return tool ? toolChars(tool) / 4 : 0;
  } catch {
    return 0;
  }
}

function toolChars(tool: { name: string; description?: string; parameters?: unknown }): number {
  return JSON.stringify({ name: tool.name, description: tool.description, parameters: tool.parameters }).length;
}

/** What leads every request, in tokens: the system prompt and the active tools' definitions (name, description, parameters). */
export function systemTokens(state: ExtensionState, ctx: ExtensionContext): { systemTokens?: number } {
  try {
    const active = new Set(state.pi.getActiveTools());
    let chars = ctx.getSystemPrompt().length;
    for (const tool of state.pi.getAllTools()) {
      if (active.has(tool.name)) chars += toolChars(tool);
    }
    return { systemTokens: chars / 4 };
  } catch {
    return {};
  }
}

function summarizerCostModel(state: ExtensionState, ctx: ExtensionContext) {
  let model: any;
  try {
    model = resolveModel(state.config.value, ctx);
  } catch {
    model = undefined;
  }
  return costModelFor(model ?? ctx.model);
}

function noteDecision(state: ExtensionState, ctx: ExtensionContext, decision: FlushDecision): void {
  state.policy.last = decision.record;
  if (decision.record.basis !== "fallback" || state.policy.told.has(decision.record.reason)) return;
  state.policy.told.add(decision.record.reason);
  safeNotify(ctx, `pruner: ${decision.record.reason}`, "info");
}

function requestsSinceLastPrompt(messages: readonly unknown[]): number {
  let requests = 0;
  for (let i = messages.length - 1; i >= 0 && !isUser(messages[i]); i--) if (isAssistant(messages[i])) requests++;
  return requests;
}

function branchMessages(ctx: ExtensionContext): unknown[] | undefined {
  try {
    return projectBranchMessages(ctx.sessionManager.getBranch());
  } catch {
    return undefined;
  }
}

function safeContextUsage(ctx: ExtensionContext): ReturnType<NonNullable<ExtensionContext["getContextUsage"]>> | undefined {
  try {
    return ctx.getContextUsage?.();
  } catch {
    return undefined;
  }
}

/** What `/pruner status` shows of the policy; never throws (a failed figure shows as missing). */
export function policyView(state: ExtensionState, ctx: ExtensionContext): PolicyView {
  const config = state.config.value;
  let pending: FlushDecisionRecord | undefined;
  try {
    pending = weighFlush(state, ctx, "final-reply", { quiet: true })?.decision.record;
  } catch {
    pending = undefined;
  }
  return {
    policy: config.flushPolicy,
    idleReason: costPolicyIdleReason(state),
    cache: state.cache.state(Date.now(), cacheTtlMs(ctx)),
    pending,
    last: state.policy.last,
    cacheRule: { ...rewriteCacheRule(state, ctx), ttlMs: cacheTtlMs(ctx) },
    summaries: summariesMode(config),
    archived: archivedCounts(state),
    waiting: waitingAccounts(state),
    ...tierView(state, ctx),
    warmingStopped: state.policy.warmingStopped,
  };
}

/**
 * The open deferrals whose work still waits. One whose work a command took (`/pruner compact`, `/pruner now`)
 * closes at the next request's charge; until then it is not shown, since nothing waits on it any more.
 */
function waitingAccounts(state: ExtensionState): PolicyView["waiting"] {
  const waiting = stillWaiting(state);
  return (["reply", "chains"] as const).flatMap((kind) => {
    const open = state.ledger.account(kind);
    if (!open || ![...open.items.keys()].some((key) => waiting(kind, key))) return [];
    return [{ kind, regret: open.regret, owed: open.owed }];
  });
}

/** The session model's price tiers and the context's size, for `/pruner status`; nothing for a model priced flat. */
function tierView(state: ExtensionState, ctx: ExtensionContext): { tiers?: TierView } {
  const main = mainCostModel(ctx);
  const card = cardOf(main);
  if (!main.priced || card.tiers.length === 0 || !(card.base.input > 0)) return {};
  const thresholds = card.tiers.map((tier) => ({ above: tier.inputTokensAbove, multiple: tier.prices.input / card.base.input }));
  return { tiers: { thresholds, contextTokens: requestSize(state, ctx).size?.contextTokens } };
}

/**
 * Archived outputs as the flush lines and `/pruner compact` count them: summarized when a summary message
 * covers the output, else archived without a summary (those a chain compression or a spill archived too).
 */
function archivedCounts(state: ExtensionState): ArchivedCounts {
  const counts: ArchivedCounts = { summarized: 0, withoutSummary: 0, stale: 0 };
  for (const [key, record] of state.indexer.getIndex()) {
    if (record.supersededBy !== undefined) counts.stale++;
    else if (state.indexer.hasPerBatchSummaryCoveringAny([key])) counts.summarized++;
    else counts.withoutSummary++;
  }
  return counts;
}
