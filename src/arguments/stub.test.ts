import { describe, expect, test } from "bun:test";
import { ToolCallIndexer } from "../archive/indexer.js";
import { captureBatch } from "../capture/batch-capture.js";
import { argumentMarker, editDigest, markerCandidates } from "./marker.js";
import { copiedMarker } from "./copy-guard.js";
import { pruneMessages } from "../render/pruner.js";
import { callsDoneWith } from "./stub.js";

const noop = () => {};
const lines = (n: number, word: string) => Array.from({ length: n }, (_, i) => `  const ${word}${i} = compute(${i}); // some padding`).join("\n") + "\n";
const OLD = `function parseOld() {\n${lines(8, "a")}}\n`;
const NEW = `function parseNew() {\n${lines(10, "b")}}\n`;

let clock = 100;
const user = (text = "go") => ({ role: "user", content: text, timestamp: clock++ });
const call = (id: string, name: string, args: unknown, stopReason = "toolUse") => ({
  role: "assistant",
  content: [{ type: "toolCall", id, name, arguments: args }],
  stopReason,
  timestamp: clock++,
});
const result = (id: string, name: string, text = "ok", isError = false) => ({
  role: "toolResult",
  toolCallId: id,
  toolName: name,
  content: [{ type: "text", text }],
  isError,
  timestamp: clock++,
});
const reply = () => ({ role: "assistant", content: [{ type: "text", text: "done" }], stopReason: "stop", timestamp: clock++ });

/** A transcript of calls and an index that archived the outputs of those named in `archive`, with refs t1, t2, ... */
function session(messages: any[], archive: string[]) {
  const indexer = new ToolCallIndexer();
  let ref = 1;
  for (let i = 0; i < messages.length; i++) {
    const msg = messages[i];
    if (msg.role !== "assistant" || msg.content[0]?.type !== "toolCall") continue;
    const id = msg.content[0].id;
    if (!archive.includes(id)) continue;
    const res = messages[i + 1];
    indexer.addBatch(captureBatch(msg, [res], 0, msg.timestamp), noop);
    indexer.registerSummaryRefs([{ shortId: `t${ref++}`, toolCallId: id, resultTimestamp: res.timestamp }]);
  }
  return { messages, indexer };
}

const render = (messages: any[], indexer: ToolCallIndexer, on = true) =>
  pruneMessages(messages, indexer, undefined, undefined, undefined, 0, undefined, undefined, indexer.archiveCheck(), on).messages;
const renderAt = (messages: any[], indexer: ToolCallIndexer, horizon: number) =>
  pruneMessages(messages, indexer, undefined, undefined, undefined, 0, undefined, undefined, indexer.archiveCheck(), true, horizon).messages;
const argsAt = (messages: any[], i: number) => messages[i].content[0].arguments;
const editArgs = (path = "src/a.ts") => ({ path, edits: [{ oldText: OLD, newText: NEW }] });

