import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BlockRefIssuer } from "./block-refs.js";
import { compressEligible } from "./chain-compressor.js";
import { detectChains } from "./chain-detector.js";
import { ToolCallIndexer } from "../archive/indexer.js";
import { bareToolCallId, occKey } from "../capture/occurrence-key.js";
import { isProtected } from "../capture/protected.js";
import { pruneMessages } from "../render/pruner.js";
import { expectNoOrphanToolResults } from "../../test/orphan-assertions.js";
import { CUSTOM_TYPE_CHAIN, CUSTOM_TYPE_INDEX } from "../names.js";
import type { ChainCompressionConfig } from "../settings/config-shape.js";
import type { ChainRange } from "./chain-detector.js";

const sessionDir = mkdtempSync(join(tmpdir(), "pi-condense-range-"));
afterAll(() => rmSync(sessionDir, { recursive: true, force: true }));

// ---------------------------------------------------------------------------
// Factories and helpers
// ---------------------------------------------------------------------------

const user = (ts: number, text = "do the task") => ({ role: "user", content: [{ type: "text", text }], timestamp: ts });
const callTurn = (ts: number, calls: Array<[string, string, Record<string, unknown>?]>) => ({
  role: "assistant",
  content: calls.map(([id, name, args]) => ({ type: "toolCall", id, name, arguments: args ?? {} })),
  timestamp: ts,
});
const result = (ts: number, id: string, text: string, toolName = "bash") => ({
  role: "toolResult",
  toolCallId: id,
  toolName,
  content: [{ type: "text", text }],
  isError: false,
  timestamp: ts,
});
const finalReply = (ts: number) => ({
  role: "assistant",
  content: [{ type: "thinking", thinking: "wrap up", thinkingSignature: "sig" }, { type: "text", text: "All done." }],
  timestamp: ts,
});

const render = (fuse = false): ChainCompressionConfig => ({
  enabled: true,
  rollingWindow: 0,
  stripFinalAssistantThinking: true,
  fuseRangeSummary: fuse,
});
const protection = { protectedTools: [] as string[], protectedPaths: ["**/skills/**/*.md"] };
const protectTodo = (name: string) => name === "todowrite";
const protectPaths = (name: string, args: unknown) => isProtected(name, args, protection);

const textOf = (msg: any): string => (Array.isArray(msg.content) ? msg.content.map((b: any) => b.text ?? "").join("") : String(msg.content));
const synthetics = (messages: any[]) =>
  messages.filter((m) => m.role === "user" && textOf(m).startsWith("<compressed-chain"));
const toolResults = (messages: any[]) => messages.filter((m) => m.role === "toolResult");

interface Captured {
  type: "custom";
  customType: string;
  data: any;
}

function setup(extra: Record<string, unknown> = {}) {
  const indexer = new ToolCallIndexer();
  const captured: Captured[] = [];
  const appendEntry = (customType: string, data?: unknown) => {
    captured.push({ type: "custom", customType, data });
  };
  const reports: string[] = [];
  const deps = (messages: any[]) => ({
    indexer,
    blockRefs: new BlockRefIssuer(),
    appendEntry,
    now: () => 5000,
    messages,
    diagnostics: { report: (kind: string) => reports.push(kind) },
    backfill: { spillThreshold: 65536, spillPreviewBytes: 64, sessionDir, sessionId: "sess" },
    ...extra,
  });
  return { indexer, captured, appendEntry, deps, reports };
}

