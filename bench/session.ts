/**
 * Session bench (issue 17): five session shapes through the real pi CLI against the loopback provider
 * with its prompt-cache simulation, for four variants (no extension, pi's own compaction, pi-condense
 * with `flushPolicy: "classic"`, pi-condense with the default policy). Prints one table per shape
 * (main-model input, cache-read and cache-write tokens, summarizer tokens, prefix breaks, requests
 * that found the cache cold, dollars at claude-sonnet-4-5's catalog prices and the summarizer at
 * claude-haiku-4-5's), checks that every pruned output is still recoverable verbatim, and ends with
 * the targets. `--quick` (or BENCH_QUICK=1) runs shortened shapes as a smoke test; `--shapes=b,d`
 * runs only some shapes.
 * Run: bun bench/session.ts [--quick] [--shapes=a,b] [--check]
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PromptCacheSim } from "../test/e2e/cache-sim.js";
import { DEFAULT_SUMMARIZERS, type SummarizerRule } from "../test/e2e/fake-llm.js";
import { disposeSandbox, MAIN_MODEL, makeSandbox, REPO_ROOT, runPiRpc, runPrint, sessionFile, SUMMARIZER_MODEL, type Sandbox } from "../test/e2e/harness.js";
import { catalogCost, MAIN_PRICE_MODEL, pricedModelFields, SUMMARIZER_PRICE_MODEL } from "../test/e2e/priced-models.js";
import { problems } from "../test/e2e/scenario-kit.js";
import { runFigures, type PriceList, type RunFigures } from "./session-figures.js";
import { checkRecoverable, type RecoveryCheck } from "./session-recovery.js";
import { formatShapeTable, sessionTargets, VARIANTS, type RecoveryTally, type ShapeResult, type VariantId } from "./session-report.js";
import { buildShape, SHAPE_IDS, type Shape, type ShapeId } from "./session-shapes.js";
import { reportTargets } from "./targets.js";

/** The simulated cache lifetime, declared to pi as the fake models' `promptCache.short`. */
const TTL_SECONDS = 4;
const IDLE_MS = TTL_SECONDS * 1000 + 1500;
const RUN_TIMEOUT_MS = 10 * 60_000;
const QUICK = process.argv.includes("--quick") || process.env.BENCH_QUICK === "1";
/** `--shapes=b,d` runs only those shapes (the targets then cover only them). */
const ONLY = process.argv.find((a) => a.startsWith("--shapes="))?.slice("--shapes=".length).split(",");

/** pi's own compaction asks the main model for a checkpoint summary; the fake answers it like a summarizer. */
const PI_COMPACTION: SummarizerRule = { marker: "You are a context summarization assistant", reply: { text: "## Goal\nBench session.\n\n## Progress\n- Files were read." } };

const PRICES: PriceList = { [MAIN_MODEL]: catalogCost(MAIN_PRICE_MODEL), [SUMMARIZER_MODEL]: catalogCost(SUMMARIZER_PRICE_MODEL) };

function contextPrune(variant: VariantId): Record<string, unknown> | null {
  const base = { enabled: true, summarizerModel: `fake/${SUMMARIZER_MODEL}` };
  if (variant === "classic") return { ...base, flushPolicy: "classic" };
  return variant === "cost" ? base : null;
}

const withExtension = (variant: VariantId) => variant === "classic" || variant === "cost";

/** Print mode for a session without pauses; RPC mode, one process, when the user idles between prompts. */
async function playShape(sb: Sandbox, shape: Shape, variant: VariantId): Promise<void> {
  const where = `shape ${shape.id}/${variant}`;
  const opts = { withExtension: withExtension(variant), timeoutMs: RUN_TIMEOUT_MS };
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

async function runVariant(id: ShapeId, variant: VariantId): Promise<{ title: string; figures: RunFigures; recovery?: RecoveryCheck }> {
  const work = await mkdtemp(join(tmpdir(), "pi-condense-bench-"));
  const shape = buildShape(id, { repoRoot: REPO_ROOT, workDir: join(work, "files"), idleMs: IDLE_MS, quick: QUICK });
  const sb = await makeSandbox({
    api: "anthropic-messages",
    projectDir: REPO_ROOT,
    cache: new PromptCacheSim({ ttlMs: TTL_SECONDS * 1000 }),
    modelFields: pricedModelFields(TTL_SECONDS),
    contextPrune: contextPrune(variant),
    settings: variant === "compaction" ? { compaction: { enabled: true } } : {},
    script: { main: shape.main, summarizers: [...DEFAULT_SUMMARIZERS, PI_COMPACTION] },
  });
  try {
    await playShape(sb, shape, variant);
    const figures = runFigures(sb.fake.requests, PRICES);
    const recovery = withExtension(variant) ? await checkRecoverable(sessionFile(sb), sb.sessionDir, sb.fake.requests) : undefined;
    return { title: shape.title, figures, recovery };
  } finally {
    await disposeSandbox(sb);
    await rm(work, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const started = performance.now();
  console.log(`session bench${QUICK ? " (quick)" : ""}: real pi CLI, loopback provider simulating Anthropic's prompt cache (TTL ${TTL_SECONDS} s, tokens = chars / 4)`);
  console.log(`  main model priced as ${MAIN_PRICE_MODEL}, summarizer as ${SUMMARIZER_PRICE_MODEL} (pi-ai catalog); cost = input + cache read + cache write + output + summarizer`);
  const results: ShapeResult[] = [];
  const recovery: RecoveryTally = { checked: 0, failures: [] };
  for (const id of SHAPE_IDS.filter((s) => !ONLY || ONLY.includes(s))) {
    const figures = {} as Record<VariantId, RunFigures>;
    let title = "";
    for (const { id: variant } of VARIANTS) {
      const t0 = performance.now();
      const run = await runVariant(id, variant);
      title = run.title;
      figures[variant] = run.figures;
      if (run.recovery) {
        recovery.checked += run.recovery.checked;
        recovery.failures.push(...run.recovery.failures.map((f) => `${id}/${variant}: ${f}`));
      }
      console.log(`  ran ${id}/${variant} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    }
    results.push({ id, title, figures });
  }
  console.log("");
  for (const r of results) console.log([...formatShapeTable(r), ""].join("\n"));
  for (const f of recovery.failures.slice(0, 20)) console.log(`  LOST ${f}`);
  console.log(`  total run time ${((performance.now() - started) / 1000).toFixed(0)} s`);
  reportTargets(sessionTargets(results, recovery));
}

await main();
