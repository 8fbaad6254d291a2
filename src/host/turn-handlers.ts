/**
 * turn_end / message_end / agent_end / context handlers: capture, the
 * budget gate, the final-reply flush, the status nudge, the image cap and
 * the render.
 */
import { contentBlocks, entryMessage, isAssistant, isToolCall, loose } from "../capture/message-shape.js";
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { captureBatch } from "../capture/batch-capture.js";
import { shouldBudgetFlush, shouldDeltaFlush, shouldFrontierGapFlush, usageFraction } from "../summarize/budget.js";
import { safeNotify, sessionAppenderOf } from "../summarize/delivery.js";
import type { ExtensionState } from "./extension-state.js";
import { settleBeforeRequest, settleOnShutdown, settleRunningFlush, startFinalReplyFlush } from "./final-reply-flush.js";
import { flushPending, recordDeferredFlush } from "../summarize/flush.js";
import { clearCacheExpiry, flushIfCacheCold, scheduleCacheExpiry } from "./cache-expiry.js";
import { calibrateTokens, chargeDeferrals, costPolicyActive, recordRequest, rewriteForced, weighChainPass, weighFlush } from "./flush-policy.js";
import { inRunCandidates } from "../policy/flush-weighing.js";
import type { SightChange } from "../forgetting/sight-state.js";
import { CUSTOM_TYPE_SIGHT } from "../names.js";
import { isTextOnlyAssistant } from "../capture/message-shape.js";
import { trimBatchToPendingRange } from "../capture/pending-batches.js";
import { isProtected } from "../capture/protected.js";
import { isRecoveryTool } from "../capture/recovery-call.js";
import { plural } from "../format/plural.js";
import { capImages, imageLimitFor } from "../render/image-cap.js";
import { requestSizesOf, workingSetOf } from "../render/pruner.js";
import { renderRequest } from "./request-render.js";
import { spillOversizedBatch } from "../capture/spill.js";
import { declareQueryTool } from "../archive/query-tool-exposure.js";
import { refreshStatus, showPending, showStatusText } from "../ui/status-refresh.js";
import type { CapturedBatch } from "../capture/records.js";
import type { FlushDecisionRecord } from "../economics/flush-decision.js";

/** pi's `turn_end` event as read here: each field is checked before use. */
interface TurnEndLike {
  message?: unknown;
  toolResults?: unknown[];
  turnIndex?: number;
}

export async function onTurnEnd(state: ExtensionState, ctx: ExtensionContext, event: TurnEndLike): Promise<void> {
  if (!state.config.value.enabled) return;
  if (costPolicyActive(state)) judgeSight(state, ctx, event.message);
  const hasToolResults = Array.isArray(event.toolResults) && event.toolResults.length > 0;
  if (!hasToolResults && !state.rearmedPending) return;
  let pushed = false;
  if (hasToolResults) {
    pushed = await captureTurn(state, ctx, event);
  }
  if (!pushed && !state.rearmedPending) return;
  if (await evaluateBudgetGate(state, ctx)) return;
  if (costPolicyActive(state)) await weighInRunFlush(state, ctx, event.message);
}

/**
 * Cost policy: within a run, older finished outputs are summarized once that pays (or the context is full),
 * or once waiting for them has cost what summarizing owed; so are an earlier prompt's waiting outputs once
 * the extra reads alone have paid what summarizing them owed (their dearer rewrite is weighed at the reply).
 */
