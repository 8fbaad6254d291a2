/**
 * Context-metrics benchmark: one on-demand computation (branch projection plus
 * `computeContextMetrics`, what a flush entry, `/pruner status` and the
 * frontier-gap gate each run) on synthetic branches of about 2k, 8k and 32k
 * entries: many closed chains with thinking, tool calls, results (some
 * summarized, some protected, one screenshot per chain), summaries and
 * bookkeeping entries, a frontier two thirds in, and an open tail.
 *
 * Sizes are timed round-robin, one sample of each per round, so a small branch
 * does not enjoy warm caches a large one cannot have.
 * Run: bun bench/context-metrics.ts
 */
import { projectBranchMessages } from "../src/capture/batch-capture.js";
import { computeContextMetrics } from "../src/host/context-metrics.js";
import type { PruneFrontier } from "../src/capture/records.js";
import { reportTargets } from "./targets.js";

const SIZES = [2_000, 8_000, 32_000];
const ROUNDS = 51;
const WARMUP_ROUNDS = 5;

interface Fixture {
  branch: any[];
  frontier: PruneFrontier;
  summarized: Set<string>;
}

/** One chain: user, two tool turns (three calls), a text reply, a summary and two custom entries (~12 entries). */
function appendChain(fixture: Fixture, chain: number): void {
  const t = 1_000_000 + chain * 100;
  const msg = (message: any) => fixture.branch.push({ type: "message", message });
  msg({ role: "user", content: [{ type: "text", text: `task ${chain}` }], timestamp: t });
  msg({
    role: "assistant",
    content: [
      { type: "thinking", thinking: "t".repeat(400), thinkingSignature: "sig" },
      { type: "toolCall", id: `bash_${chain % 40}`, name: "bash", arguments: { command: `make ${chain}` } },
      { type: "toolCall", id: `read_${chain}`, name: "read", arguments: { path: chain % 5 === 0 ? "/h/skills/x/SKILL.md" : `/w/f${chain}.ts` } },
    ],
    timestamp: t + 1,
  });
  msg({ role: "toolResult", toolCallId: `bash_${chain % 40}`, toolName: "bash", content: [{ type: "text", text: `build ${chain}\n${"o".repeat(1_200)}` }], isError: false, timestamp: t + 2 });
  msg({ role: "toolResult", toolCallId: `read_${chain}`, toolName: "read", content: [{ type: "text", text: "r".repeat(900) }], isError: false, timestamp: t + 3 });
  msg({ role: "assistant", content: [{ type: "toolCall", id: `shot_${chain}`, name: "read", arguments: { path: `/w/s${chain}.png` } }], timestamp: t + 4 });
  msg({
    role: "toolResult",
    toolCallId: `shot_${chain}`,
    toolName: "read",
    content: [{ type: "text", text: "Read image file [image/png]" }, { type: "image", data: "A".repeat(4_000), mimeType: "image/png" }],
    isError: false,
    timestamp: t + 5,
  });
  msg({ role: "assistant", content: [{ type: "text", text: `done ${chain}` }], timestamp: t + 6 });
  fixture.branch.push({ type: "custom_message", customType: "context-prune-summary", content: `- summary ${chain}`, display: false, details: {}, timestamp: new Date(t + 7).toISOString() });
  fixture.branch.push({ type: "custom", customType: "context-prune-index", data: { toolCalls: [] } });
  fixture.branch.push({ type: "custom", customType: "context-prune-stats", data: { callCount: chain } });
  if (chain % 2 === 0) fixture.summarized.add(`bash_${chain % 40}@${t + 2}`);
}

function makeFixture(size: number): Fixture {
  const fixture: Fixture = { branch: [], summarized: new Set(), frontier: undefined as unknown as PruneFrontier };
  let chain = 0;
  while (fixture.branch.length < size) appendChain(fixture, chain++);
  const frontierChain = Math.floor((chain * 2) / 3);
  fixture.frontier = {
    lastAttemptedToolCallId: `shot_${frontierChain}`,
    lastAttemptedToolName: "read",
    lastAttemptedTurnIndex: frontierChain * 3 + 1,
    lastAttemptedTimestamp: 1_000_000 + frontierChain * 100 + 4,
    attemptedBatchCount: frontierChain,
    attemptedToolCallCount: frontierChain * 3,
    rawCharCount: 0,
    summaryCharCount: 0,
    outcome: "summarized",
  };
  // An open tail: a request still running, with thinking and a tool turn.
  const t = 1_000_000 + chain * 100;
  fixture.branch.push({ type: "message", message: { role: "user", content: [{ type: "text", text: "still going" }], timestamp: t } });
  fixture.branch.push({ type: "message", message: { role: "assistant", content: [{ type: "thinking", thinking: "w".repeat(2_000), thinkingSignature: "s" }, { type: "toolCall", id: "open_1", name: "bash", arguments: {} }], timestamp: t + 1 } });
  return fixture;
}

const isProtected = (_tool: string, args: unknown) => typeof (args as any)?.path === "string" && (args as any).path.includes("/skills/");

function computeOnce(fixture: Fixture): void {
  computeContextMetrics(projectBranchMessages(fixture.branch), fixture.frontier, (key) => fixture.summarized.has(key), isProtected);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const fixtures = SIZES.map(makeFixture);
const samples = fixtures.map(() => [] as number[]);
for (let round = 0; round < WARMUP_ROUNDS + ROUNDS; round++) {
  fixtures.forEach((fixture, k) => {
    (globalThis as any).Bun?.gc?.(true);
    const started = performance.now();
    computeOnce(fixture);
    if (round >= WARMUP_ROUNDS) samples[k]!.push(performance.now() - started);
  });
}

const snapshot = (fixture: Fixture) =>
  computeContextMetrics(projectBranchMessages(fixture.branch), fixture.frontier, (key) => fixture.summarized.has(key), isProtected);
console.log(`context metrics, one on-demand computation: median and best of ${ROUNDS} rounds after ${WARMUP_ROUNDS} warm-up`);
console.log("entries | median ms |   best ms | think tok | chain % | gap tok");
fixtures.forEach((fixture, k) => {
  const s = snapshot(fixture);
  console.log(
    `${String(fixture.branch.length).padStart(7)} | ${median(samples[k]!).toFixed(2).padStart(9)} | ${Math.min(...samples[k]!).toFixed(2).padStart(9)} | ${String(s.openCycleThinkingTokens).padStart(9)} | ${String(s.largestChainSharePct).padStart(7)} | ${s.frontierGapTokens}`,
  );
});
const growth = median(samples[2]!) / median(samples[1]!);
console.log(`growth 32k/8k: ${growth.toFixed(2)}x median (target <= 4.5x)`);
const targets = [{ name: "growth 32k/8k <= 4.5x (median)", met: growth <= 4.5 }];
reportTargets(targets);
