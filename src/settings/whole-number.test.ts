import { describe, expect, test } from "bun:test";
import { MAX_WHOLE, parseWholeNumber, wholeRangeWords } from "./whole-number.js";

const COUNT = { min: 0, max: MAX_WHOLE };

describe("parseWholeNumber (issue 45, point 2)", () => {
  test("digits inside the range read as their number", () => {
    expect(parseWholeNumber("0", COUNT)).toBe(0);
    expect(parseWholeNumber("200", COUNT)).toBe(200);
    expect(parseWholeNumber("007", COUNT)).toBe(7);
    expect(parseWholeNumber(String(MAX_WHOLE), COUNT)).toBe(MAX_WHOLE);
  });

  test("text that is not only digits is refused, never read as a nearby number", () => {
    for (const text of ["0x10", "1e3", "12abc", "2.5", "3x", "-1", "+5", "", " ", "1_000", "Infinity", "NaN", "٣"]) {
      expect(parseWholeNumber(text, COUNT)).toBeUndefined();
    }
  });

  test("a number outside the range is refused, a huge one included", () => {
    expect(parseWholeNumber(String(MAX_WHOLE + 1), COUNT)).toBeUndefined();
    expect(parseWholeNumber("99999999999999999999", COUNT)).toBeUndefined();
    expect(parseWholeNumber("0", { min: 1, max: 10 })).toBeUndefined();
  });

  test("a number from a file must be an integer in range; -0 reads as 0", () => {
    expect(parseWholeNumber(30, COUNT)).toBe(30);
    expect(Object.is(parseWholeNumber(-0, COUNT), 0)).toBe(true);
    for (const value of [2.5, -1, Number.NaN, Number.POSITIVE_INFINITY, 1e10]) expect(parseWholeNumber(value, COUNT)).toBeUndefined();
  });

  test("the refusal names the range, with the unit when there is one", () => {
    expect(wholeRangeWords(COUNT)).toBe("a whole number from 0 to 1000000000");
    expect(wholeRangeWords({ min: 1, max: 5 }, "prompts")).toBe("a whole number of prompts from 1 to 5");
  });
});
