import { describe, expect, test } from "bun:test";
import type { BlockRefIssuer } from "./block-refs.js";
import { buildDeterministicBody, compressEligible, extractChainRecords, selectEligible, withRecoveredRefs } from "./chain-compressor.js";
import { archivedChainBody } from "./deterministic-body.js";
import type { ChainCompressorIndexerDeps } from "./chain-compressor.js";
import { detectChains } from "./chain-detector.js";
import { occKey } from "../capture/occurrence-key.js";
import { inGraceRecoveryToolCallIds } from "../render/recovery-grace.js";
import { CUSTOM_TYPE_CHAIN } from "../names.js";
import type { ChainCompressionEntry, ToolCallRecord } from "../capture/records.js";
import type { ChainRange } from "./chain-detector.js";

// ---------------------------------------------------------------------------
// Factories
// ---------------------------------------------------------------------------

const closed = (start: number, ids: string[] = [`tc${start}`], extra: Partial<ChainRange> = {}): ChainRange => ({
  startUserTimestamp: start,
  middleToolCallIds: ids,
  finalAssistantTimestamp: start + 100,
  ...extra,
});
const open = (start: number): ChainRange => ({ startUserTimestamp: start, middleToolCallIds: ["x"], finalAssistantTimestamp: null });
const starts = (chains: ChainRange[]) => chains.map((c) => c.startUserTimestamp);

const user = (ts: number) => ({ role: "user", content: [{ type: "text", text: "go" }], timestamp: ts });
const call = (ts: number, calls: Array<{ id: string; name: string; input?: unknown; args?: unknown; arguments?: unknown }>) => ({
  role: "assistant",
  content: calls.map((c) => ({ type: "toolCall", ...c })),
  timestamp: ts,
});
const result = (ts: number, id: string, text: string, toolName = "bash", isError = false) => ({
  role: "toolResult",
  toolCallId: id,
  toolName,
  content: [{ type: "text", text }],
  isError,
  timestamp: ts,
});
const reply = (ts: number) => ({ role: "assistant", content: [{ type: "text", text: "done" }], timestamp: ts });

const rec = (id: string, toolName: string, args: Record<string, unknown>, ts: number, extra: Partial<ToolCallRecord> = {}): ToolCallRecord => ({
  toolCallId: id,
  toolName,
  args,
  resultText: "",
  isError: false,
  turnIndex: -1,
  timestamp: ts,
  resultTimestamp: ts,
  ...extra,
});

interface MockOptions {
  covered?: boolean | ((keys: string[]) => boolean);
  summaries?: string[];
  refs?: string[] | ((keys: string[]) => string[]);
  existing?: ChainCompressionEntry[];
  index?: Map<string, ToolCallRecord>;
  backfill?: (records: ToolCallRecord[], opts: any) => Promise<any>;
}

function mockIndexer(o: MockOptions = {}) {
  const calls: Array<[string, unknown]> = [];
  const registered: ChainCompressionEntry[] = [];
  const backfills: ToolCallRecord[][] = [];
  const indexer = {
    getChainEntries: () => (calls.push(["getChainEntries", null]), [...(o.existing ?? [])]),
    hasPerBatchSummaryCoveringAny: (keys: string[]) => {
      calls.push(["coverage", keys]);
      return typeof o.covered === "function" ? o.covered(keys) : o.covered ?? true;
    },
    getPerBatchSummariesForToolCallIds: (keys: string[]) => (calls.push(["summaries", keys]), o.summaries ?? ["s1"]),
    getToolRefsForToolCallIds: (keys: string[]) => {
      calls.push(["refs", keys]);
      return typeof o.refs === "function" ? o.refs(keys) : o.refs ?? ["t1"];
    },
    registerChain: (entry: ChainCompressionEntry) => (calls.push(["registerChain", entry]), registered.push(entry)),
    getIndex: () => (calls.push(["getIndex", null]), o.index ?? new Map()),
    backfillChainRecords: async (records: ToolCallRecord[], opts: any) => {
      calls.push(["backfill", records]);
      backfills.push(records);
      return o.backfill ? o.backfill(records, opts) : records.map((r, i) => ({ shortId: `t${i + 1}`, toolCallId: r.toolCallId }));
    },
  } satisfies ChainCompressorIndexerDeps;
  return { indexer, calls, registered, backfills };
}

function issuer(): Pick<BlockRefIssuer, "issue"> & { issued: number } {
  const state = { issued: 0, issue: () => `b${++state.issued}` };
  return state;
}

function makeDeps(indexer: any, extra: Record<string, unknown> = {}) {
  const appended: Array<[string, unknown]> = [];
  const reports: Array<[string, string, string]> = [];
  const deps: any = {
    indexer,
    blockRefs: issuer(),
    appendEntry: (type: string, data: unknown) => appended.push([type, data]),
    now: () => 9999,
    messages: [],
    diagnostics: { report: (kind: string, key: string, detail: string) => reports.push([kind, key, detail]) },
    backfill: { spillThreshold: 65536, spillPreviewBytes: 2048, sessionDir: "/tmp/none", sessionId: "s" },
    ...extra,
  };
  return { deps, appended, reports };
}

/** Members the covered path must never read. */
function coveredOnlyDeps(indexer: any, extra: Record<string, unknown> = {}) {
  const appended: Array<[string, unknown]> = [];
  const deps: any = {
    indexer,
    blockRefs: issuer(),
    appendEntry: (type: string, data: unknown) => appended.push([type, data]),
    now: () => 42,
    ...extra,
  };
  for (const key of ["messages", "diagnostics", "backfill"]) {
    Object.defineProperty(deps, key, { get: () => { throw new Error(`covered path read deps.${key}`); } });
  }
  return { deps, appended };
}

// Uncovered two-call chain used by the deterministic-branch scenarios.
const detChainMessages = () => [
  user(1000),
  call(1010, [{ id: "c1", name: "bash", input: { cmd: "a" } }, { id: "c2", name: "todowrite", input: { todos: [] } }]),
  result(1050, "c1", "out1"),
  result(1150, "c2", "PLAN", "todowrite"),
  reply(1200),
];
const detChain = (): ChainRange => ({
  startUserTimestamp: 1000,
  middleToolCallIds: ["c1", "c2"],
  middleOccurrenceKeys: ["c1@1050", "c2@1150"],
  protectedToolCallIds: ["c2"],
  finalAssistantTimestamp: 1200,
});

