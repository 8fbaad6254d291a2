/**
 * What the digest of a read, edit or write opens with: the file's name, and for a read the lines the output
 * holds, from pi's read notes (`[Showing lines A-B of N. ...]`, `[K more lines
 * in file. Use offset=O to continue.]`) and the call's `offset`. The name is
 * the path's last segment: the call beside the stub carries the whole path,
 * and a digest's few characters go further on what only the output says.
 * Pure.
 */
import { factLine, pathOf } from "./outcome-facts.js";

const SHOWING = /\n\n\[Showing lines (\d+)-(\d+) of (\d+)[^\]\n]*\]\s*$/;
const MORE = /\n\n\[(\d+) more lines in file\. Use offset=(\d+) to continue\.\]\s*$/;
const NAME_MAX = 60;

/** The file's name as a digest shows it, or `(no path)`. */
export function fileName(args: Record<string, unknown>): string {
  const path = pathOf(args);
  if (path === undefined) return "(no path)";
  const trimmed = path.replace(/\/+$/, "");
  return factLine(trimmed.slice(trimmed.lastIndexOf("/") + 1) || trimmed, NAME_MAX);
}

function countLines(text: string): number {
  if (text === "") return 0;
  let count = text.endsWith("\n") ? 0 : 1;
  for (let at = text.indexOf("\n"); at >= 0; at = text.indexOf("\n", at + 1)) count++;
  return count;
}

/** The lines a successful read holds: `lines A-B of N`, or `N lines` for a whole file. */
export function readRange(args: Record<string, unknown>, text: string): string {
  if (text.startsWith("[image returned: ")) return "image";
  const showing = SHOWING.exec(text);
  if (showing) return `lines ${showing[1]}-${showing[2]} of ${showing[3]}`;
  const offset = typeof args.offset === "number" && Number.isInteger(args.offset) && args.offset > 1 ? args.offset : 1;
  const more = MORE.exec(text);
  if (more) {
    const end = Number(more[2]) - 1;
    return `lines ${offset}-${end} of ${end + Number(more[1])}`;
  }
  const count = countLines(text);
  if (offset === 1) return `${count} ${count === 1 ? "line" : "lines"}`;
  const end = offset + count - 1;
  return `lines ${offset}-${end} of ${end}`;
}
