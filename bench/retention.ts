/**
 * Retention benchmark (issue 26 item 5): of the identifiers an agent learned
 * from one tool output and used in a later command (`retention-identifiers.ts`),
 * how many the output's stub keeps, and what the stubs cost against the raw
 * outputs. Every output of 200 or more characters is counted as if it were
 * stubbed, three ways, each the exact text the product renders:
 * - 2.9.1's placeholder (`summarizedStubText` without outcome facts);
 * - the outcome-facts stub of an output archived without a summary, as
 *   before digests (`unsummarizedStubText` with `outcomeFacts`);
 * - the digest stub (`unsummarizedStubText` with `outputDigest`).
 * Refs are `t1`, `t2`, ... in output order, as a session mints them.
 * Input: the mini-swe-agent and SWE-agent trajectories of the shared corpus,
 * or the folders named on the command line (`*.traj.json`, `*.traj`, pi
 * `*.jsonl` sessions). Targets: digest stubs keep at least 50% of the
 * identifiers and total at most 3% of the raw characters.
 * Run: bun bench/retention.ts [dir ...]
 */
import { existsSync } from "node:fs";
import { basename, resolve } from "node:path";
import { outcomeFacts } from "../src/digest/outcome-facts.js";
import { outputDigest } from "../src/digest/output-digest.js";
import { summarizedStubText, unsummarizedStubText } from "../src/render/stub-replace.js";
import { keptBy, learnedIdentifiers, type Identifier, type IdentifierKind } from "./retention-identifiers.js";
import { runsIn, type RunStep } from "./retention-runs.js";
import { reportTargets } from "./targets.js";

const MIN_OUTPUT_CHARS = 200;
const MIN_KEPT = 0.5;
const MAX_STUB_SHARE = 0.03;
const CORPUS = ["../shared/corpus", "/work/shared/corpus"].map((dir) => resolve(import.meta.dir, "..", dir)).find(existsSync) ?? "../shared/corpus";
const ARGS = process.argv.slice(2).filter((arg) => !arg.startsWith("--"));
const DIRS = ARGS.length > 0 ? ARGS : [`${CORPUS}/mini-swe-agent`, `${CORPUS}/swe-agent`];

const VARIANTS = {
  placeholder: { title: "2.9.1 placeholder", stub: (ref: string) => summarizedStubText(ref, undefined) },
  outcome: { title: "outcome facts", stub: (ref: string, s: RunStep) => unsummarizedStubText(ref, outcomeFacts(s.toolName, s.args, s.output, s.isError)) },
  digest: {
    title: "digest",
    stub: (ref: string, s: RunStep) => unsummarizedStubText(ref, outcomeFacts(s.toolName, s.args, s.output, s.isError), outputDigest(s.toolName, s.args, s.output, s.isError)),
  },
} as const;
type Variant = keyof typeof VARIANTS;

interface Tally {
  runs: number;
  outputs: number;
  raw: number;
  identifiers: number;
  byKind: Map<IdentifierKind, number>;
  kept: Record<Variant, number>;
  keptByKind: Map<IdentifierKind, number>;
  stubChars: Record<Variant, number>;
}

const emptyTally = (): Tally => ({
  runs: 0,
  outputs: 0,
  raw: 0,
  identifiers: 0,
  byKind: new Map(),
  kept: { placeholder: 0, outcome: 0, digest: 0 },
  keptByKind: new Map(),
  stubChars: { placeholder: 0, outcome: 0, digest: 0 },
});

const add = (map: Map<IdentifierKind, number>, kind: IdentifierKind) => map.set(kind, (map.get(kind) ?? 0) + 1);

function countOutput(tally: Tally, ref: string, step: RunStep, learned: Identifier[]): void {
  tally.outputs++;
  tally.raw += step.output.length;
  tally.identifiers += learned.length;
  for (const id of learned) add(tally.byKind, id.kind);
  for (const variant of Object.keys(VARIANTS) as Variant[]) {
    const stub = VARIANTS[variant].stub(ref, step);
    tally.stubChars[variant] += stub.length;
    tally.kept[variant] += keptBy(stub, learned);
    if (variant === "digest") for (const id of learned.filter((id) => keptBy(stub, [id]) === 1)) add(tally.keptByKind, id.kind);
  }
}

function measure(dir: string): Tally {
  const tally = emptyTally();
  for (const run of runsIn(dir)) {
    tally.runs++;
    const learned = learnedIdentifiers(run);
    run.steps.forEach((step, i) => {
      if (step.output.length >= MIN_OUTPUT_CHARS) countOutput(tally, `t${i + 1}`, step, learned[i]!);
    });
  }
  return tally;
}

const pct = (part: number, whole: number) => (whole === 0 ? 0 : (100 * part) / whole);

function printTally(name: string, t: Tally): void {
  const kinds = [...t.byKind].map(([kind, n]) => `${kind} ${t.keptByKind.get(kind) ?? 0}/${n}`).join(", ");
  console.log(`${name}: ${t.runs} runs, ${t.outputs} outputs of ${MIN_OUTPUT_CHARS}+ chars (${t.raw.toLocaleString("en-US")} chars), ${t.identifiers} identifiers learned and used later`);
  console.log(`  ${"stub".padEnd(18)} ${"kept".padStart(11)} ${"".padStart(7)} ${"stubs/raw".padStart(9)}`);
  for (const variant of Object.keys(VARIANTS) as Variant[]) {
    const kept = `${t.kept[variant]}/${t.identifiers}`;
    console.log(`  ${VARIANTS[variant].title.padEnd(18)} ${kept.padStart(11)} ${pct(t.kept[variant], t.identifiers).toFixed(1).padStart(6)}% ${pct(t.stubChars[variant], t.raw).toFixed(2).padStart(8)}%`);
  }
  console.log(`  digest keeps by kind: ${kinds || "none"}`);
}

function sum(tallies: Tally[]): Tally {
  const all = emptyTally();
  for (const t of tallies) {
    for (const key of ["runs", "outputs", "raw", "identifiers"] as const) all[key] += t[key];
    for (const variant of Object.keys(VARIANTS) as Variant[]) {
      all.kept[variant] += t.kept[variant];
      all.stubChars[variant] += t.stubChars[variant];
    }
    for (const [kind, n] of t.byKind) all.byKind.set(kind, (all.byKind.get(kind) ?? 0) + n);
    for (const [kind, n] of t.keptByKind) all.keptByKind.set(kind, (all.keptByKind.get(kind) ?? 0) + n);
  }
  return all;
}

const tallies = DIRS.map((dir) => {
  const tally = measure(dir);
  printTally(basename(dir), tally);
  return tally;
});
const all = sum(tallies);
if (tallies.length > 1) printTally("all", all);
const kept = pct(all.kept.digest, all.identifiers);
const share = pct(all.stubChars.digest, all.raw);
reportTargets(
  [
    { name: `digest stubs keep at least ${MIN_KEPT * 100}% of the identifiers (${kept.toFixed(1)}%)`, met: all.identifiers > 0 && kept >= MIN_KEPT * 100 },
    { name: `digest stubs total at most ${MAX_STUB_SHARE * 100}% of the raw characters (${share.toFixed(2)}%)`, met: all.raw > 0 && share <= MAX_STUB_SHARE * 100 },
  ],
  process.argv,
  `retention: ${all.kept.digest}/${all.identifiers} identifiers kept (${kept.toFixed(1)}%), stubs ${share.toFixed(2)}% of raw`,
);
