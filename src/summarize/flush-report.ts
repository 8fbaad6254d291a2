/**
 * What a flush tells the user: one line when it changed something (what was
 * summarized, the size before and after, what else happened to the outputs,
 * the work of any earlier prompt compressed), and a warning for outputs the summarizer
 * could not handle. Skips are folded into the line instead of one notice each.
 */
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { safeNotify } from "./delivery.js";
import type { PreparedBatch } from "./flush-batches.js";
import type { ProcessedBatch } from "./flush-persist.js";
import { MAX_SUMMARY_ATTEMPTS } from "./retry-ledger.js";
import { compactTokens, tokensText } from "../format/figures.js";
import { plural } from "../format/plural.js";
import { argumentStubsOn, bulkyFields, MARKER_CHARS } from "../arguments/fields.js";

const SEP = " \u00b7 ";


function callsOf(processed: ProcessedBatch[], kind: ProcessedBatch["kind"]): number {
  let n = 0;
  for (const p of processed) if (p.kind === kind) n += p.item.batch.toolCalls.length;
  return n;
}

function summarizedPart(processed: ProcessedBatch[]): string | undefined {
  let calls = 0;
  let raw = 0;
  let summary = 0;
  for (const p of processed) {
    if (p.kind !== "summarized" && p.kind !== "archived") continue;
    calls += p.item.batch.toolCalls.length;
    raw += p.item.raw;
    summary += p.summaryChars;
  }
  if (calls === 0) return undefined;
  return `summarized ${plural(calls, "tool output")} (${compactTokens(raw)} \u2192 ${tokensText(summary)})`;
}

/** Outputs archived by choice, without a model call: stale ones, and ones the agent can have again. */
function unsummarizedParts(processed: ProcessedBatch[]): string[] {
  let stale = 0;
  let again = 0;
  let raw = 0;
  for (const p of processed) {
    if (p.kind !== "unsummarized") continue;
    raw += p.item.raw;
    for (const call of p.item.batch.toolCalls) call.supersededBy ? stale++ : again++;
  }
  if (stale + again === 0) return [];
  const size = `${tokensText(raw)}, no summarizer call`;
  const retired = `retired ${plural(stale, "out-of-date output")} (a later read, edit or rerun replaced ${stale === 1 ? "it" : "them"}`;
  if (stale === 0) return [`archived ${plural(again, "output")} without a summary (${size})`];
  if (again === 0) return [`${retired}; ${size})`];
  return [`archived ${plural(again, "output")} without a summary`, `${retired}; ${size} in all)`];
}

/** The kinds whose outputs the flush archived: their calls' bulky arguments get markers (render phase 1c). */
const ARCHIVED_KINDS = new Set<ProcessedBatch["kind"]>(["summarized", "archived", "unsummarized"]);

function namesText(names: ReadonlySet<string>): string {
  const list = [...names];
  return list.length <= 1 ? (list[0] ?? "") : `${list.slice(0, -1).join(", ")} and ${list.at(-1)}`;
}

/**
 * The argument strings of the archived calls (a write's content, an edit's texts) that markers stand in for
 * once the agent is done with the call: how many, and their size against the markers'.
 */
function argumentsPart(processed: ProcessedBatch[]): string | undefined {
  let fields = 0;
  let chars = 0;
  const tools = new Set<string>();
  for (const p of processed) {
    if (!ARCHIVED_KINDS.has(p.kind)) continue;
    for (const call of p.item.batch.toolCalls) {
      if (call.isError) continue;
      const bulky = bulkyFields(call.toolName, call.args);
      if (bulky.length === 0) continue;
      tools.add(call.toolName);
      fields += bulky.length;
      for (const field of bulky) chars += field.text.length;
    }
  }
  if (fields === 0) return undefined;
  return `replaced ${plural(fields, "argument")} of ${namesText(tools)} calls with markers (${compactTokens(chars)} \u2192 ${tokensText(fields * MARKER_CHARS)})`;
}

/** The parts about outputs that were not summarized; left out when the user asked for quiet skips. */
function skippedParts(processed: ProcessedBatch[], minBatchChars: number): string[] {
  const parts: string[] = [];
  const repeated = processed.reduce((n, p) => n + p.item.deduped.length, 0);
  if (repeated > 0) parts.push(`${plural(repeated, "repeated output")} pointed at ${repeated === 1 ? "its earlier copy" : "their earlier copies"}`);
  const small = callsOf(processed, "trivial");
  if (small > 0) parts.push(`${plural(small, "small output")} (under ${minBatchChars} chars) left as ${small === 1 ? "it is" : "they are"}`);
  const longer = callsOf(processed, "oversized");
  if (longer > 0) parts.push(`${plural(longer, "output")} kept whole: the summary came out longer`);
  return parts;
}

