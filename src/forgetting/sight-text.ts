/**
 * Live sight in figures and plain words, for `/pruner status`, `/pruner stats` and `/pruner report`: how
 * many archived outputs the agent went back for, which refs, what the round trips cost, and the raw
 * window's state. A round trip is priced as `recoveryCost` prices a recovery: the request that made the call
 * sent again from the cache (its reported input at the cache-read price of its tier), what came back written,
 * 100 output tokens. Pure.
 */
import { type CostModel, pricesAt } from "../economics/cost-model.js";
import { dollars } from "../economics/rewrite-economics.js";
import { estimateTokens } from "../format/figures.js";
import { plural } from "../format/plural.js";
import type { Recovery, RecoveryKind } from "./live-sight.js";
import { recoveryCost } from "./miss-model.js";
import { type SightRate, WIDEN_AT_RECOVERIES, WIDENED_EXTRA_TURNS } from "./sight-window.js";

export interface SightFigures {
  /** Archived outputs gone back for: each ref a call named, or one for a call that named none. */
  outputs: number;
  /** Distinct refs, in the order first gone back for. */
  refs: string[];
  /** Requests whose reply went back: each one round trip more. */
  extraRequests: number;
  /** What those round trips cost; undefined when the model has no price. */
  dollars: number | undefined;
  byKind: Record<RecoveryKind, number>;
}

/** What `/pruner status` and `stats` are given of live sight; they price it (`sightFigures`) when they run. */
export interface SightView {
  recoveries: readonly Recovery[];
  /** The session model's prices; undefined when they could not be read. */
  cost: CostModel | undefined;
  rate: SightRate;
  widened: boolean;
  /** Tool turns the in-run window keeps raw when not widened. */
  rawTurns: number;
}

/** Refs named in a line; the rest are counted. */
const SHOWN_REFS = 8;

export function sightFigures(recoveries: readonly Recovery[], cost: CostModel | undefined): SightFigures {
  const byKind: Record<RecoveryKind, number> = { query: 0, "re-read": 0, "failed-edit": 0 };
  const refs = new Set<string>();
  const requests = new Map<number, { context: number; returned: number }>();
  let outputs = 0;
  for (const recovery of recoveries) {
    byKind[recovery.kind]++;
    outputs += Math.max(1, recovery.refs.length);
    for (const ref of recovery.refs) refs.add(ref);
    const trip = requests.get(recovery.request) ?? { context: recovery.contextTokens, returned: 0 };
    trip.returned += recovery.returnedChars;
    requests.set(recovery.request, trip);
  }
  let total: number | undefined;
  if (cost?.priced === true) {
    total = 0;
    for (const trip of requests.values()) total += recoveryCost(trip.context, estimateTokens(trip.returned), pricesAt(cost, trip.context));
  }
  return { outputs, refs: [...refs], extraRequests: requests.size, dollars: total, byKind };
}

function refList(refs: readonly string[]): string {
  if (refs.length === 0) return "";
  const shown = refs.slice(0, SHOWN_REFS).join(", ");
  return refs.length > SHOWN_REFS ? ` (${shown} and ${refs.length - SHOWN_REFS} more)` : ` (${shown})`;
}

const KIND_WORDS: Record<RecoveryKind, [string, string]> = {
  query: ["context_tree_query call", "context_tree_query calls"],
  "re-read": ["read of a file read before", "reads of files read before"],
  "failed-edit": ["failed edit", "failed edits"],
};

/** `the agent went back for 3 archived outputs this session (t12, t17, t20): about $0.012 and 3 extra requests; ...` */
export function sightLine(figures: SightFigures, where = "this session"): string {
  if (figures.outputs === 0) return `the agent went back for no archived output ${where}`;
  const price = figures.dollars === undefined ? "" : `about ${dollars(figures.dollars)} and `;
  const kinds = (Object.keys(KIND_WORDS) as RecoveryKind[])
    .filter((kind) => figures.byKind[kind] > 0)
    .map((kind) => plural(figures.byKind[kind], ...KIND_WORDS[kind]))
    .join(", ");
  return `the agent went back for ${plural(figures.outputs, "archived output")} ${where}${refList(figures.refs)}: ${price}${plural(figures.extraRequests, "extra request")} (${kinds})`;
}

/** The raw window's state in words: its width, and the recent rate against the threshold. */
export function windowLine(widened: boolean, rate: SightRate, rawTurns: number): string {
  const recent = `${plural(rate.recoveries, "request")} of the last ${rate.window} went back (${rate.per100.toFixed(1)} per 100)`;
  if (widened) return `raw window: widened, the latest ${rawTurns + WIDENED_EXTRA_TURNS} tool turns stay raw instead of ${rawTurns}; ${recent}`;
  return `raw window: the latest ${rawTurns} tool turns stay raw; ${recent}, it widens at ${WIDEN_AT_RECOVERIES}`;
}