/** Prime one summarized batch the way a live flush does: refs, records, then the body. */
function primeBatch(
  indexer: ToolCallIndexer,
  turnIndex: number,
  calls: Array<{ id: string; name: string; text: string; ts?: number; args?: Record<string, unknown> }>,
  body: string,
  keyer: (id: string, ts?: number) => string = occKey,
): string[] {
  const batch = {
    turnIndex,
    timestamp: 1,
    assistantText: "",
    toolCalls: calls.map((c) => ({
      toolCallId: c.id,
      toolName: c.name,
      args: c.args ?? {},
      resultText: c.text,
      isError: false,
      ...(c.ts !== undefined ? { resultTimestamp: c.ts } : {}),
    })),
  };
  const refs = indexer.allocateSummaryRefs(batch);
  indexer.registerSummaryRefs(refs);
  indexer.addBatch(batch, () => {});
  indexer.registerSummaryBody(calls.map((c) => keyer(c.id, c.ts)), body);
  return refs.map((r) => r.shortId);
}

/** Every dropped, unprotected original is still reachable through the indexer with its raw text. */
function expectRecoverable(indexer: ToolCallIndexer, originals: any[]) {
  for (const msg of originals) {
    const records = indexer.getRecordsForId(msg.toolCallId);
    const raw = textOf(msg);
    const found = records.some(
      (r) => r.resultText === raw || (r.spillPath !== undefined && readFileSync(r.spillPath, "utf8") === raw),
    );
    expect(found).toBe(true);
  }
}

// Shared fixture: one chain with two tool turns (6 messages).
const twoTurnChain = () => [
  user(100),
  callTurn(150, [["tc1", "bash", { cmd: "ls" }]]),
  result(200, "tc1", "raw listing output"),
  callTurn(250, [["tc2", "bash", { cmd: "cat a" }]]),
  result(300, "tc2", "raw file contents"),
  finalReply(400),
];

// ---------------------------------------------------------------------------
// Covered chains
// ---------------------------------------------------------------------------

