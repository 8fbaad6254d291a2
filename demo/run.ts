// `npm run demo`: runs one scripted session over this repository through the real pi CLI against
// the bundled loopback fake provider, once with pruning off and once on, and prints a report.
// No network, no API key. Pass --verbose for the per-request table.
import { rmSync } from "node:fs";
import { disposeSandbox, makeSandbox, runPrint, REPO_ROOT, sessionEntries, sessionFile, type Sandbox } from "../test/e2e/harness.js";
import { measureRequests, type RequestMetrics } from "../test/e2e/metrics.js";
import { flushMetrics, problems } from "../test/e2e/scenario-kit.js";
import { toolMessages } from "../test/e2e/wire-view.js";
import { buildDemoScript } from "./script.js";

interface Pass {
  sb: Sandbox;
  metrics: RequestMetrics;
  ms: number;
}

async function runPass(enabled: boolean): Promise<Pass> {
  const script = buildDemoScript(REPO_ROOT);
  const sb = await makeSandbox({ projectDir: REPO_ROOT, contextPrune: { enabled }, script: { main: script.main } });
  const run = await runPrint(sb, script.prompts, [], { timeoutMs: 120000 });
  if (run.code !== 0) throw new Error(`pi exited ${run.code} (pruning ${enabled ? "on" : "off"}):\n${run.stderr}`);
  const issues = problems(sb);
  if (issues.length > 0) throw new Error(`provider-side problems (pruning ${enabled ? "on" : "off"}):\n${issues.join("\n")}`);
  return { sb, metrics: measureRequests(sb.fake.requests), ms: run.ms };
}

const n = (x: number) => x.toLocaleString("en-US");
const row = (label: string, off: string, on: string) => `  ${label.padEnd(30)}${off.padStart(14)}${on.padStart(14)}`;

function countTools(entries: any[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const e of entries) {
    if (e.type !== "message" || e.message.role !== "toolResult") continue;
    counts.set(e.message.toolName, (counts.get(e.message.toolName) ?? 0) + 1);
  }
  return counts;
}

function flushSummary(entries: any[]): string {
  const tally = new Map<string, number>();
  for (const m of flushMetrics(entries)) tally.set(`${m.trigger}/${m.outcome}`, (tally.get(`${m.trigger}/${m.outcome}`) ?? 0) + 1);
  const parts = [...tally].map(([k, v]) => `${k} x${v}`);
  return `${flushMetrics(entries).length} (${parts.join(", ")})`;
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

async function main(): Promise<void> {
  const verbose = process.argv.includes("--verbose");
  const script = buildDemoScript(REPO_ROOT);
  console.log("pi-condense demo: a scripted code tour of this repository through the real pi CLI");
  console.log(`  fake provider on 127.0.0.1 (no network, no API key); ${script.prompts.length} prompts, ${script.toolCalls} scripted tool calls; running twice...`);
  const off = await runPass(false);
  const on = await runPass(true);
  try {
    const entries = sessionEntries(on.sb);
    const tools = [...countTools(entries)].map(([k, v]) => `${k} ${v}`).join(", ");
    const reclaim = 1 - on.metrics.mainInputChars / off.metrics.mainInputChars;
    const chains = entries.filter((e) => e.customType === "context-prune-chain").map((e) => e.data.blockId);
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
      row("wall time (ms)", n(off.ms), n(on.ms)),
      "",
      `  reclaim: ${(reclaim * 100).toFixed(1)}% less main-model input with pruning on`,
      `  flushes: ${flushSummary(entries)}`,
      `  chains compressed: ${chains.length > 0 ? chains.join(", ") : "none"}`,
      "  recovered original via context_tree_query(t1):",
      ...recovered(on),
      `  session file (pruning on): ${sessionFile(on.sb)}`,
      "  summaries come from the fake summarizer, so the reclaim figure shows the mechanism, not a model's quality.",
    ];
    if (verbose) lines.push("", ...perRequest("pruning OFF", off.metrics), ...perRequest("pruning ON", on.metrics));
    console.log(lines.join("\n"));
  } finally {
    await disposeSandbox(off.sb);
    await on.sb.fake.close();
    rmSync(on.sb.agentDir, { recursive: true, force: true });
  }
}

await main();
