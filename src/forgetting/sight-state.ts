/**
 * Live sight's state for one session (issue 42): the count of what the agent went back for (`live-sight.ts`)
 * and the raw window it widens. While the agent keeps going back for archived output, the cost policy's
 * in-run flushes leave `WIDENED_EXTRA_TURNS` more tool turns raw: fewer outputs are stubbed, so widening
 * rewrites nothing. When the rate falls, the window narrows only where that changes no request: when nothing
 * waits that only the widening kept raw, or inside an in-run rewrite that happens anyway (`narrowInRewrite`).
 * The host persists each change as a `context-prune-sight` entry and tells it once; `rebuild` reads the last
 * one back. Pure: the branch and the facts come in, the changes to persist and tell go out.
 */
import { looseEntry } from "../capture/message-shape.js";
import { parseSightEntry } from "../capture/persisted-entries.js";
import type { CostModel } from "../economics/cost-model.js";
import { plural } from "../format/plural.js";
import { CUSTOM_TYPE_SIGHT } from "../names.js";
import { IN_RUN_RECENT_TURNS } from "../policy/flush-weighing.js";
import { LiveSight } from "./live-sight.js";
import type { SightView } from "./sight-text.js";
import { recentRate, type SightRate, WIDENED_EXTRA_TURNS, windowMove } from "./sight-window.js";

/** A change of the raw window: what the host persists (`entry`) and tells the user (`notice`). */
export interface SightChange {
  entry: { widened: boolean; recoveries: number; window: number };
  notice: string;
}

export class SightState {
  private counter = new LiveSight();
  private wide = false;
  private narrowDue = false;

  get widened(): boolean {
    return this.wide;
  }

  /** Tool turns the in-run window keeps raw beyond its own. */
  extraTurns(): number {
    return this.wide ? WIDENED_EXTRA_TURNS : 0;
  }

  /** session_start / session_tree: the count starts over on this branch; the window is the last one persisted. */
  rebuild(branch: readonly unknown[], cwd: string | undefined): void {
    this.counter = new LiveSight(cwd === undefined ? {} : { cwd });
    this.wide = false;
    this.narrowDue = false;
    for (const value of branch) {
      const entry = looseEntry(value);
      if (entry?.type !== "custom" || entry.customType !== CUSTOM_TYPE_SIGHT) continue;
      const parsed = parseSightEntry(entry.data);
      if (parsed.ok) this.wide = parsed.value.widened;
    }
  }

  /** Reads what the branch added since the last call. */
  update(branch: readonly unknown[]): void {
    this.counter.feed(branch);
  }

  view(cost: CostModel | undefined): SightView {
    return { recoveries: this.counter.recoveries, cost, rate: this.rate(), widened: this.wide, rawTurns: IN_RUN_RECENT_TURNS };
  }

  /**
   * At a tool turn's end, before the in-run flush is weighed: widens the window once the rate reaches its
   * threshold; once it falls, narrows it when no waiting output's turn (`pendingTurns`, session-wide) is one
   * only the widening keeps raw at turn `currentTurn()`, else leaves that to a rewrite.
   */
  judge(pendingTurns: readonly number[], currentTurn: () => number | undefined): SightChange | undefined {
    const rate = this.rate();
    const move = windowMove(this.wide, rate);
    if (move === "widen") return this.set(true, rate);
    this.narrowDue = move === "narrow";
    if (!this.narrowDue) return undefined;
    const current = currentTurn();
    if (current === undefined) return undefined;
    const newest = current - IN_RUN_RECENT_TURNS;
    const held = pendingTurns.some((turn) => turn <= newest && turn > newest - WIDENED_EXTRA_TURNS);
    return held ? undefined : this.set(false, rate);
  }

  /** Whether an in-run rewrite made anyway should take the narrow window's outputs too. */
  narrowingDue(): boolean {
    return this.wide && this.narrowDue;
  }

  /** That rewrite is made: the window is narrow again. */
  narrowInRewrite(): SightChange | undefined {
    return this.narrowingDue() ? this.set(false, this.rate()) : undefined;
  }

  private rate(): SightRate {
    return recentRate(this.counter.recoveries, this.counter.requests);
  }

  private set(widened: boolean, rate: SightRate): SightChange {
    this.wide = widened;
    this.narrowDue = false;
    return { entry: { widened, recoveries: rate.recoveries, window: rate.window }, notice: windowNotice(widened, rate) };
  }
}

export function windowNotice(widened: boolean, rate: SightRate): string {
  const went = `the agent went back for archived output in ${plural(rate.recoveries, "request")} of the last ${rate.window} (${rate.per100.toFixed(1)} per 100)`;
  const wide = IN_RUN_RECENT_TURNS + WIDENED_EXTRA_TURNS;
  return widened
    ? `pruner: ${went}: the latest ${wide} tool turns now stay raw instead of ${IN_RUN_RECENT_TURNS}`
    : `pruner: ${went}: the latest ${IN_RUN_RECENT_TURNS} tool turns stay raw again instead of ${wide}`;
}
