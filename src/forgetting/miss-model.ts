/**
 * What the agent could no longer see (issue 34), measured on a replayed session. At each main request,
 * what the agent's reply then used: the identifiers of its text and tool-call arguments
 * (`digest/identifiers.ts`: paths, called and declared symbols, exception names, `file:line`, `line N`) and,
 * for an `edit`, each line of its old text. A **miss** is one of those that an earlier tool output (or an
 * earlier call's arguments) showed and that the request as sent holds nowhere: not in a raw output, a stub, a
 * digest, a summary, a chain block, a user or assistant message, nor the system prompt. A reply with one or
 * more misses is a **recovery**: a real agent would have asked `context_tree_query` or read again. Its price
 * (see `recoveryCost`): one more main request over the same context, the smallest set of earlier outputs that
 * hold the missing items written to the cache, and 100 output tokens. Replies are the recorded ones, so a
 * summary made by a model is scored by its text; offline the summarizer is a stand-in, and a policy that
 * summarizes is scored pessimistically. Pure.
 */
import { extractToolResultText } from "../capture/batch-capture.js";
import { identifierCandidates, type IdentifierKind } from "./identifiers.js";
import { contentBlocks, isAssistant, isToolCall, isToolResult, loose } from "../capture/message-shape.js";
import type { AssistantMessage } from "@earendil-works/pi-ai";
import { MIN_EDIT_LINE } from "./live-sight.js";


/** What a reply used that it could not see, and the outputs that would show it again. */
export interface RequestMisses {
  /** The missing items, as the reply named them. */
  items: string[];
  /** How many of them are lines of an edit's old text (the rest are identifiers). */
  editLines: number;
  /** Characters of the fewest, smallest earlier outputs that hold every missing item (0 when only earlier arguments did). */
  holderChars: number;
}

interface Output {
  id: number;
  text: string;
}

/** Each message's text, read once: the replay asks for it at every request that sends the message. */
const texts = new WeakMap<object, string>();

/** The text of a message as the model receives it: text and thinking, tool calls with their arguments, results, custom content. */
export function messageText(message: unknown): string {
  if (typeof message !== "object" || message === null) return "";
  let text = texts.get(message);
  if (text === undefined) {
    text = readText(message);
    texts.set(message, text);
  }
  return text;
}

function readText(message: object): string {
  const content = loose(message)?.content;
  if (isToolResult(message)) return extractToolResultText(message);
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  for (const block of content) {
    if (block?.type === "text" && typeof block.text === "string") parts.push(block.text);
    else if (block?.type === "thinking" && typeof block.thinking === "string") parts.push(block.thinking);
    else if (block?.type === "toolCall") parts.push(`${String(block.name)} ${argumentText(block.arguments)}`);
  }
  return parts.join("\n");
}

/**
 * A call's arguments as text: every string and number in them, one a line. Read as the model wrote them, not
 * as JSON, whose escapes (`\\t`, `\\n`) would glue a letter to the next word.
 */
export function argumentText(args: unknown): string {
  const parts: string[] = [];
  const visit = (value: unknown, depth: number): void => {
    if (typeof value === "string") parts.push(value);
    else if (typeof value === "number" && Number.isFinite(value)) parts.push(String(value));
    else if (depth < 8 && value !== null && typeof value === "object") for (const item of Object.values(value)) visit(item, depth + 1);
  };
  visit(args, 0);
  return parts.join("\n");
}

/** The old texts of an `edit` call: pi's `edits` list, or the `oldText` of earlier versions. */
function editOldTexts(block: unknown): string[] {
  if (!isToolCall(block) || block.name !== "edit") return [];
  const args: { edits?: unknown } = block.arguments ?? {};
  const edits: unknown[] = Array.isArray(args.edits) ? args.edits : [args];
  return edits.flatMap((edit) => {
    const oldText = loose(edit)?.oldText;
    return typeof oldText === "string" ? [oldText] : [];
  });
}