describe("argument stubs (render phase 1c)", () => {
  test("a finished edit's old and new text become markers naming the ref once the next prompt came", () => {
    const { messages, indexer } = session([user(), call("e1", "edit", editArgs()), result("e1", "edit", "Successfully replaced text"), reply(), user()], ["e1"]);
    const args = argsAt(render(messages, indexer), 1);
    expect(Object.keys(args)).toEqual(["path", "edits"]);
    expect(args.path).toBe("src/a.ts");
    expect(args.edits).toHaveLength(1);
    expect(args.edits[0].oldText).toBe("⟦pi-condense: edits[0].oldText archived (10 lines) as t1⟧");
    expect(args.edits[0].newText).toBe(
      "⟦pi-condense: edits[0].newText archived (12 lines) as t1, -10 +12 lines, touches parseOld parseNew⟧",
    );
  });

  test("the stubbed call keeps the tool name, the id and every value's type", () => {
    const { messages, indexer } = session([user(), call("e1", "edit", editArgs()), result("e1", "edit"), reply(), user()], ["e1"]);
    const block = render(messages, indexer)[1].content[0];
    expect(block.name).toBe("edit");
    expect(block.id).toBe("e1");
    expect(typeof block.arguments.edits[0].oldText).toBe("string");
  });

  test("a write's content becomes a marker with the names it declares", () => {
    const content = `export class Store {\n${lines(20, "c")}}\n`;
    const { messages, indexer } = session([user(), call("w1", "write", { path: "s.ts", content }), result("w1", "write"), reply(), user()], ["w1"]);
    expect(argsAt(render(messages, indexer), 1)).toEqual({
      path: "s.ts",
      content: "⟦pi-condense: content archived (22 lines) as t1, declares Store⟧",
    });
  });

  test("the input is never mutated and untouched messages are carried by reference", () => {
    const { messages, indexer } = session([user(), call("e1", "edit", editArgs()), result("e1", "edit"), reply(), user()], ["e1"]);
    const before = structuredClone(messages);
    const out = render(messages, indexer);
    expect(messages).toEqual(before);
    expect(out[0]).toBe(messages[0]);
    expect(out[3]).toBe(messages[3]);
  });

  test("rendering the same transcript twice, or a copy of it, gives the same request", () => {
    const { messages, indexer } = session([user(), call("e1", "edit", editArgs()), result("e1", "edit"), reply(), user()], ["e1"]);
    expect(render(structuredClone(messages), indexer)).toEqual(render(messages, indexer));
  });

  test("with the setting off the arguments are sent as written", () => {
    const { messages, indexer } = session([user(), call("e1", "edit", editArgs()), result("e1", "edit"), reply(), user()], ["e1"]);
    expect(argsAt(render(messages, indexer, false), 1)).toBe(messages[1].content[0].arguments);
  });

  test("an edit whose output is not archived keeps its arguments", () => {
    const { messages, indexer } = session([user(), call("e1", "edit", editArgs()), result("e1", "edit"), reply(), user()], []);
    expect(render(messages, indexer)).toBe(messages);
  });

  test("a failed edit keeps its arguments: the error purge owns it", () => {
    const { messages, indexer } = session([user(), call("e1", "edit", editArgs()), result("e1", "edit", "no match", true), reply(), user()], ["e1"]);
    expect(argsAt(render(messages, indexer), 1)).toBe(messages[1].content[0].arguments);
  });

  test("within the running prompt an edit stays raw until its file is touched again", () => {
    const { messages, indexer } = session(
      [user(), call("e1", "edit", editArgs()), result("e1", "edit"), call("r1", "read", { path: "b.ts" }), result("r1", "read"), call("r2", "read", { path: "c.ts" }), result("r2", "read")],
      ["e1"],
    );
    expect(argsAt(render(messages, indexer), 1)).toBe(messages[1].content[0].arguments);
  });

  test("within the running prompt an edit whose file was read again, two tool turns back, is stubbed", () => {
    const { messages, indexer } = session(
      [user(), call("e1", "edit", editArgs()), result("e1", "edit"), call("r1", "read", { path: "./src/a.ts" }), result("r1", "read"), call("r2", "read", { path: "c.ts" }), result("r2", "read")],
      ["e1"],
    );
    expect(markerCandidates(argsAt(render(messages, indexer), 1).edits[0].newText)).toHaveLength(1);
  });

  test("an edit within the running prompt's last two tool turns stays raw even if its file was touched again", () => {
    const { messages, indexer } = session([user(), call("e1", "edit", editArgs()), result("e1", "edit"), call("r1", "read", { path: "src/a.ts" }), result("r1", "read")], ["e1"]);
    expect(argsAt(render(messages, indexer), 1)).toBe(messages[1].content[0].arguments);
  });

  test("within the running prompt a read of the file after the last archive write does not stub the edit yet", () => {
    const { messages, indexer } = session(
      [user(), call("e1", "edit", editArgs()), result("e1", "edit"), call("r1", "read", { path: "./src/a.ts" }), result("r1", "read"), call("r2", "read", { path: "c.ts" }), result("r2", "read")],
      ["e1"],
    );
    const horizon = messages[2].timestamp;
    expect(argsAt(renderAt(messages, indexer, horizon), 1)).toBe(messages[1].content[0].arguments);
  });

  test("the same edit is stubbed once an archive write has seen the read and the turns after it", () => {
    const { messages, indexer } = session(
      [user(), call("e1", "edit", editArgs()), result("e1", "edit"), call("r1", "read", { path: "./src/a.ts" }), result("r1", "read"), call("r2", "read", { path: "c.ts" }), result("r2", "read")],
      ["e1"],
    );
    const horizon = messages[6].timestamp;
    expect(markerCandidates(argsAt(renderAt(messages, indexer, horizon), 1).edits[0].newText)).toHaveLength(1);
  });

  test("a user prompt ends the prompt before it whatever the horizon", () => {
    const { messages, indexer } = session([user(), call("e1", "edit", editArgs()), result("e1", "edit"), reply(), user()], ["e1"]);
    expect(markerCandidates(argsAt(renderAt(messages, indexer, messages[2].timestamp), 1).edits[0].newText)).toHaveLength(1);
  });

  test("another tool's large string is stubbed once the prompt ended, its short strings kept", () => {
    const query = "SELECT ".padEnd(2500, "x");
    const { messages, indexer } = session([user(), call("q1", "sql", { db: "main", query }), result("q1", "sql"), reply(), user()], ["q1"]);
    const args = argsAt(render(messages, indexer), 1);
    expect(args.db).toBe("main");
    expect(args.query).toBe("⟦pi-condense: query archived (1 line) as t1⟧");
  });

  test("another tool's string under 2,000 characters stays raw", () => {
    const { messages, indexer } = session([user(), call("q1", "sql", { query: "x".repeat(1999) }), result("q1", "sql"), reply(), user()], ["q1"]);
    expect(render(messages, indexer)[1]).toBe(messages[1]);
  });

  test("a tool named edit with another argument shape is treated as any other tool", () => {
    const args = { file: "a.ts", patch: "p".repeat(500) };
    const { messages, indexer } = session([user(), call("e1", "edit", args), result("e1", "edit"), reply(), user()], ["e1"]);
    expect(argsAt(render(messages, indexer), 1)).toBe(args);
  });

  test("a field whose archived text differs from the one sent stays raw", () => {
    const { messages, indexer } = session([user(), call("e1", "edit", editArgs()), result("e1", "edit"), reply(), user()], ["e1"]);
    indexer.getIndex().get(`e1@${messages[2].timestamp}`)!.args = { path: "src/a.ts", edits: [{ oldText: OLD, newText: "changed" }] };
    const args = argsAt(render(messages, indexer), 1);
    expect(args.edits[0].newText).toBe(NEW);
    expect(markerCandidates(args.edits[0].oldText)).toHaveLength(1);
  });
});

