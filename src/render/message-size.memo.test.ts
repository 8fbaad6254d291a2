import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { elementSizes, elementSizesOfEach, SizeMemo } from "./message-size.js";
import type { SplitLengths } from "./json-size.js";

const trickyChar = fc.constantFrom('"', "\\", "\n", "\u0000", "\ud83d", "\ude00", "é", "a");
const text = fc.oneof(fc.string({ maxLength: 8 }), fc.array(trickyChar, { maxLength: 160 }).map((c) => c.join("")));
const number = fc.oneof(fc.integer(), fc.double(), fc.constantFrom(0, -0, Number.NaN, Infinity, 1e21));
const leaf = fc.oneof(text, number, fc.boolean(), fc.constant(null), fc.constant(undefined));
const json = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: "small" }, leaf, tie("array"), tie("object")),
  array: fc.array(tie("node"), { maxLength: 4 }),
  object: fc.dictionary(fc.constantFrom("role", "content", "text", "type", "id", "details", "timestamp"), tie("node"), { maxKeys: 4 }),
})).node;
const message = fc.oneof(
  fc.record({ role: fc.constantFrom("user", "assistant", "toolResult"), content: fc.array(fc.oneof(fc.record({ type: fc.constant("text"), text }), fc.record({ type: fc.constant("image"), data: text })), { maxLength: 3 }), details: json, timestamp: number }),
  json,
);

/** One step between two renders: the next input, derived from the previous one. */
const edit = fc.oneof(
  fc.record({ kind: fc.constant("append" as const), msg: message }),
  fc.record({ kind: fc.constant("replace" as const), at: fc.nat(), msg: message }),
  fc.record({ kind: fc.constant("remove" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("editInPlace" as const), at: fc.nat(), value: text }),
  fc.record({ kind: fc.constant("renameKey" as const), at: fc.nat(), key: fc.constantFrom("role", "id", "summary") }),
  fc.constant({ kind: "copy" as const }),
);

function applyEdit(previous: any[], step: any): any[] {
  const next = structuredClone(previous);
  const at = previous.length === 0 ? 0 : step.at % previous.length;
  if (step.kind === "append") next.push(step.msg);
  else if (step.kind === "replace" && next.length > 0) next[at] = step.msg;
  else if (step.kind === "remove") next.splice(at, 1);
  else if (step.kind === "renameKey") renameFirstKey(next[at], step.key);
  // A later hook may edit the previous render's messages in place; the memo must not care.
  else if (step.kind === "editInPlace" && previous[at] !== null && typeof previous[at] === "object") previous[at].details = step.value;
  return next;
}

/** The same members with the first one under another name (same value, same order). */
function renameFirstKey(msg: unknown, key: string): void {
  if (msg === null || typeof msg !== "object" || Array.isArray(msg)) return;
  const entries = Object.entries(msg);
  if (entries.length === 0 || entries.some(([k]) => k === key)) return;
  for (const [k] of entries) delete (msg as Record<string, unknown>)[k];
  entries.forEach(([k, v], i) => ((msg as Record<string, unknown>)[i === 0 ? key : k] = v));
}

const fresh = (messages: unknown[]) => messages.map((m) => elementSizes(m));

describe("the render's size memo", () => {
  test("every call's sizes equal a fresh measurement, across random edits between renders", () => {
    fc.assert(
      fc.property(fc.array(message, { maxLength: 6 }), fc.array(edit, { maxLength: 6 }), (initial, edits) => {
        let messages: any[] = initial;
        for (let k = 0; k <= edits.length; k++) {
          const sizes = elementSizesOfEach(messages);
          const expected = fresh(messages);
          if (!expected.every((e, i) => Object.is(sizes.full[i], e.full) && Object.is(sizes.counted[i], e.counted))) return false;
          if (k < edits.length) messages = applyEdit(messages, edits[k]);
        }
        return true;
      }),
      { numRuns: 1000 },
    );
  });

  function counting(): { memo: SizeMemo; measured: unknown[][]; sizes: (messages: unknown[]) => SplitLengths } {
    const memo = new SizeMemo();
    const measured: unknown[][] = [];
    const measure = (changed: unknown[]) => {
      measured.push(changed);
      return { full: Float64Array.from(changed, () => 1), counted: Float64Array.from(changed, () => 1) };
    };
    return { memo, measured, sizes: (messages) => memo.sizesOf(messages, measure) };
  }

  test("a fresh deep copy of the same messages is not measured again", () => {
    const { measured, sizes } = counting();
    const messages = [{ role: "user", content: "hi", timestamp: 1 }, { role: "assistant", content: [{ type: "text", text: "a\n\"b\"" }] }];
    sizes(messages);
    sizes(structuredClone(messages));
    expect(measured).toEqual([messages]);
  });

  test("only the messages that differ from the previous call at their position are measured", () => {
    const { measured, sizes } = counting();
    const first = [{ role: "user", content: "a" }, { role: "user", content: "b" }];
    sizes(first);
    const next = [{ role: "user", content: "a" }, { role: "user", content: "B" }, { role: "user", content: "c" }];
    sizes(next);
    expect(measured[1]).toEqual([next[1], next[2]]);
  });

  test("a message edited in place after it was remembered is measured afresh", () => {
    const { measured, sizes } = counting();
    const messages = [{ role: "user", content: [{ type: "text", text: "before" }] }];
    sizes(messages);
    messages[0]!.content[0]!.text = "after, and longer";
    sizes(messages);
    expect(measured).toHaveLength(2);
  });

  test("what the walk does not know (a NaN, a class instance, toJSON) is measured every time", () => {
    class Box {
      value = 1;
    }
    for (const odd of [{ n: Number.NaN }, { box: new Box() }, { toJSON: () => "x" }]) {
      const { measured, sizes } = counting();
      sizes([odd]);
      sizes([odd]);
      expect(measured).toHaveLength(2);
    }
  });
});
