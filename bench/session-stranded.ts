// The session bench's stranding check (issue 33). After the session, every tool output is read back from the
// session file as pi-condense rebuilds it on reload: archived by a flush (an index record or a dedup alias),
// archived only inside a compressed chain (a backfilled record: what a batch flush left raw, such as an
// output under `minBatchChars`), pending (not archived and past the frontier, so a later flush still takes
// it) or behind the frontier without an archive record, which no flush looks at again. An output that
// classic archived by a flush and a variant left behind its frontier is stranded: it stays raw in every
// later request. One that classic archived only in a chain and a variant left raw waits for a chain pass,
// and is counted apart; so is one under `minBatchChars` on its own (a flush leaves it as it is when a copy of
// an archived output taken out of its batch leaves the batch under the minimum). Outputs are matched across variants by their order in the session, since every
// variant plays the same script. Pure: branch entries and the provider's request log in, figures, lines
// and targets out.
import { ToolCallIndexer } from "../src/archive/indexer.js";
import { captureUnindexedBatchesFromSession, extractToolResultText } from "../src/capture/batch-capture.js";
import { PruneFrontierTracker } from "../src/capture/frontier.js";
import { occKey, resultTimestampOf } from "../src/capture/occurrence-key.js";
import { trimBatchToPendingRange } from "../src/capture/pending-batches.js";
import { CUSTOM_TYPE_DEDUP_ALIAS, CUSTOM_TYPE_FLUSH_METRICS, CUSTOM_TYPE_INDEX } from "../src/names.js";
import type { RecordedRequest } from "../test/e2e/fake-llm.js";
import { toolMessages } from "../test/e2e/wire-view.js";
import type { Target } from "./targets.js";

export type Fate = "archived" | "chained" | "pending" | "behind";

export interface OutputFate {
  toolName: string;
  chars: number;
  fate: Fate;
  /** Main requests that carried the output verbatim. */
  rawRequests: number;
}

export interface RunFates {
  /** Every tool output of the branch, in session order. */
  outputs: OutputFate[];
  /** Final-reply flushes the cost policy deferred (`context-prune-flush-metrics` entries with outcome `deferred`). */
  deferred: number;
  /** Flushes run within a run (trigger `in-run`). */
  inRun: number;
}

interface Result {
  id: string;
  toolName: string;
  text: string;
  timestamp: number | undefined;
}

/** The first result per tool-call id, in session order (as capture reads them). */
function resultsOf(branch: readonly any[]): Result[] {
  const seen = new Set<string>();
  const out: Result[] = [];
  for (const entry of branch) {
    const m = entry?.type === "message" ? entry.message : undefined;
    if (m?.role !== "toolResult" || typeof m.toolCallId !== "string" || seen.has(m.toolCallId)) continue;
    seen.add(m.toolCallId);
    out.push({ id: m.toolCallId, toolName: String(m.toolName ?? ""), text: extractToolResultText(m), timestamp: resultTimestampOf(m.timestamp) });
  }
  return out;
}

/** Per tool-call id, how many main requests carried its output exactly as the tool returned it. */
function rawCarriers(requests: readonly RecordedRequest[], originals: ReadonlyMap<string, string>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const req of requests) {
    if (req.kind !== "main" || req.status !== 200) continue;
    for (const m of toolMessages(req)) if (originals.get(m.toolCallId) === m.text) counts.set(m.toolCallId, (counts.get(m.toolCallId) ?? 0) + 1);
  }
  return counts;
}

/** Occurrence keys a flush or a spill archived: their records and dedup aliases (a chain's backfill may index an alias again). */
function flushArchived(branch: readonly any[]): Set<string> {
  const keys = new Set<string>();
  for (const entry of branch) {
    if (entry?.type !== "custom") continue;
    const data = entry.data;
    if (entry.customType === CUSTOM_TYPE_DEDUP_ALIAS && typeof data?.newToolCallId === "string") keys.add(occKey(data.newToolCallId, resultTimestampOf(data.newResultTimestamp)));
    if (entry.customType !== CUSTOM_TYPE_INDEX || data?.backfilled === true) continue;
    for (const r of Array.isArray(data?.toolCalls) ? data.toolCalls : []) if (typeof r?.toolCallId === "string") keys.add(occKey(r.toolCallId, resultTimestampOf(r.resultTimestamp)));
  }
  return keys;
}

function flushCounts(branch: readonly any[]): { deferred: number; inRun: number } {
  let deferred = 0;
  let inRun = 0;
  for (const entry of branch) {
    if (entry?.type !== "custom" || entry.customType !== CUSTOM_TYPE_FLUSH_METRICS) continue;
    if (entry.data?.outcome === "deferred") deferred++;
    else if (entry.data?.trigger === "in-run") inRun++;
  }
  return { deferred, inRun };
}