// ---------------------------------------------------------------------------
// selectEligible
// ---------------------------------------------------------------------------

describe("selectEligible: rolling window", () => {
  test("empty input selects nothing", () => {
    // 23
    expect(selectEligible([], 3, new Set())).toEqual([]);
  });

  test("two closed chains fit inside a window of three", () => {
    // 24
    expect(selectEligible([closed(100), closed(300)], 3, new Set())).toEqual([]);
  });

  test("exactly three closed chains fit inside a window of three", () => {
    // 25
    expect(selectEligible([closed(100), closed(300), closed(500)], 3, new Set())).toEqual([]);
  });

  test("a fourth closed chain pushes the oldest out of the window", () => {
    // 26
    expect(starts(selectEligible([closed(100), closed(300), closed(500), closed(700)], 3, new Set()))).toEqual([100]);
  });

  test("six closed chains select the three oldest in input order", () => {
    // 27
    const chains = [100, 300, 500, 700, 900, 1100].map((s) => closed(s));
    expect(starts(selectEligible(chains, 3, new Set()))).toEqual([100, 300, 500]);
  });

  test("an open chain is never selected and takes no window slot", () => {
    // 28
    const chains = [closed(100), open(200), closed(300), closed(500), closed(700)];
    expect(starts(selectEligible(chains, 3, new Set()))).toEqual([100]);
  });

  test("already-compressed chains take no window slot", () => {
    // 29
    const chains = [closed(100), closed(300), closed(500), closed(700)];
    expect(starts(selectEligible(chains, 1, new Set([100, 300])))).toEqual([500]);
  });

  test("a window of zero selects every closed chain", () => {
    // 30
    expect(starts(selectEligible([closed(100), closed(300), closed(500)], 0, new Set()))).toEqual([100, 300, 500]);
  });

  test("a window of zero still skips already-compressed chains", () => {
    // 31
    expect(starts(selectEligible([closed(100), closed(300), closed(500)], 0, new Set([100])))).toEqual([300, 500]);
  });

  test("empty-middle chains take no window slot", () => {
    // 32
    const chains = [closed(100, []), closed(200, []), closed(300), closed(400)];
    expect(starts(selectEligible(chains, 0, new Set()))).toEqual([300, 400]);
    expect(starts(selectEligible(chains, 1, new Set()))).toEqual([300]);
  });

  test("the original chain objects are returned in a new array", () => {
    const chains = [closed(100), closed(300)];
    const out = selectEligible(chains, 0, new Set());
    expect(out).not.toBe(chains);
    expect(out[0]).toBe(chains[0]);
  });
});

describe("selectEligible: recovery grace", () => {
  test("a chain holding an in-grace id is deferred", () => {
    // 33
    const chains = [closed(100, ["a", "t1"]), closed(300, ["b"])];
    expect(starts(selectEligible(chains, 0, new Set(), new Set(["t1"])))).toEqual([300]);
  });

  test("an empty grace set defers nothing", () => {
    // 34
    const chains = [closed(100, ["a", "t1"]), closed(300, ["b"])];
    expect(starts(selectEligible(chains, 0, new Set(), new Set()))).toEqual([100, 300]);
  });

  test("the window cut is computed before grace exclusion", () => {
    // 35
    const chains = [1, 2, 3, 4, 5].map((n) => closed(n, [`id${n}`]));
    expect(starts(selectEligible(chains, 2, new Set(), new Set(["id4"])))).toEqual([1, 2, 3]);
  });

  test("a real recovery result defers its own chain only", () => {
    // 36
    const messages = [
      user(1), call(2, [{ id: "t1", name: "context_tree_query", arguments: { toolCallIds: ["t9"] } }]),
      result(100, "t1", "recovered", "context_tree_query"), reply(101),
      user(3), call(4, [{ id: "bash_1", name: "bash", arguments: {} }]), result(5, "bash_1", "x"), reply(6),
    ];
    const grace = inGraceRecoveryToolCallIds(messages, 3);
    expect([...grace]).toEqual(["t1@100"]);
    expect(starts(selectEligible(detectChains(messages), 0, new Set(), grace))).toEqual([3]);
  });

  test("a timestamped grace entry does not match another occurrence of the same id", () => {
    const chain = closed(100, ["t1"], { middleOccurrenceKeys: ["t1@200"] });
    expect(starts(selectEligible([chain], 0, new Set(), new Set(["t1@100"])))).toEqual([100]);
  });

  test("a timestamped grace entry does not match a chain keyed by bare ids", () => {
    expect(starts(selectEligible([closed(100, ["t1"])], 0, new Set(), new Set(["t1@100"])))).toEqual([100]);
  });

  test("a bare grace entry matches an occurrence key by its bare id", () => {
    const chain = closed(100, ["t1"], { middleOccurrenceKeys: ["t1@200"] });
    expect(selectEligible([chain], 0, new Set(), new Set(["t1"]))).toEqual([]);
  });
});

// ---------------------------------------------------------------------------
// compressEligible: covered path
// ---------------------------------------------------------------------------

