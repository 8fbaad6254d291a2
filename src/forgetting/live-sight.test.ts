import { describe, expect, test } from "bun:test";
import { CUSTOM_TYPE_DEDUP_ALIAS, CUSTOM_TYPE_INDEX, CUSTOM_TYPE_SUMMARY, QUERY_TOOL_NAME } from "../names.js";
import { LiveSight } from "./live-sight.js";

let clock = 1_000;
const tick = () => (clock += 10);

const msg = (message: Record<string, unknown>) => ({ type: "message", message });
const user = (text = "go") => msg({ role: "user", content: text, timestamp: tick() });
const usage = { input: 100, output: 10, cacheRead: 900, cacheWrite: 0 };
/** One assistant message with calls `[id, name, args]`, and a result for each. */
function turn(calls: Array<[string, string, Record<string, unknown>, string?, boolean?]>): unknown[] {
  const at = tick();
  const assistant = msg({ role: "assistant", content: calls.map(([id, name, args]) => ({ type: "toolCall", id, name, arguments: args })), stopReason: "toolUse", timestamp: at, usage });
  const results = calls.map(([id, name, , text = `${id} output`, isError = false], i) =>
    msg({ role: "toolResult", toolCallId: id, toolName: name, content: [{ type: "text", text }], isError, timestamp: at + i + 1 }),
  );
  return [assistant, ...results];
}
const resultTs = (entries: unknown[], id: string): number =>
  (entries.find((e: any) => e.message?.role === "toolResult" && e.message.toolCallId === id) as any).message.timestamp;
/** The index entry a flush writes for `ids` (their results in `entries`), with refs `t1`, `t2`, ... from `first`. */
function archived(entries: unknown[], ids: string[], first = 1): unknown {
  const toolCalls = ids.map((id) => ({ toolCallId: id, toolName: "x", args: {}, resultText: "", isError: false, turnIndex: 0, timestamp: 0, resultTimestamp: resultTs(entries, id) }));
  const refs = ids.map((id, i) => ({ shortId: `t${first + i}`, toolCallId: id, resultTimestamp: resultTs(entries, id) }));
  return { type: "custom", customType: CUSTOM_TYPE_INDEX, data: { toolCalls, refs } };
}
const reply = (text = "done") => msg({ role: "assistant", content: [{ type: "text", text }], stopReason: "stop", timestamp: tick(), usage });
const read = (id: string, path: string, extra: Record<string, unknown> = {}, text = "line one\nline two"): [string, string, Record<string, unknown>, string] => [id, "read", { path, ...extra }, text];

function counted(branch: unknown[], cwd?: string) {
  const sight = new LiveSight(cwd === undefined ? {} : { cwd });
  sight.feed(branch);
  return sight.recoveries;
}

/** A prompt that read `path` (call r1), its output archived as t1 at the final reply, then a new prompt. */
function readThenArchived(path = "src/a.ts"): unknown[] {
  const first = [user(), ...turn([read("r1", path)])];
  return [...first, reply(), archived(first, ["r1"]), user()];
}

describe("context_tree_query calls", () => {
  test("a query naming an archived ref is one recovery of that ref", () => {
    const branch = [...readThenArchived(), ...turn([["q1", QUERY_TOOL_NAME, { toolCallIds: ["t1"] }, "the original"]])];
    const [recovery] = counted(branch);
    expect(recovery).toMatchObject({ kind: "query", refs: ["t1"], request: 2, returnedChars: "the original".length, contextTokens: 1000 });
  });

  test("a query naming only a ref the archive does not hold is not counted", () => {
    const branch = [...readThenArchived(), ...turn([["q1", QUERY_TOOL_NAME, { toolCallIds: ["t99"] }, "(not found in index)"]])];
    expect(counted(branch)).toEqual([]);
  });

  test("a query naming a known and an unknown ref names the known one", () => {
    const branch = [...readThenArchived(), ...turn([["q1", QUERY_TOOL_NAME, { toolCallIds: ["t99", "t1"] }]])];
    expect(counted(branch)[0]?.refs).toEqual(["t1"]);
  });

  test("a search of the whole archive counts with no ref", () => {
    const branch = [...readThenArchived(), ...turn([["q1", QUERY_TOOL_NAME, { pattern: "line" }]])];
    expect(counted(branch)).toMatchObject([{ kind: "query", refs: [] }]);
  });

  test("a query with arguments that are not text is skipped without a throw", () => {
    const branch = [...readThenArchived(), ...turn([["q1", QUERY_TOOL_NAME, { toolCallIds: [{ toString: null }] }]])];
    expect(counted(branch)).toEqual([]);
  });
});

