/**
 * The replay's file edge: reads a session file (never writes it, never
 * follows it past `MAX_READ_BYTES`) and writes the HTML report beside it.
 * A huge file is read up to the limit; the cut line is named like any other
 * bad line.
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { basename, dirname, extname, join, sep } from "node:path";
import type { SessionProblem } from "./session-parse.js";

export const MAX_READ_BYTES = 256 * 1024 * 1024;

export interface SessionText {
  text: string;
  /** The file was larger than the limit: only its first `MAX_READ_BYTES` were read. */
  problems: SessionProblem[];
}

function bytes(n: number): string {
  return n >= 1024 * 1024 ? `${Math.round(n / (1024 * 1024))} MB` : `${Math.round(n / 1024)} KB`;
}

/** Why a session file could not be read, in words that name the path once (`shown`: the path as printed). */
export function unreadableText(err: unknown, shown: string): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === "ENOENT") return `there is no file at ${shown}`;
  if (code === "EISDIR" || code === "NOT_A_FILE") return `${shown} is a folder or a device, not a session file`;
  if (code === "EACCES" || code === "EPERM") return `${shown} cannot be read: permission denied`;
  if (code === "ENOTDIR") return `there is no file at ${shown} (a part of that path is a file, not a folder)`;
  // Node's own text names the path again: the code says the rest.
  return `${shown} cannot be read (${code ?? (err instanceof Error ? err.message : String(err))})`;
}

export function readSessionText(path: string, limit = MAX_READ_BYTES): SessionText {
  const fd = openSync(path, "r");
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw Object.assign(new Error(`${path} is not a regular file`), { code: "NOT_A_FILE" });
    const size = Math.min(stats.size, limit);
    const buffer = Buffer.alloc(size);
    let read = 0;
    while (read < size) {
      const n = readSync(fd, buffer, read, size - read, read);
      if (n === 0) break;
      read += n;
    }
    let text = buffer.subarray(0, read).toString("utf8");
    const problems: SessionProblem[] = [];
    if (stats.size > limit) {
      const cut = text.lastIndexOf("\n");
      text = cut >= 0 ? text.slice(0, cut + 1) : "";
      const line = text.split("\n").length;
      problems.push({ line, message: `line ${line}: the file is ${bytes(stats.size)}; only its first ${bytes(limit)} (lines 1-${line - 1}) were replayed` });
    }
    return { text, problems };
  } finally {
    closeSync(fd);
  }
}

/** pi names a session file `<time>_<uuid>.jsonl`; the uuid's last group is random. */
const PI_SESSION_NAME = /_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-([0-9a-f]{12})$/i;

/**
 * The HTML report beside the session file: `report-<the session id's last 12 hex digits>.html` for a file
 * pi named, short enough that its path fits one terminal row; `<name>.report.html` for any other name.
 */
export function reportPathFor(sessionPath: string): string {
  const name = basename(sessionPath, extname(sessionPath));
  const id = PI_SESSION_NAME.exec(name)?.[1];
  return join(dirname(sessionPath), id ? `report-${id.toLowerCase()}.html` : `${name}.report.html`);
}

/** A path as the report prints it: under the home directory as `~/…`, which every shell reads back. */
export function shownPath(path: string, home: string): string {
  if (!home || home === sep) return path;
  const prefix = home.endsWith(sep) ? home : `${home}${sep}`;
  return path.startsWith(prefix) ? `~/${path.slice(prefix.length)}` : path;
}

export async function writeReportFile(path: string, html: string): Promise<void> {
  await writeFile(path, html, { encoding: "utf8", mode: 0o600 });
}
