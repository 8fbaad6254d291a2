/**
 * Render benchmark: ms per `pruneMessages` call on synthetic sessions of about
 * 2k, 8k and 32k messages (80% of tool results summarized, provider ids reused
 * every 50 calls, a dozen chain entries), for a pruning render and a no-op
 * render. pi hands the `context` hook a fresh deep copy on every request, so
 * each timed render gets a fresh structuredClone (cloning is not timed).
 *
 * The pruning column is the steady state: the index is unchanged between
 * requests, so stub decisions are reused. The "first after a flush" column
 * times the render right after a flush indexed one more batch (six outputs of
 * the transcript that were raw until then): only the positions the flush named
 * are decided again. The "first after a rebuild" column times the render right
 * after the index was rebuilt from the session, which decides every stub afresh;
 * it is reported, not targeted: a rebuild happens once per session start or
 * tree switch, and its growth follows the machine's caches (every decision
 * reads the index's maps, which outgrow them at 32k).
 *
 * Run: npm run bench:render
 */
import { ToolCallIndexer } from "../src/archive/indexer.js";
import { pruneMessages } from "../src/render/pruner.js";
import { CUSTOM_TYPE_CHAIN, CUSTOM_TYPE_INDEX, CUSTOM_TYPE_SUMMARY } from "../src/names.js";
import { DEFAULT_CONFIG } from "../src/settings/config-shape.js";
import type { ToolCallRecord } from "../src/capture/records.js";
import { reportTargets } from "./targets.js";

const SIZES = (process.env.BENCH_SIZES ?? "2000,8000,32000").split(",").map(Number);
const WARMUP = 5;
const SAMPLES = 20;
const ID_REUSE_PERIOD = 50;
const CHAIN_ENTRIES = 12;

interface Session {
  messages: any[];
  branch: any[];
  /** Results the index does not hold, in transcript order: what later flushes summarize. */
  raw: Array<{ toolCallId: string; resultTimestamp: number; text: string }>;
}

/** Output sizes cycle through 120, 300, 600 and 1500 chars (mean ~630), with newlines and quotes to escape. */
const OUTPUT_SIZES = [120, 300, 600, 1500];

function outputText(n: number): string {
  const line = `${n}: "lorem" ipsum dolor sit amet\n`;
  return line.repeat(Math.ceil(OUTPUT_SIZES[n % OUTPUT_SIZES.length] / line.length));
}

/** user -> 3 x (assistant with 2 calls -> 2 results) -> final text assistant, repeated. */
function buildSession(targetMessages: number, summarize: boolean): Session {
  const messages: any[] = [];
  const records: ToolCallRecord[] = [];
  const refs: Array<{ shortId: string; toolCallId: string; resultTimestamp: number }> = [];
  const raw: Session["raw"] = [];
  const chains: Array<{ start: number; final: number; ids: string[] }> = [];
  let ts = 1_000;
  let call = 0;
  while (messages.length < targetMessages) {
    const start = (ts += 10);
    messages.push({ role: "user", content: [{ type: "text", text: `task ${start}` }], timestamp: start });
    const chainIds: string[] = [];
    for (let turn = 0; turn < 3; turn++) {
      const ids = [0, 1].map(() => `bash_${call++ % ID_REUSE_PERIOD}`);
      messages.push({
        role: "assistant",
        content: [
          { type: "thinking", thinking: "considering the next step ".repeat(6), thinkingSignature: "sig" },
          ...ids.map((id) => ({ type: "toolCall", id, name: "bash", arguments: { command: `ls ${id}` } })),
        ],
        timestamp: (ts += 10),
      });
      for (const id of ids) {
        const resultTs = (ts += 10);
        const text = outputText(resultTs);
        messages.push({ role: "toolResult", toolCallId: id, toolName: "bash", content: [{ type: "text", text }], isError: false, timestamp: resultTs });
        chainIds.push(id);
        if (summarize && call % 5 !== 0) {
          records.push({ toolCallId: id, toolName: "bash", args: { command: `ls ${id}` }, resultText: text, isError: false, turnIndex: turn, timestamp: resultTs, resultTimestamp: resultTs });
          refs.push({ shortId: `t${refs.length + 1}`, toolCallId: id, resultTimestamp: resultTs });
        } else raw.push({ toolCallId: id, resultTimestamp: resultTs, text });
      }
    }
    const final = (ts += 10);
    messages.push({ role: "assistant", content: [{ type: "text", text: "done" }], timestamp: final });
    chains.push({ start, final, ids: chainIds });
  }
  return { messages, branch: summarize ? buildBranch(records, refs, chains) : [], raw };
}

function buildBranch(records: ToolCallRecord[], refs: any[], chains: Array<{ start: number; final: number; ids: string[] }>): any[] {
  const branch: any[] = [];
  for (let i = 0; i < records.length; i += 6) {
    branch.push({ type: "custom", customType: CUSTOM_TYPE_INDEX, data: { toolCalls: records.slice(i, i + 6) } });
    branch.push({
      type: "custom_message",
      customType: CUSTOM_TYPE_SUMMARY,
      content: `summary of batch ${i / 6}`,
      display: false,
      details: { toolCallRefs: refs.slice(i, i + 6), toolNames: ["bash"], turnIndex: i, timestamp: i },
      timestamp: i,
    });
  }
  chains.slice(0, CHAIN_ENTRIES).forEach((chain, k) => {
    branch.push({
      type: "custom",
      customType: CUSTOM_TYPE_CHAIN,
      data: {
        blockId: `b${k + 1}`,
        startUserTimestamp: chain.start,
        finalAssistantTimestamp: chain.final,
        droppedToolCallIds: chain.ids,
        toolRefs: [`t${k + 1}`],
        compressedAt: 10_000_000 + k,
      },
    });
  });
  return branch;
}

