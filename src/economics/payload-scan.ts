/**
 * A provider request body (what pi-ai hands to pi's `before_provider_request`)
 * seen as the blocks the provider's cache hashes, in its order: tools, then
 * system blocks, then each message's content blocks. One reader and writer per
 * wire format (`anthropic-payload.ts`, `bedrock-payload.ts`,
 * `openai-payload.ts`) fills these shapes; where the spare marker goes is
 * decided on them alone (`spare-breakpoint.ts`). Pure.
 */

export type BlockPlace =
  | { section: "tools"; index: number }
  /** `index` undefined: a string system prompt. */
  | { section: "system"; index: number | undefined }
  /** `index` undefined: string content. */
  | { section: "messages"; message: number; index: number | undefined };

export interface PayloadBlock {
  /** Equal block at the same place in the conversation, equal key. */
  key: string;
  /** Characters of its JSON / 4. */
  tokens: number;
  /** It carries a marker, on itself or on a block nested in its content. */
  marked: boolean;
  /** A marker may be added to it. */
  eligible: boolean;
  place: BlockPlace;
  /** A tool result's tool call id, as the wire writes it. */
  toolUseId?: string;
}

export interface PayloadScan {
  blocks: PayloadBlock[];
  /** Every marker in the body. */
  markers: number;
  /** The marker value, when every marker carries the same one (JSON-equal); undefined otherwise or with none. */
  cacheControl: unknown;
  /** A thinking or reasoning block carries a marker: a body the provider would refuse, left as it is. */
  markedThinking: boolean;
}

/** One wire format's reader and writer. */
export interface PayloadCodec {
  /** The model id the body names, if any. */
  modelOf(payload: unknown): string | undefined;
  /** The body as blocks, or undefined for anything that is not one as pi-ai builds it. */
  scan(payload: unknown, digest: (text: string) => string): PayloadScan | undefined;
  /** The body with `marker` for the block at `place`; copy-on-write, the input never changed. */
  withMarker<T>(payload: T, place: BlockPlace, marker: unknown): T;
  /** pi-ai's form of a tool call id in this wire's requests. */
  toolUseId(id: string): string;
}

export type Obj = Record<string, unknown>;

export const isObject = (value: unknown): value is Obj => typeof value === "object" && value !== null && !Array.isArray(value);

/** Collects marker values while a body is read. */
export class MarkerTally {
  count = 0;
  markedThinking = false;
  private values = new Set<string>();
  private first: unknown;

  note(value: unknown, onThinking: boolean): void {
    this.count++;
    if (onThinking) this.markedThinking = true;
    if (this.values.size === 0) this.first = value;
    this.values.add(JSON.stringify(value));
  }

  get value(): unknown {
    return this.values.size === 1 ? this.first : undefined;
  }
}

/** The list with the item at `index` replaced by `item` (a new list; the input is not changed). */
export function replacedAt(list: readonly unknown[], index: number, item: unknown): unknown[] {
  return list.map((current, i) => (i === index ? item : current));
}

/** pi-ai's tool call id normalization for Anthropic and Bedrock (`normalizeToolCallId`). */
export function normalizedToolUseId(id: string): string {
  return id.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64);
}
