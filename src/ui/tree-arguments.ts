/**
 * A tool call's arguments as the tree's output viewer shows them: short values in its header
 * (`path: notes.md`), long ones by their size (`content: 42 lines, 1.3k chars`) with their whole text
 * paged above the output, so no argument can push the box past the screen.
 */
import { formatCompactCount } from "../format/figures.js";
import { plural } from "../format/plural.js";

export interface TextSection {
  title: string;
  text: string;
}

export interface ArgumentView {
  /** One fact per argument, in argument order: its value when short, else its size. */
  facts: string[];
  /** The whole text of every argument the facts give by size only. */
  sections: TextSection[];
}

/** The longest value shown as it is in the header, on one line. */
const INLINE_CHARS = 60;
/** Arguments named in the header; the rest are paged with the long ones. */
const MAX_FACTS = 5;
/** Nested values deeper than this are shown as their JSON text. */
const MAX_DEPTH = 4;

/** `edits[0].oldText`-style names for every leaf value; strings as they are, anything else as JSON text. */
function leafValues(value: unknown, name: string, depth: number, out: Array<[string, string]>): void {
  if (value === undefined) return;
  if (typeof value === "string") {
    out.push([name, value]);
    return;
  }
  if (value !== null && typeof value === "object" && depth < MAX_DEPTH) {
    const entries = Array.isArray(value) ? value.map((item, i) => [`${name}[${i}]`, item] as const) : Object.entries(value).map(([key, item]) => [name ? `${name}.${key}` : key, item] as const);
    for (const [child, item] of entries) leafValues(item, child, depth + 1, out);
    return;
  }
  out.push([name, safeJson(value)]);
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function isShort(text: string): boolean {
  return text.length <= INLINE_CHARS && !text.includes("\n");
}

/** `42 lines, 1.3k chars`; one line gives the characters alone. */
export function textSize(text: string): string {
  const lines = text.split("\n").length;
  const chars = `${formatCompactCount(text.length)} ${text.length === 1 ? "char" : "chars"}`;
  return lines > 1 ? `${plural(lines, "line")}, ${chars}` : chars;
}

export function argumentView(args: unknown): ArgumentView {
  const values: Array<[string, string]> = [];
  leafValues(args, "", 0, values);
  const facts: string[] = [];
  const sections: TextSection[] = [];
  values.forEach(([name, text], i) => {
    const label = name || "arguments";
    if (i >= MAX_FACTS) sections.push({ title: label, text });
    else if (isShort(text)) facts.push(`${label}: ${text === "" ? '""' : text}`);
    else {
      facts.push(`${label}: ${textSize(text)}`);
      sections.push({ title: `${label} (${textSize(text)})`, text });
    }
  });
  if (values.length > MAX_FACTS) facts.push(`${plural(values.length - MAX_FACTS, "more argument")} below`);
  return { facts, sections };
}
