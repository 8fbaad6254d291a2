// Structural validation of a provider request, as the real providers enforce it.
//
// Facts this module encodes (the provider's own error texts):
// - Anthropic Messages API merges consecutive same-role turns and then requires every
//   `tool_result` block to answer a `tool_use` of the immediately preceding assistant turn:
//   "messages.N.content.M: unexpected `tool_use_id` found in `tool_result` blocks: <id>. Each
//   `tool_result` block must have a corresponding `tool_use` block in the previous message."
//   A second result for the same call: "messages.N.content.M: each tool_use must have a single
//   result. Found multiple `tool_result` blocks with id: <id>". A call left unanswered:
//   "messages.N: `tool_use` ids were found without `tool_result` blocks immediately after:
//   <ids>. Each `tool_use` block must have a corresponding `tool_result` block in the next
//   message." Results must lead the user turn: a `tool_result` placed after text in that turn
//   does not count as "immediately after". Reusing a `tool_use` id anywhere in the request: "messages.N.content.M: `tool_use`
//   ids must be unique". All answer HTTP 400 with
//   `{"type":"error","error":{"type":"invalid_request_error","message":...}}`.
// - OpenAI Chat Completions requires each `tool` message to answer a `tool_calls` entry of the
//   assistant message that precedes its run of tool messages: "Invalid parameter: messages with
//   role 'tool' must be a response to a preceeding message with 'tool_calls'." (the provider's
//   own spelling), and every declared call to be answered: "An assistant message with
//   'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The
//   following tool_call_ids did not have response messages: <ids>". HTTP 400 with
//   `{"error":{"message":...,"type":"invalid_request_error","param":...,"code":null}}`.
// OpenAI accepts a tool-call id reused in a later turn, so that is not checked there.
// - Anthropic accepts at most 100 images per request (its documented limit), counting the
//   images inside `tool_result` blocks too. The wording of that rejection is modeled on the
//   gateway error quoted in spec 70 §12.1 ("Too many images in request: 31 > 30"), not copied
//   from Anthropic.

// - Anthropic accepts at most four `cache_control` markers in one request (tools, system blocks and
//   message content blocks, nested tool-result content included) and none on a `thinking` or
//   `redacted_thinking` block; the messages below are our own wording of those rejections.

export interface WireViolation {
  message: string;
  param?: string;
}

interface Turn {
  role: string;
  blocks: any[];
  origins: Array<{ message: number; content: number }>;
}

function blocksOf(content: unknown): any[] {
  if (Array.isArray(content)) return content;
  if (typeof content === "string") return [{ type: "text", text: content }];
  return [];
}

function mergeTurns(messages: any[]): Turn[] {
  const turns: Turn[] = [];
  messages.forEach((msg, mi) => {
    const blocks = blocksOf(msg?.content);
    const origins = blocks.map((_, ci) => ({ message: mi, content: ci }));
    const last = turns[turns.length - 1];
    if (last && last.role === msg?.role) {
      last.blocks.push(...blocks);
      last.origins.push(...origins);
    } else {
      turns.push({ role: msg?.role, blocks: [...blocks], origins });
    }
  });
  return turns;
}

function toolUseIds(turn: Turn | undefined): Set<string> {
  const ids = new Set<string>();
  if (!turn || turn.role !== "assistant") return ids;
  for (const b of turn.blocks) if (b?.type === "tool_use") ids.add(b.id);
  return ids;
}

function checkUniqueToolUse(turns: Turn[]): WireViolation | undefined {
  const seen = new Set<string>();
  for (const turn of turns) {
    if (turn.role !== "assistant") continue;
    for (let k = 0; k < turn.blocks.length; k++) {
      const b = turn.blocks[k];
      if (b?.type !== "tool_use") continue;
      if (seen.has(b.id)) {
        const o = turn.origins[k]!;
        return { message: `messages.${o.message}.content.${o.content}: \`tool_use\` ids must be unique` };
      }
      seen.add(b.id);
    }
  }
  return undefined;
}

function checkResults(turns: Turn[]): WireViolation | undefined {
  for (let t = 0; t < turns.length; t++) {
    const turn = turns[t]!;
    if (turn.role !== "user") continue;
    const declared = toolUseIds(turns[t - 1]);
    const answered = new Set<string>();
    for (let k = 0; k < turn.blocks.length; k++) {
      const b = turn.blocks[k];
      if (b?.type !== "tool_result") continue;
      const o = turn.origins[k]!;
      const where = `messages.${o.message}.content.${o.content}`;
      if (!declared.has(b.tool_use_id)) {
        return {
          message: `${where}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${b.tool_use_id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
        };
      }
      if (answered.has(b.tool_use_id)) {
        return { message: `${where}: each tool_use must have a single result. Found multiple \`tool_result\` blocks with id: ${b.tool_use_id}` };
      }
      answered.add(b.tool_use_id);
    }
  }
  return undefined;
}

