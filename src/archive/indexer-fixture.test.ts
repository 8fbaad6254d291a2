import { afterAll, describe, expect, spyOn, test } from "bun:test";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { captureUnindexedBatchesFromSession } from "../capture/batch-capture.js";
import { PruneFrontierTracker } from "../capture/frontier.js";
import { ToolCallIndexer } from "./indexer.js";
import { pruneMessages } from "../render/pruner.js";
import { registerQueryTool } from "./query-tool.js";

// A session written across pi-condense eras: 0.x legacy toolCallIds summaries and bare
// records, 2.x short refs without timestamps plus a hashed legacy dedup alias and a
// legacy spill, 2.6+ occurrence keys for a provider that reuses ids, a 2.9 backfilled
// chain, an abandoned side branch, and unknown extra fields / entry kinds throughout.
const FIXTURE = join(import.meta.dir, "..", "..", "test", "fixtures", "multi-version-session.jsonl");
const STATUS = "On branch main\nnothing to commit, working tree clean";
const TEST_OUT = "bun test v1.1\n\n 42 pass\n 0 fail\nRan 42 tests across 7 files.";
const C1 = 1733234551300;
const C2 = 1733234553300;
const D1 = 1733234638300;
const E1 = 1733234701200;

const workDir = mkdtempSync(join(tmpdir(), "indexer-fixture-"));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

function openFixture() {
  const path = join(workDir, "session.jsonl");
  copyFileSync(FIXTURE, path);
  const sessionManager = SessionManager.open(path, workDir);
  return { ctx: { sessionManager } as any, path };
}

function rebuilt() {
  const { ctx } = openFixture();
  const indexer = new ToolCallIndexer();
  indexer.reconstructFromSession(ctx);
  return { ctx, indexer };
}

async function ask(indexer: ToolCallIndexer, ids: string[]): Promise<string> {
  let tool: any;
  registerQueryTool({ registerTool: (def: any) => (tool = def) } as any, indexer);
  const result = await tool.execute("q", { toolCallIds: ids });
  return result.content[0].text;
}

