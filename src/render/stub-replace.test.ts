import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { ToolCallIndexer } from "../archive/indexer.js";
import type { ProtectionConfig } from "../capture/protected.js";
import { replaceSummarizedResults, type StubIndexer } from "./stub-replace.js";
import { QUERY_TOOL_NAME } from "../names.js";
import type { ToolCallRecord } from "../capture/records.js";

const NO_GRACE: ReadonlySet<string> = new Set();

/** Every result is summarized; `spilled` ids get a sidecar record. */
function indexerFor(spilled: ReadonlySet<string> = new Set()): StubIndexer {
  const record = (id: string): ToolCallRecord => ({
    toolCallId: id,
    toolName: "bash",
    args: {},
    resultText: "x",
    isError: false,
    turnIndex: 0,
    timestamp: 1,
    ...(spilled.has(id) ? { spillPath: `/s/${id}-blobs/${id}.txt`, spillBytes: 123, resultPreview: 'head "quoted"\n' } : {}),
  });
  return {
    isSummarized: () => true,
    hasLegacyBareRecord: () => false,
    getRecord: (key) => record(key.split("@")[0]!),
    getShortRefForToolCallId: (key) => `t${key.length}`,
  };
}

const result = (toolCallId: string, extra: Record<string, unknown> = {}) => ({
  role: "toolResult",
  toolCallId,
  toolName: "bash",
  content: [{ type: "text", text: "raw output" }],
  isError: false,
  timestamp: 10,
  ...extra,
});

describe("replaceSummarizedResults", () => {
  test("keeps positions and reports NaN where nothing was stubbed", () => {
    const messages = [{ role: "user", content: "go", timestamp: 1 }, result("a")];
    const { messages: out, stubSizes } = replaceSummarizedResults(messages, indexerFor(), undefined, NO_GRACE);
    expect(out.length).toBe(2);
    expect(out[0]).toBe(messages[0]);
    expect(Number.isNaN(stubSizes![0]!)).toBe(true);
  });

  test("returns the input and no sizes when nothing is summarized", () => {
    const messages = [result("a")];
    const indexer = { ...indexerFor(), isSummarized: () => false };
    const stubbed = replaceSummarizedResults(messages, indexer, undefined, NO_GRACE);
    expect(stubbed.messages).toBe(messages);
    expect(stubbed.stubSizes).toBeNull();
  });

  test("each reported stub size is the stub's exact JSON length, whatever the message carries", () => {
    const oddValue = fc.oneof(fc.string(), fc.double(), fc.constant(undefined), fc.constant(null), fc.object({ maxDepth: 1 }));
    fc.assert(
      fc.property(fc.string(), oddValue, oddValue, fc.boolean(), (id, toolName, timestamp, spill) => {
        const messages = [result(id, { toolName, timestamp })];
        const indexer = indexerFor(spill ? new Set([id]) : new Set());
        const { messages: out, stubSizes } = replaceSummarizedResults(messages, indexer, undefined, NO_GRACE);
        return stubSizes![0] === JSON.stringify(out[0]).length;
      }),
      { numRuns: 1000 },
    );
  });
});

