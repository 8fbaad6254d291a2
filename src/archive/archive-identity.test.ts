import { afterAll, describe, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { dedupBatches } from "../summarize/flush-batches.js";
import { ToolCallIndexer } from "./indexer.js";
import { pruneMessages } from "../render/pruner.js";
import { spillOversizedBatch } from "../capture/spill.js";
import { CUSTOM_TYPE_DEDUP_ALIAS, CUSTOM_TYPE_INDEX } from "../names.js";
import type { CapturedBatch, CapturedToolCall } from "../capture/records.js";

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));
const tempDir = async () => {
  const dir = await mkdtemp(join(tmpdir(), "archive-identity-"));
  dirs.push(dir);
  return dir;
};

const callOf = (id: string, ts: number, text: string, args: Record<string, unknown> = { command: id }): CapturedToolCall => ({
  toolCallId: id,
  toolName: "bash",
  args,
  resultText: text,
  isError: false,
  resultTimestamp: ts,
});
const batchOf = (...toolCalls: CapturedToolCall[]): CapturedBatch => ({ turnIndex: 0, timestamp: 1, assistantText: "", toolCalls });
const entriesOf = (appended: Array<{ customType: string; data: unknown }>) => appended.map((e) => ({ type: "custom", ...e }));
const rebuild = (branch: any[]) => {
  const indexer = new ToolCallIndexer();
  indexer.reconstructFromSession({ sessionManager: { getBranch: () => branch } } as any);
  return indexer;
};
const stateWith = (indexer: ToolCallIndexer) => ({ indexer, config: { value: { dedupByContentHash: true } } }) as any;

async function spill(indexer: ToolCallIndexer, dir: string, call: CapturedToolCall, appended: any[]) {
  await spillOversizedBatch({
    batch: batchOf(call),
    indexer,
    config: { spillThreshold: 100, spillPreviewBytes: 32, dedupByContentHash: true },
    sessionDir: dir,
    sessionId: "sid",
    appendEntry: (customType, data) => void appended.push({ customType, data }),
  });
}

describe("an eagerly spilled output has a ref of its own", () => {
  test("the stub names a short ref, not the provider's reusable id", async () => {
    const dir = await tempDir();
    const indexer = new ToolCallIndexer();
    await spill(indexer, dir, callOf("bash_1", 500, "x".repeat(300)), []);
    const rendered = pruneMessages(
      [
        { role: "assistant", content: [{ type: "toolCall", id: "bash_1", name: "bash", arguments: {} }], timestamp: 400 },
        { role: "toolResult", toolCallId: "bash_1", toolName: "bash", content: [{ type: "text", text: "x".repeat(300) }], timestamp: 500 },
      ],
      indexer,
    );
    expect(rendered.messages[1].content[0].text).toContain("ref `t1`");
  });

  test("with a reused id the ref resolves to its own occurrence only, also after a reload", async () => {
    const dir = await tempDir();
    const indexer = new ToolCallIndexer();
    const appended: any[] = [];
    await spill(indexer, dir, callOf("bash_1", 500, `first ${"a".repeat(300)}`), appended);
    await spill(indexer, dir, callOf("bash_1", 900, `second ${"b".repeat(300)}`), appended);
    const rebuilt = rebuild(entriesOf(appended));
    for (const idx of [indexer, rebuilt]) {
      expect(idx.getRecordsForId("t1").map((r) => r.resultTimestamp)).toEqual([500]);
      expect(idx.getRecordsForId("t2").map((r) => r.resultTimestamp)).toEqual([900]);
    }
    expect(appended.every((e) => e.customType === CUSTOM_TYPE_INDEX && Array.isArray(e.data.refs))).toBe(true);
  });
});

