import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { bareToolCallId, occKey } from "../capture/occurrence-key.js";
import { purgeErroredArgs } from "./error-purge.js";
import { sweepOrphanToolResults } from "./orphan-sweep.js";
import { pruneMessages } from "./pruner.js";
import { inGraceRecoveryToolCallIds } from "./recovery-grace.js";
import { replaceSummarizedResults } from "./stub-replace.js";
import type { ChainCompressionEntry, ToolCallRecord } from "../capture/records.js";

// ---------------------------------------------------------------------------
// Random sessions: user turns, assistants with 0..n calls over a small reused
// id pool, results in and out of order (some missing, some duplicated), and
// custom / summary / unknown-role messages in between.
// ---------------------------------------------------------------------------

const ID_POOL = ["bash_1", "bash_2", "read_1", "call@x", "edit_9"];

type Step =
  | { kind: "user" }
  | { kind: "final"; thinking: boolean }
  | { kind: "custom" }
  | { kind: "summary"; refIds: string[] }
  | { kind: "unknown" }
  | { kind: "calls"; ids: string[]; order: number[]; dup: boolean; drop: boolean; errored: boolean; bigArgs: boolean; interloper: boolean };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: fc.constant<Step>({ kind: "user" }) },
  { weight: 2, arbitrary: fc.boolean().map<Step>((thinking) => ({ kind: "final", thinking })) },
  { weight: 1, arbitrary: fc.constant<Step>({ kind: "custom" }) },
  { weight: 1, arbitrary: fc.subarray(ID_POOL).map<Step>((refIds) => ({ kind: "summary", refIds })) },
  { weight: 1, arbitrary: fc.constant<Step>({ kind: "unknown" }) },
  {
    weight: 6,
    arbitrary: fc
      .record({
        ids: fc.uniqueArray(fc.constantFrom(...ID_POOL), { minLength: 0, maxLength: 3 }),
        seed: fc.array(fc.nat(10), { minLength: 3, maxLength: 3 }),
        dup: fc.boolean(),
        drop: fc.boolean(),
        errored: fc.boolean(),
        bigArgs: fc.boolean(),
        interloper: fc.integer({ min: 0, max: 9 }),
      })
      .map<Step>(({ ids, seed, dup, drop, errored, bigArgs, interloper }) => ({
        kind: "calls",
        ids,
        order: ids.map((_, i) => i).sort((a, b) => (seed[a % 3] + a) % 3 - (seed[b % 3] + b) % 3),
        dup: dup && ids.length > 0,
        drop: drop && ids.length > 1,
        errored,
        bigArgs,
        interloper: interloper === 0,
      })),
  },
);

function buildSession(steps: Step[]): any[] {
  const out: any[] = [];
  let ts = 1000;
  const next = () => (ts += 10);
  for (const step of steps) {
    switch (step.kind) {
      case "user":
        out.push({ role: "user", content: [{ type: "text", text: `question ${ts}` }], timestamp: next() });
        break;
      case "final": {
        const content: any[] = [{ type: "text", text: "done" }];
        if (step.thinking) content.unshift({ type: "thinking", thinking: "hmm ".repeat(20), thinkingSignature: "sig" });
        out.push({ role: "assistant", content, timestamp: next() });
        break;
      }
      case "custom":
        out.push({ role: "custom", customType: "other-ext", content: "note", display: true, timestamp: next() });
        break;
      case "summary":
        out.push({
          role: "custom",
          customType: "context-prune-summary",
          content: "summary",
          display: false,
          details: { toolCallRefs: step.refIds.map((id, i) => ({ shortId: `t${i + 1}`, toolCallId: id })) },
          timestamp: next(),
        });
        break;
      case "unknown":
        out.push({ role: "future-role", timestamp: next() });
        break;
      case "calls":
        pushCallTurn(out, step, next);
        break;
    }
  }
  return out;
}

