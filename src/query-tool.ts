/**
 * `context_tree_query`: the model-facing recovery tool. Read-only: it resolves
 * short refs / ids through the indexer and returns the stored originals,
 * reading sidecar files for spilled records.
 */
import { constants } from "node:fs";
import { open, realpath } from "node:fs/promises";
import { basename, dirname } from "node:path";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, truncateHead, type ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import type { ToolCallIndexer } from "./indexer.js";
import { QUERY_TOOL_NAME, type ToolCallRecord } from "./types.js";

const NOT_FOUND = "(not found in index — may not have been summarized yet)";
const SIDECAR_MISSING = "(spilled output unavailable — sidecar file missing)";
const SIDECAR_REJECTED =
  "(spilled output not available — the recorded sidecar path is not a .txt file inside a session blobs directory; nothing was read)";
const BLOCK_SEPARATOR = "\n\n---\n\n";
const SIDECAR_NAME = /^[A-Za-z0-9_-]+\.txt$/;
const BLOBS_SUFFIX = "-blobs";

const DESCRIPTION =
  "Return the complete, original results of earlier tool calls whose outputs were replaced by summaries. " +
  "Pass the short refs printed in a pruner-summary message, for example " +
  'context_tree_query({ toolCallIds: ["t12", "t3"] }). ' +
  "When a raw tool-call id was used by more than one call, every occurrence is returned, each labelled id@timestamp.";

const PARAM_DESCRIPTION =
  "Required. One or more short refs such as t12 (or raw tool call ids) taken from a pruner-summary message. " +
  "A raw id that occurs more than once returns all of its occurrences, labelled id@timestamp.";

const GUIDELINE =
  "When you need the unabridged output of a tool call that was summarized, call context_tree_query " +
  "with the short refs shown in the pruner-summary message covering that call.";

/** True when a resolved path has the layout blobPathFor writes: <dir>/<sessionId>-blobs/<name>.txt */
function isSidecarLayout(resolved: string): boolean {
  const dirName = basename(dirname(resolved));
  return SIDECAR_NAME.test(basename(resolved)) && dirName.endsWith(BLOBS_SUFFIX) && dirName.length > BLOBS_SUFFIX.length;
}

function readFailure(spillPath: unknown, error: unknown): void {
  console.error(`context_tree_query: failed to read spilled output at ${String(spillPath)}:`, error);
}

function withPreview(note: string, preview: string | undefined): string {
  return preview ? `${note}\nPreview (head):\n${preview}` : note;
}

// O_NOFOLLOW: the checked real path must not be swapped for a symlink before the read.
const READ_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0);

/** Reads the sidecar, or returns undefined when the path is not a session sidecar file. */
async function readSidecar(spillPath: string): Promise<string | undefined> {
  const resolved = await realpath(spillPath);
  if (!isSidecarLayout(resolved)) return undefined;
  const handle = await open(resolved, READ_FLAGS);
  try {
    if (!(await handle.stat()).isFile()) return undefined;
    return await handle.readFile("utf8");
  } finally {
    await handle.close();
  }
}

async function spilledBody(record: ToolCallRecord): Promise<string> {
  const spillPath: unknown = record.spillPath;
  try {
    if (typeof spillPath !== "string") throw new Error("spillPath is not a string");
    const text = await readSidecar(spillPath);
    if (text !== undefined) return text;
    readFailure(spillPath, new Error("refused: not a .txt file directly inside a <sessionId>-blobs directory"));
    return withPreview(SIDECAR_REJECTED, record.resultPreview);
  } catch (error) {
    readFailure(spillPath, error);
    return record.resultPreview || SIDECAR_MISSING;
  }
}

function truncatedBody(text: string): string {
  const result = truncateHead(text, { maxLines: DEFAULT_MAX_LINES, maxBytes: DEFAULT_MAX_BYTES });
  if (!result.truncated) return result.content;
  return `${result.content}\n[Output truncated: ${result.outputLines}/${result.totalLines} lines shown]`;
}

async function recordBlock(record: ToolCallRecord, label: string, several: boolean): Promise<string> {
  const lines = [`## toolRef: ${label}`];
  if (several && record.resultTimestamp === undefined) lines.push("Occurrence: legacy (no resultTimestamp)");
  const raw = record.spillPath ? await spilledBody(record) : String(record.resultText ?? "");
  lines.push(
    `Tool: ${record.toolName}`,
    `Args: ${JSON.stringify(record.args, null, 2)}`,
    `Status: ${record.isError ? "ERROR" : "OK"}`,
    `Turn: ${record.turnIndex}`,
    "",
    truncatedBody(raw),
  );
  return lines.join("\n");
}

async function blocksForId(
  indexer: ToolCallIndexer,
  id: string,
  results: Record<string, ToolCallRecord>,
): Promise<string[]> {
  const records = indexer.getRecordsForId(id);
  if (records.length === 0) return [`## toolRef: ${id}\n${NOT_FOUND}`];
  const several = records.length > 1;
  const blocks: string[] = [];
  for (const record of records) {
    const label = several && record.resultTimestamp !== undefined ? `${id}@${record.resultTimestamp}` : id;
    blocks.push(await recordBlock(record, label, several));
    results[label] = record;
  }
  return blocks;
}

function requestedIds(params: unknown): string[] {
  const raw = (params as { toolCallIds?: unknown } | undefined)?.toolCallIds;
  if (typeof raw === "string") return [raw];
  return Array.isArray(raw) ? raw.map((id) => String(id)) : [];
}

export function registerQueryTool(pi: ExtensionAPI, indexer: ToolCallIndexer): void {
  pi.registerTool({
    name: QUERY_TOOL_NAME,
    label: "Query Original Tool History",
    description: DESCRIPTION,
    promptSnippet: "Retrieve original pruned tool outputs by short ref",
    promptGuidelines: [GUIDELINE],
    parameters: Type.Object({
      toolCallIds: Type.Array(Type.String(), { description: PARAM_DESCRIPTION }),
    }),
    async execute(_toolCallId, params) {
      const results: Record<string, ToolCallRecord> = {};
      const blocks: string[] = [];
      for (const id of requestedIds(params)) {
        try {
          blocks.push(...(await blocksForId(indexer, id, results)));
        } catch (error) {
          console.error(`context_tree_query: failed to answer ${id}:`, error);
          blocks.push(`## toolRef: ${id}\n${NOT_FOUND}`);
        }
      }
      return { content: [{ type: "text", text: blocks.join(BLOCK_SEPARATOR) }], details: { results } };
    },
  });
}
