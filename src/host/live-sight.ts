/**
 * Live sight at the host (issue 42): the branch fed to `forgetting/live-sight.ts` (at every tool turn's end,
 * and when `/pruner status` or `stats` asks), and the raw window it widens. While the agent keeps going back
 * for archived output, the cost policy's in-run flushes leave `WIDENED_EXTRA_TURNS` more tool turns raw: fewer
 * outputs are stubbed, so no rewrite comes of it. When the rate falls, the window narrows only where that
 * changes no request: when nothing waits that only the widening kept raw, or inside an in-run rewrite that
 * happens anyway (`narrowInRewrite`). Each change is told once and persisted as a `context-prune-sight`
 * entry, the last of which a reload reads back.
 */
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { looseEntry } from "../capture/message-shape.js";
import { parseSightEntry } from "../capture/persisted-entries.js";
import type { CapturedBatch } from "../capture/records.js";
import { LiveSight } from "../forgetting/live-sight.js";
import { sightFigures, type SightView } from "../forgetting/sight-text.js";
import { recentRate, type SightRate, WIDENED_EXTRA_TURNS, windowMove } from "../forgetting/sight-window.js";
import { IN_RUN_RECENT_TURNS } from "../policy/flush-weighing.js";
import { CUSTOM_TYPE_SIGHT } from "../names.js";
import { plural } from "../format/plural.js";
import { safeNotify, sessionAppenderOf } from "../summarize/delivery.js";
import { type CostModel, costModelFor } from "../economics/cost-model.js";
import { cacheRouteOf } from "../economics/cache-route.js";
import { processCacheEnv } from "../settings/cache-env.js";

export interface SightState {
  counter: LiveSight;
  widened: boolean;
  /** The rate fell while widened: the window narrows at the next moment that costs no rewrite. */
  narrowDue: boolean;
}

export function createSightState(): SightState {
  return { counter: new LiveSight(), widened: false, narrowDue: false };
}

interface SightHost {
  sight: SightState;
  pending: CapturedBatch[];
}

/** Tool turns the in-run window keeps raw beyond its own. */
export function sightExtraTurns(state: SightHost): number {
  return state.sight.widened ? WIDENED_EXTRA_TURNS : 0;
}

/** session_start / session_tree: the count starts over on this branch; the window is the last persisted one. */
export function rebuildSight(state: SightHost, ctx: ExtensionContext): void {
  state.sight = { counter: new LiveSight({ cwd: cwdOf(ctx) }), widened: false, narrowDue: false };
  const branch = branchOf(ctx);
  for (const entry of branch) {
    const e = looseEntry(entry);
    if (e?.type !== "custom" || e.customType !== CUSTOM_TYPE_SIGHT) continue;
    const parsed = parseSightEntry(e.data);
    if (parsed.ok) state.sight.widened = parsed.value.widened;
  }
}

export function sightView(state: SightHost, ctx: ExtensionContext): SightView {
  const counter = feed(state, ctx);
  let cost: CostModel | undefined;
  try {
    // The session model's prices as flush-policy.ts reads them (not imported from there: it imports this state).
    cost = costModelFor(ctx.model, cacheRouteOf(ctx.model, processCacheEnv()));
  } catch {
    cost = undefined;
  }
  return { figures: sightFigures(counter.recoveries, cost), rate: recentRate(counter.recoveries, counter.requests), widened: state.sight.widened, rawTurns: IN_RUN_RECENT_TURNS };
}

/**
 * At a tool turn's end, before the in-run flush is weighed: widens the window once the rate reaches its
 * threshold; once it falls, narrows it when nothing pending sits where only the widening keeps it raw
 * (`currentTurn()`: the session-wide number of the turn that just ended), else leaves that to a rewrite.
 */
export function judgeSight(state: SightHost, ctx: ExtensionContext, currentTurn: () => number | undefined): void {
  const counter = feed(state, ctx);
  const rate = recentRate(counter.recoveries, counter.requests);
  const move = windowMove(state.sight.widened, rate);
  if (move === "widen") return setWidened(state, ctx, true, rate);
  state.sight.narrowDue = move === "narrow";
  if (!state.sight.narrowDue) return;
  const current = currentTurn();
  if (current !== undefined && !heldByWidening(state.pending, current)) setWidened(state, ctx, false, rate);
}

/** An in-run rewrite happening anyway takes the narrow window's outputs too: the window narrows there. */
export function narrowInRewrite(state: SightHost, ctx: ExtensionContext): void {
  if (!state.sight.widened || !state.sight.narrowDue) return;
  const counter = state.sight.counter;
  setWidened(state, ctx, false, recentRate(counter.recoveries, counter.requests));
}

function heldByWidening(pending: readonly CapturedBatch[], current: number): boolean {
  const newest = current - IN_RUN_RECENT_TURNS;
  return pending.some((batch) => batch.turnIndex <= newest && batch.turnIndex > newest - WIDENED_EXTRA_TURNS);
}

function setWidened(state: SightHost, ctx: ExtensionContext, widened: boolean, rate: SightRate): void {
  state.sight.widened = widened;
  state.sight.narrowDue = false;
  try {
    sessionAppenderOf(ctx).appendCustomEntry(CUSTOM_TYPE_SIGHT, { widened, recoveries: rate.recoveries, window: rate.window });
  } catch (err) {
    console.error("pi-condense: recording the raw window failed; it holds until a reload", err);
  }
  safeNotify(ctx, widenNotice(widened, rate), "info");
}

export function widenNotice(widened: boolean, rate: SightRate): string {
  const went = `the agent went back for archived output in ${plural(rate.recoveries, "request")} of the last ${rate.window} (${rate.per100.toFixed(1)} per 100)`;
  const wide = IN_RUN_RECENT_TURNS + WIDENED_EXTRA_TURNS;
  return widened
    ? `pruner: ${went}: the latest ${wide} tool turns now stay raw instead of ${IN_RUN_RECENT_TURNS}`
    : `pruner: ${went}: the latest ${IN_RUN_RECENT_TURNS} tool turns stay raw again instead of ${wide}`;
}

function feed(state: SightHost, ctx: ExtensionContext): LiveSight {
  try {
    state.sight.counter.feed(branchOf(ctx));
  } catch (err) {
    console.error("pi-condense: counting recoveries failed", err);
  }
  return state.sight.counter;
}

function branchOf(ctx: ExtensionContext): readonly unknown[] {
  try {
    const branch: unknown = ctx.sessionManager.getBranch();
    return Array.isArray(branch) ? branch : [];
  } catch {
    return [];
  }
}

function cwdOf(ctx: ExtensionContext): string | undefined {
  try {
    return typeof ctx.cwd === "string" ? ctx.cwd : undefined;
  } catch {
    return undefined;
  }
}
