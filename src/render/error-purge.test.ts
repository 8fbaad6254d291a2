import { describe, expect, test } from "bun:test";
import { purgeErroredArgs } from "./error-purge.js";
import type { ErrorPurgeConfig } from "../types.js";

const config: ErrorPurgeConfig = { enabled: true, cooldownTurns: 2, minArgChars: 10 };

const callTurn = (ts: number, id: string, args: unknown, name = "write") => ({
  role: "assistant",
  content: [{ type: "toolCall", id, name, arguments: args }],
  timestamp: ts,
});
const result = (ts: number, id: string, isError: boolean, text = isError ? "error: failed" : "ok") => ({
  role: "toolResult",
  toolCallId: id,
  toolName: "write",
  content: [{ type: "text", text }],
  isError,
  timestamp: ts,
});
const longArgs = { path: "/tmp/some/file.txt", content: "x".repeat(20) };
const marker = (args: unknown) => ({ _purged: `<purged-errored-args size="${JSON.stringify(args).length}"/>` });

/** An errored call followed by `laterTurns` successful tool turns. */
function erroredThenTurns(args: unknown, laterTurns: number, isError = true): any[] {
  const messages: any[] = [callTurn(100, "tc-err", args), result(110, "tc-err", isError)];
  for (let i = 0; i < laterTurns; i++) {
    messages.push(callTurn(200 + i * 100, `ok-${i}`, { cmd: "ls" }, "bash"), result(210 + i * 100, `ok-${i}`, false));
  }
  return messages;
}

describe("purgeErroredArgs", () => {
  test("returns the input reference when no result errored", () => {
    // E1
    const input = [callTurn(1, "tc1", longArgs), result(2, "tc1", false)];
    expect(purgeErroredArgs(input, config)).toBe(input);
  });

  test("keeps args of an error younger than the cooldown", () => {
    // E2
    const input = erroredThenTurns(longArgs, 1);
    const output = purgeErroredArgs(input, config);
    expect(output).toBe(input);
    expect(output[0].content[0].arguments).toEqual(longArgs);
  });

  test("replaces old errored args with the exact size marker and keeps the error text", () => {
    // E3
    const args = { path: "/a/b/c.txt", content: "0123456789abcdef" };
    const len = JSON.stringify(args).length;
    expect(len).toBeGreaterThan(30);
    const input = erroredThenTurns(args, 2);
    const output = purgeErroredArgs(input, config);
    expect(output).not.toBe(input);
    expect(output[0].content[0].arguments).toEqual({ _purged: `<purged-errored-args size="${len}"/>` });
    expect(output[1]).toBe(input[1]);
    expect(output[1].content[0].text).toBe("error: failed");
  });

  test("keeps args shorter than minArgChars", () => {
    // E4
    const input = erroredThenTurns({ x: "hi" }, 2);
    expect(purgeErroredArgs(input, { ...config, minArgChars: 1000 })).toBe(input);
  });

  test("keeps long args when the result did not error", () => {
    // E5
    const input = erroredThenTurns(longArgs, 2, false);
    expect(purgeErroredArgs(input, config)).toBe(input);
  });

  test("purges only the errored block of a multi-call assistant", () => {
    // E6
    const bashArgs = { cmd: "echo a long enough command" };
    const input: any[] = [
      {
        role: "assistant",
        content: [
          { type: "toolCall", id: "w1", name: "write", arguments: longArgs },
          { type: "toolCall", id: "b1", name: "bash", arguments: bashArgs },
        ],
        timestamp: 100,
      },
      result(110, "w1", true),
      result(120, "b1", false),
      callTurn(200, "n1", {}, "bash"),
      result(210, "n1", false),
      callTurn(300, "n2", {}, "bash"),
      result(310, "n2", false),
    ];
    const output = purgeErroredArgs(input, { ...config, minArgChars: 5 });
    expect(output[0].content[0].arguments).toEqual(marker(longArgs));
    expect(output[0].content[1].arguments).toEqual(bashArgs);
    expect(output[0].content[1]).toBe(input[0].content[1]);
  });

  test("never mutates the input", () => {
    // E7
    const input = erroredThenTurns(longArgs, 2);
    const first = input[0];
    const firstArgs = input[0].content[0].arguments;
    const snapshot = structuredClone(input);
    const output = purgeErroredArgs(input, config);
    expect(output).not.toBe(input);
    expect(input[0]).toBe(first);
    expect(input[0].content[0].arguments).toBe(firstArgs);
    expect(input).toEqual(snapshot);
  });

  test("purges when the age equals the cooldown (inclusive)", () => {
    // E8
    const input = erroredThenTurns(longArgs, 3);
    const output = purgeErroredArgs(input, { ...config, cooldownTurns: 3 });
    expect(output[0].content[0].arguments).toEqual(marker(longArgs));
  });

  test("keeps args when the age is one below the cooldown", () => {
    // E9
    const input = erroredThenTurns(longArgs, 2);
    expect(purgeErroredArgs(input, { ...config, cooldownTurns: 3 })).toBe(input);
  });

  test("copies only modified assistant messages; untouched messages keep their identity", () => {
    const input = erroredThenTurns(longArgs, 2);
    const output = purgeErroredArgs(input, config);
    expect(output[0]).not.toBe(input[0]);
    for (let i = 1; i < input.length; i++) expect(output[i]).toBe(input[i]);
    expect(output[0].timestamp).toBe(100);
    expect(output[0].content[0].id).toBe("tc-err");
    expect(output[0].content[0].name).toBe("write");
  });

  test("matches by bare id against the latest errored occurrence", () => {
    // A reused id: the later error at turn 3 is the reference point, so with age 0 nothing purges.
    const input: any[] = [
      callTurn(100, "dup", longArgs),
      result(110, "dup", true),
      callTurn(200, "x", {}, "bash"),
      result(210, "x", false),
      callTurn(300, "dup", longArgs),
      result(310, "dup", true),
    ];
    expect(purgeErroredArgs(input, config)).toBe(input);
  });

  test("the size marker counts the arguments' JSON length including unicode as code units", () => {
    const args = { content: "\u00e9\u2502 quoted \"x\"" };
    const input = erroredThenTurns(args, 2);
    const output = purgeErroredArgs(input, { ...config, minArgChars: 1 });
    expect(output[0].content[0].arguments).toEqual(marker(args));
  });
});

