import { afterAll, beforeAll, describe, expect, spyOn, test } from "bun:test";
import fc from "fast-check";
import { captureUnindexedBatchesFromSession } from "./batch-capture.js";
import { BlockRefIssuer } from "../chains/block-refs.js";
import { compressEligible } from "../chains/chain-compressor.js";
import { detectChains } from "../chains/chain-detector.js";
import { DiagnosticSink } from "../render/diagnostics.js";
import { PruneFrontierTracker } from "./frontier.js";
import { ToolCallIndexer } from "../archive/indexer.js";
import { projectBranchMessages } from "./batch-capture.js";
import { parseChainEntry, parseToolCallRecord } from "./persisted-entries.js";
import { isProtected } from "./protected.js";
import { pruneMessages } from "../render/pruner.js";
import { StatsAccumulator } from "../summarize/stats.js";
import { expectNoOrphanToolResults } from "../../test/orphan-assertions.js";
import { buildPruneTree } from "../ui/tree-browser.js";
import { makeAgentDir, makeFakeCtx, makeFakePi } from "../../test/fake-host.js";

// ---------------------------------------------------------------------------
// A realistic branch: four user turns, reused ids, a protected call, a failed
// call with large arguments, a recovery, and every context-prune-* entry type
// in the shapes the extension (and older versions) write.
// ---------------------------------------------------------------------------

const text = (t: string) => [{ type: "text", text: t }];
const user = (ts: number) => ({ role: "user", content: text(`question ${ts}`), timestamp: ts });
const reply = (ts: number) => ({ role: "assistant", content: [{ type: "thinking", thinking: "hmm", thinkingSignature: "s" }, ...text("done")], stopReason: "stop", timestamp: ts });
const calls = (ts: number, list: Array<[string, string, unknown]>) => ({
  role: "assistant",
  content: list.map(([id, name, args]) => ({ type: "toolCall", id, name, arguments: args })),
  stopReason: "toolUse",
  timestamp: ts,
});
const result = (ts: number, id: string, name: string, body: string, isError = false) => ({
  role: "toolResult",
  toolCallId: id,
  toolName: name,
  content: text(body),
  isError,
  timestamp: ts,
});
const message = (m: unknown) => ({ type: "message", message: m });
const custom = (customType: string, data: unknown) => ({ type: "custom", customType, data });
const summary = (content: unknown, details: unknown) => ({
  type: "custom_message",
  customType: "context-prune-summary",
  content,
  display: false,
  details,
  timestamp: "2026-12-01T10:00:00.000Z",
});
const rec = (id: string, ts: number | undefined, body: string, extra: Record<string, unknown> = {}) => ({
  toolCallId: id,
  toolName: "bash",
  args: { command: `run ${id}` },
  resultText: body,
  isError: false,
  turnIndex: 0,
  timestamp: 150,
  ...(ts === undefined ? {} : { resultTimestamp: ts }),
  ...extra,
});

