import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { DiagnosticSink } from "./diagnostics.js";
import { ToolCallIndexer } from "../archive/indexer.js";
import { pruneMessages, sizeMessages } from "./pruner.js";
import { CHAIN_FRAME } from "../format/summary-frame.js";
import { pruneWithZeroSweepAssertion } from "../../test/orphan-assertions.js";
import { createSupersedeState, supersededStub, type SupersedeState } from "./supersede.js";
import { isProtected as isProtectedBy } from "../capture/protected.js";
import { CUSTOM_TYPE_DIAGNOSTIC, CUSTOM_TYPE_INDEX, CUSTOM_TYPE_SUMMARY } from "../names.js";
import type { ChainCompressionConfig, ErrorPurgeConfig } from "../settings/config-shape.js";
import type { ChainCompressionEntry } from "../capture/records.js";

// --- factories -------------------------------------------------------------

const user = (ts: number, text = "go") => ({ role: "user", content: [{ type: "text", text }], timestamp: ts });
const callTurn = (ts: number, ids: string[], name = "bash", args: Record<string, unknown> = {}) => ({
  role: "assistant",
  content: ids.map((id) => ({ type: "toolCall", id, name, arguments: args })),
  timestamp: ts,
});
const assistantText = (ts: number, thinking = false) => ({
  role: "assistant",
  content: [
    ...(thinking ? [{ type: "thinking", thinking: "deep thought", thinkingSignature: "sig-abc" }] : []),
    { type: "text", text: "done" },
  ],
  timestamp: ts,
});
const result = (ts: number | undefined, id: string, text = `out ${id}`, toolName = "bash", isError = false) => ({
  role: "toolResult",
  toolCallId: id,
  toolName,
  content: [{ type: "text", text }],
  isError,
  ...(ts === undefined ? {} : { timestamp: ts }),
});
const QUERY = "context_tree_query";

// --- doubles ---------------------------------------------------------------

interface MockSpec {
  summarized?: string[];
  refs?: Record<string, string>;
  records?: Record<string, any>;
  chains?: ChainCompressionEntry[];
  bodies?: Array<{ keys: string[]; text: string }>;
}

/** The six-method duck-typed indexer of the reference suite. */
function mockIndexer(spec: MockSpec = {}): any {
  const summarized = new Set(spec.summarized ?? []);
  return {
    isSummarized: (key: string) => summarized.has(key),
    hasLegacyBareRecord: (id: string) => summarized.has(id),
    getShortRefForToolCallId: (key: string) => spec.refs?.[key],
    getRecord: (key: string) => spec.records?.[key],
    getChainEntries: () => spec.chains ?? [],
    getPerBatchSummaryTextForToolCallIds: (keys: string[]) => {
      const texts = (spec.bodies ?? []).filter((b) => b.keys.some((k) => keys.includes(k))).map((b) => b.text);
      return [...new Set(texts)].join("\n\n");
    },
  };
}

/** Wraps an indexer and records every property read on it. */
function tracked(indexer: any): { indexer: any; touched: Set<string> } {
  const touched = new Set<string>();
  const proxy = new Proxy(indexer, {
    get(target, prop, receiver) {
      touched.add(String(prop));
      return Reflect.get(target, prop, receiver);
    },
  });
  return { indexer: proxy, touched };
}

function collectingReporter() {
  const reports: Array<{ kind: string; key: string; detail: string }> = [];
  return {
    reports,
    report(kind: string, key: string, detail: string) {
      reports.push({ kind, key, detail });
    },
    counts() {
      return {};
    },
  };
}

function recordingSink() {
  const appended: Array<{ customType: string; data: any }> = [];
  const sink = new DiagnosticSink((customType, data) => appended.push({ customType, data }));
  return { sink, appended };
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value as object)) deepFreeze((value as any)[key]);
  }
  return value;
}

const chainOn = (strip = true): ChainCompressionConfig => ({
  enabled: true,
  rollingWindow: 0,
  stripFinalAssistantThinking: strip,
  fuseRangeSummary: false,
});
const chainOff: ChainCompressionConfig = { ...chainOn(), enabled: false };
const purge: ErrorPurgeConfig = { enabled: true, cooldownTurns: 2, minArgChars: 100 };
const protection = { protectedTools: [] as string[], protectedPaths: ["**/skills/**/*.md"] };

const textAt = (messages: any[], i: number): string => messages[i].content[0].text;
const isSynthetic = (m: any) => m?.role === "user" && typeof m.content?.[0]?.text === "string" && m.content[0].text.startsWith("<compressed-chain");
const SUMMARIZED_PHRASE = "Summarized in pruner summary";

function chainEntry(blockId: string, start: number, dropped: string[], final: number | null, extra: Partial<ChainCompressionEntry> = {}): ChainCompressionEntry {
  return { blockId, startUserTimestamp: start, droppedToolCallIds: dropped, finalAssistantTimestamp: final, toolRefs: ["t1"], compressedAt: start + 50, ...extra };
}

// --- shared fixtures (also replayed by the zero-sweep table) ----------------

const p1 = () => ({
  messages: [callTurn(0, ["tc1"]), result(1, "tc1", "big output")],
  indexer: mockIndexer({ summarized: ["tc1"], refs: { tc1: "t1" } }),
});

const p3 = () => ({
  messages: [user(100), callTurn(200, ["tc-mid"]), result(210, "tc-mid"), assistantText(300)],
  indexer: mockIndexer({
    chains: [chainEntry("b1", 100, ["tc-mid"], 300)],
    bodies: [{ keys: ["tc-mid"], text: "ran bash, got results" }],
  }),
});

/** An errored write with 200-char args followed by `later` successful tool turns. */
const p6 = (later = 2) => {
  const messages: any[] = [callTurn(100, ["tc-err"], "write", { content: "x".repeat(300) }), result(110, "tc-err", "error: denied", "write", true)];
  for (let i = 0; i < later; i++) messages.push(callTurn(200 + i * 100, [`ok${i}`]), result(210 + i * 100, `ok${i}`));
  return { messages, indexer: mockIndexer() };
};

const spilledRecord = (extra: Record<string, unknown> = {}) => ({
  toolCallId: "tc1",
  toolName: "bash",
  args: {},
  resultText: "",
  isError: false,
  turnIndex: 0,
  timestamp: 0,
  spillPath: "/sess/abc-blobs/tc1.txt",
  ...extra,
});

const p8 = () => ({
  messages: [callTurn(0, ["tc1"]), result(1, "tc1", "huge")],
  indexer: mockIndexer({
    summarized: ["tc1"],
    refs: { tc1: "t1" },
    records: { tc1: spilledRecord({ resultPreview: "PREVIEW-HEAD", spillBytes: 1048576 }) },
  }),
});

const batchFor = (id: string, resultTimestamp: number | undefined, text: string, ts = 0) => ({
  turnIndex: 0,
  timestamp: ts,
  assistantText: "",
  toolCalls: [
    {
      toolCallId: id,
      toolName: "bash",
      args: { cmd: id },
      resultText: text,
      isError: false,
      ...(resultTimestamp === undefined ? {} : { resultTimestamp }),
    },
  ],
});

const legacyIndexEntry = (id: string, text = "OLD") => ({
  type: "custom",
  customType: CUSTOM_TYPE_INDEX,
  data: { toolCalls: [{ toolCallId: id, toolName: "bash", args: {}, resultText: text, isError: false, turnIndex: 0, timestamp: 500 }] },
});

function rebuiltIndexer(branch: any[]): ToolCallIndexer {
  const indexer = new ToolCallIndexer();
  indexer.reconstructFromSession({ sessionManager: { getBranch: () => branch } } as any);
  return indexer;
}

