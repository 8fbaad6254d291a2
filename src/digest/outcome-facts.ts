/**
 * Outcome facts: the few things a summary tends to lose that make a model
 * re-run a command (did it fail, the first error, the final counts), read
 * deterministically from a captured output once, at capture, and kept on the
 * index record (`outcome`). The stub shows them verbatim, so they never change
 * after capture and every render of the stub is the same. Pure, no LLM.
 */

/** Longest outcome written; the persisted-entries check allows a little more for records of later versions. */
export const OUTCOME_MAX_CHARS = 200;
const LINE_MAX_CHARS = 110;
/** How far from the end a count line may sit: test runners print their totals last. */
const COUNT_TAIL_LINES = 25;
const MAX_COUNT_LINES = 3;

const SHELL_TOOLS = new Set(["bash", "powershell", "shell", "sh", "exec"]);
export const READ_TOOLS: ReadonlySet<string> = new Set(["read", "read_file"]);
export const MUTATION_TOOLS: ReadonlySet<string> = new Set(["edit", "write", "multi_edit", "apply_patch"]);

// Status lines pi's bash tool appends (dist/core/tools/bash.js).
const EXIT_LINE = /^Command exited with code (-?\d+)$/;
const STATUS_LINES: Array<[RegExp, string]> = [
  [/^Command timed out after /, "timed out"],
  [/^Command aborted$/, "aborted"],
  [/^Command terminated without an exit code$/, "killed"],
];
const ERROR_LINE = /\b(error|errors|fail|failed|failure|fatal|panic|exception|traceback)\b|\bERR!|[✗✘]/i;
const COUNT_LINE =
  /\b\d+\s+(pass|passed|passing|fail|failed|failing|failures?|errors?|warnings?|skip|skipped|pending|todo|tests?|specs?|suites?|violations?)\b/i;