function pushCallTurn(out: any[], step: Extract<Step, { kind: "calls" }>, next: () => number): void {
  const args = (id: string) => (step.bigArgs ? { path: `/w/${id}.txt`, content: "x".repeat(600) } : { path: `/w/${id}` });
  out.push({
    role: "assistant",
    content: step.ids.map((id) => ({ type: "toolCall", id, name: id.split("_")[0], arguments: args(id) })),
    timestamp: next(),
  });
  const order = step.drop ? step.order.slice(1) : step.order;
  order.forEach((i, position) => {
    if (step.interloper && position === 1) out.push({ role: "custom", customType: "interloper", content: "x", timestamp: next() });
    out.push(toolResult(step.ids[i], next(), step.errored && position === 0));
  });
  if (step.dup) out.push(toolResult(step.ids[0], next(), false));
}

function toolResult(id: string, ts: number, isError: boolean): any {
  return {
    role: "toolResult",
    toolCallId: id,
    toolName: id.split("_")[0],
    content: [{ type: "text", text: `output of ${id} at ${ts} `.repeat(8) }],
    isError,
    details: { extra: ts },
    timestamp: ts,
  };
}

// ---------------------------------------------------------------------------
// A small in-test index with the surface pruneMessages reads, plus a resolver
// so the test can check that every stub's ref leads back to its original.
// ---------------------------------------------------------------------------

interface ModelIndex {
  records: Map<string, ToolCallRecord>;
  refs: Map<string, string>;
  byRef: Map<string, string>;
  legacy: Set<string>;
  chains: ChainCompressionEntry[];
}

function makeIndexer(model: ModelIndex): any {
  const hasOccurrenceRecord = (id: string) => [...model.records.keys()].some((k) => k !== id && bareToolCallId(k) === id);
  return {
    isSummarized: (key: string) => model.records.has(key),
    hasLegacyBareRecord: (id: string) => model.legacy.has(id) && !hasOccurrenceRecord(id),
    getRecord: (key: string) => model.records.get(key),
    getShortRefForToolCallId: (key: string) => model.refs.get(key),
    getChainEntries: () => [...model.chains].sort((a, b) => a.startUserTimestamp - b.startUserTimestamp),
    getPerBatchSummaryTextForToolCallIds: (keys: string[]) =>
      keys.some((k) => model.records.has(k)) ? `bodies for ${keys.length} keys, see {b1}` : "",
    findChainEntryByBlockId: (blockId: string) => model.chains.find((c) => c.blockId === blockId),
  };
}

interface IndexChoice {
  summarizePct: number;
  legacyPct: number;
  spillPct: number;
  chainPicks: Array<[number, number, boolean]>;
}

const indexChoiceArb: fc.Arbitrary<IndexChoice> = fc.record({
  summarizePct: fc.integer({ min: 0, max: 100 }),
  legacyPct: fc.integer({ min: 0, max: 30 }),
  spillPct: fc.integer({ min: 0, max: 30 }),
  chainPicks: fc.array(fc.tuple(fc.nat(), fc.nat(), fc.boolean()), { maxLength: 4 }),
});

