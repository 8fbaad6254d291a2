/**
 * `context_tree_query`: the model-facing recovery tool. Read-only: it resolves
 * short refs / ids through the indexer and returns the stored originals,
 * reading spilled bodies from this session's own blob directory and
 * re-attaching the images a record's markers name. The result's `details`
 * describe each answer (ids, sizes, paging) and never repeat its text: pi
 * stores them in the session file beside the content.
 */
import { resolve } from "node:path";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { imagesForMarkers, toolResultImagesByDigest, type ImageBlock } from "../capture/image-markers.js";
import type { ToolCallIndexer } from "./indexer.js";
import { compilePattern } from "./line-pattern.js";
import { readQueryArgs } from "./query-args.js";
import { pageOf, parseLineRange, type LineRange, type Page } from "./query-paging.js";
import { formatSearch, searchOutputs, type SearchTarget } from "./query-search.js";
import { occKey } from "../capture/occurrence-key.js";
import { isRecoveryTool, NOT_FOUND_NOTE as NOT_FOUND } from "../capture/recovery-call.js";
import { archivedCopyOf, readOwnSidecar, type SidecarRead } from "../capture/sidecar-read.js";
import { blobDirFor } from "../capture/spill.js";
import { QUERY_TOOL_NAME } from "../names.js";
import type { ToolCallRecord } from "../capture/records.js";
const SIDECAR_MISSING = "(spilled output unavailable — sidecar file missing)";
const BLOCK_SEPARATOR = "\n\n---\n\n";

const DESCRIPTION =
  "Return the full original output (images too) of tool calls replaced by stubs or summaries, by the short refs a stub " +
  'or pruner-summary message shows: context_tree_query({ toolCallIds: ["t12", "t3"] }). A raw id used by several calls ' +
  'returns each occurrence, labelled id@timestamp. lines: "2001-4000", "head:N" or "tail:N" for a part; pattern: text or /regex/i ' +
  "for matching lines only (no refs: searches all).";

const PARAM_DESCRIPTION =
  "Required unless pattern is given: short refs like t12 (or raw ids) from a stub or pruner-summary message; a repeated raw id returns every occurrence, as id@timestamp.";

const GUIDELINE =
  "For an archived tool call's full output, call context_tree_query with the ref its stub or summary shows.";

/** What one call of the tool reads from the live session. */
interface Session {
  /** This session's blob directory, or undefined without a session directory (or without a context). */
  ownBlobDir: string | undefined;
  /** Tool-result images on the branch by digest; read at most once per call. */
  images(): ReadonlyMap<string, ImageBlock>;
}

function sessionOf(ctx: unknown): Session {
  const manager = (ctx as { sessionManager?: SessionFiles } | undefined)?.sessionManager;
  let images: ReadonlyMap<string, ImageBlock> | undefined;
  return {
    ownBlobDir: ownBlobDirOf(manager),
    images() {
      if (images === undefined) {
        try {
          images = toolResultImagesByDigest(manager?.getBranch());
        } catch (error) {
          console.error("context_tree_query: failed to read the session branch for images:", error);
          images = new Map();
        }
      }
      return images;
    },
  };
}

/** What the tool reads of `ctx.sessionManager`, each answer checked: a test or an old host may lack any of it. */
interface SessionFiles {
  getSessionDir(): unknown;
  getSessionId(): unknown;
  getBranch(): unknown;
}

function ownBlobDirOf(manager: SessionFiles | undefined): string | undefined {
  try {
    const dir: unknown = manager?.getSessionDir();
    if (typeof dir !== "string" || dir === "") return undefined;
    // Whatever the header holds, this is the directory the spill wrote to (blobDirFor names it from any value).
    return resolve(blobDirFor(dir, manager!.getSessionId() as string));
  } catch {
    return undefined;
  }
}

function readFailure(spillPath: unknown, error: unknown): void {
  console.error(`context_tree_query: failed to read spilled output at ${String(spillPath)}:`, error);
}

function withPreview(note: string, preview: string | undefined): string {
  return preview ? `${note}\nPreview (head):\n${preview}` : note;
}