describe("compressEligible: covered path", () => {
  test("the oldest chain beyond the window is compressed once", async () => {
    // 37
    const { indexer } = mockIndexer();
    const { deps, appended } = makeDeps(indexer);
    const res = await compressEligible([closed(100), closed(300), closed(500), closed(700)], 3, deps);
    expect(res.compressedEntries).toHaveLength(1);
    expect(res.compressedEntries[0]).toMatchObject({ blockId: "b1", startUserTimestamp: 100, compressedAt: 9999 });
    expect(appended).toHaveLength(1);
  });

  test("a plain covered entry carries exactly the six base keys", async () => {
    // 38, P4
    const { indexer } = mockIndexer({ refs: ["t1"] });
    const { deps, appended } = coveredOnlyDeps(indexer);
    const chain: ChainRange = { startUserTimestamp: 100, middleToolCallIds: ["tc1"], finalAssistantTimestamp: 200 };
    const { compressedEntries } = await compressEligible([chain], 0, deps);
    const entry = compressedEntries[0];
    expect(entry).toEqual({ blockId: "b1", startUserTimestamp: 100, droppedToolCallIds: ["tc1"], finalAssistantTimestamp: 200, toolRefs: ["t1"], compressedAt: 42 });
    expect(Object.keys(entry)).toEqual(["blockId", "startUserTimestamp", "droppedToolCallIds", "finalAssistantTimestamp", "toolRefs", "compressedAt"]);
    expect(entry.bodySource).toBeUndefined();
    expect(appended[0][1]).toBe(entry);
  });

  test("an uncovered chain with real messages takes the deterministic path", async () => {
    // 39
    const { indexer } = mockIndexer({ covered: false });
    const messages = [user(100), call(150, [{ id: "tc1", name: "bash", input: { cmd: "ls" } }]), result(180, "tc1", "files"), reply(200)];
    const { deps } = makeDeps(indexer, { messages });
    const res = await compressEligible(detectChains(messages), 0, deps);
    expect(res.compressedEntries).toHaveLength(1);
    expect(res.compressedEntries[0]).toMatchObject({ bodySource: "deterministic", startUserTimestamp: 100 });
    expect(res.skipped).toEqual([]);
  });

  test("an already-registered chain is skipped and reported as such", async () => {
    // 40
    const existing = { blockId: "b9", startUserTimestamp: 100 } as ChainCompressionEntry;
    const { indexer } = mockIndexer({ existing: [existing] });
    const { deps, appended } = makeDeps(indexer);
    const res = await compressEligible([closed(100), closed(300), closed(500), closed(700)], 3, deps);
    expect(res.compressedEntries).toEqual([]);
    expect(res.skipped).toEqual([{ startUserTimestamp: 100, reason: "already-compressed" }]);
    expect(appended).toEqual([]);
  });

  test("the entry is appended under the context-prune-chain type", async () => {
    // 41
    const { indexer } = mockIndexer();
    const { deps, appended } = makeDeps(indexer);
    await compressEligible([closed(100)], 0, deps);
    expect(appended[0][0]).toBe(CUSTOM_TYPE_CHAIN);
    expect(appended[0][0]).toBe("context-prune-chain");
  });

  test("two per-batch summaries are fused once with a blank line between them", async () => {
    // 42
    const { indexer } = mockIndexer({ summaries: ["s1", "s2"] });
    const fuseInputs: string[] = [];
    const { deps } = makeDeps(indexer, { fuseRange: async (text: string) => (fuseInputs.push(text), "FUSED") });
    const { compressedEntries } = await compressEligible([closed(100)], 0, deps);
    expect(fuseInputs).toEqual(["s1\n\ns2"]);
    expect(compressedEntries[0].rangeSummaryText).toBe("FUSED");
  });

  test("a single per-batch summary is not fused", async () => {
    // 43
    const { indexer } = mockIndexer({ summaries: ["only"] });
    let fused = 0;
    const { deps } = makeDeps(indexer, { fuseRange: async () => (fused++, "FUSED") });
    const { compressedEntries } = await compressEligible([closed(100)], 0, deps);
    expect(fused).toBe(0);
    expect(compressedEntries[0].rangeSummaryText).toBeUndefined();
  });

  test("a fuser resolving to null still compresses without a range summary", async () => {
    // 44
    const { indexer } = mockIndexer({ summaries: ["s1", "s2"] });
    const { deps } = makeDeps(indexer, { fuseRange: async () => null });
    const { compressedEntries } = await compressEligible([closed(100)], 0, deps);
    expect(compressedEntries).toHaveLength(1);
    expect("rangeSummaryText" in compressedEntries[0]).toBe(false);
  });

  test("a rejecting fuser still compresses without a range summary", async () => {
    // 45
    const { indexer } = mockIndexer({ summaries: ["s1", "s2"] });
    const { deps, appended } = makeDeps(indexer, { fuseRange: async () => { throw new Error("llm down"); } });
    const { compressedEntries } = await compressEligible([closed(100)], 0, deps);
    expect(compressedEntries).toHaveLength(1);
    expect(compressedEntries[0].rangeSummaryText).toBeUndefined();
    expect(appended).toHaveLength(1);
  });

  test("a fuser throwing synchronously is swallowed like a rejection", async () => {
    const { indexer } = mockIndexer({ summaries: ["s1", "s2"] });
    const { deps } = makeDeps(indexer, { fuseRange: () => { throw new Error("sync"); } });
    const { compressedEntries } = await compressEligible([closed(100)], 0, deps);
    expect(compressedEntries[0].rangeSummaryText).toBeUndefined();
  });

  test("a whitespace-only or non-string fuser result is treated as no fusion", async () => {
    for (const garbage of ["  \n ", "", 42, { text: "x" }, undefined]) {
      const { indexer } = mockIndexer({ summaries: ["s1", "s2"] });
      const { deps } = makeDeps(indexer, { fuseRange: async () => garbage });
      const { compressedEntries } = await compressEligible([closed(100)], 0, deps);
      expect("rangeSummaryText" in compressedEntries[0]).toBe(false);
    }
  });

  test("a fused text with surrounding whitespace is stored untrimmed", async () => {
    const { indexer } = mockIndexer({ summaries: ["s1", "s2"] });
    const { deps } = makeDeps(indexer, { fuseRange: async () => "  FUSED\n" });
    const { compressedEntries } = await compressEligible([closed(100)], 0, deps);
    expect(compressedEntries[0].rangeSummaryText).toBe("  FUSED\n");
  });

  test("protected ids are carried on the entry and the appended data", async () => {
    // 46
    const { indexer } = mockIndexer();
    const { deps, appended } = makeDeps(indexer);
    const { compressedEntries } = await compressEligible([closed(100, ["a", "b"], { protectedToolCallIds: ["b"] })], 0, deps);
    expect(compressedEntries[0].protectedToolCallIds).toEqual(["b"]);
    expect((appended[0][1] as ChainCompressionEntry).protectedToolCallIds).toEqual(["b"]);
  });

  test("an entry without protected ids omits the key", async () => {
    // 47
    const { indexer } = mockIndexer();
    const { deps } = makeDeps(indexer);
    const { compressedEntries } = await compressEligible([closed(100, ["a"], { protectedToolCallIds: [] })], 0, deps);
    expect("protectedToolCallIds" in compressedEntries[0]).toBe(false);
  });

  test("without a fuser the summaries are never looked up", async () => {
    // 48
    const { indexer, calls } = mockIndexer({ summaries: ["s1", "s2"] });
    const { deps } = makeDeps(indexer);
    const { compressedEntries } = await compressEligible([closed(100)], 0, deps);
    expect(compressedEntries[0].rangeSummaryText).toBeUndefined();
    expect(calls.some(([name]) => name === "summaries")).toBe(false);
  });

  test("lookups use the occurrence keys: coverage, then refs", async () => {
    // 49
    const { indexer, calls } = mockIndexer();
    const { deps } = coveredOnlyDeps(indexer);
    await compressEligible([closed(1000, ["bash_23"], { middleOccurrenceKeys: ["bash_23@1150"] })], 0, deps);
    const lookups = calls.filter(([name]) => name === "coverage" || name === "refs" || name === "summaries");
    expect(lookups).toEqual([["coverage", ["bash_23@1150"]], ["refs", ["bash_23@1150"]]]);
    expect(calls.some(([name]) => name === "getIndex" || name === "backfill")).toBe(false);
  });

  test("the entry records both the dropped ids and the dropped occurrence keys", async () => {
    // 50
    const { indexer } = mockIndexer();
    const { deps, appended } = makeDeps(indexer);
    const { compressedEntries } = await compressEligible([closed(1000, ["bash_23"], { middleOccurrenceKeys: ["bash_23@1150"] })], 0, deps);
    for (const e of [compressedEntries[0], appended[0][1] as ChainCompressionEntry]) {
      expect(e.droppedToolCallIds).toEqual(["bash_23"]);
      expect(e.droppedOccurrenceKeys).toEqual(["bash_23@1150"]);
    }
  });

  test("a chain without occurrence keys omits droppedOccurrenceKeys", async () => {
    // 51
    const { indexer } = mockIndexer();
    const { deps } = makeDeps(indexer);
    const { compressedEntries } = await compressEligible([closed(100, ["tc1"], { middleOccurrenceKeys: undefined })], 0, deps);
    expect(compressedEntries[0].droppedOccurrenceKeys).toBeUndefined();
    expect("droppedOccurrenceKeys" in compressedEntries[0]).toBe(false);
  });

  test("a fully optioned covered entry keeps the pinned key order", async () => {
    // P1
    const { indexer } = mockIndexer({ summaries: ["s1", "s2"] });
    const { deps } = makeDeps(indexer, { fuseRange: async () => "F" });
    const chain = closed(100, ["a", "b"], { middleOccurrenceKeys: ["a@1", "b@2"], protectedToolCallIds: ["b"] });
    const { compressedEntries } = await compressEligible([chain], 0, deps);
    expect(Object.keys(compressedEntries[0])).toEqual([
      "blockId", "startUserTimestamp", "droppedToolCallIds", "finalAssistantTimestamp", "toolRefs", "compressedAt",
      "rangeSummaryText", "protectedToolCallIds", "droppedOccurrenceKeys",
    ]);
  });

  test("a registered chain is reported already-compressed on the next call", async () => {
    // C8
    const { indexer, registered } = mockIndexer();
    let entries: ChainCompressionEntry[] = [];
    indexer.getChainEntries = () => entries;
    const { deps, appended } = makeDeps(indexer);
    await compressEligible([closed(100)], 0, deps);
    entries = registered;
    const second = await compressEligible([closed(100)], 0, deps);
    expect(second.compressedEntries).toEqual([]);
    expect(second.skipped).toEqual([{ startUserTimestamp: 100, reason: "already-compressed" }]);
    expect(appended).toHaveLength(1);
  });

  test("already-compressed skips precede no-summary skips and ignore the window", async () => {
    // C2
    const existing = { blockId: "b1", startUserTimestamp: 700 } as ChainCompressionEntry;
    const { indexer } = mockIndexer({ existing: [existing], covered: false });
    const { deps } = makeDeps(indexer);
    const res = await compressEligible([closed(100), closed(700)], 0, deps);
    expect(res.skipped).toEqual([
      { startUserTimestamp: 700, reason: "already-compressed" },
      { startUserTimestamp: 100, reason: "no-summary" },
    ]);
  });

  test("the chain registry is read once per call", async () => {
    // C1
    const { indexer, calls } = mockIndexer();
    const { deps } = makeDeps(indexer);
    await compressEligible([closed(100), closed(300), closed(500)], 0, deps);
    expect(calls.filter(([name]) => name === "getChainEntries")).toHaveLength(1);
  });

  test("chains are processed sequentially, each fuse awaited before the next chain", async () => {
    // C4
    const order: string[] = [];
    const { indexer } = mockIndexer({ summaries: ["s1", "s2"] });
    const { deps } = makeDeps(indexer, {
      fuseRange: async (t: string) => {
        order.push("fuse-start");
        await new Promise((r) => setTimeout(r, 1));
        order.push("fuse-end");
        return t;
      },
      appendEntry: () => order.push("append"),
    });
    await compressEligible([closed(100), closed(300)], 0, deps);
    expect(order).toEqual(["fuse-start", "fuse-end", "append", "fuse-start", "fuse-end", "append"]);
  });
});

