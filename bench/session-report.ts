// The session bench's runs, tables and verdict against issues 25's, 26's and 33's targets. Pure: figures in, lines
// and targets out, so the evaluation is tested without running pi.
import type { ShapeId } from "./session-shape-kit.js";
import type { RunFigures } from "./session-figures.js";
import type { Target } from "./targets.js";

export type VariantId = "none" | "compaction" | "classic" | "cost" | "cost-nobp" | "cost-always" | "cost-noargs";
export type Wire = "anthropic-messages" | "openai-completions";

export const VARIANTS: Array<{ id: VariantId; label: string }> = [
  { id: "none", label: "no extension" },
  { id: "compaction", label: "pi compaction" },
  { id: "classic", label: "pi-condense classic (2.9.1)" },
  { id: "cost", label: "pi-condense cost policy" },
  { id: "cost-nobp", label: "cost policy, breakpoint off" },
  { id: "cost-always", label: "cost policy, summaries always" },
  { id: "cost-noargs", label: "cost policy, no arg stubs" },
];

export const WIRES: Array<{ id: Wire; label: string; rule: string }> = [
  { id: "anthropic-messages", label: "Anthropic wire", rule: "breakpoint rule" },
  { id: "openai-completions", label: "OpenAI wire", rule: "prefix rule" },
];

/** The shapes the OpenAI wire runs, and those where the breakpoint-off variant runs on the Anthropic wire. */
export const OPENAI_SHAPES: ShapeId[] = ["a", "b", "f"];
export const NO_BREAKPOINT_SHAPES: ShapeId[] = ["b", "f"];
/** The shapes where the cost policy also runs with `summaries: "always"`: the policy as it was before issue 26's choice. */
export const SUMMARIES_SHAPES: ShapeId[] = ["a", "e"];

/** Issue 33's shapes, built to make the cost policy lose: on both wires, no extension, classic and the cost policy only. */
export const LOSS_SHAPES: ShapeId[] = ["g", "h", "i", "j"];

/** Issue 35's shape, whose prompts edit and rewrite files: on both wires, the cost policy also without argument stubs. */
export const ARGUMENT_SHAPES: ShapeId[] = ["k"];

/** Issue 44's shapes on their own price lists (a price tier; pauses with pi's cache warming): on both wires, no extension, classic and the cost policy. */
export const PRICE_SHAPES: ShapeId[] = ["l", "m"];

/** The variants a shape runs on a wire, in table order (empty: the shape does not run on that wire). */
export function variantsFor(wire: Wire, shape: ShapeId): VariantId[] {
  if (LOSS_SHAPES.includes(shape) || PRICE_SHAPES.includes(shape)) return ["none", "classic", "cost"];
  if (ARGUMENT_SHAPES.includes(shape)) return ["none", "classic", "cost", "cost-noargs"];
  if (wire === "openai-completions") return OPENAI_SHAPES.includes(shape) ? ["none", "classic", "cost"] : [];
  const variants: VariantId[] = ["none", "compaction", "classic", "cost"];
  if (NO_BREAKPOINT_SHAPES.includes(shape)) variants.push("cost-nobp");
  if (SUMMARIES_SHAPES.includes(shape)) variants.push("cost-always");
  return variants;
}

export interface ShapeResult {
  id: ShapeId;
  wire: Wire;
  title: string;
  figures: Partial<Record<VariantId, RunFigures>>;
}

export interface RecoveryTally {
  checked: number;
  failures: string[];
}

const n = (x: number) => x.toLocaleString("en-US");
const usd = (x: number | undefined) => (x === undefined ? "-" : x.toFixed(4));
const wireOf = (w: Wire) => WIRES.find((x) => x.id === w)!;

/** The limit of a shape on a wire: the one of its no-extension run (the session as pi alone sends it). */
const limitOf = (r: ShapeResult): number | undefined => (r.figures.none && r.figures.none.limitUsd > 0 ? r.figures.none.limitUsd : undefined);
const times = (dollars: number, limit: number | undefined) => (limit === undefined ? "-" : `${(dollars / limit).toFixed(2)}x`);

