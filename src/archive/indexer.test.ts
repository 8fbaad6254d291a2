import { afterAll, describe, expect, spyOn, test } from "bun:test";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hashToolResult } from "../capture/content-hash.js";
import { ToolCallIndexer } from "./indexer.js";
import { occKey } from "../capture/occurrence-key.js";
import { pruneMessages } from "../render/pruner.js";
import { CUSTOM_TYPE_CHAIN, CUSTOM_TYPE_DEDUP_ALIAS, CUSTOM_TYPE_INDEX, CUSTOM_TYPE_SUMMARY } from "../names.js";
import type { CapturedBatch, ChainCompressionEntry, ToolCallRecord } from "../capture/records.js";

type Appended = { customType: string; data: any };
const collector = () => {
  const entries: Appended[] = [];
  return { entries, append: (customType: string, data?: unknown) => void entries.push({ customType, data }) };
};
const noop = () => {};
const batchOf = (id: string, resultTimestamp: number | undefined, text: string, extra: Partial<CapturedBatch> = {}): CapturedBatch => ({
  turnIndex: 1,
  timestamp: 1000,
  assistantText: "",
  toolCalls: [
    {
      toolCallId: id,
      toolName: "bash",
      args: { cmd: "ls" },
      resultText: text,
      isError: false,
      ...(resultTimestamp === undefined ? {} : { resultTimestamp }),
    },
  ],
  ...extra,
});
const ctxOf = (branch: any[]) => ({ sessionManager: { getBranch: () => branch } }) as any;
const custom = (customType: string, data: unknown) => ({ type: "custom", customType, data });
const summary = (refs: unknown[], content = "summary body") => ({
  type: "custom_message",
  customType: CUSTOM_TYPE_SUMMARY,
  content,
  display: false,
  details: { toolCallRefs: refs, toolNames: [], turnIndex: 0, timestamp: 0 },
});
const record = (id: string, resultTimestamp: number | undefined, text: string, extra: Partial<ToolCallRecord> = {}): ToolCallRecord => ({
  toolCallId: id,
  toolName: "bash",
  args: { cmd: "ls" },
  resultText: text,
  isError: false,
  turnIndex: 1,
  timestamp: 1000,
  ...(resultTimestamp === undefined ? {} : { resultTimestamp }),
  ...extra,
});
const twoOccurrences = () => {
  const indexer = new ToolCallIndexer();
  indexer.addBatch(batchOf("bash_23", 1150, "FIRST"), noop);
  indexer.addBatch(batchOf("bash_23", 2150, "SECOND"), noop);
  return indexer;
};