type FailedRead = Exclude<SidecarRead, { kind: "ok" }>;

/** Why a spilled body is not shown; a record that kept its sidecar's size and hash says plainly that its copy is gone. */
function unavailableReason(read: FailedRead, checked: boolean): string {
  if (read.kind === "changed") return `the archived copy was changed or truncated after it was archived (${read.reason})`;
  if (read.kind === "missing") return checked ? "the archived copy was deleted" : "sidecar file missing";
  return read.reason;
}

function logFailedRead(spillPath: unknown, read: FailedRead): void {
  readFailure(spillPath, read.kind === "missing" ? read.error : new Error(`${read.kind}: ${read.reason}`));
}

async function spilledBody(record: ToolCallRecord, session: Session): Promise<string> {
  const copy = archivedCopyOf(record);
  const read = await readOwnSidecar(session.ownBlobDir, record.spillPath, copy);
  if (read.kind === "ok") return read.text;
  logFailedRead(record.spillPath, read);
  // Records written before sizes and hashes were kept answer a missing sidecar as they always did (Q6).
  if (read.kind === "missing" && !copy) return record.resultPreview || SIDECAR_MISSING;
  const shown = read.kind === "changed" ? "none of it is shown" : "nothing was read";
  return withPreview(`(spilled output not available — ${unavailableReason(read, copy !== undefined)}; ${shown})`, record.resultPreview);
}

function rawBody(record: ToolCallRecord, session: Session): Promise<string> | string {
  return record.spillPath ? spilledBody(record, session) : String(record.resultText ?? "");
}

/** The lines parameter, or a note standing in for every body when it is not a range. */
type Paging = { range?: LineRange; error?: string };

/** What `details.results` holds for each answered label: facts about the answer, not its text. */
export interface QueryAnswerFacts {
  toolCallId: string;
  resultTimestamp?: number;
  /** The record's short ref, when it has one. */
  shortRef?: string;
  toolName: string;
  isError: boolean;
  turnIndex: number;
  /** Characters of the original output (as read for this answer when it was spilled). */
  originalChars: number;
  /** Characters of the body this answer shows. */
  shownChars: number;
  /** `A-B of N` when a line range selected something. */
  lines?: string;
  /** Cut to the 2000-line / 50 KiB page. */
  truncated: boolean;
  spilled: boolean;
  /** Image blocks re-attached for this answer. */
  images: number;
  /** Search answers: matching lines found, and how many of them the answer shows. */
  matches?: number;
  shownMatches?: number;
}

export interface QueryToolDetails {
  results: Record<string, QueryAnswerFacts>;
}

interface Answer {
  text: string;
  images: ImageBlock[];
}

/** A found record's answer, with what its facts are read from. */
interface RecordAnswer extends Answer {
  page: Page;
  /** The whole original body; undefined when a bad range stood in for it. */
  original?: string;
}

async function recordBlock(
  record: ToolCallRecord,
  label: string,
  several: boolean,
  session: Session,
  paging: Paging,
): Promise<RecordAnswer> {
  const lines = [`## toolRef: ${label}`];
  if (several && record.resultTimestamp === undefined) lines.push("Occurrence: legacy (no resultTimestamp)");
  const original = paging.error === undefined ? await rawBody(record, session) : undefined;
  const page: Page = original !== undefined ? pageOf(original, paging.range, label) : { body: paging.error ?? "", selected: "" };
  lines.push(
    `Tool: ${record.toolName}`,
    `Args: ${JSON.stringify(record.args, null, 2)}`,
    `Status: ${record.isError ? "ERROR" : "OK"}`,
    `Turn: ${record.turnIndex}`,
  );
  if (page.linesHeader !== undefined) lines.push(page.linesHeader);
  lines.push("", page.body);
  const images = page.selected.includes("[image returned: ") ? imagesForMarkers(page.selected, session.images()) : [];
  return { text: lines.join("\n"), images, page, original };
}

