/**
 * The flush at the agent's final reply, run so that the reply is never at
 * risk: pi writes a message to the session file only after every `message_end`
 * handler returned, so the handler never waits on the network. Work that needs
 * no I/O (an empty, trivial or deduplicated flush) completes within the handler
 * as before; a summarizer call continues in the background.
 *
 * Its results are written when the session can take them: at once when the
 * agent is idle, else at the next safe point: `agent_end`, `session_shutdown`,
 * or the next provider request's `context` hook, which waits for a flush still
 * running (both the reply and the new prompt are on disk by then) and adds the
 * summaries it wrote to that very request. Never inside the final reply's own
 * `turn_end`: pi refreshes the finished transcript there, and print mode prints
 * the transcript's last message, which must stay the reply.
 */
import { isCustom } from "../capture/message-shape.js";
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { ExtensionState } from "./extension-state.js";
import { flushPending } from "../summarize/flush.js";
import { projectBranchMessages } from "../capture/batch-capture.js";
import type { BackgroundFlush } from "./safe-points.js";
import { compressClosedChains } from "../summarize/chain-pass.js";
import type { CapturedBatch } from "../capture/records.js";
import { CUSTOM_TYPE_SUMMARY } from "../names.js";
import type { FlushDecisionRecord } from "../economics/flush-decision.js";
import type { FlushOptions } from "../summarize/flush-types.js";

/** How long a command or leaving the session waits for a running flush (abandoned ones stay pending). */
export const SETTLE_WAIT_MS = 15_000;

export async function startFinalReplyFlush(
  state: ExtensionState,
  ctx: ExtensionContext,
  closingMessage: unknown,
  policy: Pick<FlushOptions, "decision" | "chains"> = {},
): Promise<void> {
  await startBackgroundFlush(state, (signal) =>
    flushPending(state, ctx, {
      ...policy,
      delivery: "session",
      closingMessage,
      trigger: "message-end",
      signal,
      beforePersist: () => state.safePoints.wait(ctx),
    }),
  );
}

/**
 * The cost policy's flush once the prompt cache expired (idle, or before the next request): the pending
 * `batches` it weighed and closed chains, written at the next safe point like the final-reply flush.
 */
export async function startColdFlush(state: ExtensionState, ctx: ExtensionContext, decision: FlushDecisionRecord, batches: CapturedBatch[]): Promise<void> {
  await startBackgroundFlush(state, async (signal) => {
    const beforePersist = () => state.safePoints.wait(ctx);
    const result = await flushPending(state, ctx, { delivery: "session", trigger: "cache-cold", decision, signal, beforePersist, previewedBatches: batches });
    if (!result.ok && result.reason === "empty" && !signal.aborted) {
      await beforePersist();
      await compressClosedChains(state, ctx, signal);
    }
  });
}

async function startBackgroundFlush(state: ExtensionState, run: (signal: AbortSignal) => Promise<unknown>): Promise<void> {
  const abort = new AbortController();
  const done = run(abort.signal).catch((err) => console.error("pi-condense: background flush failed", err));
  const flush: BackgroundFlush = { done, abort, requestWaited: false };
  state.finalReplyFlush = flush;
  void done.then(() => {
    if (state.finalReplyFlush === flush) state.finalReplyFlush = undefined;
  });
  await Promise.race([done, nextEventLoopTurn().promise]);
}

/** Settles after the current tick's microtasks: a flush still pending then is waiting on I/O. */
function nextEventLoopTurn(): { promise: Promise<void>; cancel(): void } {
  return { promise: new Promise((resolve) => setImmediate(resolve)), cancel: () => {} };
}

/**
 * Before a provider request: a final-reply flush still running writes now, and the summary messages it
 * appended are returned so the request carries them as the session now does.
 */
export async function settleBeforeRequest(state: ExtensionState, ctx: ExtensionContext, waitMs = SETTLE_WAIT_MS): Promise<unknown[]> {
  const flush = state.finalReplyFlush;
  if (!flush) return [];
  const before = branchLength(ctx);
  // The first request waits (bounded); later ones only let a flush that is ready write, so a slow
  // summarizer never delays every request of a run.
  const wait = flush.requestWaited ? nextEventLoopTurn() : timeoutAfter(waitMs);
  flush.requestWaited = true;
  await state.safePoints.holdOpen(Promise.race([flush.done, wait.promise]));
  wait.cancel();
  return before === undefined ? [] : appendedSummaries(ctx, before);
}

function timeoutAfter(ms: number): { promise: Promise<void>; cancel(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const promise = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  return { promise, cancel: () => clearTimeout(timer) };
}

function branchLength(ctx: ExtensionContext): number | undefined {
  try {
    return ctx.sessionManager.getBranch().length;
  } catch {
    return undefined;
  }
}

function appendedSummaries(ctx: ExtensionContext, from: number): unknown[] {
  try {
    return projectBranchMessages(ctx.sessionManager.getBranch().slice(from)).filter((m) => isCustom(m) && m.customType === CUSTOM_TYPE_SUMMARY);
  } catch {
    return [];
  }
}

/**
 * Lets a running final-reply flush write now (the moment is safe: a command, leaving the session, leaving
 * the branch), waiting at most `waitMs`; with `abandon`, whatever is still running then is aborted and its
 * batches stay pending for a later flush.
 */
export async function settleRunningFlush(state: ExtensionState, opts: { waitMs?: number; abandon: boolean }): Promise<void> {
  const flush = state.finalReplyFlush;
  if (!flush) return;
  const timeout = timeoutAfter(opts.waitMs ?? SETTLE_WAIT_MS);
  await state.safePoints.holdOpen(Promise.race([flush.done, timeout.promise]));
  timeout.cancel();
  if (!opts.abandon) return;
  flush.abort.abort();
  await flush.done;
}

/** Leaving the session: every moment is safe from now on; a running flush gets a bounded chance to write. */
export async function settleOnShutdown(state: ExtensionState, waitMs = SETTLE_WAIT_MS): Promise<void> {
  state.safePoints.leave();
  await settleRunningFlush(state, { waitMs, abandon: true });
}