const p20 = () => {
  const indexer = new ToolCallIndexer();
  indexer.addBatch(batchFor("bash_23", 1150, "OUT 23", 1100) as any, () => {});
  indexer.registerSummaryRefs([{ shortId: "t1", toolCallId: "bash_23", resultTimestamp: 1150 }]);
  const messages = [
    user(1000),
    callTurn(1100, ["bash_23"]),
    result(1150, "bash_23", "OUT 23"),
    assistantText(1200),
    user(3000),
    callTurn(3100, ["bash_23"]),
    result(3150, "bash_23", "LIVE"),
  ];
  return { messages, indexer };
};

const p23 = () => {
  const turn = [user(400), callTurn(500, ["bash_7"]), result(550, "bash_7", "OLD"), assistantText(600)];
  const branch = [...turn.map((message) => ({ type: "message", message })), legacyIndexEntry("bash_7")];
  return { messages: turn, indexer: rebuiltIndexer(branch) };
};

const p24 = () => {
  const live = [user(9000), callTurn(9100, ["bash_7"]), result(9150, "bash_7", "LIVE")];
  const branch = [legacyIndexEntry("bash_7"), ...live.map((message) => ({ type: "message", message }))];
  return { messages: live, indexer: rebuiltIndexer(branch) };
};

// ---------------------------------------------------------------------------

describe("pruneMessages: stub-replace", () => {
  test("a summarized result becomes a stub naming its ref and the query tool", () => {
    // P1
    const { messages, indexer } = p1();
    const out = pruneMessages(messages, indexer);
    expect(out.pruned).toBe(true);
    expect(textAt(out.messages, 1)).toContain("`t1`");
    expect(textAt(out.messages, 1)).toContain("context_tree_query");
  });

  test("the summarized stub text is exact", () => {
    const { messages, indexer } = p1();
    expect(textAt(pruneMessages(messages, indexer).messages, 1)).toBe(
      "[Summarized in pruner summary, ref `t1`. Use context_tree_query to retrieve full output.]",
    );
  });

  test("the stub keeps identity fields, clears isError and drops everything else", () => {
    const original = { ...result(1, "tc1", "boom", "bash", true), details: { exit: 1 }, usage: { input: 3 }, durationMs: 9 };
    const out = pruneMessages([callTurn(0, ["tc1"]), original], mockIndexer({ summarized: ["tc1"], refs: { tc1: "t1" } }));
    expect(out.messages[1]).toEqual({
      role: "toolResult",
      toolCallId: "tc1",
      toolName: "bash",
      content: [{ type: "text", text: "[Summarized in pruner summary, ref `t1`. Use context_tree_query to retrieve full output.]" }],
      isError: false,
      timestamp: 1,
    });
  });

  test("the stub copies the timestamp property even when the original has none", () => {
    const out = pruneMessages([callTurn(0, ["tc1"]), result(undefined, "tc1")], mockIndexer({ summarized: ["tc1"] }));
    expect(out.pruned).toBe(true);
    expect("timestamp" in out.messages[1]).toBe(true);
    expect(out.messages[1].timestamp).toBeUndefined();
  });

  test("the ref falls back to the tool-call id when no short ref exists", () => {
    const out = pruneMessages([callTurn(0, ["tc1"]), result(1, "tc1")], mockIndexer({ summarized: ["tc1"] }));
    expect(textAt(out.messages, 1)).toContain("ref `tc1`");
  });

  test("a record with only a spill path gets the spill stub with ? bytes", () => {
    // P7
    const out = pruneMessages(
      [callTurn(0, ["tc1"]), result(1, "tc1")],
      mockIndexer({ summarized: ["tc1"], refs: { tc1: "t1" }, records: { tc1: spilledRecord() } }),
    );
    const text = textAt(out.messages, 1);
    expect(text).toContain("spilled to file \u2014 ? bytes");
    expect(text).toContain("context_tree_query with ref `t1`");
    expect(text).not.toContain(SUMMARIZED_PHRASE);
  });

  test("a spilled record stubs with ref, preview and byte count, and never names the sidecar path", () => {
    // P8
    const { messages, indexer } = p8();
    const out = pruneMessages(messages, indexer);
    expect(out.pruned).toBe(true);
    const text = textAt(out.messages, 1);
    expect(text).not.toContain("/sess/abc-blobs");
    expect(text).not.toContain("tc1.txt");
    expect(text).not.toContain("read this file");
    expect(text).toContain("`t1`");
    expect(text).toContain("PREVIEW-HEAD");
    expect(text).toContain("1048576");
    expect(text).toContain("spilled");
    expect(text).not.toContain(SUMMARIZED_PHRASE);
  });

  test("the spill stub has the exact six-line layout, recovery through context_tree_query only", () => {
    const { messages, indexer } = p8();
    expect(textAt(pruneMessages(messages, indexer).messages, 1)).toBe(
      [
        "[Oversized output spilled to file \u2014 1048576 bytes.]",
        "Tool: bash",
        "Preview (head):",
        "PREVIEW-HEAD",
        "Full output: use context_tree_query with ref `t1`.",
        'It comes back at most 2000 lines (50 KiB) at a time; pass lines for a later part, e.g. context_tree_query({ toolCallIds: ["t1"], lines: "2001-4000" }).',
      ].join("\n"),
    );
  });

  test("a spill stub without a preview keeps an empty preview line", () => {
    const out = pruneMessages([callTurn(0, ["tc1"]), result(1, "tc1")], mockIndexer({ summarized: ["tc1"], records: { tc1: spilledRecord({ spillBytes: 5 }) } }));
    expect(textAt(out.messages, 1).split("\n")[3]).toBe("");
  });

  test("a direct occurrence-key hit stubs with its ref", () => {
    // P28
    const out = pruneMessages([callTurn(1400, ["tc1"]), result(1500, "tc1")], mockIndexer({ summarized: ["tc1@1500"], refs: { "tc1@1500": "t1" } }));
    expect(out.pruned).toBe(true);
    expect(textAt(out.messages, 1)).toContain("`t1`");
  });

  test("a spilled occurrence-keyed record gets the spill stub", () => {
    // P29
    const out = pruneMessages(
      [callTurn(1400, ["tc1"]), result(1500, "tc1")],
      mockIndexer({ summarized: ["tc1@1500"], records: { "tc1@1500": spilledRecord({ resultPreview: "HEAD" }) } }),
    );
    const text = textAt(out.messages, 1);
    expect(text).toContain("Oversized output spilled");
    expect(text).toContain("HEAD");
    expect(text).not.toContain(SUMMARIZED_PHRASE);
  });

  test("an unsummarized result is left by reference", () => {
    const messages = [callTurn(0, ["tc1"]), result(1, "tc1")];
    const out = pruneMessages(messages, mockIndexer());
    expect(out.messages).toBe(messages);
  });

  test("a dedup alias stubs with its original's short ref", () => {
    const indexer = new ToolCallIndexer();
    indexer.addBatch(batchFor("bash_1", 100, "same text") as any, () => {});
    indexer.registerSummaryRefs([{ shortId: "t1", toolCallId: "bash_1", resultTimestamp: 100 }]);
    indexer.registerDuplicate("bash_2@200", "bash_1@100", () => {});
    const out = pruneMessages([callTurn(150, ["bash_2"]), result(200, "bash_2", "same text")], indexer);
    expect(textAt(out.messages, 1)).toContain("`t1`");
  });
});