function factsOf(record: ToolCallRecord, answer: RecordAnswer, shortRef: string | undefined): QueryAnswerFacts {
  const facts: QueryAnswerFacts = {
    toolCallId: record.toolCallId,
    toolName: record.toolName,
    isError: record.isError === true,
    turnIndex: record.turnIndex,
    originalChars: answer.original?.length ?? 0,
    shownChars: answer.page.body.length,
    truncated: answer.page.truncated === true,
    spilled: typeof record.spillPath === "string" && record.spillPath !== "",
    images: answer.images.length,
  };
  if (record.resultTimestamp !== undefined) facts.resultTimestamp = record.resultTimestamp;
  if (shortRef !== undefined) facts.shortRef = shortRef;
  if (answer.page.linesHeader !== undefined) facts.lines = answer.page.linesHeader.replace(/^Lines: /, "");
  return facts;
}

async function answersForId(
  indexer: ToolCallIndexer,
  id: string,
  results: Record<string, QueryAnswerFacts>,
  session: Session,
  paging: Paging,
): Promise<Answer[]> {
  const records = indexer.getRecordsForId(id);
  if (records.length === 0) return [{ text: `## toolRef: ${id}\n${NOT_FOUND}`, images: [] }];
  const several = records.length > 1;
  const answers: Answer[] = [];
  for (const record of records) {
    const label = several && record.resultTimestamp !== undefined ? `${id}@${record.resultTimestamp}` : id;
    const answer = await recordBlock(record, label, several, session, paging);
    answers.push(answer);
    results[label] = factsOf(record, answer, indexer.getShortRefForToolCallId(occKey(record.toolCallId, record.resultTimestamp)));
  }
  return answers;
}

/** The text to search of a record: the whole original, or its preview with the reason it is not whole. */
async function searchableText(record: ToolCallRecord, session: Session): Promise<{ text: string; note?: string }> {
  if (!record.spillPath) return { text: String(record.resultText ?? "") };
  const copy = archivedCopyOf(record);
  const read = await readOwnSidecar(session.ownBlobDir, record.spillPath, copy);
  if (read.kind === "ok") return { text: read.text };
  logFailedRead(record.spillPath, read);
  const reason = unavailableReason(read, copy !== undefined);
  return { text: record.resultPreview ?? "", note: `spilled output not available — ${reason}; only its preview was searched` };
}

async function targetOf(record: ToolCallRecord, label: string, session: Session): Promise<{ target: SearchTarget; record: ToolCallRecord }> {
  const { text, note } = await searchableText(record, session);
  const target: SearchTarget = { label, toolName: record.toolName, args: record.args, isError: record.isError === true, time: record.resultTimestamp ?? record.timestamp, text };
  if (note !== undefined) target.note = note;
  return { target, record };
}

/** The outputs a search reads: the named ones (labelled like a recovery), or every archived original. */
async function searchTargets(indexer: ToolCallIndexer, ids: string[], session: Session, notFound: string[]) {
  const found: Array<{ target: SearchTarget; record: ToolCallRecord }> = [];
  if (ids.length === 0) {
    for (const [key, record] of indexer.getIndex()) {
      // An archived answer of this tool (a chain backfill of a search) would only echo other outputs' lines.
      if (isRecoveryTool(record.toolName)) continue;
      found.push(await targetOf(record, indexer.getShortRefForToolCallId(key) ?? key, session));
    }
    return found;
  }
  for (const id of ids) {
    const records = indexer.getRecordsForId(id);
    if (records.length === 0) notFound.push(`## toolRef: ${id}\n${NOT_FOUND}`);
    const several = records.length > 1;
    for (const record of records) {
      found.push(await targetOf(record, several && record.resultTimestamp !== undefined ? `${id}@${record.resultTimestamp}` : id, session));
    }
  }
  return found;
}

