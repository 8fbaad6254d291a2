/**
 * Reload benchmark: time `ToolCallIndexer.reconstructFromSession` and the branch
 * rescan `captureUnindexedBatchesFromSession` on synthetic branches of about 2k,
 * 8k and 32k entries (messages, index, summary, dedup-alias and chain entries).
 *
 * A rebuild defers dedup seeding to the first content lookup (the next flush), so
 * "rebuild + first lookup" is the reload's whole cost. Index records carry their
 * persisted content hash, as flushes write them; the baseline is the same branch
 * with the hashes removed, where every archived output is hashed, as pi-condense
 * 2.9.1 did at every rebuild.
 *
 * Sizes are timed round-robin, one sample of each per round. Timed back to back,
 * a small branch stays in the CPU caches between its own samples and a large
 * one cannot, which makes the growth look worse than the work is; a real reload
 * rebuilds once, from a cold cache.
 * Run: bun bench/reload.ts
 */
import { captureUnindexedBatchesFromSession } from "../src/capture/batch-capture.js";
import { hashToolResult } from "../src/capture/content-hash.js";
import { ToolCallIndexer } from "../src/archive/indexer.js";
import { CUSTOM_TYPE_CHAIN, CUSTOM_TYPE_DEDUP_ALIAS, CUSTOM_TYPE_INDEX, CUSTOM_TYPE_SUMMARY } from "../src/names.js";
import { reportTargets } from "./targets.js";

const SIZES = [2_000, 8_000, 32_000];
const ROUNDS = 41;
const WARMUP_ROUNDS = 10;
const RESULT_CHARS = 1_500;

function body(seed: number): string {
  return `output ${seed}\n${"x".repeat(RESULT_CHARS)}`;
}

/** One user span: ~13 entries with two tool calls (ids reused across spans). */
function appendSpan(branch: any[], span: number): void {
  const t = 1_000_000 + span * 100;
  const ids = [`bash_${span % 50}`, `read_${span % 7}`];
  const msg = (message: any) => branch.push({ type: "message", message });
  msg({ role: "user", content: [{ type: "text", text: `task ${span}` }], timestamp: t });
  msg({ role: "assistant", content: ids.map((id) => ({ type: "toolCall", id, name: "bash", arguments: { cmd: id } })), timestamp: t + 1 });
  ids.forEach((id, i) => msg({ role: "toolResult", toolCallId: id, toolName: "bash", content: [{ type: "text", text: body(span * 2 + i) }], isError: false, timestamp: t + 2 + i }));
  msg({ role: "assistant", content: [{ type: "toolCall", id: `dup_${span}`, name: "bash", arguments: {} }], timestamp: t + 5 });
  msg({ role: "toolResult", toolCallId: `dup_${span}`, toolName: "bash", content: [{ type: "text", text: body(span * 2) }], isError: false, timestamp: t + 6 });
  msg({ role: "assistant", content: [{ type: "text", text: "done" }], timestamp: t + 7 });
  const refs = ids.map((id, i) => ({ shortId: `t${span * 2 + i + 1}`, toolCallId: id, resultTimestamp: t + 2 + i }));
  branch.push({ type: "custom_message", customType: CUSTOM_TYPE_SUMMARY, content: `- summary ${span}`, display: false, details: { toolCallRefs: refs, toolNames: ["bash", "bash"], turnIndex: span * 3, timestamp: t + 1 } });
  const records = ids.map((id, i) => {
    const resultText = body(span * 2 + i);
    return { toolCallId: id, toolName: "bash", args: { cmd: id }, resultText, isError: false, turnIndex: span * 3, timestamp: t + 1, resultTimestamp: t + 2 + i, contentHash: hashToolResult("bash", resultText) };
  });
  branch.push({ type: "custom", customType: CUSTOM_TYPE_INDEX, data: { toolCalls: records } });
  branch.push({ type: "custom", customType: CUSTOM_TYPE_DEDUP_ALIAS, data: { newToolCallId: `dup_${span}`, newResultTimestamp: t + 6, originalToolCallId: ids[0], originalResultTimestamp: t + 2 } });
  branch.push({ type: "custom", customType: CUSTOM_TYPE_CHAIN, data: { blockId: `b${span + 1}`, startUserTimestamp: t, droppedToolCallIds: [...ids, `dup_${span}`], droppedOccurrenceKeys: [`${ids[0]}@${t + 2}`], finalAssistantTimestamp: t + 7, toolRefs: refs.map((r) => r.shortId), compressedAt: t + 8 } });
  branch.push({ type: "custom", customType: "context-prune-stats", data: { callCount: span } });
}

function makeBranch(size: number): any[] {
  const branch: any[] = [];
  for (let span = 0; branch.length < size; span++) appendSpan(branch, span);
  return branch;
}

/** The branch as sessions written before content hashes were persisted hold it. */
function withoutHashes(branch: any[]): any[] {
  return branch.map((entry) =>
    entry.customType === CUSTOM_TYPE_INDEX ? { ...entry, data: { ...entry.data, toolCalls: entry.data.toolCalls.map(({ contentHash: _, ...record }: any) => record) } } : entry,
  );
}