describe("compressEligible: failing writes", () => {
  test("a failing appendEntry rejects and nothing is registered for that chain", async () => {
    // C7
    const { indexer, registered } = mockIndexer();
    const { deps } = makeDeps(indexer, { appendEntry: () => { throw new Error("disk full"); } });
    await expect(compressEligible([closed(100)], 0, deps)).rejects.toThrow("disk full");
    expect(registered).toEqual([]);
  });

  test("chains persisted before the failing write stay persisted and registered", async () => {
    const { indexer, registered } = mockIndexer();
    const written: unknown[] = [];
    let n = 0;
    const { deps } = makeDeps(indexer, {
      appendEntry: (_: string, data: unknown) => {
        if (++n === 2) throw new Error("stale");
        written.push(data);
      },
    });
    await expect(compressEligible([closed(100), closed(300), closed(500)], 0, deps)).rejects.toThrow("stale");
    expect(registered.map((e) => e.startUserTimestamp)).toEqual([100]);
    expect(written).toEqual(registered);
  });

  test("a throwing registerChain propagates", async () => {
    const { indexer } = mockIndexer();
    indexer.registerChain = () => { throw new Error("registry"); };
    const { deps } = makeDeps(indexer);
    await expect(compressEligible([closed(100)], 0, deps)).rejects.toThrow("registry");
  });

  test("a throwing indexer lookup propagates", async () => {
    const { indexer } = mockIndexer();
    indexer.hasPerBatchSummaryCoveringAny = () => { throw new Error("lookup"); };
    const { deps } = makeDeps(indexer);
    await expect(compressEligible([closed(100)], 0, deps)).rejects.toThrow("lookup");
  });
});