describe("dedup aliases only exact copies", () => {
  const indexed = (text: string) => {
    const indexer = new ToolCallIndexer();
    indexer.addBatch(batchOf(callOf("orig", 100, text)), () => {});
    return indexer;
  };

  test("an output that differs only in line endings is not aliased", () => {
    const indexer = indexed("line one\nline two\n");
    const [result] = dedupBatches([batchOf(callOf("crlf", 200, "line one\r\nline two\r\n"))], stateWith(indexer), () => {});
    expect(result!.deduped).toEqual([]);
    expect(indexer.isSummarized("crlf@200")).toBe(false);
  });

  test("a byte-identical output is aliased and recovers verbatim", () => {
    const indexer = indexed("same\n");
    const [result] = dedupBatches([batchOf(callOf("copy", 200, "same\n"))], stateWith(indexer), () => {});
    expect(result!.deduped.map((c) => c.toolCallId)).toEqual(["copy"]);
    expect(indexer.getRecordsForId("copy")[0]!.resultText).toBe("same\n");
  });

  test("a spilled original whose sidecar differs in trailing blanks is not aliased by the eager spill", async () => {
    const dir = await tempDir();
    const indexer = new ToolCallIndexer();
    const appended: any[] = [];
    await spill(indexer, dir, callOf("one", 500, `${"z".repeat(300)}\n`), appended);
    await spill(indexer, dir, callOf("two", 900, `${"z".repeat(300)}   \n`), appended);
    expect(appended.filter((e) => e.customType === CUSTOM_TYPE_DEDUP_ALIAS)).toEqual([]);
    expect(indexer.getRecord("two@900")?.spillPath).toContain("two_900");
  });

  test("an alias shows its own call's arguments, live and after a reload", () => {
    const indexer = indexed("listing\n");
    const appended: any[] = [];
    const copy = callOf("again", 200, "listing\n", { command: "ls -la" });
    dedupBatches([batchOf(copy)], stateWith(indexer), (customType, data) => void appended.push({ customType, data }));
    expect(indexer.getRecordsForId("again")[0]!.args).toEqual({ command: "ls -la" });
    expect(appended[0]!.data.args).toEqual({ command: "ls -la" });
    const rebuilt = rebuild([
      { type: "custom", customType: CUSTOM_TYPE_INDEX, data: { toolCalls: [indexer.getRecord("orig@100")] } },
      ...entriesOf(appended),
    ]);
    expect(rebuilt.getRecordsForId("again")[0]).toMatchObject({ toolCallId: "again", args: { command: "ls -la" }, resultText: "listing\n" });
  });

  test("an alias with the original's arguments persists none", () => {
    const indexer = indexed("listing\n");
    const appended: any[] = [];
    dedupBatches([batchOf(callOf("again", 200, "listing\n", { command: "orig" }))], stateWith(indexer), (customType, data) =>
      void appended.push({ customType, data }),
    );
    expect("args" in appended[0]!.data).toBe(false);
  });
});

describe("a ref survives the reload it was shown before", () => {
  test("a key aliased first and backfilled later keeps its own ref after a rebuild", async () => {
    const indexer = new ToolCallIndexer();
    const appended: any[] = [];
    const append = (customType: string, data?: unknown) => void appended.push({ customType, data });
    const original = batchOf(callOf("orig", 100, "same"));
    const refs = indexer.allocateSummaryRefs(original);
    indexer.registerSummaryRefs(refs);
    indexer.addBatch(original, append, refs);
    indexer.registerDuplicate("dup@200", "orig@100", append);
    expect(indexer.getShortRefForToolCallId("dup@200")).toBe("t1");
    await indexer.backfillChainRecords(
      [{ toolCallId: "dup", toolName: "bash", args: {}, resultText: "same", isError: false, turnIndex: -1, timestamp: 200, resultTimestamp: 200 }],
      { spillThreshold: 65536, spillPreviewBytes: 10, sessionDir: "", sessionId: "s", appendEntry: append },
    );
    expect(indexer.getShortRefForToolCallId("dup@200")).toBe("t2");
    expect(rebuild(entriesOf(appended)).getShortRefForToolCallId("dup@200")).toBe("t2");
  });
});

