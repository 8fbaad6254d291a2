import { describe, expect, test } from "bun:test";
import type { Message } from "@earendil-works/pi-ai";
import { findStaleOutputs, supersededStubText } from "./stale-outputs.js";

let clock = 1000;

/** One assistant turn calling one tool, then its result. */
function call(id: string, name: string, args: Record<string, unknown>, text = "ok", isError = false): Message[] {
  const ts = ++clock;
  return [
    { role: "assistant", content: [{ type: "toolCall", id, name, arguments: args }], stopReason: "toolUse", timestamp: ts } as unknown as Message,
    { role: "toolResult", toolCallId: id, toolName: name, content: [{ type: "text", text }], isError, timestamp: ts } as unknown as Message,
  ];
}

const read = (id: string, path: string, extra: Record<string, unknown> = {}) => call(id, "read", { path, ...extra }, "file body");
const edit = (id: string, path: string, text = `Successfully replaced 1 block(s) in ${path}.`, isError = false) =>
  call(id, "edit", { path, edits: [{ oldText: "a", newText: "b" }] }, text, isError);
const write = (id: string, path: string) => call(id, "write", { path, content: "x" }, `Successfully wrote to ${path}`);
const bash = (id: string, command: string, text = "output", isError = false) => call(id, "bash", { command }, text, isError);

/** The stale outputs by bare tool-call id, with the bare id of what superseded each. */
function staleById(messages: Message[], opts = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, s] of findStaleOutputs(messages, opts)) out[key.split("@")[0]!] = `${s.rule}:${s.byKey.split("@")[0]}`;
  return out;
}

describe("the edited rule", () => {
  test("a read followed by a successful edit of the path is stale, superseded by the edit", () => {
    expect(staleById([...read("r1", "src/a.ts"), ...edit("e1", "src/a.ts")])).toEqual({ r1: "edited:e1" });
  });

  test("a write of the path supersedes a read of it", () => {
    expect(staleById([...read("r1", "a.ts"), ...write("w1", "a.ts")])).toEqual({ r1: "edited:w1" });
  });

  test("an edit that failed with an error supersedes nothing", () => {
    expect(staleById([...read("r1", "a.ts"), ...edit("e1", "a.ts", "Could not find the exact text in a.ts", true)])).toEqual({});
  });

  test("an edit whose result reports failure without the error flag supersedes nothing", () => {
    expect(staleById([...read("r1", "a.ts"), ...edit("e1", "a.ts", "Error: file is read-only")])).toEqual({});
  });

  test("an edit of another path supersedes nothing", () => {
    expect(staleById([...read("r1", "a.ts"), ...edit("e1", "b.ts")])).toEqual({});
  });

  test("an edit before the read supersedes nothing", () => {
    expect(staleById([...edit("e1", "a.ts"), ...read("r1", "a.ts")])).toEqual({});
  });

  test("./a.ts and a.ts are the same path", () => {
    expect(staleById([...read("r1", "./a.ts"), ...edit("e1", "a.ts")])).toEqual({ r1: "edited:e1" });
  });

  test("an absolute and a relative path match only when the cwd is known", () => {
    const messages = [...read("r1", "/repo/a.ts"), ...edit("e1", "a.ts")];
    expect(staleById(messages)).toEqual({});
    expect(staleById(messages, { cwd: "/repo" })).toEqual({ r1: "edited:e1" });
  });

  test("a path with spaces and unicode is matched as written", () => {
    expect(staleById([...read("r1", "docs/my notes é.md"), ...edit("e1", "docs/my notes é.md")])).toEqual({ r1: "edited:e1" });
  });

  test("a bash cat of the path is superseded by an edit of it", () => {
    expect(staleById([...bash("b1", `cat "docs/my notes é.md"`), ...edit("e1", "docs/my notes é.md")])).toEqual({ b1: "edited:e1" });
  });

  test("a bash sed -i is not an edit", () => {
    expect(staleById([...read("r1", "a.ts"), ...bash("b1", "sed -i 's/a/b/' a.ts")])).toEqual({});
  });

  test("a failed read is not stale", () => {
    expect(staleById([...call("r1", "read", { path: "a.ts" }, "ENOENT", true), ...edit("e1", "a.ts")])).toEqual({});
  });
});