describe("re-reads", () => {
  test("reading again a path whose earlier read was archived before the request is one recovery naming its ref", () => {
    const branch = [...readThenArchived(), ...turn([read("r2", "src/a.ts")])];
    expect(counted(branch)).toMatchObject([{ kind: "re-read", refs: ["t1"], path: "src/a.ts" }]);
  });

  test("reading again while the earlier read is still raw is not a recovery", () => {
    const branch = [user(), ...turn([read("r1", "src/a.ts")]), ...turn([read("r2", "src/a.ts")])];
    expect(counted(branch)).toEqual([]);
  });

  test("an archive entry written after the request does not count for it", () => {
    const first = [user(), ...turn([read("r1", "src/a.ts")])];
    const second = turn([read("r2", "src/a.ts")]);
    expect(counted([...first, ...second, archived(first, ["r1"])])).toEqual([]);
  });

  test("a file edited since its archived read is read again without counting", () => {
    const edit: [string, string, Record<string, unknown>] = ["e1", "edit", { path: "src/a.ts", edits: [{ oldText: "line one", newText: "line 1" }] }];
    expect(counted([...readThenArchived(), ...turn([edit]), ...turn([read("r2", "src/a.ts")])])).toEqual([]);
  });

  test("a shell command naming the file may have changed it: reading it again is not counted", () => {
    const sed: [string, string, Record<string, unknown>] = ["b1", "bash", { command: "sed -i 's/one/1/' src/a.ts" }];
    expect(counted([...readThenArchived(), ...turn([sed]), ...turn([read("r2", "src/a.ts")])])).toEqual([]);
  });

  test("a file renamed by a shell command is read at either path without counting", () => {
    const mv: [string, string, Record<string, unknown>] = ["b1", "bash", { command: "mv src/a.ts src/b.ts" }];
    const gone = [...read("r2", "src/a.ts").slice(0, 3), "ENOENT: no such file", true] as any;
    expect(counted([...readThenArchived(), ...turn([mv]), ...turn([gone]), ...turn([read("r3", "src/b.ts")])])).toEqual([]);
  });

  test("a shell command naming another file leaves the archived read as it was", () => {
    const other: [string, string, Record<string, unknown>] = ["b1", "bash", { command: "sed -i 's/x/y/' src/other.ts" }];
    expect(counted([...readThenArchived(), ...turn([other]), ...turn([read("r2", "src/a.ts")])])).toHaveLength(1);
  });

  test("reading other lines of the file is not a recovery", () => {
    const first = [user(), ...turn([read("r1", "src/a.ts", { offset: 1, limit: 10 })])];
    const branch = [...first, reply(), archived(first, ["r1"]), user(), ...turn([read("r2", "src/a.ts", { offset: 50, limit: 10 })])];
    expect(counted(branch)).toEqual([]);
  });

  test("a plain cat of the file is a read like pi's", () => {
    const branch = [...readThenArchived(), ...turn([["b2", "bash", { command: "cat src/a.ts" }]])];
    expect(counted(branch)).toMatchObject([{ kind: "re-read", refs: ["t1"] }]);
  });

  test("./a.ts, a.ts and the absolute path under the session cwd are one file", () => {
    const first = [user(), ...turn([read("r1", "./a.ts")])];
    const base = [...first, reply(), archived(first, ["r1"]), user()];
    expect(counted([...base, ...turn([read("r2", "a.ts")])], "/repo")).toHaveLength(1);
    expect(counted([...base, ...turn([read("r3", "/repo/a.ts")])], "/repo")).toHaveLength(1);
  });

  test("a unicode path is matched like any other", () => {
    const branch = [...readThenArchived("docs/café-ü/日本.md"), ...turn([read("r2", "docs/café-ü/日本.md")])];
    expect(counted(branch)).toMatchObject([{ kind: "re-read", path: "docs/café-ü/日本.md" }]);
  });

  test("a re-read of a file deleted since fails, and still counts as the round trip it was", () => {
    const branch = [...readThenArchived(), ...turn([[...read("r2", "src/a.ts").slice(0, 3), "ENOENT: no such file", true] as any])];
    expect(counted(branch)).toMatchObject([{ kind: "re-read", refs: ["t1"] }]);
  });

  test("a read of a directory (an error) is never an earlier read", () => {
    const first = [user(), ...turn([[...read("r1", "src").slice(0, 3), "EISDIR: illegal operation on a directory", true] as any])];
    const branch = [...first, reply(), archived(first, ["r1"]), user(), ...turn([read("r2", "src")])];
    expect(counted(branch)).toEqual([]);
  });

  test("a dedup alias's output is archived under its original's ref", () => {
    const first = [user(), ...turn([read("r1", "src/a.ts"), read("r9", "src/b.ts")])];
    const alias = { type: "custom", customType: CUSTOM_TYPE_DEDUP_ALIAS, data: { newToolCallId: "r9", newResultTimestamp: resultTs(first, "r9"), originalToolCallId: "r1", originalResultTimestamp: resultTs(first, "r1") } };
    const branch = [...first, reply(), archived(first, ["r1"]), alias, user(), ...turn([read("r2", "src/b.ts")])];
    expect(counted(branch)).toMatchObject([{ kind: "re-read", refs: ["t1"] }]);
  });

  test("a summary message's refs archive the outputs it names", () => {
    const first = [user(), ...turn([read("r1", "src/a.ts")])];
    const summary = { type: "custom_message", customType: CUSTOM_TYPE_SUMMARY, content: "- read a", display: false, details: { toolCallRefs: [{ shortId: "t4", toolCallId: "r1", resultTimestamp: resultTs(first, "r1") }], toolNames: ["read"] } };
    expect(counted([...first, reply(), summary, user(), ...turn([read("r2", "src/a.ts")])])).toMatchObject([{ refs: ["t4"] }]);
  });
});