describe("pruneMessages: protection and recovery grace", () => {
  const skillRead = () => ({
    messages: [callTurn(0, ["tc-skill"], "read", { path: "/h/skills/x/SKILL.md" }), result(1, "tc-skill", "SKILL BODY", "read")],
    indexer: mockIndexer({
      summarized: ["tc-skill"],
      refs: { "tc-skill": "t1" },
      records: { "tc-skill": { toolCallId: "tc-skill", toolName: "read", args: { path: "/h/skills/x/SKILL.md" }, resultText: "SKILL BODY" } },
    }),
  });

  test("a record protected by a path rule stays verbatim", () => {
    // P11
    const { messages, indexer } = skillRead();
    const out = pruneMessages(messages, indexer, undefined, undefined, protection);
    expect(out.pruned).toBe(false);
    expect(textAt(out.messages, 1)).toBe("SKILL BODY");
  });

  test("without a protection argument the same record is stubbed", () => {
    // P12
    const { messages, indexer } = skillRead();
    const out = pruneMessages(messages, indexer);
    expect(out.pruned).toBe(true);
    expect(textAt(out.messages, 1)).toContain(SUMMARIZED_PHRASE);
  });

  test("a record protected by tool name stays verbatim", () => {
    const { messages, indexer } = skillRead();
    expect(pruneMessages(messages, indexer, undefined, undefined, { protectedTools: ["read"], protectedPaths: [] }).pruned).toBe(false);
  });

  const queryTurn = (laterUsers: number, spilled = false) => {
    const messages: any[] = [user(100), callTurn(200, ["q1"], QUERY), result(300, "q1", "RECOVERED", QUERY)];
    for (let i = 0; i < laterUsers; i++) messages.push(user(400 + i * 100), assistantText(450 + i * 100));
    const record = spilled
      ? spilledRecord({ toolCallId: "q1", toolName: QUERY })
      : { toolCallId: "q1", toolName: QUERY, args: { ids: ["t1"] }, resultText: "RECOVERED" };
    return { messages, indexer: mockIndexer({ summarized: ["q1"], refs: { q1: "t9" }, records: { q1: record } }) };
  };

  test("a fresh query result stays verbatim within the grace window", () => {
    // P13
    const { messages, indexer } = queryTurn(0);
    const out = pruneMessages(messages, indexer, undefined, undefined, undefined, 3);
    expect(out.pruned).toBe(false);
    expect(textAt(out.messages, 2)).toBe("RECOVERED");
  });

  test("a query result older than the grace window is stubbed", () => {
    // P14
    const { messages, indexer } = queryTurn(4);
    const out = pruneMessages(messages, indexer, undefined, undefined, undefined, 3);
    expect(out.pruned).toBe(true);
    expect(textAt(out.messages, 2)).toContain("context_tree_query");
    expect(textAt(out.messages, 2)).not.toBe("RECOVERED");
  });

  test("the grace window ends exactly after N user turns", () => {
    const at3 = queryTurn(3);
    expect(pruneMessages(at3.messages, at3.indexer, undefined, undefined, undefined, 3).pruned).toBe(false);
  });

  test("grace 0 stubs a fresh query result", () => {
    // P15
    const { messages, indexer } = queryTurn(0);
    expect(pruneMessages(messages, indexer, undefined, undefined, undefined, 0).pruned).toBe(true);
  });

  test("grace does not apply to other tools", () => {
    // P16
    const messages = [user(100), callTurn(200, ["b1"]), result(300, "b1")];
    const out = pruneMessages(messages, mockIndexer({ summarized: ["b1"] }), undefined, undefined, undefined, 3);
    expect(out.pruned).toBe(true);
    expect(textAt(out.messages, 2)).toContain(SUMMARIZED_PHRASE);
  });

  test("protection beats an expired grace window", () => {
    // P17
    const messages: any[] = [user(100), callTurn(200, ["q1"], QUERY), result(300, "q1", "RECOVERED", QUERY)];
    for (let i = 0; i < 5; i++) messages.push(user(400 + i * 100));
    const indexer = mockIndexer({
      summarized: ["q1"],
      records: { q1: { toolCallId: "q1", toolName: QUERY, args: { path: "/h/skills/y/GUIDE.md" }, resultText: "RECOVERED" } },
    });
    const out = pruneMessages(messages, indexer, undefined, undefined, protection, 0);
    expect(out.pruned).toBe(false);
    expect(textAt(out.messages, 2)).toBe("RECOVERED");
  });

  test("a spilled query record in grace stays verbatim", () => {
    // P18
    const { messages, indexer } = queryTurn(0, true);
    const out = pruneMessages(messages, indexer, undefined, undefined, undefined, 3);
    expect(out.pruned).toBe(false);
    expect(textAt(out.messages, 2)).toBe("RECOVERED");
  });

  test("a spilled query record past grace gets the spill stub", () => {
    // P19
    const { messages, indexer } = queryTurn(4, true);
    const out = pruneMessages(messages, indexer, undefined, undefined, undefined, 3);
    expect(textAt(out.messages, 2)).toContain("Oversized output spilled");
    expect(textAt(out.messages, 2)).not.toContain("/sess/abc-blobs/tc1.txt");
  });

  test("a protected occurrence-keyed record stays verbatim", () => {
    // P30
    const indexer = mockIndexer({
      summarized: ["tc-skill@1500"],
      records: { "tc-skill@1500": { toolCallId: "tc-skill", toolName: "read", args: { path: "/h/skills/z/SKILL.md" }, resultText: "S" } },
    });
    const messages = [callTurn(1400, ["tc-skill"], "read"), result(1500, "tc-skill", "S", "read")];
    const out = pruneMessages(messages, indexer, undefined, undefined, protection);
    expect(out.pruned).toBe(false);
    expect(out.messages).toBe(messages);
  });

  test("an occurrence-keyed query result in grace stays verbatim", () => {
    // P31
    const messages = [user(1000), callTurn(1400, ["tc-recover"], QUERY), result(1500, "tc-recover", "RAW", QUERY)];
    const out = pruneMessages(messages, mockIndexer({ summarized: ["tc-recover@1500"] }), undefined, undefined, undefined, 3);
    expect(out.pruned).toBe(false);
    expect(textAt(out.messages, 2)).toBe("RAW");
  });

  test("grace is per occurrence: a graced query never shields a reused id", () => {
    // P32
    const messages = [
      user(1000),
      callTurn(1400, ["reused"], QUERY),
      result(1500, "reused", "QUERY OUT", QUERY),
      callTurn(9400, ["reused"]),
      result(9500, "reused", "BASH OUT"),
    ];
    const indexer = mockIndexer({ summarized: ["reused@1500", "reused@9500"], refs: { "reused@1500": "t1", "reused@9500": "t2" } });
    const out = pruneMessages(messages, indexer, undefined, undefined, undefined, 3);
    expect(textAt(out.messages, 2)).toBe("QUERY OUT");
    expect(textAt(out.messages, 4)).toContain("`t2`");
  });

  test("grace matches the occurrence key even when the lookup fell back to a legacy bare record", () => {
    const messages = [user(100), callTurn(200, ["q1"], QUERY), result(300, "q1", "RAW", QUERY)];
    const out = pruneMessages(messages, mockIndexer({ summarized: ["q1"] }), undefined, undefined, undefined, 1);
    expect(out.pruned).toBe(false);
  });
});

