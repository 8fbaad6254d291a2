/**
 * Output digests: a short, deterministic account of one tool output, read
 * once at capture and kept on its index record (`digest`), so the stub of an
 * output archived without a summary can say what is in it. It extends the
 * outcome facts:
 * - a read (pi's `read`): the file's name and the lines it holds, then what
 *   the file declares and mentions;
 * - a search or listing (`grep`, `find`, `ls`, and shell commands that run
 *   one first): the match or entry count and the files matched, most matches
 *   first, with their first line numbers;
 * - any other shell output: its status unless it succeeded, its first error
 *   line and final counts, then the exception names, `file:line` locations,
 *   declared names, called symbols and paths it mentions (`mentions.ts`);
 * - an edit or write: the file's name and whether it applied.
 * Identifiers the call's own arguments hold are left out: the call stays in
 * the context beside the stub. The digest fits a budget that grows with the
 * output (`digestBudget`). Pure, no LLM, never throws on any string. */
import { factLine, failureLine, isShell, MUTATION_TOOLS, READ_TOOLS, shellOutcome } from "./outcome-facts.js";
import { rankedMentions, scanWindow } from "./mentions.js";
import { fileName, readRange } from "./read-output.js";
import { searchDigest, searchKind } from "./search-output.js";

/** A digest's share of its output's length, and the least and most it gets (see PRUNING.md, "Digests"). */
export const DIGEST_SHARE = 0.005;
export const DIGEST_MIN_CHARS = 84;
export const DIGEST_MAX_CHARS = 300;
/** A sentence (first error, totals) longer than its room is cut, but not below this. */
const SENTENCE_MIN_CHARS = 24;
const TRACEBACK_HEADER = /^Traceback \(most recent call last\)/;
const EXCEPTION_LINE = /^[A-Za-z_][\w.]*(?:Error|Exception)\b/;
const WORD_CHAR = /\w/;

/** The most characters the digest of an output of `rawChars` characters may have. */
export function digestBudget(rawChars: number): number {
  const share = Math.round(Math.max(0, rawChars) * DIGEST_SHARE);
  return Math.min(DIGEST_MAX_CHARS, Math.max(DIGEST_MIN_CHARS, share));
}

interface DigestParts {
  /** Always shown (cut to the budget when it alone is longer). */
  head: string[];
  /** First error and totals: each whole, cut to fit, or left out when the room is below SENTENCE_MIN_CHARS. */
  sentences: string[];
  /** Identifiers, best first: each shown whole or not at all. */
  items: string[];
}

/** Every string argument of the call, which the digest need not repeat. */
function knownText(args: Record<string, unknown>): string {
  return Object.values(args)
    .filter((value): value is string => typeof value === "string")
    .join("\n");
}

/** The status a digest shows: none for a success, which is what most outputs are. */
function failureStatus(status: string): string[] {
  return status === "exit 0" || status === "ok" ? [] : [status];
}

/** The error a digest shows: Python opens its tracebacks with a header line; the exception line ends them. */
function errorSentence(error: string | undefined, text: string): string | undefined {
  if (error === undefined || !TRACEBACK_HEADER.test(error)) return error;
  const lines = scanWindow(text).split("\n");
  for (let i = lines.length - 1; i >= 0; i--) if (EXCEPTION_LINE.test(lines[i]!)) return lines[i];
  return undefined;
}

function shellParts(toolName: string, args: Record<string, unknown>, text: string, isError: boolean, known: string): DigestParts {
  const outcome = shellOutcome(toolName, text, isError);
  const status = failureStatus(outcome.status);
  const kind = searchKind(toolName, args);
  if (kind !== undefined) return searchParts(kind, text, known, status);
  const error = errorSentence(outcome.error, text);
  const sentences = error === undefined ? [] : [error];
  if (outcome.counts.length > 0) sentences.push(outcome.counts.join(" | "));
  return { head: status, sentences, items: rankedMentions(text, known) };
}