describe("the reread rule", () => {
  test("a slice read inside a later whole-file read is stale", () => {
    expect(staleById([...read("r1", "a.ts", { offset: 10, limit: 20 }), ...read("r2", "a.ts")])).toEqual({ r1: "reread:r2" });
  });

  test("a later read that only overlaps supersedes nothing", () => {
    expect(staleById([...read("r1", "a.ts", { offset: 10, limit: 20 }), ...read("r2", "a.ts", { offset: 20, limit: 20 })])).toEqual({});
  });

  test("an edit between the two reads supersedes the first, not the second read", () => {
    expect(staleById([...read("r1", "a.ts"), ...edit("e1", "a.ts"), ...read("r2", "a.ts")])).toEqual({ r1: "edited:e1" });
  });

  test("a failed edit between the two reads leaves the reread rule to apply", () => {
    expect(staleById([...read("r1", "a.ts"), ...edit("e1", "a.ts", "no match", true), ...read("r2", "a.ts")])).toEqual({ r1: "reread:r2" });
  });

  test("a read of another path supersedes nothing", () => {
    expect(staleById([...read("r1", "a.ts"), ...read("r2", "b.ts")])).toEqual({});
  });

  test("growing reads hand each one on to the next containing read", () => {
    const messages = [...read("r1", "a.ts", { limit: 50 }), ...read("r2", "a.ts", { limit: 100 }), ...read("r3", "a.ts")];
    expect(staleById(messages)).toEqual({ r1: "reread:r2", r2: "reread:r3" });
  });

  test("sed -n and head through bash count as reads", () => {
    const messages = [...bash("b1", "sed -n '20,40p' a.ts"), ...bash("b2", "head -n 100 ./a.ts")];
    expect(staleById(messages)).toEqual({ b1: "reread:b2" });
  });

  test("a piped cat is no read", () => {
    expect(staleById([...bash("b1", "cat a.ts | grep x"), ...read("r2", "a.ts")])).toEqual({});
  });

  test("a tail is inside a later whole-file read", () => {
    expect(staleById([...bash("b1", "tail -n 20 a.ts"), ...read("r2", "a.ts")])).toEqual({ b1: "reread:r2" });
  });

  test("a later read cut short by pi holds only the lines its note names", () => {
    const cut = call("r2", "read", { path: "a.ts" }, "...\n\n[Showing lines 1-2000 of 5000. Use offset=2001 to continue.]");
    expect(staleById([...read("r1", "a.ts", { offset: 3000, limit: 10 }), ...cut])).toEqual({});
  });
});

describe("the rerun rule", () => {
  test("a command run again later is superseded by the newer run", () => {
    expect(staleById([...bash("b1", "npm test"), ...bash("b2", "npm test")])).toEqual({ b1: "rerun:b2" });
  });

  test("only the latest of three runs stays", () => {
    expect(staleById([...bash("b1", "npm test"), ...bash("b2", " npm test "), ...bash("b3", "npm test")])).toEqual({ b1: "rerun:b2", b2: "rerun:b3" });
  });

  test("different environment variables make different commands", () => {
    expect(staleById([...bash("b1", "FOO=1 npm test"), ...bash("b2", "FOO=2 npm test")])).toEqual({});
  });

  test("different arguments make different commands", () => {
    expect(staleById([...bash("b1", "npm test -- a.test.ts"), ...bash("b2", "npm test -- b.test.ts")])).toEqual({});
  });

  test("cd x && cmd is its own command, not cmd", () => {
    expect(staleById([...bash("b1", "cd x && npm test"), ...bash("b2", "npm test")])).toEqual({});
  });

  test("a failed earlier run is superseded too", () => {
    expect(staleById([...bash("b1", "npm test", "1 fail\nCommand exited with code 1", true), ...bash("b2", "npm test")])).toEqual({ b1: "rerun:b2" });
  });

  test("an aborted newer run supersedes nothing", () => {
    expect(staleById([...bash("b1", "npm test"), ...bash("b2", "npm test", "partial\n\nCommand aborted", true)])).toEqual({});
  });

  test("a complete run after an aborted one supersedes both", () => {
    const messages = [...bash("b1", "npm test"), ...bash("b2", "npm test", "Command timed out after 60 seconds", true), ...bash("b3", "npm test")];
    expect(staleById(messages)).toEqual({ b1: "rerun:b3", b2: "rerun:b3" });
  });
});

