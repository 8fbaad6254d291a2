/**
 * The per-batch choice between a summary and none (`summaries`). The
 * summarizer is worth its price only for outputs the agent cannot simply have
 * again: a test run, a build, a web fetch. A file read, a listing or a search
 * can be repeated for the cost of one tool call, and its stub keeps the
 * output's facts (path, lines, names), so under "auto" such batches are
 * archived without a model call. Outputs gone stale (capture/stale-outputs.ts)
 * are archived without one in every mode but "always", which is 2.9.1's
 * behavior and what `flushPolicy: "classic"` implies. Pure.
 */
import { findStaleOutputs, type Supersession } from "../capture/stale-outputs.js";
import { occKey } from "../capture/occurrence-key.js";
import type { CapturedBatch, CapturedToolCall, SupersededBy } from "../capture/records.js";
import type { ContextPruneConfig, SummariesMode } from "../settings/config-shape.js";
import type { Message } from "@earendil-works/pi-ai";

export function summariesMode(config: Pick<ContextPruneConfig, "flushPolicy" | "summaries">): SummariesMode {
  return config.flushPolicy === "classic" ? "always" : config.summaries;
}

const READ_ONLY_TOOLS = new Set(["read", "read_file", "ls", "find", "grep", "glob"]);
// Programs whose output depends only on the files they name: running them again gives the output back.
const READ_ONLY_PROGRAMS = new Set(["cat", "head", "tail", "ls", "grep", "rg", "wc", "nl", "tree", "stat", "file", "sort", "uniq", "cut"]);
const SHELL_TOOLS = new Set(["bash", "sh", "shell"]);
// Anything that writes, chains a second command or substitutes one makes the command more than a read.
const NOT_A_PLAIN_READ = /[;&`$<>]|\|\|/;

/** Whether the agent can have this output again for the price of one tool call. */
export function canBeHadAgain(call: Pick<CapturedToolCall, "toolName" | "args">): boolean {
  if (READ_ONLY_TOOLS.has(call.toolName)) return true;
  if (!SHELL_TOOLS.has(call.toolName)) return false;
  const command = call.args?.command;
  if (typeof command !== "string" || command.trim() === "" || NOT_A_PLAIN_READ.test(command)) return false;
  return command.split("|").every(isReadOnlyStage);
}

function isReadOnlyStage(stage: string): boolean {
  const words = stage.trim().split(/\s+/);
  const program = words[0] ?? "";
  if (program === "sed") return words.includes("-n") && !words.some((w) => w.startsWith("-i") || w === "--in-place");
  if (program === "find") return !words.some((w) => w === "-exec" || w === "-execdir" || w === "-delete" || w === "-ok");
  return READ_ONLY_PROGRAMS.has(program);
}

/** One flushed batch split by the choice: the calls to summarize, and those archived without a summary. */
export interface BatchSplit {
  summarize: CapturedBatch;
  withoutSummary: CapturedBatch;
}

/**
 * Splits each batch. `stale` maps occurrence keys of outputs gone stale to what superseded them; the
 * calls of `withoutSummary` are marked for their records (`unsummarized`, `supersededBy`).
 */
export function splitBatches(batches: CapturedBatch[], mode: SummariesMode, stale: ReadonlyMap<string, Supersession>): BatchSplit[] {
  return batches.map((batch) => {
    if (mode === "always") return { summarize: batch, withoutSummary: { ...batch, toolCalls: [] } };
    const keep: CapturedToolCall[] = [];
    const without: CapturedToolCall[] = [];
    for (const call of batch.toolCalls) {
      const by = stale.get(occKey(call.toolCallId, call.resultTimestamp));
      if (by !== undefined) without.push({ ...call, unsummarized: true, supersededBy: persistedSupersession(by) });
      else keep.push(call);
    }
    const allAgain = mode === "never" || keep.every(canBeHadAgain);
    if (allAgain) without.push(...keep.map((call): CapturedToolCall => ({ ...call, unsummarized: true })));
    return { summarize: { ...batch, toolCalls: allAgain ? [] : keep }, withoutSummary: { ...batch, toolCalls: without } };
  });
}

/** The stale outputs of a branch, for `splitBatches`; none when the mode summarizes everything. */
export function staleOutputsOf(messages: readonly unknown[], mode: SummariesMode, isProtected: (toolName: string, args: unknown) => boolean): Map<string, Supersession> {
  if (mode === "always") return new Map();
  try {
    return findStaleOutputs(messages, { isProtected });
  } catch (err) {
    console.error("pi-condense: stale-output detection failed; outputs are summarized as usual", err);
    return new Map();
  }
}

/** What the record keeps: the rule and a bounded, single-line path or command (the stub shortens commands further). */
export function persistedSupersession(s: Pick<Supersession, "rule" | "byToolName" | "path" | "command">): SupersededBy {
  const by: SupersededBy = { rule: s.rule, toolName: oneLine(s.byToolName, 100) ?? "tool" };
  // A path is named whole or not at all: a cut one would name another file.
  const path = s.path !== undefined && s.path.length <= 300 && !/[\u0000-\u001f\u007f]/.test(s.path) ? s.path : undefined;
  const command = oneLine(s.command, 200);
  if (path !== undefined) by.path = path;
  if (command !== undefined) by.command = command;
  return by;
}

function oneLine(text: string | undefined, max: number): string | undefined {
  if (text === undefined) return undefined;
  const clean = text.replace(/[\u0000-\u001f\u007f]+/g, " ").trim();
  if (clean === "") return undefined;
  return clean.length <= max ? clean : `${clean.slice(0, max - 1)}…`;
}
