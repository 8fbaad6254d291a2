/**
 * The what-if's chain pass, as a flush runs it: closed chains beyond the
 * rolling window are archived (records backfilled in memory; nothing is
 * spilled, since no session directory is given) and compressed by the real
 * chain compressor into the in-memory index, their range bodies fused from the
 * per-batch summaries at the estimated summary length when
 * `fuseRangeSummary` is on. After a warm flush the cost policy applied because
 * it paid, the chains are compressed only when that pays too, weighed as the
 * host's `weighChainPass` does (same horizon, the session's cache rule, an
 * entry before the chain that aged past the cache lifetime counted as gone).
 * Pure apart from that index.
 */
import type { ToolCallIndexer } from "../archive/indexer.js";
import { BlockRefIssuer } from "../chains/block-refs.js";
import { archiveChainMembers } from "../chains/chain-archive.js";
import { compressEligible, selectEligible, withRecoveredRefs } from "../chains/chain-compressor.js";
import { detectChains } from "../chains/chain-detector.js";
import { isProtected } from "../capture/protected.js";
import { inGraceRecoveryToolCallIds } from "../render/recovery-grace.js";
import type { ContextPruneConfig } from "../types.js";
import { resolveRange } from "../render/chain-range-prune.js";
import { LONGEST_PREFIX, weighRewrite } from "../economics/rewrite-economics.js";
import { measureChainRewrite } from "../policy/rewrite-figures.js";
import type { CostModel } from "../economics/cost-model.js";
import type { RewriteCacheRule } from "../economics/rewrite-economics.js";
import type { SummarizerUse } from "./scenarios.js";
import { estimateSummaryChars, type SummaryEstimate } from "./summary-estimate.js";

/** A warm flush that paid: the horizon it was weighed over and the index its own rewrite starts at. */
export interface ChainWeighing {
  expectedRequests: number;
  flushStart: number;
  main: CostModel;
  summarizer: CostModel;
  cacheRule?: RewriteCacheRule;
}

const NO_SPILL = { spillThreshold: Number.POSITIVE_INFINITY, spillPreviewBytes: 0, sessionDir: "", sessionId: "" };
const ignore = (): void => {};

export class WhatIfChainPass {
  private readonly blockRefs = new BlockRefIssuer();

  constructor(
    private readonly config: ContextPruneConfig,
    private readonly indexer: ToolCallIndexer,
    private readonly estimate: SummaryEstimate,
    private readonly use: SummarizerUse,
  ) {}

  /** `messages`: the what-if's context right after a flush (not changed later); `now`: when the flush ran. */
  async afterFlush(messages: any[], now: number, weigh?: ChainWeighing): Promise<void> {
    const chainConfig = this.config.chainCompression;
    if (!chainConfig?.enabled) return;
    const snapshot = messages;
    const protection = (name: string, args: unknown) => isProtected(name, args, this.config);
    const chains = withRecoveredRefs(detectChains(snapshot, protection), snapshot);
    const inGrace = inGraceRecoveryToolCallIds(snapshot, this.config.recoveryGraceTurns);
    const window = chainConfig.rollingWindow;
    const already = new Set(this.indexer.getChainEntries().map((entry) => entry.startUserTimestamp));
    const eligible = selectEligible(chains, window, already, inGrace);
    if (eligible.length === 0) return;
    if (weigh && !this.pays(snapshot, eligible, weigh, now)) return;
    const held = await archiveChainMembers(eligible, { indexer: this.indexer, messages: snapshot, backfill: { ...NO_SPILL, appendEntry: ignore } });
    for (const key of held) inGrace.add(key);
    await compressEligible(
      chains,
      window,
      {
        indexer: this.indexer,
        blockRefs: this.blockRefs,
        appendEntry: ignore,
        now: () => now,
        fuseRange: chainConfig.fuseRangeSummary ? async (text) => this.fuse(text) : undefined,
        messages: snapshot,
        diagnostics: { report: ignore },
        backfill: NO_SPILL,
      },
      inGrace,
    );
  }

  private pays(messages: any[], eligible: Parameters<typeof resolveRange>[0][], weigh: ChainWeighing, now: number): boolean {
    const ranges = eligible.flatMap((chain) => resolveRange(chain, messages) ?? []);
    const figures = measureChainRewrite(messages, ranges, weigh.flushStart, (key) => this.indexer.isSummarized(key));
    if (!figures) return false;
    const { entryWrittenAt, ...measured } = figures;
    const age = entryWrittenAt === undefined ? {} : { entryAgeMs: now - entryWrittenAt };
    const fused = this.config.chainCompression.fuseRangeSummary;
    const chainFigures = { ...measured, ...age, ...(fused ? {} : { summarizerInputTokens: 0 }) };
    const rule = { ...(weigh.cacheRule ?? LONGEST_PREFIX), ttlMs: weigh.main.ttlMs };
    return weighRewrite(chainFigures, weigh.main, weigh.summarizer, weigh.expectedRequests, false, rule).apply;
  }

  private fuse(text: string): string {
    const chars = estimateSummaryChars(this.estimate, text.length);
    this.use.calls += 1;
    this.use.input += text.length;
    this.use.output += chars;
    return "r".repeat(chars);
  }
}