function editLines(reply: unknown): string[] {
  const blocks = contentBlocks(reply);
  const lines = blocks.flatMap(editOldTexts).flatMap((text) => text.split("\n").map((line) => line.trim()));
  return [...new Set(lines.filter((line) => line.length >= MIN_EDIT_LINE))];
}

/**
 * The tokens the request as sent holds, kept between requests: each message's words and path tails read once
 * (by identity) and counted while the message is sent, so a request costs the messages that changed, not the
 * whole context again. A word stands for the names, exceptions and numbers; a path is found by its tails, as
 * `containsToken` finds it.
 */
/** Each message's tokens, read once whichever configuration sends it (the replay's configurations share their raw messages). */
const messageTokens = new WeakMap<object, string[]>();

class VisibleTokens {
  private sent = new Set<unknown>();
  private readonly counts = new Map<string, number>();
  private system: { text: string; tokens: Set<string> } = { text: "", tokens: new Set() };

  show(messages: readonly unknown[], systemText: string): void {
    const next = new Set<unknown>(messages);
    for (const message of this.sent) if (!next.has(message)) this.count(message, -1);
    for (const message of next) if (!this.sent.has(message)) this.count(message, 1);
    this.sent = next;
    if (systemText !== this.system.text) this.system = { text: systemText, tokens: new Set(tokensOf(systemText)) };
  }

  has(kind: IdentifierKind, text: string): boolean {
    const key = kind === "path" ? `p\u0000${text}` : `w\u0000${text}`;
    return (this.counts.get(key) ?? 0) > 0 || this.system.tokens.has(key);
  }

  includesLine(line: string): boolean {
    if (this.system.text.includes(line)) return true;
    for (const message of this.sent) if (messageText(message).includes(line)) return true;
    return false;
  }

  private count(message: unknown, by: number): void {
    if (typeof message !== "object" || message === null) return;
    let tokens = messageTokens.get(message);
    if (!tokens) {
      tokens = tokensOf(messageText(message));
      messageTokens.set(message, tokens);
    }
    for (const key of tokens) this.counts.set(key, (this.counts.get(key) ?? 0) + by);
  }
}

/** The dotted names (`a.py`, `pkg.mod.fn`) of a run of name characters and dots, in linear time. */
function dottedNames(run: string): string[] {
  return run.split(/\.{2,}/).map((part) => part.replace(/^\.+|\.+$/g, "")).filter((part) => part.includes("."));
}

/** What each recorded message shows or names, read once whichever configuration replays it. */
const shown = new WeakMap<object, Identifiers>();
const named = new WeakMap<object, string[]>();
type Identifiers = ReturnType<typeof identifierCandidates>;

function shownIdentifiers(output: object): Identifiers {
  let found = shown.get(output);
  if (!found) {
    found = identifierCandidates(messageText(output));
    shown.set(output, found);
  }
  return found;
}

/** The `kind\0text` keys of the identifiers a reply's call arguments name. */
function namedKeys(reply: AssistantMessage): string[] {
  let keys = named.get(reply);
  if (!keys) {
    keys = [];
    for (const block of contentBlocks(reply)) {
      if (!isToolCall(block)) continue;
      for (const { kind, texts } of identifierCandidates(argumentText(block.arguments))) for (const text of texts) keys.push(`${kind}\u0000${text}`);
    }
    named.set(reply, keys);
  }
  return keys;
}

/** A text's distinct words and path tails, as `VisibleTokens` keys. */
function tokensOf(text: string): string[] {
  const keys = new Set<string>();
  for (const word of text.match(/[A-Za-z0-9_]+/g) ?? []) keys.add(`w\u0000${word}`);
  // A file named without a folder (`a.py`) is the same path's last tail.
  for (const run of text.match(/[\w.@+~-]+/g) ?? []) for (const name of dottedNames(run)) keys.add(`p\u0000${name}`);
  for (const { kind, texts } of identifierCandidates(text)) if (kind === "path") for (const t of texts) keys.add(`p\u0000${t}`);
  return [...keys];
}