function baseBranch(): any[] {
  return [
    message(user(100)),
    message(calls(200, [["bash_1", "bash", { command: "ls" }], ["read_1", "read", { path: "/w/a.ts" }]])),
    message(result(210, "bash_1", "bash", "a.ts\nb.ts")),
    message(result(220, "read_1", "read", "export const a = 1;")),
    message(reply(300)),
    summary("- `t1` ls\n- `t2` read a.ts", {
      toolCallRefs: [{ shortId: "t1", toolCallId: "bash_1", resultTimestamp: 210 }, { shortId: "t2", toolCallId: "read_1", resultTimestamp: 220 }],
      toolNames: ["bash", "read"],
      turnIndex: 0,
      timestamp: 200,
    }),
    custom("context-prune-index", { toolCalls: [rec("bash_1", 210, "a.ts\nb.ts", { outcome: "exit 0" }), rec("read_1", 220, "export const a = 1;", { toolName: "read", capturedBy: "0.9.3" })] }),
    custom("context-prune-frontier", { lastAttemptedToolCallId: "read_1", lastAttemptedToolName: "read", lastAttemptedTurnIndex: 0, lastAttemptedTimestamp: 200, attemptedBatchCount: 1, attemptedToolCallCount: 2, rawCharCount: 40, summaryCharCount: 20, outcome: "summarized" }),
    custom("context-prune-stats", { totalInputTokens: 900, totalOutputTokens: 60, totalCost: 0.001, callCount: 1, chainsCompressed: 0, rangesSummarized: 0 }),
    message(user(400)),
    message(calls(500, [["bash_1", "bash", { command: "cat big" }], ["todo_1", "todowrite", { items: [] }], ["edit_1", "edit", { path: "/w/b.ts", content: "x".repeat(600) }]])),
    message(result(510, "bash_1", "bash", "BIG ".repeat(50))),
    message(result(520, "todo_1", "todowrite", "ok")),
    message(result(530, "edit_1", "edit", "error: no such file", true)),
    message(reply(600)),
    custom("context-prune-index", { toolCalls: [rec("bash_1", 510, "", { spillPath: "/s/sid-blobs/bash_1_510.txt", spillBytes: 200, spillSha256: "0a".repeat(32), resultPreview: "BIG BIG", contentHash: "9a8b" })] }),
    custom("context-prune-index", {
      toolCalls: [rec("edit_1", 530, "error: no such file", { toolName: "edit", isError: true, turnIndex: -1, timestamp: 530 })],
      backfilled: true,
      refs: [{ shortId: "t3", toolCallId: "edit_1", resultTimestamp: 530 }],
    }),
    custom("context-prune-chain", { blockId: "b1", startUserTimestamp: 100, droppedToolCallIds: ["bash_1", "read_1"], finalAssistantTimestamp: 300, toolRefs: ["t1", "t2"], compressedAt: 301, droppedOccurrenceKeys: ["bash_1@210", "read_1@220"] }),
    custom("context-prune-chain", {
      blockId: "b2",
      startUserTimestamp: 400,
      droppedToolCallIds: ["bash_1", "todo_1", "edit_1"],
      finalAssistantTimestamp: 600,
      toolRefs: ["t3"],
      compressedAt: 601,
      rangeSummaryText: "Deterministic chain compression, see {b1}",
      bodySource: "deterministic",
      protectedToolCallIds: ["todo_1"],
      droppedOccurrenceKeys: ["bash_1@510", "todo_1@520", "edit_1@530"],
    }),
    message(user(700)),
    message(calls(800, [["bash_1", "bash", { command: "ls" }]])),
    message(result(810, "bash_1", "bash", "a.ts\nb.ts")),
    custom("context-prune-dedup-alias", { newToolCallId: "bash_1", newResultTimestamp: 810, originalToolCallId: "bash_1", originalResultTimestamp: 210 }),
    custom("context-prune-dedup-alias", { newToolCallId: "old_8", originalToolCallId: "old_7", hash: "0f1e" }),
    message(calls(820, [["q_1", "context_tree_query", { toolCallIds: ["t1"] }]])),
    message(result(830, "q_1", "context_tree_query", "## toolRef: t1\na.ts\nb.ts")),
    message(reply(900)),
    summary([{ type: "text", text: "- legacy summary" }], { toolCallIds: ["old_7"] }),
    custom("context-prune-index", { toolCalls: [{ toolCallId: "old_7", toolName: "bash", args: "ls -la", resultText: "legacy", isError: false, turnIndex: 3, timestamp: 850 }] }),
    custom("context-prune-flush-metrics", { ts: 901, trigger: "message-end", capturedBatches: 1, processedBatches: 1, outcome: "summarized", metrics: {} }),
    custom("context-prune-diagnostic", { kind: "orphan-sweep", detail: "x" }),
    message(user(1000)),
    message(calls(1100, [["bash_2", "bash", { command: "pwd" }]])),
    message(result(1110, "bash_2", "bash", "/w")),
  ];
}

// ---------------------------------------------------------------------------
// Hostile values: anything JSON.parse can hand back from a session file.
// ---------------------------------------------------------------------------

const HOSTILE_JSON = [
  '{"__proto__":{"toString":1,"blockId":"b1"}}',
  '{"toString":1}',
  '{"valueOf":{},"toString":{}}',
  '{"toJSON":1,"length":3}',
  "1e400",
  "-1e400",
  "-0",
  "1e21",
  "9007199254740993",
  "-1",
  "0.5",
  '"NaN"',
  '"Infinity"',
  '"1e400"',
  '""',
  '"b1"',
  '"b99"',
  '"t1"',
  '"bash_1"',
  '"bash_1@210"',
  '"\\"><x"',
  '"line\\nbreak"',
  '"deterministic"',
  "[[[]]]",
  '[1,"a",null,{}]',
  '["t1","t2"]',
  '[{"shortId":"t1","toolCallId":{"toString":1}}]',
  '[{"type":"toolCall","id":{"toString":1},"name":"bash"}]',
  '[{"type":"text","text":{"toString":1}}]',
  '{"a":{"b":{"c":[1,{"__proto__":[]}]}}}',
  "null",
  "true",
  "false",
  "100",
  "210",
  "300",
  "400",
  "600",
];

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_JSON).map((json) => JSON.parse(json)) },
  { weight: 1, arbitrary: fc.json({ maxDepth: 3 }).map((json) => JSON.parse(json)) },
  { weight: 1, arbitrary: fc.constant(undefined) },
);

