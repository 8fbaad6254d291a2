// The session bench's tables and its verdict against issue 17's targets. Pure: figures in, lines and
// targets out, so the evaluation is tested without running pi.
import type { ShapeId } from "./session-shapes.js";
import type { RunFigures } from "./session-figures.js";
import type { Target } from "./targets.js";

export type VariantId = "none" | "compaction" | "classic" | "cost";

export const VARIANTS: Array<{ id: VariantId; label: string }> = [
  { id: "none", label: "no extension" },
  { id: "compaction", label: "pi compaction" },
  { id: "classic", label: "pi-condense classic (2.9.1)" },
  { id: "cost", label: "pi-condense cost policy" },
];

export interface ShapeResult {
  id: ShapeId;
  title: string;
  figures: Record<VariantId, RunFigures>;
}

export interface RecoveryTally {
  checked: number;
  failures: string[];
}

const n = (x: number) => x.toLocaleString("en-US");
const COLUMNS = ["requests", "input", "cache read", "cache write", "summarizer", "breaks", "cold", "cost $", "strict $"];

export function formatShapeTable(result: ShapeResult): string[] {
  const head = `  ${"".padEnd(30)}${COLUMNS.map((c) => c.padStart(12)).join("")}`;
  const rows = VARIANTS.map(({ id, label }) => {
    const f = result.figures[id];
    const cells = [f.mainRequests, f.inputTokens, f.cacheReadTokens, f.cacheWriteTokens, f.summarizerInputTokens + f.summarizerOutputTokens, f.prefixBreaks, f.coldRequests].map(n);
    return `  ${label.padEnd(30)}${[...cells, f.costUsd.toFixed(4), f.strictCostUsd.toFixed(4)].map((c) => c.padStart(12)).join("")}`;
  });
  return [`shape ${result.id}: ${result.title}`, head, ...rows];
}

const cost = (r: ShapeResult, v: VariantId) => r.figures[v].costUsd;
const ratio = (r: ShapeResult) => (cost(r, "classic") > 0 ? cost(r, "cost") / cost(r, "classic") : Number.POSITIVE_INFINITY);

/** How each shape's cost policy must compare with the classic one (issue 17's targets). */
const RATIO_TARGETS: Record<ShapeId, { text: string; met: (r: ShapeResult) => boolean }> = {
  a: { text: "<= 0.85x classic", met: (r) => cost(r, "cost") <= 0.85 * cost(r, "classic") },
  b: { text: "<= 0.5x classic", met: (r) => cost(r, "cost") <= 0.5 * cost(r, "classic") },
  c: { text: "<= classic", met: (r) => cost(r, "cost") <= cost(r, "classic") },
  d: { text: "< classic", met: (r) => cost(r, "cost") < cost(r, "classic") },
  e: { text: "<= classic", met: (r) => cost(r, "cost") <= cost(r, "classic") },
};

export function sessionTargets(results: ShapeResult[], recovery: RecoveryTally): Target[] {
  const targets: Target[] = [];
  for (const r of results) {
    targets.push({ name: `${r.id}: cost policy $${cost(r, "cost").toFixed(4)} <= no extension $${cost(r, "none").toFixed(4)}`, met: cost(r, "cost") <= cost(r, "none") });
  }
  for (const r of results) {
    const t = RATIO_TARGETS[r.id];
    targets.push({ name: `${r.id}: cost policy ${t.text} (${ratio(r).toFixed(3)}x)`, met: t.met(r) });
  }
  for (const r of results) {
    const mine = r.figures.cost.prefixBreaks;
    const theirs = r.figures.classic.prefixBreaks;
    targets.push({ name: `${r.id}: cost policy prefix breaks ${mine} <= classic ${theirs}`, met: mine <= theirs });
  }
  const lost = recovery.failures.length;
  targets.push({ name: `every stubbed original recoverable verbatim (${recovery.checked} checked, ${lost} lost)`, met: lost === 0 });
  return targets;
}
