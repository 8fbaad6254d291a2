// Drives the real interactive pi TUI inside a private tmux server: start pi in a detached session of
// a fixed size, send keys, capture the screen as text. No bun:test imports: usable from scripts too.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { baseArgs, childEnv, runtimeBinary, type RunOptions, type Sandbox } from "./sandbox.js";

export interface TuiOptions extends RunOptions {
  width: number;
  height: number;
  /** The TERM pi sees inside tmux. */
  term: string;
  /** Extra arguments for pi (`-c` to continue the sandbox's last session). */
  args?: string[];
}

export interface TuiSession {
  socket: string;
  /** Sends tmux key names (`Enter`, `Down`, `C-o`, `Escape`) or literal text with `{ literal: true }`. */
  keys(...keys: string[]): void;
  type(text: string): void;
  /** The visible screen, one string per row (`-e` keeps the colour escapes). */
  capture(opts?: { colors?: boolean }): string[];
  /** Waits until `pattern` shows on screen; throws with the screen dump after `timeoutMs`. */
  waitFor(pattern: ScreenPattern, timeoutMs?: number): Promise<string[]>;
  /** Waits until `pattern` is gone from the screen. */
  waitGone(pattern: ScreenPattern, timeoutMs?: number): Promise<string[]>;
  /**
   * Waits until the box titled `title` is whole on screen and the screen stopped changing (pi draws a
   * frame in several writes), then returns it with the screen; throws with what is wrong and the screen.
   */
  waitForBox(title: string, ready?: (box: Box, screen: string[]) => boolean, timeoutMs?: number): Promise<{ box: Box; screen: string[] }>;
  /** Resizes the tmux window (pi redraws at the new size). */
  resize(width: number, height: number): void;
  /** Types a slash command and submits it with one Enter (fails when that Enter only accepted a completion). */
  command(text: string): Promise<void>;
  close(): void;
}

/** With PI_CONDENSE_SCREENS=<dir>, writes an asserted screen there as `<name>.txt` (evidence for a change's note). */
export function saveScreen(name: string, screen: string[]): void {
  const dir = process.env.PI_CONDENSE_SCREENS;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${name}.txt`), `${screen.join("\n")}\n`);
}

/** Text on screen, or a test over the screen's rows. */
export type ScreenPattern = RegExp | string | ((screen: string[]) => boolean);

let socketCounter = 0;
let launcherCounter = 0;

/** Why tmux cannot be used here, or undefined when it can. */
export function tmuxUnavailable(): string | undefined {
  const probe = spawnSync("tmux", ["-V"], { encoding: "utf8" });
  if (probe.error) return `tmux is not installed (${probe.error.message}); .ci/run installs it from Debian's packages`;
  if (probe.status !== 0) return `tmux -V failed: ${probe.stderr.trim()}`;
  return undefined;
}

function matches(screen: string[], pattern: ScreenPattern): boolean {
  if (typeof pattern === "function") return pattern(screen);
  const text = screen.join("\n");
  return typeof pattern === "string" ? text.includes(pattern) : pattern.test(text);
}

function launcher(sb: Sandbox, opts: TuiOptions): string {
  const env: NodeJS.ProcessEnv = { ...childEnv(sb), TERM: opts.term, COLORTERM: "" };
  delete env.NO_COLOR;
  const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
  const exports = Object.entries(env)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `export ${k}=${quote(String(v))}`);
  const command = [runtimeBinary(opts.runtime), ...baseArgs(sb, opts), ...(opts.args ?? [])].map(quote).join(" ");
  const file = join(sb.root, `tui-${opts.width}x${opts.height}-${++launcherCounter}.sh`);
  // stderr goes to a file: anything pi writes there would otherwise smear the captured screen.
  writeFileSync(file, ["#!/bin/sh", `cd ${quote(sb.projectDir)}`, ...exports, `exec ${command} 2>>${quote(join(sb.root, "tui-stderr.log"))}`, ""].join("\n"), { mode: 0o700 });
  return file;
}

/** The screen as a failure message shows it: size, TERM and every row between rulers. */
export function describeScreen(screen: string[], width: number, height: number, term: string): string {
  const ruler = "-".repeat(width);
  return `screen (${width}x${height}, TERM=${term}):\n${ruler}\n${screen.join("\n")}\n${ruler}`;
}

export interface Box {
  top: number;
  bottom: number;
  left: number;
  right: number;
  /** The rows between the side lines, one string per row. */
  inner: string[];
}

/** Columns counted in characters (box lines, arrows and the text pi draws are one column each). */
function cells(row: string): string[] {
  return Array.from(row);
}

/**
 * The box titled `title` (`┌─ title ─…┐`) with every corner and side line checked: the same
 * left and right column on every row. A problem is returned as text, not thrown.
 */
export function findBox(screen: string[], title: string): Box | string {
  const grid = screen.map(cells);
  const top = screen.findIndex((row) => row.includes(`┌─ ${title} `));
  if (top < 0) return `no box titled "${title}"`;
  const head = grid[top]!;
  const left = cells(screen[top]!.slice(0, screen[top]!.indexOf(`┌─ ${title} `))).length;
  const right = head.indexOf("┐", left);
  if (right < 0) return `the top edge of "${title}" has no ┐`;
  let bottom = -1;
  for (let r = top + 1; r < grid.length && bottom < 0; r++) {
    const at = grid[r]![left];
    if (at === "└") bottom = r;
    else if (at !== "│") return `row ${r} has "${at ?? ""}" at column ${left} where the left side of "${title}" should be`;
    else if (grid[r]![right] !== "│") return `row ${r} has "${grid[r]![right] ?? ""}" at column ${right} where the right side of "${title}" should be`;
  }
  if (bottom < 0) return `the box "${title}" has no bottom edge on screen`;
  if (grid[bottom]![right] !== "┘") return `the bottom edge of "${title}" ends in "${grid[bottom]![right] ?? ""}" at column ${right}, not ┘`;
  const inner = grid.slice(top + 1, bottom).map((row) => row.slice(left + 1, right).join(""));
  return { top, bottom, left, right, inner };
}

