import { describe, expect, test } from "bun:test";
import { transformMessages } from "@earendil-works/pi-ai/api/transform-messages";
import { applyChainCompressions } from "./chain-range-prune.js";
import { DiagnosticSink } from "./diagnostics.js";
import { sweepOrphanToolResults } from "./orphan-sweep.js";
import { pruneMessages } from "./pruner.js";
import { expectNoOrphanToolResults, expectZeroOrphanSweep, pruneWithZeroSweepAssertion } from "../../test/orphan-assertions.js";
import { CUSTOM_TYPE_SUMMARY } from "../names.js";

const user = (ts: number, text = "go") => ({ role: "user", content: [{ type: "text", text }], timestamp: ts });
const assistantWithTools = (ts: number, ids: string[]) => ({
  role: "assistant",
  content: ids.map((id) => ({ type: "toolCall", id, name: "bash", arguments: { cmd: id } })),
  timestamp: ts,
});
const assistantText = (ts: number) => ({ role: "assistant", content: [{ type: "text", text: "done" }], timestamp: ts });
const toolResult = (ts: number, id: string) => ({
  role: "toolResult",
  toolCallId: id,
  toolName: "bash",
  content: [{ type: "text", text: `out ${id}` }],
  isError: false,
  timestamp: ts,
});
const custom = (ts: number) => ({ role: "custom", customType: "other-ext", content: "notice", display: true, timestamp: ts });
const summaryMsg = (ts: number, ids: string[]) => ({
  role: "custom",
  customType: CUSTOM_TYPE_SUMMARY,
  content: "summary",
  display: false,
  details: { toolCallRefs: ids.map((id, i) => ({ shortId: `t${i + 1}`, toolCallId: id })) },
  timestamp: ts,
});

const emptyIndexer = {
  isSummarized: () => false,
  hasLegacyBareRecord: () => false,
  getShortRefForToolCallId: () => undefined,
  getRecord: () => undefined,
  getChainEntries: () => [],
  getPerBatchSummaryTextForToolCallIds: () => "",
} as any;

const toolResultCount = (messages: any[]) => messages.filter((m) => m.role === "toolResult").length;