export class MissCounter {
  private readonly visible = new VisibleTokens();
  private source: unknown;
  private consumed = 0;
  private readonly outputs: Output[] = [];
  /** `kind\0text` of every identifier an earlier output showed, with the outputs that showed it. */
  private readonly shownBy = new Map<string, number[]>();
  /** `kind\0text` of every identifier an earlier call's arguments named. */
  private readonly named = new Set<string>();

  /**
   * The request's misses, given the context it reads (`context`: the raw messages, of which the first `length`),
   * the messages the configuration sent, the system text, and the reply. Undefined when the reply missed nothing.
   */
  observe(context: { messages: readonly unknown[]; length: number }, sent: readonly unknown[], systemText: string, reply: unknown): RequestMisses | undefined {
    this.learn(context);
    this.visible.show(sent, systemText);
    const missing = new Map<string, number[]>();
    for (const { kind, texts } of identifierCandidates(messageText(reply))) {
      const holders = this.holdersOf(kind, texts);
      if (!holders || texts.some((text) => this.visible.has(kind, text))) continue;
      missing.set(texts[0]!, holders);
    }
    const identifiers = missing.size;
    for (const line of editLines(reply)) {
      const holders = this.outputs.filter((output) => output.text.includes(line)).map((output) => output.id);
      if (holders.length === 0 || this.visible.includesLine(line) || missing.has(line)) continue;
      missing.set(line, holders);
    }
    if (missing.size === 0) return undefined;
    return { items: [...missing.keys()], editLines: missing.size - identifiers, holderChars: this.coverChars([...missing.values()]) };
  }

  /** The outputs that showed any of the texts, or [] when only earlier arguments named one; undefined when none did. */
  private holdersOf(kind: IdentifierKind, texts: string[]): number[] | undefined {
    let known = false;
    const holders = new Set<number>();
    for (const text of texts) {
      const key = `${kind}\u0000${text}`;
      for (const id of this.shownBy.get(key) ?? []) holders.add(id);
      if (this.shownBy.has(key) || this.named.has(key)) known = true;
    }
    return known ? [...holders] : undefined;
  }

  private learn(context: { messages: readonly unknown[]; length: number }): void {
    if (context.messages !== this.source) {
      // A compaction rebuilt the context: what the agent saw before still counts as seen.
      this.source = context.messages;
      this.consumed = 0;
    }
    for (; this.consumed < context.length; this.consumed++) {
      const message = context.messages[this.consumed];
      if (isToolResult(message)) this.learnOutput(message);
      else if (isAssistant(message)) for (const key of namedKeys(message)) this.named.add(key);
    }
  }

  private learnOutput(message: object): void {
    const id = this.outputs.length;
    this.outputs.push({ id, text: messageText(message) });
    for (const { kind, texts } of shownIdentifiers(message)) {
      for (const t of texts) {
        const key = `${kind}\u0000${t}`;
        const list = this.shownBy.get(key);
        if (list) list.push(id);
        else this.shownBy.set(key, [id]);
      }
    }
  }

  /** Greedy set cover: outputs taken by most missing items covered per character, until every item is held. */
  private coverChars(holderSets: number[][]): number {
    let open = holderSets.filter((set) => set.length > 0);
    let chars = 0;
    while (open.length > 0) {
      const counts = new Map<number, number>();
      for (const set of open) for (const id of set) counts.set(id, (counts.get(id) ?? 0) + 1);
      let best = -1;
      let bestScore = -1;
      for (const [id, n] of counts) {
        const score = n / Math.max(1, this.outputs[id]!.text.length);
        if (score > bestScore) [best, bestScore] = [id, score];
      }
      chars += this.outputs[best]!.text.length;
      open = open.filter((set) => !set.includes(best));
    }
    return chars;
  }
}

/** What a recovery costs: one more request over the same context read from the cache, the holders written, 100 output tokens. */
export function recoveryCost(contextTokens: number, holderTokens: number, prices: { cacheRead: number; cacheWrite: number; output: number }): number {
  return contextTokens * prices.cacheRead + holderTokens * prices.cacheWrite + 100 * prices.output;
}
