/**
 * The pruning render of a request, shared by the `context` hook and by the
 * footer's figure after a flush or a chain compression: both measure what the
 * provider receives with the same render, so the footer shows the request the
 * next call will send instead of the one before the write. After a rebuild it
 * also renders the request the last response answered, to anchor the footer's
 * token estimate again (`calibrateFromBranch`).
 */
import { argumentStubsOn } from "../arguments/fields.js";
import { isAssistant, looseEntry } from "../capture/message-shape.js";
import { argumentHorizon } from "../arguments/horizon.js";
import { archiveWrites } from "../sight/archive-writes.js";
import { sightOptions } from "../sight/working-set.js";
import type { SessionEntry } from "@earendil-works/pi-coding-agent";
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { buildSessionContext } from "@earendil-works/pi-coding-agent";
import { projectBranchMessages } from "../capture/batch-capture.js";
import { ToolCallIndexer } from "../archive/indexer.js";
import { requestUsageOf } from "../economics/cache-tracker.js";
import { protectionPredicate } from "../capture/protected.js";
import { pruneMessages, requestSizesOf, type PruneResult } from "../render/pruner.js";
import { jsonArrayLength } from "../render/json-size.js";
import { requestChars } from "../render/message-size.js";
import { isOnBranch } from "../summarize/chain-pass.js";
import type { FlushState } from "../summarize/flush-state.js";

type RenderState = Pick<FlushState, "config" | "indexer" | "diagnostics" | "supersede">;

/**
 * `branch`: the session branch the messages come from (its last archive write sets the argument horizon).
 * `quiet`: a measuring pass reports no diagnostics and leaves the supersede state as it is, so the
 * request that follows reports and activates exactly what it would have without it.
 */
export function renderRequest(state: RenderState, messages: unknown[], branch: readonly unknown[], quiet = false, closing?: unknown): PruneResult {
  const config = state.config.value;
  const supersede = quiet ? { floor: state.supersede.floor, activated: new Set(state.supersede.activated) } : state.supersede;
  const miss = quiet ? undefined : (key: string, detail: string) => state.diagnostics.reportArchiveMiss(key, detail);
  return pruneMessages(
    messages,
    state.indexer,
    config.chainCompression,
    config.purgeErrors,
    config,
    config.recoveryGraceTurns,
    quiet ? undefined : state.diagnostics,
    { state: supersede, isProtected: protectionPredicate(state) },
    state.indexer.archiveCheck(miss),
    argumentStubsOn(config),
    argumentHorizon(branch),
    // A final reply not yet on the branch ends the run its flush archived, as it will once pi writes it.
    sightOptions(config, archiveWrites(closing === undefined ? branch : [...branch, { type: "message", message: closing }])),
  );
}

/** The messages of the next request as pi builds them from the branch (pi's compactions applied), closing reply included. */
function nextRequestMessages(branch: SessionEntry[], closingMessage: unknown): unknown[] {
  const messages = branchMessages(branch);
  return closingMessage && !isOnBranch(messages, closingMessage) ? [...messages, closingMessage] : messages;
}

function branchMessages(branch: SessionEntry[]): unknown[] {
  const leaf = looseEntry(branch[branch.length - 1]);
  if (typeof leaf?.id === "string") {
    try {
      return buildSessionContext(branch, leaf.id).messages;
    } catch {
      // An entry pi's projection cannot read: measure the branch as it stands.
    }
  }
  return projectBranchMessages(branch);
}

/**
 * Records the live reclaim of the request the branch renders to now and returns the characters of its
 * pruned messages; a failure leaves the last figure and returns undefined.
 */
export function measureNextRequest(state: RenderState & Pick<FlushState, "stats">, ctx: ExtensionContext, closingMessage?: unknown): number | undefined {
  let result: PruneResult;
  try {
    const branch = ctx.sessionManager.getBranch();
    result = renderRequest(state, nextRequestMessages(branch, closingMessage), branch, true, closingMessage);
  } catch (err) {
    console.error("pi-condense: measuring the next request failed", err);
    return undefined;
  }
  const shown = requestSizesOf(result);
  if (shown) state.stats.setLiveReclaim(shown.beforeChars, shown.afterChars);
  // A render that changed nothing sends the messages as they are.
  return shown ? shown.afterChars : requestSize(result.messages);
}

