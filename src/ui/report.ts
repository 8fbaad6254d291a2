/**
 * Reports the user should still see after the next message: the line a
 * flush ends with, the `/pruner status` and `/pruner stats` blocks, and the
 * confirmation of a setting a `/pruner` subcommand changed.
 *
 * pi's TUI shows an info notice as its one status line, which the next info
 * notice replaces: a flush's result was overwritten by the next notice, and
 * `/pruner stats` overwrote `/pruner status`. In the TUI a report is therefore
 * a custom session entry drawn in the chat by its own renderer (custom entries
 * never reach the model). Other modes have no chat to draw in: RPC clients get
 * the notice as before, print and JSON mode show nothing.
 */
import type { EntryRenderOptions, ExtensionAPI, ExtensionContext, Theme } from "@earendil-works/pi-coding-agent";
import { homedir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { getCapabilities, hyperlink } from "@earendil-works/pi-tui";
import type { Component } from "@earendil-works/pi-tui";
import { CUSTOM_TYPE_REPORT } from "../names.js";
import { layoutText } from "./text-layout.js";

export type ReportLevel = "info" | "warning";

export interface ReportEntryData {
  text: string;
  level: ReportLevel;
}

/** Never throws: a report must not fail the flush or command it describes. */
export function showReport(pi: Pick<ExtensionAPI, "appendEntry">, ctx: Pick<ExtensionContext, "mode" | "ui">, text: string, level: ReportLevel = "info"): void {
  try {
    if (ctx.mode === "tui") pi.appendEntry<ReportEntryData>(CUSTOM_TYPE_REPORT, { text, level });
    else ctx.ui.notify(text, level);
  } catch (err) {
    console.error("pi-condense: showing a report failed", err);
  }
}

function reportData(data: unknown): ReportEntryData | undefined {
  const value = data as Partial<ReportEntryData> | null | undefined;
  if (typeof value?.text !== "string" || value.text.length === 0) return undefined;
  return { text: value.text, level: value.level === "warning" ? "warning" : "info" };
}

/** Columns kept free at each side of the chat. */
const MARGIN = 1;
/** An absolute path, or one under the home directory (`~/…`), alone on its line (the HTML report's). */
const PATH_LINE = /^(?:\/|~\/)\S+$/;

function fileUrl(path: string): string {
  return pathToFileURL(path.startsWith("~/") ? join(homedir(), path.slice(2)) : path).href;
}

/** The report laid out anew for each width, so its columns and paths survive a narrow or wide terminal. */
class ReportView implements Component {
  constructor(
    private readonly report: ReportEntryData,
    private readonly theme: Theme,
    private readonly links: () => boolean,
  ) {}

  render(width: number): string[] {
    try {
      return this.lines(width);
    } catch (err) {
      console.error("pi-condense: rendering a report failed", err);
      return [];
    }
  }

  private lines(width: number): string[] {
    const room = Math.max(1, width - 2 * MARGIN);
    const [first = "", ...rest] = this.report.text.split("\n");
    const gap = " ".repeat(MARGIN);
    const head = layoutText(first, room).map((line) => this.theme.fg(this.report.level === "warning" ? "warning" : "accent", line));
    const body = this.bodyLines(rest, room).map((line) => this.theme.fg("muted", line));
    return [...head, ...body].map((line) => `${gap}${line}`);
  }

  /** Each piece of a path too wide for its row links to the whole file, so a click opens it from any piece. */
  private bodyLines(lines: string[], room: number): string[] {
    const out: string[] = [];
    let run: string[] = [];
    const flush = () => {
      if (run.length > 0) out.push(...layoutText(run.join("\n"), room));
      run = [];
    };
    for (const line of lines) {
      if (!PATH_LINE.test(line) || !this.links()) {
        run.push(line);
        continue;
      }
      flush();
      const url = fileUrl(line);
      out.push(...layoutText(line, room).map((piece) => hyperlink(piece, url)));
    }
    flush();
    return out;
  }

  invalidate(): void {}
}

/** Renders a report entry; a malformed one (hand-edited session file) draws nothing. */
export function renderReportEntry(
  entry: { data?: unknown },
  _options: EntryRenderOptions,
  theme: Theme,
  links: () => boolean = () => getCapabilities().hyperlinks,
): Component | undefined {
  const report = reportData(entry.data);
  if (!report) return undefined;
  return new ReportView(report, theme, links);
}

export function registerReportRenderer(pi: Pick<ExtensionAPI, "registerEntryRenderer">): void {
  pi.registerEntryRenderer(CUSTOM_TYPE_REPORT, (entry, options, theme) => {
    try {
      return renderReportEntry(entry, options, theme);
    } catch (err) {
      console.error("pi-condense: rendering a report failed", err);
      return undefined;
    }
  });
}
