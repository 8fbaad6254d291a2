/**
 * A pi session JSONL read for a replay: each line parsed on its own, so one
 * truncated or corrupt line is named and skipped while the rest is kept; the
 * header checked (a file that is not a session, a session of another pi
 * version); older versions migrated in memory by pi's own migration; and the
 * active branch (leaf to root over `parentId`) picked out. Pure: the text in,
 * values out; the file is read elsewhere and never written.
 */
import { CURRENT_SESSION_VERSION, migrateSessionEntries } from "@earendil-works/pi-coding-agent";
import type { FileEntry, SessionEntry } from "@earendil-works/pi-coding-agent";

/** Something in the file the replay had to skip or assume, with the 1-based line it is on (0: the file as a whole). */
export interface SessionProblem {
  line: number;
  message: string;
}

export interface ParsedSession {
  /** Session id from the header, or "" when there is no usable header. */
  id: string;
  version: number | undefined;
  /** The active branch, root first. */
  branch: SessionEntry[];
  problems: SessionProblem[];
  /** True when nothing in the file looks like a pi session: the report stops at the problems. */
  notASession: boolean;
}

const PREVIEW_CHARS = 60;

function preview(line: string): string {
  const flat = line.replace(/\s+/g, " ").trim();
  return flat.length > PREVIEW_CHARS ? `${flat.slice(0, PREVIEW_CHARS)}…` : flat;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

interface RawLines {
  header: Record<string, unknown> | undefined;
  entries: FileEntry[];
  lineOf: Map<FileEntry, number>;
  /** Entries left out (a message entry without a message), by id, with their parent: the branch walks through them. */
  skipped: Map<string, string | null>;
}

/** pi's own context building reads `message.role` of every message entry: one without a message cannot be replayed. */
function unreadableMessage(value: Record<string, unknown>): boolean {
  if (value.type !== "message") return false;
  const message = value.message;
  return typeof message !== "object" || message === null || Array.isArray(message) || typeof (message as { role?: unknown }).role !== "string";
}

function parseLines(text: string, problems: SessionProblem[]): RawLines {
  const lines = text.split("\n");
  const raw: RawLines = { header: undefined, entries: [], lineOf: new Map(), skipped: new Map() };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      const last = i === lines.length - 1 || lines.slice(i + 1).every((rest) => rest.trim() === "");
      const what = last ? "truncated or corrupt JSON (the last line: was the session still being written?)" : "corrupt JSON";
      problems.push({ line: i + 1, message: `line ${i + 1}: ${what}, skipped: ${preview(line)}` });
      continue;
    }
    if (!isObject(value) || typeof value.type !== "string") {
      problems.push({ line: i + 1, message: `line ${i + 1}: not a session entry (no "type"), skipped: ${preview(line)}` });
      continue;
    }
    if (value.type === "session") {
      if (raw.header === undefined) raw.header = value;
      else problems.push({ line: i + 1, message: `line ${i + 1}: a second session header, ignored` });
      continue;
    }
    if (unreadableMessage(value)) {
      problems.push({ line: i + 1, message: `line ${i + 1}: a message entry without a message (no role), skipped` });
      if (typeof value.id === "string") raw.skipped.set(value.id, typeof value.parentId === "string" ? value.parentId : null);
      continue;
    }
    raw.entries.push(value as unknown as FileEntry);
    raw.lineOf.set(value as unknown as FileEntry, i + 1);
  }
  return raw;
}

function checkHeader(header: Record<string, unknown> | undefined, problems: SessionProblem[]): number | undefined {
  if (header === undefined) {
    problems.push({ line: 1, message: "line 1: no pi session header (a line with \"type\":\"session\"); replaying the entries as they are" });
    return undefined;
  }
  const version = typeof header.version === "number" ? header.version : 1;
  if (version > CURRENT_SESSION_VERSION) {
    problems.push({
      line: 1,
      message: `line 1: session version ${version} is newer than this pi's ${CURRENT_SESSION_VERSION}; entries it does not know are skipped`,
    });
  }
  return version;
}

/** pi's loader migrates old files in place; here the migration runs on the parsed copy only. */
function migrate(raw: RawLines, version: number | undefined, problems: SessionProblem[]): void {
  if (version === undefined || version >= CURRENT_SESSION_VERSION) return;
  try {
    const all = [{ ...raw.header, type: "session" } as unknown as FileEntry, ...raw.entries];
    migrateSessionEntries(all);
    problems.push({ line: 1, message: `line 1: session version ${version}, migrated in memory to version ${CURRENT_SESSION_VERSION} (the file is untouched)` });
  } catch (err) {
    problems.push({ line: 1, message: `line 1: migrating version ${version} failed (${String(err)}); replaying the entries as they are` });
  }
}

function activeBranch(raw: RawLines, problems: SessionProblem[]): SessionEntry[] {
  const entries = raw.entries.filter((entry): entry is SessionEntry => typeof (entry as { id?: unknown }).id === "string");
  if (entries.length === 0) return [];
  const byId = new Map<string, SessionEntry>();
  for (const entry of entries) byId.set(entry.id, entry);
  const path: SessionEntry[] = [];
  const seen = new Set<string>();
  let current: SessionEntry | undefined = entries[entries.length - 1];
  while (current && !seen.has(current.id)) {
    seen.add(current.id);
    path.push(current);
    let parent: string | null | undefined = current.parentId;
    const passed = new Set<string>();
    while (typeof parent === "string" && !byId.has(parent) && raw.skipped.has(parent) && !passed.has(parent)) {
      passed.add(parent);
      parent = raw.skipped.get(parent);
    }
    if (parent === null || parent === undefined) break;
    const next = byId.get(parent);
    if (!next) {
      const line = raw.lineOf.get(current) ?? 0;
      problems.push({ line, message: `line ${line}: parent entry ${parent} is missing; the branch starts here` });
    }
    current = next;
  }
  return path.reverse();
}

export function parseSession(text: string): ParsedSession {
  const problems: SessionProblem[] = [];
  const raw = parseLines(text, problems);
  const hasMessages = raw.entries.some((entry) => entry.type === "message");
  if (raw.header === undefined && !hasMessages) {
    const first = text.split("\n").find((line) => line.trim() !== "");
    const reads = first === undefined ? "it is empty" : `its first line reads: ${preview(first)}`;
    const message = `this file is not a pi session (no session header and no message entries; ${reads})`;
    return { id: "", version: undefined, branch: [], problems: [{ line: 1, message }, ...problems], notASession: true };
  }
  const version = checkHeader(raw.header, problems);
  migrate(raw, version, problems);
  const id = typeof raw.header?.id === "string" ? raw.header.id : "";
  return { id, version, branch: activeBranch(raw, problems), problems, notASession: false };
}