function indexerFor(branch: any[]): ToolCallIndexer {
  const indexer = new ToolCallIndexer();
  indexer.reconstructFromSession({ sessionManager: { getBranch: () => branch } } as any);
  return indexer;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

type IndexEvent = "none" | "flush" | "rebuild";

const BATCH_SIZE = 6;

/** What the host does when a flush summarizes one batch: records, refs, the summary body. */
function flushNextBatch(indexer: ToolCallIndexer, session: Session, flushed: { count: number }): void {
  const calls = session.raw.slice(flushed.count, flushed.count + BATCH_SIZE);
  if (calls.length === 0) throw new Error("the bench session has no raw results left to flush");
  flushed.count += calls.length;
  const batch = {
    turnIndex: 0,
    timestamp: calls[0]!.resultTimestamp,
    assistantText: "",
    toolCalls: calls.map((c) => ({ toolCallId: c.toolCallId, toolName: "bash", args: { command: `ls ${c.toolCallId}` }, resultText: c.text, isError: false, resultTimestamp: c.resultTimestamp })),
  };
  const refs = indexer.allocateSummaryRefs(batch);
  indexer.addBatch(batch, () => {}, refs);
  indexer.registerSummaryRefs(refs);
}

/** `event`: what happens to the index before every timed render (not timed itself). */
function timeRenders(session: Session, event: IndexEvent = "none"): { ms: number; best: number; pruned: boolean; serializations: number } {
  const indexer = indexerFor(session.branch);
  const render = (messages: any[]) =>
    pruneMessages(messages, indexer, DEFAULT_CONFIG.chainCompression, DEFAULT_CONFIG.purgeErrors, DEFAULT_CONFIG, DEFAULT_CONFIG.recoveryGraceTurns, undefined, undefined, undefined, DEFAULT_CONFIG.stubArguments);
  for (let i = 0; i < WARMUP; i++) render(structuredClone(session.messages));
  const samples: number[] = [];
  let pruned = false;
  let serializations = 0;
  const stringify = JSON.stringify;
  const flushed = { count: 0 };
  for (let i = 0; i < SAMPLES; i++) {
    const copy = structuredClone(session.messages);
    if (event === "flush") flushNextBatch(indexer, session, flushed);
    if (event === "rebuild") indexer.reconstructFromSession({ sessionManager: { getBranch: () => session.branch } } as any);
    Bun.gc(true);
    let calls = 0;
    JSON.stringify = ((...args: Parameters<typeof stringify>) => (calls++, stringify(...args))) as typeof stringify;
    const started = performance.now();
    const result = render(copy);
    samples.push(performance.now() - started);
    JSON.stringify = stringify;
    pruned = result.pruned;
    serializations = calls;
  }
  return { ms: median(samples), best: Math.min(...samples), pruned, serializations };
}

function main(): void {
  console.log(`pruneMessages: median of ${SAMPLES} renders after ${WARMUP} warm-up, fresh clone per render`);
  console.log("messages | JSON MB | pruning ms (median / best) | first after a flush ms | first after a rebuild ms | no-op ms | no-op JSON.stringify calls");
  const columns = { pruning: [] as number[], flush: [] as number[], rebuild: [] as number[], noop: [] as number[] };
  let serializedNoop = 0;
  for (const size of SIZES) {
    const session = buildSession(size, true);
    const megabytes = JSON.stringify(session.messages).length / 1e6;
    const prune = timeRenders(session);
    const flush = timeRenders(session, "flush");
    const rebuild = timeRenders(session, "rebuild");
    const noop = timeRenders(buildSession(size, false));
    if (!prune.pruned || !flush.pruned || !rebuild.pruned || noop.pruned) throw new Error("bench fixture did not produce the expected render kinds");
    columns.pruning.push(prune.ms);
    columns.flush.push(flush.ms);
    columns.rebuild.push(rebuild.ms);
    columns.noop.push(noop.ms);
    serializedNoop += noop.serializations;
    const pruneMs = `${prune.ms.toFixed(2)} / ${prune.best.toFixed(2)}`;
    console.log(
      `${String(size).padStart(8)} | ${megabytes.toFixed(1).padStart(7)} | ${pruneMs.padStart(26)} | ${flush.ms.toFixed(2).padStart(22)} | ${rebuild.ms.toFixed(2).padStart(24)} | ${noop.ms.toFixed(2).padStart(8)} | ${noop.serializations}`,
    );
  }
  const growth = (ms: number[]) => ms[2]! / ms[1]!;
  console.log(
    `growth 32k/8k: pruning ${growth(columns.pruning).toFixed(2)}x, first after a flush ${growth(columns.flush).toFixed(2)}x, no-op ${growth(columns.noop).toFixed(2)}x (target <= 4.5x each; first after a rebuild ${growth(columns.rebuild).toFixed(2)}x, not targeted); 32k pruning render target < 25 ms, 32k no-op < 3 ms`,
  );
  const targets = [
    { name: "growth 32k/8k <= 4.5x, pruning (median)", met: growth(columns.pruning) <= 4.5 },
    { name: "growth 32k/8k <= 4.5x, first after a flush (median)", met: growth(columns.flush) <= 4.5 },
    { name: "growth 32k/8k <= 4.5x, no-op (median)", met: growth(columns.noop) <= 4.5 },
    { name: "32k pruning render < 25 ms (median)", met: columns.pruning[2]! < 25 },
    { name: "32k no-op render < 3 ms (median)", met: columns.noop[2]! < 3 },
    { name: "no-op renders call JSON.stringify 0 times", met: serializedNoop === 0 },
  ];
  reportTargets(targets);
}

main();