function buildIndex(session: any[], choice: IndexChoice, seed: number): ModelIndex {
  const model: ModelIndex = { records: new Map(), refs: new Map(), byRef: new Map(), legacy: new Set(), chains: [] };
  let n = 0;
  const roll = (i: number, pct: number) => (i * 37 + seed * 11) % 100 < pct;
  session.forEach((msg, i) => {
    if (msg.role !== "toolResult" || !roll(i, choice.summarizePct)) return;
    const legacy = roll(i + 3, choice.legacyPct);
    const key = legacy ? msg.toolCallId : occKey(msg.toolCallId, msg.timestamp);
    if (legacy) model.legacy.add(msg.toolCallId);
    const record: ToolCallRecord = {
      toolCallId: msg.toolCallId,
      toolName: msg.toolName,
      args: {},
      resultText: msg.content[0].text,
      isError: false,
      turnIndex: i,
      timestamp: msg.timestamp,
      ...(legacy ? {} : { resultTimestamp: msg.timestamp }),
      ...(roll(i + 7, choice.spillPct) ? { spillPath: `/blobs/s-blobs/${i}.txt`, spillBytes: 99, resultPreview: "head" } : {}),
    };
    const ref = `t${++n}`;
    model.records.set(key, record);
    model.refs.set(key, ref);
    model.byRef.set(ref, key);
  });
  const users = session.filter((m) => m.role === "user");
  const finals = session.filter((m) => m.role === "assistant");
  choice.chainPicks.forEach(([u, a, fused], k) => {
    if (users.length === 0 || finals.length === 0) return;
    model.chains.push({
      blockId: `b${k + 1}`,
      startUserTimestamp: users[u % users.length].timestamp,
      finalAssistantTimestamp: finals[a % finals.length].timestamp,
      droppedToolCallIds: [],
      toolRefs: [...model.refs.values()].slice(0, 2),
      compressedAt: 999_000 + k,
      ...(fused ? { rangeSummaryText: `fused {b${k + 2}}` } : {}),
    });
  });
  return model;
}

interface ConfigChoice {
  chain: boolean;
  strip: boolean;
  purge: boolean;
  cooldown: number;
  protect: boolean;
  grace: number;
}

const configArb: fc.Arbitrary<ConfigChoice> = fc.record({
  chain: fc.boolean(),
  strip: fc.boolean(),
  purge: fc.boolean(),
  cooldown: fc.integer({ min: 0, max: 3 }),
  protect: fc.boolean(),
  grace: fc.integer({ min: 0, max: 3 }),
});

const protectionOf = (c: ConfigChoice) => (c.protect ? { protectedTools: ["edit"], protectedPaths: ["/w/read_1"] } : undefined);
const purgeOf = (c: ConfigChoice) => ({ enabled: c.purge, cooldownTurns: c.cooldown, minArgChars: 100 });

function runPrune(session: any[], model: ModelIndex, c: ConfigChoice) {
  return pruneMessages(
    session,
    makeIndexer(model),
    { enabled: c.chain, rollingWindow: 0, stripFinalAssistantThinking: c.strip, fuseRangeSummary: false },
    purgeOf(c),
    protectionOf(c),
    c.grace,
    { report: () => {} } as any,
  );
}

// ---------------------------------------------------------------------------
// Independent checkers
// ---------------------------------------------------------------------------

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** Every toolResult must answer a call opened by the assistant directly before it, with no other role in between. */
function firstOrphan(messages: any[]): string | null {
  let open: string[] = [];
  for (const msg of messages) {
    if (msg.role === "assistant") {
      open = (msg.content ?? []).filter((b: any) => b.type === "toolCall").map((b: any) => b.id);
    } else if (msg.role === "toolResult") {
      const at = open.indexOf(msg.toolCallId);
      if (at < 0) return msg.toolCallId;
      open.splice(at, 1);
    } else {
      open = [];
    }
  }
  return null;
}