async function weighInRunFlush(state: ExtensionState, ctx: ExtensionContext, message: unknown): Promise<void> {
  if (state.isFlushing || state.finalReplyFlush) return;
  const current = sessionTurnIndex(ctx, message);
  if (current === undefined) return;
  const forced = rewriteForced(state, ctx);
  const extra = state.sight.extraTurns();
  let weighed = weighFlush(state, ctx, "in-run", { select: (batches) => inRunCandidates(batches, current, forced, extra) });
  let older = forced;
  if (!weighed?.decision.apply && !forced && state.ledger.account("reply")) {
    const all = weighFlush(state, ctx, "in-run", { select: (batches) => inRunCandidates(batches, current, true, extra), bound: { kind: "reply", enter: false, rentOnly: true }, quiet: true });
    if (all?.decision.apply) [weighed, older] = [all, true];
  }
  if (!weighed?.decision.apply) return;
  if (extra > 0 && state.sight.narrowingDue()) {
    // The rewrite happens anyway, from the same first output: the narrow window's outputs go with it.
    const narrow = weighFlush(state, ctx, "in-run", { select: (batches) => inRunCandidates(batches, current, older), quiet: true });
    if (narrow?.decision.apply) {
      weighed = narrow;
      applySightChange(ctx, state.sight.narrowInRewrite());
    }
  }
  const { basis } = weighed.decision.record;
  const trigger = basis === "pressure" ? "pressure" : basis === "cold" ? "cache-cold" : "in-run";
  const flushed = new Set(weighed.batches.map((b) => b.turnIndex));
  // The flush empties the queue; the latest turns it leaves raw stay queued (the footer counts them).
  const waiting = state.pending.filter((b) => !flushed.has(b.turnIndex));
  // A flush that merely pays within a run leaves the chains; one the bound makes weighs them too, in the same rewrite.
  const chains = basis === "bound" ? weighChainPass(state, ctx, undefined, weighed) : basis !== "pays";
  await flushPending(state, ctx, {
    delivery: "session",
    trigger,
    previewedBatches: weighed.batches,
    decision: weighed.decision.record,
    chains,
  });
  state.pending.push(...waiting.filter((b) => !state.pending.includes(b)));
}

/** Live sight reads the turn that just ended; the raw window widens or narrows as its rate says. */
function judgeSight(state: ExtensionState, ctx: ExtensionContext, message: unknown): void {
  try {
    state.sight.update(ctx.sessionManager.getBranch());
    const pendingTurns = state.pending.map((batch) => batch.turnIndex);
    applySightChange(ctx, state.sight.judge(pendingTurns, () => sessionTurnIndex(ctx, message)));
  } catch (err) {
    console.error("pi-condense: counting recoveries failed", err);
  }
}

/** A change of the raw window is persisted (a reload keeps it) and told once. */
function applySightChange(ctx: ExtensionContext, change: SightChange | undefined): void {
  if (!change) return;
  try {
    sessionAppenderOf(ctx).appendCustomEntry(CUSTOM_TYPE_SIGHT, change.entry);
  } catch (err) {
    console.error("pi-condense: recording the raw window failed; it holds until a reload", err);
  }
  safeNotify(ctx, change.notice, "info");
}

async function captureTurn(state: ExtensionState, ctx: ExtensionContext, event: TurnEndLike): Promise<boolean> {
  const config = state.config.value;
  const turnIndex = sessionTurnIndex(ctx, event.message) ?? event.turnIndex ?? 0;
  const batch = captureBatch(event.message, event.toolResults ?? [], turnIndex, Date.now());
  const filtered: CapturedBatch = {
    ...batch,
    // A recovery is never summarized or spilled: what it shows is archived already.
    toolCalls: batch.toolCalls.filter((tc) => !isRecoveryTool(tc.toolName) && !isProtected(tc.toolName, tc.args, config)),
  };
  await spillEagerly(state, ctx, filtered);
  // A spilled output is stubbed on the next request: the model is offered the tool that gives it back.
  declareQueryTool(state.pi, state.indexer.getIndex().size > 0);
  const kept = trimBatchToPendingRange(filtered, (key) => state.indexer.isSummarized(key), state.frontier.get());
  if (!kept) return false;
  state.pending.push(kept);
  // The footer says it; a notice after every tool turn was noise.
  showPending(state, ctx);
  return true;
}

/**
 * pi 1.6.0 restarts `turnIndex` at 0 for every prompt, while the frontier and
 * the branch rescan number assistant turns across the whole session. The live
 * batch takes its session-wide position from the branch (the assistant is
 * already persisted at turn_end); undefined when it cannot be located.
 */
function sessionTurnIndex(ctx: ExtensionContext, message: unknown): number | undefined {
  if (!message) return undefined;
  let branch: readonly unknown[];
  try {
    branch = ctx.sessionManager.getBranch();
  } catch {
    return undefined;
  }
  const time = loose(message)?.timestamp;
  let assistants = 0;
  let found: number | undefined;
  for (const entry of branch) {
    const m = entryMessage(entry);
    if (!isAssistant(m)) continue;
    if (m === message || (m.timestamp === time && m.timestamp !== undefined)) found = assistants;
    assistants++;
  }
  return found;
}