// ---------------------------------------------------------------------------
// extractChainRecords and buildDeterministicBody
// ---------------------------------------------------------------------------

describe("extractChainRecords", () => {
  const span = () => [
    user(1000),
    call(1010, [{ id: "c1", name: "bash", input: { cmd: "a" } }, { id: "c2", name: "read", input: { path: "x" } }]),
    result(1050, "c1", "out1"),
    result(1150, "c2", "out2", "read"),
    reply(1200),
  ];
  const bounds = { startUserTimestamp: 1000, finalAssistantTimestamp: 1200 };

  test("each result inside the span becomes one backfill record", () => {
    // 52
    expect(extractChainRecords(span(), bounds, () => false)).toEqual([
      { toolCallId: "c1", toolName: "bash", args: { cmd: "a" }, resultText: "out1", isError: false, turnIndex: -1, timestamp: 1050, resultTimestamp: 1050 },
      { toolCallId: "c2", toolName: "read", args: { path: "x" }, resultText: "out2", isError: false, turnIndex: -1, timestamp: 1150, resultTimestamp: 1150 },
    ]);
  });

  test("protected and already-indexed results are left out", () => {
    // 53
    const records = extractChainRecords(span(), { ...bounds, protectedToolCallIds: ["c1"] }, (k) => k === occKey("c2", 1150));
    expect(records).toEqual([]);
  });

  test("args are read from an args field when input is absent", () => {
    // 54
    const messages = [user(1000), call(1010, [{ id: "c1", name: "bash", args: { cmd: "a" } }]), result(1050, "c1", "o"), reply(1200)];
    expect(extractChainRecords(messages, bounds, () => false)[0].args).toEqual({ cmd: "a" });
  });

  test("args fall back to arguments, then to an empty object", () => {
    const messages = [
      user(1000),
      call(1010, [{ id: "c1", name: "bash", arguments: { cmd: "b" } }, { id: "c2", name: "bash" }]),
      result(1050, "c1", "o"), result(1060, "c2", "p"), reply(1200),
    ];
    expect(extractChainRecords(messages, bounds, () => false).map((r) => r.args)).toEqual([{ cmd: "b" }, {}]);
  });

  test("an error result is recorded with isError true", () => {
    const messages = [user(1000), call(1010, [{ id: "c1", name: "bash", input: {} }]), result(1050, "c1", "boom", "bash", true), reply(1200)];
    expect(extractChainRecords(messages, bounds, () => false)[0].isError).toBe(true);
  });

  test("results without a prior call or without a numeric timestamp are skipped", () => {
    const messages = [
      user(1000),
      result(1005, "early", "no call yet"),
      call(1010, [{ id: "c1", name: "bash", input: {} }]),
      { ...result(0, "c1", "x"), timestamp: "soon" },
      reply(1200),
    ];
    expect(extractChainRecords(messages, bounds, () => false)).toEqual([]);
  });

  test("only what the index can read back is archived: string ids, finite timestamps, string names, object args", () => {
    const messages = [
      user(1000),
      call(1010, [{ id: "c1", name: 7 as any, input: "raw text" }, { id: 5 as any, name: "bash", input: {} }]),
      result(1050, "c1", "kept"),
      { ...result(1060, "c1", "huge"), timestamp: 1e400 },
      { ...result(1070, "x", "numeric id"), toolCallId: 5 },
      reply(1200),
    ];
    expect(extractChainRecords(messages, bounds, () => false)).toEqual([
      { toolCallId: "c1", toolName: "", args: { _raw: "raw text" }, resultText: "kept", isError: false, turnIndex: -1, timestamp: 1050, resultTimestamp: 1050 },
    ]);
  });

  test("an unresolvable span yields no records", () => {
    // X1: duplicated start user, missing final, null final, start after end, empty messages
    expect(extractChainRecords([user(1000), ...span()], bounds, () => false)).toEqual([]);
    expect(extractChainRecords(span(), { startUserTimestamp: 1000, finalAssistantTimestamp: 9999 }, () => false)).toEqual([]);
    expect(extractChainRecords(span(), { startUserTimestamp: 1000, finalAssistantTimestamp: null }, () => false)).toEqual([]);
    expect(extractChainRecords([reply(1200), ...span().slice(0, 4)], bounds, () => false)).toEqual([]);
    expect(extractChainRecords([], bounds, () => false)).toEqual([]);
  });

  test("an id reused inside a span yields one record per result with the latest call's metadata", () => {
    const messages = [
      user(1000),
      call(1010, [{ id: "bash_1", name: "bash", input: { cmd: "first" } }]),
      result(1050, "bash_1", "one"),
      call(1060, [{ id: "bash_1", name: "bash", input: { cmd: "second" } }]),
      result(1070, "bash_1", "two"),
      reply(1200),
    ];
    const records = extractChainRecords(messages, bounds, () => false);
    expect(records.map((r) => [occKey(r.toolCallId, r.resultTimestamp), r.args, r.resultText])).toEqual([
      ["bash_1@1050", { cmd: "first" }, "one"],
      ["bash_1@1070", { cmd: "second" }, "two"],
    ]);
  });

  test("the input messages are not mutated", () => {
    const messages = span();
    const before = JSON.stringify(messages);
    extractChainRecords(messages, bounds, () => false);
    expect(JSON.stringify(messages)).toBe(before);
  });
});

