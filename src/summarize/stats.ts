/**
 * Summarizer spend and chain-compression counters: accumulated in memory,
 * persisted as full snapshots in `context-prune-stats` entries, and published
 * as this session's delta on the shared `cost:external` channel.
 */
import { looseEntry } from "../capture/message-shape.js";
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { estimateTokens, formatCompactCount } from "../format/figures.js";
import type { LiveReclaim } from "../render/render-size.js";
import { corruptEntryMessage, parseStatsEntry, parseSummarizerCacheEntry } from "../capture/persisted-entries.js";
import { CUSTOM_TYPE_STATS, CUSTOM_TYPE_SUMMARIZER_CACHE, EXTERNAL_COST_CHANNEL, EXTERNAL_COST_SOURCE } from "../names.js";
import type { SummarizeResult } from "./summarizer.js";
import type { SummarizerCacheTokens, SummarizerStats } from "../capture/records.js";

export interface ExternalCostUpdate {
  source: string;
  totalCost: number;
  inputTokens?: number;
  outputTokens?: number;
}

type Usage = SummarizeResult["usage"];

interface Baseline {
  totalInputTokens: number;
  totalOutputTokens: number;
  totalCost: number;
}

const zeroCache = (): SummarizerCacheTokens => ({ cacheReadTokens: 0, cacheWriteTokens: 0 });

const zeroStats = (): SummarizerStats => ({
  totalInputTokens: 0,
  totalOutputTokens: 0,
  totalCost: 0,
  callCount: 0,
  chainsCompressed: 0,
  rangesSummarized: 0,
});

export class StatsAccumulator {
  private stats: SummarizerStats = zeroStats();
  /** Apart from `stats`, whose input counter stays 2.9.1's (fresh input only). */
  private cache: SummarizerCacheTokens = zeroCache();
  private baseline: Baseline = { totalInputTokens: 0, totalOutputTokens: 0, totalCost: 0 };
  private liveReclaim: LiveReclaim | undefined;
  private overheadTokens = 0;
  private calibrated = false;
  private sentChars: number | undefined;

  add(usage: Usage): void {
    this.stats.totalInputTokens += usage?.input ?? 0;
    this.stats.totalOutputTokens += usage?.output ?? 0;
    this.stats.totalCost += usage?.cost?.total ?? 0;
    this.stats.callCount += 1;
    this.cache.cacheReadTokens += usage?.cacheRead ?? 0;
    this.cache.cacheWriteTokens += usage?.cacheWrite ?? 0;
  }

  getCacheTokens(): SummarizerCacheTokens {
    return { ...this.cache };
  }

  /** The summarizer's input as the provider billed it: fresh input, cache reads and cache writes. */
  billedInputTokens(): number {
    return this.stats.totalInputTokens + this.cache.cacheReadTokens + this.cache.cacheWriteTokens;
  }

  /** Writes the cache-token snapshot beside a stats snapshot; nothing while no call used a cache. */
  persistCacheTokens(append: (customType: string, data: unknown) => void): void {
    if (this.cache.cacheReadTokens > 0 || this.cache.cacheWriteTokens > 0) append(CUSTOM_TYPE_SUMMARIZER_CACHE, this.getCacheTokens());
  }

  getSessionDelta(): { totalCost: number; inputTokens: number; outputTokens: number } {
    return {
      totalCost: this.stats.totalCost - this.baseline.totalCost,
      inputTokens: this.stats.totalInputTokens - this.baseline.totalInputTokens,
      outputTokens: this.stats.totalOutputTokens - this.baseline.totalOutputTokens,
    };
  }

  setLiveReclaim(beforeChars: number, afterChars: number): void {
    this.liveReclaim = { beforeChars, afterChars };
  }

  /** Until a response calibrates it, the overhead is the system prompt at characters ÷ 4. */
  noteSystemPrompt(chars: number): void {
    if (!this.calibrated) this.overheadTokens = estimateTokens(chars);
  }

  /** The messages of the request about to be sent, as rewritten (undefined when the render changed nothing). */
  noteSentRequest(afterChars: number | undefined): void {
    this.sentChars = afterChars;
  }