describe("pruneMessages: occurrence identity with the real indexer", () => {
  test("only the summarized occurrence of a reused id is stubbed", () => {
    // P20
    const { messages, indexer } = p20();
    const out = pruneMessages(messages, indexer);
    expect(out.pruned).toBe(true);
    expect(textAt(out.messages, 2)).toContain(SUMMARIZED_PHRASE);
    expect(textAt(out.messages, 2)).toContain("`t1`");
    expect(textAt(out.messages, 6)).toBe("LIVE");
  });

  test("a live reuse of an occurrence-keyed id fails closed", () => {
    // P21
    const indexer = new ToolCallIndexer();
    indexer.addBatch(batchFor("bash_23", 1150, "OUT 23") as any, () => {});
    const messages = [user(9000), callTurn(9100, ["bash_23"]), result(9150, "bash_23", "LIVE")];
    const out = pruneMessages(messages, indexer);
    expect(out.pruned).toBe(false);
    expect(out.messages).toBe(messages);
  });

  test("an id with both a legacy record and an occurrence record fails closed", () => {
    // P22
    const indexer = rebuiltIndexer([legacyIndexEntry("bash_23")]);
    indexer.addBatch(batchFor("bash_23", 2150, "OUT 23") as any, () => {});
    const messages = [user(9000), callTurn(9100, ["bash_23"]), result(9150, "bash_23", "LIVE")];
    const out = pruneMessages(messages, indexer);
    expect(out.pruned).toBe(false);
    expect(textAt(out.messages, 2)).toBe("LIVE");
  });

  test("a legacy-only record still stubs a timestamped result", () => {
    // P23
    const { messages, indexer } = p23();
    const out = pruneMessages(messages, indexer);
    expect(out.pruned).toBe(true);
    expect(textAt(out.messages, 2)).toContain(SUMMARIZED_PHRASE);
  });

  test("a legacy-only record stubs a live colliding result (accepted exposure)", () => {
    // P24
    const { messages, indexer } = p24();
    expect(indexer.hasLegacyBareRecord("bash_7")).toBe(true);
    const out = pruneMessages(messages, indexer);
    expect(out.pruned).toBe(true);
    expect(textAt(out.messages, 2)).toContain(SUMMARIZED_PHRASE);
  });

  test("an empty real indexer leaves a clean pair alone", () => {
    // P25
    const messages = [callTurn(1, ["a"]), result(2, "a")];
    const out = pruneMessages(messages, new ToolCallIndexer());
    expect(out.messages).toBe(messages);
    expect(out.pruned).toBe(false);
    expect(out.beforeChars).toBe(0);
  });
});

describe("pruneMessages: error purge phase", () => {
  test("purges old errored arguments when enabled", () => {
    // P6
    const { messages, indexer } = p6();
    const out = pruneMessages(messages, indexer, chainOff, purge);
    expect(out.pruned).toBe(true);
    expect(out.messages[0].content[0].arguments).toEqual({ content: '<purged-errored-args size="300"/>' });
  });

  test("does not purge when the purge config is disabled or absent", () => {
    const { messages, indexer } = p6();
    expect(pruneMessages(messages, indexer, chainOff, { ...purge, enabled: false }).pruned).toBe(false);
    expect(pruneMessages(messages, indexer).pruned).toBe(false);
  });

  test("a stubbed errored result no longer triggers a purge", () => {
    const { messages } = p6();
    const out = pruneMessages(messages, mockIndexer({ summarized: ["tc-err"] }), chainOff, purge);
    expect(out.pruned).toBe(true);
    expect(out.messages[1].isError).toBe(false);
    expect(out.messages[0]).toBe(messages[0]);
  });

  test("a tool call without arguments is skipped and never throws", () => {
    const messages: any[] = [
      { role: "assistant", content: [{ type: "toolCall", id: "tc-err", name: "write" }], timestamp: 1 },
      result(2, "tc-err", "err", "write", true),
      ...p6().messages.slice(2),
    ];
    let out: any;
    expect(() => {
      out = pruneMessages(messages, mockIndexer(), chainOff, { ...purge, minArgChars: 0 });
    }).not.toThrow();
    expect(out.pruned).toBe(false);
    expect(out.messages).toBe(messages);
  });
});

