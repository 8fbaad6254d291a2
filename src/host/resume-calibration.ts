/**
 * The token estimate's anchor after a rebuild. A live session anchors it on the provider's count for the
 * last response whose request was rewritten (`StatsAccumulator.calibrate`); a rebuild that forgot it would
 * fall back to the system prompt at characters ÷ 4, and the footer would move on a resume with no request
 * between. The anchor is set again from the branch: that response's recorded usage against its request,
 * rendered from the entries before it on the archive they held, as it was sent.
 */
import type { ExtensionContext, SessionEntry } from "@earendil-works/pi-coding-agent";
import { ToolCallIndexer } from "../archive/indexer.js";
import { isAssistant, looseEntry } from "../capture/message-shape.js";
import { requestUsageOf } from "../economics/cache-tracker.js";
import { requestSizesOf } from "../render/pruner.js";
import type { FlushState } from "../summarize/flush-state.js";
import { branchMessages, renderRequest } from "./request-render.js";

type CalibrationState = Pick<FlushState, "config" | "indexer" | "diagnostics" | "supersede" | "stats">;

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

/** Anchors the estimate as the live session last did; leaves it as it is when the branch has no such response. */
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
