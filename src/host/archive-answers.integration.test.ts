// Issue 27, findings 1-3, through index.ts: a stub is shown only when the archive can give back that exact
// output by the ref the stub names. Sessions whose pruner entries are missing, and sessions written by
// 2.9.1 (records without a short ref), keep the output raw or get an unambiguous ref; nothing leaves the
// request without a way back.
import { afterAll, describe, expect, mock, test } from "bun:test";
import * as actualCompat from "@earendil-works/pi-ai/compat";
import { makeAgentDir, msgEntry, labelledSummary } from "../../test/fake-host.js";
import { startSim, type Sim } from "../../test/session-sim.js";

mock.module("@earendil-works/pi-ai/compat", () => ({
  ...actualCompat,
  stream: (_model: any, context: any) => labelledSummary(context),
}));

const T = await import("../names.js");

const cleanups: Array<() => void> = [];
afterAll(() => cleanups.forEach((fn) => fn()));

const NO_CHAINS = { enabled: false, rollingWindow: 0, stripFinalAssistantThinking: true, fuseRangeSummary: false };

function settings(contextPrune: Record<string, unknown> = {}): void {
  const agent = makeAgentDir({ enabled: true, minBatchChars: 0, summaries: "always", recoveryGraceTurns: 1, chainCompression: NO_CHAINS, ...contextPrune });
  cleanups.push(agent.cleanup);
  process.env.PI_CODING_AGENT_DIR = agent.dir;
}

const LOG = Array.from({ length: 40 }, (_, i) => `BUILD-LOG line ${i + 1}`).join("\n");
const OTHER = Array.from({ length: 40 }, (_, i) => `TEST-LOG line ${i + 1}`).join("\n");

const textOf = (m: any): string => (m?.content ?? []).map((b: any) => b.text ?? "").join("");
const resultsOf = (messages: any[], id: string): any[] => messages.filter((m) => m.role === "toolResult" && m.toolCallId === id);
const isPrunerEntry = (e: any) => (e.type === "custom" || e.type === "custom_message") && String(e.customType).startsWith("context-prune-");
const withoutEntries = (sim: Sim, drop: (e: any) => boolean) => {
  sim.fake.branch.splice(0, sim.fake.branch.length, ...sim.fake.branch.filter((e: any) => !drop(e)));
};

describe("a recovery whose archive is gone (finding 1)", () => {
  test("stays verbatim after its grace window when the session's pruner entries are missing", async () => {
    settings();
    let sim = await startSim();
    await sim.prompt({ turns: [[{ id: "b1", text: LOG }]], final: "Built." });
    await sim.prompt({ turns: [[{ id: "q1", name: T.QUERY_TOOL_NAME, args: { toolCallIds: ["t1"] } }]], final: "Here." });
    const recovery = textOf(resultsOf(sim.projection(), "q1")[0]);
    expect(recovery).toContain(LOG);
    withoutEntries(sim, isPrunerEntry);
    // Nothing is archived again afterwards, so t1 names nothing at all.
    settings({ pruneOn: "on-demand" });
    sim = await sim.reload();
    for (let i = 0; i < 3; i++) await sim.prompt({ turns: [], final: `later ${i}` });
    expect(textOf(resultsOf(await sim.render(), "q1")[0])).toBe(recovery);
  });

  test("is counted once as an archive miss, in a diagnostic entry and the footer", async () => {
    settings();
    let sim = await startSim();
    await sim.prompt({ turns: [[{ id: "b1", text: LOG }]], final: "Built." });
    await sim.prompt({ turns: [[{ id: "q1", name: T.QUERY_TOOL_NAME, args: { toolCallIds: ["t1"] } }]], final: "Here." });
    withoutEntries(sim, isPrunerEntry);
    settings({ pruneOn: "on-demand" });
    sim = await sim.reload();
    for (let i = 0; i < 3; i++) await sim.prompt({ turns: [], final: `later ${i}` });
    await sim.render();
    const misses = sim.fake.branch.filter((e: any) => e.customType === T.CUSTOM_TYPE_DIAGNOSTIC && e.data?.kind === "archive-miss");
    expect(misses).toHaveLength(1);
    expect(misses[0].data.detail).toContain("t1");
    expect(sim.fake.lastStatus()).toContain("diag a1");
  });
});

