/**
 * Phase 1's memory across renders: the previous render's stub decision at each
 * position, reused while nothing the decision read has changed (see the class).
 */
import { occKey, resultTimestampOf } from "../capture/occurrence-key.js";
import type { ProtectionConfig } from "../capture/protected.js";
import { generationOf, namesTouchedSince } from "./index-generation.js";
import type { ToolResultMessage } from "@earendil-works/pi-ai";

/** A stub's text and its JSON-quoted length. */
export interface StubText {
  text: string;
  quoted: number;
  /** The refs the stub names. */
  refs?: readonly string[];
}

/**
 * The previous render's stub decisions by position. pi sends the same
 * transcript again on every request, so position i usually holds the same
 * occurrence as last time; while the protection rules are unchanged and no
 * change to the index since named that occurrence (its key or bare id; see
 * index-generation.ts), its decision is reused instead of asking the index
 * again. Only an index that logs its changes (`trackChanges`) is memoized; the
 * occurrence keys, which depend on the transcript alone, are reused whatever
 * the index.
 */
export class DecisionMemo {
  private static last: DecisionMemo | null = null;

  private readonly ids: unknown[];
  private readonly timestamps: unknown[];
  private readonly keys: string[];
  private readonly texts: Array<StubText | null>;

  private constructor(
    private readonly owner: object,
    private readonly generation: number,
    private readonly rules: string,
    private previous: DecisionMemo | null,
    /** Whether `previous`'s decisions hold, but at positions naming one of `touched`. */
    private readonly reusable: boolean,
    private readonly touched: ReadonlySet<string> | null,
    length: number,
  ) {
    this.ids = new Array(length);
    this.timestamps = new Array(length);
    this.keys = new Array(length);
    this.texts = new Array(length);
  }

  static open(indexer: object, protection: ProtectionConfig | undefined, length: number): DecisionMemo {
    const generation = generationOf(indexer);
    const rules = protectionRules(protection);
    const last = DecisionMemo.last;
    let touched: ReadonlySet<string> | undefined;
    if (typeof generation === "number" && last?.owner === indexer && last.rules === rules) {
      touched = last.generation === generation ? NOTHING_TOUCHED : namesTouchedSince(indexer, last.generation);
    }
    const known = typeof generation === "number" ? generation : Number.NaN;
    return new DecisionMemo(indexer, known, rules, last, touched !== undefined, touched?.size ? touched : null, length);
  }

  /** The remembered decision for this occurrence at this position, or undefined when there is none. */
  recall(i: number, msg: ToolResultMessage): StubText | null | undefined {
    const previous = this.previous;
    if (!this.reusable || previous === null || !previous.holds(i, msg)) return undefined;
    const touched = this.touched;
    if (touched !== null && (touched.has(msg.toolCallId) || touched.has(previous.keys[i]!))) return undefined;
    return previous.texts[i];
  }

  /** The occurrence key of the result at this position (the one remembered when it is the same occurrence). */
  keyOf(i: number, msg: ToolResultMessage): string {
    const previous = this.previous;
    if (previous !== null && previous.holds(i, msg)) return previous.keys[i]!;
    return occKey(msg.toolCallId, resultTimestampOf(msg.timestamp));
  }

  remember(i: number, msg: ToolResultMessage, key: string, text: StubText | null): void {
    this.ids[i] = msg.toolCallId;
    this.timestamps[i] = msg.timestamp;
    this.keys[i] = key;
    this.texts[i] = text;
  }

  /** Carries a recalled decision forward. */
  keep(i: number): void {
    const previous = this.previous!;
    this.ids[i] = previous.ids[i];
    this.timestamps[i] = previous.timestamps[i];
    this.keys[i] = previous.keys[i]!;
    this.texts[i] = previous.texts[i]!;
  }

  close(): void {
    this.previous = null;
    // A render against an index that does not log changes leaves the last memo alone: it stays keyed to its owner.
    if (!Number.isNaN(this.generation)) DecisionMemo.last = this;
  }

  private holds(i: number, msg: ToolResultMessage): boolean {
    return i < this.ids.length && this.ids[i] === msg.toolCallId && Object.is(this.timestamps[i], msg.timestamp);
  }
}

const NOTHING_TOUCHED: ReadonlySet<string> = new Set();

/** A text that changes whenever the protection lists do (built by hand: a no-op render serializes nothing). */
function protectionRules(protection: ProtectionConfig | undefined): string {
  if (!protection) return "";
  const list = (value: unknown) =>
    Array.isArray(value) ? value.map((entry) => `${typeof entry}:${String(entry).length}:${String(entry)}`).join(",") : "-";
  return `${list(protection.protectedTools)}|${list(protection.protectedPaths)}`;
}
