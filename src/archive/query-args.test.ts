import { describe, expect, test } from "bun:test";
import { ToolCallIndexer } from "./indexer.js";
import { registerQueryTool } from "./query-tool.js";

const IDS_NOTE = (at: string) => `[${at} is not usable: pass short refs as strings, e.g. ["t12"]]`;
const LINES_NOTE = '[lines is not usable: pass a range as a string, e.g. "2001-4000", "head:N" or "tail:N"]';
const PATTERN_NOTE = '[pattern is not usable: pass text or a /regex/ as a string, e.g. "error" or "/fail(ed)?/i"]';

function archivedTool() {
  const indexer = new ToolCallIndexer();
  indexer.addBatch(
    { turnIndex: 1, timestamp: 1, assistantText: "", toolCalls: [{ toolCallId: "a", toolName: "bash", args: {}, resultText: "one\ntwo", isError: false, resultTimestamp: 2 }] },
    () => {},
  );
  let tool: any;
  registerQueryTool({ registerTool: (def: any) => (tool = def) } as any, indexer);
  return tool;
}

const run = (params: unknown) => archivedTool().execute("c", params, undefined, undefined, undefined);
const noText = { toString: null };
const throwing = () => {
  throw new Error("hostile");
};

describe("arguments that cannot be made text", () => {
  test("a toolCallIds element with toString null answers a note naming its position", async () => {
    expect(await run({ toolCallIds: ["a", noText] })).toEqual({ content: [{ type: "text", text: IDS_NOTE("toolCallIds[1]") }], details: { results: {} } });
  });

  test("a lines value with toString null answers the lines note", async () => {
    expect(await run({ toolCallIds: ["a"], lines: noText })).toEqual({ content: [{ type: "text", text: LINES_NOTE }], details: { results: {} } });
  });

  test("a pattern value with toString null answers the pattern note", async () => {
    expect(await run({ pattern: noText })).toEqual({ content: [{ type: "text", text: PATTERN_NOTE }], details: { results: {} } });
  });

  test("a toolCallIds value that throws when read answers the toolCallIds note", async () => {
    const params = Object.create(new Proxy({}, { get: throwing }));
    expect((await run(params)).content[0].text).toBe(IDS_NOTE("toolCallIds"));
  });

  test("an array proxy that throws on every read answers the toolCallIds note", async () => {
    const ids = new Proxy(["a"], { get: throwing });
    expect((await run({ toolCallIds: ids })).content[0].text).toBe(IDS_NOTE("toolCallIds"));
  });

  test("a revoked proxy as the arguments answers the toolCallIds note", async () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    expect((await run(proxy)).content[0].text).toBe(IDS_NOTE("toolCallIds"));
  });
});

describe("arguments that can be made text keep their meaning", () => {
  test("null lines and pattern mean absent", async () => {
    expect((await run({ toolCallIds: ["a"], lines: null, pattern: null })).content[0].text).toEndWith("\n\none\ntwo");
  });

  test("a number as lines is read as its digits and answered as a bad range", async () => {
    expect((await run({ toolCallIds: ["a"], lines: 42 })).content[0].text).toContain('[lines "42" is not a line range');
  });

  test("an object as lines is read as its text and answered as a bad range", async () => {
    expect((await run({ toolCallIds: ["a"], lines: {} })).content[0].text).toContain('[lines "[object Object]" is not a line range');
  });

  test("a BigInt id is looked up by its digits", async () => {
    expect((await run({ toolCallIds: [10n] })).content[0].text).toBe("## toolRef: 10\n(not found in index — may not have been summarized yet)");
  });

  test("a Symbol id is looked up by its description text", async () => {
    expect((await run({ toolCallIds: [Symbol("a")] })).content[0].text).toStartWith("## toolRef: Symbol(a)\n");
  });
});