export function formatShapeTable(result: ShapeResult): string[] {
  const anthropic = result.wire === "anthropic-messages";
  const limit = limitOf(result);
  const columns = ["requests", "input", "cache read", "cache write", "summarizer", "breaks", "cold", anthropic ? "$ bp rule" : "$ prefix rule", ...(anthropic ? ["$ prefix only"] : []), "x limit", "recov/100", "$ w/ recov"];
  const head = `  ${"".padEnd(30)}${columns.map((c) => c.padStart(14)).join("")}`;
  const rows = VARIANTS.filter(({ id }) => result.figures[id]).map(({ id, label }) => {
    const f = result.figures[id]!;
    const cells = [f.mainRequests, f.inputTokens, f.cacheReadTokens, f.cacheWriteTokens, f.summarizerInputTokens + f.summarizerOutputTokens, f.prefixBreaks, f.coldRequests].map(n);
    const money = [usd(f.costUsd), ...(anthropic ? [usd(f.prefixCostUsd)] : []), times(f.costUsd, limit), per100(f), usd(withRecoveries(f))];
    return `  ${label.padEnd(30)}${[...cells, ...money].map((c) => c.padStart(14)).join("")}`;
  });
  const limitLine = `  limit $${usd(limit)}: each block of no extension's requests written to the cache once, the replies, tools and system read by every request; x limit: ${anthropic ? "$ bp rule" : "$ prefix rule"} over it`;
  const forgettingLine = "  recov/100: replies per 100 requests that used what the request no longer showed (the miss model, an estimate); $ w/ recov: the run's $ plus what recovering it costs";
  const w = wireOf(result.wire);
  const on = result.figures.cost;
  const off = result.figures["cost-nobp"];
  const buys = on && off ? [`  the spare breakpoint saves the cost policy $${usd(off.costUsd - on.costUsd)} (${usd(off.costUsd)} off, ${usd(on.costUsd)} on)`] : [];
  return [`shape ${result.id}, ${w.label} (headline dollars by the ${w.rule}): ${result.title}`, head, ...rows, limitLine, forgettingLine, ...buys, ...warmingLines(result)];
}

/** pi's cache warming per variant, where the shape lets pi warm: refreshes sent, pauses it was stopped in, and how many a rewrite followed. */
export function warmingLines(result: ShapeResult): string[] {
  const parts = VARIANTS.filter(({ id }) => result.figures[id]?.warming).map(({ id, label }) => {
    const w = result.figures[id]!.warming!;
    return `${label} ${w.refreshes} ${w.refreshes === 1 ? "refresh" : "refreshes"}, stopped in ${w.stopped} ${w.stopped === 1 ? "pause" : "pauses"} (${w.stoppedThenRewritten} followed by a rewrite)`;
  });
  return parts.length === 0 ? [] : [`  pi's cache warming (refreshes are in the dollars): ${parts.join("; ")}`];
}

/** Recoveries per 100 main requests, "-" when the run was not measured. */
function per100(f: RunFigures): string {
  const g = f.forgetting;
  return g === undefined || g.requests === 0 ? "-" : ((100 * g.recoveries) / g.requests).toFixed(1);
}

/** The run's dollars with what recovering its misses costs; undefined when not measured. */
export function withRecoveries(f: RunFigures): number | undefined {
  return f.forgetting === undefined ? undefined : f.costUsd + f.forgetting.recoveryUsd;
}

const cost = (r: ShapeResult, v: VariantId) => r.figures[v]?.costUsd;
const where = (r: ShapeResult) => `${r.id} (${wireOf(r.wire).label})`;

const summarizerTokens = (f: RunFigures) => f.summarizerInputTokens + f.summarizerOutputTokens;

/** Issue 26's: `summaries: "auto"` against `always` on a and e, the cost policy against classic on a. */
function summariesTargets(results: ShapeResult[]): Target[] {
  const targets: Target[] = [];
  for (const r of results.filter((x) => x.wire === "anthropic-messages" && SUMMARIES_SHAPES.includes(x.id))) {
    const auto = r.figures.cost;
    const always = r.figures["cost-always"];
    if (!auto || !always) continue;
    const share = summarizerTokens(always) === 0 ? 0 : summarizerTokens(auto) / summarizerTokens(always);
    targets.push({ name: `${where(r)}: summarizer tokens with summaries auto ${n(summarizerTokens(auto))} <= 30% of always ${n(summarizerTokens(always))} (${(100 * share).toFixed(1)}%)`, met: share <= 0.3 });
    const classic = r.figures.classic;
    if (r.id === "a" && classic) targets.push({ name: `${where(r)}: cost policy $${usd(auto.costUsd)} <= 0.85x classic $${usd(classic.costUsd)} (${(auto.costUsd / classic.costUsd).toFixed(3)}x)`, met: auto.costUsd <= 0.85 * classic.costUsd });
  }
  return targets;
}

/**
 * Shape e's cost policy before issue 34 (the same default, measured by this bench when the miss model came),
 * on the Anthropic wire: recoveries per 100 requests, and $ with recoveries as a multiple of no extension's
 * ($0.8805 of $3.2388): the shape reads this repository's files, so its dollars move with every change to them.
 */
export const SHAPE_E_BEFORE = { per100: 0, timesNoExtension: 0.2719 };

