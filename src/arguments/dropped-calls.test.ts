import { describe, expect, test } from "bun:test";
import { ToolCallIndexer } from "../archive/indexer.js";
import { captureBatch } from "../capture/batch-capture.js";
import { extractChainRecords } from "../chains/chain-compressor.js";
import { pruneMessages } from "../render/pruner.js";
import { keptArgumentsText } from "./dropped-calls.js";
import type { ChainCompressionEntry } from "../capture/records.js";

const noop = () => {};
const user = (ts: number) => ({ role: "user", content: [{ type: "text", text: "go" }], timestamp: ts });
const call = (ts: number, calls: Array<[id: string, args: unknown]>, name = "bash", stopReason = "toolUse") => ({
  role: "assistant",
  content: calls.map(([id, args]) => ({ type: "toolCall", id, name, arguments: args })),
  stopReason,
  timestamp: ts,
});
const result = (ts: number, id: string, text = "Successfully replaced 1 block(s) in a.ts.", name = "bash") => ({ role: "toolResult", toolCallId: id, toolName: name, content: [{ type: "text", text }], isError: false, timestamp: ts });
const reply = (ts: number) => ({ role: "assistant", content: [{ type: "text", text: "done" }], stopReason: "stop", timestamp: ts });
const chain = (toolRefs: string[]): ChainCompressionEntry => ({ blockId: "b1", startUserTimestamp: 100, droppedToolCallIds: [], finalAssistantTimestamp: 900, toolRefs, compressedAt: 950 });
const chainConfig = { enabled: true, rollingWindow: 0, stripFinalAssistantThinking: false, fuseRangeSummary: false };

/** Archives the call at `at` with the result after it under ref `ref`. */
function archive(indexer: ToolCallIndexer, messages: any[], at: number, ref: string): void {
  const res = messages[at + 1];
  indexer.addBatch(captureBatch(messages[at], [res], 0, 1), noop);
  indexer.registerSummaryRefs([{ shortId: ref, toolCallId: res.toolCallId, resultTimestamp: res.timestamp }]);
}

function blockText(messages: any[], indexer: ToolCallIndexer, toolRefs: string[], check = true): string {
  indexer.registerChain(chain(toolRefs));
  const out = pruneMessages(messages, indexer, chainConfig, undefined, undefined, 0, undefined, undefined, check ? indexer.archiveCheck() : undefined).messages;
  return out.find((m: any) => m.role === "user" && m.content[0].text.startsWith("<compressed-chain")).content[0].text;
}

describe("the calls a chain range drops", () => {
  test("a dedup alias, whose ref gives back the original's arguments, keeps its own in the block", () => {
    const first = { path: "a.ts", edits: [{ oldText: "one", newText: "two" }] };
    const second = { path: "a.ts", edits: [{ oldText: "three", newText: "two" }] };
    const messages = [user(100), call(200, [["e1", first]], "edit"), result(210, "e1"), call(300, [["e2", second]], "edit"), result(310, "e2"), reply(900)];
    const indexer = new ToolCallIndexer();
    archive(indexer, messages, 1, "t1");
    indexer.registerDuplicate("e2@310", "e1@210", noop, { args: second });
    const block = blockText(messages, indexer, ["t1"]);
    expect(block).toContain(`<kept-call tool="edit">\n${JSON.stringify(second)}\n</kept-call>`);
    expect(block).not.toContain(JSON.stringify(first));
  });

  test("an output the archive cannot give back is relocated after its call", () => {
    const messages = [user(100), call(200, [["c1", { command: "ls" }]]), result(210, "c1", "not archived"), reply(900)];
    const block = blockText(messages, new ToolCallIndexer(), []);
    expect(block).toContain('<kept-call tool="bash">\n{"command":"ls"}\n</kept-call>\n\n<protected-output tool="bash">\nnot archived\n</protected-output>');
  });

  test("a turn that stopped with an error is left out, as pi-ai leaves it out of the request", () => {
    const messages = [user(100), call(200, [["c1", { command: "ls" }]], "bash", "error"), call(300, [["c2", { command: "pwd" }]]), result(310, "c2"), reply(900)];
    const indexer = new ToolCallIndexer();
    archive(indexer, messages, 2, "t1");
    expect(blockText(messages, indexer, ["t1"])).not.toContain("<kept-call");
  });

  test("a call the phases stubbed is judged by the arguments it was sent with", () => {
    const content = "x".repeat(400);
    const messages = [user(100), call(200, [["w1", { path: "a.ts", content }]], "write"), result(210, "w1", "ok", "write"), reply(890), user(895), reply(900)];
    const indexer = new ToolCallIndexer();
    archive(indexer, messages, 1, "t1");
    indexer.registerChain(chain(["t1"]));
    const out = pruneMessages(messages, indexer, chainConfig, undefined, undefined, 0, undefined, undefined, indexer.archiveCheck(), true).messages;
    expect(JSON.stringify(out)).not.toContain("<kept-call");
  });

  test("without the archive check (2.9.1's callers) the block is the one 2.9.1 made", () => {
    const messages = [user(100), call(200, [["c1", { command: "ls" }]]), reply(900)];
    expect(blockText(messages, new ToolCallIndexer(), [], false)).not.toContain("<kept-call");
  });

  test("arguments with nothing in them are not kept; those that do not serialize never throw", () => {
    const cycle: any = {};
    cycle.self = cycle;
    expect([{}, null, undefined, cycle, 10n].map(keptArgumentsText)).toEqual([undefined, undefined, undefined, undefined, undefined]);
    expect(keptArgumentsText({ command: "ls" })).toBe('{"command":"ls"}');
  });
});

describe("chain records of two calls sharing an id in one message", () => {
  test("each result is archived with the arguments of the call it answers", () => {
    const messages = [user(100), call(200, [["0", { command: "first" }], ["0", { command: "second" }]]), result(210, "0", "A"), result(211, "0", "B"), reply(900)];
    const records = extractChainRecords(messages, { startUserTimestamp: 100, finalAssistantTimestamp: 900 }, () => false);
    expect(records.map((r) => [r.resultText, r.args.command])).toEqual([
      ["A", "first"],
      ["B", "second"],
    ]);
  });
});
