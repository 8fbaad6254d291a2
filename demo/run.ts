// `npm run demo`: runs one scripted session over this repository through the real pi CLI against
// the bundled loopback fake provider, once with pruning off and once on, and prints a report.
// No network, no API key. Pass --verbose for the per-request table.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runFigures } from "../bench/session-figures.js";
import { PromptCacheSim } from "../test/e2e/cache-sim.js";
import { disposeSandbox, makeSandbox, runPrint, REPO_ROOT, sessionEntries, sessionFile, type Sandbox } from "../test/e2e/harness.js";
import { measureRequests, type RequestMetrics } from "../test/e2e/metrics.js";
import { cacheModelIds, MAIN_PRICE_MODEL, pricedModelFields, pricesFor, SUMMARIZER_PRICE_MODEL } from "../test/e2e/priced-models.js";
import { flushMetrics, problems } from "../test/e2e/scenario-kit.js";
import { toolMessages } from "../test/e2e/wire-view.js";
import { promptListWords } from "../src/summarize/flush-report.js";
import { flushWords } from "./flush-words.js";
import { buildDemoScript } from "./script.js";

interface Pass {
  sb: Sandbox;
  metrics: RequestMetrics;
  /** Every request billed under Anthropic's cache rule at the catalog prices of the models the fakes stand for. */
  dollars: number;
  ms: number;
}

/** The figures the README quotes; test/e2e/demo.e2e.test.ts holds the README to them. */
export interface DemoFigures {
  prompts: number;
  toolCalls: number;
  reclaimPct: number;
  dollarsOff: number;
  dollarsOn: number;
  /** The prompts whose work was compressed, in the words the demo prints after `earlier prompts' work compressed: `. */
  compressed: string;
  /** The pruning-on run's session file, kept for the user to look at. */
  sessionFile: string;
  /** The folder the demo worked in; it keeps only that session (and its archive). */
  dir: string;
}

/** The simulated cache lives for the whole run: the demo's prompts follow each other within seconds. */
const CACHE_TTL_SECONDS = 300;

async function runPass(enabled: boolean, dir: string): Promise<Pass> {
  const script = buildDemoScript(REPO_ROOT);
  const sb = await makeSandbox({
    root: join(dir, enabled ? "pruning-on" : "pruning-off"),
    projectDir: REPO_ROOT,
    contextPrune: { enabled },
    script: { main: script.main },
    cache: new PromptCacheSim({ ttlMs: CACHE_TTL_SECONDS * 1000, modelIds: cacheModelIds() }),
    modelFields: pricedModelFields(CACHE_TTL_SECONDS),
  });
  const run = await runPrint(sb, script.prompts, [], { timeoutMs: 120000 });
  if (run.code !== 0) throw new Error(`pi exited ${run.code} (pruning ${enabled ? "on" : "off"}):\n${run.stderr}`);
  const issues = problems(sb);
  if (issues.length > 0) throw new Error(`provider-side problems (pruning ${enabled ? "on" : "off"}):\n${issues.join("\n")}`);
  const dollars = runFigures(sb.fake.requests, pricesFor("anthropic-messages")).costUsd;
  return { sb, metrics: measureRequests(sb.fake.requests), dollars, ms: run.ms };
}

const n = (x: number) => x.toLocaleString("en-US");
const usd = (x: number) => `$${x.toFixed(4)}`;
const row = (label: string, off: string, on: string) => `  ${label.padEnd(30)}${off.padStart(14)}${on.padStart(14)}`;

function countTools(entries: any[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const e of entries) {
    if (e.type !== "message" || e.message.role !== "toolResult") continue;
    counts.set(e.message.toolName, (counts.get(e.message.toolName) ?? 0) + 1);
  }
  return counts;
}

function recovered(on: Pass): string[] {
  const entries = sessionEntries(on.sb);
  const original = entries.find((e) => e.type === "message" && e.message.role === "toolResult")?.message;
  const originalText = (original?.content ?? []).map((b: any) => b.text ?? "").join("\n");
  const answer = on.sb.fake.requests
    .filter((r) => r.kind === "main")
    .flatMap((r) => toolMessages(r))
    .find((m) => m.text.startsWith("## toolRef: t1\n"));
  if (!answer) return ["  (no context_tree_query answer for t1 reached the provider)"];
  const lines = answer.text.split("\n");
  return [
    ...lines.slice(0, 10).map((l) => `    ${l}`),
    `    ... (${lines.length} lines in total)`,
    `  verbatim match with the original ${original?.toolName ?? "?"} output: ${originalText.length > 0 && answer.text.endsWith(originalText) ? "yes" : "NO"}`,
  ];
}

