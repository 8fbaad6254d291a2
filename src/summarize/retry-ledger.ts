/**
 * Summarizer retries per batch. A batch whose summary failed waits with an
 * exponential backoff before its next attempt, and after a bounded number of
 * attempts is archived without an LLM summary, so one batch the summarizer
 * cannot handle neither stops pruning nor costs a call on every flush.
 *
 * Batches are regrouped on every rescan, so failures are counted per
 * occurrence key: a batch is as far along as its most-failed call. Kept in
 * memory only: a reload grants every batch a fresh set of attempts.
 */
import { occKey } from "../capture/occurrence-key.js";
import type { CapturedBatch } from "../capture/records.js";

export const MAX_SUMMARY_ATTEMPTS = 3;
export const RETRY_BACKOFF_MS = 30_000;

export type RetryStatus = "ready" | "backoff" | "exhausted";

interface Failures {
  count: number;
  retryAt: number;
  unusableReported: boolean;
}

export class RetryLedger {
  private readonly failures = new Map<string, Failures>();

  status(batch: CapturedBatch, now: number): RetryStatus {
    let count = 0;
    let retryAt = 0;
    for (const key of keysOf(batch)) {
      const known = this.failures.get(key);
      if (!known) continue;
      count = Math.max(count, known.count);
      retryAt = Math.max(retryAt, known.retryAt);
    }
    if (count >= MAX_SUMMARY_ATTEMPTS) return "exhausted";
    return count > 0 && now < retryAt ? "backoff" : "ready";
  }

  /** Counts one failed attempt; returns the status the batch is left in. */
  recordFailure(batch: CapturedBatch, now: number): RetryStatus {
    let count = 0;
    for (const key of keysOf(batch)) count = Math.max(count, this.failures.get(key)?.count ?? 0);
    count += 1;
    const retryAt = now + RETRY_BACKOFF_MS * 2 ** (count - 1);
    for (const key of keysOf(batch)) {
      const known = this.failures.get(key);
      this.failures.set(key, { count, retryAt, unusableReported: known?.unusableReported ?? false });
    }
    return count >= MAX_SUMMARY_ATTEMPTS ? "exhausted" : "backoff";
  }

  /** True the first time an unusable reply is seen for any call of this batch. */
  firstUnusableReport(batch: CapturedBatch): boolean {
    let reported = false;
    for (const key of keysOf(batch)) reported ||= this.failures.get(key)?.unusableReported === true;
    for (const key of keysOf(batch)) {
      const known = this.failures.get(key) ?? { count: 0, retryAt: 0, unusableReported: false };
      this.failures.set(key, { ...known, unusableReported: true });
    }
    return !reported;
  }

  forget(batch: CapturedBatch): void {
    for (const key of keysOf(batch)) this.failures.delete(key);
  }

  clear(): void {
    this.failures.clear();
  }
}

function* keysOf(batch: CapturedBatch): Iterable<string> {
  for (const call of batch.toolCalls) yield occKey(call.toolCallId, call.resultTimestamp);
}