describe("buildDeterministicBody", () => {
  test("the body follows the seven-line grammar exactly", () => {
    // 55
    const records = [
      rec("a1", "bash", { cmd: "ls" }, 1000),
      rec("a2", "bash", { cmd: "pwd" }, 2000),
      rec("a3", "read", { path: "f" }, 3000),
    ];
    expect(buildDeterministicBody(records, ["t1", "t2", "t3"])).toBe(
      [
        "Deterministic chain compression (no per-batch summary existed for this span; raw outputs recoverable via context_tree_query).",
        "Calls: 3",
        "Tools: bash x2, read x1",
        "Span: 1970-01-01T00:00:01.000Z -> 1970-01-01T00:00:03.000Z (2s)",
        'First: bash {"cmd":"ls"}',
        'Last: read {"path":"f"}',
        "Refs: t1, t2, t3",
      ].join("\n"),
    );
  });

  test("ordering and span are based on resultTimestamp", () => {
    // 56
    const records = [
      rec("a1", "read", { path: "late" }, 1000, { resultTimestamp: 9000 }),
      rec("a2", "bash", { cmd: "early" }, 9000, { resultTimestamp: 1000 }),
    ];
    const lines = buildDeterministicBody(records, ["t1", "t2"]).split("\n");
    expect(lines[3]).toBe("Span: 1970-01-01T00:00:01.000Z -> 1970-01-01T00:00:09.000Z (8s)");
    expect(lines[4].startsWith("First: bash ")).toBe(true);
    expect(lines[5].startsWith("Last: read ")).toBe(true);
  });

  test("empty refs fall back to the record ids in input order", () => {
    // 57
    const body = buildDeterministicBody([rec("a1", "bash", {}, 2000), rec("a2", "bash", {}, 1000)], []);
    expect(body.split("\n")[6]).toBe("Refs: a1, a2");
  });

  test("long args are cut to 200 characters plus an ellipsis", () => {
    // 58
    const body = buildDeterministicBody([rec("a1", "bash", { cmd: "a".repeat(300) }, 1000)], ["t1"]);
    const first = body.split("\n")[4];
    const excerpt = first.slice("First: bash ".length);
    expect(excerpt).toHaveLength(203);
    expect(excerpt.endsWith("...")).toBe(true);
  });

  test("a single empty call still yields a complete body", () => {
    // 59
    const body = buildDeterministicBody([rec("a1", "bash", {}, 1000)], ["t1"]);
    expect(body).toContain("Calls: 1");
    expect(body).toContain("Tools: bash x1");
    expect(body).toContain("Span:");
    expect(body.split("\n")[3]).toBe("Span: 1970-01-01T00:00:01.000Z -> 1970-01-01T00:00:01.000Z (0s)");
  });

  test("ties in the histogram sort by tool name", () => {
    const body = buildDeterministicBody([rec("a", "zed", {}, 1), rec("b", "alpha", {}, 2), rec("c", "zed", {}, 3), rec("d", "beta", {}, 4)], []);
    expect(body.split("\n")[2]).toBe("Tools: zed x2, alpha x1, beta x1");
  });

  test("undefined args leave a trailing space after the tool name", () => {
    const body = buildDeterministicBody([rec("a1", "bash", undefined as any, 1000)], []);
    expect(body.split("\n")[4]).toBe("First: bash ");
  });

  test("a timestamp beyond the Date range shows as ? instead of throwing", () => {
    const body = buildDeterministicBody([rec("a1", "bash", {}, 1e21, { resultTimestamp: 1e21 })], []);
    expect(body).toContain("Span: ? -> ? (0s)");
  });

  test("a record with a corrupt timestamp does not throw", () => {
    const body = buildDeterministicBody([rec("a1", "bash", {}, Number.NaN, { resultTimestamp: undefined })], []);
    expect(body).toContain("Calls: 1");
  });
});

// ---------------------------------------------------------------------------
// compressEligible: deterministic branch
// ---------------------------------------------------------------------------

