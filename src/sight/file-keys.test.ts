import { describe, expect, test } from "bun:test";
import { FileKeys } from "./file-keys.js";

describe("one key per file", () => {
  test("./a.ts and a.ts are one file", () => {
    const keys = new FileKeys();
    expect(keys.keyOf("./a.ts")).toBe(keys.keyOf("a.ts"));
  });

  test("a relative path takes the key of the one absolute path seen before that ends with it", () => {
    const keys = new FileKeys();
    keys.keyOf("/w/proj/src/a.ts");
    expect(keys.keyOf("src/a.ts")).toBe("/w/proj/src/a.ts");
  });

  test("an absolute path seen after its relative spelling takes that spelling's key", () => {
    const keys = new FileKeys();
    keys.keyOf("src/a.ts");
    expect(keys.keyOf("/w/proj/src/a.ts")).toBe("src/a.ts");
  });

  test("a relative path two absolute paths end with stays its own file", () => {
    const keys = new FileKeys();
    keys.keyOf("/w/one/a.ts");
    keys.keyOf("/w/two/a.ts");
    expect(keys.keyOf("a.ts")).toBe("a.ts");
  });

  test("a spelling keeps its key when a later path would have matched it otherwise", () => {
    const keys = new FileKeys();
    const first = keys.keyOf("a.ts");
    keys.keyOf("/w/one/a.ts");
    keys.keyOf("/w/two/a.ts");
    expect(keys.keyOf("a.ts")).toBe(first);
  });

  test("a decomposed unicode name is the composed one", () => {
    const keys = new FileKeys();
    expect(keys.keyOf("caf\u0065\u0301.md")).toBe(keys.keyOf("caf\u00e9.md"));
  });
});