describe("sweepOrphanToolResults: per-turn open sets", () => {
  test("a clean call/result pair returns the same reference and sweeps nothing", () => {
    // O1
    const input = [user(1), assistantWithTools(2, ["a"]), toolResult(3, "a")];
    const result = sweepOrphanToolResults(input);
    expect(result.messages).toBe(input);
    expect(result.sweptIds).toEqual([]);
  });

  test("a result with no call is swept", () => {
    // O2
    const input = [user(1), assistantWithTools(2, ["a"]), toolResult(3, "a"), toolResult(4, "ghost")];
    const result = sweepOrphanToolResults(input);
    expect(result.sweptIds).toEqual(["ghost"]);
    expect(result.messages.length).toBe(3);
    expect(result.messages).toEqual([input[0], input[1], input[2]]);
  });

  test("an id opened in an earlier turn does not license a later result", () => {
    // O3
    const input = [
      user(1),
      assistantWithTools(2, ["a"]),
      toolResult(3, "a"),
      assistantWithTools(4, ["b"]),
      toolResult(5, "b"),
      toolResult(6, "a"),
    ];
    const result = sweepOrphanToolResults(input);
    expect(result.sweptIds).toEqual(["a"]);
    expect(result.messages.length).toBe(5);
    expect(result.messages.at(-1)).toBe(input[4]);
  });

  test("reusing one id in consecutive turns is kept", () => {
    // O4
    const input = [assistantWithTools(1, ["a"]), toolResult(2, "a"), assistantWithTools(3, ["a"]), toolResult(4, "a")];
    const result = sweepOrphanToolResults(input);
    expect(result.sweptIds).toEqual([]);
    expect(result.messages).toBe(input);
    expect(result.messages.length).toBe(4);
  });

  test("a duplicate result for one call is swept (single consume)", () => {
    // O5
    const input = [assistantWithTools(1, ["a"]), toolResult(2, "a"), toolResult(3, "a")];
    const result = sweepOrphanToolResults(input);
    expect(result.sweptIds).toEqual(["a"]);
    expect(result.messages.length).toBe(2);
    expect(result.messages[1]).toBe(input[1]);
  });

  test("calls sharing an id inside one assistant turn admit one result each, as pi sends them", () => {
    const input = [assistantWithTools(1, ["a", "a"]), toolResult(2, "a"), toolResult(3, "a")];
    expect(sweepOrphanToolResults(input).messages).toBe(input);
  });

  test("a third result for two calls sharing an id is swept", () => {
    const input = [assistantWithTools(1, ["a", "a"]), toolResult(2, "a"), toolResult(3, "a"), toolResult(4, "a")];
    const result = sweepOrphanToolResults(input);
    expect(result.sweptIds).toEqual(["a"]);
    expect(result.messages).toEqual(input.slice(0, 3));
  });

  test("a non-string id matches its call the way a set would (NaN finds NaN)", () => {
    const call = { role: "assistant", content: [{ type: "toolCall", id: Number.NaN, name: "bash", arguments: {} }], timestamp: 1 };
    const result = { ...toolResult(2, "x"), toolCallId: Number.NaN };
    const input = [call, result];
    expect(sweepOrphanToolResults(input).messages).toBe(input);
  });

  test("consecutive results of a multi-call turn are kept (toolResult is not a barrier)", () => {
    // O6
    const input = [assistantWithTools(1, ["a", "b"]), toolResult(2, "a"), toolResult(3, "b")];
    const result = sweepOrphanToolResults(input);
    expect(result.messages).toBe(input);
    expect(result.sweptIds).toEqual([]);
  });

  test("swept ids keep encounter order and duplicates", () => {
    const input = [user(0), toolResult(1, "z"), toolResult(2, "a"), toolResult(3, "z")];
    expect(sweepOrphanToolResults(input).sweptIds).toEqual(["z", "a", "z"]);
  });

  test("sweeping never mutates the input array", () => {
    const input = [assistantWithTools(1, ["a"]), toolResult(2, "a"), toolResult(3, "ghost")];
    const before = structuredClone(input);
    const result = sweepOrphanToolResults(input);
    expect(result.messages).not.toBe(input);
    expect(input).toEqual(before);
  });
});

// AC1: every role that is neither assistant nor toolResult is a barrier, including unknown roles.
const barriers: Array<[string, string, () => any]> = [
  ["O7", "custom", () => custom(2)],
  ["O8", "user", () => user(2)],
  ["O9", "branchSummary", () => ({ role: "branchSummary", summary: "s", fromId: "x", timestamp: 2 })],
  ["O10", "compactionSummary", () => ({ role: "compactionSummary", summary: "s", tokensBefore: 1, timestamp: 2 })],
  ["O11", "bashExecution", () => ({ role: "bashExecution" })],
  ["O12", "future-role", () => ({ role: "future-role", timestamp: 2 })],
];

describe("sweepOrphanToolResults: barrier roles (AC1)", () => {
  for (const [id, role, make] of barriers) {
    test(`a ${role} message between a call and its result sweeps the result (${id}, AC1)`, () => {
      const input = [assistantWithTools(1, ["a"]), make(), toolResult(3, "a")];
      const result = sweepOrphanToolResults(input);
      expect(result.sweptIds).toEqual(["a"]);
      expect(result.messages.length).toBe(2);
      expect(toolResultCount(result.messages)).toBe(0);
    });
  }
});