describe("replaceSummarizedResults: decisions reused across renders", () => {
  const noop = () => {};
  const batchOf = (id: string, resultTimestamp: number, toolName = "bash", args: Record<string, unknown> = {}) => ({
    turnIndex: 0,
    timestamp: resultTimestamp,
    assistantText: "",
    toolCalls: [{ toolCallId: id, toolName, args, resultText: `out ${id}`, isError: false, resultTimestamp }],
  });
  const transcript = () => [result("a", { timestamp: 10 }), result("b", { timestamp: 20 })];
  const stubbedIds = (messages: any[]) =>
    messages.filter((m) => m.content[0].text.startsWith("[Summarized")).map((m) => m.toolCallId);
  const render = (indexer: ToolCallIndexer, protection?: ProtectionConfig, grace: ReadonlySet<string> = NO_GRACE) =>
    replaceSummarizedResults(transcript(), indexer, protection, grace).messages;
  const indexed = (...ids: Array<[string, number]>) => {
    const indexer = new ToolCallIndexer();
    ids.forEach(([id, ts], k) => {
      indexer.addBatch(batchOf(id, ts), noop);
      indexer.registerSummaryRefs([{ shortId: `t${k + 1}`, toolCallId: id, resultTimestamp: ts }]);
    });
    return indexer;
  };

  test("a result indexed after a render is stubbed by the next render", () => {
    const indexer = indexed(["a", 10]);
    expect(stubbedIds(render(indexer))).toEqual(["a"]);
    indexer.addBatch(batchOf("b", 20), noop);
    expect(stubbedIds(render(indexer))).toEqual(["a", "b"]);
  });

  test("a ref registered after a render shows in the next render's stub", () => {
    const indexer = new ToolCallIndexer();
    indexer.addBatch(batchOf("a", 10), noop);
    expect(render(indexer)[0].content[0].text).toContain("ref `a`");
    indexer.registerSummaryRefs([{ shortId: "t7", toolCallId: "a", resultTimestamp: 10 }]);
    expect(render(indexer)[0].content[0].text).toContain("ref `t7`");
  });

  test("an edit through the live index map takes effect on the next render", () => {
    const indexer = indexed(["a", 10], ["b", 20]);
    const live = indexer.getIndex();
    expect(stubbedIds(render(indexer))).toEqual(["a", "b"]);
    live.delete("b@20");
    expect(stubbedIds(render(indexer))).toEqual(["a"]);
  });

  test("a dedup alias registered after a render is stubbed by the next render", () => {
    const indexer = indexed(["a", 10]);
    expect(stubbedIds(render(indexer))).toEqual(["a"]);
    indexer.registerDuplicate("b@20", "a@10", noop);
    expect(stubbedIds(render(indexer))).toEqual(["a", "b"]);
  });

  test("an edit to an original's record takes effect on its dedup alias at the next render", () => {
    const indexer = new ToolCallIndexer();
    indexer.addBatch(batchOf("a", 10, "read"), noop);
    indexer.registerDuplicate("b@20", "a@10", noop);
    const protection = { protectedTools: ["read"], protectedPaths: [] as string[] };
    expect(stubbedIds(render(indexer, protection))).toEqual([]);
    indexer.getIndex().delete("a@10");
    expect(stubbedIds(render(indexer, protection))).toEqual(["b"]);
  });

  test("a record added under an id decides that id's legacy results afresh", () => {
    const indexer = new ToolCallIndexer();
    indexer.addBatch(batchOf("a", undefined as unknown as number), noop);
    const legacy = () => stubbedIds(replaceSummarizedResults([result("a", { timestamp: 10 })], indexer, undefined, NO_GRACE).messages);
    expect(legacy()).toEqual(["a"]);
    indexer.addBatch(batchOf("a", 30), noop);
    expect(legacy()).toEqual([]);
  });

  test("protection lists edited in place take effect on the next render", () => {
    const indexer = indexed(["a", 10], ["b", 20]);
    const protection = { protectedTools: [] as string[], protectedPaths: [] as string[] };
    expect(stubbedIds(render(indexer, protection))).toEqual(["a", "b"]);
    protection.protectedTools.push("bash");
    expect(stubbedIds(render(indexer, protection))).toEqual([]);
  });

  test("the grace window is checked on every render, remembered decision or not", () => {
    const indexer = new ToolCallIndexer();
    indexer.addBatch(batchOf("a", 10), noop);
    indexer.addBatch(batchOf("q", 20, QUERY_TOOL_NAME), noop);
    const messages = () => [result("a", { timestamp: 10 }), result("q", { timestamp: 20, toolName: QUERY_TOOL_NAME })];
    const stubbedWith = (grace: ReadonlySet<string>) => stubbedIds(replaceSummarizedResults(messages(), indexer, undefined, grace).messages);
    expect(stubbedWith(NO_GRACE)).toEqual(["a", "q"]);
    expect(stubbedWith(new Set(["q@20"]))).toEqual(["a"]);
  });

  test("the grace window holds back recovery results only", () => {
    const indexer = indexed(["a", 10], ["b", 20]);
    expect(stubbedIds(render(indexer, undefined, new Set(["b@20"])))).toEqual(["a", "b"]);
  });

  test("a different occurrence at a remembered position is decided afresh", () => {
    const indexer = indexed(["a", 10]);
    replaceSummarizedResults([result("a", { timestamp: 10 })], indexer, undefined, NO_GRACE);
    const out = replaceSummarizedResults([result("a", { timestamp: 11 })], indexer, undefined, NO_GRACE);
    expect(out.stubSizes).toBeNull();
  });

  test("an index that does not count its changes is asked on every render", () => {
    let asked = 0;
    const duck = { ...indexerFor(), isSummarized: () => (asked++, true) };
    replaceSummarizedResults(transcript(), duck, undefined, NO_GRACE);
    replaceSummarizedResults(transcript(), duck, undefined, NO_GRACE);
    expect(asked).toBe(4);
  });
});