type Path = Array<string | number>;

/** Every field (at any depth) of every context-prune-* entry and of every message. */
function targets(branch: any[]): Path[] {
  const paths: Path[] = [];
  const walk = (value: unknown, path: Path) => {
    paths.push(path);
    if (Array.isArray(value)) value.forEach((child, i) => walk(child, [...path, i]));
    else if (value && typeof value === "object") for (const [k, child] of Object.entries(value)) walk(child, [...path, k]);
  };
  branch.forEach((entry, i) => {
    if (entry.type === "message") walk(entry.message, [i, "message"]);
    else if (entry.type === "custom") walk(entry.data, [i, "data"]);
    else {
      walk(entry.content, [i, "content"]);
      walk(entry.details, [i, "details"]);
    }
  });
  return paths;
}

const BASE = baseBranch();
const TARGETS = targets(BASE);

function mutate(branch: any[], path: Path, value: unknown): void {
  let holder: any = branch;
  for (const key of path.slice(0, -1)) {
    holder = holder?.[key];
    if (holder === null || typeof holder !== "object") return;
  }
  const last = path[path.length - 1]!;
  if (value === undefined && !Array.isArray(holder)) delete holder[last];
  else holder[last] = value;
}

const mutationsArb = fc.array(fc.tuple(fc.nat(TARGETS.length - 1), hostileValue), { minLength: 1, maxLength: 4 });

function mutatedBranch(mutations: Array<[number, unknown]>): any[] {
  const branch = structuredClone(BASE);
  for (const [target, value] of mutations) mutate(branch, TARGETS[target]!, value);
  return branch;
}

const PROTECTION = { protectedTools: ["todowrite"], protectedPaths: ["**/skills/**/*.md"] };
const CHAIN = { enabled: true, rollingWindow: 0, stripFinalAssistantThinking: true, fuseRangeSummary: true };
const PURGE = { enabled: true, cooldownTurns: 1, minArgChars: 100 };
const ctxOf = (branch: any[]) => ({ sessionManager: { getBranch: () => branch } }) as any;

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

function render(messages: any[], indexer: ToolCallIndexer) {
  const frozen = deepFreeze(messages);
  const out = pruneMessages(frozen, indexer, CHAIN, PURGE, PROTECTION, 3, new DiagnosticSink(() => {}));
  expectNoOrphanToolResults(out.messages);
  if (out.pruned) expect(out.beforeChars).toBe(JSON.stringify(frozen).length);
  return out;
}

async function compress(branch: any[], indexer: ToolCallIndexer): Promise<void> {
  const messages = branch.filter((e) => e.type === "message" && e.message).map((e) => e.message);
  const chains = detectChains(messages, (name, args) => isProtected(name, args, PROTECTION));
  await compressEligible(chains, 0, {
    indexer,
    blockRefs: new BlockRefIssuer(),
    appendEntry: () => {},
    now: () => 5000,
    fuseRange: async (body) => `fused ${body.length}`,
    messages,
    diagnostics: new DiagnosticSink(() => {}),
    backfill: { spillThreshold: 1_000_000, spillPreviewBytes: 64, sessionDir: "", sessionId: "sid" },
  });
}

/**
 * The render's view of an index that stored whatever the branch held: records
 * under their original keys, chain entries as they are. Refs and bodies stay
 * strings, as the indexer's own methods guarantee.
 */
function unvalidatedIndex(branch: any[]) {
  const records = new Map<string, unknown>();
  const chains: any[] = [];
  BASE.forEach((entry, i) => {
    if (entry.customType === "context-prune-chain") chains.push(branch[i].data);
    if (entry.customType !== "context-prune-index") return;
    entry.data.toolCalls.forEach((base: any, j: number) => {
      const key = base.resultTimestamp === undefined ? base.toolCallId : `${base.toolCallId}@${base.resultTimestamp}`;
      records.set(key, branch[i].data?.toolCalls?.[j]);
    });
  });
  return {
    isSummarized: (key: string) => records.has(key),
    hasLegacyBareRecord: (id: string) => records.has(id),
    getRecord: (key: string) => records.get(key),
    getShortRefForToolCallId: (key: string) => (records.has(key) ? "t1" : undefined),
    getChainEntries: () => chains,
    getPerBatchSummaryTextForToolCallIds: () => "per-batch body {b1}",
    findChainEntryByBlockId: (blockId: string) => chains.find((chain) => chain?.blockId === blockId),
  };
}

