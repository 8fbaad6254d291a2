/**
 * The data of `/pruner tree`: one root per summary entry on the branch, and one per index entry
 * whose outputs were archived without a summary, each labelled by the request that started it
 * (the user's prompt, or another extension's message), with its tool calls as leaves.
 */
import { looseEntry, type LooseEntry } from "../capture/message-shape.js";
import type { ExtensionCommandContext } from "@earendil-works/pi-coding-agent";
import type { ToolCallRecord } from "../capture/records.js";
import type { ToolCallIndexer } from "../archive/indexer.js";
import { isPrunerCustomType } from "../capture/message-shape.js";
import { occKey } from "../capture/occurrence-key.js";
import { isPlainObject, parseIndexEntry, parseSummaryEntry } from "../capture/persisted-entries.js";
import { compactTokens, tokensText } from "../format/figures.js";
import { CUSTOM_TYPE_INDEX, CUSTOM_TYPE_SUMMARY } from "../names.js";
import { argumentView, type TextSection } from "./tree-arguments.js";

export interface TreeNode {
  id: string;
  label: string;
  children: TreeNode[];
  expanded: boolean;
  depth: number;
  isLeaf: boolean;
  /** Summary markdown (roots) or the archived output, whole or its preview when spilled (leaves). */
  detail?: string;
  /** The leaf's short ref (`t3`), the name its output is recovered by. */
  ref?: string;
  charCount?: number;
  /** Short figures shown right-aligned on the row, so a narrow box cuts the label first. */
  meta?: string;
  /** One line of facts above the summary in the Ctrl-O view (tools, sizes, time). */
  facts?: string;
  /** The viewer's first line instead of the label: a leaf's tool and short arguments, facts apart. */
  heading?: string;
  /** Texts paged above `detail` in the viewer, each under its title: a call's long arguments. */
  sections?: TextSection[];
}

const PROMPT_CHARS = 200;
const NO_PROMPT = "(prompt without text)";
const UNKNOWN_PROMPT = "(prompt not on this branch)";

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((block) => isPlainObject(block) && block.type === "text" && typeof block.text === "string")
    .map((block) => (block as { text: string }).text)
    .join(" ");
}

function promptLabel(content: unknown): string {
  const text = oneLine(textOf(content));
  if (!text) return NO_PROMPT;
  return text.length > PROMPT_CHARS ? `${text.slice(0, PROMPT_CHARS - 1)}…` : text;
}

/** One object per request on the branch: roots are grouped by identity, not by words. */
interface Request {
  label: string;
  /** Where the request stands on the branch: roots are listed in the order of their requests. */
  position: number;
}

interface BranchRequests {
  /** Every tool result on the branch (occurrence key and bare id) to the request that led to it. */
  byResult: Map<string, Request>;
  /** Every tool result on the branch (occurrence key and bare id) to its position. */
  resultAt: Map<string, number>;
  /** The request in effect at each branch position. */
  at: Array<Request | undefined>;
}

function branchRequests(branch: unknown[]): BranchRequests {
  const byResult = new Map<string, Request>();
  const resultAt = new Map<string, number>();
  const at: Array<Request | undefined> = [];
  let current: Request | undefined;
  branch.forEach((entry, position) => {
    const message = isPlainObject(entry) && entry.type === "message" ? entry.message : undefined;
    if (isPlainObject(entry) && entry.type === "custom_message" && !isPrunerCustomType(entry.customType)) {
      current = { label: promptLabel(entry.content), position };
    } else if (isPlainObject(message) && message.role === "user") {
      current = { label: promptLabel(message.content), position };
    } else if (isPlainObject(message) && message.role === "toolResult" && typeof message.toolCallId === "string") {
      const timestamp = typeof message.timestamp === "number" ? message.timestamp : undefined;
      for (const key of [occKey(message.toolCallId, timestamp), message.toolCallId]) {
        resultAt.set(key, position);
        if (current) byResult.set(key, current);
      }
    }
    at.push(current);
  });
  return { byResult, resultAt, at };
}

function leafNode(record: ToolCallRecord, ref: string): TreeNode {
  const args = Object.entries(record.args ?? {})
    .map(([key, value]) => `${key}=${JSON.stringify(value)}`)
    .join(", ");
  const text = record.resultText ?? "";
  // A spilled output kept no text in memory: its size on disk stands in for its length.
  const charCount = text.length || record.spillBytes || 0;
  const size = `${tokensText(charCount)}${record.isError ? " · error" : ""}`;
  const spilled = !text && record.spillBytes ? " · its first lines: the whole output is in a file beside the session" : "";
  const view = argumentView(record.args ?? {});
  return {
    id: record.toolCallId,
    label: `${ref} ${record.toolName}(${args})`,
    meta: size,
    facts: `ref ${ref} · ${size}${spilled}`,
    heading: [record.toolName, ...view.facts].join(" · "),
    ...(view.sections.length > 0 ? { sections: view.sections } : {}),
    children: [],
    expanded: false,
    depth: 1,
    isLeaf: true,
    detail: text || record.resultPreview || "",
    ref,
    charCount,
  };
}

