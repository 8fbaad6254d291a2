/**
 * Session bench (issues 17, 25, 33, 35 and 44): thirteen session shapes through the real pi CLI against the loopback
 * provider with its prompt-cache simulation. On the Anthropic wire (breakpoint rule, the prefix reading
 * beside it) for no extension, pi's own compaction, pi-condense classic, the cost policy, and for shapes
 * b and f the cost policy with the spare breakpoint off; on the OpenAI wire (longest-prefix rule, cached
 * tokens reported) shapes a, b and f for no extension, classic and the cost policy; issue 33's shapes g to
 * j on both wires for no extension, classic and the cost policy; issue 35's shape k on both wires for those and the cost
 * policy without argument stubs; issue 44's shapes l (a price tier crossed) and m (pauses, pi's cache warming on) on
 * both wires for no extension, classic and the cost policy, on their own price lists. Prints one table per shape and wire
 * (main-model tokens, summarizer tokens, prefix breaks, cold requests, dollars at the catalog prices of the
 * models each wire stands for) and what became of each run's outputs, checks that every pruned output is
 * still recoverable verbatim and that no run strands an output classic archived, and ends with the targets.
 * `--quick` (or BENCH_QUICK=1) runs shortened shapes as a smoke test; `--shapes=b,f` runs only some shapes,
 * `--wires=anthropic` or `--wires=openai` one wire; BENCH_KEEP_SESSIONS=<dir> keeps each run's session file there.
 * A full run (no `--shapes`, no `--wires`) ends with the bound on waiting over 10,000 generated sessions
 * replayed by the report (300 with `--quick`; bench/session-bound.ts).
 * Run: bun bench/session.ts [--quick] [--shapes=a,b] [--wires=openai] [--check]
 */
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { copyFile, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PromptCacheSim } from "../test/e2e/cache-sim.js";
import { DEFAULT_SUMMARIZERS, type SummarizerRule } from "../test/e2e/fake-llm.js";
import { disposeSandbox, MAIN_MODEL, makeSandbox, REPO_ROOT, runPiRpc, runPrint, sessionFile, SUMMARIZER_MODEL, type Sandbox } from "../test/e2e/harness.js";
import { cacheModelIds, PRICED_AS, pricedModelFields, pricesFor } from "../test/e2e/priced-models.js";
import { problems } from "../test/e2e/scenario-kit.js";
import { runFigures, type RunFigures } from "./session-figures.js";
import { forgettingOf } from "./session-forgetting.js";
import { checkRecoverable, type RecoveryCheck } from "./session-recovery.js";
import { formatShapeTable, sessionTargets, VARIANTS, variantsFor, WIRES, type RecoveryTally, type ShapeResult, type VariantId, type Wire } from "./session-report.js";
import { buildShape, SHAPE_IDS, type Shape, type ShapeId } from "./session-shapes.js";
import { formatFates, outputFates, strandedTargets, type RunFates } from "./session-stranded.js";
import { runBoundCheck } from "./session-bound.js";
import { warmingOf } from "./session-warming.js";
import { reportTargets } from "./targets.js";

/** The simulated cache lifetime, declared to pi as the fake models' `promptCache.short`. */
const TTL_SECONDS = 4;
const IDLE_MS = TTL_SECONDS * 1000 + 1500;
const RUN_TIMEOUT_MS = 10 * 60_000;
const QUICK = process.argv.includes("--quick") || process.env.BENCH_QUICK === "1";
/** A folder to keep each run's session file in (`<shape>-<variant>-<wire>.jsonl`), for a closer look. */
const KEEP_SESSIONS = process.env.BENCH_KEEP_SESSIONS;
if (KEEP_SESSIONS) await mkdir(KEEP_SESSIONS, { recursive: true });
const listArg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3).split(",");
/** `--shapes=b,d` runs only those shapes (the targets then cover only them). */
const ONLY = listArg("shapes");
/** `--wires=openai` runs only the wires whose id contains one of the words. */
const ONLY_WIRES = listArg("wires");