  /** The provider's count for the request last sent anchors every later estimate on it; true when it did. */
  calibrate(recordedTokens: number): boolean {
    if (this.sentChars === undefined || !(recordedTokens > 0)) return false;
    this.calibrated = true;
    this.overheadTokens = recordedTokens - estimateTokens(this.sentChars);
    this.sentChars = undefined;
    return true;
  }

  /** The overhead rides along only when there is one, so a reclaim without it keeps 2.9.1's shape. */
  getLiveReclaim(): LiveReclaim | undefined {
    if (!this.liveReclaim || this.overheadTokens === 0) return this.liveReclaim;
    return { ...this.liveReclaim, overheadTokens: this.overheadTokens };
  }

  getStats(): SummarizerStats {
    return { ...this.stats };
  }

  addChainsCompressed(n: number): void {
    this.stats.chainsCompressed += n;
  }

  addRangesSummarized(n: number): void {
    this.stats.rangesSummarized += n;
  }

  reset(): void {
    this.stats = zeroStats();
    this.cache = zeroCache();
    this.baseline = { totalInputTokens: 0, totalOutputTokens: 0, totalCost: 0 };
    this.liveReclaim = undefined;
    this.overheadTokens = 0;
    this.calibrated = false;
    this.sentChars = undefined;
  }

  toJSON(): SummarizerStats {
    return this.getStats();
  }

  /** An unusable snapshot leaves the counters as they are. */
  fromJSON(data: SummarizerStats): void {
    const parsed = parseStatsEntry(data);
    if (parsed.ok) this.stats = parsed.value;
  }

  /** The last valid snapshot wins: a corrupt later entry is reported and does not erase an earlier one. */
  reconstructFromSession(ctx: ExtensionContext): void {
    this.reset();
    for (const value of ctx.sessionManager.getBranch() as readonly unknown[]) {
      const entry = looseEntry(value);
      if (entry?.type !== "custom" || !entry.data) continue;
      if (entry.customType === CUSTOM_TYPE_SUMMARIZER_CACHE) this.restoreCache(entry.data);
      if (entry.customType !== CUSTOM_TYPE_STATS) continue;
      const parsed = parseStatsEntry(entry.data);
      if (parsed.ok) this.stats = parsed.value;
      else console.error(corruptEntryMessage(CUSTOM_TYPE_STATS, parsed.reason));
    }
    this.baseline = {
      totalInputTokens: this.stats.totalInputTokens,
      totalOutputTokens: this.stats.totalOutputTokens,
      totalCost: this.stats.totalCost,
    };
  }

  private restoreCache(data: unknown): void {
    const parsed = parseSummarizerCacheEntry(data);
    if (parsed.ok) this.cache = parsed.value;
    else console.error(corruptEntryMessage(CUSTOM_TYPE_SUMMARIZER_CACHE, parsed.reason));
  }

  persist(pi: ExtensionAPI): void {
    pi.appendEntry(CUSTOM_TYPE_STATS, this.toJSON());
  }
}

export { formatCompactCount };

export function formatTokens(n: number): string {
  return formatCompactCount(n);
}

export function formatCharProgress(receivedChars: number, rawChars?: number): string {
  const summary = `${formatCompactCount(receivedChars)} summary char${receivedChars === 1 ? "" : "s"}`;
  if (rawChars === undefined || rawChars === null) return summary;
  return `${summary} / ${formatCompactCount(rawChars)} raw char${rawChars === 1 ? "" : "s"}`;
}

export function formatCost(n: number): string {
  if (n > 0 && n < 0.001) return "<$0.001";
  return `$${n.toFixed(3)}`;
}

export function emitExternalCost(pi: ExtensionAPI, accumulator: StatsAccumulator): void {
  const delta = accumulator.getSessionDelta();
  const payload: ExternalCostUpdate = {
    source: EXTERNAL_COST_SOURCE,
    totalCost: delta.totalCost,
    inputTokens: delta.inputTokens,
    outputTokens: delta.outputTokens,
  };
  pi.events.emit(EXTERNAL_COST_CHANNEL, payload);
}