/** What became of every output of a session with pi-condense, from its branch entries and the requests sent. */
export function outputFates(branch: readonly any[], requests: readonly RecordedRequest[]): RunFates {
  const ctx = { sessionManager: { getBranch: () => branch } } as never;
  const indexer = new ToolCallIndexer();
  indexer.reconstructFromSession(ctx);
  const frontier = new PruneFrontierTracker();
  frontier.reconstructFromSession(ctx);
  const isSummarized = (key: string) => indexer.isSummarized(key);
  const pending = new Set<string>();
  for (const batch of captureUnindexedBatchesFromSession(branch as any[], indexer)) {
    for (const call of trimBatchToPendingRange(batch, isSummarized, frontier.get())?.toolCalls ?? []) pending.add(call.toolCallId);
  }
  const results = resultsOf(branch);
  const carried = rawCarriers(requests, new Map(results.map((r) => [r.id, r.text])));
  const byFlush = flushArchived(branch);
  const outputs = results.map((r): OutputFate => {
    const key = occKey(r.id, r.timestamp);
    const chained = indexer.getIndex().has(key) && !byFlush.has(key);
    const archived = isSummarized(key) ? (chained ? "chained" : "archived") : undefined;
    const fate: Fate = archived ?? (pending.has(r.id) ? "pending" : "behind");
    return { toolName: r.toolName, chars: r.text.length, fate, rawRequests: carried.get(r.id) ?? 0 };
  });
  return { outputs, ...flushCounts(branch) };
}

export interface Stranded {
  /** Outputs classic archived by a flush that this run left behind its frontier. */
  count: number;
  chars: number;
  /** Tokens (chars / 4) those outputs were sent raw beyond what classic sent of them. */
  extraRawTokens: number;
  /** Outputs classic archived only inside a compressed chain that this run left behind its frontier. */
  unchained: number;
  /** Outputs whose tool differs between the runs (the scripts diverged; the check is then not meaningful). */
  mismatched: number;
  /**
   * Outputs classic archived that this run left behind its frontier while under `minBatchChars` on their own:
   * a flush leaves such an output as it is once a copy of an archived one is taken out of its batch, which
   * then falls under the minimum. Not stranded: a flush handled it.
   */
  small: number;
}

/** The default `minBatchChars`: the size an output needs to be summarized in any batch. */
const MIN_BATCH_CHARS = 1000;

export function strandedAgainst(classic: RunFates, run: RunFates, minBatchChars = MIN_BATCH_CHARS): Stranded {
  const s: Stranded = { count: 0, chars: 0, extraRawTokens: 0, unchained: 0, mismatched: Math.abs(classic.outputs.length - run.outputs.length), small: 0 };
  classic.outputs.forEach((ref, i) => {
    const mine = run.outputs[i];
    if (!mine) return;
    if (mine.toolName !== ref.toolName) s.mismatched++;
    else if (ref.fate === "chained" && mine.fate === "behind") s.unchained++;
    else if (ref.fate === "archived" && mine.fate === "behind" && mine.chars < minBatchChars) s.small++;
    else if (ref.fate === "archived" && mine.fate === "behind") {
      s.count++;
      s.chars += mine.chars;
      s.extraRawTokens += Math.max(0, mine.rawRequests - ref.rawRequests) * (mine.chars / 4);
    }
  });
  return s;
}

const n = (x: number) => Math.round(x).toLocaleString("en-US");

function tally(f: RunFates): string {
  const of = (fate: Fate) => f.outputs.filter((o) => o.fate === fate).length;
  return `${of("archived")} archived, ${of("chained")} only in a chain, ${of("pending")} pending, ${of("behind")} behind the frontier unarchived`;
}

/** One line per variant run with the extension: the fates of its outputs, what it stranded, its deferrals. */
export function formatFates(runs: ReadonlyArray<{ label: string; fates: RunFates }>, classic: RunFates | undefined): string[] {
  if (runs.length === 0) return [];
  const lines = [`  outputs after the session (stranded: archived by a flush of classic, left behind the frontier here):`];
  for (const { label, fates } of runs) {
    const s = classic && fates !== classic ? strandedAgainst(classic, fates) : undefined;
    const stranded = s ? `; stranded ${s.count} (${n(s.chars)} chars, ${n(s.extraRawTokens)} tokens sent raw beyond classic), ${s.unchained} left out of classic's chains${s.small ? `, ${s.small} under minBatchChars left as they are` : ""}${s.mismatched ? `; ${s.mismatched} outputs do not match classic's` : ""}` : "";
    lines.push(`    ${label.padEnd(30)}${fates.outputs.length} outputs: ${tally(fates)}${stranded}; final replies deferred ${fates.deferred}, in-run flushes ${fates.inRun}`);
  }
  return lines;
}

/** Every run with the extension but classic strands nothing classic archived. */
export function strandedTargets(runs: ReadonlyArray<{ where: string; label: string; fates: RunFates }>, classic: RunFates | undefined): Target[] {
  if (!classic) return [];
  return runs
    .filter((r) => r.fates !== classic)
    .map(({ where, label, fates }) => {
      const s = strandedAgainst(classic, fates);
      const met = s.count === 0 && s.mismatched === 0;
      return { name: `${where}: ${label} strands no output classic archived (${s.count} stranded, ${n(s.chars)} chars${s.mismatched ? `, ${s.mismatched} unmatched` : ""})`, met };
    });
}