/** Issue 34's, on shape e: with recoveries priced, the cost policy at most classic and no extension, and half the recoveries it had. */
function forgettingTargets(results: ShapeResult[]): Target[] {
  const targets: Target[] = [];
  for (const r of results.filter((x) => x.wire === "anthropic-messages" && x.id === "e")) {
    const mine = r.figures.cost;
    const dollars = mine && withRecoveries(mine);
    if (!mine?.forgetting || dollars === undefined) continue;
    for (const other of ["classic", "none"] as const) {
      const f = r.figures[other];
      const theirs = f && withRecoveries(f);
      const label = VARIANTS.find((v) => v.id === other)!.label;
      if (theirs !== undefined) targets.push({ name: `${where(r)}: cost policy $${usd(dollars)} with recoveries <= ${label} $${usd(theirs)}`, met: dollars <= theirs });
    }
    const rate = mine.forgetting.requests === 0 ? 0 : (100 * mine.forgetting.recoveries) / mine.forgetting.requests;
    const before = SHAPE_E_BEFORE;
    const none = r.figures.none && withRecoveries(r.figures.none);
    if (none === undefined || none <= 0) continue;
    const times = dollars / none;
    targets.push({ name: `${where(r)}: cost policy ${rate.toFixed(1)} recoveries per 100 requests <= half of before issue 34 (${before.per100.toFixed(1)}), $ with them ${times.toFixed(4)}x no extension <= before (${before.timesNoExtension.toFixed(4)}x)`, met: rate <= before.per100 / 2 && times <= before.timesNoExtension });
  }
  return targets;
}

/** Issue 33's: no variant costs less than the limit of its shape and wire (a run under it is a bug in the limit). */
function limitTargets(results: ShapeResult[]): Target[] {
  const targets: Target[] = [];
  for (const r of results) {
    const limit = limitOf(r);
    if (limit === undefined) continue;
    const run = VARIANTS.filter(({ id }) => r.figures[id]).map(({ id, label }) => ({ label, dollars: r.figures[id]!.costUsd }));
    const lowest = run.reduce((a, b) => (b.dollars < a.dollars ? b : a));
    targets.push({ name: `${where(r)}: every variant at or above the limit $${usd(limit)} (lowest: ${lowest.label}, ${times(lowest.dollars, limit)})`, met: lowest.dollars >= limit });
  }
  return targets;
}

/** Issue 25's targets for the results that ran (with issue 33's on shape j), then issue 26's and 33's, then the recoverability check. */
export function sessionTargets(results: ShapeResult[], recovery: RecoveryTally): Target[] {
  const targets: Target[] = [];
  const b = results.find((r) => r.id === "b" && r.wire === "anthropic-messages")?.figures.cost;
  if (b?.prefixCostUsd !== undefined) {
    const ratio = b.costUsd / b.prefixCostUsd;
    targets.push({ name: `b (Anthropic wire): cost policy with the breakpoint $${usd(b.costUsd)} <= 1.10x its prefix-only $${usd(b.prefixCostUsd)} (${ratio.toFixed(3)}x)`, met: ratio <= 1.1 });
  }
  for (const r of results) {
    const mine = cost(r, "cost");
    if (mine === undefined) continue;
    for (const other of ["classic", "none"] as const) {
      const theirs = cost(r, other);
      const label = VARIANTS.find((v) => v.id === other)!.label;
      if (theirs !== undefined) targets.push({ name: `${where(r)}: cost policy $${usd(mine)} <= ${label} $${usd(theirs)}`, met: mine <= theirs });
    }
  }
  for (const r of results.filter((x) => x.id === "f")) {
    const mine = cost(r, "cost");
    const none = cost(r, "none");
    if (mine === undefined || none === undefined) continue;
    targets.push({ name: `${where(r)}: cost policy <= 0.5x no extension (${(mine / none).toFixed(3)}x)`, met: mine <= 0.5 * none });
  }
  for (const r of results.filter((x) => x.id === "l")) {
    const mine = cost(r, "cost");
    const none = cost(r, "none");
    if (mine === undefined || none === undefined) continue;
    targets.push({ name: `${where(r)}: cost policy <= 0.5x no extension across the price tier (${(mine / none).toFixed(3)}x)`, met: mine <= 0.5 * none });
  }
  for (const r of results.filter((x) => x.id === "m")) {
    const w = r.figures.cost?.warming;
    if (!w) continue;
    targets.push({ name: `${where(r)}: warming refreshes stopped only when a rewrite followed (${w.stopped} stopped, ${w.stoppedThenRewritten} followed by a rewrite)`, met: w.stopped === w.stoppedThenRewritten });
  }
  for (const r of results.filter((x) => x.id === "j")) {
    const mine = cost(r, "cost");
    const classic = cost(r, "classic");
    if (mine === undefined || classic === undefined) continue;
    targets.push({ name: `${where(r)}: cost policy $${usd(mine)} <= 0.95x classic $${usd(classic)} (${(mine / classic).toFixed(3)}x)`, met: mine <= 0.95 * classic });
  }
  for (const r of results.filter((x) => ARGUMENT_SHAPES.includes(x.id))) {
    const mine = cost(r, "cost");
    const without = cost(r, "cost-noargs");
    if (mine === undefined || without === undefined) continue;
    targets.push({ name: `${where(r)}: cost policy $${usd(mine)} <= 0.80x itself without argument stubs $${usd(without)} (${(mine / without).toFixed(3)}x)`, met: mine <= 0.8 * without });
  }
  targets.push(...summariesTargets(results), ...forgettingTargets(results), ...limitTargets(results));
  const lost = recovery.failures.length;
  targets.push({ name: `every stubbed original recoverable verbatim (${recovery.checked} checked, ${lost} lost)`, met: lost === 0 });
  return targets;
}