describe("sweepOrphanToolResults: barrier consequences", () => {
  test("a barrier clears the remainder of a multi-call turn's open set", () => {
    // O13, AC2
    const input = [assistantWithTools(1, ["a", "b"]), toolResult(2, "a"), custom(3), toolResult(4, "b")];
    const result = sweepOrphanToolResults(input);
    expect(result.sweptIds).toEqual(["b"]);
    expect(result.messages.length).toBe(3);
    expect(result.messages).toEqual([input[0], input[1], input[2]]);
  });

  test("a barrier after a completed cycle changes nothing and keeps the reference", () => {
    // O14, AC3
    const input = [assistantWithTools(1, ["a"]), toolResult(2, "a"), custom(3)];
    const result = sweepOrphanToolResults(input);
    expect(result.messages).toBe(input);
    expect(result.sweptIds).toEqual([]);
  });

  test("a null or role-less element is a barrier and does not throw", () => {
    const input = [assistantWithTools(1, ["a"]), null, toolResult(3, "a"), undefined, {}];
    const result = sweepOrphanToolResults(input as any[]);
    expect(result.sweptIds).toEqual(["a"]);
    expect(result.messages).toEqual([input[0], null, undefined, {}]);
  });

  test("an assistant with non-array content opens nothing", () => {
    const input = [{ role: "assistant", content: "text only", timestamp: 1 }, toolResult(2, "a")];
    expect(sweepOrphanToolResults(input).sweptIds).toEqual(["a"]);
  });

  test("an assistant without content opens nothing and does not throw", () => {
    const input = [{ role: "assistant", timestamp: 1 }, toolResult(2, "a")];
    expect(sweepOrphanToolResults(input).sweptIds).toEqual(["a"]);
  });

  test("a result with a non-string id that matches no call is swept without throwing", () => {
    const bad = { role: "toolResult", toolCallId: 42, toolName: "bash", content: [], timestamp: 2 };
    const input = [assistantWithTools(1, ["a"]), toolResult(2, "a"), bad];
    const result = sweepOrphanToolResults(input);
    expect(result.sweptIds).toEqual([42 as any]);
    expect(result.messages.length).toBe(2);
  });
});

const stoppedWith = (stopReason: string, ts: number, ids: string[]) => ({ ...assistantWithTools(ts, ids), stopReason });

describe("sweepOrphanToolResults: errored and aborted assistants open no calls", () => {
  for (const stopReason of ["error", "aborted"]) {
    test(`the result of a call in an assistant that stopped with ${stopReason} is swept and reported`, () => {
      const input = [user(1), stoppedWith(stopReason, 2, ["a"]), toolResult(3, "a")];
      const reported: any[] = [];
      const sink = new DiagnosticSink((customType, data) => reported.push({ customType, data }));
      const result = pruneMessages(input, emptyIndexer, undefined, undefined, undefined, 0, sink);
      expect(result.pruned).toBe(true);
      expect(result.messages).toEqual([input[0], input[1]]);
      expect(sink.counts()["orphan-sweep"]).toBe(1);
      expect(reported[0].data).toEqual({ kind: "orphan-sweep", detail: "swept 1 orphan toolResult(s): a" });
    });
  }

  test("an errored assistant closes the calls still open before it", () => {
    const input = [assistantWithTools(1, ["a", "b"]), toolResult(2, "a"), stoppedWith("error", 3, []), toolResult(4, "b")];
    expect(sweepOrphanToolResults(input).sweptIds).toEqual(["b"]);
  });

  test("a normal assistant after an errored one opens its calls as usual", () => {
    const input = [stoppedWith("error", 1, ["a"]), toolResult(2, "a"), stoppedWith("toolUse", 3, ["a"]), toolResult(4, "a")];
    const result = sweepOrphanToolResults(input);
    expect(result.sweptIds).toEqual(["a"]);
    expect(result.messages).toEqual([input[0], input[2], input[3]]);
  });

  test("other stop reasons open their calls", () => {
    for (const stopReason of ["toolUse", "stop", "length", undefined]) {
      const input = [stoppedWith(stopReason as any, 1, ["a"]), toolResult(2, "a")];
      expect(sweepOrphanToolResults(input).messages).toBe(input);
    }
  });

  test("the independent checker rejects a result of an errored assistant", () => {
    expect(() => expectNoOrphanToolResults([stoppedWith("aborted", 1, ["a"]), toolResult(2, "a")])).toThrow();
    expect(() => expectNoOrphanToolResults([stoppedWith("aborted", 1, ["a"])])).not.toThrow();
  });

  test("after the sweep, pi-ai's transformMessages leaves no toolResult without its toolCall", () => {
    const model = { id: "m", api: "anthropic-messages", provider: "anthropic", input: ["text", "image"] } as any;
    const asModel = (msg: any) => (msg.role === "assistant" ? { api: model.api, provider: model.provider, model: model.id, ...msg } : msg);
    const input = [
      user(1),
      stoppedWith("error", 2, ["e1"]),
      toolResult(3, "e1"),
      stoppedWith("toolUse", 4, ["ok1", "ok2"]),
      toolResult(5, "ok1"),
      stoppedWith("aborted", 6, ["e2"]),
      toolResult(7, "ok2"),
      toolResult(8, "e2"),
      user(9),
    ].map(asModel);
    const unswept = transformMessages(input as any, model);
    expect(orphanResultIds(unswept)).toEqual(["e1", "ok2", "e2"]);
    const swept = pruneMessages(input, emptyIndexer).messages;
    const request = transformMessages(swept as any, model);
    expect(orphanResultIds(request)).toEqual([]);
    expect(request.filter((m: any) => m.role === "toolResult").map((m: any) => m.toolCallId)).toEqual(["ok1", "ok2"]);
  });
});

