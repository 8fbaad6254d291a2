import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { captureUnindexedBatchesFromSession } from "../capture/batch-capture.js";
import { compressEligible } from "../chains/chain-compressor.js";
import { detectChains } from "../chains/chain-detector.js";
import { ToolCallIndexer } from "./indexer.js";
import { occKey } from "../capture/occurrence-key.js";
import { pruneMessages } from "../render/pruner.js";
import { expectNoOrphanToolResults } from "../../test/orphan-assertions.js";
import { CUSTOM_TYPE_CHAIN, CUSTOM_TYPE_INDEX, CUSTOM_TYPE_SUMMARY } from "../names.js";
import type { CapturedBatch, SummaryToolCallRef } from "../capture/records.js";

const sessionDir = mkdtempSync(join(tmpdir(), "pi-condense-idcoll-"));
afterAll(() => rmSync(sessionDir, { recursive: true, force: true }));

const user = (ts: number) => ({ role: "user", content: [{ type: "text", text: `task ${ts}` }], timestamp: ts });
const callTurn = (ts: number, ids: string[]) => ({
  role: "assistant",
  content: ids.map((id) => ({ type: "toolCall", id, name: id.startsWith("bash") ? "bash" : "gauntlet_setting", arguments: {} })),
  timestamp: ts,
});
const result = (ts: number, id: string, text: string) => ({
  role: "toolResult",
  toolCallId: id,
  toolName: id.startsWith("bash") ? "bash" : "gauntlet_setting",
  content: [{ type: "text", text }],
  isError: false,
  timestamp: ts,
});
const reply = (ts: number) => ({ role: "assistant", content: [{ type: "text", text: `answer ${ts}` }], timestamp: ts });

/** The incident: two closed chains and a live open turn that reuses the provider id bash_23. */
const incidentSession = () => [
  user(1000), callTurn(1100, ["bash_18"]), result(1150, "bash_18", "OUT 18"), reply(1200),
  user(2000), callTurn(2100, ["bash_23"]), result(2150, "bash_23", "OUT 23 first"), reply(2200),
  user(3000), callTurn(3100, ["bash_23", "gauntlet_setting_24"]),
  result(3150, "bash_23", "LIVE 23"), result(3160, "gauntlet_setting_24", "LIVE 24"),
];

const chainConfig = { enabled: true, rollingWindow: 0, stripFinalAssistantThinking: false, fuseRangeSummary: false };
const protection = { protectedTools: [] as string[], protectedPaths: ["**/skills/**/*.md"] };

const textOf = (msg: any): string => msg.content.map((b: any) => b.text ?? "").join("");
const synthetics = (messages: any[]) => messages.filter((m) => m.role === "user" && textOf(m).startsWith("<compressed-chain"));

interface Primed {
  indexer: ToolCallIndexer;
  session: any[];
  appended: Array<{ type: "custom"; customType: string; data: any }>;
  refsByBatch: SummaryToolCallRef[][];
}

/** Same order as a live flush: allocate refs, register them, index the batch, register the body; then compress. */
async function prime(keyer: (id: string, ts: number) => string = occKey): Promise<Primed> {
  const indexer = new ToolCallIndexer();
  const session = incidentSession();
  const appended: Primed["appended"] = [];
  const append = (customType: string, data?: unknown) => appended.push({ type: "custom", customType, data });
  const refsByBatch: SummaryToolCallRef[][] = [];
  const batches: Array<[number, string, number, string]> = [[0, "bash_18", 1150, "OUT 18"], [1, "bash_23", 2150, "OUT 23 first"]];
  for (const [turnIndex, id, ts, text] of batches) {
    const batch: CapturedBatch = {
      turnIndex,
      timestamp: ts,
      assistantText: "",
      toolCalls: [{ toolCallId: id, toolName: "bash", args: {}, resultText: text, isError: false, resultTimestamp: ts }],
    };
    const refs = indexer.allocateSummaryRefs(batch);
    indexer.registerSummaryRefs(refs);
    indexer.addBatch(batch, append);
    indexer.registerSummaryBody([keyer(id, ts)], `summary of ${id}`);
    refsByBatch.push(refs);
  }
  let issued = 0;
  await compressEligible(detectChains(session), 0, {
    indexer,
    blockRefs: { issue: () => `b${++issued}` },
    appendEntry: append,
    now: () => 9000,
    messages: session,
    diagnostics: { report: () => {} },
    backfill: { spillThreshold: 65536, spillPreviewBytes: 2048, sessionDir, sessionId: "incident" },
  });
  return { indexer, session, appended, refsByBatch };
}

const prune = (messages: any[], indexer: ToolCallIndexer) => pruneMessages(messages, indexer, chainConfig, undefined, protection, 0);

