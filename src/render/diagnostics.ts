/**
 * Out-of-band degradation channel. Each (kind, dedupKey) pair is persisted
 * once as a `context-prune-diagnostic` custom entry (0 tokens, never in LLM
 * context). A failed write is logged, not counted and not marked as seen, so a
 * later report of the same key retries. Counters are in-memory only.
 */
import { CUSTOM_TYPE_DIAGNOSTIC, type DiagnosticEntryData, type DiagnosticKind } from "../types.js";

type Counts = Record<DiagnosticKind, number>;

function zeroCounts(): Counts {
  return { "unresolved-range": 0, "range-id-mismatch": 0, "orphan-sweep": 0, "backfill-empty": 0 };
}

export class DiagnosticSink {
  private readonly appendEntry: (customType: string, data?: unknown) => void;
  private seen = new Set<string>();
  private counters: Counts = zeroCounts();

  constructor(appendEntry: (customType: string, data?: unknown) => void) {
    this.appendEntry = appendEntry;
  }

  report(kind: DiagnosticKind, dedupKey: string, detail: string): void {
    const key = `${kind}:${dedupKey}`;
    if (this.seen.has(key)) return;
    const data: DiagnosticEntryData = { kind, detail };
    try {
      this.appendEntry(CUSTOM_TYPE_DIAGNOSTIC, data);
    } catch (err) {
      console.error(`pruner: failed to persist ${kind} diagnostic:`, err);
      return;
    }
    this.seen.add(key);
    this.counters[kind]++;
  }

  counts(): Counts {
    return { ...this.counters };
  }

  reset(): void {
    this.seen = new Set();
    this.counters = zeroCounts();
  }
}