function leadingResultIds(turn: Turn | undefined): Set<string> {
  const ids = new Set<string>();
  if (turn?.role !== "user") return ids;
  for (const b of turn.blocks) {
    if (b?.type !== "tool_result") break;
    ids.add(b.tool_use_id);
  }
  return ids;
}

function checkAnswered(turns: Turn[]): WireViolation | undefined {
  for (let t = 0; t < turns.length; t++) {
    const ids = toolUseIds(turns[t]);
    if (ids.size === 0) continue;
    const answered = leadingResultIds(turns[t + 1]);
    const missing = [...ids].filter((id) => !answered.has(id));
    if (missing.length > 0) {
      return {
        message: `messages.${turns[t]!.origins[0]!.message}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
      };
    }
  }
  return undefined;
}

export const ANTHROPIC_MAX_IMAGES = 100;

/** Image blocks of a request, nested ones (inside `tool_result` content) included. */
export function countImageBlocks(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + countImageBlocks(item), 0);
  if (typeof value !== "object" || value === null) return 0;
  const block = value as { type?: unknown; content?: unknown };
  return (block.type === "image" ? 1 : 0) + countImageBlocks(block.content);
}

function checkImageCount(messages: unknown[]): WireViolation | undefined {
  const images = countImageBlocks(messages);
  if (images <= ANTHROPIC_MAX_IMAGES) return undefined;
  return { message: `Too many images in request: ${images} > ${ANTHROPIC_MAX_IMAGES}` };
}

export function validateAnthropicMessages(messages: unknown): WireViolation | undefined {
  if (!Array.isArray(messages)) return { message: "messages: Field required" };
  const turns = mergeTurns(messages);
  return checkUniqueToolUse(turns) ?? checkResults(turns) ?? checkAnswered(turns) ?? checkImageCount(messages);
}

export function validateOpenAiMessages(messages: unknown): WireViolation | undefined {
  if (!Array.isArray(messages)) return { message: "Missing required parameter: 'messages'.", param: "messages" };
  let open: Set<string> | undefined;
  let pending = new Set<string>();
  const unanswered = (): WireViolation => ({
    message: `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...pending].join(", ")}`,
    param: "messages",
  });
  for (let i = 0; i < messages.length; i++) {
    const msg = messages[i];
    if (msg?.role === "tool") {
      if (!open || !open.has(msg.tool_call_id)) {
        return {
          message: "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          param: `messages.[${i}].role`,
        };
      }
      pending.delete(msg.tool_call_id);
      continue;
    }
    if (pending.size > 0) return unanswered();
    open = undefined;
    if (msg?.role === "assistant" && Array.isArray(msg.tool_calls) && msg.tool_calls.length > 0) {
      open = new Set(msg.tool_calls.map((c: any) => c?.id));
      pending = new Set(open);
    }
  }
  return pending.size > 0 ? unanswered() : undefined;
}

export const ANTHROPIC_MAX_CACHE_MARKERS = 4;

/** `cache_control` markers anywhere in an Anthropic request body, and whether a thinking block carries one. */
export function cacheMarkers(value: unknown): { count: number; onThinking: boolean } {
  const tally = { count: 0, onThinking: false };
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(walk);
    if (typeof v !== "object" || v === null) return;
    const block = v as Record<string, unknown>;
    if (block.cache_control !== undefined && block.cache_control !== null) {
      tally.count++;
      if (block.type === "thinking" || block.type === "redacted_thinking") tally.onThinking = true;
    }
    for (const [key, inner] of Object.entries(block)) if (key !== "cache_control") walk(inner);
  };
  walk(value);
  return tally;
}

/** The request-level checks of an Anthropic body: the marker limits. */
export function validateAnthropicBody(body: unknown): WireViolation | undefined {
  const { count, onThinking } = cacheMarkers(body);
  if (onThinking) return { message: "a thinking block cannot carry cache_control" };
  if (count > ANTHROPIC_MAX_CACHE_MARKERS) return { message: `at most ${ANTHROPIC_MAX_CACHE_MARKERS} blocks may carry cache_control; this request has ${count}` };
  return undefined;
}