/** The messages' size as the provider receives them (the footer's view). */
function requestSize(messages: readonly unknown[]): number {
  let chars = 0;
  for (const message of messages) chars += requestChars(message);
  return jsonArrayLength(chars, messages.length);
}

/** The next request sent pruned and unpruned, in the footer's view of characters, and the part both begin with. */
export interface RequestBothWays {
  rawChars: number;
  prunedChars: number;
  /** The leading messages the pruned request leaves as they are: what a provider's cache holds for both. */
  sharedChars: number;
}

/** Undefined when the render fails or changes nothing (then turning pruning on or off changes nothing either). */
export function measureBothWays(state: RenderState, ctx: ExtensionContext): RequestBothWays | undefined {
  try {
    const branch = ctx.sessionManager.getBranch();
    const messages = nextRequestMessages(branch, undefined);
    const result = renderRequest(state, messages, branch, true);
    const sizes = requestSizesOf(result);
    if (!result.pruned || !sizes) return undefined;
    let first = 0;
    while (first < messages.length && result.messages[first] === messages[first]) first++;
    return { rawChars: sizes.beforeChars, prunedChars: sizes.afterChars, sharedChars: requestSize(messages.slice(0, first)) };
  } catch (err) {
    console.error("pi-condense: measuring the next request both ways failed", err);
    return undefined;
  }
}

type CalibrationState = RenderState & Pick<FlushState, "stats">;

/**
 * Responses looked at, newest first, for one whose request was rewritten: each costs a render, and a
 * request left as it was is rare once anything is archived.
 */
const MAX_RESPONSES = 3;

function recordedTokens(value: unknown): number | undefined {
  const entry = looseEntry(value);
  const message = entry?.type === "message" ? entry.message : undefined;
  if (!isAssistant(message)) return undefined;
  const usage = requestUsageOf(message.usage, 0);
  const total = usage ? usage.input + usage.cacheRead + usage.cacheWrite : 0;
  return total > 0 ? total : undefined;
}

interface AnsweredRequest {
  /** Whether anything was archived when it was sent. */
  archived: boolean;
  /** Its pruned size; undefined when its render changed nothing. */
  chars?: number;
}

/** The request answered at branch position `at`: the entries before it, rendered on the archive they held. */
function answeredRequest(state: CalibrationState, branch: SessionEntry[], at: number): AnsweredRequest {
  const before = branch.slice(0, at);
  // The full rebuild already reported every unreadable entry of this prefix.
  const indexer = new ToolCallIndexer(() => {});
  indexer.extendFromEntries(before, before);
  if (indexer.getIndex().size === 0 && indexer.getChainEntries().length === 0) return { archived: false };
  const result = renderRequest({ ...state, indexer }, branchMessages(before), before, true);
  return { archived: true, chars: requestSizesOf(result)?.afterChars };
}

/**
 * The token estimate's anchor after a rebuild. A live session anchors it on the provider's count for the
 * last response whose request was rewritten (`StatsAccumulator.calibrate`); a rebuild that forgot it would
 * fall back to the system prompt at characters ÷ 4, and the footer would move on a resume with no request
 * between. This sets it again from the branch: that response's recorded usage against its request,
 * rendered as it was sent. Leaves the estimate as it is when the branch has no such response.
 */
export function calibrateFromBranch(state: CalibrationState, ctx: ExtensionContext): void {
  try {
    const branch = ctx.sessionManager.getBranch();
    let tried = 0;
    for (let at = branch.length - 1; at >= 0 && tried < MAX_RESPONSES; at--) {
      const recorded = recordedTokens(branch[at]);
      if (recorded === undefined) continue;
      tried++;
      const sent = answeredRequest(state, branch, at);
      // Earlier responses answered requests sent with even less archived: none was rewritten.
      if (!sent.archived) return;
      if (sent.chars === undefined) continue;
      state.stats.noteSentRequest(sent.chars);
      state.stats.calibrate(recorded);
      return;
    }
  } catch (err) {
    console.error("pi-condense: anchoring the token estimate on the last response failed; it counts the system prompt until the next response", err);
  }
}