/** `prompt 3`, `prompts 1 and 2`, `prompts 1 to 4 and 7`: runs of three or more as a range. */
export function promptListWords(prompts: readonly number[]): string {
  const sorted = [...new Set(prompts)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    if (j - i >= 2) parts.push(`${sorted[i]} to ${sorted[j]}`);
    else for (let k = i; k <= j; k++) parts.push(String(sorted[k]));
    i = j + 1;
  }
  const list = parts.length <= 1 ? (parts[0] ?? "") : `${parts.slice(0, -1).join(", ")} and ${parts.at(-1)}`;
  return `${sorted.length === 1 ? "prompt" : "prompts"} ${list}`;
}

/**
 * The work of earlier prompts a chain pass compressed, each into one summary block, named by their places on
 * the branch (`prompts`, when known for every one), and the outputs in them archived on the way with no
 * summary of their own, so the counts of every line add up to the ones `/pruner status` shows.
 */
export function compressedPromptsText(count: number, prompts: readonly number[], archived: number): string {
  const which = count > 0 && prompts.length === count && prompts.every((n) => n > 0) ? ` (${promptListWords(prompts)})` : "";
  const into = count === 1 ? "into one summary block" : "into one summary block each";
  const outputs = archived > 0 ? `, archiving ${plural(archived, "output")} in ${count === 1 ? "it" : "them"} without a summary` : "";
  return `compressed the work of ${plural(count, "earlier prompt")}${which} ${into}${outputs}`;
}

/**
 * The one line a flush ends with, or undefined when it has nothing to say (nothing changed, or only skips
 * while `quietOversizedSkips` is on).
 */
export function flushReportLine(
  processed: ProcessedBatch[],
  chains: { prompts: number[]; archived: number },
  config: { quietOversizedSkips: boolean; minBatchChars: number; stubArguments: boolean; flushPolicy: string },
): string | undefined {
  const summarized = summarizedPart(processed);
  const unsummarized = unsummarizedParts(processed);
  const markers = argumentStubsOn(config) ? argumentsPart(processed) : undefined;
  const skipped = config.quietOversizedSkips ? [] : skippedParts(processed, config.minBatchChars);
  const compressed = chains.prompts.length > 0 ? [compressedPromptsText(chains.prompts.length, chains.prompts, chains.archived)] : [];
  const parts = [...(summarized ? [summarized] : []), ...unsummarized, ...(markers ? [markers] : []), ...skipped, ...compressed];
  if (parts.length === 0) return undefined;
  const changedNothing =
    summarized === undefined && unsummarized.length === 0 && compressed.length === 0 && !processed.some((p) => p.item.deduped.length > 0);
  return `pruner: ${changedNothing ? "nothing summarized: " : ""}${parts.join(SEP)}`;
}

export function archivedNotice(p: ProcessedBatch): string {
  const refs = p.refs ?? [];
  const span = refs.length > 1 ? `${refs[0]}-${refs[refs.length - 1]}` : (refs[0] ?? "");
  return (
    `pruner: the summarizer could not summarize ${plural(p.item.batch.toolCalls.length, "tool output")} ` +
    `(${MAX_SUMMARY_ATTEMPTS} tries, or too big for one summarizer call); they were set aside with a plain listing ` +
    `instead and can still be read back as ${span}`
  );
}

/** Always shown: outputs set aside without a summary are news the user should see once. */
export function notifyArchived(ctx: ExtensionContext, processed: ProcessedBatch[]): void {
  for (const p of processed) if (p.kind === "archived") safeNotify(ctx, archivedNotice(p), "warning");
}

export function unusableNotice(item: PreparedBatch): string {
  return (
    `pruner: the summarizer sent back an empty or cut-off summary for ${plural(item.batch.toolCalls.length, "tool output")}; ` +
    "it will try again, then set them aside with a plain listing"
  );
}

export function notifyUnusable(ctx: ExtensionContext, items: PreparedBatch[]): void {
  for (const item of items) safeNotify(ctx, unusableNotice(item), "warning");
}
