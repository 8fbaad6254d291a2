/**
 * Huge-batch benchmark: one user prompt, one assistant turn with 100,000 tool
 * calls (distinct ids except a few reused ones, `bash` and `read` calls, small
 * varied outputs, an error now and then) and their results. Every path that
 * walks one batch must stay linear in its size.
 *
 * Timed, each on its own (median of the samples, after a warm-up):
 * - live capture: what turn_end does with the turn (captureBatch, the
 *   protection filter, trimBatchToPendingRange against the index);
 * - turn_end context metrics over the branch (computeContextMetrics);
 * - branch rescan (captureUnindexedBatchesFromSession) before the flush
 *   (nothing indexed) and after it (everything indexed);
 * - what a flush does to the index for the batch: refs allocation, inline ref
 *   substitution, refs footer, addBatch, refs and summary body registration;
 * - the render (pruneMessages with the default settings) with every result
 *   summarized (first render with a newly built index, which decides every
 *   stub afresh, and the steady state),
 *   with nothing summarized, and once the turn is closed by a text reply and
 *   its chain compressed; each render gets a fresh structuredClone, as pi
 *   hands the hook a deep copy (cloning is not timed);
 * - the orphan sweep alone.
 *
 * Run: npm run bench:huge (HUGE_CALLS and HUGE_SAMPLES override the size and sample count)
 */
import { captureBatch, captureUnindexedBatchesFromSession } from "../src/capture/batch-capture.js";
import { computeContextMetrics } from "../src/host/context-metrics.js";
import { ToolCallIndexer } from "../src/archive/indexer.js";
import { projectBranchMessages } from "../src/capture/batch-capture.js";
import { occKey } from "../src/capture/occurrence-key.js";
import { sweepOrphanToolResults } from "../src/render/orphan-sweep.js";
import { trimBatchToPendingRange } from "../src/capture/pending-batches.js";
import { isProtected } from "../src/capture/protected.js";
import { pruneMessages } from "../src/render/pruner.js";
import { formatSummaryToolCallRefs, makeSummaryDetails, substituteInlineRefs } from "../src/archive/summary-refs.js";
import type { CapturedBatch, ChainCompressionEntry } from "../src/capture/records.js";
import { DEFAULT_CONFIG } from "../src/settings/config-shape.js";
import { reportTargets } from "./targets.js";

const CALLS = Number(process.env.HUGE_CALLS ?? 100_000);
const SAMPLES = Number(process.env.HUGE_SAMPLES ?? 5);
const WARMUP = SAMPLES > 1 ? 1 : 0;
/** Calls at these positions reuse the id of the call 1,000 positions earlier. */
const REUSE_EVERY = 20_000;
const SUMMARY_LINES = 2_000;
const CONFIG = { ...DEFAULT_CONFIG, enabled: true };

interface Fixture {
  assistant: any;
  results: any[];
  messages: any[];
  branch: any[];
  /** The transcript once a text reply closed the chain. */
  closed: any[];
}

function callId(i: number): string {
  return i > 0 && i % REUSE_EVERY === 0 ? `call_${i - 1_000}` : `call_${i}`;
}

function output(i: number): string {
  const line = `${i}: entry "${(i * 7919) % 1000}"\n`;
  return line.repeat(1 + (i % 5));
}

