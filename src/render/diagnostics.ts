/**
 * Out-of-band degradation channel. Each (kind, dedupKey) pair is persisted
 * once as a `context-prune-diagnostic` custom entry (0 tokens, never in LLM
 * context). A failed write is logged, not counted and not marked as seen, so a
 * later report of the same key retries. Counters are in-memory only. Archive
 * misses (an output left raw because the archive could not give it back by
 * the ref its stub would name) are counted apart from the 2.9.1 kinds, whose
 * `counts()` shape is a contract.
 */
import { CUSTOM_TYPE_DIAGNOSTIC } from "../names.js";

export type DiagnosticKind = "unresolved-range" | "range-id-mismatch" | "orphan-sweep" | "backfill-empty";

export interface DiagnosticEntryData {
  kind: DiagnosticKind;
  detail: string;
}

type Counts = Record<DiagnosticKind, number>;

export const ARCHIVE_MISS = "archive-miss";

function zeroCounts(): Counts {
  return { "unresolved-range": 0, "range-id-mismatch": 0, "orphan-sweep": 0, "backfill-empty": 0 };
}

export class DiagnosticSink {
  private readonly appendEntry: (customType: string, data?: unknown) => void;
  private seen = new Set<string>();
  private counters: Counts = zeroCounts();
  private misses = 0;

  constructor(appendEntry: (customType: string, data?: unknown) => void) {
    this.appendEntry = appendEntry;
  }

  report(kind: DiagnosticKind, dedupKey: string, detail: string): void {
    if (this.persist(kind, dedupKey, detail)) this.counters[kind]++;
  }

  reportArchiveMiss(dedupKey: string, detail: string): void {
    if (this.persist(ARCHIVE_MISS, dedupKey, detail)) this.misses++;
  }

  counts(): Counts {
    return { ...this.counters };
  }

  /** Outputs left raw this session because the archive could not give them back. */
  archiveMisses(): number {
    return this.misses;
  }

  reset(): void {
    this.seen = new Set();
    this.counters = zeroCounts();
    this.misses = 0;
  }

  private persist(kind: DiagnosticKind | typeof ARCHIVE_MISS, dedupKey: string, detail: string): boolean {
    const key = `${kind}:${dedupKey}`;
    if (this.seen.has(key)) return false;
    try {
      this.appendEntry(CUSTOM_TYPE_DIAGNOSTIC, { kind, detail });
    } catch (err) {
      console.error(`pruner: failed to persist ${kind} diagnostic:`, err);
      return false;
    }
    this.seen.add(key);
    return true;
  }
}
