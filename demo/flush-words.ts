// The demo's flush line in plain words: when each flush ran and what it did, with no internal outcome names
// ("summarized" there meant outputs archived, with or without a summarizer call).
const WHEN: Record<string, string> = {
  "message-end": "at the agent's final reply",
  manual: "on /pruner now",
  "in-run": "within a run",
  pressure: "under context pressure",
  "cache-cold": "after the cache expired",
  rearmed: "after a reload",
  budget: "at the context budget",
  delta: "at the context budget",
  "frontier-gap": "at the context budget",
};

const DID: Record<string, string> = {
  summarized: "archived outputs",
  deferred: "waited since it did not pay yet",
  empty: "found nothing waiting",
  "skipped-trivial": "left small outputs as they were",
  "skipped-oversized": "kept outputs whole",
  "skipped-deduped": "pointed repeats at earlier copies",
  error: "failed",
};

/** `8 at the agent's final reply (6 archived outputs, 1 waited since it did not pay yet, 1 found nothing waiting)`: one level of parentheses. */
export function flushWords(metrics: ReadonlyArray<{ trigger: string; outcome: string }>): string {
  if (metrics.length === 0) return "none";
  const byWhen = new Map<string, Map<string, number>>();
  for (const { trigger, outcome } of metrics) {
    const when = WHEN[trigger] ?? trigger;
    const did = DID[outcome] ?? outcome;
    const tally = byWhen.get(when) ?? new Map<string, number>();
    tally.set(did, (tally.get(did) ?? 0) + 1);
    byWhen.set(when, tally);
  }
  return [...byWhen]
    .map(([when, tally]) => {
      const total = [...tally.values()].reduce((a, b) => a + b, 0);
      return `${total} ${when} (${[...tally].map(([did, n]) => `${n} ${did}`).join(", ")})`;
    })
    .join("; ");
}