/** The footer every summary carries is written for the model; the tree tells the user instead. */
const MODEL_REFS_FOOTER = "\n\n---\n**Summarized tool refs**";

function summaryForUser(content: string, refs: string[]): string {
  const cut = content.lastIndexOf(MODEL_REFS_FOOTER);
  const body = cut >= 0 ? content.slice(0, cut) : content;
  if (refs.length === 0) return body;
  const list = refs.map((ref) => `\`${ref}\``).join(", ");
  return (
    `${body}${MODEL_REFS_FOOTER}: ${list}\n` +
    "Each ref names one original tool output, kept whole. To read one, go back to the tree, expand this request " +
    "and press Enter on the output's row. The agent gets outputs back by these refs with context_tree_query."
  );
}

/** `bash ×2, read` in first-use order. */
function toolsUsed(records: ToolCallRecord[]): string {
  const counts = new Map<string, number>();
  for (const record of records) counts.set(record.toolName, (counts.get(record.toolName) ?? 0) + 1);
  return [...counts].map(([name, count]) => (count > 1 ? `${name} ×${count}` : name)).join(", ");
}

interface Root {
  node: TreeNode;
  request: Request | undefined;
  /** The first output's occurrence key and bare id, to find where its result stands on the branch. */
  firstResult: string[];
}

/** Every summary entry gets a root; refs come only from entries the rebuild accepts (it reports the others). */
function summaryRoot(entry: LooseEntry, index: number, indexer: ToolCallIndexer, requests: Map<string, Request>, latest: Request | undefined): Root {
  const details = isPlainObject(entry.details) ? entry.details : {};
  const summary = parseSummaryEntry(entry);
  const refs = summary.ok ? summary.value.refs : [];
  const records: ToolCallRecord[] = [];
  const children: TreeNode[] = [];
  for (const ref of refs) {
    const record = indexer.getRecord(occKey(ref.toolCallId, ref.resultTimestamp));
    if (!record) continue;
    records.push(record);
    children.push(leafNode(record, ref.shortId));
  }
  const first = refs[0];
  const mapped = first ? (requests.get(occKey(first.toolCallId, first.resultTimestamp)) ?? requests.get(first.toolCallId)) : undefined;
  const request = mapped ?? latest;
  const content = typeof entry.content === "string" ? entry.content : undefined;
  const summaryChars = content?.length ?? 0;
  const original = children.reduce((sum, child) => sum + (child.charCount ?? 0), 0);
  const tools = toolsUsed(records) || "no tool calls found";
  const sizes = `${compactTokens(original)} → ${tokensText(summaryChars)}`;
  const time = typeof details.timestamp === "number" && details.timestamp ? ` · ${new Date(details.timestamp).toLocaleString()}` : "";
  const node: TreeNode = {
    id: `summary-${index}`,
    label: request?.label ?? UNKNOWN_PROMPT,
    meta: `${tools} · ${sizes}`,
    facts: `${tools} · outputs ${tokensText(original)} → summary ${tokensText(summaryChars)}${time}`,
    children,
    expanded: false,
    depth: 0,
    isLeaf: children.length === 0,
    detail: content ? summaryForUser(content, children.flatMap((child) => (child.ref ? [child.ref] : []))) : undefined,
    charCount: summaryChars,
  };
  return { node, request, firstResult: first ? [occKey(first.toolCallId, first.resultTimestamp), first.toolCallId] : [] };
}

/** Roots that share one request are numbered in list order (`1 of 2`) where a narrow row still shows it. */
function numberSharedRequests(roots: Root[]): void {
  const groups = new Map<Request, TreeNode[]>();
  for (const { node, request } of roots) if (request) groups.set(request, [...(groups.get(request) ?? []), node]);
  for (const nodes of groups.values()) {
    if (nodes.length < 2) continue;
    nodes.forEach((node, i) => {
      node.meta = `${i + 1} of ${nodes.length} · ${node.meta}`;
      node.facts = `${i + 1} of ${nodes.length} · ${node.facts}`;
    });
  }
}

const NO_SUMMARY_NOTE =
  "Archived without a summary: the agent sees a short stub for each output below (what it holds, read when it " +
  "was archived) and gets the whole output back by its ref with context_tree_query. To read one here, go back " +
  "to the tree, expand this request and press Enter on the output's row.";