describe("a dedup alias whose original is not in the archive (finding 2)", () => {
  test("stays verbatim when the original's index entry is gone", async () => {
    settings({ dedupByContentHash: true });
    let sim = await startSim();
    await sim.prompt({ turns: [[{ id: "a1", text: LOG }]], final: "First." });
    await sim.prompt({ turns: [[{ id: "a2", text: LOG }]], final: "Again." });
    expect(sim.fake.branch.some((e: any) => e.customType === T.CUSTOM_TYPE_DEDUP_ALIAS)).toBe(true);
    withoutEntries(sim, (e) => e.type === "custom" && e.customType === T.CUSTOM_TYPE_INDEX);
    sim = await sim.reload();
    const rendered = await sim.render();
    expect(textOf(resultsOf(rendered, "a2")[0])).toBe(LOG);
    // The original's record comes back from its summary and the transcript: its stub still recovers it.
    const ref = /ref `(t\d+)`/.exec(textOf(resultsOf(rendered, "a1")[0]))?.[1];
    expect((await sim.query([ref!])).text).toEndWith(`\n\n${LOG}`);
  });
});

/** A 2.9.1 eager-spill era index entry: a record of `bash_1` with no short ref. */
function legacyIndexEntry(resultTimestamp: number, text: string): any {
  const record = { toolCallId: "bash_1", toolName: "bash", args: { command: "make" }, resultText: text, isError: false, turnIndex: 0, timestamp: resultTimestamp, resultTimestamp };
  return { type: "custom", customType: T.CUSTOM_TYPE_INDEX, data: { toolCalls: [record] } };
}

/** A 2.9.1 session: `bash_1` ran twice (providers reuse ids); only the first run has a record, and no ref. */
function legacyBranch(): any[] {
  const call = (ts: number) => msgEntry({ role: "assistant", content: [{ type: "toolCall", id: "bash_1", name: "bash", arguments: { command: "make" } }], timestamp: ts });
  const result = (ts: number, text: string) => msgEntry({ role: "toolResult", toolCallId: "bash_1", toolName: "bash", content: [{ type: "text", text }], isError: false, timestamp: ts });
  return [
    msgEntry({ role: "user", content: [{ type: "text", text: "build" }], timestamp: 100 }),
    call(110),
    result(111, LOG),
    legacyIndexEntry(111, LOG),
    msgEntry({ role: "assistant", content: [{ type: "text", text: "Built." }], timestamp: 120 }),
    msgEntry({ role: "user", content: [{ type: "text", text: "test" }], timestamp: 200 }),
    call(210),
    result(211, OTHER),
    msgEntry({ role: "assistant", content: [{ type: "text", text: "Tested." }], timestamp: 220 }),
  ];
}

describe("a session written by 2.9.1 (finding 3)", () => {
  test("a record without a short ref gets one on reload, and its stub names it, not the reused provider id", async () => {
    settings();
    const sim = await startSim({ branch: legacyBranch(), startTs: 1_000 });
    const stub = textOf(resultsOf(await sim.render(), "bash_1")[0]);
    const ref = /ref `(t\d+)`/.exec(stub)?.[1];
    expect(ref).toBeDefined();
    expect((await sim.query([ref!])).text).toEndWith(`\n\n${LOG}`);
    expect((await sim.query([ref!])).text).not.toContain(OTHER);
  });

  test("the ref is persisted once: a second reload names the same ref and writes no new entry", async () => {
    settings();
    const first = await startSim({ branch: legacyBranch(), startTs: 1_000 });
    const before = textOf(resultsOf(await first.render(), "bash_1")[0]);
    const entries = first.fake.branch.length;
    const second = await first.reload();
    expect(textOf(resultsOf(await second.render(), "bash_1")[0])).toBe(before);
    expect(second.fake.branch.length).toBe(entries);
  });

  test("a dedup alias of such a record renders the same live and after a reload, once a chain step archived it", async () => {
    settings({ dedupByContentHash: true, chainCompression: { ...NO_CHAINS, enabled: true, rollingWindow: 1 } });
    const sim = await startSim({ branch: legacyBranch(), startTs: 1_000 });
    await sim.prompt({ turns: [[{ id: "c9", text: LOG }]], final: "Same log." });
    const live = JSON.stringify(await sim.render());
    const reloaded = await sim.reload();
    expect(JSON.stringify(await reloaded.render())).toBe(live);
  });
});