function buildFixture(): Fixture {
  const user = { role: "user", content: [{ type: "text", text: "run every check" }], timestamp: 1_000 };
  const content: any[] = [{ type: "text", text: "Running all checks." }];
  const results: any[] = [];
  for (let i = 0; i < CALLS; i++) {
    const id = callId(i);
    const read = i % 3 === 0;
    const args = read ? { path: `/repo/src/module${i}.ts` } : { command: `check --case ${i}` };
    content.push({ type: "toolCall", id, name: read ? "read" : "bash", arguments: args });
    results.push({
      role: "toolResult",
      toolCallId: id,
      toolName: read ? "read" : "bash",
      content: [{ type: "text", text: output(i) }],
      isError: i % 997 === 0,
      timestamp: 3_000 + i,
    });
  }
  const assistant = { role: "assistant", content, api: "fake", provider: "fake", model: "fake", stopReason: "toolUse", timestamp: 2_000 };
  const messages = [user, assistant, ...results];
  const branch = messages.map((message, i) => ({
    type: "message",
    id: `e${i}`,
    parentId: i === 0 ? null : `e${i - 1}`,
    timestamp: new Date(message.timestamp).toISOString(),
    message,
  }));
  const reply = { role: "assistant", content: [{ type: "text", text: "All checks ran." }], stopReason: "stop", timestamp: 900_000 };
  return { assistant, results, messages, branch, closed: [...messages, reply] };
}

/** The turn_end capture: the batch, the protection filter, the trim against the index. */
function liveCapture(f: Fixture, indexer: ToolCallIndexer): CapturedBatch | null {
  const batch = captureBatch(f.assistant, f.results, 0, 5_000);
  const filtered = { ...batch, toolCalls: batch.toolCalls.filter((tc) => !isProtected(tc.toolName, tc.args, CONFIG)) };
  return trimBatchToPendingRange(filtered, (key) => indexer.isSummarized(key), null);
}

function summaryReply(): string {
  const lines: string[] = [];
  for (let k = 0; k < SUMMARY_LINES; k++) {
    const n = 1 + Math.floor((k * CALLS) / SUMMARY_LINES);
    lines.push(`- [[${n}:${n % 3 === 1 ? "read" : "bash"}]] case ${n - 1} passed`);
  }
  return lines.join("\n");
}

/** What a successful flush does to the index for one batch (flush-persist.ts). */
function persistBatch(indexer: ToolCallIndexer, batch: CapturedBatch, reply: string): void {
  const refs = indexer.allocateSummaryRefs(batch);
  const toolNames = batch.toolCalls.map((tc) => tc.toolName);
  const text = substituteInlineRefs(reply, refs, toolNames) + formatSummaryToolCallRefs(refs);
  makeSummaryDetails(batch, refs);
  indexer.registerSummaryRefs(refs);
  indexer.addBatch(batch, () => {});
  indexer.registerSummaryBody(
    batch.toolCalls.map((tc) => occKey(tc.toolCallId, tc.resultTimestamp)),
    text,
  );
}

/** The chain entry a compression of the closed turn persists. */
function chainEntry(f: Fixture, batch: CapturedBatch, indexer: ToolCallIndexer): ChainCompressionEntry {
  const keys = batch.toolCalls.map((tc) => occKey(tc.toolCallId, tc.resultTimestamp));
  return {
    blockId: "b1",
    startUserTimestamp: f.messages[0].timestamp,
    droppedToolCallIds: batch.toolCalls.map((tc) => tc.toolCallId),
    droppedOccurrenceKeys: keys,
    finalAssistantTimestamp: f.closed[f.closed.length - 1].timestamp,
    toolRefs: indexer.getToolRefsForToolCallIds(keys),
    compressedAt: 950_000,
  };
}

