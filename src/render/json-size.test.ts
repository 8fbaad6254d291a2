import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { jsonArrayLength, jsonElementLengths, jsonLength, quotedLength } from "./json-size.js";

const stringify = (value: unknown) => JSON.stringify(value)?.length;

/** Characters JSON escapes, plus surrogate halves in and out of pairs. */
const trickyChar = fc.constantFrom('"', "\\", "\n", "\t", "\b", "\f", "\r", "\u0000", "\u001f", "\u007f", "\ud83d", "\ude00", "\ud83d\ude00", "é", "a", "/");
const trickyString = fc.array(trickyChar, { maxLength: 40 }).map((chars) => chars.join(""));
const anyString = fc.oneof(fc.string(), fc.string({ unit: "binary" }), trickyString);
const anyNumber = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -0, Number.NaN, Infinity, -Infinity, 1e21, 1e-7, 2 ** 53, Number.MAX_SAFE_INTEGER, 9_007_199_254_740_993),
);
const leaf = fc.oneof(anyString, anyNumber, fc.boolean(), fc.constant(null), fc.constant(undefined), fc.constant(() => 1));
const value = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: "small" }, leaf, tie("array"), tie("object")),
  array: fc.array(tie("node"), { maxLength: 5 }),
  object: fc.dictionary(anyString, tie("node"), { maxKeys: 5 }),
})).node;

describe("quotedLength", () => {
  test("matches JSON.stringify for every string, escapes and lone surrogates included", () => {
    fc.assert(fc.property(anyString, (text) => quotedLength(text) === stringify(text)), { numRuns: 1000 });
  });

  test("counts a lone high surrogate at the very end as an escape", () => {
    expect(quotedLength("a\ud83d")).toBe(JSON.stringify("a\ud83d").length);
  });
});

describe("jsonLength", () => {
  test("matches JSON.stringify for arbitrary JSON-like values", () => {
    fc.assert(fc.property(value, (v) => jsonLength(v) === stringify(v)), { numRuns: 1000 });
  });

  test("counts integer digits right at every power-of-ten boundary", () => {
    for (let p = 0; p <= 15; p++) {
      for (const v of [10 ** p - 1, 10 ** p, 10 ** p + 1, -(10 ** p)]) expect(jsonLength(v)).toBe(stringify(v));
    }
    expect(jsonLength(Number.MAX_SAFE_INTEGER)).toBe(stringify(Number.MAX_SAFE_INTEGER));
  });

  test("is undefined where JSON.stringify yields undefined", () => {
    expect(jsonLength(undefined)).toBeUndefined();
    expect(jsonLength(() => 1)).toBeUndefined();
    expect(jsonLength(Symbol("s"))).toBeUndefined();
  });

  test("honours toJSON and non-plain objects the way JSON.stringify does", () => {
    const date = new Date(0);
    expect(jsonLength({ at: date, custom: { toJSON: () => "x" }, map: new Map([[1, 2]]) })).toBe(
      stringify({ at: date, custom: { toJSON: () => "x" }, map: new Map([[1, 2]]) }),
    );
  });

  test("measures values nested deeper than the walker recurses", () => {
    let deep: unknown = "leaf";
    for (let i = 0; i < 200; i++) deep = i % 2 ? [deep] : { k: deep };
    expect(jsonLength(deep)).toBe(stringify(deep));
  });
});

describe("jsonElementLengths", () => {
  const asElement = (v: unknown) => (stringify([v]) as number) - 2;

  test("gives each element its length inside a JSON array (unserializable elements count as null)", () => {
    fc.assert(
      fc.property(fc.array(value, { maxLength: 8 }), (values) => {
        const sizes = jsonElementLengths(values);
        return values.every((v, i) => sizes[i] === asElement(v));
      }),
      { numRuns: 500 },
    );
  });

  test("re-measures a long string that changed at the same position with the same length", () => {
    const plain = "a".repeat(300);
    const escaped = `${'"'.repeat(10)}${"a".repeat(290)}`;
    jsonElementLengths([{ text: plain }]);
    expect(jsonElementLengths([{ text: escaped }])[0]).toBe(asElement({ text: escaped }));
    expect(jsonElementLengths([{ text: plain }])[0]).toBe(asElement({ text: plain }));
  });

  test("stays exact when long strings shift position between calls", () => {
    const texts = Array.from({ length: 6 }, (_, i) => `${"\n".repeat(i * 20)}${"x".repeat(200)}`);
    jsonElementLengths(texts);
    const shifted = [texts[5], ...texts.slice(0, 5)];
    const sizes = jsonElementLengths(shifted);
    shifted.forEach((t, i) => expect(sizes[i]).toBe(asElement(t)));
  });

  test("stays exact across repeated calls on fresh copies of random long strings", () => {
    fc.assert(
      fc.property(fc.array(fc.array(trickyChar, { minLength: 130, maxLength: 200 }).map((c) => c.join("")), { maxLength: 6 }), (texts) => {
        jsonElementLengths(texts);
        const copy = structuredClone(texts).reverse();
        const sizes = jsonElementLengths(copy);
        return copy.every((t, i) => sizes[i] === asElement(t));
      }),
      { numRuns: 200 },
    );
  });
});

describe("jsonArrayLength", () => {
  test("adds the brackets and one comma between elements", () => {
    expect(jsonArrayLength(0, 0)).toBe(2);
    expect(jsonArrayLength(3, 1)).toBe(5);
    expect(jsonArrayLength(6, 3)).toBe(stringify([1, 22, 333]));
  });
});