describe("compressEligible: deterministic branch", () => {
  test("an uncovered chain compresses deterministically without calling the fuser", async () => {
    // 60
    const { indexer, backfills, registered } = mockIndexer({ covered: false, refs: ["t1", "t2"] });
    let fused = 0;
    const { deps } = makeDeps(indexer, { messages: detChainMessages(), fuseRange: async () => (fused++, "F") });
    const { compressedEntries } = await compressEligible([detChain()], 0, deps);
    expect(compressedEntries).toHaveLength(1);
    expect(compressedEntries[0].bodySource).toBe("deterministic");
    expect(compressedEntries[0].rangeSummaryText).toBeTruthy();
    expect(compressedEntries[0].toolRefs).toEqual(["t1", "t2"]);
    expect(fused).toBe(0);
    expect(backfills).toHaveLength(1);
    expect(backfills[0].map((r) => r.toolCallId)).toEqual(["c1"]);
    expect(registered).toHaveLength(1);
  });

  test("a covered chain never backfills", async () => {
    // 61
    const { indexer, backfills } = mockIndexer({ covered: true, refs: ["t1"] });
    const { deps } = makeDeps(indexer, { messages: detChainMessages(), now: () => 1 });
    const chain: ChainRange = { startUserTimestamp: 1000, middleToolCallIds: ["c1"], finalAssistantTimestamp: 1200 };
    const { compressedEntries } = await compressEligible([chain], 0, deps);
    expect(backfills).toHaveLength(0);
    expect(compressedEntries[0]).toEqual({ blockId: "b1", startUserTimestamp: 1000, droppedToolCallIds: ["c1"], finalAssistantTimestamp: 1200, toolRefs: ["t1"], compressedAt: 1 });
  });

  test("a rejecting backfill skips the chain without any write or block id", async () => {
    // 62
    const { indexer, registered } = mockIndexer({ covered: false, backfill: async () => { throw new Error("EACCES"); } });
    const { deps, appended, reports } = makeDeps(indexer, { messages: detChainMessages() });
    const res = await compressEligible([detChain()], 0, deps);
    expect(res.compressedEntries).toEqual([]);
    expect(res.skipped).toEqual([{ startUserTimestamp: 1000, reason: "no-summary" }]);
    expect(registered).toEqual([]);
    expect(appended).toEqual([]);
    expect(reports).toEqual([]);
    expect(deps.blockRefs.issued).toBe(0);
  });

  test("records already in the index compose the body without a new backfill", async () => {
    // 63
    const index = new Map<string, ToolCallRecord>([
      ["c1@1050", rec("c1", "bash", { cmd: "a" }, 1050, { resultText: "out1" })],
      ["c2@1150", rec("c2", "todowrite", { todos: [] }, 1150, { resultText: "PLAN" })],
    ]);
    const { indexer, backfills } = mockIndexer({ covered: false, index, refs: ["t1", "t2"] });
    const { deps } = makeDeps(indexer, { messages: detChainMessages() });
    const { compressedEntries } = await compressEligible([detChain()], 0, deps);
    expect(backfills).toHaveLength(0);
    expect(compressedEntries[0].bodySource).toBe("deterministic");
    expect(compressedEntries[0].rangeSummaryText).toContain("Calls: 2");
    expect(compressedEntries[0].rangeSummaryText).toContain("Tools: bash x1, todowrite x1");
  });

  test("a chain with nothing to backfill is skipped and reported once as backfill-empty", async () => {
    // 64
    const { indexer } = mockIndexer({ covered: false });
    const { deps, reports, appended } = makeDeps(indexer, { messages: [] });
    const res = await compressEligible([detChain()], 0, deps);
    expect(res.skipped).toEqual([{ startUserTimestamp: 1000, reason: "no-summary" }]);
    expect(reports).toEqual([["backfill-empty", "1000", "middles=2"]]);
    expect(appended).toEqual([]);
  });

  test("a fully protected chain is skipped quietly", async () => {
    // 65
    const { indexer } = mockIndexer({ covered: false });
    const { deps, reports, appended } = makeDeps(indexer, { messages: detChainMessages() });
    const res = await compressEligible([{ ...detChain(), protectedToolCallIds: ["c1", "c2"] }], 0, deps);
    expect(res.compressedEntries).toEqual([]);
    expect(res.skipped).toEqual([{ startUserTimestamp: 1000, reason: "no-summary" }]);
    expect(reports).toEqual([]);
    expect(appended).toEqual([]);
  });

  test("a single empty call compresses with a minimal body", async () => {
    // 66
    const { indexer } = mockIndexer({ covered: false, refs: ["t1"] });
    const messages = [user(1000), call(1010, [{ id: "c1", name: "bash", input: {} }]), result(1050, "c1", ""), reply(1200)];
    const { deps } = makeDeps(indexer, { messages });
    const chain: ChainRange = { startUserTimestamp: 1000, middleToolCallIds: ["c1"], middleOccurrenceKeys: ["c1@1050"], protectedToolCallIds: [], finalAssistantTimestamp: 1200 };
    const { compressedEntries } = await compressEligible([chain], 0, deps);
    expect(compressedEntries[0].rangeSummaryText).toContain("Calls: 1");
    expect(compressedEntries[0].rangeSummaryText).toContain("Tools: bash x1");
  });

  test("the deterministic entry keeps the pinned key order", async () => {
    // P1
    const { indexer } = mockIndexer({ covered: false, refs: ["t1"] });
    const { deps } = makeDeps(indexer, { messages: detChainMessages() });
    const { compressedEntries } = await compressEligible([detChain()], 0, deps);
    expect(Object.keys(compressedEntries[0])).toEqual([
      "blockId", "startUserTimestamp", "droppedToolCallIds", "finalAssistantTimestamp", "toolRefs", "compressedAt",
      "rangeSummaryText", "bodySource", "protectedToolCallIds", "droppedOccurrenceKeys",
    ]);
  });

  test("backfill receives the spill settings and the same appender", async () => {
    // B4
    let seenOpts: any;
    const { indexer } = mockIndexer({ covered: false, backfill: async (_r, opts) => ((seenOpts = opts), []) });
    const { deps } = makeDeps(indexer, { messages: detChainMessages() });
    await compressEligible([detChain()], 0, deps);
    expect(seenOpts).toEqual({ ...deps.backfill, appendEntry: deps.appendEntry });
  });

  test("refs are read after the backfill so fresh refs resolve", async () => {
    // B5, B6
    const { indexer, calls } = mockIndexer({ covered: false });
    const { deps } = makeDeps(indexer, { messages: detChainMessages() });
    await compressEligible([detChain()], 0, deps);
    const names = calls.map(([name]) => name).filter((n) => n === "backfill" || n === "refs");
    expect(names).toEqual(["backfill", "refs"]);
  });

  test("a chain whose boundaries cannot be resolved is skipped with a diagnostic", async () => {
    const { indexer } = mockIndexer({ covered: false });
    const messages = [user(1000), ...detChainMessages()];
    const { deps, reports, appended } = makeDeps(indexer, { messages });
    const res = await compressEligible([detChain()], 0, deps);
    expect(res.compressedEntries).toEqual([]);
    expect(reports.map((r) => r[0])).toEqual(["backfill-empty"]);
    expect(appended).toEqual([]);
  });

  test("an id reused across chains backfills only the occurrence not yet indexed", async () => {
    const messages = [
      user(1000), call(1100, [{ id: "bash_23", name: "bash", input: { cmd: "one" } }]), result(1150, "bash_23", "first"), reply(1200),
      user(2000), call(2100, [{ id: "bash_23", name: "bash", input: { cmd: "two" } }]), result(2150, "bash_23", "second"), reply(2200),
    ];
    const index = new Map<string, ToolCallRecord>([["bash_23@1150", rec("bash_23", "bash", { cmd: "one" }, 1150, { resultText: "first" })]]);
    const { indexer, backfills } = mockIndexer({ covered: false, index });
    const { deps } = makeDeps(indexer, { messages });
    const { compressedEntries } = await compressEligible(detectChains(messages), 0, deps);
    expect(compressedEntries).toHaveLength(2);
    expect(backfills).toHaveLength(1);
    expect(backfills[0].map((r) => [r.resultTimestamp, r.resultText])).toEqual([[2150, "second"]]);
  });

  test("a failing chain append after a successful backfill rejects and registers nothing", async () => {
    const { indexer, registered, backfills } = mockIndexer({ covered: false });
    const types: string[] = [];
    const { deps } = makeDeps(indexer, {
      messages: detChainMessages(),
      appendEntry: (type: string) => {
        types.push(type);
        if (type === CUSTOM_TYPE_CHAIN) throw new Error("chain write failed");
      },
    });
    await expect(compressEligible([detChain()], 0, deps)).rejects.toThrow("chain write failed");
    expect(backfills).toHaveLength(1);
    expect(registered).toEqual([]);
    expect(types).toEqual([CUSTOM_TYPE_CHAIN]);
  });
});