describe("id collision: reused provider ids across chains and the live turn", () => {
  test("both old chains compress while the live turn that reuses bash_23 survives intact", async () => {
    // I1, 77
    const { indexer, session } = await prime();
    const out = prune(session, indexer);
    expect(out.pruned).toBe(true);
    const live = out.messages.filter((m) => m.timestamp >= 3000 && m.timestamp !== 9000);
    expect(live).toHaveLength(4);
    expect(live.filter((m) => m.role === "toolResult").map(textOf)).toEqual(["LIVE 23", "LIVE 24"]);
    expect(out.messages.some((m) => m.timestamp === 1150 || m.timestamp === 2150)).toBe(false);
    const synth = synthetics(out.messages).map(textOf);
    expect(synth).toHaveLength(2);
    expect(synth[0]).not.toBe(synth[1]);
    expect(synth[0]).toContain("summary of bash_18");
    expect(synth[0]).not.toContain("summary of bash_23");
    expect(synth[1]).toContain("summary of bash_23");
    expect(synth[1]).not.toContain("summary of bash_18");
    expectNoOrphanToolResults(out.messages);
  });

  test("each chain entry is keyed by its own occurrence and names its own ref", async () => {
    // I2
    const { indexer, session, appended, refsByBatch } = await prime();
    const entries = appended.filter((e) => e.customType === CUSTOM_TYPE_CHAIN).map((e) => e.data);
    expect(entries.map((e) => e.droppedOccurrenceKeys)).toEqual([["bash_18@1150"], ["bash_23@2150"]]);
    expect(entries.map((e) => e.toolRefs)).toEqual(refsByBatch.map((refs) => refs.map((r) => r.shortId)));
    const synth = synthetics(prune(session, indexer).messages).map(textOf);
    expect(synth[0]).toContain(`tools="${refsByBatch[0][0].shortId}"`);
    expect(synth[1]).toContain(`tools="${refsByBatch[1][0].shortId}"`);
    expect(synth[0]).toContain("summary of bash_18");
    expect(synth[1]).toContain("summary of bash_23");
    expectNoOrphanToolResults(prune(session, indexer).messages);
  });

  test("bodies mis-keyed by bare id fall back to deterministic bodies from the indexed records", async () => {
    // I3, 78
    const { indexer, session, appended } = await prime((id) => id);
    expect(appended.filter((e) => e.customType === CUSTOM_TYPE_INDEX)).toHaveLength(2);
    const out = prune(session, indexer);
    const synth = synthetics(out.messages).map(textOf);
    expect(synth).toHaveLength(2);
    for (const text of synth) {
      expect(text).toContain("Deterministic chain compression");
      expect(text).toMatch(/Refs: t\d+/);
    }
    expect(out.messages.filter((m) => m.role === "toolResult").map(textOf)).toEqual(["LIVE 23", "LIVE 24"]);
    expectNoOrphanToolResults(out.messages);
  });

  test("pruning the pruned output again changes nothing", async () => {
    // I4
    const { indexer, session } = await prime();
    const once = prune(session, indexer).messages;
    const twice = prune(once, indexer).messages;
    expect(twice).toEqual(once);
    expectNoOrphanToolResults(twice);
  });

  test("the live reuse of bash_23 is captured as its own occurrence", async () => {
    // I5
    const indexer = new ToolCallIndexer();
    indexer.addBatch(
      { turnIndex: 1, timestamp: 2150, assistantText: "", toolCalls: [{ toolCallId: "bash_23", toolName: "bash", args: {}, resultText: "OUT 23 first", isError: false, resultTimestamp: 2150 }] },
      () => {},
    );
    const branch = [user(3000), callTurn(3100, ["bash_23"]), result(3150, "bash_23", "LIVE 23")].map((message) => ({ type: "message", message }));
    const batches = captureUnindexedBatchesFromSession(branch, indexer);
    expect(batches).toHaveLength(1);
    expect(batches[0].toolCalls).toHaveLength(1);
    expect(batches[0].toolCalls[0]).toMatchObject({ toolCallId: "bash_23", resultTimestamp: 3150, resultText: "LIVE 23" });
    indexer.addBatch(batches[0], () => {});
    expect(indexer.getRecord("bash_23@2150")?.resultText).toBe("OUT 23 first");
    expect(indexer.getRecord("bash_23@3150")?.resultText).toBe("LIVE 23");
    expect(indexer.isSummarized("bash_23@3150")).toBe(true);
    expect(indexer.getRecordsForId("bash_23").map((r) => r.resultText)).toEqual(["OUT 23 first", "LIVE 23"]);
  });

  test("a rebuilt indexer resolves both refs and renders the same chains", async () => {
    // I6
    const { appended, refsByBatch } = await prime();
    const summaries = refsByBatch.map((refs, i) => ({
      type: "custom_message",
      customType: CUSTOM_TYPE_SUMMARY,
      content: `summary of ${i === 0 ? "bash_18" : "bash_23"}`,
      details: { toolCallRefs: refs, toolNames: ["bash"], turnIndex: i, timestamp: 1 },
      display: false,
      timestamp: new Date(1300 + i * 1000).toISOString(),
    }));
    const branch = [...appended.filter((e) => e.customType === CUSTOM_TYPE_INDEX || e.customType === CUSTOM_TYPE_CHAIN), ...summaries];
    const rebuilt = new ToolCallIndexer();
    rebuilt.reconstructFromSession({ sessionManager: { getBranch: () => branch } } as any);
    expect(rebuilt.getRecord(refsByBatch[0][0].shortId)?.resultText).toBe("OUT 18");
    expect(rebuilt.getRecord(refsByBatch[1][0].shortId)?.resultText).toBe("OUT 23 first");
    const out = prune(structuredClone(incidentSession()), rebuilt).messages;
    const synth = synthetics(out).map(textOf);
    expect(synth).toHaveLength(2);
    expect(synth[0]).toContain("summary of bash_18");
    expect(synth[1]).toContain("summary of bash_23");
    expectNoOrphanToolResults(out);
  });
});
