/**
 * Zero-LLM summary bodies: what a compressed chain or an archived batch says
 * when no model summary exists for it. Built only from the calls themselves,
 * so the same calls always give the same text (prompt-cache stable).
 */

export const CHAIN_BODY_HEADER =
  "Deterministic chain compression (no per-batch summary existed for this span; raw outputs recoverable via context_tree_query).";
export const BATCH_BODY_HEADER =
  "Deterministic summary (the summarizer could not summarize this batch; raw outputs recoverable via context_tree_query).";

const EXCERPT_LIMIT = 200;

export interface BodyCall {
  toolCallId: string;
  toolName: string;
  args: unknown;
  /** When the call's result arrived (ms). */
  time: number;
}

function toolHistogram(calls: BodyCall[]): string {
  const counts = new Map<string, number>();
  for (const call of calls) counts.set(call.toolName, (counts.get(call.toolName) ?? 0) + 1);
  return [...counts]
    .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
    .map(([name, count]) => `${name} x${count}`)
    .join(", ");
}

function excerpt(args: unknown): string {
  const s = JSON.stringify(args) ?? "";
  return s.length <= EXCERPT_LIMIT ? s : `${s.slice(0, EXCERPT_LIMIT)}...`;
}

function isoOf(t: number): string {
  // A corrupt time (or one beyond the Date range) must not turn the whole body into a RangeError.
  const date = new Date(t);
  return Number.isNaN(date.getTime()) ? "?" : date.toISOString();
}

/** Header, call count, tool histogram, time span, first and last call, refs (ids when no ref exists). */
export function deterministicBody(header: string, calls: BodyCall[], refs: string[]): string {
  const byTime = [...calls].sort((a, b) => a.time - b.time);
  const first = byTime[0]!;
  const last = byTime[byTime.length - 1]!;
  const seconds = Math.round((last.time - first.time) / 1000);
  const refsLine = refs.length > 0 ? refs.join(", ") : calls.map((call) => call.toolCallId).join(", ");
  return [
    header,
    `Calls: ${calls.length}`,
    `Tools: ${toolHistogram(calls)}`,
    `Span: ${isoOf(first.time)} -> ${isoOf(last.time)} (${seconds}s)`,
    `First: ${first.toolName} ${excerpt(first.args)}`,
    `Last: ${last.toolName} ${excerpt(last.args)}`,
    `Refs: ${refsLine}`,
  ].join("\n");
}

export const ARCHIVED_CHAIN_HEADER = "Archived without a summary; context_tree_query returns each output by its ref:";
const ARCHIVED_LINE_LIMIT = 160;
const STALE_WORDS: Record<string, string> = { edited: "edited later", reread: "read again later", rerun: "run again later" };

/** One call of a chain whose outputs were all archived without a summary, with its ref and facts. */
export interface ArchivedCall {
  ref: string;
  toolName: string;
  args: unknown;
  outcome?: string;
  staleRule?: string;
}

/**
 * The body of a chain whose every output was archived without a summary by choice (`summaries`): one line
 * per call naming its ref and the facts its stub showed, so the block keeps what the stubs kept. Only from
 * persisted record fields, so the same chain always gives the same text.
 */
export function archivedChainBody(calls: ArchivedCall[]): string {
  const lines = calls.map((call) => {
    const facts = call.outcome !== undefined && call.outcome !== "" ? call.outcome : excerpt(call.args);
    const stale = call.staleRule !== undefined && STALE_WORDS[call.staleRule] ? ` (${STALE_WORDS[call.staleRule]})` : "";
    const line = `${call.ref} ${call.toolName}: ${facts}${stale}`;
    return line.length <= ARCHIVED_LINE_LIMIT ? line : `${line.slice(0, ARCHIVED_LINE_LIMIT - 3)}...`;
  });
  return [ARCHIVED_CHAIN_HEADER, ...lines].join("\n");
}
