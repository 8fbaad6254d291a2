import { describe, expect, spyOn, test } from "bun:test";
import { declareQueryTool, queryToolDeclared } from "./query-tool-exposure.js";
import { QUERY_TOOL_NAME } from "../names.js";

function toolSwitch(active: string[]) {
  const calls: string[][] = [];
  return {
    calls,
    pi: {
      getActiveTools: () => active.slice(),
      setActiveTools: (names: string[]) => {
        calls.push(names);
        active.splice(0, active.length, ...names);
      },
    },
  };
}

describe("declaring context_tree_query", () => {
  test("nothing recoverable leaves the tool undeclared", () => {
    const { pi, calls } = toolSwitch(["read", "bash"]);
    expect(declareQueryTool(pi, false)).toBe(false);
    expect(calls).toEqual([]);
  });

  test("the first recoverable output adds the tool after the active ones", () => {
    const { pi, calls } = toolSwitch(["read", "bash"]);
    expect(declareQueryTool(pi, true)).toBe(true);
    expect(calls).toEqual([["read", "bash", QUERY_TOOL_NAME]]);
  });

  test("an active tool is never set again, recoverable or not", () => {
    const { pi, calls } = toolSwitch(["read", QUERY_TOOL_NAME]);
    expect(declareQueryTool(pi, true)).toBe(true);
    expect(declareQueryTool(pi, false)).toBe(true);
    expect(calls).toEqual([]);
  });

  test("a host that refuses the change is reported, not thrown", () => {
    const errors = spyOn(console, "error").mockImplementation(() => {});
    try {
      const pi = { getActiveTools: () => ["read"], setActiveTools: () => { throw new Error("stale ctx"); } };
      expect(declareQueryTool(pi, true)).toBe(false);
      expect(errors).toHaveBeenCalledTimes(1);
    } finally {
      errors.mockRestore();
    }
  });

  test("a host without an active set reads as undeclared", () => {
    expect(queryToolDeclared({} as any)).toBe(false);
  });
});