describe("purgeErroredArgs: bad input never throws", () => {
  test("a tool call without arguments is skipped", () => {
    const input: any[] = [
      { role: "assistant", content: [{ type: "toolCall", id: "tc-err", name: "write" }], timestamp: 100 },
      result(110, "tc-err", true),
      callTurn(200, "a", {}, "bash"),
      result(210, "a", false),
      callTurn(300, "b", {}, "bash"),
      result(310, "b", false),
    ];
    let output: any[] = [];
    expect(() => {
      output = purgeErroredArgs(input, { ...config, minArgChars: 0 });
    }).not.toThrow();
    expect(output).toBe(input);
  });

  test("a tool call with undefined arguments is skipped", () => {
    const input = erroredThenTurns(undefined, 2);
    expect(purgeErroredArgs(input, { ...config, minArgChars: 0 })).toBe(input);
  });

  test("a call without arguments is skipped while a sibling with arguments is purged", () => {
    const input: any[] = [
      {
        role: "assistant",
        content: [
          { type: "toolCall", id: "tc-err", name: "write" },
          { type: "toolCall", id: "tc-err2", name: "write", arguments: longArgs },
        ],
        timestamp: 100,
      },
      result(110, "tc-err", true),
      result(111, "tc-err2", true),
      callTurn(200, "a", {}, "bash"),
      result(210, "a", false),
      callTurn(300, "b", {}, "bash"),
      result(310, "b", false),
    ];
    const output = purgeErroredArgs(input, config);
    expect("arguments" in output[0].content[0]).toBe(false);
    expect(output[0].content[1].arguments).toEqual(marker(longArgs));
  });

  test("assistants with non-array content, null elements and unknown roles are tolerated", () => {
    const input: any[] = [
      null,
      { role: "assistant", content: "just text", timestamp: 50 },
      { role: "mystery", timestamp: 60 },
      ...erroredThenTurns(longArgs, 1),
      { role: "toolResult", toolCallId: 7, isError: true, content: "x", timestamp: 999 },
    ];
    let output: any[] = [];
    expect(() => {
      output = purgeErroredArgs(input, config);
    }).not.toThrow();
    // Assistant count is 3 (text-only one included) and the error was at turn 2: age 1 < 2.
    expect(output).toBe(input);
  });
});