describe("failed edits", () => {
  const SOURCE = "export function settle(account) {\n  const balance = account.openBalance();\n  return roundHalfEven(balance);\n}";
  const badEdit = (id: string, oldText: string): [string, string, Record<string, unknown>, string, boolean] => [id, "edit", { path: "src/ledger.ts", edits: [{ oldText, newText: "x" }] }, "Could not find the exact text in src/ledger.ts", true];

  test("an edit that failed with old text no output held is not a recovery", () => {
    const first = [user(), ...turn([read("r1", "src/ledger.ts", {}, SOURCE)])];
    const branch = [...first, reply(), archived(first, ["r1"]), user(), ...turn([badEdit("e1", "  const balance = account.openBalance(); // guessed\n")])];
    expect(counted(branch)).toEqual([]);
  });

  test("an edit that failed with an old-text line only an archived output held is one recovery naming that output", () => {
    const first = [user(), ...turn([read("r1", "src/ledger.ts", {}, SOURCE)])];
    const guessed = [...first, reply(), archived(first, ["r1"]), user(), ...turn([badEdit("e2", "  const balance = account.openBalance();\n  return roundHalfEven(balanse);")])];
    expect(counted(guessed)).toMatchObject([{ kind: "failed-edit", refs: ["t1"], path: "src/ledger.ts" }]);
  });

  test("an old-text line a raw output still shows is not a recovery", () => {
    const first = [user(), ...turn([read("r1", "src/ledger.ts", {}, SOURCE)])];
    const again = turn([["b1", "bash", { command: "grep -n balance src/ledger.ts" }, "2:  const balance = account.openBalance();"]]);
    const branch = [...first, reply(), archived(first, ["r1"]), user(), ...again, ...turn([badEdit("e1", "const balance = account.openBalance();\nreturn nope;")])];
    expect(counted(branch)).toEqual([]);
  });

  test("an old-text line only an earlier prompt's archived write held counts", () => {
    const write: [string, string, Record<string, unknown>, string] = ["w1", "write", { path: "src/ledger.ts", content: `${SOURCE}\n${"// padding line\n".repeat(20)}` }, "Wrote src/ledger.ts"];
    const first = [user(), ...turn([write])];
    const branch = [...first, reply(), archived(first, ["w1"]), user(), ...turn([badEdit("e1", "  return roundHalfEven(balance);\n}\n// missing")])];
    expect(counted(branch)).toMatchObject([{ kind: "failed-edit", refs: ["t1"] }]);
  });

  test("an edit that applied is never a recovery", () => {
    const first = [user(), ...turn([read("r1", "src/ledger.ts", {}, SOURCE)])];
    const ok: [string, string, Record<string, unknown>, string] = ["e1", "edit", { path: "src/ledger.ts", edits: [{ oldText: "  return roundHalfEven(balance);", newText: "x" }] }, "Edited"];
    expect(counted([...first, reply(), archived(first, ["r1"]), user(), ...turn([ok])])).toEqual([]);
  });
});

describe("the walk", () => {
  test("feeding a longer branch reads only what was added", () => {
    const sight = new LiveSight();
    const base = readThenArchived();
    sight.feed(base);
    expect(sight.recoveries).toHaveLength(0);
    sight.feed([...base, ...turn([read("r2", "src/a.ts")])]);
    expect(sight.recoveries).toHaveLength(1);
    expect(sight.requests).toBe(3);
  });

  test("a branch that does not continue the one read is counted from its start", () => {
    const sight = new LiveSight();
    sight.feed([...readThenArchived(), ...turn([read("r2", "src/a.ts")])]);
    sight.feed([user(), ...turn([read("r5", "src/b.ts")])]);
    expect(sight.recoveries).toHaveLength(0);
    expect(sight.requests).toBe(1);
  });

  test("entries it cannot read are skipped without a throw", () => {
    const junk = [null, 7, "x", { type: "custom", customType: CUSTOM_TYPE_INDEX, data: { toolCalls: "no" } }, { type: "message" }, msg({ role: "toolResult", toolCallId: 5 })];
    const branch = [...junk, ...readThenArchived(), ...turn([read("r2", "src/a.ts")])];
    expect(counted(branch)).toHaveLength(1);
  });

  test("an aborted reply opens no calls", () => {
    const aborted = msg({ role: "assistant", content: [{ type: "toolCall", id: "r2", name: "read", arguments: { path: "src/a.ts" } }], stopReason: "aborted", timestamp: tick() });
    const result = msg({ role: "toolResult", toolCallId: "r2", toolName: "read", content: [{ type: "text", text: "x" }], isError: false, timestamp: tick() });
    expect(counted([...readThenArchived(), aborted, result])).toEqual([]);
  });
});