/** Results in a pi-ai request that do not answer a toolCall of the assistant right before them. */
function orphanResultIds(request: any[]): string[] {
  const orphans: string[] = [];
  let open = new Set<string>();
  for (const msg of request) {
    if (msg.role === "assistant") open = new Set(msg.content.filter((b: any) => b.type === "toolCall").map((b: any) => b.id));
    else if (msg.role === "toolResult") {
      if (open.has(msg.toolCallId)) open.delete(msg.toolCallId);
      else orphans.push(msg.toolCallId);
    } else open = new Set();
  }
  return orphans;
}

describe("sweepOrphanToolResults: turns with many calls", () => {
  const ids = (n: number, prefix = "c") => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
  // Past the size up to which the sweep keeps open ids in an array.
  const LARGE = 40;

  test("a turn past the small-turn size keeps every answered call and sweeps a duplicate result", () => {
    const calls = ids(LARGE);
    const input = [user(0), assistantWithTools(1, calls), ...calls.map((id, i) => toolResult(2 + i, id)), toolResult(99, "c7")];
    const result = sweepOrphanToolResults(input);
    expect(result.sweptIds).toEqual(["c7"]);
    expect(result.messages).toEqual(input.slice(0, -1));
  });

  test("an id repeated inside a large turn admits one result per call", () => {
    const calls = [...ids(LARGE), "c3", "c3"];
    const input = [assistantWithTools(1, calls), ...ids(LARGE).map((id, i) => toolResult(2 + i, id)), toolResult(90, "c3"), toolResult(91, "c3"), toolResult(92, "c3")];
    expect(sweepOrphanToolResults(input).sweptIds).toEqual(["c3"]);
  });

  test("NaN finds NaN in a large turn, once", () => {
    const assistant = assistantWithTools(1, ids(LARGE));
    assistant.content.push({ type: "toolCall", id: Number.NaN as any, name: "bash", arguments: { cmd: "nan" } });
    const nan = { ...toolResult(90, "x"), toolCallId: Number.NaN };
    const result = sweepOrphanToolResults([assistant, nan, { ...nan, timestamp: 91 }]);
    expect(result.sweptIds).toEqual([Number.NaN as any]);
    expect(result.messages.length).toBe(2);
  });

  test("a large turn's open set does not license results after a barrier or the next turn", () => {
    const input = [
      assistantWithTools(1, ids(LARGE)),
      toolResult(2, "c0"),
      custom(3),
      toolResult(4, "c1"),
      assistantWithTools(5, ids(LARGE, "d")),
      toolResult(6, "d0"),
      toolResult(7, "c2"),
      stoppedWith("error", 8, ids(LARGE, "e")),
      toolResult(9, "e0"),
      assistantWithTools(10, ["f"]),
      toolResult(11, "d1"),
    ];
    expect(sweepOrphanToolResults(input).sweptIds).toEqual(["c1", "c2", "e0", "d1"]);
  });

  test("sweeps exactly what a Set-based restatement sweeps, on random turns of every size", () => {
    let seed = 7;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let run = 0; run < 300; run++) {
      const input: any[] = [];
      let ts = 0;
      for (let k = next(6) + 1; k > 0; k--) {
        const pick = next(10);
        if (pick < 6) input.push(assistantWithTools(ts++, ids(next(60), "")));
        else if (pick < 9) for (let r = next(70); r > 0; r--) input.push(toolResult(ts++, String(next(60))));
        else input.push(custom(ts++));
      }
      const expected = setSweep(input);
      const result = sweepOrphanToolResults(input);
      expect(result.sweptIds).toEqual(expected.map((m) => m.toolCallId));
      expect(result.messages).toEqual(input.filter((m) => !expected.includes(m)));
    }
  });
});