describe("range compression: covered chains", () => {
  test("a fused range summary replaces the chain and keeps both refs", async () => {
    // R1, 67
    const { indexer, deps } = setup();
    primeBatch(indexer, 0, [{ id: "tc1", name: "bash", text: "raw listing output", ts: 200 }], "summary of batch 1");
    primeBatch(indexer, 1, [{ id: "tc2", name: "bash", text: "raw file contents", ts: 300 }], "summary of batch 2");
    const messages = twoTurnChain();
    const fuseInputs: string[] = [];
    const fuseRange = async (text: string) => (fuseInputs.push(text), "FUSED COHESIVE SUMMARY");
    const { compressedEntries } = await compressEligible(detectChains(messages), 0, { ...deps(messages), fuseRange });

    expect(fuseInputs).toEqual(["summary of batch 1\n\nsummary of batch 2"]);
    expect(compressedEntries).toHaveLength(1);
    expect(compressedEntries[0].rangeSummaryText).toBe("FUSED COHESIVE SUMMARY");
    expect(indexer.getChainEntries()[0].rangeSummaryText).toBe("FUSED COHESIVE SUMMARY");

    const out = pruneMessages(messages, indexer, render(true), undefined, protection, 0).messages;
    const [synthetic] = synthetics(out);
    expect(textOf(synthetic)).toContain("FUSED COHESIVE SUMMARY");
    expect(textOf(synthetic)).not.toContain("summary of batch 1");
    expect(textOf(synthetic)).toContain('tools="t1,t2"');
    expect(toolResults(out)).toEqual([]);
    expectNoOrphanToolResults(out);
    expectRecoverable(indexer, toolResults(messages));
  });

  test("a protected todowrite output is relocated verbatim and gets no ref", async () => {
    // R2, 68
    const { indexer, deps } = setup();
    primeBatch(indexer, 0, [{ id: "tc1", name: "bash", text: "raw listing output" }], "summary of tc1", (id) => id);
    const messages = [
      user(100),
      callTurn(150, [["tc1", "bash"], ["tc2", "todowrite", { todos: ["x"] }]]),
      result(200, "tc1", "raw listing output"),
      result(210, "tc2", "PLAN-STATE-XYZ", "todowrite"),
      finalReply(400),
    ];
    const chain: ChainRange = { startUserTimestamp: 100, middleToolCallIds: ["tc1", "tc2"], protectedToolCallIds: ["tc2"], finalAssistantTimestamp: 400 };
    await compressEligible([chain], 0, deps(messages));

    expect(indexer.getChainEntries()[0].protectedToolCallIds).toEqual(["tc2"]);
    const out = pruneMessages(messages, indexer, render(), undefined, protection, 0).messages;
    const text = textOf(synthetics(out)[0]);
    expect(text).toContain('<protected-output tool="todowrite">\nPLAN-STATE-XYZ\n</protected-output>');
    expect(text).toContain('tools="t1"');
    expect(text).not.toContain("t2");
    expect(toolResults(out)).toEqual([]);
    expectNoOrphanToolResults(out);
    expectRecoverable(indexer, [messages[2]]);
  });

  test("a path-protected skill read is detected, relocated and kept out of the refs", async () => {
    // R3, 69
    const { indexer, deps } = setup();
    const messages = [
      user(100),
      callTurn(150, [["tc1", "read", { path: "/h/src/app.ts" }], ["tc2", "read", { path: "/h/skills/x/SKILL.md" }]]),
      result(200, "tc1", "export const APP_SOURCE = 1;", "read"),
      result(210, "tc2", "SKILL-INSTRUCTIONS-TEXT", "read"),
      finalReply(400),
    ];
    const chains = detectChains(messages, protectPaths);
    expect(chains).toHaveLength(1);
    expect(chains[0].protectedToolCallIds).toEqual(["tc2"]);
    primeBatch(indexer, 0, [{ id: "tc1", name: "read", text: "export const APP_SOURCE = 1;", ts: 200, args: { path: "/h/src/app.ts" } }], "summary of app read");
    const { compressedEntries } = await compressEligible(chains, 0, deps(messages));
    expect(compressedEntries).toHaveLength(1);

    const out = pruneMessages(messages, indexer, render(), undefined, protection, 0).messages;
    const text = textOf(synthetics(out)[0]);
    expect(text).toContain('<protected-output tool="read">\nSKILL-INSTRUCTIONS-TEXT\n</protected-output>');
    expect(text).not.toContain("APP_SOURCE");
    expect(text).not.toContain("t2");
    expect(toolResults(out)).toEqual([]);
    expectNoOrphanToolResults(out);
    expectRecoverable(indexer, [messages[2]]);
  });

  test("without a fuser the synthetic body concatenates the per-batch summaries", async () => {
    // R4, 70
    const { indexer, deps } = setup();
    primeBatch(indexer, 0, [{ id: "tc1", name: "bash", text: "raw listing output", ts: 200 }], "summary of batch 1");
    primeBatch(indexer, 1, [{ id: "tc2", name: "bash", text: "raw file contents", ts: 300 }], "summary of batch 2");
    const messages = twoTurnChain();
    await compressEligible(detectChains(messages), 0, deps(messages));

    const out = pruneMessages(messages, indexer, render(), undefined, protection, 0).messages;
    const text = textOf(synthetics(out)[0]);
    expect(text).toContain("summary of batch 1\n\nsummary of batch 2");
    expectNoOrphanToolResults(out);
  });
});

// ---------------------------------------------------------------------------
// Uncovered chains (deterministic backfill)
// ---------------------------------------------------------------------------

const chainA = () => [user(100), callTurn(150, [["tcA", "bash", { cmd: "make" }]]), result(200, "tcA", "build ok"), finalReply(300)];
const chainB = () => [
  user(1000),
  callTurn(1100, [["tcB1", "bash", { cmd: "test" }], ["tcB2", "grep", { q: "x" }]]),
  result(1150, "tcB1", "12 tests passed"),
  result(1160, "tcB2", "src/a.ts:1: x"),
  finalReply(1200),
];

