// Drives the real interactive pi TUI inside a private tmux server: start pi in a detached session of
// a fixed size, send keys, capture the screen as text. No bun:test imports: usable from scripts too.
import { execFileSync, spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { baseArgs, childEnv, runtimeBinary, type RunOptions, type Sandbox } from "./sandbox.js";

export interface TuiOptions extends RunOptions {
  width: number;
  height: number;
  /** The TERM pi sees inside tmux. */
  term: string;
}

export interface TuiSession {
  socket: string;
  /** Sends tmux key names (`Enter`, `Down`, `C-o`, `Escape`) or literal text with `{ literal: true }`. */
  keys(...keys: string[]): void;
  type(text: string): void;
  /** The visible screen, one string per row (`-e` keeps the colour escapes). */
  capture(opts?: { colors?: boolean }): string[];
  /** Waits until `pattern` shows on screen; throws with the screen dump after `timeoutMs`. */
  waitFor(pattern: RegExp | string, timeoutMs?: number): Promise<string[]>;
  /** Waits until `pattern` is gone from the screen. */
  waitGone(pattern: RegExp | string, timeoutMs?: number): Promise<string[]>;
  /** Types a slash command and submits it; a second Enter when the first only accepted the completion. */
  command(text: string): Promise<void>;
  close(): void;
}

let socketCounter = 0;

/** Why tmux cannot be used here, or undefined when it can. */
export function tmuxUnavailable(): string | undefined {
  const probe = spawnSync("tmux", ["-V"], { encoding: "utf8" });
  if (probe.error) return `tmux is not installed (${probe.error.message}); .ci/run installs it from Debian's packages`;
  if (probe.status !== 0) return `tmux -V failed: ${probe.stderr.trim()}`;
  return undefined;
}

function matches(screen: string[], pattern: RegExp | string): boolean {
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
  const command = [runtimeBinary(opts.runtime), ...baseArgs(sb, opts)].map(quote).join(" ");
  const file = join(sb.root, `tui-${opts.width}x${opts.height}.sh`);
  // stderr goes to a file: anything pi writes there would otherwise smear the captured screen.
  writeFileSync(file, ["#!/bin/sh", `cd ${quote(sb.projectDir)}`, ...exports, `exec ${command} 2>>${quote(join(sb.root, "tui-stderr.log"))}`, ""].join("\n"), { mode: 0o700 });
  return file;
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
  const poll = async (pattern: RegExp | string, wanted: boolean, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const screen = capture();
      if (matches(screen, pattern) === wanted) return screen;
      if (Date.now() > deadline) {
        const what = wanted ? "to appear" : "to disappear";
        throw new Error(`timed out after ${timeoutMs} ms waiting for ${String(pattern)} ${what}; screen (${opts.width}x${opts.height}, TERM=${opts.term}):\n${screen.join("\n")}`);
      }
      await sleep(100);
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
      tmux("send-keys", "-t", "pi", "Enter");
      for (let i = 0; i < 10 && editorText(capture(), opts.width) === text; i++) await sleep(100);
      if (editorText(capture(), opts.width) === text) tmux("send-keys", "-t", "pi", "Enter");
    },
    close: () => {
      spawnSync("tmux", ["-L", socket, "kill-server"]);
    },
  };
}