describe("pruneMessages: chain range phase", () => {
  test("compresses a closed chain around a synthetic block", () => {
    // P3
    const { messages, indexer } = p3();
    const out = pruneMessages(messages, indexer, chainOn());
    expect(out.pruned).toBe(true);
    expect(out.messages.some((m) => m.role === "toolResult")).toBe(false);
    const synthetic = out.messages.find(isSynthetic);
    expect(synthetic.content[0].text).toContain('id="b1"');
    expect(synthetic.content[0].text).toContain('tools="t1"');
    expect(synthetic.content[0].text).toContain("ran bash, got results");
    const start = out.messages.findIndex((m) => m.role === "user" && m.timestamp === 100);
    const final = out.messages.findIndex((m) => m.role === "assistant" && m.timestamp === 300);
    const syn = out.messages.indexOf(synthetic);
    expect(start).toBeGreaterThanOrEqual(0);
    expect(start).toBeLessThan(syn);
    expect(syn).toBeLessThan(final);
  });

  test("a fused range summary wins over per-batch bodies", () => {
    // P4
    const messages = [user(100), callTurn(200, ["tc-mid"]), result(210, "tc-mid"), assistantText(300)];
    const indexer = mockIndexer({
      chains: [chainEntry("b9", 100, ["tc-mid"], 300, { rangeSummaryText: "FUSED cohesive summary" })],
      bodies: [{ keys: ["tc-mid"], text: "per-batch body text" }],
    });
    const text = pruneMessages(messages, indexer, chainOn()).messages.find(isSynthetic).content[0].text;
    expect(text).toContain("FUSED cohesive summary");
    expect(text).not.toContain("per-batch body text");
  });

  test("an empty range summary is used as-is instead of the per-batch body", () => {
    const messages = [user(100), callTurn(200, ["tc-mid"]), result(210, "tc-mid"), assistantText(300)];
    const indexer = mockIndexer({
      chains: [chainEntry("b1", 100, ["tc-mid"], 300, { rangeSummaryText: "" })],
      bodies: [{ keys: ["tc-mid"], text: "per-batch body text" }],
    });
    const text = pruneMessages(messages, indexer, chainOn()).messages.find(isSynthetic).content[0].text;
    expect(text).toBe(`<compressed-chain id="b1" tools="t1">\n${CHAIN_FRAME}\n\n</compressed-chain>`);
  });

  test("the body lookup prefers droppedOccurrenceKeys over droppedToolCallIds", () => {
    const messages = [user(100), callTurn(200, ["tc-mid"]), result(210, "tc-mid"), assistantText(300)];
    const indexer = mockIndexer({
      chains: [chainEntry("b1", 100, ["tc-mid"], 300, { droppedOccurrenceKeys: ["tc-mid@210"] })],
      bodies: [
        { keys: ["tc-mid"], text: "BARE BODY" },
        { keys: ["tc-mid@210"], text: "OCC BODY" },
      ],
    });
    const text = pruneMessages(messages, indexer, chainOn()).messages.find(isSynthetic).content[0].text;
    expect(text).toContain("OCC BODY");
    expect(text).not.toContain("BARE BODY");
  });

  test("strips thinking from the chain's final assistant", () => {
    // P5
    const messages = [user(100), callTurn(200, ["tc-mid"]), result(210, "tc-mid"), assistantText(300, true)];
    const indexer = mockIndexer({ chains: [chainEntry("b1", 100, ["tc-mid"], 300)] });
    const out = pruneMessages(messages, indexer, chainOn(true));
    const final = out.messages.find((m) => m.role === "assistant" && m.timestamp === 300);
    expect(final.content.map((b: any) => b.type)).toEqual(["text"]);
  });

  test("chain entries are ignored while chain compression is disabled", () => {
    // P9
    const messages = [user(100), callTurn(200, ["tc-mid"]), result(210, "tc-mid"), assistantText(300)];
    const indexer = mockIndexer({ chains: [chainEntry("b1", 100, ["tc-mid"], 300)] });
    const out = pruneMessages(messages, indexer, chainOff);
    expect(out.pruned).toBe(false);
    expect(out.messages).toBe(messages);
  });

  test("there is no thinking-strip phase outside compressed chains", () => {
    // P10
    const messages: any[] = [user(100)];
    for (let i = 6; i <= 10; i++) {
      messages.push(
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: `think ${i}`, thinkingSignature: `s${i}` },
            { type: "text", text: `step ${i}` },
            { type: "toolCall", id: `c${i}`, name: "bash", arguments: {} },
          ],
          timestamp: i * 100,
        },
        result(i * 100 + 10, `c${i}`),
      );
    }
    const out = pruneMessages(messages, mockIndexer({ summarized: ["c10"], refs: { c10: "t1" } }), chainOn(false));
    expect(out.pruned).toBe(true);
    expect(textAt(out.messages, 10)).toContain("`t1`");
    const assistants = out.messages.filter((m) => m.role === "assistant");
    expect(assistants.length).toBe(5);
    for (const a of assistants) expect(a.content[0].type).toBe("thinking");
  });

  test("one user message with chain compression and no entries is a no-op", () => {
    // P2
    const messages = [user(1)];
    const out = pruneMessages(messages, mockIndexer(), chainOn());
    expect(out.pruned).toBe(false);
    expect(out.messages).toBe(messages);
  });

  test("an unresolvable entry reports unresolved-range and leaves messages raw", () => {
    const messages = [user(100), callTurn(200, ["tc-mid"]), result(210, "tc-mid"), assistantText(300)];
    const { sink, appended } = recordingSink();
    const indexer = mockIndexer({ chains: [chainEntry("b3", 100, ["tc-mid"], null)] });
    const out = pruneMessages(messages, indexer, chainOn(), undefined, undefined, 0, sink);
    expect(out.pruned).toBe(false);
    expect(out.messages).toBe(messages);
    expect(appended).toEqual([
      { customType: CUSTOM_TYPE_DIAGNOSTIC, data: { kind: "unresolved-range", detail: "blockId=b3 start=100 final=null" } },
    ]);
  });

  test("re-rendering compressed output reports pruned again with deep-equal output", () => {
    const { messages, indexer } = p3();
    const first = pruneMessages(messages, indexer, chainOn());
    const second = pruneMessages(first.messages, indexer, chainOn());
    expect(second.pruned).toBe(true);
    expect(second.messages).not.toBe(first.messages);
    expect(second.messages).toEqual(first.messages);
  });

  test("only the six indexer methods are touched when bodies carry no placeholders", () => {
    const messages = [...p3().messages, user(400), callTurn(500, ["tc9"]), result(510, "tc9")];
    const base = mockIndexer({
      summarized: ["tc9@510"],
      refs: { "tc9@510": "t9" },
      chains: [chainEntry("b1", 100, ["tc-mid"], 300)],
      bodies: [{ keys: ["tc-mid"], text: "ran bash, got results" }],
    });
    const spy = tracked({ ...base, findChainEntryByBlockId: () => undefined });
    const out = pruneMessages(messages, spy.indexer, chainOn(), purge, protection, 3, new DiagnosticSink(() => {}));
    expect(out.pruned).toBe(true);
    const allowed = ["isSummarized", "hasLegacyBareRecord", "getRecord", "getShortRefForToolCallId", "getChainEntries", "getPerBatchSummaryTextForToolCallIds"];
    expect([...spy.touched].filter((name) => !allowed.includes(name))).toEqual([]);
    expect(spy.touched.has("getChainEntries")).toBe(true);
    expect(spy.touched.has("getRecord")).toBe(true);
  });

  test("a {bN} placeholder resolves lazily through findChainEntryByBlockId", () => {
    const messages = [
      user(100), callTurn(200, ["tc1"]), result(210, "tc1"), assistantText(300),
      user(400), callTurn(500, ["tc2"]), result(510, "tc2"), assistantText(600),
    ];
    const b1 = chainEntry("b1", 100, ["tc1"], 300, { rangeSummaryText: "FIRST BODY" });
    const b2 = chainEntry("b2", 400, ["tc2"], 600, { rangeSummaryText: "see {b1} and {b2} and {b7}" });
    const asked: string[] = [];
    const indexer = {
      ...mockIndexer({ chains: [b1, b2] }),
      findChainEntryByBlockId: (id: string) => {
        asked.push(id);
        return [b1, b2].find((e) => e.blockId === id);
      },
    };
    const texts = pruneMessages(messages, indexer, chainOn()).messages.filter(isSynthetic).map((m) => m.content[0].text);
    expect(texts[1]).toContain("see FIRST BODY and {b2} and {b7}");
    expect(asked.sort()).toEqual(["b1", "b7"]);
  });

  test("a placeholder pointing at an empty body stays literal", () => {
    const messages = [
      user(100), callTurn(200, ["tc1"]), result(210, "tc1"), assistantText(300),
      user(400), callTurn(500, ["tc2"]), result(510, "tc2"), assistantText(600),
    ];
    const b1 = chainEntry("b1", 100, ["tc1"], 300, { rangeSummaryText: "" });
    const b2 = chainEntry("b2", 400, ["tc2"], 600, { rangeSummaryText: "see {b1}" });
    const indexer = { ...mockIndexer({ chains: [b1, b2] }), findChainEntryByBlockId: (id: string) => [b1, b2].find((e) => e.blockId === id) };
    const texts = pruneMessages(messages, indexer, chainOn()).messages.filter(isSynthetic).map((m) => m.content[0].text);
    expect(texts[1]).toContain("see {b1}");
  });
});

describe("pruneMessages: supersede phase (1b)", () => {
  const SKILL = "/h/skills/x/SKILL.md";
  const readTurn = (ts: number, id: string) => callTurn(ts, [id], "read", { path: SKILL });
  const readResult = (ts: number, id: string) => result(ts, id, `skill text ${id} `.repeat(20), "read");
  const cold = (): SupersedeState => ({ ...createSupersedeState(), floor: 0 });
  const withState = (state: SupersedeState) => ({ state, isProtected: (name: string, args: unknown) => isProtectedBy(name, args, protection) });
  const render = (messages: any[], indexer: any, state: SupersedeState | undefined, chain?: ChainCompressionConfig) =>
    pruneMessages(messages, indexer, chain, undefined, protection, 0, undefined, state && withState(state));

  test("without the eighth argument two reads of a protected path both stay verbatim", () => {
    const messages = [readTurn(10, "a"), readResult(11, "a"), readTurn(20, "b"), readResult(21, "b")];
    const out = pruneMessages(messages, mockIndexer(), undefined, undefined, protection);
    expect(out.pruned).toBe(false);
    expect(out.messages).toBe(messages);
  });

  test("a cold render stubs the earlier read and measures the result exactly", () => {
    const messages = [readTurn(10, "a"), readResult(11, "a"), readTurn(20, "b"), readResult(21, "b")];
    const out = render(messages, mockIndexer(), cold());
    expect(out.pruned).toBe(true);
    expect(textAt(out.messages, 1)).toBe(supersededStub(SKILL));
    expect(out.messages[3]).toBe(messages[3]);
    expect(out.beforeChars).toBe(sizeMessages(messages));
    expect(out.afterChars).toBe(sizeMessages(out.messages));
  });

  test("a superseded read inside a compressed chain relocates as its stub", () => {
    const messages = [user(100), readTurn(200, "r1"), readResult(201, "r1"), assistantText(300), user(400), readTurn(500, "r2"), readResult(501, "r2")];
    const indexer = mockIndexer({
      chains: [chainEntry("b1", 100, ["r1"], 300, { protectedToolCallIds: ["r1"] })],
      bodies: [{ keys: ["r1"], text: "read the skill" }],
    });
    const out = render(messages, indexer, cold(), chainOn());
    const block = out.messages.find(isSynthetic);
    expect(block.content[0].text).toContain(`<protected-output tool="read">\n${supersededStub(SKILL)}\n</protected-output>`);
    expect(block.content[0].text).not.toContain("skill text r1");
    expect(out.messages.at(-1)).toBe(messages.at(-1));
    expect(out.afterChars).toBe(sizeMessages(out.messages));
  });

  test("phase 1 stubs and supersede stubs sit side by side, and the stub memo is not confused by activation", () => {
    const indexer = new ToolCallIndexer();
    indexer.addBatch(batchFor("s1", 6, "summarized out", 5) as any, () => {});
    indexer.registerSummaryRefs([{ shortId: "t1", toolCallId: "s1", resultTimestamp: 6 }]);
    const messages = [callTurn(5, ["s1"]), result(6, "s1", "summarized out"), readTurn(10, "a"), readResult(11, "a"), readTurn(20, "b"), readResult(21, "b")];
    const state = createSupersedeState();
    const first = render(messages, indexer, state);
    expect(textAt(first.messages, 1)).toContain("`t1`");
    expect(first.messages[3]).toBe(messages[3]);
    state.floor = 0;
    for (const out of [render(messages, indexer, state), render(structuredClone(messages), indexer, state)]) {
      expect(textAt(out.messages, 1)).toContain("`t1`");
      expect(textAt(out.messages, 3)).toBe(supersededStub(SKILL));
      expect(out.beforeChars).toBe(sizeMessages(messages));
      expect(out.afterChars).toBe(sizeMessages(out.messages));
    }
  });

  test("the orphan sweep still runs after supersession and the sizes stay exact", () => {
    const messages = [readTurn(10, "a"), readResult(11, "a"), readTurn(20, "b"), readResult(21, "b"), result(22, "ghost")];
    const out = render(messages, mockIndexer(), cold());
    expect(out.messages.map((m: any) => m.toolCallId ?? m.role)).toEqual(["assistant", "a", "assistant", "b"]);
    expect(out.afterChars).toBe(sizeMessages(out.messages));
  });
});

