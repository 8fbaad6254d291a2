import { describe, expect, test } from "bun:test";
import { getGrammarToolInput } from "@earendil-works/pi-ai/api/constrained-sampling";
import { purgeErroredArgs } from "./error-purge.js";
import type { ErrorPurgeConfig } from "../settings/config-shape.js";

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
const longArgs = { path: "/tmp/some/file.txt", content: "x".repeat(300) };
const placeholder = (length: number) => `<purged-errored-args size="${length}"/>`;
const purgedLongArgs = { path: "/tmp/some/file.txt", content: placeholder(300) };

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

  test("replaces each long string of old errored args with its size marker and keeps the error text", () => {
    // E3
    const input = erroredThenTurns(longArgs, 2);
    const output = purgeErroredArgs(input, config);
    expect(output).not.toBe(input);
    expect(output[0].content[0].arguments).toEqual(purgedLongArgs);
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
    expect(output[0].content[0].arguments).toEqual(purgedLongArgs);
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
    expect(output[0].content[0].arguments).toEqual(purgedLongArgs);
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

  test("a reused id: each failed occurrence is purged by its own age", () => {
    const input: any[] = [
      callTurn(100, "dup", longArgs),
      result(110, "dup", true),
      callTurn(200, "x", {}, "bash"),
      result(210, "x", false),
      callTurn(300, "dup", longArgs),
      result(310, "dup", true),
    ];
    const output = purgeErroredArgs(input, config);
    expect(output[0].content[0].arguments).toEqual(purgedLongArgs);
    expect(output[4]).toBe(input[4]);
  });

  test("a successful call whose id a later failed call reuses keeps its arguments", () => {
    // Providers that number calls per turn (`call_0`) reuse ids in every turn.
    const input: any[] = [
      callTurn(100, "call_0", longArgs),
      result(110, "call_0", false),
      callTurn(200, "call_0", longArgs),
      result(210, "call_0", true),
      ...erroredThenTurns({}, 2).slice(2),
    ];
    const output = purgeErroredArgs(input, config);
    expect(output[0]).toBe(input[0]);
    expect(output[2].content[0].arguments).toEqual(purgedLongArgs);
  });

  test("two calls sharing an id in one message: only the one whose result failed is purged", () => {
    const twice = { ...callTurn(100, "0", longArgs), content: [callTurn(0, "0", longArgs).content[0], callTurn(0, "0", { ...longArgs, path: "/tmp/b" }).content[0]] };
    const input: any[] = [twice, result(110, "0", false), result(111, "0", true), ...erroredThenTurns({}, 2).slice(2)];
    const output = purgeErroredArgs(input, config);
    expect(output[0].content[0]).toBe(twice.content[0]);
    expect(output[0].content[1].arguments).toEqual({ ...purgedLongArgs, path: "/tmp/b" });
  });

  test("a successful call keeps its arguments when a failure collides with it on one occurrence key", () => {
    const input: any[] = [callTurn(100, "c1", longArgs), result(110, "c1", false), callTurn(200, "c1", longArgs), result(110, "c1", true), ...erroredThenTurns({}, 2).slice(2)];
    const output = purgeErroredArgs(input, config);
    expect(output[0]).toBe(input[0]);
    expect(output[2].content[0].arguments).toEqual(purgedLongArgs);
  });

  test("a call whose result never came is not purged by another call's failure", () => {
    const input: any[] = [callTurn(100, "c", longArgs), { role: "user", content: "go on", timestamp: 150 }, callTurn(200, "c", {}, "bash"), result(210, "c", true), ...erroredThenTurns({}, 2).slice(2)];
    expect(purgeErroredArgs(input, config)[0]).toBe(input[0]);
  });

  test("the size marker counts the string's UTF-16 code units, not its JSON length", () => {
    const content = "\u00e9\u2502\"".repeat(100);
    const input = erroredThenTurns({ content }, 2);
    const output = purgeErroredArgs(input, config);
    expect(output[0].content[0].arguments).toEqual({ content: placeholder(300) });
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
    expect(output[0].content[1].arguments).toEqual(purgedLongArgs);
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

/** Purges one errored call of `name` after two later turns and returns its arguments as rendered. */
function purgedArgsOf(args: unknown, minArgChars = 500, name = "write"): { input: any[]; output: any[]; args: any } {
  const input = erroredThenTurns(args, 2);
  input[0].content[0].name = name;
  const output = purgeErroredArgs(input, { ...config, minArgChars });
  return { input, output, args: output[0].content[0].arguments };
}

describe("purgeErroredArgs: the argument shape is kept (spec 70 §14.3)", () => {
  test("a failed codemode call keeps its code key as a string the grammar replay accepts", () => {
    const { args } = purgedArgsOf({ code: "x".repeat(1000) }, 500, "codemode");
    expect(args).toEqual({ code: placeholder(1000) });
    expect(Object.keys(args)).toEqual(["code"]);
    expect(JSON.stringify(args).length).toBeLessThan(500);
    expect(getGrammarToolInput("codemode", args, "code")).toBe(placeholder(1000));
  });

  test("a failed write keeps its path verbatim and shrinks only the file body", () => {
    const { args } = purgedArgsOf({ path: "src/foo.ts", content: "x".repeat(30000) });
    expect(args.path).toBe("src/foo.ts");
    expect(args.content).toBe(placeholder(30000));
    expect(JSON.stringify(args).length).toBeLessThan(100);
  });

  test("a failed edit keeps both edits and shrinks only their two long values", () => {
    const edits = [
      { oldText: "a".repeat(15000), newText: "x" },
      { oldText: "y", newText: "b".repeat(15000) },
    ];
    const { args } = purgedArgsOf({ path: "src/foo.ts", edits });
    expect(args.edits.length).toBe(2);
    expect(args.edits).toEqual([
      { oldText: placeholder(15000), newText: "x" },
      { oldText: "y", newText: placeholder(15000) },
    ]);
    expect(args.path).toBe("src/foo.ts");
    expect(JSON.stringify(args).length).toBeLessThan(500);
  });

  test("numbers, booleans, null and short strings stay; only the 201-char string changes", () => {
    const { args } = purgedArgsOf({ line: 42, force: true, z: null, s: "short", big: "x".repeat(201) }, 10);
    expect(args).toEqual({ line: 42, force: true, z: null, s: "short", big: placeholder(201) });
  });

  test("a string of exactly 200 chars is kept and the input array is returned by identity", () => {
    const { input, output } = purgedArgsOf({ s: "x".repeat(200) }, 10);
    expect(output).toBe(input);
  });

  test("600 short values are eligible by size yet return the same reference: nothing to reclaim", () => {
    const args = Object.fromEntries(Array.from({ length: 600 }, (_, i) => [`k${i}`, "v"]));
    expect(JSON.stringify(args).length).toBeGreaterThanOrEqual(500);
    const { input, output } = purgedArgsOf(args, 500);
    expect(output).toBe(input);
  });

  test("a second pass over purged output returns the same reference", () => {
    const { output } = purgedArgsOf({ path: "src/foo.ts", content: "x".repeat(30000) }, 10);
    expect(purgeErroredArgs(output, { ...config, minArgChars: 10 })).toBe(output);
  });

  test("an own __proto__ key from JSON.parse keeps its place and stays an own data property", () => {
    const parsed = JSON.parse(`{"__proto__":"${"p".repeat(300)}","content":"${"c".repeat(300)}"}`);
    const { args } = purgedArgsOf(parsed, 10);
    expect(Object.keys(args)).toEqual(["__proto__", "content"]);
    expect(Object.getOwnPropertyDescriptor(args, "__proto__")?.value).toBe(placeholder(300));
    expect(args.content).toBe(placeholder(300));
    expect(Object.getPrototypeOf(args)).toBe(Object.prototype);
    const marker = JSON.stringify(placeholder(300));
    expect(JSON.stringify(args)).toBe(`{"__proto__":${marker},"content":${marker}}`);
  });

  test("nested originals are not mutated: the input stays deep-equal to a clone taken before", () => {
    const args = { path: "p", edits: [{ oldText: "a".repeat(500), meta: { tags: ["t", "u".repeat(300)] } }] };
    const input = erroredThenTurns(args, 2);
    const before = structuredClone(input);
    const output = purgeErroredArgs(input, config);
    expect(output[0].content[0].arguments.edits[0].meta.tags).toEqual(["t", placeholder(300)]);
    expect(input).toEqual(before);
    expect(args.edits[0].meta.tags[1]).toBe("u".repeat(300));
  });

  test("inside the cooldown, after a success, or under minArgChars a long codemode call is untouched", () => {
    const args = { code: "x".repeat(1000) };
    const young = erroredThenTurns(args, 1);
    const succeeded = erroredThenTurns(args, 2, false);
    const small = erroredThenTurns(args, 2);
    expect(purgeErroredArgs(young, config)).toBe(young);
    expect(purgeErroredArgs(succeeded, config)).toBe(succeeded);
    expect(purgeErroredArgs(small, { ...config, minArgChars: 5000 })).toBe(small);
  });

  test("an unchanged value inside a changed object keeps its reference", () => {
    const meta = { tags: ["a", "b"] };
    const { args } = purgedArgsOf({ meta, content: "x".repeat(300) }, 10);
    expect(args.meta).toBe(meta);
  });
});

describe("purgeErroredArgs: unusual argument values", () => {
  test("a nested array of long strings gets placeholders in place and keeps every length", () => {
    const { args } = purgedArgsOf({ items: [["x".repeat(300), ["y".repeat(500)]], 3] }, 10);
    expect(args).toEqual({ items: [[placeholder(300), [placeholder(500)]], 3] });
  });

  test("a top-level nested array argument is shrunk in place", () => {
    const { args } = purgedArgsOf([["x".repeat(300), ["y".repeat(500)]], 3], 10);
    expect(args).toEqual([[placeholder(300), [placeholder(500)]], 3]);
  });

  test("a top-level long string argument becomes a placeholder string", () => {
    const { args } = purgedArgsOf("z".repeat(400), 10);
    expect(args).toBe(placeholder(400));
  });

  test("class instances and objects with a toJSON method are left as they are", () => {
    class Body {
      text = "x".repeat(300);
    }
    const body = new Body();
    const when = new Date(0);
    const custom = { toJSON: () => "short", text: "y".repeat(300) };
    const { args } = purgedArgsOf({ body, when, custom, content: "c".repeat(300) }, 10);
    expect(args.body).toBe(body);
    expect(args.when).toBe(when);
    expect(args.custom).toBe(custom);
    expect(args.content).toBe(placeholder(300));
  });

  test("an accessor property is carried over without being read", () => {
    let reads = 0;
    const args: Record<string, unknown> = { content: "c".repeat(300) };
    Object.defineProperty(args, "lazy", { enumerable: true, configurable: true, get: () => (reads++, "g".repeat(300)) });
    const { args: out } = purgedArgsOf(args, 10);
    const readsBySizing = reads;
    expect(out.content).toBe(placeholder(300));
    expect(typeof Object.getOwnPropertyDescriptor(out, "lazy")?.get).toBe("function");
    expect(reads).toBe(readsBySizing);
  });

  test("a null-prototype object keeps its null prototype when copied", () => {
    const args = Object.assign(Object.create(null), { content: "c".repeat(300) });
    const { args: out } = purgedArgsOf(args, 10);
    expect(Object.getPrototypeOf(out)).toBeNull();
    expect(out.content).toBe(placeholder(300));
  });

  test("frozen arguments are copied, not written", () => {
    const args = Object.freeze({ content: "c".repeat(300), list: Object.freeze(["d".repeat(300)]) });
    const { args: out } = purgedArgsOf(args, 10);
    expect(out).toEqual({ content: placeholder(300), list: [placeholder(300)] });
    expect(args.content).toBe("c".repeat(300));
  });

  test("nesting deeper than the walk bound keeps its inner strings and does not overflow the stack", () => {
    let deep: unknown = "d".repeat(300);
    for (let i = 0; i < 1000; i++) deep = [deep];
    const { args } = purgedArgsOf({ content: "c".repeat(300), deep }, 10);
    expect(args.content).toBe(placeholder(300));
    expect(args.deep).toBe(deep);
  });

  test("nesting too deep to serialize is skipped without throwing", () => {
    let deep: unknown = "d".repeat(300);
    for (let i = 0; i < 200_000; i++) deep = [deep];
    let output: any[] = [];
    const input = erroredThenTurns({ deep }, 2);
    expect(() => {
      output = purgeErroredArgs(input, config);
    }).not.toThrow();
    expect(output).toBe(input);
  });

  test("arguments that do not serialize (a cycle, a BigInt) are skipped without throwing", () => {
    const cyclic: Record<string, unknown> = { content: "c".repeat(300) };
    cyclic.self = cyclic;
    for (const args of [cyclic, { content: "c".repeat(300), n: BigInt(1) }]) {
      const input = erroredThenTurns(args, 2);
      expect(purgeErroredArgs(input, config)).toBe(input);
    }
  });

  test("a proxy whose prototype lookup throws leaves the arguments untouched", () => {
    const hostile = new Proxy(
      {},
      {
        getPrototypeOf() {
          throw new Error("boom");
        },
      },
    );
    const input = erroredThenTurns({ content: "c".repeat(300), hostile }, 2);
    let output: any[] = [];
    expect(() => {
      output = purgeErroredArgs(input, config);
    }).not.toThrow();
    expect(output).toBe(input);
  });
});