describe("two results under one occurrence key", () => {
  const turn = (ts: number, resultTs: number, text: string) => [
    { role: "assistant", content: [{ type: "toolCall", id: "bash_1", name: "bash", arguments: {} }], timestamp: ts },
    { role: "toolResult", toolCallId: "bash_1", toolName: "bash", content: [{ type: "text", text }], isError: false, timestamp: resultTs },
  ];

  test("are never stubbed, since the archive holds only one of them", () => {
    const indexer = new ToolCallIndexer();
    indexer.addBatch(batchOf(callOf("bash_1", 777, "first")), () => {});
    const messages = [...turn(100, 777, "first"), ...turn(200, 777, "second")];
    const rendered = pruneMessages(messages, indexer);
    expect(rendered.pruned).toBe(false);
    expect(rendered.messages).toBe(messages);
  });

  test("leave the other stubs of the render alone", () => {
    const indexer = new ToolCallIndexer();
    indexer.addBatch(batchOf(callOf("bash_1", 777, "first"), callOf("other", 50, "out")), () => {});
    const other = [
      { role: "assistant", content: [{ type: "toolCall", id: "other", name: "bash", arguments: {} }], timestamp: 40 },
      { role: "toolResult", toolCallId: "other", toolName: "bash", content: [{ type: "text", text: "out" }], isError: false, timestamp: 50 },
    ];
    const rendered = pruneMessages([...other, ...turn(100, 777, "first"), ...turn(200, 777, "second")], indexer);
    expect(rendered.messages[1].content[0].text).toContain("context_tree_query");
    expect(rendered.messages[3].content[0].text).toBe("first");
    expect(rendered.messages[5].content[0].text).toBe("second");
  });
});

describe("the first output archived under a key stays recoverable", () => {
  test("a later record under the same occurrence key does not replace it, live or on reload", () => {
    const indexer = new ToolCallIndexer();
    const appended: any[] = [];
    const append = (customType: string, data?: unknown) => void appended.push({ customType, data });
    indexer.addBatch(batchOf(callOf("c1", 2011, "first output")), append);
    indexer.addBatch(batchOf(callOf("c1", 2011, "second output")), append);
    expect(indexer.getRecord("c1@2011")?.resultText).toBe("first output");
    expect(rebuild(entriesOf(appended)).getRecord("c1@2011")?.resultText).toBe("first output");
  });

  test("an eager spill never writes a sidecar under a key that already names an archived output", async () => {
    const dir = await tempDir();
    const indexer = new ToolCallIndexer();
    const appended: any[] = [];
    await spill(indexer, dir, callOf("c1", 2011, `early ${"e".repeat(300)}`), appended);
    await spill(indexer, dir, callOf("c1", 2011, `late ${"l".repeat(300)}`), appended);
    expect(appended).toHaveLength(1);
    const answer = indexer.getRecord("c1@2011")!;
    expect((await import("node:fs")).readFileSync(answer.spillPath!, "utf8")).toBe(`early ${"e".repeat(300)}`);
  });
});

describe("the shared-key guard over any order of timestamps", () => {
  test("a result is stubbed exactly when it is summarized and no other result carries its key", async () => {
    const fc = (await import("fast-check")).default;
    const { occKey } = await import("../capture/occurrence-key.js");
    const resultArb = fc.record({ id: fc.constantFrom("a", "b", "c"), ts: fc.option(fc.constantFrom(10, 20, 30), { nil: undefined }), summarized: fc.boolean() });
    fc.assert(
      fc.property(fc.array(resultArb, { maxLength: 12 }), (results) => {
        const summarized = new Set(results.filter((r) => r.summarized).map((r) => occKey(r.id, r.ts)));
        const indexer = {
          isSummarized: (key: string) => summarized.has(key),
          hasLegacyBareRecord: () => false,
          getRecord: () => undefined,
          getShortRefForToolCallId: () => "t1",
        } as any;
        const messages = results.flatMap((r) => [
          { role: "assistant", content: [{ type: "toolCall", id: r.id, name: "bash", arguments: {} }] },
          { role: "toolResult", toolCallId: r.id, toolName: "bash", content: [{ type: "text", text: "raw" }], timestamp: r.ts },
        ]);
        const rendered = pruneMessages(messages, indexer).messages;
        const counts = new Map<string, number>();
        for (const r of results) counts.set(occKey(r.id, r.ts), (counts.get(occKey(r.id, r.ts)) ?? 0) + 1);
        results.forEach((r, k) => {
          const key = occKey(r.id, r.ts);
          const stubbed = rendered[2 * k + 1].content[0].text !== "raw";
          expect(stubbed).toBe(summarized.has(key) && counts.get(key) === 1);
        });
      }),
      { numRuns: 2000 },
    );
  });
});