function searchParts(kind: "match" | "list", text: string, known: string, status: string[]): DigestParts {
  const search = searchDigest(kind, scanWindow(text));
  const items = search.items.filter((item) => !known.includes(item));
  const mentioned = rankedMentions(search.texts.join("\n"), known).filter((item) => !items.includes(item));
  const merged: string[] = [];
  for (let i = 0; i < Math.max(items.length, mentioned.length); i++) merged.push(...[items[i], mentioned[i]].filter((x): x is string => x !== undefined));
  return { head: [...status, search.head], sentences: [], items: merged };
}

/** A read, edit or write: the file's name, then the lines read, whether the change applied, or why it failed. */
function fileParts(toolName: string, args: Record<string, unknown>, text: string, isError: boolean, known: string): DigestParts {
  const name = fileName(args);
  const mutation = MUTATION_TOOLS.has(toolName);
  if (isError) {
    const error = failureLine(text);
    return { head: [`${name}: ${mutation ? "not applied" : "not read"}`], sentences: error === undefined ? [] : [error], items: [] };
  }
  if (mutation) return { head: [`${name}: applied`], sentences: [], items: [] };
  const range = readRange(args, text);
  return { head: [`${name}: ${range}`], sentences: [], items: range === "image" ? [] : rankedMentions(text, known) };
}

function digestParts(toolName: string, args: Record<string, unknown>, text: string, isError: boolean): DigestParts {
  const known = knownText(args);
  if (isShell(toolName, args)) return shellParts(toolName, args, text, isError, known);
  if (READ_TOOLS.has(toolName) || MUTATION_TOOLS.has(toolName)) return fileParts(toolName, args, text, isError, known);
  if (isError) {
    const error = failureLine(text);
    return { head: ["failed"], sentences: error === undefined ? [] : [error], items: rankedMentions(text, known) };
  }
  const kind = searchKind(toolName, args);
  if (kind !== undefined) return searchParts(kind, text, known, []);
  return { head: [], sentences: [], items: rankedMentions(text, known) };
}

/** Whether `item` stands in `text` as a whole word (an error line may already name it). */
function saidIn(text: string, item: string): boolean {
  for (let at = text.indexOf(item); at >= 0; at = text.indexOf(item, at + 1)) {
    if (!WORD_CHAR.test(text[at - 1] ?? "") && !WORD_CHAR.test(text[at + item.length] ?? "")) return true;
  }
  return false;
}

/** The head, then the sentences that fit, then as many items as fit, within `budget` characters. */
function assemble(parts: DigestParts, budget: number): string {
  let text = parts.head.length === 0 ? "" : factLine(parts.head.join("; "), budget);
  for (const sentence of parts.sentences) {
    // Sentences leave half the budget to the identifiers, or take it all when there are none.
    const room = Math.min(budget - text.length - (text === "" ? 0 : 2), parts.items.length === 0 ? budget : Math.floor(budget / 2));
    const whole = factLine(sentence);
    if (whole.length > room && room < SENTENCE_MIN_CHARS) continue;
    const piece = factLine(whole, room);
    text = text === "" ? piece : `${text}; ${piece}`;
  }
  const said = text;
  let separator = text === "" ? "" : "; ";
  for (const item of parts.items) {
    if (saidIn(said, item)) continue;
    const next = `${text}${separator}${item}`;
    if (next.length > budget) continue;
    text = next;
    separator = " ";
  }
  return text;
}

/** What is left to say of an output when nothing else fits: how many lines it has. */
function lineCount(text: string): string {
  let lines = text.endsWith("\n") ? 0 : 1;
  for (let at = text.indexOf("\n"); at >= 0; at = text.indexOf("\n", at + 1)) lines++;
  return `${lines} ${lines === 1 ? "line" : "lines"}`;
}

/**
 * The digest of one captured call: one line of at most `digestBudget(resultText.length)` characters,
 * or undefined for an empty output that leaves nothing to say.
 */
export function outputDigest(toolName: string, args: Record<string, unknown>, resultText: string, isError: boolean): string | undefined {
  // Every part is one clean line already: heads and sentences through factLine, items tokens or cleaned entries.
  const digest = assemble(digestParts(toolName, args, resultText, isError), digestBudget(resultText.length));
  if (digest !== "") return digest;
  return resultText === "" ? undefined : lineCount(resultText);
}