/** pi's own compaction asks the main model for a checkpoint summary; the fake answers it like a summarizer. */
const PI_COMPACTION: SummarizerRule = { marker: "You are a context summarization assistant", reply: { text: "## Goal\nBench session.\n\n## Progress\n- Files were read." } };

function contextPrune(variant: VariantId): Record<string, unknown> | null {
  const base = { enabled: true, summarizerModel: `fake/${SUMMARIZER_MODEL}` };
  if (variant === "classic") return { ...base, flushPolicy: "classic" };
  if (variant === "cost-nobp") return { ...base, cacheBreakpoint: false };
  if (variant === "cost-always") return { ...base, summaries: "always" };
  if (variant === "cost-noargs") return { ...base, stubArguments: false };
  return variant === "cost" ? base : null;
}

const withExtension = (variant: VariantId) => variant !== "none" && variant !== "compaction";

/** Print mode for a session without pauses; RPC mode, one process, when the user idles between prompts. */
async function playShape(sb: Sandbox, shape: Shape, where: string, extension: boolean): Promise<void> {
  const opts = { withExtension: extension, timeoutMs: RUN_TIMEOUT_MS };
  if (shape.prompts.every((p) => p.pauseBeforeMs === 0)) {
    const run = await runPrint(sb, shape.prompts.map((p) => p.text), [], opts);
    if (run.code !== 0) throw new Error(`${where}: pi exited ${run.code}:\n${run.stderr}`);
    if (run.stdout.includes("SCRIPT EXHAUSTED")) throw new Error(`${where}: pi asked for more replies than the script has`);
  } else {
    const run = await runPiRpc(sb, shape.prompts.map((p) => ({ type: "prompt", message: p.text, pauseBeforeMs: p.pauseBeforeMs })), opts);
    if (run.code !== 0) throw new Error(`${where}: pi exited ${run.code}:\n${run.stderr}`);
    const failed = run.responses.filter((r) => !r.success);
    if (failed.length > 0) throw new Error(`${where}: prompts refused: ${JSON.stringify(failed)}`);
    if (JSON.stringify(run.records).includes("SCRIPT EXHAUSTED")) throw new Error(`${where}: pi asked for more replies than the script has`);
  }
  const issues = problems(sb);
  if (issues.length > 0) throw new Error(`${where}: provider-side problems:\n${issues.join("\n")}`);
}

interface VariantRun {
  title: string;
  figures: RunFigures;
  recovery?: RecoveryCheck;
  fates?: RunFates;
}

async function runVariant(wire: Wire, id: ShapeId, variant: VariantId): Promise<VariantRun> {
  const work = await mkdtemp(join(tmpdir(), "pi-condense-bench-"));
  const shape = buildShape(id, { repoRoot: REPO_ROOT, workDir: join(work, "files"), idleMs: IDLE_MS, quick: QUICK });
  const price = shape.price?.[wire];
  const ttl = shape.ttlSeconds ?? TTL_SECONDS;
  const sb = await makeSandbox({
    api: wire,
    projectDir: REPO_ROOT,
    cache: new PromptCacheSim({ ttlMs: ttl * 1000, modelIds: cacheModelIds(wire, price) }),
    modelFields: pricedModelFields(ttl, wire, price),
    contextPrune: contextPrune(variant),
    settings: variant === "compaction" ? { compaction: { enabled: true } } : {},
    script: { main: shape.main, summarizers: [...DEFAULT_SUMMARIZERS, PI_COMPACTION] },
  });
  try {
    await playShape(sb, shape, `shape ${id}/${variant} (${wire})`, withExtension(variant));
    const figures = runFigures(sb.fake.requests, pricesFor(wire, price));
    figures.forgetting = await forgettingOf(sessionFile(sb), withExtension(variant) ? contextPrune(variant) : null, pricesFor(wire, price));
    if (shape.ttlSeconds) figures.warming = warmingOf(sb.fake.requests, pricesFor(wire, price)[MAIN_MODEL]!, ttl * 1000);
    if (!withExtension(variant)) return { title: shape.title, figures };
    if (KEEP_SESSIONS) await copyFile(sessionFile(sb), join(KEEP_SESSIONS, `${id}-${variant}-${wire}.jsonl`));
    const recovery = await checkRecoverable(sessionFile(sb), sb.sessionDir, sb.fake.requests);
    const fates = outputFates(SessionManager.open(sessionFile(sb), sb.sessionDir).getBranch(), sb.fake.requests);
    return { title: shape.title, figures, recovery, fates };
  } finally {
    await disposeSandbox(sb);
    await rm(work, { recursive: true, force: true });
  }
}