/** Screen text with the rows joined by spaces, for a sentence the chat wrapped. */
export const flat = (screen: string[]): string => screen.join(" ").replace(/\s+/g, " ");

/** True when the entry starting at the last row containing `start` is followed only by blank rows up to the editor's rule. */
export function lastAboveEditor(screen: string[], start: string): boolean {
  const from = screen.findLastIndex((row) => row.includes(start));
  const rule = screen.findIndex((row, i) => i > from && /^─{20,}/.test(row));
  if (from < 0 || rule < 0) return false;
  const rest = screen.slice(from, rule);
  const blank = rest.findIndex((row) => row.trim() === "");
  return blank > 0 && rest.slice(blank).every((row) => row.trim() === "");
}

/** The chat entry that starts at the last row containing `start`, through the blank row that ends it. */
export function chatEntry(screen: string[], start: string): string[] {
  const from = screen.findLastIndex((row) => row.includes(start));
  const rest = screen.slice(from);
  const end = rest.findIndex((row) => row.trim() === "");
  return end < 0 ? rest : rest.slice(0, end);
}

const RULE = /^─+$/;

/** The editor's text: the rows between the last two full-width rules. */
export function editorText(screen: string[], width: number): string {
  const rules = screen.flatMap((row, i) => (RULE.test(row) && row.length === width ? [i] : []));
  const [top, bottom] = rules.slice(-2);
  if (top === undefined || bottom === undefined) return "";
  return screen.slice(top + 1, bottom).map((row) => row.trim()).join("\n").trim();
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function startTui(sb: Sandbox, opts: TuiOptions): TuiSession {
  const socket = `pi-condense-tui-${process.pid}-${++socketCounter}`;
  const tmux = (...args: string[]) => execFileSync("tmux", ["-L", socket, ...args], { encoding: "utf8" });
  // One invocation: the options must be set before pi starts and looks at them.
  tmux("-f", "/dev/null", "start-server", ";", "set-option", "-g", "extended-keys", "on", ";", "set-option", "-g", "remain-on-exit", "on", ";",
    "new-session", "-d", "-s", "pi", "-x", String(opts.width), "-y", String(opts.height), launcher(sb, opts));
  const capture = (o: { colors?: boolean } = {}) => tmux("capture-pane", "-p", ...(o.colors ? ["-e"] : []), "-t", "pi").replace(/\n$/, "").split("\n");
  let size = { width: opts.width, height: opts.height };
  const poll = async (pattern: ScreenPattern, wanted: boolean, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const screen = capture();
      if (matches(screen, pattern) === wanted) return screen;
      if (Date.now() > deadline) {
        const what = wanted ? "to appear" : "to disappear";
        throw new Error(`timed out after ${timeoutMs} ms waiting for ${String(pattern)} ${what}; ${describeScreen(screen, size.width, size.height, opts.term)}`);
      }
      await sleep(100);
    }
  };
  const settle = async () => {
    let previous = capture().join("\n");
    for (let i = 0; i < 20; i++) {
      await sleep(250);
      const now = capture().join("\n");
      if (now === previous) return;
      previous = now;
    }
  };
  return {
    socket,
    keys: (...keys) => void tmux("send-keys", "-t", "pi", ...keys),
    type: (text) => void tmux("send-keys", "-t", "pi", "-l", text),
    capture,
    waitFor: (pattern, timeoutMs = 15000) => poll(pattern, true, timeoutMs),
    waitGone: (pattern, timeoutMs = 15000) => poll(pattern, false, timeoutMs),
    command: async (text) => {
      tmux("send-keys", "-t", "pi", "-l", text);
      await poll((screen) => editorText(screen, size.width) === text, true, 15000);
      // pi's completion list follows typing after a debounce; on a loaded machine an Enter that arrives first picks
      // the stale list's item instead of submitting, as it would for a fast typist. Wait until the screen holds still.
      await settle();
      // A subcommand typed in full must run on the first Enter (its completion list closes once the name is whole).
      tmux("send-keys", "-t", "pi", "Enter");
      for (let i = 0; i < 50 && editorText(capture(), size.width) === text; i++) await sleep(100);
      if (editorText(capture(), size.width) !== text) return;
      throw new Error(`"${text}" was not submitted by the first Enter; ${describeScreen(capture(), size.width, size.height, opts.term)}`);
    },
    waitForBox: async (title, ready = () => true, timeoutMs = 15000) => {
      const deadline = Date.now() + timeoutMs;
      let previous: string | undefined;
      for (;;) {
        const screen = capture();
        const found = findBox(screen, title);
        const text = screen.join("\n");
        if (typeof found !== "string" && ready(found, screen) && text === previous) return { box: found, screen };
        previous = text;
        if (Date.now() > deadline) {
          const problem = typeof found === "string" ? found : `the box "${title}" never reached the state waited for`;
          throw new Error(`timed out after ${timeoutMs} ms: ${problem}; ${describeScreen(screen, size.width, size.height, opts.term)}`);
        }
        await sleep(100);
      }
    },
    resize: (width, height) => {
      tmux("resize-window", "-t", "pi", "-x", String(width), "-y", String(height));
      size = { width, height };
    },
    close: () => {
      spawnSync("tmux", ["-L", socket, "kill-server"]);
    },
  };
}