describe("what never takes part", () => {
  test("a protected read is never stale", () => {
    const isProtected = (_name: string, args: unknown) => (args as { path?: string }).path === "SKILL.md";
    expect(staleById([...read("r1", "SKILL.md"), ...edit("e1", "SKILL.md")], { isProtected })).toEqual({});
  });

  test("a protected call still supersedes an unprotected one", () => {
    const isProtected = (name: string) => name === "edit";
    expect(staleById([...read("r1", "a.ts"), ...edit("e1", "a.ts")], { isProtected })).toEqual({ r1: "edited:e1" });
  });

  test("a context_tree_query recovery is never stale", () => {
    const query = (id: string) => call(id, "context_tree_query", { toolCallIds: ["t1"] });
    expect(staleById([...query("q1"), ...query("q2")])).toEqual({});
  });

  test("an orphan result is skipped without throwing", () => {
    const orphan = { role: "toolResult", toolCallId: "zz", toolName: "read", content: [], isError: false, timestamp: 5 } as unknown as Message;
    expect(staleById([orphan, ...read("r1", "a.ts"), ...edit("e1", "a.ts")])).toEqual({ r1: "edited:e1" });
  });

  test("a result after a user message no longer pairs with its call", () => {
    const [assistant, result] = read("r1", "a.ts");
    const user = { role: "user", content: "wait", timestamp: 1 } as unknown as Message;
    expect(staleById([assistant!, user, result!, ...edit("e1", "a.ts")])).toEqual({});
  });

  test("an occurrence key seen twice takes no part", () => {
    const twice = read("r1", "a.ts");
    expect(staleById([...twice, ...twice, ...edit("e1", "a.ts")])).toEqual({});
  });

  test("messages of unexpected shapes are skipped without throwing", () => {
    const junk = [null, 7, { role: "assistant", content: "text" }, { role: "toolResult" }] as unknown as Message[];
    expect(staleById([...junk, ...bash("b1", "ls"), ...bash("b2", "ls")])).toEqual({ b1: "rerun:b2" });
  });
});

describe("supersededStubText", () => {
  const edited = { rule: "edited" as const, byKey: "e1@2", byToolName: "edit", path: "src/a.ts" };

  test("names the path, what superseded it, the ref and the recovery call", () => {
    expect(supersededStubText("t7", edited)).toBe(
      '[Superseded: `src/a.ts` was edited later; re-read it for its current content. Original archived as ref `t7`: context_tree_query({ toolCallIds: ["t7"] }).]',
    );
  });

  test("names the superseding call's ref when it has one", () => {
    expect(supersededStubText("t7", { ...edited, rule: "reread" }, "t9")).toContain("was read again later (ref `t9`)");
  });

  test("a long command is cut to fit", () => {
    const text = supersededStubText("t1", { rule: "rerun", command: `npm test ${"x".repeat(300)}` });
    expect(text.length).toBeLessThan(200);
  });

  test("a command with backticks stays one code span", () => {
    expect(supersededStubText("t1", { rule: "rerun", command: "echo `date`" })).toContain("`` echo `date` ``");
  });
});
