/**
 * A replayed request as the list of content blocks Anthropic hashes, the way
 * pi-ai's Anthropic conversion builds it: the system prompt and tools as one
 * block (the replay knows only their joint size), then each message's content
 * blocks in order. A user message with string content is one block, an array
 * one block per non-empty text or image; an assistant message one block per
 * non-empty text, thinking and tool call; each tool result one block
 * (consecutive results share one user message on the wire but stay separate
 * blocks); pi's custom, bash and summary messages are user messages. Markers
 * as pi-ai places them: the system block, and the last block of the last
 * message when that message is a user message or a tool result.
 *
 * Sizes are chars: each block its part's JSON (an image at a flat 6,400), the
 * message's envelope (the other fields a request carries of it) on its first
 * block, so a request's blocks add up to the chars the replay measures per
 * message. A message pi-ai drops (no
 * non-empty block, or an assistant message that failed or was aborted) is
 * not sent and counts nothing. Keys are the
 * message's identity (the replay keeps equal messages as one object) and the
 * part's position. Pure; each message's blocks are measured once.
 */
import { loose, type LooseMessage } from "../capture/message-shape.js";
import type { CacheBlock } from "../economics/prompt-cache.js";
import { elementChars, requestChars } from "../render/message-size.js";

const sizes = new WeakMap<object, number>();

/**
 * Chars of one message as the provider receives it (the fields a request carries: a reply's usage, model
 * and timestamps stay in pi; an image at a flat 6,400), plus its separating comma.
 */
export function messageChars(message: unknown): number {
  if (typeof message !== "object" || message === null) return 4;
  let known = sizes.get(message);
  if (known === undefined) {
    known = requestChars(message) + 1;
    sizes.set(message, known);
  }
  return known;
}

/** One content block of a message, before a request decides its marker. */
export interface MessageBlock {
  readonly block: CacheBlock;
  /** A marker may go here (every block but thinking). */
  readonly eligible: boolean;
}

interface MessageShape {
  blocks: MessageBlock[];
  /** A user message on the wire (user, custom, bash, summaries, tool results): pi-ai marks its last block. */
  userSide: boolean;
  /** A tool result's call id (its one block is that result). */
  toolCallId?: string;
}

export interface RequestBlocks {
  blocks: CacheBlock[];
  eligible: boolean[];
}

const IMAGE_CHARS = 6400;
const USER_ROLES = new Set(["user", "custom", "bashExecution", "branchSummary", "compactionSummary"]);
const shapes = new WeakMap<object, MessageShape>();
const NOTHING: MessageShape = { blocks: [], userSide: false };
const ids = new WeakMap<object, number>();
let nextId = 0;

function identity(message: object): number {
  let id = ids.get(message);
  if (id === undefined) {
    id = ++nextId;
    ids.set(message, id);
  }
  return id;
}

function partChars(part: unknown): number {
  return (part as { type?: unknown } | null)?.type === "image" ? IMAGE_CHARS : elementChars(part) + 1;
}

function nonEmpty(text: unknown): boolean {
  return typeof text === "string" && text.trim().length > 0;
}

/** Whether pi-ai sends this part of a message of the given role, and whether it is thinking. */
function sentPart(role: string, value: unknown): { sent: boolean; thinking: boolean } {
  const part = loose(value);
  const type = part?.type;
  if (role === "assistant") {
    if (type === "text") return { sent: nonEmpty(part!.text), thinking: false };
    if (type === "thinking") return { sent: part!.redacted === true || nonEmpty(part!.thinking) || nonEmpty(part!.thinkingSignature), thinking: true };
    return { sent: type === "toolCall", thinking: false };
  }
  return { sent: type !== "text" || nonEmpty(part!.text), thinking: false };
}

function measure(value: unknown): MessageShape {
  const total = messageChars(value);
  // Every field is checked below; a value that is no object has no role and is measured as one unsent block.
  const message = (loose(value) ?? {}) as LooseMessage;
  const role = typeof message.role === "string" ? message.role : "";
  const userSide = USER_ROLES.has(role) || role === "toolResult";
  if (role === "bashExecution" && message.excludeFromContext === true) return { blocks: [], userSide };
  const id = identity(value as object);
  const one = (sent: boolean): MessageShape =>
    sent ? { blocks: [{ block: { key: `${id}.0`, tokens: total, breakpoint: false }, eligible: true }], userSide } : { blocks: [], userSide };
  if (role === "toolResult" && typeof message.toolCallId === "string") return { ...one(true), toolCallId: message.toolCallId };
  if (role === "toolResult" || role === "bashExecution" || role === "branchSummary" || role === "compactionSummary") return one(true);
  if (!USER_ROLES.has(role) && role !== "assistant") return one(false);
  // pi-ai's transform skips a failed or aborted reply entirely.
  if (role === "assistant" && (message.stopReason === "error" || message.stopReason === "aborted")) return one(false);
  const content = message.content;
  if (typeof content === "string") return one(nonEmpty(content));
  if (!Array.isArray(content)) return one(false);
  const parts: Array<{ chars: number; thinking: boolean; index: number }> = [];
  let partsChars = 0;
  content.forEach((part: unknown, index: number) => {
    const { sent, thinking } = sentPart(role, part);
    if (!sent) return;
    const chars = partChars(part);
    parts.push({ chars, thinking, index });
    partsChars += chars;
  });
  if (parts.length === 0) return one(false);
  const envelope = Math.max(0, total - partsChars);
  const blocks = parts.map((part, k) => ({
    block: { key: `${id}.${part.index}`, tokens: part.chars + (k === 0 ? envelope : 0), breakpoint: false },
    eligible: !part.thinking,
  }));
  return { blocks, userSide };
}