async function searchAnswer(indexer: ToolCallIndexer, ids: string[], patternArg: string, paging: Paging, session: Session): Promise<{ text: string; results: Record<string, QueryAnswerFacts> }> {
  const compiled = compilePattern(patternArg);
  if (!compiled.ok) return { text: `[pattern ${JSON.stringify(patternArg)} is not usable: ${compiled.error}]`, results: {} };
  if (paging.error !== undefined) return { text: paging.error, results: {} };
  const notFound: string[] = [];
  const found = await searchTargets(indexer, ids, session, notFound);
  const run = searchOutputs(found.map((f) => f.target), compiled.pattern, paging.range);
  const answer = formatSearch(run, compiled.pattern, patternArg, ids.length > 0);
  const results: Record<string, QueryAnswerFacts> = {};
  for (const { target, record } of found) {
    const shown = answer.shown.get(target.label);
    if (shown === undefined) continue;
    const facts: QueryAnswerFacts = {
      toolCallId: record.toolCallId,
      toolName: record.toolName,
      isError: record.isError === true,
      turnIndex: record.turnIndex,
      originalChars: target.text.length,
      shownChars: shown.chars,
      truncated: shown.shownMatches < shown.matches,
      spilled: typeof record.spillPath === "string" && record.spillPath !== "",
      images: 0,
      matches: shown.matches,
      shownMatches: shown.shownMatches,
    };
    if (record.resultTimestamp !== undefined) facts.resultTimestamp = record.resultTimestamp;
    const shortRef = indexer.getShortRefForToolCallId(occKey(record.toolCallId, record.resultTimestamp));
    if (shortRef !== undefined) facts.shortRef = shortRef;
    results[target.label] = facts;
  }
  return { text: [answer.text, ...notFound].filter((part) => part !== "").join(BLOCK_SEPARATOR), results };
}

const NOTHING_ASKED = "[Pass toolCallIds (short refs such as t12), or a pattern to search every archived output of this session.]";

export function registerQueryTool(pi: ExtensionAPI, indexer: ToolCallIndexer): void {
  pi.registerTool({
    name: QUERY_TOOL_NAME,
    label: "Query Original Tool History",
    description: DESCRIPTION,
    // Declared to the model only once something is archived (query-tool-exposure.ts).
    defaultActive: false,
    promptSnippet: "Retrieve original pruned tool outputs by short ref",
    promptGuidelines: [GUIDELINE],
    parameters: Type.Object({
      toolCallIds: Type.Optional(Type.Array(Type.String(), { description: PARAM_DESCRIPTION })),
      lines: Type.Optional(Type.String()),
      pattern: Type.Optional(Type.String()),
    }),
    async execute(_toolCallId, params, _signal, _onUpdate, ctx) {
      const args = readQueryArgs(params);
      if ("error" in args) return { content: [{ type: "text" as const, text: args.error }], details: { results: {} } satisfies QueryToolDetails };
      const { ids, pattern } = args;
      const session = sessionOf(ctx);
      const paging: Paging = parseLineRange(args.lines);
      if (pattern !== undefined) {
        try {
          const { text, results } = await searchAnswer(indexer, ids, pattern, paging, session);
          return { content: [{ type: "text" as const, text }], details: { results } satisfies QueryToolDetails };
        } catch (error) {
          console.error("context_tree_query: search failed:", error);
          return { content: [{ type: "text" as const, text: `[search for ${JSON.stringify(pattern)} failed; nothing was returned]` }], details: { results: {} } };
        }
      }
      if (ids.length === 0) return { content: [{ type: "text" as const, text: NOTHING_ASKED }], details: { results: {} } satisfies QueryToolDetails };
      const results: Record<string, QueryAnswerFacts> = {};
      const texts: string[] = [];
      const images: ImageBlock[] = [];
      for (const id of ids) {
        try {
          for (const answer of await answersForId(indexer, id, results, session, paging)) {
            texts.push(answer.text);
            images.push(...answer.images);
          }
        } catch (error) {
          console.error(`context_tree_query: failed to answer ${id}:`, error);
          texts.push(`## toolRef: ${id}\n${NOT_FOUND}`);
        }
      }
      const details: QueryToolDetails = { results };
      return { content: [{ type: "text" as const, text: texts.join(BLOCK_SEPARATOR) }, ...images], details };
    },
  });
}