/** Best effort: an oversized result that cannot be spilled simply stays inline (a refused write is told once). */
async function spillEagerly(state: ExtensionState, ctx: ExtensionContext, batch: CapturedBatch): Promise<void> {
  const config = state.config.value;
  try {
    const sm = ctx.sessionManager;
    const session = sessionAppenderOf(ctx);
    await spillOversizedBatch({
      batch,
      indexer: state.indexer,
      config: {
        spillThreshold: config.spillThreshold,
        spillPreviewBytes: config.spillPreviewBytes,
        dedupByContentHash: config.dedupByContentHash,
      },
      sessionDir: sm.getSessionDir(),
      sessionId: sm.getSessionId(),
      appendEntry: (customType, data) => session.appendCustomEntry(customType, data),
      files: state.files,
      onWriteFailed: (error) => state.writeFaults.report(error, (message) => safeNotify(ctx, message, "warning")),
    });
  } catch {
    // Swallowed on purpose: spilling is an optimization, never a reason to lose a turn.
  }
}

/** True when a budget trigger fired (and flushed). */
async function evaluateBudgetGate(state: ExtensionState, ctx: ExtensionContext): Promise<boolean> {
  const config = state.config.value;
  const usage = ctx.getContextUsage?.();
  const budgetHit = shouldBudgetFlush(usage, config.autoBudgetThreshold);
  const deltaHit = shouldDeltaFlush(usage, state.previousFraction, config.budgetTurnDelta);
  const fraction = usageFraction(usage);
  if (fraction != null) state.previousFraction = fraction;

  const n = state.pending.length;
  if (!(n > 0 || state.rearmedPending) || state.isFlushing) return false;
  const gapHit = !budgetHit && !deltaHit && frontierGapHit(state, ctx);
  if (!(budgetHit || deltaHit || gapHit)) return false;
  const reason = budgetHit
    ? "the context reached your auto-flush budget"
    : deltaHit
      ? "the context grew past your per-turn limit"
      : "tool output not yet summarized passed your threshold";
  const what = n > 0 ? `summarizing ${plural(n, "waiting tool turn")} now` : "summarizing tool output found after the reload";
  safeNotify(ctx, `pruner: ${reason} \u2014 ${what}`, "info");
  const trigger = n === 0 ? "rearmed" : budgetHit ? "budget" : deltaHit ? "delta" : "frontier-gap";
  await flushPending(state, ctx, { delivery: "session", trigger });
  return true;
}

/** A fresh snapshot, only when the threshold is set: the default costs nothing, and no snapshot means no flush. */
function frontierGapHit(state: ExtensionState, ctx: ExtensionContext): boolean {
  const threshold = state.config.value.frontierGapThresholdTokens;
  return typeof threshold === "number" && shouldFrontierGapFlush(state.metricsSnapshot(ctx), threshold);
}

function noteSystemPrompt(state: ExtensionState, ctx: ExtensionContext): void {
  try {
    state.stats.noteSystemPrompt(ctx.getSystemPrompt().length);
  } catch {
    // A host without a system prompt to read leaves the estimate at the messages alone.
  }
}

export async function onMessageEnd(state: ExtensionState, ctx: ExtensionContext, event: { message?: unknown }): Promise<void> {
  // Before anything mints a ref: a raw id shaped like one (`t6`) is never handed out as a ref.
  if (isAssistant(event.message)) state.indexer.noteCallIds(contentBlocks(event.message).filter(isToolCall).map((block) => block.id));
  recordRequest(state, event.message);
  chargeDeferrals(state, event.message);
  if (calibrateTokens(state, event.message)) refreshStatus(state, ctx);
  const config = state.config.value;
  if (!config.enabled || config.pruneOn !== "agent-message") return;
  if (!isTextOnlyAssistant(event.message)) return;
  if (!costPolicyActive(state)) return startFinalReplyFlush(state, ctx, event.message);
  const weighed = weighFlush(state, ctx, "final-reply", { closing: event.message, bound: { kind: "reply", enter: true } });
  if (!weighed || weighed.decision.apply) {
    // A rewrite that only pays compresses chains only when that pays too: its rewrite reaches further back.
    const basis = weighed?.decision.record.basis;
    const chains = (basis !== "pays" && basis !== "bound") || weighChainPass(state, ctx, event.message, weighed!);
    return startFinalReplyFlush(state, ctx, event.message, { decision: weighed?.decision.record, chains });
  }
  // The classic policy would compress the chains past the window now too: they are weighed on their own, and
  // when they compress, the waiting outputs go in the same rewrite (it starts before them, so they cost nothing more).
  if (weighChainPass(state, ctx, event.message, weighed, false)) {
    return startFinalReplyFlush(state, ctx, event.message, { decision: ridingOnChains(weighed.decision.record), chains: true });
  }
  // Written at the next safe point: the reply goes to the session file first.
  const deferred = weighed;
  void state.safePoints
    .wait(ctx)
    .then(() => recordDeferredFlush(state, ctx, "message-end", deferred.batches.length, deferred.decision.record))
    .catch(() => undefined);
}

