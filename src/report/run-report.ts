/**
 * One `/pruner report` run from a session path to the text shown and the
 * HTML page written beside the session. Never throws: a file that cannot be
 * read, is not a session or breaks the replay becomes a message; the session
 * file is only ever opened for reading.
 */
import { homedir } from "node:os";
import { basename } from "node:path";
import type { ContextPruneConfig } from "../settings/config-shape.js";
import { reportHtml } from "./html-report.js";
import { replaySession, type ReplayOptions, type ReplayReport } from "./replay.js";
import { readSessionText, reportPathFor, shownPath, unreadableText, writeReportFile } from "./session-file.js";
import { parseSession } from "./session-parse.js";
import { reportText } from "./text-report.js";

export interface RunReportOptions {
  path: string;
  config: ContextPruneConfig;
  overrides: string[];
  priceAs?: ReplayOptions["priceAs"];
  costModelOf: ReplayOptions["costModelOf"];
  cacheEnv?: ReplayOptions["cacheEnv"];
  onProgress?: ReplayOptions["onProgress"];
  yieldEvery?: number;
  /** Where the HTML goes; default beside the session. */
  htmlPath?: string;
  /** False: no HTML page is written (the JSON report). */
  writeHtml?: boolean;
  /** For the live session: the footer's figure in words, shown under the header. */
  contextSent?: string;
  /** The home directory the printed path abbreviates as `~`; default the user's. */
  home?: string;
}

export interface RunReportResult {
  text: string;
  level: "info" | "warning";
  report?: ReplayReport;
  htmlPath?: string;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Where pi keeps sessions, for a file that turned out not to be one. */
const WHERE_SESSIONS_ARE = "pi's sessions are the .jsonl files under its agent folder's sessions/ (~/.pi/agent/sessions/ unless PI_CODING_AGENT_DIR says otherwise)";

export async function runReport(options: RunReportOptions): Promise<RunReportResult> {
  const title = basename(options.path);
  const home = options.home ?? homedir();
  let read;
  try {
    read = readSessionText(options.path);
  } catch (err) {
    return { text: `pruner report: ${unreadableText(err, shownPath(options.path, home))}`, level: "warning" };
  }
  const parsed = parseSession(read.text);
  const problems = [...parsed.problems, ...read.problems];
  if (parsed.notASession) {
    // One sentence: the per-line problems of a file that was never a session only repeat it.
    return { text: `pruner report: ${shownPath(options.path, home)}: ${parsed.problems[0]!.message}; ${WHERE_SESSIONS_ARE}`, level: "warning" };
  }
  let report: ReplayReport;
  try {
    report = await replaySession({
      sessionId: parsed.id,
      branch: parsed.branch,
      problems,
      config: options.config,
      overrides: options.overrides,
      priceAs: options.priceAs,
      costModelOf: options.costModelOf,
      ...(options.cacheEnv ? { cacheEnv: options.cacheEnv } : {}),
      onProgress: options.onProgress,
      yieldEvery: options.yieldEvery,
    });
  } catch (err) {
    return { text: `pruner report: the replay of ${options.path} failed: ${errorText(err)}`, level: "warning" };
  }
  const htmlPath = options.htmlPath ?? reportPathFor(options.path);
  let written: string | undefined = options.writeHtml === false ? undefined : htmlPath;
  let htmlProblem = "";
  try {
    if (written) await writeReportFile(htmlPath, reportHtml(report, title));
  } catch (err) {
    written = undefined;
    htmlProblem = `\n  the HTML report could not be written to ${htmlPath}: ${errorText(err)}`;
  }
  const level = problems.length > 0 || htmlProblem ? "warning" : "info";
  const shown = written === undefined ? undefined : shownPath(written, home);
  return { text: reportText(report, title, shown, options.contextSent) + htmlProblem, level, report, htmlPath: written };
}