// ---------------------------------------------------------------------------

let errors: ReturnType<typeof spyOn>;
let agent: { dir: string; cleanup: () => void };
const originalAgentDir = process.env.PI_CODING_AGENT_DIR;

beforeAll(() => {
  errors = spyOn(console, "error").mockImplementation(() => {});
  agent = makeAgentDir({ enabled: true, chainCompression: CHAIN, purgeErrors: PURGE, protectedTools: ["todowrite"], minBatchChars: 1 });
  process.env.PI_CODING_AGENT_DIR = agent.dir;
});

afterAll(() => {
  errors.mockRestore();
  agent.cleanup();
  if (originalAgentDir === undefined) delete process.env.PI_CODING_AGENT_DIR;
  else process.env.PI_CODING_AGENT_DIR = originalAgentDir;
});

const loggedFailures = () => errors.mock.calls.map((call: unknown[]) => String(call[0])).filter((line: string) => !line.startsWith("pi-condense: skipped "));

describe("random JSON in every persisted field and message field", () => {
  test("the base branch loads without a diagnostic", () => {
    errors.mockClear();
    const indexer = new ToolCallIndexer();
    indexer.reconstructFromSession(ctxOf(BASE));
    new PruneFrontierTracker().reconstructFromSession(ctxOf(BASE));
    new StatsAccumulator().reconstructFromSession(ctxOf(BASE));
    expect(errors).not.toHaveBeenCalled();
    expect(indexer.getChainEntries().map((e) => e.blockId)).toEqual(["b1", "b2"]);
  });

  test("rebuilds, renders, rescans, compresses and the tree never throw, and no invalid value is loaded", async () => {
    await fc.assert(
      fc.asyncProperty(mutationsArb, async (mutations) => {
        errors.mockClear();
        const branch = mutatedBranch(mutations);
        const indexer = new ToolCallIndexer();
        indexer.reconstructFromSession(ctxOf(branch));
        const touched = new Set(mutations.map(([target]) => TARGETS[target]![0]));
        expect(errors.mock.calls.length).toBeLessThanOrEqual(touched.size);
        new PruneFrontierTracker().reconstructFromSession(ctxOf(branch));
        new StatsAccumulator().reconstructFromSession(ctxOf(branch));
        for (const entry of indexer.getChainEntries()) expect(parseChainEntry(entry).ok).toBe(true);
        for (const record of indexer.getIndex().values()) expect(parseToolCallRecord(record).ok).toBe(true);

        render(projectBranchMessages(branch), indexer);
        captureUnindexedBatchesFromSession(branch, indexer, (name, args) => isProtected(name, args, PROTECTION));
        await compress(branch, indexer);
        render(projectBranchMessages(branch), indexer);
        buildPruneTree(ctxOf(branch) as any, indexer);
        expect(loggedFailures()).toEqual([]);
      }),
      { numRuns: 600 },
    );
  });

  test("the render itself never throws on unvalidated entries that slipped past the parsers", () => {
    fc.assert(
      fc.property(mutationsArb, (mutations) => {
        const branch = mutatedBranch(mutations);
        render(projectBranchMessages(branch), unvalidatedIndex(branch) as any);
      }),
      { numRuns: 600 },
    );
  });

  test("the extension's handlers never fail on such a branch", async () => {
    const { default: extension } = await import("../../index.js");
    await fc.assert(
      fc.asyncProperty(mutationsArb, async (mutations) => {
        errors.mockClear();
        const branch = mutatedBranch(mutations);
        const host = makeFakePi();
        extension(host.pi as any);
        const fake = makeFakeCtx(host, { branch });
        const handler = (name: string) => host.handlers.get(name)!;
        await handler("session_start")({ type: "session_start" }, fake.ctx);
        const messages = deepFreeze(projectBranchMessages(branch));
        const rendered: any = await handler("context")({ type: "context", messages }, fake.ctx);
        expectNoOrphanToolResults(rendered?.messages ?? messages);
        const last = branch.filter((e) => e.type === "message").map((e) => e.message);
        const assistant = [...last].reverse().find((m) => m?.role === "assistant");
        const toolResults = last.filter((m) => m?.role === "toolResult").slice(-1);
        await handler("turn_end")({ type: "turn_end", turnIndex: 0, message: assistant, toolResults }, fake.ctx);
        expect(errors.mock.calls.map((call: unknown[]) => String(call[0])).filter((line: string) => line.includes("handler failed"))).toEqual([]);
      }),
      { numRuns: 150 },
    );
  });
});
