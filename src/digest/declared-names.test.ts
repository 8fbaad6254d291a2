import { describe, expect, test } from "bun:test";
import { declaredNames } from "./declared-names.js";

const names = (text: string, limit = 50) => declaredNames(text.split("\n"), limit);

describe("the names a source text declares", () => {
  test("Python functions, classes and methods, and names bound at the margin", () => {
    const text = ["import os", "LIMIT = 3", "class Collector:", "    def collect(self, objs):", "        found = []", "        return found", "async def main():", "    pass"].join("\n");
    expect(names(text)).toEqual(["LIMIT", "Collector", "collect", "main"]);
  });

  test("TypeScript exports, interfaces and types, but no indented locals", () => {
    const text = [
      "export interface Options { a: number }",
      "export type Mode = 'a' | 'b';",
      "export default async function run(opts: Options) {",
      "  const inner = 1;",
      "  return inner;",
      "}",
      "export const VERSION = '1';",
      "let counter = 0;",
    ].join("\n");
    expect(names(text)).toEqual(["Options", "Mode", "run", "VERSION", "counter"]);
  });

  test("Rust, Go and C definitions", () => {
    const text = ["pub(crate) fn parse(input: &str) -> Ast {", "pub struct Ast;", "func (s *Server) Serve(ctx context.Context) error {", "static int main_loop(void) {", "    if (ready(x)) {", "    return helper(x);"].join(
      "\n",
    );
    expect(names(text)).toEqual(["parse", "Ast", "Serve", "main_loop"]);
  });

  test("a numbered listing (cat -n, nl, grep -n) declares what its file does", () => {
    const text = ["   201\tclass Collector:", "   202\t    def can_fast_delete(self, objs):", "88:    def related_objects(self):", "89-        return x"].join("\n");
    expect(names(text)).toEqual(["Collector", "can_fast_delete", "related_objects"]);
  });

  test("statements that call a function declare nothing", () => {
    const text = ["    raise ValueError(msg)", "    print(foo(x))", "    return build(x)", "    self.assertEqual(a, b)", "    x = compute(y)"].join("\n");
    expect(names(text)).toEqual([]);
  });

  test("each name once, at most the limit, and lines too long to be source are skipped", () => {
    const text = ["def a1(): pass", "def a1(): pass", "def b2(): pass", `def ${"x".repeat(500)}(): pass`, "def c3(): pass"].join("\n");
    expect(names(text, 2)).toEqual(["a1", "b2"]);
    expect(names(text)).toEqual(["a1", "b2", "c3"]);
  });
});
