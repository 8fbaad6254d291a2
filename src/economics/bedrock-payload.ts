/**
 * A Bedrock Converse request body (pi-ai's `ConverseStreamCommand` input:
 * `modelId`, `toolConfig.tools`, `system`, `messages`) seen as the blocks
 * Claude's cache hashes, in its order: tools, system blocks, then each
 * message's content blocks. Bedrock's marker is a block of its own, a
 * `cachePoint`, placed right after the content it closes: it caches the
 * prefix that ends with the block before it. So a `cachePoint` is not counted
 * as a content block (nor in the 20-block lookback): it marks the block
 * before it, as `cache_control` marks its own block on Anthropic's API. pi-ai
 * puts two: after the system prompt and at the end of the last user message.
 * The spare breakpoint inserts one more right after an existing block,
 * copy-on-write. Pure: the digest is injected.
 */
import { type BlockPlace, isObject, MarkerTally, normalizedToolUseId, type Obj, type PayloadBlock, type PayloadCodec, type PayloadScan, replacedAt } from "./payload-scan.js";

/** The content members a `cachePoint` may follow, per section; reasoning and unknown members never. */
const TOOL_KINDS = new Set(["toolSpec"]);
const SYSTEM_KINDS = new Set(["text"]);
const MESSAGE_KINDS = new Set(["text", "image", "document", "video", "toolUse", "toolResult"]);
const REASONING = "reasoningContent";

const isCachePoint = (block: Obj): boolean => block.cachePoint !== undefined && block.cachePoint !== null;

/** The blocks of a Converse body, or undefined for anything that is not one as pi-ai builds it. */
export function scanBedrockPayload(payload: unknown, digest: (text: string) => string): PayloadScan | undefined {
  if (!isObject(payload) || !Array.isArray(payload.messages)) return undefined;
  const tally = new MarkerTally();
  const blocks: PayloadBlock[] = [];
  let lastIsReasoning = false;
  const read = (list: unknown, prefix: string, placeOf: (index: number) => BlockPlace, kinds: ReadonlySet<string>): boolean => {
    if (!Array.isArray(list)) return false;
    for (const [index, block] of list.entries()) {
      if (!isObject(block)) return false;
      if (isCachePoint(block)) {
        tally.note(block.cachePoint, lastIsReasoning);
        const last = blocks.at(-1);
        if (last) blocks[blocks.length - 1] = { ...last, marked: true, eligible: false };
        continue;
      }
      const json = JSON.stringify(block);
      const result = isObject(block.toolResult) && typeof block.toolResult.toolUseId === "string" ? block.toolResult.toolUseId : undefined;
      const eligible = Object.keys(block).length === 1 && kinds.has(Object.keys(block)[0]!);
      blocks.push({ key: `${prefix}:${digest(json)}`, tokens: json.length / 4, marked: false, eligible, place: placeOf(index), ...(result !== undefined ? { toolUseId: result } : {}) });
      lastIsReasoning = block[REASONING] !== undefined;
    }
    return true;
  };

  const { toolConfig, system, messages } = payload;
  if (toolConfig !== undefined && toolConfig !== null) {
    if (!isObject(toolConfig)) return undefined;
    if (toolConfig.tools !== undefined && !read(toolConfig.tools, "tool", (index) => ({ section: "tools", index }), TOOL_KINDS)) return undefined;
  }
  if (system !== undefined && !read(system, "system", (index) => ({ section: "system", index }), SYSTEM_KINDS)) return undefined;
  for (const [message, entry] of messages.entries()) {
    if (!isObject(entry) || typeof entry.role !== "string") return undefined;
    if (!read(entry.content, `${message}:${entry.role}`, (index) => ({ section: "messages", message, index }), MESSAGE_KINDS)) return undefined;
  }
  return { blocks, markers: tally.count, cacheControl: tally.value, markedThinking: tally.markedThinking };
}

/**
 * The body with a `cachePoint` block carrying `cachePoint` right after the block at `place`. Copy-on-write:
 * only the lists and objects on the path to it are new. A place that holds no block returns the body.
 */
export function withCachePoint<T>(payload: T, place: BlockPlace, cachePoint: unknown): T {
  const body = payload as Obj;
  const inserted = (list: unknown, index: number | undefined): unknown[] | undefined => {
    if (!Array.isArray(list) || index === undefined || !isObject(list[index])) return undefined;
    return [...list.slice(0, index + 1), { cachePoint }, ...list.slice(index + 1)];
  };
  if (place.section === "tools") {
    const toolConfig = body.toolConfig;
    const tools = isObject(toolConfig) ? inserted(toolConfig.tools, place.index) : undefined;
    return (tools ? { ...body, toolConfig: { ...(toolConfig as Obj), tools } } : payload) as T;
  }
  if (place.section === "system") {
    const system = inserted(body.system, place.index);
    return (system ? { ...body, system } : payload) as T;
  }
  const messages = body.messages;
  const message = Array.isArray(messages) ? messages[place.message] : undefined;
  const content = isObject(message) ? inserted(message.content, place.index) : undefined;
  if (!content) return payload;
  return { ...body, messages: replacedAt(messages as unknown[], place.message, { ...(message as Obj), content }) } as T;
}

export const bedrockCodec: PayloadCodec = {
  modelOf: (payload) => (isObject(payload) && typeof payload.modelId === "string" ? payload.modelId : undefined),
  scan: scanBedrockPayload,
  withMarker: withCachePoint,
  toolUseId: normalizedToolUseId,
};