/** What became of each variant's outputs (runs with the extension), per shape and wire. */
type FatesOf = Partial<Record<VariantId, RunFates>>;

async function runShape(wire: Wire, id: ShapeId, recovery: RecoveryTally, fates: FatesOf): Promise<ShapeResult> {
  const result: ShapeResult = { id, wire, title: "", figures: {} };
  for (const variant of variantsFor(wire, id)) {
    const t0 = performance.now();
    const run = await runVariant(wire, id, variant);
    result.title = run.title;
    result.figures[variant] = run.figures;
    if (run.fates) fates[variant] = run.fates;
    if (run.recovery) {
      recovery.checked += run.recovery.checked;
      recovery.failures.push(...run.recovery.failures.map((f) => `${id}/${variant} (${wire}): ${f}`));
    }
    console.log(`  ran ${id}/${variant} (${wire}) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
  return result;
}

async function main(): Promise<void> {
  const started = performance.now();
  console.log(`session bench${QUICK ? " (quick)" : ""}: real pi CLI, loopback provider simulating each wire's prompt cache (TTL ${TTL_SECONDS} s, tokens = chars / 4)`);
  for (const w of WIRES) {
    const as = PRICED_AS[w.id];
    console.log(`  ${w.label} (${w.id}): ${w.rule}; main model priced as ${as.main}, summarizer as ${as.summarizer} (pi-ai catalog)`);
  }
  console.log("  cost = input + cache read + cache write + output + summarizer; $ prefix only: the Anthropic runs under issue 17's longest-shared-prefix reading");
  const results: ShapeResult[] = [];
  const fates = new Map<ShapeResult, FatesOf>();
  const recovery: RecoveryTally = { checked: 0, failures: [] };
  const wires = WIRES.filter((w) => !ONLY_WIRES || ONLY_WIRES.some((word) => w.id.includes(word)));
  for (const w of wires) {
    for (const id of SHAPE_IDS.filter((s) => (!ONLY || ONLY.includes(s)) && variantsFor(w.id, s).length > 0)) {
      const of: FatesOf = {};
      const result = await runShape(w.id, id, recovery, of);
      results.push(result);
      fates.set(result, of);
    }
  }
  console.log("");
  for (const r of results) console.log([...formatShapeTable(r), ...formatFates(fatesRuns(r, fates.get(r)), fates.get(r)?.classic), ""].join("\n"));
  for (const f of recovery.failures.slice(0, 20)) console.log(`  LOST ${f}`);
  console.log(`  total run time ${((performance.now() - started) / 1000).toFixed(0)} s`);
  const stranded = results.flatMap((r) => strandedTargets(fatesRuns(r, fates.get(r)), fates.get(r)?.classic));
  const bound = ONLY || ONLY_WIRES ? undefined : await runBoundCheck(QUICK ? 300 : 10_000);
  if (bound) console.log(["", ...bound.lines].join("\n"));
  reportTargets([...sessionTargets(results, recovery), ...stranded, ...(bound?.targets ?? [])]);
}

/** The runs of a shape with the extension, labeled for the fates lines and the stranding targets. */
function fatesRuns(r: ShapeResult, of: FatesOf | undefined): Array<{ where: string; label: string; fates: RunFates }> {
  const wire = WIRES.find((w) => w.id === r.wire)!.label;
  return VARIANTS.flatMap(({ id, label }) => {
    const f = of?.[id];
    return f ? [{ where: `${r.id} (${wire})`, label, fates: f }] : [];
  });
}

await main();