/**
 * pi answers every successful edit of a file with the same text, so a later edit of the file is archived as a
 * dedup alias of the first: its ref resolves to the first edit's record. `e1` is archived as t1, `e2` (same
 * path, same new text, another old text) is its alias.
 */
describe("argument stubs of a dedup alias of an edit", () => {
  const OLD2 = `function parseTwo() {\n${lines(3, "z")}}\n`;
  const done = "Successfully replaced 1 block(s) in src/a.ts.";

  function aliased(second: Record<string, unknown>, withOriginal: boolean) {
    const first = [call("e1", "edit", editArgs()), result("e1", "edit", done), reply(), user()];
    const later = [call("e2", "edit", second), result("e2", "edit", done), reply(), user()];
    const { indexer } = session([user(), ...first], ["e1"]);
    const key = (msg: any) => `${msg.toolCallId}@${msg.timestamp}`;
    indexer.registerDuplicate(key(later[1]), key(first[1]), noop, { args: second });
    return { indexer, messages: withOriginal ? [user(), ...first, ...later] : [user(), ...later] };
  }
  const markersIn = (messages: any[]) =>
    messages.flatMap((m) => (m.role === "assistant" ? m.content : [])).flatMap((b: any) => (b.type === "toolCall" ? JSON.stringify(b.arguments).match(/⟦pi-condense:[^⟧]*⟧/g) ?? [] : []));
  const argsOf = (out: any[], id: string) => out.find((m) => m.role === "assistant" && m.content[0]?.id === id).content[0].arguments;
  const aliasArgs = (out: any[]) => argsOf(out, "e2");

  test("every marker the render makes is one the copy guard blocks, with the original out of view", () => {
    const { indexer, messages } = aliased({ path: "src/a.ts", edits: [{ oldText: OLD2, newText: NEW }] }, false);
    for (const marker of markersIn(render(messages, indexer))) expect(copiedMarker("write", { path: "b.ts", content: marker }, indexer)?.text).toBe(marker);
  });

  test("the alias's new text is sent as written: the marker its ref makes describes the first edit", () => {
    const { indexer, messages } = aliased({ path: "src/a.ts", edits: [{ oldText: OLD2, newText: NEW }] }, false);
    expect(aliasArgs(render(messages, indexer)).edits[0].newText).toBe(NEW);
  });

  test("with the first edit stubbed in the same render, the alias is never shown the first edit's marker", () => {
    const { indexer, messages } = aliased({ path: "src/a.ts", edits: [{ oldText: OLD2, newText: NEW }] }, true);
    const out = render(messages, indexer);
    expect(markerCandidates(argsOf(out, "e1").edits[0].newText)).toHaveLength(1);
    const shown = aliasArgs(out).edits[0].newText;
    const truthful = argumentMarker("edits[0].newText", NEW, "t1", editDigest(OLD2, NEW));
    expect([NEW, truthful]).toContain(shown);
  });

  test("an alias repeating the very same edit is stubbed under the first edit's ref, and its markers are blocked", () => {
    const { indexer, messages } = aliased(editArgs(), false);
    const markers = markersIn(render(messages, indexer));
    expect(markers.map((m) => markerCandidates(m)[0]!.ref)).toEqual(["t1", "t1"]);
    for (const marker of markers) expect(copiedMarker("edit", { path: "b.ts", edits: [{ oldText: "x", newText: marker }] }, indexer)?.text).toBe(marker);
  });
});