describe("range compression: uncovered chains", () => {
  test("a covered and an uncovered chain compress in one call without disturbing each other", async () => {
    // R5, 71
    const { indexer, deps } = setup();
    primeBatch(indexer, 0, [{ id: "tcA", name: "bash", text: "build ok" }], "summary of A", (id) => id);
    const messages = [...chainA(), ...chainB()];
    // Chain A is a legacy range (bare ids only), so its bare-keyed body covers it.
    const legacyA: ChainRange = { startUserTimestamp: 100, middleToolCallIds: ["tcA"], finalAssistantTimestamp: 300 };
    const [detectedB] = detectChains(chainB());
    expect(detectedB.middleOccurrenceKeys).toEqual(["tcB1@1150", "tcB2@1160"]);
    const { compressedEntries } = await compressEligible([legacyA, detectedB], 0, deps(messages));
    expect(compressedEntries).toHaveLength(2);
    expect(compressedEntries[0].bodySource).toBeUndefined();
    expect(compressedEntries[1].bodySource).toBe("deterministic");

    const out = pruneMessages(messages, indexer, render(), undefined, protection, 0).messages;
    const synth = synthetics(out);
    expect(synth).toHaveLength(2);
    expect(synth.filter((m) => textOf(m).includes("Deterministic chain compression"))).toHaveLength(1);
    expectNoOrphanToolResults(out);
    expectRecoverable(indexer, toolResults(messages));

    const reference = setup();
    primeBatch(reference.indexer, 0, [{ id: "tcA", name: "bash", text: "build ok" }], "summary of A", (id) => id);
    const onlyA = chainA();
    const refRun = await compressEligible([legacyA], 0, reference.deps(onlyA));
    expect(compressedEntries[0]).toEqual(refRun.compressedEntries[0]);
    const refOut = pruneMessages(onlyA, reference.indexer, render(), undefined, protection, 0).messages;
    expect(synth[0]).toEqual(synthetics(refOut)[0]);
  });

  test("a backfilled ref resolves to the raw output", async () => {
    // R6, 72
    const { indexer, deps } = setup();
    const messages = chainA();
    const { compressedEntries } = await compressEligible(detectChains(messages), 0, deps(messages));
    const ref = compressedEntries[0].toolRefs[0];
    expect(ref).toMatch(/^t\d+$/);
    expect(indexer.getRecord(ref)?.resultText).toBe("build ok");
    expect(indexer.getRecord(ref)?.turnIndex).toBe(-1);
  });

  test("a failed chain write converges on retry without a second index entry", async () => {
    // R7, 73
    const first = setup({
      appendEntry: (customType: string, data?: unknown) => {
        if (customType === CUSTOM_TYPE_CHAIN) throw new Error("chain append failed");
        first.captured.push({ type: "custom", customType, data });
      },
    });
    const messages = chainB();
    await expect(compressEligible(detectChains(messages), 0, first.deps(messages))).rejects.toThrow("chain append failed");
    expect(first.captured.map((e) => e.customType)).toEqual([CUSTOM_TYPE_INDEX]);
    expect(first.indexer.getChainEntries()).toEqual([]);

    const second = setup();
    second.indexer.reconstructFromSession({ sessionManager: { getBranch: () => first.captured } } as any);
    const { compressedEntries } = await compressEligible(detectChains(messages), 0, second.deps(messages));
    expect(second.captured.map((e) => e.customType)).toEqual([CUSTOM_TYPE_CHAIN]);
    expect(compressedEntries[0].toolRefs).toEqual(first.captured[0].data.refs.map((r: any) => r.shortId));
  });

  test("three uncovered chains all compress deterministically in one call", async () => {
    // R8, 74
    const { indexer, deps } = setup();
    const messages = [100, 200, 300].flatMap((s) => [
      user(s * 10),
      callTurn(s * 10 + 1, [[`c${s}`, "bash"]]),
      result(s * 10 + 2, `c${s}`, `output ${s}`),
      finalReply(s * 10 + 3),
    ]);
    const { compressedEntries } = await compressEligible(detectChains(messages), 0, deps(messages));
    expect(compressedEntries.map((e) => e.bodySource)).toEqual(["deterministic", "deterministic", "deterministic"]);
    const out = pruneMessages(messages, indexer, render(), undefined, protection, 0).messages;
    expect(synthetics(out)).toHaveLength(3);
    expect(toolResults(out)).toEqual([]);
    expectNoOrphanToolResults(out);
    expectRecoverable(indexer, toolResults(messages));
  });

  test("a fully deduplicated chain is re-indexed under its own keys without moving canonicals", async () => {
    // R9, 75
    const { indexer, deps } = setup();
    const batch = {
      turnIndex: 0,
      timestamp: 1,
      assistantText: "",
      toolCalls: [
        { toolCallId: "origA", toolName: "bash", args: {}, resultText: "text A", isError: false, resultTimestamp: 50 },
        { toolCallId: "origB", toolName: "bash", args: {}, resultText: "text B", isError: false, resultTimestamp: 60 },
      ],
    };
    indexer.addBatch(batch, () => {});
    indexer.registerDuplicate("dup3@70", "origA@50", () => {});
    indexer.registerDuplicate("tc1@1050", "origA@50", () => {});
    indexer.registerDuplicate("tc2@1150", "origB@60", () => {});
    const messages = [
      user(1000),
      callTurn(1010, [["tc1", "bash"], ["tc2", "bash"]]),
      result(1050, "tc1", "text A"),
      result(1150, "tc2", "text B"),
      finalReply(1200),
    ];
    const { compressedEntries } = await compressEligible(detectChains(messages), 0, deps(messages));
    expect(compressedEntries).toHaveLength(1);
    expect(compressedEntries[0].bodySource).toBe("deterministic");
    expect(indexer.getIndex().get("tc1@1050")?.resultText).toBe("text A");
    expect(indexer.getIndex().get("tc2@1150")?.resultText).toBe("text B");
    expect(indexer.getRecord("dup3@70")?.toolCallId).toBe("origA");
    expect(indexer.lookupByContent("bash", "text A")).toBe("origA@50");
    expect(indexer.lookupByContent("bash", "text B")).toBe("origB@60");
  });

  test("an uncovered chain relocates its protected output and refs only the rest", async () => {
    // R10, 76
    const { indexer, deps } = setup();
    const messages = [
      user(1000),
      callTurn(1100, [["tcB1", "bash", { cmd: "test" }], ["tcB2", "todowrite", { todos: [] }]]),
      result(1150, "tcB1", "12 tests passed"),
      result(1160, "tcB2", "PLAN-STATE-XYZ", "todowrite"),
      finalReply(1200),
    ];
    const { compressedEntries } = await compressEligible(detectChains(messages, protectTodo), 0, deps(messages));
    const entry = compressedEntries[0];
    expect(entry.bodySource).toBe("deterministic");
    expect(entry.toolRefs).toHaveLength(1);
    expect(bareToolCallId(indexer.resolveToolCallId(entry.toolRefs[0]) ?? "")).toBe("tcB1");
    expect(indexer.getRecordsForId("tcB2")).toEqual([]);

    const out = pruneMessages(messages, indexer, render(), undefined, protection, 0).messages;
    expect(textOf(synthetics(out)[0])).toContain('<protected-output tool="todowrite">\nPLAN-STATE-XYZ\n</protected-output>');
    expect(toolResults(out)).toEqual([]);
    expectNoOrphanToolResults(out);
    expectRecoverable(indexer, [messages[2]]);
  });
});