/** The sweep rule restated with one Set per turn: the results it removes. */
function setSweep(messages: any[]): any[] {
  const swept: any[] = [];
  let open = new Set<unknown>();
  for (const msg of messages) {
    if (msg.role === "assistant") open = new Set(msg.content.map((b: any) => b.id));
    else if (msg.role !== "toolResult") open = new Set();
    else if (!open.delete(msg.toolCallId)) swept.push(msg);
  }
  return swept;
}

describe("expectNoOrphanToolResults helper (AC5)", () => {
  test("throws for a mid-cycle barrier and passes for a barrier after the cycle", () => {
    // O15, AC5
    expect(() => expectNoOrphanToolResults([assistantWithTools(1, ["X"]), custom(2), toolResult(3, "X")])).toThrow();
    expect(() => expectNoOrphanToolResults([assistantWithTools(1, ["X"]), toolResult(2, "X"), custom(3)])).not.toThrow();
  });

  test("agrees with the sweep on a duplicate result and a stale id", () => {
    expect(() =>
      expectNoOrphanToolResults([assistantWithTools(1, ["a"]), toolResult(2, "a"), toolResult(3, "a")]),
    ).toThrow();
    expect(() =>
      expectNoOrphanToolResults([
        assistantWithTools(1, ["a"]),
        toolResult(2, "a"),
        assistantWithTools(3, ["b"]),
        toolResult(4, "a"),
      ]),
    ).toThrow();
  });
});

describe("pi-condense's own output never trips the barrier (AC4)", () => {
  test("shape (b): a per-batch summary after a completed cycle sweeps zero", () => {
    // AC4 (b)
    const input = [
      user(100),
      assistantWithTools(200, ["a", "b"]),
      toolResult(210, "a"),
      toolResult(220, "b"),
      summaryMsg(230, ["a", "b"]),
      assistantWithTools(300, ["c"]),
      toolResult(310, "c"),
      summaryMsg(320, ["c"]),
      assistantText(400),
    ];
    expectZeroOrphanSweep(input);
    expectNoOrphanToolResults(input);
    const result = pruneWithZeroSweepAssertion(input, emptyIndexer);
    expect(result.pruned).toBe(false);
    expect(result.messages).toBe(input);
  });

  test("shape (a): a third-party custom message inside a compressed range sweeps zero", () => {
    // AC4 (a)
    const input = [
      user(1000),
      assistantWithTools(1100, ["bash_18"]),
      toolResult(1150, "bash_18"),
      custom(1160),
      assistantText(1200),
      user(3000),
      assistantWithTools(3100, ["bash_23"]),
      toolResult(3150, "bash_23"),
    ];
    const entry = {
      blockId: "b5",
      startUserTimestamp: 1000,
      droppedToolCallIds: ["bash_18"],
      finalAssistantTimestamp: 1200,
      toolRefs: ["t1"],
      compressedAt: 1050,
    };
    const output = applyChainCompressions(input, [entry], () => "chain summary", true);
    expect(output.some((m) => m.customType === "other-ext")).toBe(true);
    expectZeroOrphanSweep(output);
    expectNoOrphanToolResults(output);
  });
});
