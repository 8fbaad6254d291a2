import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { ToolCallIndexer } from "../archive/indexer.js";
import { captureBatch } from "../capture/batch-capture.js";
import { argumentMarker } from "./marker.js";
import { bulkyFields } from "./fields.js";
import { copiedMarker, copyGuardNotice, copyGuardReason } from "./copy-guard.js";
import { onToolCall } from "../host/copy-guard-hook.js";

const noop = () => {};

/** A context whose notices are recorded; `throws` makes every notice fail, as a stale context's does. */
function uiCtx(throws = false) {
  const notices: Array<{ message: string; type?: string }> = [];
  const notify = (message: string, type?: string) => {
    if (throws) throw new Error("This extension ctx is stale after session replacement or reload.");
    notices.push({ message, type });
  };
  return { ctx: { ui: { notify } } as any, notices };
}

/** An index holding one archived call under ref `t<n>`, and the markers the render makes for its arguments. */
function archive(name: string, args: Record<string, unknown>, n = 1) {
  const indexer = new ToolCallIndexer();
  const call = { role: "assistant", content: [{ type: "toolCall", id: `c${n}`, name, arguments: args }], timestamp: 1 };
  const res = { role: "toolResult", toolCallId: `c${n}`, toolName: name, content: [{ type: "text", text: "ok" }], isError: false, timestamp: 2 };
  indexer.addBatch(captureBatch(call, [res], 0, 1), noop);
  indexer.registerSummaryRefs([{ shortId: `t${n}`, toolCallId: `c${n}`, resultTimestamp: 2 }]);
  const markers = bulkyFields(name, args).map((f) => argumentMarker(f.label, f.text, `t${n}`, f.digest));
  return { indexer, markers };
}

const body = fc.string({ unit: "grapheme", minLength: 200, maxLength: 600 });
const archivedCall = fc.oneof(
  fc.record({ name: fc.constant("write"), args: fc.record({ path: fc.string({ minLength: 1 }), content: body }) }),
  fc.record({
    name: fc.constant("edit"),
    args: fc.record({ path: fc.string({ minLength: 1 }), edits: fc.array(fc.record({ oldText: body, newText: body }), { minLength: 1, maxLength: 3 }) }),
  }),
);

describe("the copy guard", () => {
  test("every generated marker copied into a write or edit is blocked", () => {
    fc.assert(
      fc.property(archivedCall, fc.nat(), fc.string(), fc.string(), fc.boolean(), fc.integer({ min: 1, max: 99999 }), (call, pick, before, after, asWrite, n) => {
        const { indexer, markers } = archive(call.name, call.args as Record<string, unknown>, n);
        const marker = markers[pick % markers.length]!;
        const text = `${before}${marker}${after}`;
        const sent = asWrite ? { name: "write", args: { path: "x.ts", content: text } } : { name: "edit", args: { path: "x.ts", edits: [{ oldText: "a", newText: text }] } };
        expect(copiedMarker(sent.name, sent.args, indexer)?.text).toBe(marker);
      }),
      { numRuns: 500 },
    );
  });

  test("marker-shaped text that is not a live marker passes", () => {
    fc.assert(
      fc.property(archivedCall, fc.nat(), (call, pick) => {
        const { indexer, markers } = archive(call.name, call.args as Record<string, unknown>);
        const marker = markers[pick % markers.length]!;
        const otherRef = marker.replaceAll("t1", "t7");
        const otherSize = marker.replace(/\((\d+) line/, (_m, n) => `(${Number(n) + 1} line`);
        for (const text of [otherRef, otherSize]) expect(copiedMarker("write", { path: "doc.md", content: text }, indexer)).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });

  test("a marker of another session passes", () => {
    const mine = archive("write", { path: "a.ts", content: `export class Store {}\n${"x".repeat(300)}\n` });
    const other = archive("write", { path: "a.ts", content: `export class Loader {}\n${"y".repeat(300)}\n` });
    expect(copiedMarker("write", { path: "b.ts", content: other.markers[0] }, mine.indexer)).toBeUndefined();
    expect(copiedMarker("write", { path: "b.ts", content: mine.markers[0] }, mine.indexer)?.text).toBe(mine.markers[0]);
  });

  test("a marker in a call of another tool passes: only writes and edits change files", () => {
    const { indexer, markers } = archive("write", { path: "a.ts", content: "x".repeat(300) });
    expect(copiedMarker("bash", { command: markers[0] }, indexer)).toBeUndefined();
  });

  test("the hook blocks with a message naming the ref and the recovery call", () => {
    const { indexer, markers } = archive("write", { path: "a.ts", content: "x".repeat(300) });
    const verdict = onToolCall({ indexer }, { toolName: "write", input: { path: "a.ts", content: markers[0] } }, uiCtx().ctx);
    expect(verdict).toEqual({ block: true, reason: copyGuardReason("write", { text: markers[0]!, field: "content", lines: 1, ref: "t1" }) });
    expect(verdict!.reason).toContain('context_tree_query({ toolCallIds: ["t1"] })');
  });

  test("bad arguments never throw and are not blocked", () => {
    const { indexer } = archive("write", { path: "a.ts", content: "x".repeat(300) });
    const deep: any = {};
    let at = deep;
    for (let i = 0; i < 50; i++) at = at.next = {};
    const { ctx, notices } = uiCtx();
    for (const input of [undefined, null, 42, "text", [1, 2], deep, { content: 5 }]) expect(onToolCall({ indexer }, { toolName: "write", input }, ctx)).toBeUndefined();
    expect(onToolCall({ indexer }, { toolName: undefined, input: {} }, ctx)).toBeUndefined();
    expect(notices).toEqual([]);
  });

  test("a blocked write tells the user in a warning that nothing was written to its path", () => {
    const { indexer, markers } = archive("write", { path: "a.ts", content: "x".repeat(300) });
    const { ctx, notices } = uiCtx();
    onToolCall({ indexer }, { toolName: "write", input: { path: "copy.ts", content: markers[0] } }, ctx);
    expect(notices).toEqual([{ message: copyGuardNotice("write", { path: "copy.ts" }, { text: markers[0]!, field: "content", lines: 1, ref: "t1" }), type: "warning" }]);
    expect(notices[0]!.message).toStartWith("pi-condense blocked the agent's write to copy.ts: nothing was written (the change shown above was not applied).");
  });

  test("a blocked edit is named as an edit of its path, and the notice names the ref, not the agent's recovery call", () => {
    const notice = copyGuardNotice("edit", { path: "src/b.ts", edits: [{ oldText: "a", newText: "m" }] }, { text: "m", field: "content", lines: 1, ref: "t1" });
    expect(notice).toStartWith("pi-condense blocked the agent's edit of src/b.ts: nothing was written");
    expect(notice).toContain("archived as t1");
    expect(notice).not.toContain("context_tree_query");
  });

  test("a call with no path is named by its tool", () => {
    expect(copyGuardNotice("write", { content: "x" }, { text: "m", field: "content", lines: 1, ref: "t2" })).toStartWith("pi-condense blocked the agent's write: nothing was written");
  });

  test("the call is still blocked when the notice cannot be shown", () => {
    const { indexer, markers } = archive("write", { path: "a.ts", content: "x".repeat(300) });
    const verdict = onToolCall({ indexer }, { toolName: "write", input: { path: "a.ts", content: markers[0] } }, uiCtx(true).ctx);
    expect(verdict?.block).toBe(true);
  });
});