describe("pruneMessages: orphan sweep phase", () => {
  test("an orphan result is swept on every render and reported once", () => {
    // P26
    const messages = [callTurn(1, ["a"]), result(2, "a"), result(3, "ghost")];
    const { sink, appended } = recordingSink();
    const first = pruneMessages(messages, new ToolCallIndexer(), undefined, undefined, undefined, 0, sink);
    const second = pruneMessages(messages, new ToolCallIndexer(), undefined, undefined, undefined, 0, sink);
    for (const out of [first, second]) {
      expect(out.pruned).toBe(true);
      expect(out.messages.length).toBe(2);
      expect(out.messages.some((m) => m.toolCallId === "ghost")).toBe(false);
      expect(out.messages.some((m) => m.toolCallId === "a")).toBe(true);
    }
    expect(appended.length).toBe(1);
    expect(appended[0]!.customType).toBe(CUSTOM_TYPE_DIAGNOSTIC);
    expect(appended[0]!.data.kind).toBe("orphan-sweep");
    expect(appended[0]!.data.detail).toContain("ghost");
    expect(appended[0]!.data.detail).toContain("swept 1 orphan");
  });

  test("a large sweep is one report with a 16-char key and a truncated id list", () => {
    // P27
    const ghosts = Array.from({ length: 12 }, (_, i) => `ghost_${String(i).padStart(2, "0")}`);
    const messages = [callTurn(1, ["a"]), result(2, "a"), ...ghosts.map((g, i) => result(10 + i, g))];
    const reporter = collectingReporter();
    const out = pruneMessages(messages, mockIndexer(), undefined, undefined, undefined, 0, reporter as any);
    expect(out.pruned).toBe(true);
    expect(reporter.reports.length).toBe(1);
    const [report] = reporter.reports;
    expect(report!.kind).toBe("orphan-sweep");
    expect(report!.key).toMatch(/^[0-9a-f]{16}$/);
    expect(report!.detail).toContain("swept 12 orphan");
    expect(report!.detail).toContain("... +7 more");
    expect(report!.detail).toBe(`swept 12 orphan toolResult(s): ${ghosts.slice(0, 5).join(", ")} ... +7 more`);
  });

  test("the sweep key is stable for the same swept ids in any order", () => {
    const a = collectingReporter();
    const b = collectingReporter();
    pruneMessages([callTurn(1, ["x"]), result(2, "x"), result(3, "g1"), result(4, "g2")], mockIndexer(), undefined, undefined, undefined, 0, a as any);
    pruneMessages([callTurn(1, ["x"]), result(2, "x"), result(3, "g2"), result(4, "g1")], mockIndexer(), undefined, undefined, undefined, 0, b as any);
    expect(a.reports[0]!.key).toBe(b.reports[0]!.key);
    expect(a.reports[0]!.detail).toBe("swept 2 orphan toolResult(s): g1, g2");
  });

  test("a sweep without a diagnostics sink still prunes", () => {
    const out = pruneMessages([user(1), result(2, "ghost")], mockIndexer());
    expect(out.pruned).toBe(true);
    expect(out.messages.length).toBe(1);
  });
});