function perRequest(label: string, m: RequestMetrics): string[] {
  return [`  ${label}:`, ...m.requests.map((r) => `    #${String(r.seq).padEnd(4)}${r.kind.padEnd(12)}${n(r.inputChars).padStart(10)} chars${r.prefixBreak ? "  prefix break" : ""}`)];
}

/** Runs the tour twice, prints as it goes (`log`), and returns the figures the README quotes. */
export async function runDemo(verbose: boolean, log: (line: string) => void = console.log): Promise<DemoFigures> {
  const script = buildDemoScript(REPO_ROOT);
  // TMPDIR, not HOME: pi runs with a home of its own in there, so the user's ~/.pi is never touched.
  const dir = mkdtempSync(join(tmpdir(), "pi-condense-demo-"));
  log("pi-condense demo: a scripted code tour of this repository through the real pi CLI");
  log(`  fake provider on 127.0.0.1 (no network, no API key); ${script.prompts.length} prompts, ${script.toolCalls} scripted tool calls; running twice...`);
  log(`  working in ${dir} (the system temp dir; your ~/.pi is not touched)`);
  const off = await runPass(false, dir);
  const on = await runPass(true, dir);
  try {
    const entries = sessionEntries(on.sb);
    const tools = [...countTools(entries)].map(([k, v]) => `${k} ${v}`).join(", ");
    const reclaim = 1 - on.metrics.mainInputChars / off.metrics.mainInputChars;
    const saved = 1 - on.dollars / off.dollars;
    const prompts = entries.filter((e) => e.type === "message" && e.message.role === "user").map((e) => e.message.timestamp);
    const chains: number[] = entries.filter((e) => e.customType === "context-prune-chain").map((e) => prompts.indexOf(e.data.startUserTimestamp) + 1);
    const compressed = chains.length > 0 ? `${promptListWords(chains)} of ${prompts.length}, each into one summary block` : "none";
    const lines = [
      "",
      `  tool calls executed by pi: ${tools}`,
      "",
      row("", "pruning OFF", "pruning ON"),
      row("main-model requests", n(off.metrics.mainRequests), n(on.metrics.mainRequests)),
      row("summarizer requests", n(off.metrics.summarizerRequests), n(on.metrics.summarizerRequests)),
      row("provider input, main (chars)", n(off.metrics.mainInputChars), n(on.metrics.mainInputChars)),
      row("summarizer input (chars)", n(off.metrics.summarizerInputChars), n(on.metrics.summarizerInputChars)),
      row("cache-prefix breaks", n(off.metrics.prefixBreaks), n(on.metrics.prefixBreaks)),
      row("dollars (both models)", usd(off.dollars), usd(on.dollars)),
      row("wall time (ms)", n(off.ms), n(on.ms)),
      "",
      `  reclaim: ${(reclaim * 100).toFixed(1)}% less main-model input with pruning on`,
      `  dollars: ${usd(off.dollars)} without pruning, ${usd(on.dollars)} with it (${(Math.abs(saved) * 100).toFixed(1)}% ${saved >= 0 ? "saved" : "more"}), summarizer included`,
      `    priced as ${MAIN_PRICE_MODEL} (main) and ${SUMMARIZER_PRICE_MODEL} (summarizer) from pi-ai's catalog, Anthropic's prompt-cache rule simulated, tokens = chars / 4`,
      `  flushes: ${flushWords(flushMetrics(entries))}`,
      `  earlier prompts' work compressed: ${compressed}`,
      "  recovered original via context_tree_query(t1):",
      ...recovered(on),
      `  session file (pruning on), kept: ${sessionFile(on.sb)}`,
      `  what it cost, pruned and not: npm run report -- ${sessionFile(on.sb)} --model anthropic/${MAIN_PRICE_MODEL}`,
      `    or, in pi: /pruner report <that file> --model anthropic/${MAIN_PRICE_MODEL}`,
      on.metrics.summarizerRequests === 0
        ? "  no summarizer call: every output here can be had again (reads, listings), so each was archived without a summary."
        : "  summaries come from the fake summarizer, so the reclaim figure shows the mechanism, not a model's quality.",
    ];
    if (verbose) lines.push("", ...perRequest("pruning OFF", off.metrics), ...perRequest("pruning ON", on.metrics));
    log(lines.join("\n"));
    return { prompts: script.prompts.length, toolCalls: script.toolCalls, reclaimPct: reclaim * 100, dollarsOff: off.dollars, dollarsOn: on.dollars, compressed, sessionFile: sessionFile(on.sb), dir };
  } finally {
    await disposeSandbox(off.sb);
    await on.sb.fake.close();
    rmSync(on.sb.agentDir, { recursive: true, force: true });
  }
}

if (import.meta.main) await runDemo(process.argv.includes("--verbose"));
