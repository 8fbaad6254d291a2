/**
 * An OpenAI chat-completions request body that carries Anthropic's
 * `cache_control` markers (pi-ai's `buildParams` for a model whose compat says
 * `cacheControlFormat: "anthropic"`, as OpenRouter's `anthropic/*` models) seen
 * as the blocks the Anthropic model behind it hashes: each tool, then every
 * message in order (the system prompt is the first), each as its reasoning
 * details, its content parts (string content is the one text part it stands
 * for) and its tool calls. pi-ai marks the last tool, the system prompt's
 * text and the last text part of the last conversation message, turning a
 * string into one marked text part. The spare breakpoint does the same to
 * one more text part, copy-on-write. Pure: the digest is injected.
 */
import { type BlockPlace, isObject, MarkerTally, type Obj, type PayloadBlock, type PayloadCodec, type PayloadScan, replacedAt } from "./payload-scan.js";

const MARKED_ROLES = new Set(["system", "developer", "user", "assistant", "tool"]);

const markerOf = (value: Obj): unknown => (value.cache_control !== undefined && value.cache_control !== null ? value.cache_control : undefined);

/** The blocks of a chat-completions body, or undefined for anything that is not one as pi-ai builds it. */
export function scanOpenAiPayload(payload: unknown, digest: (text: string) => string): PayloadScan | undefined {
  if (!isObject(payload) || !Array.isArray(payload.messages)) return undefined;
  const tally = new MarkerTally();
  const blocks: PayloadBlock[] = [];
  const push = (prefix: string, value: unknown, place: BlockPlace, eligible: boolean, toolUseId?: string): void => {
    const marker = isObject(value) ? markerOf(value) : undefined;
    if (marker !== undefined) tally.note(marker, false);
    const { cache_control: _marker, ...rest } = isObject(value) ? value : { value };
    const json = JSON.stringify(rest);
    blocks.push({ key: `${prefix}:${digest(json)}`, tokens: json.length / 4, marked: marker !== undefined, eligible: eligible && marker === undefined, place, ...(toolUseId !== undefined ? { toolUseId } : {}) });
  };
  const { tools, messages } = payload;
  if (tools !== undefined) {
    if (!Array.isArray(tools)) return undefined;
    for (const [index, tool] of tools.entries()) {
      if (!isObject(tool)) return undefined;
      push("tool", tool, { section: "tools", index }, true);
    }
  }
  for (const [message, entry] of messages.entries()) {
    if (!isObject(entry) || typeof entry.role !== "string") return undefined;
    const prefix = `${message}:${entry.role}`;
    const markable = MARKED_ROLES.has(entry.role);
    const toolUseId = entry.role === "tool" && typeof entry.tool_call_id === "string" ? entry.tool_call_id : undefined;
    if (markerOf(entry) !== undefined) tally.note(markerOf(entry), false);
    const reasoning = Array.isArray(entry.reasoning_details) ? entry.reasoning_details : [];
    for (const [index, detail] of reasoning.entries()) push(`${prefix}:reasoning:${index}`, detail, { section: "messages", message, index: undefined }, false);
    const { content } = entry;
    if (typeof content === "string") {
      if (content.length > 0) push(prefix, { type: "text", text: content }, { section: "messages", message, index: undefined }, markable, toolUseId);
    } else if (Array.isArray(content)) {
      for (const [index, part] of content.entries()) {
        if (!isObject(part)) return undefined;
        const text = part.type === "text" && typeof part.text === "string" && part.text.length > 0;
        push(prefix, part, { section: "messages", message, index }, markable && text, toolUseId);
      }
    } else if (content !== null && content !== undefined) return undefined;
    const calls = Array.isArray(entry.tool_calls) ? entry.tool_calls : [];
    for (const [index, call] of calls.entries()) push(`${prefix}:call:${index}`, call, { section: "messages", message, index: undefined }, false);
  }
  return { blocks, markers: tally.count, cacheControl: tally.value, markedThinking: false };
}

/**
 * The body with `cacheControl` on the text part at `place` (string content becomes that one marked text
 * part, as pi-ai writes its own marker), or on the tool at `place`. Copy-on-write; a place that holds no
 * text part or tool returns the body unchanged.
 */
export function withCacheControl<T>(payload: T, place: BlockPlace, cacheControl: unknown): T {
  const body = payload as Obj;
  if (place.section === "tools") {
    const tools = body.tools;
    if (!Array.isArray(tools) || !isObject(tools[place.index])) return payload;
    return { ...body, tools: replacedAt(tools, place.index, { ...(tools[place.index] as Obj), cache_control: cacheControl }) } as T;
  }
  if (place.section !== "messages") return payload;
  const messages = body.messages;
  const message = Array.isArray(messages) ? messages[place.message] : undefined;
  if (!isObject(message)) return payload;
  const { content } = message;
  let marked: unknown[] | undefined;
  if (place.index === undefined && typeof content === "string" && content.length > 0) marked = [{ type: "text", text: content, cache_control: cacheControl }];
  else if (place.index !== undefined && Array.isArray(content) && isObject(content[place.index]) && (content[place.index] as Obj).type === "text") {
    marked = replacedAt(content, place.index, { ...(content[place.index] as Obj), cache_control: cacheControl });
  }
  if (!marked) return payload;
  return { ...body, messages: replacedAt(messages as unknown[], place.message, { ...message, content: marked }) } as T;
}

export const openAiCodec: PayloadCodec = {
  modelOf: (payload) => (isObject(payload) && typeof payload.model === "string" ? payload.model : undefined),
  scan: scanOpenAiPayload,
  withMarker: withCacheControl,
  // pi-ai keeps other providers' ids as they are on this API (it rewrites only OpenAI Responses' `call|item` ids).
  toolUseId: (id) => id,
};