describe("pruneMessages: sizes and no-op contract", () => {
  test("thinking counts toward the serialized size", () => {
    // P33
    const plain = [assistantText(1)];
    const withThinking = [{ ...assistantText(1), content: [{ type: "thinking", thinking: "t".repeat(1000) }, { type: "text", text: "done" }] }];
    expect(sizeMessages(withThinking)).toBeGreaterThan(sizeMessages(plain));
    expect(sizeMessages(plain)).toBe(JSON.stringify(plain).length);
  });

  test("a no-op returns the input reference with zero sizes", () => {
    // P34
    const messages = [user(1)];
    const out = pruneMessages(messages, mockIndexer());
    expect(out).toEqual({ messages, pruned: false, beforeChars: 0, afterChars: 0 });
    expect(out.messages).toBe(messages);
  });

  test("a pruned render measures the input and output exactly", () => {
    // P35
    const messages = [callTurn(1, ["tc1"]), result(2, "tc1", "y".repeat(500))];
    const out = pruneMessages(messages, mockIndexer({ summarized: ["tc1"], refs: { tc1: "t1" } }));
    expect(out.pruned).toBe(true);
    expect(out.beforeChars).toBe(sizeMessages(messages));
    expect(out.afterChars).toBe(sizeMessages(out.messages));
    expect(out.afterChars).toBeLessThan(out.beforeChars);
    expect(out.messages.length).toBe(2);
  });

  test("a no-op render serializes nothing", () => {
    let serialized = 0;
    const probe = { ...user(1), toJSON() { serialized++; return { role: "user" }; } };
    const messages = [probe, callTurn(2, ["a"]), result(3, "a")];
    const out = pruneMessages(messages, mockIndexer(), chainOn(), purge, protection, 3, new DiagnosticSink(() => {}));
    expect(out.pruned).toBe(false);
    expect(serialized).toBe(0);
  });

  const skillRead = (ts: number, id: string, path = "/h/skills/x/SKILL.md") => [
    callTurn(ts, [id], "read", { path }),
    result(ts + 1, id, `skill \u00e9 "${id}"`, "read"),
  ];
  const coldSupersede = () => ({
    state: { floor: 0, activated: new Set<string>() },
    isProtected: (name: string, args: unknown) => isProtectedBy(name, args, protection),
  });
  const oddInputs: Array<[string, () => { messages: any[]; indexer: any; chain?: ChainCompressionConfig; supersede?: ReturnType<typeof coldSupersede> }]> = [
    ["unicode, escapes and emoji", () => ({
      messages: [user(1, "h\u00e9llo \ud83d\ude00 \"q\" \\ \n\t \u2502"), callTurn(2, ["tc1"]), result(3, "tc1", "\u0000\u001f \ud83d\ude00 \u2028")],
      indexer: mockIndexer({ summarized: ["tc1"] }),
    })],
    ["undefined and null elements", () => ({
      messages: [undefined, null, user(1), callTurn(2, ["tc1"]), result(3, "tc1"), undefined],
      indexer: mockIndexer({ summarized: ["tc1"] }),
    })],
    ["a sparse array", () => {
      const messages: any[] = [user(1), callTurn(2, ["tc1"]), result(3, "tc1")];
      messages[5] = user(6);
      return { messages, indexer: mockIndexer({ summarized: ["tc1"] }) };
    }],
    ["fields JSON drops or coerces", () => ({
      messages: [
        { ...user(1), extra: undefined, fn: () => 1, nan: Number.NaN, inf: Number.POSITIVE_INFINITY, date: new Date(0) },
        callTurn(2, ["tc1"]),
        result(3, "tc1"),
      ],
      indexer: mockIndexer({ summarized: ["tc1"] }),
    })],
    ["primitive elements and a swept orphan", () => ({
      messages: ["stray", 42, true, user(1), result(2, "ghost")],
      indexer: mockIndexer(),
    })],
    ["a chain with a repeated carried-over message", () => {
      const shared = user(900);
      return {
        messages: [...p3().messages, shared, assistantText(950), shared],
        indexer: p3().indexer,
        chain: chainOn(),
      };
    }],
    ["superseded reads beside a phase-1 stub", () => ({
      messages: [...skillRead(1, "r1"), callTurn(3, ["tc1"]), result(4, "tc1"), ...skillRead(5, "r2", "\\h\\skills\\x\\SKILL.md"), ...skillRead(7, "r3")],
      indexer: mockIndexer({ summarized: ["tc1"] }),
      supersede: coldSupersede(),
    })],
    ["a superseded read with an image inside a compressed chain", () => ({
      messages: [
        user(100),
        callTurn(200, ["r1"], "read", { path: "/h/skills/x/SKILL.md" }),
        { ...result(201, "r1", "x", "read"), content: [{ type: "text", text: "x" }, { type: "image", data: "A".repeat(90), mimeType: "image/png" }] },
        assistantText(300),
        ...skillRead(400, "r2"),
      ],
      indexer: mockIndexer({ chains: [chainEntry("b1", 100, ["r1"], 300, { protectedToolCallIds: ["r1"] })], bodies: [{ keys: ["r1"], text: "B" }] }),
      chain: chainOn(),
      supersede: coldSupersede(),
    })],
  ];
  for (const [label, make] of oddInputs) {
    test(`before/after chars equal sizeMessages exactly for ${label}`, () => {
      const { messages, indexer, chain, supersede } = make();
      const out = pruneMessages(messages, indexer, chain, undefined, undefined, 0, undefined, supersede);
      expect(out.pruned).toBe(true);
      expect(out.beforeChars).toBe(sizeMessages(messages));
      expect(out.afterChars).toBe(sizeMessages(out.messages));
    });
  }

  test("before/after chars equal sizeMessages on random pruned renders", () => {
    const textArb = fc.string({ unit: "grapheme", maxLength: 40 });
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom("a", "b", "c", "d"), textArb, fc.boolean(), fc.boolean(), fc.constantFrom("write", "skill-a", "skill-b")), { minLength: 1, maxLength: 6 }),
        fc.subarray(["a", "b", "c", "d"]),
        fc.option(fc.integer({ min: 0, max: 70 }), { nil: undefined }),
        (turns, summarized, floor) => {
          const messages: any[] = [user(0, "start")];
          turns.forEach(([id, text, errored, orphan, kind], i) => {
            const ts = (i + 1) * 10;
            const args = kind === "write" ? { body: text } : { path: `/h/skills/${kind}/SKILL.md` };
            messages.push(callTurn(ts, [id], kind === "write" ? "write" : "read", args), result(ts + 1, id, text, "write", errored));
            if (orphan) messages.push(result(ts + 2, `ghost-${i}`, text));
          });
          const supersede = { state: { floor, activated: new Set<string>() }, isProtected: (name: string, args: unknown) => isProtectedBy(name, args, protection) };
          const out = pruneMessages(messages, mockIndexer({ summarized }), chainOff, { enabled: true, cooldownTurns: 1, minArgChars: 0 }, undefined, 0, undefined, supersede);
          if (!out.pruned) return out.messages === messages && out.beforeChars === 0 && out.afterChars === 0;
          return out.beforeChars === sizeMessages(messages) && out.afterChars === sizeMessages(out.messages);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("pruneMessages: never mutates its input", () => {
  const everything = () => {
    const messages: any[] = [
      user(100),
      callTurn(200, ["tc-mid"], "write", { content: "z".repeat(300) }),
      result(210, "tc-mid", "err", "write", true),
      { role: "custom", customType: CUSTOM_TYPE_SUMMARY, content: "s", details: { toolCallRefs: [{ shortId: "t1", toolCallId: "tc-mid", resultTimestamp: 210 }] }, timestamp: 220 },
      assistantText(300, true),
      user(400),
      callTurn(500, ["a", "b"]),
      result(510, "a"),
      { role: "custom", customType: "other", content: "x", timestamp: 515 },
      result(520, "b"),
      callTurn(600, ["c"]),
      result(610, "c", "c out"),
      callTurn(700, ["d"]),
      result(710, "d"),
    ];
    const indexer = mockIndexer({
      summarized: ["c@610"],
      refs: { "c@610": "t2" },
      chains: [chainEntry("b1", 100, ["tc-mid"], 300, { droppedOccurrenceKeys: ["tc-mid@210"] })],
      bodies: [{ keys: ["tc-mid@210"], text: "BODY" }],
    });
    return { messages, indexer };
  };

  test("a deep-frozen input renders every phase without throwing", () => {
    const { messages, indexer } = everything();
    deepFreeze(messages);
    let out: any;
    expect(() => {
      out = pruneMessages(messages, indexer, chainOn(true), { enabled: true, cooldownTurns: 1, minArgChars: 10 }, protection, 3, new DiagnosticSink(() => {}));
    }).not.toThrow();
    expect(out.pruned).toBe(true);
    expect(out.messages.some(isSynthetic)).toBe(true);
    expect(out.messages.some((m: any) => m.toolCallId === "b")).toBe(false);
    expect(out.messages.some((m: any) => m.content?.[0]?.text?.includes?.("`t2`"))).toBe(true);
  });

  test("the input is deep-equal to a clone taken before the render", () => {
    const { messages, indexer } = everything();
    const before = structuredClone(messages);
    const refs = messages.slice();
    pruneMessages(messages, indexer, chainOn(true), { enabled: true, cooldownTurns: 1, minArgChars: 10 }, protection, 3);
    expect(messages).toEqual(before);
    refs.forEach((m, i) => expect(messages[i]).toBe(m));
  });

  test("untouched messages are carried into the output by reference", () => {
    const { messages, indexer } = p1();
    const out = pruneMessages(messages, indexer);
    expect(out.messages[0]).toBe(messages[0]);
    expect(out.messages[1]).not.toBe(messages[1]);
  });

  test("rendering the same input twice gives deep-equal output", () => {
    const { messages, indexer } = everything();
    const args = [chainOn(true), { enabled: true, cooldownTurns: 1, minArgChars: 10 }, protection, 3] as const;
    expect(pruneMessages(messages, indexer, ...args).messages).toEqual(pruneMessages(messages, indexer, ...args).messages);
  });
});

describe("pruneMessages: bad input never throws", () => {
  const safe = (messages: any[], indexer: any, chain?: ChainCompressionConfig, sink?: any) => {
    let out: any;
    expect(() => {
      out = pruneMessages(messages, indexer, chain, purge, protection, 3, sink);
    }).not.toThrow();
    return out;
  };

  const chainFixture = () => [user(100), callTurn(200, ["tc-mid"]), result(210, "tc-mid"), assistantText(300)];

  test("a chain entry with string timestamps is reported unresolved and left raw", () => {
    const { sink, appended } = recordingSink();
    const messages = chainFixture();
    const bad = { ...chainEntry("b1", 100, ["tc-mid"], 300), startUserTimestamp: "100" as any, finalAssistantTimestamp: "300" as any };
    const out = safe(messages, mockIndexer({ chains: [bad] }), chainOn(), sink);
    expect(out.messages).toBe(messages);
    expect(appended.map((a) => a.data.kind)).toEqual(["unresolved-range"]);
  });

  test("a chain entry with NaN or missing timestamps is reported unresolved and left raw", () => {
    const { sink } = recordingSink();
    const messages = chainFixture();
    const nan = { ...chainEntry("b1", 100, ["tc-mid"], 300), finalAssistantTimestamp: Number.NaN };
    const { finalAssistantTimestamp: _, ...missing } = chainEntry("b2", 100, ["tc-mid"], 300);
    const out = safe(messages, mockIndexer({ chains: [nan, missing as any] }), chainOn(), sink);
    expect(out.messages).toBe(messages);
    expect(sink.counts()["unresolved-range"]).toBe(2);
  });

  test("a chain entry without toolRefs or dropped ids is reported and left raw", () => {
    const messages = chainFixture();
    const bad: any = { blockId: "b1", startUserTimestamp: 100, finalAssistantTimestamp: 300, compressedAt: 150 };
    const { sink, appended } = recordingSink();
    const out = safe(messages, mockIndexer({ chains: [bad], bodies: [{ keys: ["tc-mid"], text: "NOPE" }] }), chainOn(), sink);
    expect(out.messages).toBe(messages);
    expect(appended.map((a) => a.data.detail)).toEqual(["blockId=b1 skipped: invalid entry (droppedToolCallIds is missing)"]);
  });

  test("a toolRefs value that is not a list is reported and left raw", () => {
    const messages = chainFixture();
    const { sink } = recordingSink();
    const out = safe(messages, mockIndexer({ chains: [{ ...chainEntry("b1", 100, ["tc-mid"], 300), toolRefs: "t1" as any }] }), chainOn(), sink);
    expect(out.messages).toBe(messages);
    expect(sink.counts()["unresolved-range"]).toBe(1);
  });

  test("a range summary that is not a string is reported and left raw", () => {
    const messages = chainFixture();
    const { sink } = recordingSink();
    const out = safe(messages, mockIndexer({ chains: [chainEntry("b1", 100, ["tc-mid"], 300, { rangeSummaryText: 42 as any })] }), chainOn(), sink);
    expect(out.messages).toBe(messages);
    expect(sink.counts()["unresolved-range"]).toBe(1);
  });

  test("a block id that is not b<digits> is reported, and a placeholder naming it stays literal", () => {
    const messages = [...chainFixture(), user(400), callTurn(500, ["tc2"]), result(510, "tc2"), assistantText(600)];
    const odd = chainEntry("chain-7", 100, ["tc-mid"], 300, { rangeSummaryText: "ODD" });
    const next = chainEntry("b8", 400, ["tc2"], 600, { rangeSummaryText: "see {b7} and {chain-7}" });
    const indexer = { ...mockIndexer({ chains: [odd, next] }), findChainEntryByBlockId: (id: string) => [odd, next].find((e) => e.blockId === id) };
    const { sink } = recordingSink();
    const texts = safe(messages, indexer, chainOn(), sink).messages.filter(isSynthetic).map((m: any) => m.content[0].text);
    expect(texts).toHaveLength(1);
    expect(texts[0]).toStartWith('<compressed-chain id="b8"');
    expect(texts[0]).toContain("see {b7} and {chain-7}");
    expect(sink.counts()["unresolved-range"]).toBe(1);
  });

  test("an orphaned result whose id is an object is swept and reported without throwing", () => {
    const { sink, appended } = recordingSink();
    const orphan = { ...result(2, "x"), toolCallId: { toString: 1 } };
    const out = safe([user(1), orphan], mockIndexer(), undefined, sink);
    expect(out.messages).toEqual([user(1)]);
    expect(appended.map((a) => a.data.detail)).toEqual(["swept 1 orphan toolResult(s): <object>"]);
  });

  test("a message of unknown role passes through and acts as a barrier", () => {
    const weird = { role: "future-role", payload: 1, timestamp: 5 };
    const messages = [callTurn(1, ["a"]), result(2, "a"), weird, user(6)];
    const out = safe(messages, mockIndexer());
    expect(out.messages).toBe(messages);
  });

  test("a tool result with a non-string toolCallId is never looked up and is left raw or swept", () => {
    const asked: unknown[] = [];
    const indexer = {
      ...mockIndexer(),
      isSummarized: (k: unknown) => {
        asked.push(k);
        return true;
      },
      hasLegacyBareRecord: (k: unknown) => {
        asked.push(k);
        return true;
      },
    };
    const numeric = { role: "toolResult", toolCallId: 7, toolName: "bash", content: [{ type: "text", text: "raw" }], timestamp: 3 };
    const missing = { role: "toolResult", toolName: "bash", content: [{ type: "text", text: "raw" }], timestamp: 4 };
    const { sink } = recordingSink();
    const out = safe([callTurn(1, ["a"]), result(2, "a"), numeric, missing], indexer, undefined, sink);
    expect(asked.every((k) => typeof k === "string")).toBe(true);
    expect(out.messages.some((m: any) => m === numeric || m === missing)).toBe(false);
    expect(sink.counts()["orphan-sweep"]).toBe(1);
  });

  test("messages with non-array content are tolerated and a summarized one is still stubbed", () => {
    const messages = [
      { role: "user", content: "plain string", timestamp: 1 },
      { role: "assistant", content: "no blocks", timestamp: 2 },
      { role: "assistant", content: [{ type: "toolCall", id: "s1", name: "bash", arguments: {} }], timestamp: 3 },
      { role: "toolResult", toolCallId: "s1", toolName: "bash", content: "string body", timestamp: 4 },
      { role: "custom", customType: CUSTOM_TYPE_SUMMARY, content: "x", details: { toolCallRefs: "bad" }, timestamp: 5 },
    ];
    const out = safe(messages, mockIndexer({ summarized: ["s1"] }), chainOn());
    expect(out.pruned).toBe(true);
    expect(out.messages[3].content[0].text).toContain(SUMMARIZED_PHRASE);
    expect(out.messages[0]).toBe(messages[0]);
    expect(out.messages[4]).toBe(messages[4]);
  });
});

describe("pruneMessages: pi-condense output never needs the sweep", () => {
  const cases: Array<[string, string, () => { messages: any[]; indexer: any; chain?: any; purge?: any }]> = [
    ["P36", "a stubbed result", p1],
    ["P37", "a compressed chain", () => ({ ...p3(), chain: chainOn() })],
    ["P38", "an error purge over two tool turns", () => ({ ...p6(2), chain: chainOff, purge })],
    ["P39", "a legacy-rung stub rebuilt from a branch with message entries", p23],
    ["P40", "an occurrence-keyed stub beside a live reuse", p20],
    ["P41", "a legacy collision stub with a live result in the branch", p24],
    ["P42", "a spill stub", p8],
  ];
  for (const [id, label, make] of cases) {
    test(`${label} sweeps zero (${id})`, () => {
      const { messages, indexer, chain, purge: purgeConfig } = make();
      const out = pruneWithZeroSweepAssertion(messages, indexer, chain, purgeConfig);
      expect(out.pruned).toBe(true);
    });
  }

  test("a per-batch summary after a completed cycle sweeps zero (AC4 b)", () => {
    const messages = [
      user(100),
      callTurn(200, ["a"]),
      result(210, "a"),
      { role: "custom", customType: CUSTOM_TYPE_SUMMARY, content: "s", details: { toolCallRefs: [{ shortId: "t1", toolCallId: "a", resultTimestamp: 210 }] }, timestamp: 220 },
      assistantText(300),
    ];
    const out = pruneWithZeroSweepAssertion(messages, mockIndexer({ summarized: ["a@210"], refs: { "a@210": "t1" } }));
    expect(out.pruned).toBe(true);
  });
});