describe("replaceSummarizedResults: remembered decisions never differ from fresh ones", () => {
  // Ids that look like a short ref or like an occurrence key, and results without a timestamp (legacy keys).
  const IDS = ["a", "c", "t1", "a@10"];
  const TIMES = [10, 20, undefined];
  const occurrence = fc.tuple(fc.constantFrom(...IDS), fc.constantFrom(...TIMES));
  const op = fc.oneof(
    fc.record({ kind: fc.constant("index" as const), at: occurrence }),
    fc.record({ kind: fc.constant("ref" as const), at: occurrence, n: fc.nat(9) }),
    fc.record({ kind: fc.constant("alias" as const), at: occurrence, to: occurrence }),
    fc.record({ kind: fc.constant("delete" as const), at: occurrence }),
    fc.record({ kind: fc.constant("replace" as const), at: occurrence, as: occurrence }),
    fc.record({ kind: fc.constant("rebuild" as const) }),
    // Mostly the session's own transcript again, as pi sends it on every request; sometimes another one.
    { arbitrary: fc.record({ kind: fc.constant("render" as const), results: fc.constant(null), protect: fc.boolean() }), weight: 5 },
    fc.record({ kind: fc.constant("render" as const), results: fc.array(occurrence, { maxLength: 4 }), protect: fc.boolean() }),
  );
  const keyOf = ([id, ts]: [string, number | undefined]) => (ts === undefined ? id : `${id}@${ts}`);
  const recordOf = ([id, ts]: [string, number | undefined], toolName = "bash"): ToolCallRecord => ({
    toolCallId: id,
    toolName,
    args: {},
    resultText: "x",
    isError: false,
    turnIndex: 0,
    timestamp: 1,
    ...(ts === undefined ? {} : { resultTimestamp: ts }),
  });

  test("a memoized index and an unmemoized view of it render identically", () => {
    fc.assert(
      fc.property(fc.array(occurrence, { minLength: 1, maxLength: 4 }), fc.array(op, { maxLength: 16 }), (session, ops) => {
        const indexer = new ToolCallIndexer();
        // A proxy is a different object: the change log is not found for it, so nothing is remembered.
        const fresh = new Proxy(indexer, {});
        const noop = () => {};
        for (const o of ops) {
          if (o.kind === "index") {
            const [id, ts] = o.at;
            indexer.addBatch({ turnIndex: 0, timestamp: 1, assistantText: "", toolCalls: [{ ...recordOf(o.at, id === "c" ? "read" : "bash"), resultTimestamp: ts }] }, noop);
          } else if (o.kind === "ref") indexer.registerSummaryRefs([{ shortId: `t${o.n}`, toolCallId: o.at[0], resultTimestamp: o.at[1] }]);
          else if (o.kind === "alias") indexer.registerDuplicate(keyOf(o.at), keyOf(o.to), noop);
          else if (o.kind === "delete") indexer.getIndex().delete(keyOf(o.at));
          // Another record under a live key, as a holder of the live map may set one.
          else if (o.kind === "replace") indexer.getIndex().set(keyOf(o.at), recordOf(o.as, "read"));
          else if (o.kind === "rebuild") indexer.reconstructFromSession({ sessionManager: { getBranch: () => [] } } as any);
          else {
            const messages = (o.results ?? session).map(([id, ts]) => result(id, { timestamp: ts }));
            const protection = { protectedTools: o.protect ? ["read"] : [], protectedPaths: [] };
            const memoized = replaceSummarizedResults(messages, indexer, protection, NO_GRACE);
            const reference = replaceSummarizedResults(messages, fresh, protection, NO_GRACE);
            expect(memoized.messages).toEqual(reference.messages);
            // Typed arrays holding NaN do not compare equal with toEqual; compare as plain arrays.
            expect(Array.from(memoized.stubSizes ?? [])).toEqual(Array.from(reference.stubSizes ?? []));
          }
        }
      }),
      // Stale-memo bugs need a specific op order (index, render, change, render): search widely.
      { numRuns: 5000 },
    );
  });
});
