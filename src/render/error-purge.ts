/**
 * Phase 2: a failed tool call's arguments (often a large file body the model
 * tried to write) are dead weight once the model has moved on. After
 * `cooldownTurns` assistant turns, a call whose arguments are at least
 * `minArgChars` long (as JSON) has every long string inside them replaced by a
 * size marker. The argument shape (keys, array lengths, scalars, short strings)
 * is kept because providers replay tool calls against the tool's schema: pi-ai
 * throws for a grammar-constrained tool whose string input is missing, which
 * would fail every later request. The error result itself is kept.
 * The caller gates on `config.enabled`.
 *
 * A failure belongs to its occurrence, the call its failed result answers (call-pairing.ts), as the rest
 * of the project keys outputs by occurrence (`id@resultTimestamp`), never by raw id: providers reuse ids
 * (some number calls per turn), and a successful call whose id a later failed call reuses keeps its
 * arguments, even when the two results collide on one occurrence key.
 */
import type { ToolCall } from "@earendil-works/pi-ai";
import type { ErrorPurgeConfig } from "../settings/config-shape.js";
import { contentBlocks, isAssistant, isToolCall, isToolResult } from "../capture/message-shape.js";
import { CallPairing } from "../arguments/call-pairing.js";

/** Strings strictly longer than this (UTF-16 units) become a size marker. */
const PURGE_STRING_MIN_CHARS = 200;
/** Deeper values are left as they are: model-written arguments are shallow, and recursion must stay bounded. */
const MAX_SHRINK_DEPTH = 64;

export function purgeErroredArgs<M>(messages: M[], config: ErrorPurgeConfig): M[] {
  const failures = erroredOccurrences(messages);
  if (failures === null) return messages;

  let out: M[] | null = null;
  for (let i = 0; i < messages.length; i++) {
    const msg = messages[i];
    if (!isAssistant(msg) || !Array.isArray(msg.content)) continue;
    const content = purgeBlocks(msg.content, failures, config);
    if (content === msg.content) continue;
    out ??= messages.slice();
    out[i] = { ...msg, content };
  }
  return out ?? messages;
}

interface Failures {
  /** Each call whose own result failed, with the assistant-turn count at that result. */
  errorTurnOf: Map<unknown, number>;
  currentTurn: number;
}

/** The calls whose own result failed, or null when none did. */
function erroredOccurrences(messages: readonly unknown[]): Failures | null {
  const errorTurnOf = new Map<unknown, number>();
  const pairing = new CallPairing<ToolCall>();
  let turn = 0;
  for (const msg of messages) {
    if (isAssistant(msg)) {
      turn++;
      pairing.open(contentBlocks(msg).filter(isToolCall).map((block) => [block.id, block] as const));
    } else if (isToolResult(msg) && typeof msg.toolCallId === "string") {
      const block = pairing.answer(msg.toolCallId);
      if (block !== undefined && msg.isError === true) errorTurnOf.set(block, turn);
    }
  }
  return errorTurnOf.size === 0 ? null : { errorTurnOf, currentTurn: turn };
}

function purgeBlocks<B>(content: B[], failures: Failures, config: ErrorPurgeConfig): B[] {
  const { errorTurnOf, currentTurn } = failures;
  let out: B[] | null = null;
  for (let j = 0; j < content.length; j++) {
    const block = content[j];
    if (!isToolCall(block) || !("arguments" in block)) continue;
    const errorTurn = errorTurnOf.get(block);
    // Written positively so a missing config field (shallow-merged settings) purges nothing.
    if (errorTurn === undefined || !(currentTurn - errorTurn >= config.cooldownTurns)) continue;
    if (!(argumentsJsonLength(block.arguments) >= config.minArgChars)) continue;
    const shrunk = shrinkOrKeep(block.arguments);
    if (shrunk === block.arguments) continue;
    out ??= content.slice();
    out[j] = { ...block, arguments: shrunk };
  }
  return out ?? content;
}

/** The JSON length of the arguments, or -1 when they do not serialize (cycles, BigInt, a throwing toJSON). */
function argumentsJsonLength(args: unknown): number {
  try {
    const json = JSON.stringify(args);
    return json === undefined ? -1 : json.length;
  } catch {
    return -1;
  }
}

/** A hostile value (a throwing getter or proxy) leaves the arguments untouched rather than failing the render. */
function shrinkOrKeep(args: unknown): unknown {
  try {
    return shrink(args, 0);
  } catch {
    return args;
  }
}

/** Returns `value` itself when nothing inside it changed. */
function shrink(value: unknown, depth: number): unknown {
  if (typeof value === "string") {
    return value.length > PURGE_STRING_MIN_CHARS ? `<purged-errored-args size="${value.length}"/>` : value;
  }
  if (typeof value !== "object" || value === null || depth >= MAX_SHRINK_DEPTH) return value;
  if (isPlainArray(value)) return shrinkArray(value, depth);
  if (isPlainObject(value)) return shrinkObject(value, depth);
  return value;
}

function shrinkArray(items: unknown[], depth: number): unknown[] {
  let out: unknown[] | null = null;
  for (let i = 0; i < items.length; i++) {
    const next = shrink(items[i], depth + 1);
    if (next === items[i]) continue;
    out ??= items.slice();
    out[i] = next;
  }
  return out ?? items;
}

function shrinkObject(obj: Record<string, unknown>, depth: number): Record<string, unknown> {
  const keys = Object.keys(obj);
  let changed: Map<string, unknown> | null = null;
  for (const key of keys) {
    const descriptor = Object.getOwnPropertyDescriptor(obj, key);
    // Accessors are not walked: reading them could run code, and JSON.parse never makes them.
    if (!descriptor || !("value" in descriptor)) continue;
    const next = shrink(descriptor.value, depth + 1);
    if (next !== descriptor.value) (changed ??= new Map()).set(key, next);
  }
  if (changed === null) return obj;
  return copyObject(obj, keys, changed);
}

/**
 * Rebuilds the object key by key with `defineProperty`, so an own `__proto__`
 * key (which JSON.parse creates as plain data) stays an own data property and
 * assignment never reaches the prototype setter.
 */
function copyObject(obj: Record<string, unknown>, keys: string[], changed: Map<string, unknown>): Record<string, unknown> {
  const copy = Object.create(Object.getPrototypeOf(obj)) as Record<string, unknown>;
  for (const key of keys) {
    const descriptor = Object.getOwnPropertyDescriptor(obj, key);
    if (!descriptor) continue;
    if (changed.has(key)) {
      Object.defineProperty(copy, key, { value: changed.get(key), writable: true, enumerable: true, configurable: true });
    } else {
      Object.defineProperty(copy, key, { ...descriptor, configurable: true });
    }
  }
  return copy;
}

function isPlainArray(value: object): value is unknown[] {
  return Array.isArray(value) && Object.getPrototypeOf(value) === Array.prototype;
}

/** Only JSON-like objects are walked; class instances and objects with their own `toJSON` serialize differently. */
function isPlainObject(value: object): value is Record<string, unknown> {
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  return typeof (value as { toJSON?: unknown }).toJSON !== "function";
}