function ridingOnChains(record: FlushDecisionRecord): FlushDecisionRecord {
  const reason = "compressing the earlier prompts' work is due, and the waiting outputs go in the same rewrite at no extra cost";
  return { ...record, verdict: "apply", basis: record.chains?.netSaving !== undefined && record.chains.netSaving > 0 ? "pays" : "bound", reason };
}

export async function onSessionShutdown(state: ExtensionState): Promise<void> {
  clearCacheExpiry(state);
  await settleOnShutdown(state);
}

/** Before `/tree` moves the leaf: a running flush writes on the branch its batches belong to, or is abandoned. */
export async function onSessionBeforeTree(state: ExtensionState): Promise<void> {
  await settleRunningFlush(state, { abandon: true });
}

export function onAgentEnd(state: ExtensionState, ctx: ExtensionContext): void {
  state.safePoints.reached();
  if (!state.config.value.enabled) return;
  scheduleCacheExpiry(state, ctx);
  if (state.pending.length > 0) showPending(state, ctx);
  else if (state.rearmedPending) showStatusText(state, ctx, "prune: recovered pending (reload)");
}

/**
 * The image cap runs first and whether or not pruning is on: it keeps the
 * request acceptable to the provider, which is not an economy the user can
 * turn off. A failing render still sends the capped request.
 */
export async function onContext<M>(
  state: ExtensionState,
  ctx: ExtensionContext,
  event: { messages: M[] },
): Promise<{ messages: M[] } | undefined> {
  const config = state.config.value;
  const limit = imageLimitFor(config.maxImagesPerRequest, ctx.model?.api);
  const capped = limit === null ? undefined : capImages(event.messages, limit);
  if (!config.enabled) return capped ? { messages: capped } : undefined;
  if (!capped) return render(state, ctx, event.messages);
  try {
    return (await render(state, ctx, capped)) ?? { messages: capped };
  } catch (err) {
    console.error("pi-condense: context render failed; sending the image-capped request unpruned", err);
    return { messages: capped };
  }
}

/**
 * Before pi prepares a prompt's first request: rewrites due now (a final-reply flush still running, a
 * cache that expired meanwhile) are written first, so the request that carries their stubs is also the
 * one that declares the recovery tool, and the model is never shown a stub naming a tool it lacks.
 */
export async function onBeforeAgentStart(state: ExtensionState, ctx: ExtensionContext): Promise<void> {
  if (!state.config.value.enabled) return;
  await flushIfCacheCold(state, ctx);
  await settleBeforeRequest(state, ctx);
  declareQueryTool(state.pi, state.indexer.getIndex().size > 0);
}

/** The pruning render; undefined when it changes nothing, so the provider cache keeps hitting. */
/** `M`: pi's messages; the summaries a settling flush appended are pi's custom messages too. */
async function render<M>(state: ExtensionState, ctx: ExtensionContext, input: M[]): Promise<{ messages: M[] } | undefined> {
  await flushIfCacheCold(state, ctx);
  const written = await settleBeforeRequest(state, ctx);
  // Outputs archived by a capture or a flush that did not pass through a flush commit (spills, reloads).
  declareQueryTool(state.pi, state.indexer.getIndex().size > 0);
  const messages = written.length > 0 ? [...input, ...written] : input;
  state.renderedBranch = messages;
  const result = renderRequest(state, messages, ctx.sessionManager.getBranch());
  state.releasable = workingSetOf(result.messages)?.releasable ?? state.releasable;
  const shown = requestSizesOf(result);
  noteSystemPrompt(state, ctx);
  state.stats.noteSentRequest(shown?.afterChars);
  if (shown) state.stats.setLiveReclaim(shown.beforeChars, shown.afterChars);
  refreshStatus(state, ctx);
  return result.pruned || messages !== input ? { messages: result.messages } : undefined;
}