// ---------------------------------------------------------------------------
// Recoveries inside a chain (issue 16): derived from the archive, not archived again
// ---------------------------------------------------------------------------

describe("recoveries inside a chain", () => {
  const recoveryChain = (args: unknown = { toolCallIds: ["t1", "t4", "t1"] }, text = "## toolRef: t1\n\nout") => [
    user(1000),
    call(1010, [{ id: "b1", name: "bash", arguments: { cmd: "ls" } }, { id: "q1", name: "context_tree_query", arguments: args }]),
    result(1011, "b1", "listing"),
    result(1012, "q1", text, "context_tree_query"),
    reply(1100),
  ];
  const onlyRecovery = () => [
    user(1000),
    call(1010, [{ id: "q1", name: "context_tree_query", arguments: { toolCallIds: ["t1"] } }]),
    result(1012, "q1", "## toolRef: t1\n\nout", "context_tree_query"),
    reply(1100),
  ];

  test("extractChainRecords archives the other calls and leaves a rederivable recovery out", () => {
    expect(extractChainRecords(recoveryChain(), detectChains(recoveryChain())[0]!, () => false).map((r) => r.toolCallId)).toEqual(["b1"]);
  });

  test("a recovery the same call cannot give back (a ref not found, odd arguments, an error) is archived like any output", () => {
    const notFound = recoveryChain(undefined, "## toolRef: t9\n(not found in index \u2014 may not have been summarized yet)");
    const odd = recoveryChain({ toolCallIds: [{ id: "t1" }] });
    for (const messages of [notFound, odd]) {
      expect(extractChainRecords(messages, detectChains(messages)[0]!, () => false).map((r) => r.toolCallId)).toEqual(["b1", "q1"]);
    }
  });

  test("withRecoveredRefs adds the refs a chain's recoveries showed, each once, and passes other chains on as they are", () => {
    const messages = [...recoveryChain(), user(2000), call(2010, [{ id: "b2", name: "bash" }]), result(2011, "b2", "x"), reply(2100)];
    const chains = detectChains(messages);
    const annotated = withRecoveredRefs(chains, messages);
    expect(annotated[0]!.recoveredRefs).toEqual(["t1", "t4"]);
    expect(annotated[1]).toBe(chains[1]);
  });

  test("a covered chain's block names its own refs, then the recovered ones, without reading the messages", async () => {
    const { indexer } = mockIndexer({ refs: ["t7", "t1"] });
    const { deps } = coveredOnlyDeps(indexer);
    const chain = { ...closed(100, ["b1", "q1"]), recoveredRefs: ["t1", "t4"] };
    const { compressedEntries } = await compressEligible([chain], 0, deps);
    expect(compressedEntries[0]!.toolRefs).toEqual(["t7", "t1", "t4"]);
  });

  test("a chain of nothing but a recovery compresses deterministically, naming the recovered ref", async () => {
    const messages = onlyRecovery();
    const { indexer, backfills } = mockIndexer({ covered: false, refs: [] });
    const { deps, reports } = makeDeps(indexer, { messages });
    const { compressedEntries } = await compressEligible(withRecoveredRefs(detectChains(messages), messages), 0, deps);
    expect(backfills).toEqual([]);
    expect(reports).toEqual([]);
    const entry = compressedEntries[0]!;
    expect(entry.toolRefs).toEqual(["t1"]);
    expect(entry.bodySource).toBe("deterministic");
    expect(entry.rangeSummaryText).toContain("Tools: context_tree_query x1");
    expect(entry.rangeSummaryText).toContain("Refs: t1");
  });
});

describe("compressEligible: a chain archived without summaries by choice", () => {
  const archivedIndex = () =>
    new Map<string, ToolCallRecord>([
      ["c1@1050", rec("c1", "bash", { cmd: "a" }, 1050, { resultText: "out1", outcome: "exit 0", unsummarized: true, supersededBy: { rule: "rerun", toolName: "bash", command: "a" } })],
      ["c2@1150", rec("c2", "todowrite", { todos: [] }, 1150, { resultText: "PLAN" })],
    ]);
  const refOf = (keys: string[]) => keys.map((key) => ({ "c1@1050": "t1", "c2@1150": "t2" })[key] ?? "t?");

  test("its block lists each call with its ref and the facts its stub showed", async () => {
    const { indexer } = mockIndexer({ covered: false, index: archivedIndex(), refs: refOf });
    const { deps } = makeDeps(indexer, { messages: detChainMessages() });
    const { compressedEntries } = await compressEligible([detChain()], 0, deps);
    expect(compressedEntries[0]!.bodySource).toBe("deterministic");
    expect(compressedEntries[0]!.rangeSummaryText).toBe(
      [
        "Archived without a summary; context_tree_query returns each output by its ref:",
        "t1 bash: exit 0 (run again later)",
        't2 todowrite: {"todos":[]}',
      ].join("\n"),
    );
  });

  test("records of a session that summarized everything keep the 2.9.1 body", async () => {
    const index = archivedIndex();
    for (const [key, record] of index) index.set(key, { ...record, unsummarized: undefined });
    const { indexer } = mockIndexer({ covered: false, index, refs: refOf });
    const { deps } = makeDeps(indexer, { messages: detChainMessages() });
    const { compressedEntries } = await compressEligible([detChain()], 0, deps);
    expect(compressedEntries[0]!.rangeSummaryText).toStartWith("Deterministic chain compression");
  });

  test("a long argument is cut so one call stays one short line", () => {
    const body = archivedChainBody([{ ref: "t9", toolName: "bash", args: { command: "x".repeat(500) } }]);
    const line = body.split("\n")[1]!;
    expect(line.length).toBe(160);
    expect(line.endsWith("...")).toBe(true);
  });
});