function render(messages: any[], indexer: ToolCallIndexer) {
  return pruneMessages(messages, indexer, CONFIG.chainCompression, CONFIG.purgeErrors, CONFIG, CONFIG.recoveryGraceTurns, undefined, undefined, undefined, CONFIG.stubArguments);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** `prepare` runs untimed before each sample; its value is handed to `run`. */
function time<T>(prepare: () => T, run: (input: T) => unknown): { median: number; best: number } {
  const samples: number[] = [];
  for (let i = 0; i < WARMUP + SAMPLES; i++) {
    const input = prepare();
    (globalThis as any).Bun?.gc?.(true);
    const started = performance.now();
    run(input);
    if (i >= WARMUP) samples.push(performance.now() - started);
  }
  return { median: median(samples), best: Math.min(...samples) };
}

function main(): void {
  const f = buildFixture();
  const megabytes = JSON.stringify(f.messages).length / 1e6;
  console.log(`huge batch: ${CALLS} tool calls in one assistant turn, ${f.messages.length} messages, ${megabytes.toFixed(1)} MB of JSON`);
  console.log(`median of ${SAMPLES} sample(s) after ${WARMUP} warm-up`);

  const empty = new ToolCallIndexer();
  const batch = liveCapture(f, empty);
  if (!batch) throw new Error("the live capture produced no batch");
  const reply = summaryReply();
  const summarized = new ToolCallIndexer();
  persistBatch(summarized, batch, reply);
  const chained = new ToolCallIndexer();
  persistBatch(chained, batch, reply);
  chained.registerChain(chainEntry(f, batch, chained));
  const ctxProtection = (toolName: string, args: unknown) => isProtected(toolName, args, CONFIG);
  const projection = projectBranchMessages(f.branch);

  const rows: Array<{ name: string; ms: { median: number; best: number }; targetMs?: number }> = [];
  const add = (name: string, ms: { median: number; best: number }, targetMs?: number) => {
    rows.push({ name, ms, targetMs });
    console.log(`  done: ${name}`);
  };

  add("live capture (turn_end)", time(() => undefined, () => liveCapture(f, empty)), 1_000);
  add(
    "turn_end context metrics",
    time(() => undefined, () => computeContextMetrics(projection, null, (key) => empty.isSummarized(key), ctxProtection)),
    1_000,
  );
  add("branch rescan, nothing indexed", time(() => undefined, () => captureUnindexedBatchesFromSession(f.branch, empty, ctxProtection)), 2_000);
  add("branch rescan, all indexed", time(() => undefined, () => captureUnindexedBatchesFromSession(f.branch, summarized, ctxProtection)), 2_000);
  add("index: refs + addBatch + body", time(() => new ToolCallIndexer(), (indexer) => persistBatch(indexer, batch, reply)));
  add(
    "render, all summarized, new index",
    time(
      () => {
        const rebuilt = new ToolCallIndexer();
        persistBatch(rebuilt, batch, reply);
        return { messages: structuredClone(f.messages), rebuilt };
      },
      ({ messages, rebuilt }) => render(messages, rebuilt),
    ),
    2_000,
  );
  add("render, all summarized, steady", time(() => structuredClone(f.messages), (messages) => render(messages, summarized)), 2_000);
  add("render, nothing summarized", time(() => structuredClone(f.messages), (messages) => render(messages, empty)), 2_000);
  add("render, chain compressed", time(() => structuredClone(f.closed), (messages) => render(messages, chained)), 2_000);
  add("orphan sweep alone", time(() => structuredClone(f.messages), (messages) => sweepOrphanToolResults(messages)));

  if (!render(structuredClone(f.messages), summarized).pruned) throw new Error("the summarized render pruned nothing");
  if (render(structuredClone(f.closed), chained).messages.length !== 3) throw new Error("the chain did not compress");

  console.log("");
  console.log(`${"case".padEnd(44)} | ${"median ms".padStart(10)} | ${"best ms".padStart(10)} | target`);
  for (const row of rows) {
    const target = row.targetMs === undefined ? "" : `< ${row.targetMs} ms`;
    console.log(`${row.name.padEnd(44)} | ${row.ms.median.toFixed(1).padStart(10)} | ${row.ms.best.toFixed(1).padStart(10)} | ${target}`);
  }
  const targeted = rows.filter((row) => row.targetMs !== undefined);
  console.log("");
  console.log("targets: capture and turn_end metrics < 1 s; rescan < 2 s; every render case < 2 s per request");
  reportTargets(targeted.map((row) => ({ name: row.name, met: row.ms.median < row.targetMs! })));
}

main();