/** The blocks a message sends, measured once per message object. */
export function messageBlocks(message: unknown): MessageShape {
  if (typeof message !== "object" || message === null) return NOTHING;
  let shape = shapes.get(message);
  if (shape === undefined) {
    shape = measure(message);
    shapes.set(message, shape);
  }
  return shape;
}

/**
 * The blocks of a sequence of requests, kept between requests: the blocks of the messages a request shares
 * with the previous one (by identity) are kept, only the rest are appended. `blocks` never carries the
 * conversation marker (it is shared between requests); `lastMarked` says where pi-ai puts it.
 */
export class BlockList {
  readonly blocks: CacheBlock[] = [];
  readonly eligible: boolean[] = [];
  readonly keys: string[] = [];
  /** Per block: the tool call id of the tool result it is. */
  readonly toolCallIds: Array<string | undefined> = [];
  /** `sums[q]`: chars of the first q blocks. */
  private readonly sums: number[] = [0];
  /** `starts[i]`: the first block of message i; one more entry than messages. */
  private readonly starts: number[] = [];
  private messages: readonly unknown[] = [];
  private systemVersion: number | undefined;

  /** Replaces the list by this request's blocks; returns how many leading messages it shares with the previous request. */
  update(messages: readonly unknown[], systemChars: number, systemVersion: number): number {
    let m = 0;
    if (systemVersion === this.systemVersion && this.blocks.length > 0 && this.blocks[0]!.tokens === systemChars) {
      const limit = Math.min(messages.length, this.messages.length);
      while (m < limit && messages[m] === this.messages[m]) m++;
    } else {
      this.truncate(0);
      this.push({ key: `s${systemVersion}`, tokens: systemChars, breakpoint: true }, true, undefined);
      this.starts.length = 0;
      this.starts.push(1);
      this.systemVersion = systemVersion;
    }
    this.truncate(this.starts[m]!);
    this.starts.length = m + 1;
    for (let i = m; i < messages.length; i++) {
      const shape = messageBlocks(messages[i]);
      for (const part of shape.blocks) this.push(part.block, part.eligible, shape.toolCallId);
      this.starts.push(this.blocks.length);
    }
    this.messages = messages;
    return m;
  }

  get chars(): number {
    return this.sums[this.blocks.length]!;
  }

  /** Blocks of the first `count` messages (the system block included). */
  blocksOf(count: number): number {
    return this.starts[count]!;
  }

  /** The block pi-ai marks at the end of the conversation: the last block when the last message it sends is on the user side. */
  lastMarked(): number | undefined {
    for (let i = this.messages.length - 1; i >= 0; i--) {
      const shape = messageBlocks(this.messages[i]);
      if (shape.blocks.length > 0) return shape.userSide ? this.blocks.length - 1 : undefined;
    }
    return undefined;
  }

  private push(block: CacheBlock, eligible: boolean, toolCallId: string | undefined): void {
    this.blocks.push(block);
    this.eligible.push(eligible);
    this.toolCallIds.push(toolCallId);
    this.keys.push(block.key);
    this.sums.push(this.sums[this.sums.length - 1]! + block.tokens);
  }

  private truncate(length: number): void {
    this.blocks.length = length;
    this.eligible.length = length;
    this.toolCallIds.length = length;
    this.keys.length = length;
    this.sums.length = length + 1;
  }
}

/** One request's blocks with pi-ai's markers: the system block, and the last block when the last message sent is on the user side. */
export function requestBlocks(messages: readonly unknown[], systemChars: number, systemVersion: number): RequestBlocks {
  const list = new BlockList();
  list.update(messages, systemChars, systemVersion);
  const blocks = list.blocks.slice();
  const last = list.lastMarked();
  if (last !== undefined && last > 0) blocks[last] = { ...blocks[last]!, breakpoint: true };
  return { blocks, eligible: list.eligible.slice() };
}
