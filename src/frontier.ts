/**
 * The prune frontier: the last batch boundary a flush attempted, persisted as
 * a custom entry so work at or before it is never re-summarized after reload.
 */
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { CUSTOM_TYPE_FRONTIER, type PruneFrontier, type PruneFrontierOutcome } from "./types.js";

function numberOr(value: unknown, fallback: number): number {
  return typeof value === "number" ? value : fallback;
}

function normalize(data: Record<string, unknown>): PruneFrontier {
  return {
    lastAttemptedToolCallId: String(data.lastAttemptedToolCallId),
    lastAttemptedToolName: typeof data.lastAttemptedToolName === "string" ? data.lastAttemptedToolName : "unknown",
    lastAttemptedTurnIndex: numberOr(data.lastAttemptedTurnIndex, 0),
    lastAttemptedTimestamp: numberOr(data.lastAttemptedTimestamp, 0),
    attemptedBatchCount: numberOr(data.attemptedBatchCount, 0),
    attemptedToolCallCount: numberOr(data.attemptedToolCallCount, 0),
    rawCharCount: numberOr(data.rawCharCount, 0),
    summaryCharCount: numberOr(data.summaryCharCount, 0),
    outcome: typeof data.outcome === "string" ? (data.outcome as PruneFrontierOutcome) : "summarized",
  };
}

export class PruneFrontierTracker {
  private current: PruneFrontier | null = null;

  reset(): void {
    this.current = null;
  }

  get(): PruneFrontier | null {
    return this.current ? { ...this.current } : null;
  }

  fromJSON(data: PruneFrontier): void {
    if (typeof data !== "object" || data === null || !data.lastAttemptedToolCallId) return;
    this.current = normalize(data as unknown as Record<string, unknown>);
  }

  reconstructFromSession(ctx: ExtensionContext): void {
    this.reset();
    for (const entry of ctx.sessionManager.getBranch() as any[]) {
      if (entry?.type === "custom" && entry.customType === CUSTOM_TYPE_FRONTIER && entry.data) this.fromJSON(entry.data);
    }
  }

  advance(frontier: PruneFrontier): void {
    this.current = { ...frontier };
  }

  persist(pi: ExtensionAPI): void {
    if (this.current) pi.appendEntry(CUSTOM_TYPE_FRONTIER, this.current);
  }
}
