/**
 * Render benchmark: ms per `pruneMessages` call on synthetic sessions of about
 * 2k, 8k and 32k messages (80% of tool results summarized, provider ids reused
 * every 50 calls, a dozen chain entries), for a pruning render and a no-op
 * render. pi hands the `context` hook a fresh deep copy on every request, so
 * each timed render gets a fresh structuredClone (cloning is not timed).
 *
 * The pruning column is the steady state: the index is unchanged between
 * requests (it changes once per flush), so stub decisions are reused. The
 * "first after index change" column times the render right after a change,
 * which decides every stub afresh.
 *
 * Run: npm run bench:render
 */
import { ToolCallIndexer } from "../src/archive/indexer.js";
import { pruneMessages } from "../src/render/pruner.js";
import { CUSTOM_TYPE_CHAIN, CUSTOM_TYPE_INDEX, CUSTOM_TYPE_SUMMARY, DEFAULT_CONFIG, type ToolCallRecord } from "../src/types.js";
import { reportTargets } from "./targets.js";

const SIZES = (process.env.BENCH_SIZES ?? "2000,8000,32000").split(",").map(Number);
const WARMUP = 5;
const SAMPLES = 20;
const ID_REUSE_PERIOD = 50;
const CHAIN_ENTRIES = 12;

interface Session {
  messages: any[];
  branch: any[];
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
        }
      }
    }
    const final = (ts += 10);
    messages.push({ role: "assistant", content: [{ type: "text", text: "done" }], timestamp: final });
    chains.push({ start, final, ids: chainIds });
  }
  return { messages, branch: summarize ? buildBranch(records, refs, chains) : [] };
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

/** `afterIndexChange`: every timed render follows a change to the index, so no stub decision can be reused. */
function timeRenders(session: Session, afterIndexChange = false): { ms: number; best: number; pruned: boolean; serializations: number } {
  const indexer = indexerFor(session.branch);
  const render = (messages: any[]) =>
    pruneMessages(messages, indexer, DEFAULT_CONFIG.chainCompression, DEFAULT_CONFIG.purgeErrors, DEFAULT_CONFIG, DEFAULT_CONFIG.recoveryGraceTurns);
  for (let i = 0; i < WARMUP; i++) render(structuredClone(session.messages));
  const samples: number[] = [];
  let pruned = false;
  let serializations = 0;
  const stringify = JSON.stringify;
  for (let i = 0; i < SAMPLES; i++) {
    const copy = structuredClone(session.messages);
    if (afterIndexChange) indexer.registerSummaryRefs([]);
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
  console.log("messages | JSON MB | pruning ms (median / best) | first after index change ms | no-op ms | no-op JSON.stringify calls");
  const pruning: number[] = [];
  const changedMs: number[] = [];
  const noopMs: number[] = [];
  let serializedNoop = 0;
  for (const size of SIZES) {
    const session = buildSession(size, true);
    const megabytes = JSON.stringify(session.messages).length / 1e6;
    const prune = timeRenders(session);
    const changed = timeRenders(session, true);
    const noop = timeRenders(buildSession(size, false));
    if (!prune.pruned || noop.pruned) throw new Error("bench fixture did not produce the expected render kinds");
    pruning.push(prune.ms);
    changedMs.push(changed.ms);
    noopMs.push(noop.ms);
    serializedNoop += noop.serializations;
    const pruneMs = `${prune.ms.toFixed(2)} / ${prune.best.toFixed(2)}`;
    console.log(
      `${String(size).padStart(8)} | ${megabytes.toFixed(1).padStart(7)} | ${pruneMs.padStart(26)} | ${changed.ms.toFixed(2).padStart(27)} | ${noop.ms.toFixed(2).padStart(8)} | ${noop.serializations}`,
    );
  }
  const growth = (ms: number[]) => ms[2]! / ms[1]!;
  console.log(
    `growth 32k/8k: pruning ${growth(pruning).toFixed(2)}x, first after index change ${growth(changedMs).toFixed(2)}x, no-op ${growth(noopMs).toFixed(2)}x (target <= 4.5x each); 32k pruning render target < 25 ms, 32k no-op < 3 ms`,
  );
  const targets = [
    { name: "growth 32k/8k <= 4.5x, pruning (median)", met: growth(pruning) <= 4.5 },
    { name: "growth 32k/8k <= 4.5x, first after index change (median)", met: growth(changedMs) <= 4.5 },
    { name: "growth 32k/8k <= 4.5x, no-op (median)", met: growth(noopMs) <= 4.5 },
    { name: "32k pruning render < 25 ms (median)", met: pruning[2]! < 25 },
    { name: "32k no-op render < 3 ms (median)", met: noopMs[2]! < 3 },
    { name: "no-op renders call JSON.stringify 0 times", met: serializedNoop === 0 },
  ];
  reportTargets(targets);
}

main();
