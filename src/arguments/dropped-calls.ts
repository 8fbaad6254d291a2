/**
 * The calls a chain range drops, for render phase 3 (render/chain-range-prune.ts): a call leaves the request with its
 * arguments only when the one ref its output's stub names, which the block's header shows, gives back
 * exactly those arguments. Every other call keeps its arguments inside the block: a protected call (its
 * output is relocated verbatim, and the call says what it is), a call without a result, one whose output is
 * relocated because the archive cannot give it back, one whose ref names another call's arguments (a dedup
 * alias resolves to its original), and two calls sharing an id in one message (which result answers which
 * cannot be told for sure). A turn that stopped with an error or was aborted is left out, as pi-ai leaves it
 * out of the request. Pure.
 */
import type { ToolCall } from "@earendil-works/pi-ai";
import { isToolCall } from "../capture/message-shape.js";
import { CallPairing } from "./call-pairing.js";

/** A dropped call, and whether the block's refs give its arguments back. */
export interface DroppedCall {
  block: ToolCall;
  /** Its arguments as the render's input has them (phases 1c and 2 may have stubbed the block's since). */
  original: unknown;
  covered: boolean;
  ambiguous: boolean;
}

/** A call's arguments as the chain block keeps them (JSON), or undefined when there is nothing to keep. */
export function keptArgumentsText(args: unknown): string | undefined {
  let json: string | undefined;
  try {
    json = JSON.stringify(args);
  } catch {
    return undefined;
  }
  return json === undefined || json === "{}" || json === "null" ? undefined : json;
}

/** The calls of a range's interior assistants, paired with the results that answer them. */
export class RangeCalls {
  private readonly pairing = new CallPairing<DroppedCall>();

  /** The calls of an interior assistant message; `input` is the render's input message at its position. */
  open(content: unknown, input: unknown): DroppedCall[] {
    if (!Array.isArray(content)) return [];
    const inputContent = (input as { content?: unknown } | null | undefined)?.content;
    const count = new Map<string, number>();
    for (const block of content) if (isToolCall(block) && typeof block.id === "string") count.set(block.id, (count.get(block.id) ?? 0) + 1);
    const calls: Array<readonly [string, DroppedCall]> = [];
    content.forEach((block, b) => {
      if (!isToolCall(block) || typeof block.id !== "string") return;
      const before = Array.isArray(inputContent) ? inputContent[b] : undefined;
      const original = isToolCall(before) && before.id === block.id ? before.arguments : block.arguments;
      calls.push([block.id, { block, original, covered: false, ambiguous: count.get(block.id)! > 1 }]);
    });
    this.pairing.open(calls);
    return calls.map(([, call]) => call);
  }

  /** The call a result with this id answers, if any. */
  answer(id: string): DroppedCall | undefined {
    return this.pairing.answer(id);
  }
}