describe("argument stubs on bad input", () => {
  const bad: Array<[string, unknown]> = [
    ["arguments that are a string", "just text".repeat(400)],
    ["arguments that are an array", [OLD, NEW]],
    ["arguments that are null", null],
    ["an edits list holding a non-object", { path: "a.ts", edits: [OLD] }],
    ["an edit whose texts are numbers", { path: "a.ts", edits: [{ oldText: 1, newText: 2 }] }],
    ["an edit without a path", { edits: [{ oldText: OLD, newText: NEW }] }],
  ];
  for (const [name, args] of bad) {
    test(`${name}: no throw, the call stays raw`, () => {
      const { messages, indexer } = session([user(), call("e1", "edit", args), result("e1", "edit"), reply(), user()], ["e1"]);
      expect(render(messages, indexer)[1]).toBe(messages[1]);
    });
  }

  test("a 10 MB write is stubbed, and its marker counts its lines", () => {
    const content = "line of text\n".repeat(800_000);
    const { messages, indexer } = session([user(), call("w1", "write", { path: "big.txt", content }), result("w1", "write"), reply(), user()], ["w1"]);
    expect(argsAt(render(messages, indexer), 1).content).toBe("⟦pi-condense: content archived (800000 lines) as t1⟧");
  });

  test("a write whose content already holds marker text is stubbed like any other, and recoverable whole", () => {
    const content = `docs about ⟦pi-condense: content archived (3 lines) as t9⟧\n${lines(10, "d")}`;
    const { messages, indexer } = session([user(), call("w1", "write", { path: "doc.md", content }), result("w1", "write"), reply(), user()], ["w1"]);
    const marker = argsAt(render(messages, indexer), 1).content;
    expect(markerCandidates(marker)[0]!.ref).toBe("t1");
    expect(indexer.getRecord("t1")!.args.content).toBe(content);
  });

  test("a unicode path is kept as written and matched for a later touch", () => {
    const path = "docs/日本語/ファイル.md";
    const { messages, indexer } = session(
      [user(), call("e1", "edit", editArgs(path)), result("e1", "edit"), call("r1", "read", { path }), result("r1", "read"), call("r2", "read", { path: "x" }), result("r2", "read")],
      ["e1"],
    );
    const args = argsAt(render(messages, indexer), 1);
    expect(args.path).toBe(path);
    expect(markerCandidates(args.edits[0].oldText)).toHaveLength(1);
  });
});

describe("callsDoneWith (the cost policy's view)", () => {
  test("names the calls the render would stub arguments of, were their outputs archived", () => {
    const messages = [
      user(),
      call("e1", "edit", editArgs()),
      result("e1", "edit"),
      call("r1", "read", { path: "src/a.ts" }),
      result("r1", "read"),
      call("r2", "read", { path: "c.ts" }),
      result("r2", "read"),
      call("e2", "edit", editArgs("b.ts")),
      result("e2", "edit"),
    ];
    expect([...callsDoneWith(messages)]).toEqual(["e1"]);
  });
});