const tempDirs: string[] = [];
afterAll(async () => {
  await Promise.all(tempDirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

const refusedAppend = () => {
  throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
};

describe("occurrence-keyed records", () => {
  test("a batch whose index entry the session refuses is not indexed: its outputs are never stubbed", () => {
    const indexer = new ToolCallIndexer();
    expect(() => indexer.addBatch(batchOf("bash_1", 1150, "OUT"), refusedAppend)).toThrow("ENOSPC");
    expect(indexer.isSummarized("bash_1@1150")).toBe(false);
    expect(indexer.getIndex().size).toBe(0);
    expect(indexer.lookupByContent("bash", "OUT")).toBeUndefined();
  });

  test("each occurrence of a reused id keeps its own text (1)", () => {
    const indexer = twoOccurrences();
    expect(indexer.getRecord("bash_23@1150")?.resultText).toBe("FIRST");
    expect(indexer.getRecord("bash_23@2150")?.resultText).toBe("SECOND");
  });

  test("isSummarized is exact per occurrence (2)", () => {
    const indexer = new ToolCallIndexer();
    indexer.addBatch(batchOf("bash_23", 1150, "FIRST"), noop);
    expect(indexer.isSummarized("bash_23@1150")).toBe(true);
    expect(indexer.isSummarized("bash_23@3150")).toBe(false);
  });

  test("getRecordsForId returns occurrences chronologically (3)", () => {
    const indexer = new ToolCallIndexer();
    indexer.addBatch(batchOf("bash_23", 2150, "SECOND"), noop);
    indexer.addBatch(batchOf("bash_23", 1150, "FIRST"), noop);
    expect(indexer.getRecordsForId("bash_23").map((r) => r.resultText)).toEqual(["FIRST", "SECOND"]);
  });

  test("an occurrence key or a short ref denotes exactly one record (4)", () => {
    const indexer = new ToolCallIndexer();
    indexer.addBatch(batchOf("bash_23", 1150, "FIRST"), noop);
    indexer.registerSummaryRefs([{ shortId: "t1", toolCallId: "bash_23", resultTimestamp: 1150 }]);
    expect(indexer.getRecordsForId("bash_23@1150").map((r) => r.resultText)).toEqual(["FIRST"]);
    expect(indexer.getRecordsForId("t1").map((r) => r.resultText)).toEqual(["FIRST"]);
  });

  test("short refs resolve 1:1 across a reused id (5)", () => {
    const indexer = twoOccurrences();
    indexer.registerSummaryRefs([
      { shortId: "t1", toolCallId: "bash_23", resultTimestamp: 1150 },
      { shortId: "t2", toolCallId: "bash_23", resultTimestamp: 2150 },
    ]);
    expect(indexer.getRecord("t1")?.resultText).toBe("FIRST");
    expect(indexer.getRecord("t2")?.resultText).toBe("SECOND");
    expect(indexer.getShortRefForToolCallId("bash_23@2150")).toBe("t2");
  });

  test("allocateSummaryRefs mints the next tN with the result timestamp (6)", () => {
    const indexer = new ToolCallIndexer();
    expect(indexer.allocateSummaryRefs(batchOf("bash_23", 1150, "x"))).toEqual([
      { shortId: "t1", toolCallId: "bash_23", resultTimestamp: 1150 },
    ]);
  });

  test("allocation burns numbers and does not register (X11)", () => {
    const indexer = new ToolCallIndexer();
    indexer.addBatch(batchOf("a", 1, "x"), noop);
    indexer.allocateSummaryRefs(batchOf("a", 1, "x"));
    expect(indexer.getShortRefForToolCallId("a@1")).toBeUndefined();
    expect(indexer.allocateSummaryRefs(batchOf("b", 2, "y"))[0]!.shortId).toBe("t2");
  });

  test("content lookup finds each occurrence by its own text (7)", () => {
    const indexer = twoOccurrences();
    expect(indexer.lookupByContent("bash", "FIRST")).toBe("bash_23@1150");
    expect(indexer.lookupByContent("bash", "SECOND")).toBe("bash_23@2150");
    expect(indexer.lookupByContent("bash", "UNSEEN")).toBeUndefined();
  });

  test("the first record seen with some content stays its canonical (X3)", () => {
    const indexer = new ToolCallIndexer();
    indexer.addBatch(batchOf("a", 1, "SAME"), noop);
    indexer.addBatch(batchOf("b", 2, "SAME"), noop);
    expect(indexer.lookupByContent("bash", "SAME")).toBe("a@1");
  });

  test("addBatch appends exactly one index entry with the records (X1)", () => {
    const indexer = new ToolCallIndexer();
    const { entries, append } = collector();
    indexer.addBatch(batchOf("a", undefined, "x", { turnIndex: 7, timestamp: 77 }), append);
    indexer.addBatch({ turnIndex: 0, timestamp: 0, assistantText: "", toolCalls: [] }, append);
    expect(entries).toHaveLength(2);
    expect(entries[0]).toEqual({
      customType: CUSTOM_TYPE_INDEX,
      data: { toolCalls: [{ toolCallId: "a", toolName: "bash", args: { cmd: "ls" }, resultText: "x", isError: false, turnIndex: 7, timestamp: 77, contentHash: hashToolResult("bash", "x") }] },
    });
    expect(Object.hasOwn(entries[0]!.data.toolCalls[0], "resultTimestamp")).toBe(false);
    expect(entries[1]!.data).toEqual({ toolCalls: [] });
  });
});

describe("persisted content hashes", () => {
  test("a new record is persisted with the content hash of its output", () => {
    const { entries, append } = collector();
    new ToolCallIndexer().addBatch(batchOf("a", 5, "some output"), append);
    expect(entries[0]!.data.toolCalls[0].contentHash).toBe(hashToolResult("bash", "some output"));
  });

  test("a reload seeds dedup from the persisted hash instead of hashing the output again", () => {
    const stored = record("a", 5, "the stored text", { contentHash: hashToolResult("bash", "another text") });
    const indexer = new ToolCallIndexer();
    indexer.reconstructFromSession(ctxOf([custom(CUSTOM_TYPE_INDEX, { toolCalls: [stored] })]));
    expect(indexer.lookupByContent("bash", "another text")).toBe(occKey("a", 5));
    expect(indexer.lookupByContent("bash", "the stored text")).toBeUndefined();
  });

  test("a record written before hashes were persisted is hashed at the first lookup", () => {
    const indexer = new ToolCallIndexer();
    indexer.reconstructFromSession(ctxOf([custom(CUSTOM_TYPE_INDEX, { toolCalls: [record("a", 5, "old text")] })]));
    expect(indexer.lookupByContent("bash", "old text")).toBe(occKey("a", 5));
  });
});

describe("dedup aliases", () => {
  test("registerDuplicate persists the alias and shares the original's ref (8)", () => {
    const indexer = new ToolCallIndexer();
    indexer.addBatch(batchOf("bash_23", 1150, "SAME"), noop);
    indexer.registerSummaryRefs([{ shortId: "t1", toolCallId: "bash_23", resultTimestamp: 1150 }]);
    const { entries, append } = collector();
    indexer.registerDuplicate("bash_99@4150", "bash_23@1150", append);
    expect(entries).toEqual([
      {
        customType: CUSTOM_TYPE_DEDUP_ALIAS,
        data: { newToolCallId: "bash_99", newResultTimestamp: 4150, originalToolCallId: "bash_23", originalResultTimestamp: 1150 },
      },
    ]);
    expect(indexer.isSummarized("bash_99@4150")).toBe(true);
    expect(indexer.getRecord("bash_99@4150")).toBe(indexer.getRecord("bash_23@1150"));
    expect(indexer.getShortRefForToolCallId("bash_99@4150")).toBe("t1");
    expect(indexer.getRecord("t1")?.toolCallId).toBe("bash_23");
  });

  test("registering a key as its own duplicate does nothing (X13)", () => {
    const indexer = new ToolCallIndexer();
    const { entries, append } = collector();
    indexer.registerDuplicate("a@1", "a@1", append);
    expect(entries).toEqual([]);
    expect(indexer.isSummarized("a@1")).toBe(false);
  });

  test("bare alias keys persist without timestamps (X13)", () => {
    const indexer = new ToolCallIndexer();
    const { entries, append } = collector();
    indexer.registerDuplicate("bash_8", "bash_7", append);
    expect(entries[0]!.data).toEqual({ newToolCallId: "bash_8", originalToolCallId: "bash_7" });
  });

  test("an alias whose entry the session refuses is not linked: the duplicate is never stubbed", () => {
    const indexer = new ToolCallIndexer();
    indexer.addBatch(batchOf("bash_23", 1150, "SAME"), noop);
    expect(() => indexer.registerDuplicate("bash_99@4150", "bash_23@1150", refusedAppend)).toThrow("ENOSPC");
    expect(indexer.isSummarized("bash_99@4150")).toBe(false);
    expect(indexer.getRecordsForId("bash_99")).toEqual([]);
  });

  test("a same-id duplicate is listed as its own occurrence (9)", () => {
    const indexer = new ToolCallIndexer();
    indexer.addBatch(batchOf("bash_23", 1150, "SAME"), noop);
    indexer.registerDuplicate("bash_23@9150", "bash_23@1150", noop);
    const records = indexer.getRecordsForId("bash_23");
    expect(records.map((r) => r.resultText)).toEqual(["SAME", "SAME"]);
    expect(records.map((r) => r.resultTimestamp)).toEqual([1150, 9150]);
    expect(indexer.getRecord("bash_23@1150")?.resultTimestamp).toBe(1150);
  });
});

describe("summary bodies", () => {
  test("coverage and text are looked up by exact occurrence key (10)", () => {
    const indexer = new ToolCallIndexer();
    indexer.registerSummaryBody(["bash_23@1150"], "BODY");
    expect(indexer.hasPerBatchSummaryCoveringAny(["bash_23@1150"])).toBe(true);
    expect(indexer.hasPerBatchSummaryCoveringAny(["bash_23@3150"])).toBe(false);
    expect(indexer.hasPerBatchSummaryCoveringAny([])).toBe(false);
    expect(indexer.getPerBatchSummaryTextForToolCallIds(["bash_23@1150"])).toBe("BODY");
  });

  test("distinct texts come back in registration order (X14)", () => {
    const indexer = new ToolCallIndexer();
    indexer.registerSummaryBody(["b"], "second-key body");
    indexer.registerSummaryBody(["a", "b"], "shared");
    indexer.registerSummaryBody(["a"], "shared");
    indexer.registerSummaryBody(["x"], "");
    indexer.registerSummaryBody([], "ignored");
    expect(indexer.getPerBatchSummariesForToolCallIds(["a", "b"])).toEqual(["second-key body", "shared"]);
    expect(indexer.getPerBatchSummaryTextForToolCallIds(["a", "b"])).toBe("second-key body\n\nshared");
    expect(indexer.getPerBatchSummariesForToolCallIds([])).toEqual([]);
    expect(indexer.getPerBatchSummaryTextForToolCallIds(["x"])).toBe("");
  });

  test("tool refs map keys in order and skip unknown keys (X15)", () => {
    const indexer = twoOccurrences();
    indexer.registerSummaryRefs([{ shortId: "t1", toolCallId: "bash_23", resultTimestamp: 1150 }]);
    indexer.registerDuplicate("dup@5", "bash_23@1150", noop);
    expect(indexer.getToolRefsForToolCallIds(["bash_23@1150", "nope", "dup@5"])).toEqual(["t1", "t1"]);
  });
});

describe("bare-id rules", () => {
  test("a single occurrence resolves by bare id but is not summarized by it (11)", () => {
    const indexer = new ToolCallIndexer();
    indexer.addBatch(batchOf("bash_23", 1150, "FIRST"), noop);
    expect(indexer.isSummarized("bash_23")).toBe(false);
    expect(indexer.resolveToolCallId("bash_23")).toBe("bash_23@1150");
    expect(indexer.getRecord("bash_23")?.resultText).toBe("FIRST");
  });

  test("a bare id with two occurrences is ambiguous (12)", () => {
    const indexer = twoOccurrences();
    expect(indexer.resolveToolCallId("bash_23")).toBeUndefined();
    expect(indexer.getRecordsForId("bash_23").map((r) => r.resultText)).toEqual(["FIRST", "SECOND"]);
  });

  test("a legacy record beside an occurrence is not legacy-only (13)", () => {
    const indexer = new ToolCallIndexer();
    indexer.addBatch(batchOf("bash_23", undefined, "OLD", { timestamp: 1000 }), noop);
    indexer.addBatch(batchOf("bash_23", 2150, "NEW"), noop);
    expect(indexer.hasLegacyBareRecord("bash_23")).toBe(false);
    expect(indexer.getRecordsForId("bash_23").map((r) => r.resultText)).toEqual(["OLD", "NEW"]);
  });

  test("hasLegacyBareRecord is true only for legacy-only ids (14)", () => {
    const legacy = new ToolCallIndexer();
    legacy.addBatch(batchOf("bash_23", undefined, "OLD"), noop);
    const modern = new ToolCallIndexer();
    modern.addBatch(batchOf("bash_23", 1150, "NEW"), noop);
    const mixed = new ToolCallIndexer();
    mixed.addBatch(batchOf("bash_23", undefined, "OLD"), noop);
    mixed.addBatch(batchOf("bash_23", 1150, "NEW"), noop);
    expect([legacy, modern, mixed].map((i) => i.hasLegacyBareRecord("bash_23"))).toEqual([true, false, false]);
  });

  test("lookupToolCalls maps ids in order and skips misses (X6)", () => {
    const indexer = twoOccurrences();
    expect(indexer.lookupToolCalls(["bash_23@2150", "missing", "bash_23@1150"]).map((r) => r.resultText)).toEqual(["SECOND", "FIRST"]);
  });

  test("legacy self-refs are not entered as aliases (X9, X10)", () => {
    const indexer = new ToolCallIndexer();
    indexer.registerSummaryRefs([{ shortId: "bash_1", toolCallId: "bash_1" }, { shortId: "", toolCallId: "x" }]);
    expect(indexer.getShortRefForToolCallId("bash_1")).toBeUndefined();
    expect(indexer.allocateSummaryRefs(batchOf("z", 1, "x"))[0]!.shortId).toBe("t1");
  });

  test("registering refs raises but never lowers the counter (X10)", () => {
    const indexer = new ToolCallIndexer();
    indexer.registerSummaryRefs([{ shortId: "t9", toolCallId: "a", resultTimestamp: 1 }]);
    indexer.registerSummaryRefs([{ shortId: "t3", toolCallId: "b", resultTimestamp: 2 }]);
    expect(indexer.allocateSummaryRefs(batchOf("c", 3, "x"))[0]!.shortId).toBe("t10");
  });
});

describe("chain registry", () => {
  const chain = (start: number, blockId: string): ChainCompressionEntry => ({
    blockId,
    startUserTimestamp: start,
    droppedToolCallIds: [],
    finalAssistantTimestamp: start + 1,
    toolRefs: [],
    compressedAt: 1,
  });

  test("entries come back sorted by start, a same start overwrites (X16)", () => {
    const indexer = new ToolCallIndexer();
    indexer.registerChain(chain(300, "b1"));
    indexer.registerChain(chain(100, "b2"));
    indexer.registerChain(chain(300, "b3"));
    expect(indexer.getChainEntries().map((e) => e.blockId)).toEqual(["b2", "b3"]);
    expect(indexer.findChainEntryByBlockId("b3")?.startUserTimestamp).toBe(300);
    expect(indexer.findChainEntryByBlockId("b1")).toBeUndefined();
  });

  test("mutating the returned list leaves the registry intact", () => {
    const indexer = new ToolCallIndexer();
    indexer.registerChain(chain(100, "b1"));
    indexer.getChainEntries().pop();
    expect(indexer.getChainEntries()).toHaveLength(1);
  });
});

describe("reconstructFromSession", () => {
  test("a dedup alias before the summary still inherits the ref (15)", () => {
    const indexer = new ToolCallIndexer();
    indexer.reconstructFromSession(
      ctxOf([
        custom(CUSTOM_TYPE_INDEX, { toolCalls: [record("bash_23", 1150, "SAME")] }),
        custom(CUSTOM_TYPE_DEDUP_ALIAS, { newToolCallId: "bash_99", newResultTimestamp: 4150, originalToolCallId: "bash_23", originalResultTimestamp: 1150 }),
        summary([{ shortId: "t1", toolCallId: "bash_23", resultTimestamp: 1150 }]),
      ]),
    );
    expect(indexer.getShortRefForToolCallId("bash_99@4150")).toBe("t1");
  });

  test("refs, aliases and summary bodies all come back (16)", () => {
    const indexer = new ToolCallIndexer();
    indexer.reconstructFromSession(
      ctxOf([
        custom(CUSTOM_TYPE_INDEX, { toolCalls: [record("bash_23", 1150, "FIRST"), record("bash_23", 2150, "SECOND")] }),
        summary(
          [
            { shortId: "t1", toolCallId: "bash_23", resultTimestamp: 1150 },
            { shortId: "t2", toolCallId: "bash_23", resultTimestamp: 2150 },
          ],
          "the summary",
        ),
        custom(CUSTOM_TYPE_DEDUP_ALIAS, { newToolCallId: "bash_99", newResultTimestamp: 4150, originalToolCallId: "bash_23", originalResultTimestamp: 1150 }),
      ]),
    );
    expect(indexer.getRecord("t1")?.resultText).toBe("FIRST");
    expect(indexer.getRecord("t2")?.resultText).toBe("SECOND");
    expect(indexer.getRecord("bash_99@4150")?.resultText).toBe("FIRST");
    expect(indexer.getShortRefForToolCallId("bash_99@4150")).toBe("t1");
    expect(indexer.getPerBatchSummaryTextForToolCallIds(["bash_23@2150"])).toBe("the summary");
    expect(indexer.allocateSummaryRefs(batchOf("n", 1, "x"))[0]!.shortId).toBe("t3");
  });

  test("legacy records and legacy aliases load bare-keyed (17)", () => {
    const indexer = new ToolCallIndexer();
    indexer.reconstructFromSession(
      ctxOf([
        custom(CUSTOM_TYPE_INDEX, { toolCalls: [record("bash_7", undefined, "OLD")] }),
        custom(CUSTOM_TYPE_DEDUP_ALIAS, { newToolCallId: "bash_8", originalToolCallId: "bash_7" }),
      ]),
    );
    expect(indexer.getRecord("bash_7")?.resultText).toBe("OLD");
    expect(indexer.hasLegacyBareRecord("bash_7")).toBe(true);
    expect(indexer.hasLegacyBareRecord("bash_23")).toBe(false);
    expect(indexer.isSummarized("bash_8")).toBe(true);
  });

  test("summary content given as text blocks is joined (R3)", () => {
    const indexer = new ToolCallIndexer();
    const entry = { ...summary([{ shortId: "t1", toolCallId: "a", resultTimestamp: 1 }]), content: [{ type: "text", text: "x" }, { type: "text", text: "y" }] };
    indexer.reconstructFromSession(ctxOf([entry]));
    expect(indexer.getPerBatchSummaryTextForToolCallIds(["a@1"])).toBe("x\ny");
  });

  test("rebuild clears earlier state and is idempotent (R1)", () => {
    const indexer = twoOccurrences();
    indexer.registerChain({ blockId: "b1", startUserTimestamp: 1, droppedToolCallIds: [], finalAssistantTimestamp: 2, toolRefs: [], compressedAt: 3 });
    const branch = [custom(CUSTOM_TYPE_INDEX, { toolCalls: [record("z", 5, "Z")] }), summary([{ shortId: "t4", toolCallId: "z", resultTimestamp: 5 }])];
    indexer.reconstructFromSession(ctxOf(branch));
    indexer.reconstructFromSession(ctxOf(branch));
    expect([...indexer.getIndex().keys()]).toEqual(["z@5"]);
    expect(indexer.getChainEntries()).toEqual([]);
    expect(indexer.lookupByContent("bash", "FIRST")).toBeUndefined();
    expect(indexer.allocateSummaryRefs(batchOf("n", 1, "x"))[0]!.shortId).toBe("t5");
  });

  test("chain entries are stored as the same object and later starts replace earlier ones (R4)", () => {
    const first = { blockId: "b1", startUserTimestamp: 100, droppedToolCallIds: [], finalAssistantTimestamp: 200, toolRefs: [], compressedAt: 1 };
    const replacement = { ...first, blockId: "b2" };
    const indexer = new ToolCallIndexer();
    indexer.reconstructFromSession(ctxOf([custom(CUSTOM_TYPE_CHAIN, first), custom(CUSTOM_TYPE_CHAIN, replacement)]));
    expect(indexer.getChainEntries()).toHaveLength(1);
    expect(indexer.getChainEntries()[0]).toBe(replacement);
  });

  test("getIndex keeps returning the same live map across rebuilds", () => {
    const indexer = new ToolCallIndexer();
    const live = indexer.getIndex();
    indexer.reconstructFromSession(ctxOf([custom(CUSTOM_TYPE_INDEX, { toolCalls: [record("a", 1, "A")] })]));
    expect(indexer.getIndex()).toBe(live);
    expect(live.has("a@1")).toBe(true);
  });

  test("a rebuilt record stays the dedup canonical over a later identical batch (X3)", () => {
    const indexer = new ToolCallIndexer();
    indexer.reconstructFromSession(ctxOf([custom(CUSTOM_TYPE_INDEX, { toolCalls: [record("old", 1, "SAME")] })]));
    indexer.addBatch(batchOf("new", 2, "SAME"), noop);
    expect(indexer.lookupByContent("bash", "SAME")).toBe("old@1");
  });

  test("records are replayed verbatim, not recomputed (R6)", () => {
    const persisted = record("a", 5, "X", { turnIndex: 42, timestamp: 7 });
    const indexer = new ToolCallIndexer();
    indexer.reconstructFromSession(ctxOf([custom(CUSTOM_TYPE_INDEX, { toolCalls: [persisted] })]));
    expect(indexer.getRecord("a@5")).toBe(persisted);
  });

  test("pre-change index entries seed content lookup (23)", () => {
    const indexer = new ToolCallIndexer();
    indexer.reconstructFromSession(ctxOf([custom(CUSTOM_TYPE_INDEX, { toolCalls: [record("bash_1", 1150, "CONTENT")] })]));
    expect(indexer.lookupByContent("bash", "CONTENT")).toBe("bash_1@1150");
  });

  test("a spilled record seeds dedup from its persisted hash (R2)", () => {
    const spilled = record("big", 10, "", { spillPath: "/x/s-blobs/big_10.txt", contentHash: hashToolResult("bash", "BODY") });
    const indexer = new ToolCallIndexer();
    indexer.reconstructFromSession(ctxOf([custom(CUSTOM_TYPE_INDEX, { toolCalls: [spilled] })]));
    expect(indexer.lookupByContent("bash", "BODY")).toBe("big@10");
    expect(indexer.lookupByContent("bash", "")).toBeUndefined();
  });

  test("pre-change session with a chain lacking bodySource loads unchanged (24)", () => {
    const chainData = { blockId: "b1", startUserTimestamp: 100, droppedToolCallIds: ["bash_23"], finalAssistantTimestamp: 400, toolRefs: ["t1", "t2"], compressedAt: 500 };
    const branch = [
      custom(CUSTOM_TYPE_INDEX, { toolCalls: [record("bash_23", 1150, "FIRST"), record("bash_23", 2150, "SECOND")] }),
      summary([
        { shortId: "t1", toolCallId: "bash_23", resultTimestamp: 1150 },
        { shortId: "t2", toolCallId: "bash_23", resultTimestamp: 2150 },
      ]),
      custom(CUSTOM_TYPE_CHAIN, chainData),
    ];
    const indexer = new ToolCallIndexer();
    indexer.reconstructFromSession(ctxOf(structuredClone(branch)));
    const chains = indexer.getChainEntries();
    expect(chains).toHaveLength(1);
    expect(chains[0]).toEqual(chainData);
    expect(chains[0]!.bodySource).toBeUndefined();
    expect(indexer.getRecord("t1")?.resultText).toBe("FIRST");
    expect(indexer.resolveToolCallId("t2")).toBe("bash_23@2150");
    expect(indexer.lookupByContent("bash", "FIRST")).toBe("bash_23@1150");
    expect(indexer.lookupByContent("bash", "SECOND")).toBe("bash_23@2150");
  });

  test("corrupt entries are skipped with one error line each while the rest loads", () => {
    const errors = spyOn(console, "error").mockImplementation(() => {});
    try {
      const indexer = new ToolCallIndexer();
      indexer.reconstructFromSession(
        ctxOf([
          custom(CUSTOM_TYPE_INDEX, "not an object"),
          custom(CUSTOM_TYPE_INDEX, { toolCalls: "nope" }),
          custom(CUSTOM_TYPE_INDEX, { toolCalls: [{ toolName: "bash" }, null, record("ok", 1, "OK")] }),
          custom(CUSTOM_TYPE_INDEX, undefined),
          { type: "custom_message", customType: CUSTOM_TYPE_SUMMARY, content: "s", details: { toolNames: [] } },
          custom(CUSTOM_TYPE_DEDUP_ALIAS, 5),
          custom(CUSTOM_TYPE_CHAIN, { blockId: "b1" }),
          summary([{ shortId: "t1", toolCallId: "ok", resultTimestamp: 1 }]),
        ]),
      );
      expect(errors.mock.calls).toHaveLength(7);
      expect(String(errors.mock.calls[0]![0])).toContain(CUSTOM_TYPE_INDEX);
      expect(String(errors.mock.calls[4]![0])).toContain(CUSTOM_TYPE_SUMMARY);
      expect(String(errors.mock.calls[5]![0])).toContain(CUSTOM_TYPE_DEDUP_ALIAS);
      expect(String(errors.mock.calls[6]![0])).toContain(CUSTOM_TYPE_CHAIN);
      expect(indexer.getRecord("t1")?.resultText).toBe("OK");
      expect([...indexer.getIndex().keys()]).toEqual(["ok@1"]);
    } finally {
      errors.mockRestore();
    }
  });

  test("wrong-typed values are skipped with one diagnostic per entry and never reach the render (finding 6)", () => {
    const errors = spyOn(console, "error").mockImplementation(() => {});
    try {
      const chainBase = { startUserTimestamp: 100, droppedToolCallIds: ["c1"], finalAssistantTimestamp: 300, toolRefs: ["t1"], compressedAt: 301 };
      const indexer = new ToolCallIndexer();
      indexer.reconstructFromSession(
        ctxOf([
          custom(CUSTOM_TYPE_INDEX, { toolCalls: [record("c1", 250, "RAW"), record("c2", 260, "X", { resultText: 5 as any })] }),
          summary([{ shortId: "t1", toolCallId: "c1", resultTimestamp: 250 }]),
          summary([{ shortId: "t2", toolCallId: { toString: 1 } }]),
          custom(CUSTOM_TYPE_CHAIN, { ...chainBase, blockId: "b1", rangeSummaryText: 42 }),
          custom(CUSTOM_TYPE_CHAIN, { ...chainBase, blockId: { toString: 1 } }),
          custom(CUSTOM_TYPE_DEDUP_ALIAS, { newToolCallId: { toString: 1 }, originalToolCallId: "c1" }),
        ]),
      );
      expect(errors).toHaveBeenCalledTimes(5);
      expect(errors.mock.calls.map((call) => String(call[0]))).toEqual([
        `pi-condense: skipped part of a corrupt ${CUSTOM_TYPE_INDEX} entry (1 of 2 record(s), first toolCalls[1] resultText is not a string)`,
        `pi-condense: skipped corrupt ${CUSTOM_TYPE_SUMMARY} entry (details.toolCallRefs[0] toolCallId is not a non-empty string)`,
        `pi-condense: skipped corrupt ${CUSTOM_TYPE_CHAIN} entry (rangeSummaryText is not a string)`,
        `pi-condense: skipped corrupt ${CUSTOM_TYPE_CHAIN} entry (blockId is not a block id "b<digits>")`,
        `pi-condense: skipped corrupt ${CUSTOM_TYPE_DEDUP_ALIAS} entry (newToolCallId is not a non-empty string)`,
      ]);
      expect([...indexer.getIndex().keys()]).toEqual(["c1@250"]);
      expect(indexer.getChainEntries()).toEqual([]);
      const messages = [
        { role: "user", content: [{ type: "text", text: "q" }], timestamp: 100 },
        { role: "assistant", content: [{ type: "toolCall", id: "c1", name: "bash", arguments: {} }], timestamp: 200 },
        { role: "toolResult", toolCallId: "c1", toolName: "bash", content: [{ type: "text", text: "RAW" }], isError: false, timestamp: 250 },
        { role: "assistant", content: [{ type: "text", text: "done" }], timestamp: 300 },
      ];
      const out = pruneMessages(messages, indexer, { enabled: true, rollingWindow: 0, stripFinalAssistantThinking: true, fuseRangeSummary: false });
      expect(out.messages.map((m: any) => m.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
      expect(out.messages[2].content[0].text).toContain("ref `t1`");
    } finally {
      errors.mockRestore();
    }
  });

  test("a legacy record with non-object arguments keeps its output and shows them under _raw", () => {
    const indexer = new ToolCallIndexer();
    indexer.reconstructFromSession(ctxOf([custom(CUSTOM_TYPE_INDEX, { toolCalls: [record("old", undefined, "OUT", { args: "ls -la" as any })] })]));
    expect(indexer.getRecord("old")).toMatchObject({ resultText: "OUT", args: { _raw: "ls -la" } });
  });

  test("unrelated and unknown entries are ignored (R6)", () => {
    const indexer = new ToolCallIndexer();
    expect(() =>
      indexer.reconstructFromSession(
        ctxOf([null, { type: "message", message: { role: "user" } }, custom("other-ext", { toolCalls: 1 }), { type: "context_edit" }]),
      ),
    ).not.toThrow();
    expect(indexer.getIndex().size).toBe(0);
  });
});

describe("backfillChainRecords", () => {
  const opts = (append: (t: string, d?: unknown) => void, sessionDir = "/nonexistent", threshold = 1_000_000) => ({
    spillThreshold: threshold,
    spillPreviewBytes: 64,
    sessionDir,
    sessionId: "sid",
    appendEntry: append,
  });
  const backfillRecord = (id: string, ts: number, text: string) => record(id, ts, text, { turnIndex: -1, timestamp: ts });

  test("returns refs, indexes by key and ref, and appends one backfilled entry (18)", async () => {
    const indexer = new ToolCallIndexer();
    const { entries, append } = collector();
    const refs = await indexer.backfillChainRecords([backfillRecord("c1", 1050, "out1"), backfillRecord("c2", 1150, "out2")], opts(append));
    expect(refs.map((r) => r.shortId)).toEqual(["t1", "t2"]);
    expect(indexer.resolveToolCallId("c1")).toBe(occKey("c1", 1050));
    expect(indexer.resolveToolCallId("t2")).toBe(occKey("c2", 1150));
    expect(entries).toHaveLength(1);
    expect(entries[0]!.customType).toBe(CUSTOM_TYPE_INDEX);
    expect(entries[0]!.data.backfilled).toBe(true);
    expect(entries[0]!.data.refs).toHaveLength(2);
    expect(entries[0]!.data.toolCalls).toHaveLength(2);
  });

  test("backfilled records never become dedup canonicals (19)", async () => {
    const indexer = new ToolCallIndexer();
    await indexer.backfillChainRecords([backfillRecord("c1", 1050, "out1")], opts(noop));
    expect(indexer.lookupByContent("bash", "out1")).toBeUndefined();
  });

  test("a failing append rejects and leaves no state behind (20)", async () => {
    const indexer = new ToolCallIndexer();
    const failing = () => {
      throw new Error("stale");
    };
    await expect(indexer.backfillChainRecords([backfillRecord("c1", 1050, "out1")], opts(failing))).rejects.toThrow("stale");
    expect(indexer.getIndex().size).toBe(0);
    expect(indexer.getShortRefForToolCallId("c1@1050")).toBeUndefined();
    expect(indexer.getRecord("t1")).toBeUndefined();
  });

  test("an oversized record is spilled to a sidecar before persisting (21)", async () => {
    const dir = await mkdtemp(join(tmpdir(), "indexer-backfill-"));
    tempDirs.push(dir);
    const indexer = new ToolCallIndexer();
    const { entries, append } = collector();
    const body = "y".repeat(200_001);
    await indexer.backfillChainRecords([backfillRecord("big", 5, body)], opts(append, dir, 200_000));
    const persisted = entries[0]!.data.toolCalls[0];
    expect(persisted.spillPath).toBeTruthy();
    expect(persisted.resultText).toBe("");
    expect(persisted.resultPreview).toBeTruthy();
    expect(persisted.contentHash).toBeTruthy();
    expect(await readFile(persisted.spillPath, "utf8")).toBe(body);
  });

  test("without a session dir an oversized backfilled record keeps its text inline", async () => {
    const indexer = new ToolCallIndexer();
    const { entries, append } = collector();
    const body = "w".repeat(300);
    await indexer.backfillChainRecords([backfillRecord("inline", 5, body)], opts(append, "", 100));
    const persisted = entries[0]!.data.toolCalls[0];
    expect(persisted.spillPath).toBeUndefined();
    expect(persisted.resultText).toBe(body);
  });

  test("a rebuild from the backfilled entry restores record and ref but not content lookup (22)", async () => {
    const source = new ToolCallIndexer();
    const { entries, append } = collector();
    await source.backfillChainRecords([backfillRecord("c1", 1050, "out1")], opts(append));
    const rebuilt = new ToolCallIndexer();
    rebuilt.reconstructFromSession(ctxOf(entries.map((e) => custom(e.customType, e.data))));
    expect(rebuilt.getRecord("c1@1050")?.resultText).toBe("out1");
    expect(rebuilt.getRecord("t1")?.resultText).toBe("out1");
    expect(rebuilt.lookupByContent("bash", "out1")).toBeUndefined();
  });

  test("a re-indexed dedup member keeps its alias siblings resolving to the original (K7)", async () => {
    const indexer = new ToolCallIndexer();
    indexer.addBatch(batchOf("orig", 1, "TEXT"), noop);
    indexer.registerDuplicate("tc1@5", "orig@1", noop);
    indexer.registerDuplicate("dup3@9", "orig@1", noop);
    await indexer.backfillChainRecords([backfillRecord("tc1", 5, "TEXT")], opts(noop));
    expect(indexer.getRecord("tc1@5")?.toolCallId).toBe("tc1");
    expect(indexer.getRecord("dup3@9")?.toolCallId).toBe("orig");
    expect(indexer.lookupByContent("bash", "TEXT")).toBe("orig@1");
    expect(indexer.getRecordsForId("tc1")).toHaveLength(1);
  });
});