// Lines that mention a failure without being one: passing test titles, skipped ones, and the numbered
// source excerpts test runners print around an assertion (`32 |   test("fails when…`).
const NOT_AN_ERROR = /^(\((pass|skip|todo)\)|[✓✔√]|PASS\b|ok\b|>?\s*\d+\s*\|)/;
// A numbered source line (`cat -n`, `nl`): `148\tpass` is a statement, `1048\terrors.append(…)` no count.
const NUMBERED_SOURCE = /^\d+\t/;
// pi's own notes inside an output (read and bash truncation) are not the program's lines.
const PI_NOTE = /^\[(Showing |\d+ more lines in file)/;
const READ_RANGE = /^\[Showing lines (\d+)-(\d+) of (\d+)/;
// ANSI CSI/OSC sequences, then any other control character.
export const ANSI = /\u001b(\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(\u0007|\u001b\\)?)/g;
const CONTROL = /[\u0000-\u001f\u007f]/g;

/** One line as a fact: escapes and control characters gone, spaces folded, cut to `max` characters. */
export function factLine(line: string, max = LINE_MAX_CHARS): string {
  const clean = line.replace(ANSI, "").replace(CONTROL, " ").replace(/\s+/g, " ").trim();
  return clean.length <= max ? clean : `${clean.slice(0, max - 1)}…`;
}

/** A line as the patterns read it: colour escapes out (they hide word boundaries), ends trimmed. */
function plain(line: string): string {
  return (line.includes("\u001b") ? line.replace(ANSI, "") : line).trim();
}

/** The non-empty lines of an output, plain; captures run on every result, so lines are cleaned only once chosen. */
function outputLines(text: string): string[] {
  const lines: string[] = [];
  for (const line of text.split("\n")) {
    const text = plain(line);
    if (text !== "") lines.push(text);
  }
  return lines;
}

function firstErrorLine(lines: string[]): string | undefined {
  const line = lines.find(
    (line) => ERROR_LINE.test(line) && !NOT_AN_ERROR.test(line) && !NUMBERED_SOURCE.test(line) && !COUNT_LINE.test(line) && !isStatusLine(line) && !PI_NOTE.test(line),
  );
  return line === undefined ? undefined : factLine(line);
}

function isStatusLine(line: string): boolean {
  return EXIT_LINE.test(line) || STATUS_LINES.some(([pattern]) => pattern.test(line));
}

function countLines(lines: string[]): string[] {
  const tail = lines.slice(-COUNT_TAIL_LINES).filter((line) => COUNT_LINE.test(line) && !NUMBERED_SOURCE.test(line) && !PI_NOTE.test(line) && !isStatusLine(line));
  return tail.slice(-MAX_COUNT_LINES).map((line) => factLine(line));
}

function shellStatus(lines: string[], toolName: string, isError: boolean): { status: string; failed: boolean } {
  const last = lines[lines.length - 1] ?? "";
  const exit = EXIT_LINE.exec(last);
  if (exit) return { status: `exit ${exit[1]}`, failed: exit[1] !== "0" };
  for (const [pattern, status] of STATUS_LINES) if (pattern.test(last)) return { status, failed: true };
  if (isError) return { status: "failed", failed: true };
  // pi's bash and powershell tools add a status line only when the exit code is not 0.
  return { status: toolName === "bash" || toolName === "powershell" ? "exit 0" : "ok", failed: false };
}

/** A shell output's facts one by one: its status, the first error line of a failed run, the count lines at its end. */
export interface ShellOutcome {
  status: string;
  error?: string;
  counts: string[];
}

export function shellOutcome(toolName: string, text: string, isError: boolean): ShellOutcome {
  const lines = outputLines(text);
  const { status, failed } = shellStatus(lines, toolName, isError);
  const error = failed ? firstErrorLine(lines) : undefined;
  return error === undefined ? { status, counts: countLines(lines) } : { status, error, counts: countLines(lines) };
}

function shellFacts(toolName: string, text: string, isError: boolean): string[] {
  const { status, error, counts } = shellOutcome(toolName, text, isError);
  const facts = [status];
  if (error !== undefined) facts.push(`first error: ${error}`);
  if (counts.length > 0) facts.push(`totals: ${counts.join(" | ")}`);
  return facts;
}

/** The call's file path (`path`, `file_path` or `filePath`) as a fact line. */
export function pathOf(args: Record<string, unknown>): string | undefined {
  const path = args.path ?? args.file_path ?? args.filePath;
  return typeof path === "string" && path !== "" ? factLine(path) : undefined;
}

function lineCount(text: string): number {
  if (text === "") return 0;
  let count = 1;
  for (let at = text.indexOf("\n"); at >= 0 && at < text.length - 1; at = text.indexOf("\n", at + 1)) count++;
  return count;
}

function readFacts(name: string, text: string): string[] {
  if (text.startsWith("[image returned: ")) return [`${name}: image`];
  const note = text.lastIndexOf("\n[Showing lines ");
  const range = note < 0 ? null : READ_RANGE.exec(text.slice(note + 1));
  if (range) return [`${name}: lines ${range[1]}-${range[2]} of ${range[3]}`];
  const count = lineCount(text);
  return [`${name}: ${count} ${count === 1 ? "line" : "lines"}`];
}

/** A failed call's first error line, or its first line when none reads as an error. */
export function failureLine(text: string): string | undefined {
  const lines = outputLines(text);
  const error = firstErrorLine(lines) ?? (lines[0] === undefined ? undefined : factLine(lines[0]));
  return error === "" ? undefined : error;
}

function firstErrorFact(text: string): string[] {
  const error = failureLine(text);
  return error === undefined ? [] : [`first error: ${error}`];
}

function capped(facts: string[]): string {
  const text = facts.join("; ");
  return text.length <= OUTCOME_MAX_CHARS ? text : `${text.slice(0, OUTCOME_MAX_CHARS - 1)}…`;
}

export function isShell(toolName: string, args: Record<string, unknown>): boolean {
  return SHELL_TOOLS.has(toolName) || typeof args.command === "string";
}

/**
 * The outcome facts of one captured call, or undefined when there is nothing
 * to say (a successful call of a tool that is no shell, read, edit or write).
 */
export function outcomeFacts(toolName: string, args: Record<string, unknown>, resultText: string, isError: boolean): string | undefined {
  if (isShell(toolName, args)) return capped(shellFacts(toolName, resultText, isError));
  const name = pathOf(args) ?? "(no path)";
  if (READ_TOOLS.has(toolName)) return capped(isError ? [`${name}: not read`, ...firstErrorFact(resultText)] : readFacts(name, resultText));
  if (MUTATION_TOOLS.has(toolName)) return capped(isError ? [`${name}: not applied`, ...firstErrorFact(resultText)] : [`${name}: applied`]);
  return isError ? capped(["failed", ...firstErrorFact(resultText)]) : undefined;
}