describe("full rebuild from a multi-version session file", () => {
  test("loads without errors and without touching the file", () => {
    const errors = spyOn(console, "error").mockImplementation(() => {});
    try {
      const { ctx, path } = openFixture();
      const before = readFileSync(path, "utf8");
      const indexer = new ToolCallIndexer();
      indexer.reconstructFromSession(ctx);
      expect(errors).not.toHaveBeenCalled();
      expect(readFileSync(path, "utf8")).toBe(before);
    } finally {
      errors.mockRestore();
    }
  });

  test("indexes every record on the active branch and none from the abandoned one", () => {
    const { indexer } = rebuilt();
    expect([...indexer.getIndex().keys()].sort()).toEqual(
      ["call_7", "call_9", `functions.bash:0@${C1}`, `functions.bash:0@${C2}`, `ls_1@${E1}`, "toolu_01A", "toolu_01B"].sort(),
    );
    expect(indexer.getRecordsForId("side_1")).toEqual([]);
  });

  test("0.x legacy records stay bare-keyed and legacy-only", () => {
    const { indexer } = rebuilt();
    expect(indexer.hasLegacyBareRecord("toolu_01A")).toBe(true);
    expect(indexer.getShortRefForToolCallId("toolu_01A")).toBeUndefined();
    expect(indexer.getPerBatchSummaryTextForToolCallIds(["toolu_01B"])).toContain("config.ts parses JSON");
    expect((indexer.getRecord("toolu_01A") as any).capturedBy).toBe("0.9.3");
  });

  test("2.x short refs and a legacy dedup alias resolve without timestamps", () => {
    const { indexer } = rebuilt();
    expect(indexer.getRecord("t1")?.resultText).toBe(TEST_OUT);
    expect(indexer.isSummarized("call_8")).toBe(true);
    expect(indexer.getRecord("call_8")).toBe(indexer.getRecord("call_7"));
    expect(indexer.getShortRefForToolCallId("call_8")).toBe("t1");
    expect(indexer.lookupByContent("bash", `${TEST_OUT}  \n`)).toBe("call_7");
  });

  test("a reused provider id yields one record per occurrence, alias included", () => {
    const { indexer } = rebuilt();
    expect(indexer.resolveToolCallId("t2")).toBe(`functions.bash:0@${C1}`);
    expect(indexer.resolveToolCallId("t3")).toBe(`functions.bash:0@${C2}`);
    expect(indexer.resolveToolCallId("functions.bash:0")).toBeUndefined();
    expect(indexer.getShortRefForToolCallId(`functions.bash:0@${D1}`)).toBe("t2");
    const records = indexer.getRecordsForId("functions.bash:0");
    expect(records.map((r) => r.resultTimestamp)).toEqual([C1, C2, D1]);
    expect(records[2]!.resultText).toBe(STATUS);
  });

  test("the backfilled chain restores its ref, its chain entry and no dedup canonical", () => {
    const { indexer } = rebuilt();
    expect(indexer.getRecord("t4")?.turnIndex).toBe(-1);
    expect(indexer.lookupByContent("bash", "config.ts\nindex.ts\nutil.ts")).toBeUndefined();
    const chains = indexer.getChainEntries();
    expect(chains.map((c) => c.blockId)).toEqual(["b1", "b2"]);
    expect(chains[0]!.bodySource).toBeUndefined();
    expect(chains[0]!.droppedOccurrenceKeys).toBeUndefined();
    expect(chains[1]!.bodySource).toBe("deterministic");
    expect((chains[1] as any).renderHint).toBe("future-field");
    expect(indexer.allocateSummaryRefs({ turnIndex: 0, timestamp: 0, assistantText: "", toolCalls: [{ toolCallId: "n", toolName: "x", args: {}, resultText: "", isError: false }] })[0]!.shortId).toBe("t5");
  });

  test("the frontier takes the last entry and drops the legacy field", () => {
    const { ctx } = openFixture();
    const frontier = new PruneFrontierTracker();
    frontier.reconstructFromSession(ctx);
    expect(frontier.get()).toMatchObject({ lastAttemptedTurnIndex: 8, outcome: "skipped-deduped" });
    expect(Object.hasOwn(frontier.get()!, "thinkingStripBoundaryTimestamp")).toBe(false);
  });

  test("context_tree_query answers every era", async () => {
    const { indexer } = rebuilt();
    const errors = spyOn(console, "error").mockImplementation(() => {});
    try {
      expect(await ask(indexer, ["t1"])).toContain("42 pass");
      expect(await ask(indexer, ["toolu_01A"])).toContain("src/index.ts:4");
      expect(await ask(indexer, ["call_9"])).toContain("<title>Docs</title>");
      expect(await ask(indexer, ["t4"])).toContain("util.ts");
      expect(await ask(indexer, ["side_1"])).toContain("not found in index");
      const all = await ask(indexer, ["functions.bash:0"]);
      expect(all.split("## toolRef:").length - 1).toBe(3);
      expect(all).toContain(`functions.bash:0@${D1}`);
    } finally {
      errors.mockRestore();
    }
  });

  test("rendering the branch stubs legacy and occurrence-keyed results alike", () => {
    const { ctx, indexer } = rebuilt();
    const messages = ctx.sessionManager
      .getBranch()
      .filter((e: any) => e.type === "message" && e.message.role !== "system")
      .map((e: any) => e.message);
    const out = pruneMessages(messages, indexer);
    const text = (id: string, ts: number) =>
      out.messages.find((m: any) => m.role === "toolResult" && m.toolCallId === id && m.timestamp === ts)?.content[0].text;
    expect(text("toolu_01A", 1733234402400)).toContain("ref `toolu_01A`");
    expect(text("functions.bash:0", C2)).toContain("ref `t3`");
    expect(text("functions.bash:0", D1)).toContain("ref `t2`");
    expect(text("ls_1", E1)).toContain("ref `t4`");
  });

  test("the branch rescan skips every occurrence-keyed summarized call", () => {
    const { ctx, indexer } = rebuilt();
    const batches = captureUnindexedBatchesFromSession(ctx.sessionManager.getBranch(), indexer);
    const ids = batches.flatMap((b) => b.toolCalls.map((c) => c.toolCallId));
    expect(ids).not.toContain("functions.bash:0");
    expect(ids).not.toContain("ls_1");
    expect(ids).not.toContain("side_1");
  });
});