// ---------------------------------------------------------------------------
// Detect -> compress -> render end to end (spec 40 integration)
// ---------------------------------------------------------------------------

describe("range compression: detect, compress, render", () => {
  test("the rolling window leaves the newest chains raw and compresses only the oldest", async () => {
    const { indexer, deps } = setup();
    const messages = [1, 2, 3, 4].flatMap((n) => [
      user(n * 1000),
      callTurn(n * 1000 + 100, [[`bash_${n}`, "bash", { cmd: `step ${n}` }]]),
      result(n * 1000 + 150, `bash_${n}`, `output ${n}`),
      finalReply(n * 1000 + 200),
    ]);
    const { compressedEntries } = await compressEligible(detectChains(messages), 3, deps(messages));
    expect(compressedEntries.map((e) => e.startUserTimestamp)).toEqual([1000]);
    const out = pruneMessages(messages, indexer, render(), undefined, protection, 0).messages;
    expect(toolResults(out).map((m) => m.toolCallId)).toEqual(["bash_2", "bash_3", "bash_4"]);
    expectNoOrphanToolResults(out);
    expectRecoverable(indexer, [messages[2]]);
  });

  test("oversized outputs are spilled by the backfill and stay recoverable from the sidecar", async () => {
    const { indexer, deps, captured } = setup();
    const big = "line of output\n".repeat(20);
    const messages = [user(100), callTurn(150, [["big_1", "bash"]]), result(200, "big_1", big), finalReply(300)];
    const base = deps(messages);
    await compressEligible(detectChains(messages), 0, { ...base, backfill: { ...base.backfill, spillThreshold: 100 } });
    const record = indexer.getRecordsForId("big_1")[0];
    expect(record.resultText).toBe("");
    expect(readFileSync(record.spillPath!, "utf8")).toBe(big);
    expect(captured[0].data.toolCalls[0].spillPath).toBe(record.spillPath);
    const out = pruneMessages(messages, indexer, render(), undefined, protection, 0).messages;
    expect(toolResults(out)).toEqual([]);
    expectNoOrphanToolResults(out);
  });

  test("an unresolvable chain stays raw and is reported, not half-written", async () => {
    const { indexer, deps, reports, captured } = setup();
    const messages = [user(100), ...chainA()];
    const chains = detectChains(messages);
    expect(chains.map((c) => c.finalAssistantTimestamp)).toEqual([null, 300]);
    const { compressedEntries, skipped } = await compressEligible(chains, 0, deps(messages));
    expect(compressedEntries).toEqual([]);
    expect(skipped).toEqual([{ startUserTimestamp: 100, reason: "no-summary" }]);
    expect(reports).toEqual(["backfill-empty"]);
    expect(captured).toEqual([]);
    const out = pruneMessages(messages, indexer, render(), undefined, protection, 0);
    expect(out.pruned).toBe(false);
  });

  test("a failing index write leaves the index empty and the chain raw", async () => {
    const failing = setup({
      appendEntry: () => {
        throw new Error("stale session");
      },
    });
    const messages = chainA();
    const { compressedEntries, skipped } = await compressEligible(detectChains(messages), 0, failing.deps(messages));
    expect(compressedEntries).toEqual([]);
    expect(skipped).toEqual([{ startUserTimestamp: 100, reason: "no-summary" }]);
    expect(failing.indexer.getIndex().size).toBe(0);
    expect(failing.indexer.getChainEntries()).toEqual([]);
    const out = pruneMessages(messages, failing.indexer, render(), undefined, protection, 0);
    expect(out.pruned).toBe(false);
  });

  test("a chain holding an in-grace recovery stays raw while an older one compresses", async () => {
    const { indexer, deps } = setup();
    const messages = [
      ...chainA(),
      user(400),
      callTurn(450, [["q1", "context_tree_query", { toolCallIds: ["t1"] }]]),
      result(500, "q1", "build ok", "context_tree_query"),
      finalReply(600),
    ];
    const grace = new Set(["q1@500"]);
    const { compressedEntries } = await compressEligible(detectChains(messages), 0, deps(messages), grace);
    expect(compressedEntries.map((e) => e.startUserTimestamp)).toEqual([100]);
    const out = pruneMessages(messages, indexer, render(), undefined, protection, 0).messages;
    expect(toolResults(out).map((m) => m.toolCallId)).toEqual(["q1"]);
    expectNoOrphanToolResults(out);
  });
});