const STUB_REF = /ref `([^`]+)`/;

const sessionArb = fc.array(stepArb, { minLength: 1, maxLength: 30 }).map(buildSession);
const caseArb = fc.tuple(sessionArb, indexChoiceArb, fc.nat(1000), configArb);
const RUNS = { numRuns: 1000 };

describe("pruneMessages properties over random sessions and index states", () => {
  test("never mutates the input array or any message in it", () => {
    fc.assert(
      fc.property(caseArb, ([session, choice, seed, config]) => {
        const model = buildIndex(session, choice, seed);
        const before = JSON.stringify(session);
        deepFreeze(session);
        runPrune(session, model, config);
        expect(JSON.stringify(session)).toBe(before);
      }),
      RUNS,
    );
  });

  test("never outputs a toolResult whose call is not open in the preceding assistant turn", () => {
    fc.assert(
      fc.property(caseArb, ([session, choice, seed, config]) => {
        const { messages } = runPrune(session, buildIndex(session, choice, seed), config);
        expect(firstOrphan(messages)).toBeNull();
      }),
      RUNS,
    );
  });

  test("gives byte-identical output for identical input and index state", () => {
    fc.assert(
      fc.property(caseArb, ([session, choice, seed, config]) => {
        const first = runPrune(structuredClone(session), buildIndex(session, choice, seed), config);
        const second = runPrune(structuredClone(session), buildIndex(session, choice, seed), config);
        expect(JSON.stringify(second.messages)).toBe(JSON.stringify(first.messages));
        expect(second.pruned).toBe(first.pruned);
        expect(second.afterChars).toBe(first.afterChars);
      }),
      RUNS,
    );
  });

  test("returns the same array reference, without sizes, exactly when nothing changed", () => {
    fc.assert(
      fc.property(caseArb, ([session, choice, seed, config]) => {
        const result = runPrune(session, buildIndex(session, choice, seed), config);
        expect(result.messages === session).toBe(!result.pruned);
        if (!result.pruned) {
          expect(result.beforeChars).toBe(0);
          expect(result.afterChars).toBe(0);
        } else {
          expect(result.beforeChars).toBe(JSON.stringify(session).length);
          expect(result.afterChars).toBe(JSON.stringify(result.messages).length);
        }
      }),
      RUNS,
    );
  });

  test("skipping the purge and the sweep when phase 1 saw nothing for them changes no output", () => {
    fc.assert(
      fc.property(caseArb, ([session, choice, seed, config]) => {
        const c = { ...config, chain: false };
        const model = buildIndex(session, choice, seed);
        const grace = inGraceRecoveryToolCallIds(session, c.grace);
        const stubbed = replaceSummarizedResults(session, makeIndexer(model), protectionOf(c), grace).messages;
        const purged = c.purge ? purgeErroredArgs(stubbed, purgeOf(c)) : stubbed;
        expect(runPrune(session, model, c).messages).toEqual(sweepOrphanToolResults(purged).messages);
      }),
      RUNS,
    );
  });

  test("a clean session with an empty index is returned untouched", () => {
    const cleanStep = fc.oneof(
      fc.constant<Step>({ kind: "user" }),
      fc.constant<Step>({ kind: "final", thinking: true }),
      fc
        .uniqueArray(fc.constantFrom(...ID_POOL), { maxLength: 3 })
        .map<Step>((ids) => ({ kind: "calls", ids, order: ids.map((_, i) => i), dup: false, drop: false, errored: false, bigArgs: true, interloper: false })),
    );
    fc.assert(
      fc.property(fc.array(cleanStep, { maxLength: 20 }).map(buildSession), (session) => {
        const empty: ModelIndex = { records: new Map(), refs: new Map(), byRef: new Map(), legacy: new Set(), chains: [] };
        const result = runPrune(session, empty, { chain: true, strip: true, purge: true, cooldown: 0, protect: true, grace: 3 });
        expect(result.messages).toBe(session);
      }),
      RUNS,
    );
  });

  test("every stubbed toolResult names a ref the index resolves to that same tool call", () => {
    fc.assert(
      fc.property(caseArb, ([session, choice, seed, config]) => {
        const model = buildIndex(session, choice, seed);
        const { messages } = runPrune(session, model, config);
        for (const msg of messages) {
          if (msg.role !== "toolResult") continue;
          const text: string = msg.content?.[0]?.text ?? "";
          if (!text.includes("context_tree_query")) continue;
          const ref = STUB_REF.exec(text)?.[1];
          expect(ref).toBeDefined();
          const key = model.byRef.get(ref!);
          expect(key).toBeDefined();
          expect(model.records.get(key!)?.toolCallId).toBe(msg.toolCallId);
        }
      }),
      RUNS,
    );
  });
});