/** The stub facts of each output, for the Ctrl-O view of a root without a summary. */
function noSummaryDetail(records: Array<{ record: ToolCallRecord; ref: string }>): string {
  const lines = records.map(({ record, ref }) => {
    const facts = record.supersededBy ? "stale: a later call superseded it" : (record.digest ?? record.outcome ?? "");
    return `- \`${ref}\` ${record.toolName}${facts ? `: ${oneLine(facts)}` : ""}`;
  });
  return `${NO_SUMMARY_NOTE}\n\n${lines.join("\n")}`;
}

/** An index entry's outputs that no summary covers (archived without one, stale, or with a compressed prompt). */
function unsummarizedRoot(data: unknown, index: number, indexer: ToolCallIndexer, covered: ReadonlySet<string>, requests: Map<string, Request>, latest: Request | undefined): Root | undefined {
  const parsed = parseIndexEntry(data);
  if (!parsed.ok) return undefined;
  const found: Array<{ record: ToolCallRecord; ref: string }> = [];
  for (const entryRecord of parsed.value.toolCalls) {
    const key = occKey(entryRecord.toolCallId, entryRecord.resultTimestamp);
    const ref = indexer.getShortRefForToolCallId(key);
    const record = indexer.getRecord(key);
    if (covered.has(key) || !ref || !record) continue;
    found.push({ record, ref });
  }
  const first = found[0];
  if (!first) return undefined;
  const children = found.map(({ record, ref }) => leafNode(record, ref));
  const key = occKey(first.record.toolCallId, first.record.resultTimestamp);
  const request = requests.get(key) ?? requests.get(first.record.toolCallId) ?? latest;
  const tools = toolsUsed(found.map((f) => f.record));
  const original = children.reduce((sum, child) => sum + (child.charCount ?? 0), 0);
  const node: TreeNode = {
    id: `archived-${index}`,
    label: request?.label ?? UNKNOWN_PROMPT,
    meta: `${tools} · ${tokensText(original)} · no summary`,
    facts: `${tools} · outputs ${tokensText(original)} · archived without a summary`,
    children,
    expanded: false,
    depth: 0,
    isLeaf: false,
    detail: noSummaryDetail(found),
    charCount: original,
  };
  return { node, request, firstResult: [key, first.record.toolCallId] };
}

/** Occurrence keys every summary entry on the branch covers. */
function summarizedKeys(branch: unknown[]): Set<string> {
  const covered = new Set<string>();
  for (const entry of branch) {
    if (!isPlainObject(entry) || entry.type !== "custom_message" || entry.customType !== CUSTOM_TYPE_SUMMARY) continue;
    const parsed = parseSummaryEntry(entry as { content?: unknown; details?: unknown });
    if (parsed.ok) for (const ref of parsed.value.refs) covered.add(occKey(ref.toolCallId, ref.resultTimestamp));
  }
  return covered;
}

export function buildPruneTree(ctx: ExtensionCommandContext, indexer: ToolCallIndexer): TreeNode[] {
  const branch = ctx.sessionManager.getBranch() as unknown[];
  const requests = branchRequests(branch);
  const covered = summarizedKeys(branch);
  const placed: Array<{ root: Root; at: number }> = [];
  branch.forEach((value, index) => {
    const entry = looseEntry(value);
    try {
      if (entry?.type === "custom_message" && entry.customType === CUSTOM_TYPE_SUMMARY) {
        placed.push({ root: summaryRoot(entry, placed.length, indexer, requests.byResult, requests.at[index]), at: index });
      } else if (entry?.type === "custom" && entry.customType === CUSTOM_TYPE_INDEX) {
        const root = unsummarizedRoot(entry.data, placed.length, indexer, covered, requests.byResult, requests.at[index]);
        if (root) placed.push({ root, at: index });
      }
    } catch (err) {
      console.error("pi-condense: skipping an unreadable entry in /pruner tree", err);
    }
  });
  const roots = inPromptOrder(placed, requests.resultAt);
  numberSharedRequests(roots);
  return roots.map((root) => root.node);
}

/**
 * Roots in the order of their prompts, then of their first outputs: `/pruner compact` writes the entries of
 * earlier prompts' outputs last, and the tree still lists them under their prompts' other rows.
 */
function inPromptOrder(placed: Array<{ root: Root; at: number }>, resultAt: Map<string, number>): Root[] {
  const keyed = placed.map(({ root, at }) => {
    const result = root.firstResult.map((key) => resultAt.get(key)).find((position) => position !== undefined);
    return { root, keys: [root.request?.position ?? at, result ?? at, at] };
  });
  const compare = (a: number[], b: number[]): number => a.reduce((found, value, i) => found || value - b[i]!, 0);
  return keyed.sort((a, b) => compare(a.keys, b.keys)).map(({ root }) => root);
}
