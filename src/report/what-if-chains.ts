/**
 * The what-if's chain pass, as a flush runs it: closed chains beyond the
 * rolling window are archived (records backfilled in memory; nothing is
 * spilled, since no session directory is given) and compressed by the real
 * chain compressor into the in-memory index, their range bodies fused from the
 * per-batch summaries at the estimated summary length when
 * `fuseRangeSummary` is on. Whether a flush runs it is the policy's call
 * (what-if-policy.ts weighs `eligibleRanges` as the host weighs the chains).
 * Pure apart from that index.
 */
import type { ToolCallIndexer } from "../archive/indexer.js";
import { BlockRefIssuer } from "../chains/block-refs.js";
import { archiveChainMembers } from "../chains/chain-archive.js";
import { compressEligible, selectEligible, withRecoveredRefs } from "../chains/chain-compressor.js";
import { detectChains } from "../chains/chain-detector.js";
import { isProtected } from "../capture/protected.js";
import { inGraceRecoveryToolCallIds } from "../render/recovery-grace.js";
import type { ContextPruneConfig } from "../settings/config-shape.js";
import { resolveRange } from "../render/chain-range-prune.js";
import type { SummarizerUse } from "./scenarios.js";
import { estimateSummaryChars, type SummaryEstimate } from "./summary-estimate.js";

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

  /** The closed chains past the window of `messages` not compressed yet, as message ranges: what the chain pass would compress. */
  eligibleRanges(messages: readonly unknown[]): Array<{ startIndex: number; endIndex: number }> {
    const chainConfig = this.config.chainCompression;
    if (!chainConfig?.enabled) return [];
    const snapshot = messages as unknown[];
    const { eligible } = this.select(snapshot);
    return eligible.flatMap((chain) => resolveRange(chain, snapshot) ?? []);
  }

  /** `messages`: the what-if's context right after a flush (not changed later); `now`: when the flush ran. */
  async afterFlush(messages: unknown[], now: number): Promise<void> {
    const chainConfig = this.config.chainCompression;
    if (!chainConfig?.enabled) return;
    const snapshot = messages;
    const { chains, inGrace, eligible } = this.select(snapshot);
    if (eligible.length === 0) return;
    const window = chainConfig.rollingWindow;
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

  private select(snapshot: unknown[]) {
    const protection = (name: string, args: unknown) => isProtected(name, args, this.config);
    const chains = withRecoveredRefs(detectChains(snapshot, protection), snapshot);
    const inGrace = inGraceRecoveryToolCallIds(snapshot, this.config.recoveryGraceTurns);
    const already = new Set(this.indexer.getChainEntries().map((entry) => entry.startUserTimestamp));
    return { chains, inGrace, eligible: selectEligible(chains, this.config.chainCompression.rollingWindow, already, inGrace) };
  }

  private fuse(text: string): string {
    const chars = estimateSummaryChars(this.estimate, text.length);
    this.use.calls += 1;
    this.use.input += text.length;
    this.use.output += chars;
    return "r".repeat(chars);
  }
}
