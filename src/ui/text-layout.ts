/**
 * Lays a plain-text report out for the terminal width: prose lines wrap under their own
 * indentation, runs of two-column rows (`  /pruner on   Turn pruning on`) keep their columns
 * with each description wrapped under its column, and a line holding one token (a file
 * path) is never broken at a space, so it reads and copies in one piece. Lines that fit
 * stay exactly as written.
 */
import { visibleWidth, wrapTextWithAnsi } from "@earendil-works/pi-tui";

/** Indentation, the first column, a gap of two spaces or more, the second column. */
const COLUMN_ROW = /^( *)(\S(?:.*?\S)?) {2,}(\S.*)$/;
const TOKEN_LINE = /^ *\S+$/;
/** Below this many columns left for descriptions, each description goes under its command instead. */
const MIN_DESCRIPTION_WIDTH = 24;
const GAP = 2;
const UNDER_INDENT = 4;

interface ColumnRow {
  left: string;
  description: string;
}

function columnRow(line: string): ColumnRow | undefined {
  const match = COLUMN_ROW.exec(line);
  if (!match) return undefined;
  return { left: `${match[1]}${match[2]}`, description: match[3]! };
}

function indentOf(line: string): string {
  return /^ */.exec(line)![0];
}

/** `text` wrapped at `width`, every line after `first` starting with `rest`. */
function hanging(text: string, width: number, first: string, rest: string): string[] {
  const room = Math.max(1, width - Math.max(visibleWidth(first), visibleWidth(rest)));
  return wrapTextWithAnsi(text, room).map((line, i) => `${i === 0 ? first : rest}${line}`);
}

/** A token too wide for the row is cut by columns only, with nothing put before its pieces. */
function tokenLines(line: string, width: number): string[] {
  const token = line.trim();
  if (visibleWidth(line) <= width) return [line];
  if (visibleWidth(token) <= width) return [token];
  const pieces: string[] = [];
  for (let at = 0; at < token.length; at += width) pieces.push(token.slice(at, at + width));
  return pieces;
}

function proseLines(line: string, width: number): string[] {
  if (visibleWidth(line) <= width) return [line];
  if (TOKEN_LINE.test(line)) return tokenLines(line, width);
  const indent = indentOf(line);
  return hanging(line.slice(indent.length), width, indent, indent);
}

function columnLines(rows: ColumnRow[], width: number): string[] {
  const column = Math.max(...rows.map((row) => visibleWidth(row.left))) + GAP;
  const room = width - column;
  return rows.flatMap((row) => {
    if (room >= MIN_DESCRIPTION_WIDTH) return hanging(row.description, width, row.left.padEnd(column), " ".repeat(column));
    const under = " ".repeat(indentOf(row.left).length + UNDER_INDENT);
    return [...proseLines(row.left, width), ...hanging(row.description, width, under, under)];
  });
}

export function layoutText(text: string, width: number): string[] {
  const lines = text.split("\n");
  const out: string[] = [];
  for (let i = 0; i < lines.length; ) {
    const block: { line: string; row: ColumnRow }[] = [];
    for (let row = columnRow(lines[i + block.length] ?? ""); row; row = columnRow(lines[i + block.length] ?? "")) {
      block.push({ line: lines[i + block.length]!, row });
    }
    if (block.length === 0) {
      out.push(...proseLines(lines[i]!, width));
      i += 1;
      continue;
    }
    const fits = block.every(({ line }) => visibleWidth(line) <= width);
    out.push(...(fits ? block.map(({ line }) => line) : columnLines(block.map(({ row }) => row), width)));
    i += block.length;
  }
  return out;
}
