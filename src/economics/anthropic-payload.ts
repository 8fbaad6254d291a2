/**
 * An Anthropic Messages request body (what pi-ai's `buildParams` hands to
 * `before_provider_request`) seen as the blocks Anthropic's cache hashes, in
 * its order: tools, then system blocks, then each message's content blocks.
 * And the one change the spare breakpoint makes to it: a `cache_control`
 * marker on one existing block, copy-on-write. Pure: the digest is injected.
 */
import { type BlockPlace, isObject, MarkerTally, normalizedToolUseId, type Obj, type PayloadBlock, type PayloadCodec, type PayloadScan, replacedAt } from "./payload-scan.js";

/** Content block types Anthropic accepts a marker on. Thinking blocks refuse one; unknown types are left alone. */
const MARKABLE_TYPES = new Set(["text", "image", "document", "search_result", "tool_use", "tool_result", "tool_addition", "tool_removal"]);
const THINKING_TYPES = new Set(["thinking", "redacted_thinking"]);

const hasMarker = (block: Obj): boolean => block.cache_control !== undefined && block.cache_control !== null;

function noteMarker(tally: MarkerTally, block: Obj): boolean {
  if (!hasMarker(block)) return false;
  tally.note(block.cache_control, THINKING_TYPES.has(block.type as string));
  return true;
}

/** Markers on blocks nested in a block's `content` (a tool result's text and images). */
function noteNested(tally: MarkerTally, block: Obj): boolean {
  let any = false;
  if (Array.isArray(block.content)) for (const inner of block.content) if (isObject(inner) && noteMarker(tally, inner)) any = true;
  return any;
}

/**
 * The blocks of an Anthropic Messages body, or undefined for anything that is not one as pi-ai builds it
 * (not an object, no `messages` list, a message or block of another shape): such a body is left alone.
 * String content hashes like the one text block it stands for, as Anthropic reads it, so a message pi-ai
 * sent as a marked text block last time and as a string now keeps its key.
 */
export function scanAnthropicPayload(payload: unknown, digest: (text: string) => string): PayloadScan | undefined {
  if (!isObject(payload) || !Array.isArray(payload.messages)) return undefined;
  const tally = new MarkerTally();
  noteMarker(tally, payload);
  const blocks: PayloadBlock[] = [];
  const push = (prefix: string, value: Obj, place: BlockPlace, marked: boolean, eligible: boolean): void => {
    const { cache_control: _marker, ...rest } = value;
    const json = JSON.stringify(rest);
    const toolUseId = value.type === "tool_result" && typeof value.tool_use_id === "string" ? value.tool_use_id : undefined;
    blocks.push({ key: `${prefix}:${digest(json)}`, tokens: json.length / 4, marked, eligible, place, ...(toolUseId !== undefined ? { toolUseId } : {}) });
  };
  const addText = (prefix: string, text: string, place: BlockPlace): void => push(prefix, { type: "text", text }, place, false, false);
  const add = (prefix: string, block: unknown, place: BlockPlace, markable: (b: Obj) => boolean): boolean => {
    if (!isObject(block)) return false;
    const own = noteMarker(tally, block);
    const marked = noteNested(tally, block) || own;
    push(prefix, block, place, marked, !marked && markable(block));
    return true;
  };

  const { tools, system, messages } = payload;
  if (tools !== undefined) {
    if (!Array.isArray(tools)) return undefined;
    for (const [index, tool] of tools.entries()) {
      if (!add("tool", tool, { section: "tools", index }, (t) => t.defer_loading !== true)) return undefined;
    }
  }
  if (typeof system === "string") {
    addText("system", system, { section: "system", index: undefined });
  } else if (Array.isArray(system)) {
    for (const [index, block] of system.entries()) {
      if (!add("system", block, { section: "system", index }, (b) => b.type === "text")) return undefined;
    }
  } else if (system !== undefined) return undefined;

  for (const [message, entry] of messages.entries()) {
    if (!isObject(entry) || typeof entry.role !== "string") return undefined;
    const prefix = `${message}:${entry.role}`;
    const { content } = entry;
    if (typeof content === "string") {
      addText(prefix, content, { section: "messages", message, index: undefined });
      continue;
    }
    if (!Array.isArray(content)) return undefined;
    for (const [index, block] of content.entries()) {
      if (!add(prefix, block, { section: "messages", message, index }, (b) => MARKABLE_TYPES.has(b.type as string))) return undefined;
    }
  }
  return { blocks, markers: tally.count, cacheControl: tally.value, markedThinking: tally.markedThinking };
}

/**
 * The body with `cacheControl` on the block at `place`. Copy-on-write: only the objects and lists on the
 * path to that block are new; everything else, the input included, is shared and never changed. A place
 * that holds no block object (a string, out of range) returns the body unchanged.
 */
export function withMarker<T>(payload: T, place: BlockPlace, cacheControl: unknown): T {
  const body = payload as Obj;
  const mark = (block: unknown): unknown => (isObject(block) ? { ...block, cache_control: cacheControl } : block);
  const replaced = (list: unknown, index: number | undefined): unknown[] | undefined => {
    if (!Array.isArray(list) || index === undefined || !isObject(list[index])) return undefined;
    return replacedAt(list, index, mark(list[index]));
  };
  if (place.section === "tools") {
    const tools = replaced(body.tools, place.index);
    return (tools ? { ...body, tools } : payload) as T;
  }
  if (place.section === "system") {
    const system = replaced(body.system, place.index);
    return (system ? { ...body, system } : payload) as T;
  }
  const messages = body.messages as unknown[];
  const message = Array.isArray(messages) ? messages[place.message] : undefined;
  const content = isObject(message) ? replaced(message.content, place.index) : undefined;
  if (!content) return payload;
  return { ...body, messages: replacedAt(messages, place.message, { ...(message as Obj), content }) } as T;
}

export const anthropicCodec: PayloadCodec = {
  modelOf: (payload) => (isObject(payload) && typeof payload.model === "string" ? payload.model : undefined),
  scan: scanAnthropicPayload,
  withMarker,
  toolUseId: normalizedToolUseId,
};
