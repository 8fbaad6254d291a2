import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { hashToolResult } from "./content-hash.js";

describe("hashToolResult", () => {
  test("is lower-case hex SHA-1 over name, NUL and normalized text", () => {
    const expected = createHash("sha1").update("bash\0hello").digest("hex");
    expect(hashToolResult("bash", "hello")).toBe(expected);
    expect(hashToolResult("bash", "hello")).toMatch(/^[0-9a-f]{40}$/);
  });

  test("CRLF and LF line endings hash the same", () => {
    expect(hashToolResult("bash", "a\r\nb\r\n")).toBe(hashToolResult("bash", "a\nb\n"));
  });

  test("trailing spaces and tabs per line are ignored", () => {
    expect(hashToolResult("bash", "a  \t\nb\t")).toBe(hashToolResult("bash", "a\nb"));
  });

  test("surrounding whitespace of the whole text is ignored", () => {
    expect(hashToolResult("bash", "\n\n  a\nb \n\n")).toBe(hashToolResult("bash", "a\nb"));
  });

  test("internal whitespace, case and lone CR are significant", () => {
    expect(hashToolResult("bash", "a  b")).not.toBe(hashToolResult("bash", "a b"));
    expect(hashToolResult("bash", "A")).not.toBe(hashToolResult("bash", "a"));
    expect(hashToolResult("bash", "a\rb")).not.toBe(hashToolResult("bash", "a\nb"));
    expect(hashToolResult("bash", "a\n  b")).not.toBe(hashToolResult("bash", "a\nb"));
  });

  test("the tool name is part of the hash", () => {
    expect(hashToolResult("read", "same")).not.toBe(hashToolResult("bash", "same"));
  });
});
