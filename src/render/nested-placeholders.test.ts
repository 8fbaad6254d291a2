import { describe, expect, test } from "bun:test";
import { substituteBlockRefs } from "./nested-placeholders.js";

const bodies: Record<string, string> = {
  b1: "summary of chain one",
  b2: "summary of chain two",
  b3: "chain three with {b2} inside",
};
const lookup = (blockId: string): string | undefined => bodies[blockId];

describe("substituteBlockRefs", () => {
  test("a lookup answer that is not a string leaves the token as it is", () => {
    expect(substituteBlockRefs("see {b1}", () => 42 as any)).toBe("see {b1}");
  });

  test("an empty string stays empty", () => {
    // N1
    expect(substituteBlockRefs("", lookup)).toBe("");
  });

  test("prose without tokens is unchanged", () => {
    // N2
    const text = "plain prose with {braces} and b1 but no token";
    expect(substituteBlockRefs(text, lookup)).toBe(text);
  });

  test("a single token is replaced by its block text", () => {
    // N3
    expect(substituteBlockRefs("{b1}", lookup)).toBe("summary of chain one");
  });

  test("several tokens are all replaced", () => {
    // N4
    expect(substituteBlockRefs("{b1} and {b2}", lookup)).toBe("summary of chain one and summary of chain two");
  });

  test("an unknown block keeps its literal token", () => {
    // N5
    expect(substituteBlockRefs("{b99}", lookup)).toBe("{b99}");
  });

  test("only known tokens are replaced in mixed text", () => {
    // N6
    expect(substituteBlockRefs("{b1} and {b99}", lookup)).toBe("summary of chain one and {b99}");
  });

  test("the self block id is kept literally", () => {
    // N7
    expect(substituteBlockRefs("{b3} foo", lookup, { selfBlockId: "b3" })).toBe("{b3} foo");
  });

  test("the self token stays while other tokens are replaced", () => {
    // N8
    expect(substituteBlockRefs("{b3} and {b1}", lookup, { selfBlockId: "b3" })).toBe(
      "{b3} and summary of chain one",
    );
  });

  test("replacement text is not re-expanded", () => {
    // N9
    expect(substituteBlockRefs("{b3}", lookup)).toBe("chain three with {b2} inside");
  });

  test("adjacent tokens are both replaced", () => {
    // N10
    expect(substituteBlockRefs("{b1}{b2}", lookup)).toBe("summary of chain onesummary of chain two");
  });

  test("tokens are replaced in place inside prose", () => {
    // N11
    expect(substituteBlockRefs("Before {b1} middle {b2} after", lookup)).toBe(
      "Before summary of chain one middle summary of chain two after",
    );
  });

  test("a lookup that always misses leaves text unchanged", () => {
    // N12
    const miss = () => undefined;
    expect(substituteBlockRefs("{b1}", miss)).toBe("{b1}");
    expect(substituteBlockRefs("{b1} text", miss)).toBe("{b1} text");
  });

  test("an empty-string lookup result replaces the token with nothing", () => {
    expect(substituteBlockRefs("a{b1}b", () => "")).toBe("ab");
  });

  test("the looked-up id keeps the digits as written", () => {
    const asked: string[] = [];
    substituteBlockRefs("{b01}", (id) => {
      asked.push(id);
      return undefined;
    });
    expect(asked).toEqual(["b01"]);
  });

  test("malformed tokens are not looked up", () => {
    const asked: string[] = [];
    const text = "{b} {bx} {B1} {b1a} b1}";
    expect(
      substituteBlockRefs(text, (id) => {
        asked.push(id);
        return "X";
      }),
    ).toBe(text);
    expect(asked).toEqual([]);
  });
});