/** Full GC between samples so garbage from earlier runs is not billed to the next one. */
function collect(): void {
  (globalThis as any).Bun?.gc?.(true);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

type Timing = { best: number; median: number };

function summarize(samples: number[]): Timing {
  return { best: Math.min(...samples), median: median(samples) };
}

/**
 * Round-robin over the sizes; the first WARMUP_ROUNDS rounds are untimed (lets the JIT settle).
 * Rebuilds and rescans are timed in separate loops, so a rescan is not billed for the rebuild's garbage.
 */
function timeInterleaved<T>(subjects: T[], fn: (subject: T) => void): Timing[] {
  const samples: number[][] = subjects.map(() => []);
  for (let round = 0; round < WARMUP_ROUNDS + ROUNDS; round++) {
    subjects.forEach((subject, k) => {
      const start = performance.now();
      fn(subject);
      if (round >= WARMUP_ROUNDS) samples[k]!.push(performance.now() - start);
    });
  }
  return samples.map(summarize);
}

function heapAfterRebuild(branch: any[]): { deltaMb: number; shared: boolean } {
  collect();
  const before = process.memoryUsage().heapUsed;
  const indexer = new ToolCallIndexer();
  indexer.reconstructFromSession({ sessionManager: { getBranch: () => branch } } as any);
  collect();
  const deltaMb = (process.memoryUsage().heapUsed - before) / 1024 / 1024;
  const persisted = new Set(branch.filter((e) => e.customType === CUSTOM_TYPE_INDEX).flatMap((e) => e.data.toolCalls));
  const shared = [...indexer.getIndex().values()].every((record) => persisted.has(record));
  return { deltaMb, shared };
}

const branches = SIZES.map(makeBranch);
const subjects = branches.map((branch) => ({
  branch,
  ctx: { sessionManager: { getBranch: () => branch } } as any,
  indexer: new ToolCallIndexer(),
}));
const rebuilds = timeInterleaved(subjects, (s) => s.indexer.reconstructFromSession(s.ctx));
const rescans = timeInterleaved(subjects, (s) => captureUnindexedBatchesFromSession(s.branch, s.indexer));
const reloadWithLookup = (s: (typeof subjects)[number]) => {
  s.indexer.reconstructFromSession(s.ctx);
  s.indexer.lookupByContent("bash", "a new output");
};
const withLookups = timeInterleaved(subjects, reloadWithLookup);
const baselineSubjects = branches.map((branch) => {
  const legacy = withoutHashes(branch);
  return { branch: legacy, ctx: { sessionManager: { getBranch: () => legacy } } as any, indexer: new ToolCallIndexer() };
});
const baselines = timeInterleaved(baselineSubjects, reloadWithLookup);
const rows = subjects.map(({ branch, indexer }, k) => {
  const { deltaMb, shared } = heapAfterRebuild(branch);
  return { size: branch.length, rebuild: rebuilds[k]!, rescan: rescans[k]!, records: indexer.getIndex().size, deltaMb, shared };
});

const ms = (t: Timing) => `${t.best.toFixed(2)} / ${t.median.toFixed(2)}`.padStart(15);
console.log("entries  records  rebuild ms best/median  rescan ms best/median  rebuild heap MB  records shared");
for (const r of rows) {
  console.log(
    `${String(r.size).padStart(7)}  ${String(r.records).padStart(7)}  ${ms(r.rebuild).padStart(23)}  ${ms(r.rescan).padStart(22)}  ${r.deltaMb.toFixed(2).padStart(15)}  ${r.shared ? "yes" : "NO"}`,
  );
}
const [, mid, big] = rows;
const ratio = (a: Timing, b: Timing) => `${(a.best / b.best).toFixed(2)}x best, ${(a.median / b.median).toFixed(2)}x median`;
console.log(`32k/8k: rebuild ${ratio(big!.rebuild, mid!.rebuild)}; rescan ${ratio(big!.rescan, mid!.rescan)} (target <= 4.5x)`);
console.log("");
console.log("entries  rebuild + first dedup lookup ms best/median  2.9.1-style (hash every output) ms best/median  ratio (median)");
subjects.forEach(({ branch }, k) => {
  const ours = withLookups[k]!;
  const base = baselines[k]!;
  console.log(`${String(branch.length).padStart(7)}  ${ms(ours).padStart(43)}  ${ms(base).padStart(46)}  ${(ours.median / base.median).toFixed(2).padStart(13)}x`);
});
const reloadRatio = withLookups[2]!.median / baselines[2]!.median;
const targets = [
  { name: "rebuild growth 32k/8k <= 4.5x (median)", met: big!.rebuild.median / mid!.rebuild.median <= 4.5 },
  { name: "rescan growth 32k/8k <= 4.5x (median)", met: big!.rescan.median / mid!.rescan.median <= 4.5 },
  { name: "rebuilt records share the persisted objects", met: rows.every((r) => r.shared) },
  { name: `32k rebuild + first dedup lookup <= 0.5x the 2.9.1-style rebuild that hashes every output (median: ${reloadRatio.toFixed(2)}x)`, met: reloadRatio <= 0.5 },
];
reportTargets(targets);
