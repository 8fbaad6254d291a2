import { describe, expect, test } from "bun:test";
import {
  applyChainCompressions,
  buildSyntheticChainMessage,
  compressChainRanges,
  isPerBatchSummaryMessage,
  perBatchSummaryOverlapsDropped,
  resolveRange,
  withoutThinkingBlocks,
} from "./chain-range-prune.js";
import { expectNoOrphanToolResults, expectZeroOrphanSweep } from "../../test/orphan-assertions.js";
import { CHAIN_FRAME } from "../format/summary-frame.js";
import { CUSTOM_TYPE_SUMMARY } from "../names.js";
import type { ChainCompressionEntry } from "../capture/records.js";

// --- factories -------------------------------------------------------------

const user = (ts: number, text = "go") => ({ role: "user", content: [{ type: "text", text }], timestamp: ts });
const assistantWithTools = (ts: number, ids: string[], name = "bash") => ({
  role: "assistant",
  content: ids.map((id) => ({ type: "toolCall", id, name, arguments: { cmd: id } })),
  timestamp: ts,
});
const assistantText = (ts: number, thinking = false) => ({
  role: "assistant",
  content: [
    ...(thinking ? [{ type: "thinking", thinking: "pondering", thinkingSignature: "sig" }] : []),
    { type: "text", text: "done" },
  ],
  timestamp: ts,
});
const toolResult = (ts: number | undefined, id: string, text = `out ${id}`, toolName = "bash") => ({
  role: "toolResult",
  toolCallId: id,
  toolName,
  content: [{ type: "text", text }],
  isError: false,
  ...(ts === undefined ? {} : { timestamp: ts }),
});
const summaryMsg = (ts: number, refs: Array<{ toolCallId: string; resultTimestamp?: number }>) => ({
  role: "custom",
  customType: CUSTOM_TYPE_SUMMARY,
  content: "per-batch summary",
  display: false,
  details: { toolCallRefs: refs.map((r, i) => ({ shortId: `t${i + 1}`, ...r })) },
  timestamp: ts,
});
const otherCustom = (ts: number) => ({ role: "custom", customType: "other-ext", content: "note", display: true, timestamp: ts });

function entry(
  blockId: string,
  start: number,
  dropped: string[],
  final: number | null,
  toolRefs: string[] = [],
): ChainCompressionEntry {
  return { blockId, startUserTimestamp: start, droppedToolCallIds: dropped, finalAssistantTimestamp: final, toolRefs, compressedAt: start + 9999 };
}

const body = () => "chain summary";

function collectingSink() {
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

const isSynthetic = (m: any) =>
  m?.role === "user" && typeof m.content?.[0]?.text === "string" && m.content[0].text.startsWith("<compressed-chain");
const synthetics = (messages: any[]) => messages.filter(isSynthetic);
const syntheticId = (m: any) => /id="([^"]*)"/.exec(m.content[0].text)?.[1];
const textOf = (m: any) => m.content[0].text as string;
const roles = (messages: any[]) => messages.map((m) => m.role);

/** U(100), A(200; tc1), T(300), F(400). */
const simpleChain = (finalThinking = false) => [
  user(100),
  assistantWithTools(200, ["tc1"]),
  toolResult(300, "tc1"),
  assistantText(400, finalThinking),
];

/** The 12-message incident: two closed chains followed by a live turn reusing bash_23. */
function incident(): any[] {
  return [
    user(1000),
    assistantWithTools(1100, ["bash_18"]),
    toolResult(1150, "bash_18"),
    assistantText(1200),
    user(2000),
    assistantWithTools(2100, ["bash_23"]),
    toolResult(2150, "bash_23"),
    assistantText(2200),
    user(3000),
    assistantWithTools(3100, ["bash_23", "gauntlet_setting_24"]),
    toolResult(3150, "bash_23", "LIVE 23"),
    toolResult(3160, "gauntlet_setting_24", "LIVE 24"),
  ];
}
const b5 = (): ChainCompressionEntry => ({ ...entry("b5", 1000, ["bash_18"], 1200, ["t1"]), compressedAt: 1050 });
const b7 = (): ChainCompressionEntry => ({ ...entry("b7", 2000, ["bash_23"], 2200, ["t2"]), compressedAt: 2050 });
const applyIncident = (messages = incident(), strip = false) => applyChainCompressions(messages, [b5(), b7()], body, strip);

// --- outputs reused by the zero-sweep table --------------------------------

const c19Output = () =>
  applyChainCompressions(
    [...simpleChain(), user(500), assistantText(600)],
    [entry("b1", 100, ["tc1"], 400, ["t1"])],
    body,
    false,
  );
const twoChains = () => [
  ...simpleChain(),
  user(500),
  assistantWithTools(600, ["tc2"]),
  toolResult(700, "tc2"),
  assistantText(800),
  user(900),
  assistantText(1000),
];
const c27Output = () =>
  applyChainCompressions(twoChains(), [entry("b1", 100, ["tc1"], 400), entry("b2", 500, ["tc2"], 800)], body, false);
const protectedRange = () => [
  user(100),
  assistantWithTools(200, ["tc-todo", "tc-read"]),
  toolResult(undefined, "tc-todo", "PLAN-STATE", "todowrite"),
  toolResult(undefined, "tc-read", "FILE", "read"),
  assistantText(400),
];
const c30Output = () =>
  applyChainCompressions(
    protectedRange(),
    [{ ...entry("b1", 100, ["tc-todo", "tc-read"], 400, ["t1"]), protectedToolCallIds: ["tc-todo"] }],
    () => "SUMMARY",
    false,
  );
const c47Input = () => {
  const messages = incident();
  messages.splice(3, 0, otherCustom(1160));
  return messages;
};
const c49Input = () => {
  const messages = incident();
  messages[3] = assistantText(1200, true);
  return messages;
};
const wideAndInner = () => [
  { ...entry("b8", 1000, ["bash_18", "bash_23"], 2200), compressedAt: 1010 },
  { ...entry("b9", 2000, ["bash_23"], 2200), compressedAt: 2010 },
];

// ---------------------------------------------------------------------------

describe("isPerBatchSummaryMessage", () => {
  test("is true for a context-prune-summary custom message", () => {
    // C1
    expect(isPerBatchSummaryMessage(summaryMsg(1, []))).toBe(true);
  });

  test("is false for another custom type", () => {
    // C2
    expect(isPerBatchSummaryMessage({ role: "custom", customType: "context-prune-index", content: "" })).toBe(false);
  });

  test("is false for user, assistant and toolResult messages", () => {
    // C3
    expect(isPerBatchSummaryMessage(user(1))).toBe(false);
    expect(isPerBatchSummaryMessage(assistantText(1))).toBe(false);
    expect(isPerBatchSummaryMessage(toolResult(1, "a"))).toBe(false);
  });

  test("a non-custom role carrying the summary customType is not a summary", () => {
    expect(isPerBatchSummaryMessage({ role: "user", customType: CUSTOM_TYPE_SUMMARY })).toBe(false);
    expect(isPerBatchSummaryMessage(null)).toBe(false);
  });
});

describe("perBatchSummaryOverlapsDropped", () => {
  test("a legacy ref matches through the bare-id set", () => {
    // C4
    const msg = summaryMsg(1, [{ toolCallId: "tc1" }, { toolCallId: "tc2" }]);
    expect(perBatchSummaryOverlapsDropped(msg, new Set(), new Set(["tc1"]))).toBe(true);
  });

  test("no shared id means no overlap", () => {
    // C5
    const msg = summaryMsg(1, [{ toolCallId: "tc3" }]);
    expect(perBatchSummaryOverlapsDropped(msg, new Set(), new Set(["tc1", "tc2"]))).toBe(false);
  });

  test("a summary without details never overlaps", () => {
    // C6
    const msg = { role: "custom", customType: CUSTOM_TYPE_SUMMARY, content: "x", timestamp: 1 };
    expect(perBatchSummaryOverlapsDropped(msg, new Set(["tc1@1"]), new Set(["tc1"]))).toBe(false);
  });

  test("a timestamped ref ignores the bare-id set", () => {
    // C7
    const msg = summaryMsg(1, [{ toolCallId: "tc1", resultTimestamp: 3150 }]);
    expect(perBatchSummaryOverlapsDropped(msg, new Set(["tc1@2000"]), new Set(["tc1"]))).toBe(false);
  });

  test("a timestamped ref matches its own occurrence key", () => {
    // C8
    const msg = summaryMsg(1, [{ toolCallId: "tc1", resultTimestamp: 2000 }]);
    expect(perBatchSummaryOverlapsDropped(msg, new Set(["tc1@2000"]), new Set())).toBe(true);
  });

  test("a legacy ref given as an occurrence-key string matches by its bare id", () => {
    const msg = summaryMsg(1, [{ toolCallId: "tc1@2000" }]);
    expect(perBatchSummaryOverlapsDropped(msg, new Set(), new Set(["tc1"]))).toBe(true);
  });

  test("malformed details or refs never throw and never overlap", () => {
    const dropped = new Set(["tc1"]);
    const shapes = [
      { details: null },
      { details: { toolCallRefs: "tc1" } },
      { details: { toolCallRefs: [null, 5, { toolCallId: 7 }, {}] } },
    ];
    for (const shape of shapes) {
      const msg = { role: "custom", customType: CUSTOM_TYPE_SUMMARY, content: "x", ...shape };
      expect(perBatchSummaryOverlapsDropped(msg, new Set(), dropped)).toBe(false);
    }
  });
});

describe("withoutThinkingBlocks", () => {
  test("removes thinking and keeps the text block", () => {
    // C9
    const stripped = withoutThinkingBlocks(assistantText(1, true) as any);
    expect(stripped.content.length).toBe(1);
    expect(stripped.content[0]!.type).toBe("text");
  });

  test("returns a new object and leaves the original untouched", () => {
    // C10
    const original = assistantText(1, true) as any;
    const stripped = withoutThinkingBlocks(original);
    expect(stripped).not.toBe(original);
    expect(original.content.length).toBe(2);
  });

  test("an assistant without thinking keeps its content", () => {
    // C11
    const original = assistantText(1) as any;
    const stripped = withoutThinkingBlocks(original);
    expect(stripped.content).toEqual([{ type: "text", text: "done" }]);
    expect(stripped).not.toBe(original);
  });

  test("redacted thinking blocks (type thinking) are removed too", () => {
    const msg = {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "", redacted: true, thinkingSignature: "opaque" },
        { type: "toolCall", id: "x", name: "bash", arguments: {} },
      ],
      timestamp: 1,
    } as any;
    expect(withoutThinkingBlocks(msg).content.map((b: any) => b.type)).toEqual(["toolCall"]);
  });
});

describe("buildSyntheticChainMessage", () => {
  test("builds a user message whose text carries id, tools and the summary", () => {
    // C12
    const msg = buildSyntheticChainMessage(entry("b1", 100, [], 400, ["t1"]), "the summary") as any;
    expect(msg.role).toBe("user");
    expect(msg.content[0].type).toBe("text");
    expect(msg.content[0].text).toContain('id="b1"');
    expect(msg.content[0].text).toContain('tools="t1"');
    expect(msg.content[0].text).toContain("the summary");
  });

  test("stamps the message with compressedAt", () => {
    // C13
    const msg = buildSyntheticChainMessage({ ...entry("b1", 100, [], 400), compressedAt: 123456 }, "s") as any;
    expect(msg.timestamp).toBe(123456);
  });

  test("joins several tool refs with a comma", () => {
    // C14
    const msg = buildSyntheticChainMessage(entry("b1", 100, [], 400, ["t1", "t2"]), "s") as any;
    expect(msg.content[0].text).toContain('tools="t1,t2"');
  });

  test("renders the exact layout with protected blocks appended after substitution", () => {
    const lookup = (id: string) => (id === "b1" ? "ONE" : undefined);
    const msg = buildSyntheticChainMessage(entry("b2", 1, [], 2, ["t3"]), "see {b1}", lookup, [
      { tool: "todowrite", text: "keep {b1} literal" },
    ]) as any;
    expect(msg.content[0].text).toBe(
      `<compressed-chain id="b2" tools="t3">\n${CHAIN_FRAME}\nsee ONE\n\n<protected-output tool="todowrite">\nkeep {b1} literal\n</protected-output>\n</compressed-chain>`,
    );
  });

  test("keeps its own {bN} token literal", () => {
    const msg = buildSyntheticChainMessage(entry("b2", 1, [], 2), "{b2} and {b1}", () => "X") as any;
    expect(msg.content[0].text).toBe(`<compressed-chain id="b2" tools="">\n${CHAIN_FRAME}\n{b2} and X\n</compressed-chain>`);
  });

  test("a toolRefs value that is not an array renders an empty tools attribute", () => {
    const bad = { ...entry("b1", 1, [], 2), toolRefs: "t1" as any };
    expect(() => buildSyntheticChainMessage(bad, "s")).not.toThrow();
    expect((buildSyntheticChainMessage(bad, "s") as any).content[0].text).toContain('tools=""');
  });
});

describe("applyChainCompressions: basic drops", () => {
  test("an empty entry list returns the input reference", () => {
    // C15
    const input = simpleChain();
    expect(applyChainCompressions(input, [], body, true)).toBe(input);
  });

  test("removes every tool result inside the range", () => {
    // C16
    const out = applyChainCompressions(simpleChain(), [entry("b1", 100, ["tc1"], 400)], body, false);
    expect(out.filter((m) => m.role === "toolResult")).toEqual([]);
  });

  test("keeps only the final assistant of the range", () => {
    // C17
    const out = applyChainCompressions(simpleChain(), [entry("b1", 100, ["tc1"], 400)], body, false);
    const assistants = out.filter((m) => m.role === "assistant");
    expect(assistants.length).toBe(1);
    expect(assistants[0].timestamp).toBe(400);
  });

  test("inserts the synthetic right after the start user message", () => {
    // C18
    const out = applyChainCompressions(simpleChain(), [entry("b1", 100, ["tc1"], 400, ["t1"])], body, false);
    expect(out[0].timestamp).toBe(100);
    expect(out[1].role).toBe("user");
    expect(textOf(out[1])).toContain("compressed-chain");
    expect(out.length).toBe(3);
  });

  test("surviving real messages keep their order", () => {
    // C19
    const real = c19Output().filter((m) => !isSynthetic(m));
    const stamps = real.map((m) => m.timestamp);
    expect(stamps).toEqual([100, 400, 500, 600]);
    for (let i = 1; i < stamps.length; i++) expect(stamps[i]).toBeGreaterThan(stamps[i - 1]);
  });

  test("drops a per-batch summary inside the range", () => {
    // C20
    const input = [...simpleChain().slice(0, 3), summaryMsg(350, [{ toolCallId: "tc1" }]), assistantText(400)];
    const out = applyChainCompressions(input, [entry("b1", 100, ["tc1"], 400)], body, false);
    expect(out.filter(isPerBatchSummaryMessage)).toEqual([]);
  });

  test("keeps a non-overlapping summary after the range", () => {
    // C21
    const input = [...simpleChain(), summaryMsg(450, [{ toolCallId: "tc2" }])];
    const out = applyChainCompressions(input, [entry("b1", 100, ["tc1"], 400)], body, false);
    expect(out.filter(isPerBatchSummaryMessage).length).toBe(1);
  });

  test("keeps a live summary for another occurrence of a dropped id", () => {
    // C22
    const live = summaryMsg(3200, [{ toolCallId: "tc1", resultTimestamp: 3150 }]);
    const input = [
      ...simpleChain(),
      user(3000),
      assistantWithTools(3100, ["tc1"]),
      toolResult(3150, "tc1"),
      live,
      assistantText(3300),
    ];
    const out = applyChainCompressions(input, [entry("b1", 100, ["tc1"], 400)], body, false);
    expect(out).toContain(live);
    expect(out.filter((m) => m.role === "toolResult").map((m) => m.timestamp)).toEqual([3150]);
  });
});

describe("applyChainCompressions: final assistant thinking", () => {
  test("strips thinking from the final assistant when asked", () => {
    // C23
    const out = applyChainCompressions(simpleChain(true), [entry("b1", 100, ["tc1"], 400)], body, true);
    const final = out.find((m) => m.timestamp === 400);
    expect(final.content.map((b: any) => b.type)).toEqual(["text"]);
  });

  test("keeps thinking when strip is off", () => {
    // C24
    const input = simpleChain(true);
    const out = applyChainCompressions(input, [entry("b1", 100, ["tc1"], 400)], body, false);
    const final = out.find((m) => m.timestamp === 400);
    expect(final).toBe(input[3]);
    expect(final.content.map((b: any) => b.type)).toEqual(["thinking", "text"]);
  });

  test("never strips an assistant outside the accepted final positions", () => {
    const input = [...simpleChain(true), user(500), assistantText(600, true)];
    const out = applyChainCompressions(input, [entry("b1", 100, ["tc1"], 400)], body, true);
    expect(out.at(-1)).toBe(input[5]);
  });
});

describe("applyChainCompressions: idempotence", () => {
  test("re-applying to the output yields deep-equal output", () => {
    // C25
    const entries = [entry("b1", 100, ["tc1"], 400, ["t1"])];
    const input = [...simpleChain(true), user(500), assistantWithTools(600, ["tc2"]), toolResult(610, "tc2"), assistantText(700)];
    const first = applyChainCompressions(input, entries, body, true);
    const second = applyChainCompressions(first, entries, body, true);
    expect(second).toEqual(first);
    expect(synthetics(second).length).toBe(1);
  });

  test("re-applying with a block lookup is idempotent too", () => {
    // C26
    const entries = [entry("b1", 100, ["tc1"], 400, ["t1"])];
    const lookup = (id: string) => (id === "b1" ? "chain summary" : undefined);
    const input = [...simpleChain(true), user(500), assistantText(600)];
    const first = applyChainCompressions(input, entries, body, true, lookup);
    const second = applyChainCompressions(first, entries, body, true, lookup);
    expect(second).toEqual(first);
  });

  test("a second application still returns a new array", () => {
    const entries = [entry("b1", 100, ["tc1"], 400)];
    const first = applyChainCompressions(simpleChain(), entries, body, false);
    const second = applyChainCompressions(first, entries, body, false);
    expect(second).not.toBe(first);
  });
});

describe("applyChainCompressions: several chains and bodies", () => {
  test("compresses two chains in order and keeps the trailing turn", () => {
    // C27
    const out = c27Output();
    expect(out.filter((m) => m.role === "toolResult")).toEqual([]);
    expect(synthetics(out).map(syntheticId)).toEqual(["b1", "b2"]);
    expect(out.some((m) => m.role === "user" && m.timestamp === 900)).toBe(true);
    expect(out.some((m) => m.role === "assistant" && m.timestamp === 1000)).toBe(true);
  });

  test("calls the body function exactly once per accepted entry", () => {
    // C28
    const calls: string[] = [];
    const out = applyChainCompressions(
      simpleChain(),
      [entry("b1", 100, ["tc1"], 400)],
      (e) => {
        calls.push(e.blockId);
        return `custom summary for ${e.blockId}`;
      },
      false,
    );
    expect(calls).toEqual(["b1"]);
    expect(textOf(synthetics(out)[0])).toContain("custom summary for b1");
  });

  test("substitutes {bN} placeholders with another block's body", () => {
    // C29
    const bodies: Record<string, string> = { b1: "b1 summary text", b2: "see {b1} for details" };
    const out = applyChainCompressions(
      twoChains(),
      [entry("b1", 100, ["tc1"], 400), entry("b2", 500, ["tc2"], 800)],
      (e) => bodies[e.blockId]!,
      false,
      (id) => bodies[id],
    );
    const [s1, s2] = synthetics(out);
    expect(textOf(s2)).toContain("see b1 summary text for details");
    expect(textOf(s2)).not.toContain("{b1}");
    expect(textOf(s1)).toContain("b1 summary text");
  });

  test("keeps an unknown placeholder literal", () => {
    // C34
    const out = applyChainCompressions(
      simpleChain(),
      [entry("b1", 100, ["tc1"], 400)],
      () => "refers to {b99} unknown",
      false,
      () => undefined,
    );
    expect(textOf(synthetics(out)[0])).toContain("{b99}");
  });

  test("never computes a body for unresolved or rejected entries", () => {
    const calls: string[] = [];
    applyChainCompressions(
      incident(),
      [...wideAndInner(), entry("b11", 1000, [], null), entry("b12", 42, [], 2200)],
      (e) => {
        calls.push(e.blockId);
        return "x";
      },
      false,
    );
    expect(calls).toEqual(["b8"]);
  });
});

describe("applyChainCompressions: protected output relocation", () => {
  test("relocates a protected result into the synthetic and drops the unprotected one", () => {
    // C30
    const out = c30Output();
    expect(out.filter((m) => m.role === "toolResult")).toEqual([]);
    const text = textOf(synthetics(out)[0]);
    expect(text).toContain('<protected-output tool="todowrite">');
    expect(text).toContain("PLAN-STATE");
    expect(text).not.toContain("FILE");
  });

  test("without protected ids the synthetic text is byte-exact", () => {
    // C31
    const out = applyChainCompressions(protectedRange(), [entry("b1", 100, ["tc-todo", "tc-read"], 400, ["t1"])], () => "SUMMARY", false);
    expect(textOf(synthetics(out)[0])).toBe(`<compressed-chain id="b1" tools="t1">\n${CHAIN_FRAME}\nSUMMARY\n</compressed-chain>`);
  });

  test("relocates several protected results in message order", () => {
    // C32
    const input = [
      user(100),
      assistantWithTools(200, ["p1", "p2"]),
      toolResult(210, "p1", "FIRST", "todowrite"),
      toolResult(220, "p2", "SECOND", "todoread"),
      assistantText(400),
    ];
    const out = applyChainCompressions(
      input,
      [{ ...entry("b1", 100, ["p1", "p2"], 400, ["t1"]), protectedToolCallIds: ["p1", "p2"] }],
      () => "SUMMARY",
      false,
    );
    const text = textOf(synthetics(out)[0]);
    const first = '<protected-output tool="todowrite">\nFIRST\n</protected-output>';
    const second = '<protected-output tool="todoread">\nSECOND\n</protected-output>';
    expect(text).toContain(first);
    expect(text).toContain(second);
    expect(text.indexOf(first)).toBeLessThan(text.indexOf(second));
    expect(text).toBe(`<compressed-chain id="b1" tools="t1">\n${CHAIN_FRAME}\nSUMMARY\n\n${first}\n\n${second}\n</compressed-chain>`);
  });

  test("a relocated protected result keeps its images after the text block (issue 12, finding 9)", () => {
    const shot = { type: "image", data: "AAAA", mimeType: "image/png" };
    const input = [
      user(100),
      assistantWithTools(200, ["p1", "p2"]),
      { ...toolResult(210, "p1", "Read image file [image/png]", "read"), content: [{ type: "text", text: "Read image file [image/png]" }, shot] },
      toolResult(220, "p2", "plain", "bash"),
      assistantText(400),
    ];
    const before = structuredClone(input);
    const out = applyChainCompressions(
      input,
      [{ ...entry("b1", 100, ["p1", "p2"], 400, ["t1"]), protectedToolCallIds: ["p1"] }],
      () => "SUMMARY",
      false,
    );
    const [synthetic] = synthetics(out);
    expect(synthetic.content).toHaveLength(2);
    expect(synthetic.content[1]).toEqual(shot);
    expect(synthetic.content[1]).not.toBe(input[2]!.content[1]);
    expect(synthetic.content[0].text).toBe(
      `<compressed-chain id="b1" tools="t1">\n${CHAIN_FRAME}\nSUMMARY\n\n<protected-output tool="read">\n` +
        "[image returned: image/png sha256:63c1dd95]\nRead image file [image/png]\n</protected-output>\n</compressed-chain>",
    );
    expect(input).toEqual(before);
  });

  test("images of several relocated results follow the text in message order", () => {
    const image = (data: string) => ({ type: "image", data, mimeType: "image/png" });
    const input = [
      user(100),
      assistantWithTools(200, ["p1", "p2"]),
      { ...toolResult(210, "p1", "one", "read"), content: [image("AAAA"), image("CCCC")] },
      { ...toolResult(220, "p2", "two", "read"), content: [{ type: "text", text: "two" }, image("BBBB")] },
      assistantText(400),
    ];
    const out = applyChainCompressions(
      input,
      [{ ...entry("b1", 100, ["p1", "p2"], 400, ["t1"]), protectedToolCallIds: ["p1", "p2"] }],
      () => "SUMMARY",
      false,
    );
    expect(synthetics(out)[0].content.slice(1).map((b: any) => b.data)).toEqual(["AAAA", "CCCC", "BBBB"]);
  });

  test("a relocated text-only result adds no image blocks", () => {
    expect(synthetics(c30Output())[0].content).toHaveLength(1);
  });

  test("a protected id with no result in the range still inserts a plain synthetic", () => {
    // C33
    const out = applyChainCompressions(
      [user(1), assistantText(9)],
      [{ ...entry("b1", 1, [], 9), protectedToolCallIds: ["missing"] }],
      body,
      false,
    );
    expect(synthetics(out).length).toBe(1);
    expect(textOf(synthetics(out)[0])).not.toContain("<protected-output");
  });
});

describe("resolveRange", () => {
  const fixture = () => [user(1000), assistantWithTools(1100, ["bash_1"]), toolResult(1150, "bash_1"), assistantText(1200)];

  test("resolves the unique start user and final assistant", () => {
    // C35
    expect(resolveRange({ startUserTimestamp: 1000, finalAssistantTimestamp: 1200 }, fixture())).toEqual({
      startIndex: 0,
      endIndex: 3,
    });
  });

  test("a null final timestamp never resolves", () => {
    // C36
    expect(resolveRange({ startUserTimestamp: 1000, finalAssistantTimestamp: null }, fixture())).toBeNull();
  });

  test("two user messages at the start timestamp are ambiguous", () => {
    // C37
    const messages = [...fixture(), user(1000)];
    expect(resolveRange({ startUserTimestamp: 1000, finalAssistantTimestamp: 1200 }, messages)).toBeNull();
  });

  test("an absent start timestamp does not resolve", () => {
    // C38
    expect(resolveRange({ startUserTimestamp: 999, finalAssistantTimestamp: 1200 }, fixture())).toBeNull();
  });

  test("the start must precede the end", () => {
    // C39
    const messages = [assistantText(900), ...fixture()];
    expect(resolveRange({ startUserTimestamp: 1000, finalAssistantTimestamp: 900 }, messages)).toBeNull();
  });

  test("other roles sharing a boundary timestamp are ignored", () => {
    // C40
    const messages = fixture();
    messages[2] = toolResult(1200, "bash_1");
    expect(resolveRange({ startUserTimestamp: 1000, finalAssistantTimestamp: 1200 }, messages)).toEqual({
      startIndex: 0,
      endIndex: 3,
    });
  });

  test("works on minimal objects and a plain range shape", () => {
    // C41
    const messages = [{ role: "user", timestamp: 100 }, { role: "assistant", timestamp: 200 }];
    expect(resolveRange({ startUserTimestamp: 100, finalAssistantTimestamp: 200 }, messages)).toEqual({
      startIndex: 0,
      endIndex: 1,
    });
  });

  test("two assistants at the final timestamp are ambiguous", () => {
    const messages = [...fixture(), assistantText(1200)];
    expect(resolveRange({ startUserTimestamp: 1000, finalAssistantTimestamp: 1200 }, messages)).toBeNull();
  });

  test("a NaN boundary never resolves, even against a NaN-stamped message", () => {
    const messages = [user(Number.NaN), assistantText(Number.NaN)];
    expect(resolveRange({ startUserTimestamp: Number.NaN, finalAssistantTimestamp: Number.NaN }, messages)).toBeNull();
  });
});

describe("custom-message anchors (spec 70 §5.1)", () => {
  const steer = (ts: number, customType = "pi-gauntlet-transition-recovery") => ({
    role: "custom",
    customType,
    content: "continue with the next task",
    display: true,
    timestamp: ts,
  });
  /** U(100) .. F(400), then a steer-anchored chain S(500), A(600; tc2), T(700), F(800). */
  const steered = () => [...simpleChain(), steer(500), assistantWithTools(600, ["tc2"]), toolResult(700, "tc2"), assistantText(800)];

  test("an eligible custom at the start timestamp resolves as the start", () => {
    expect(resolveRange({ startUserTimestamp: 500, finalAssistantTimestamp: 800 }, steered())).toEqual({ startIndex: 4, endIndex: 7 });
  });

  test("a pruner custom at the start timestamp is no start", () => {
    const messages = steered();
    messages[4] = steer(500, CUSTOM_TYPE_SUMMARY);
    expect(resolveRange({ startUserTimestamp: 500, finalAssistantTimestamp: 800 }, messages)).toBeNull();
    messages[4] = steer(500, "pi-condense:summary");
    expect(resolveRange({ startUserTimestamp: 500, finalAssistantTimestamp: 800 }, messages)).toBeNull();
  });

  test("a user and an eligible custom at one timestamp are two matches: null and an unresolved-range diagnostic", () => {
    const messages = [steer(100), ...simpleChain()];
    expect(resolveRange({ startUserTimestamp: 100, finalAssistantTimestamp: 400 }, messages)).toBeNull();
    const sink = collectingSink();
    const out = applyChainCompressions(messages, [entry("b1", 100, ["tc1"], 400, ["t1"])], body, false, undefined, sink);
    expect(out).toBe(messages);
    expect(sink.reports.map((r) => [r.kind, r.key])).toEqual([["unresolved-range", "b1"]]);
  });

  test("two eligible customs at one timestamp are two matches", () => {
    const messages = [steer(500), ...steered()];
    expect(resolveRange({ startUserTimestamp: 500, finalAssistantTimestamp: 800 }, messages)).toBeNull();
  });

  test("the synthetic block is inserted right after the custom anchor", () => {
    const input = steered();
    const out = applyChainCompressions(input, [entry("b1", 500, ["tc2"], 800, ["t1"])], body, false);
    expect(out.slice(4).map((m) => (isSynthetic(m) ? "synthetic" : m.role))).toEqual(["custom", "synthetic", "assistant"]);
    expect(out[4]).toBe(input[4]);
    expect(syntheticId(out[5])).toBe("b1");
    expectNoOrphanToolResults(out);
  });

  test("a third-party custom inside a custom-anchored range survives; the calls and results go", () => {
    const messages = steered();
    messages.splice(6, 0, otherCustom(650));
    const out = applyChainCompressions(messages, [entry("b1", 500, ["tc2"], 800, ["t1"])], body, false);
    expect(out.slice(4).map((m) => (isSynthetic(m) ? "synthetic" : m.role))).toEqual(["custom", "synthetic", "custom", "assistant"]);
    expect(out[6].customType).toBe("other-ext");
    expect(out.some((m) => m.toolCallId === "tc2")).toBe(false);
  });

  test("a user-anchored entry resolves as before next to a custom-anchored one", () => {
    const out = applyChainCompressions(steered(), [entry("b1", 100, ["tc1"], 400), entry("b2", 500, ["tc2"], 800)], body, false);
    expect(synthetics(out).map(syntheticId)).toEqual(["b1", "b2"]);
    expect(roles(out)).toEqual(["user", "user", "assistant", "custom", "user", "assistant"]);
  });
});

describe("applyChainCompressions: incident fixture", () => {
  test("the live turn reusing a dropped id survives in order", () => {
    // C42
    const out = applyIncident();
    const live = out.filter((m) => m.timestamp >= 3000 && !isSynthetic(m));
    expect(live.map((m) => m.timestamp)).toEqual([3000, 3100, 3150, 3160]);
    expect(live.filter((m) => m.role === "toolResult").map((m) => m.toolCallId)).toEqual(["bash_23", "gauntlet_setting_24"]);
  });

  test("output has ten messages and the first synthetic sits at index 1", () => {
    // C43
    const out = applyIncident();
    expect(out.length).toBe(10);
    expect(synthetics(out).length).toBe(2);
    expect(isSynthetic(out[1])).toBe(true);
    expect(syntheticId(out[1])).toBe("b5");
  });

  test("output has no orphan tool results", () => {
    // C44
    expectNoOrphanToolResults(applyIncident());
  });

  test("an unresolvable entry leaves the input untouched and reports unresolved-range", () => {
    // C45
    const input = incident();
    const sink = collectingSink();
    const out = applyChainCompressions(input, [{ ...b5(), finalAssistantTimestamp: null }], body, false, undefined, sink);
    expect(out).toBe(input);
    expect(sink.reports.map((r) => r.kind)).toEqual(["unresolved-range"]);
    expect(sink.reports[0]).toEqual({ kind: "unresolved-range", key: "b5", detail: "blockId=b5 start=1000 final=null" });
  });

  test("applying again to the output is deep-equal", () => {
    // C46
    const first = applyIncident();
    expect(applyChainCompressions(first, [b5(), b7()], body, false)).toEqual(first);
  });

  test("another extension's custom message inside a range survives", () => {
    // C47
    const input = c47Input();
    const out = applyIncident(input);
    expect(out).toContain(input[3]);
  });

  test("a per-batch summary after the range covering a dropped occurrence is removed", () => {
    // C48
    const input = incident();
    input.splice(4, 0, summaryMsg(1300, [{ toolCallId: "bash_18", resultTimestamp: 1150 }]));
    const out = applyIncident(input);
    expect(out.filter(isPerBatchSummaryMessage)).toEqual([]);
  });

  test("the final assistant of a chain loses its thinking under strip", () => {
    // C49
    const out = applyIncident(c49Input(), true);
    const final = out.find((m) => m.role === "assistant" && m.timestamp === 1200);
    expect(final.content.some((b: any) => b.type === "thinking")).toBe(false);
  });

  test("recorded ids that differ from the range report range-id-mismatch but still compress", () => {
    // C50
    const sink = collectingSink();
    const out = applyChainCompressions(
      incident(),
      [{ ...b5(), droppedToolCallIds: ["bash_18", "ghost_1"] }],
      body,
      false,
      undefined,
      sink,
    );
    expect(sink.reports.map((r) => r.kind)).toContain("range-id-mismatch");
    expect(sink.reports.find((r) => r.kind === "range-id-mismatch")).toEqual({
      kind: "range-id-mismatch",
      key: "b5",
      detail: "blockId=b5 recorded=2 actual=1",
    });
    expect(out.some((m) => m.toolCallId === "bash_18")).toBe(false);
  });

  test("recorded occurrence-key strings are compared by bare id", () => {
    const sink = collectingSink();
    applyChainCompressions(incident(), [{ ...b5(), droppedToolCallIds: ["bash_18@1150"] }], body, false, undefined, sink);
    expect(sink.reports).toEqual([]);
  });

  test("a range nested inside a wider one is rejected and reported", () => {
    // C51
    const sink = collectingSink();
    const out = applyChainCompressions(incident(), wideAndInner(), body, false, undefined, sink);
    expect(synthetics(out).map(syntheticId)).toEqual(["b8"]);
    expect(sink.reports.filter((r) => r.kind === "unresolved-range").map((r) => r.key)).toEqual(["overlap:b9"]);
    expect(sink.reports.find((r) => r.key === "overlap:b9")!.detail).toBe("blockId=b9 skipped: range nests inside blockId=b8");
    expectNoOrphanToolResults(out);
  });

  test("the outer range wins even when listed after the inner one", () => {
    const sink = collectingSink();
    const [wide, inner] = wideAndInner();
    const out = applyChainCompressions(incident(), [inner!, wide!], body, false, undefined, sink);
    expect(synthetics(out).map(syntheticId)).toEqual(["b8"]);
    expect(sink.reports.filter((r) => r.kind === "unresolved-range").map((r) => r.key)).toEqual(["overlap:b9"]);
  });

  test("boundary and overlap failures are reported with their own keys and details", () => {
    // C52
    const sink = collectingSink();
    applyChainCompressions(incident(), [...wideAndInner(), entry("b11", 1000, [], null)], body, false, undefined, sink);
    const unresolved = sink.reports.filter((r) => r.kind === "unresolved-range");
    expect(unresolved.map((r) => r.key).sort()).toEqual(["b11", "overlap:b9"]);
    expect(unresolved.find((r) => r.key === "overlap:b9")!.detail).toContain("b8");
    const boundary = unresolved.find((r) => r.key === "b11")!.detail;
    expect(boundary).toContain("start=");
    expect(boundary).toContain("final=");
  });

  test("twin entries with the same boundaries insert exactly one synthetic", () => {
    // C53
    const sink = collectingSink();
    const out = applyChainCompressions(incident(), [b5(), { ...b5(), blockId: "b10" }], body, false, undefined, sink);
    expect(synthetics(out).length).toBe(1);
    expect(syntheticId(synthetics(out)[0])).toBe("b5");
    expect(sink.reports).toContainEqual({
      kind: "unresolved-range",
      key: "overlap:b10",
      detail: "blockId=b10 skipped: range duplicates startIndex=0 already claimed",
    });
  });

  test("a synthetic already present is not inserted again but its range is still pruned", () => {
    const once = applyIncident();
    const reintroduced = [...once.slice(0, 2), assistantWithTools(1100, ["bash_18"]), toolResult(1150, "bash_18"), ...once.slice(2)];
    const out = applyChainCompressions(reintroduced, [b5(), b7()], body, false);
    expect(out).toEqual(once);
  });

  test("never mutates the input messages", () => {
    const input = c49Input();
    input.splice(4, 0, summaryMsg(1300, [{ toolCallId: "bash_18", resultTimestamp: 1150 }]));
    const snapshot = structuredClone(input);
    const copy = input.slice();
    applyChainCompressions(input, [b5(), b7()], body, true);
    expect(input).toEqual(snapshot);
    for (let i = 0; i < input.length; i++) expect(input[i]).toBe(copy[i]);
  });

  test("messages outside every range are carried by reference", () => {
    const input = incident();
    const out = applyIncident(input);
    for (const i of [0, 3, 4, 7, 8, 9, 10, 11]) expect(out).toContain(input[i]);
  });
});

describe("applyChainCompressions: outputs need no orphan sweep", () => {
  const summaryWithoutDetailsCase = () => {
    const input = incident();
    const bare = { role: "custom", customType: CUSTOM_TYPE_SUMMARY, content: "old summary", timestamp: 2300 };
    input.splice(8, 0, bare);
    const out = applyIncident(input);
    expect(out).toContain(bare);
    return out;
  };
  const cases: Array<[string, string, () => any[]]> = [
    ["C54", "the incident output", () => applyIncident()],
    ["C55", "the ten-message incident output", () => applyIncident()],
    ["C56", "a re-applied incident output", () => applyChainCompressions(applyIncident(), [b5(), b7()], body, false)],
    ["C57", "an output keeping a third-party custom message (AC4 a)", () => applyIncident(c47Input())],
    ["C58", "a thinking-stripped output", () => applyIncident(c49Input(), true)],
    ["C59", "an output keeping a summary without details between chains and the live turn", summaryWithoutDetailsCase],
    ["C60", "the nested-range output", () => applyChainCompressions(incident(), wideAndInner(), body, false)],
    ["C61", "the twin-entry output", () => applyChainCompressions(incident(), [b5(), { ...b5(), blockId: "b10" }], body, false)],
    ["C62", "the trailing-turn output", c19Output],
    ["C63", "the two-chain output", c27Output],
    ["C64", "the protected-relocation output", c30Output],
  ];
  for (const [id, label, make] of cases) {
    test(`${label} sweeps nothing (${id})`, () => {
      expectZeroOrphanSweep(make());
    });
  }
});

describe("applyChainCompressions: malformed chain entries are left alone and reported, never thrown on", () => {
  const run = (bad: any) => {
    const sink = collectingSink();
    const input = incident();
    let out: any[] = [];
    expect(() => {
      out = applyChainCompressions(input, [bad], body, true, () => undefined, sink);
    }).not.toThrow();
    return { input, out, sink };
  };

  const expectSkipped = (bad: any, reason: string) => {
    const { input, out, sink } = run(bad);
    expect(out).toBe(input);
    expect(sink.reports).toEqual([{ kind: "unresolved-range", key: "invalid:b5", detail: `blockId=b5 skipped: invalid entry (${reason})` }]);
  };

  test("a missing start timestamp", () => {
    const { startUserTimestamp: _, ...bad } = b5();
    expectSkipped(bad, "startUserTimestamp is missing");
  });

  test("a missing final timestamp", () => {
    const { finalAssistantTimestamp: _, ...bad } = b5();
    expectSkipped(bad, "finalAssistantTimestamp is missing");
  });

  test("a NaN start timestamp", () => {
    expectSkipped({ ...b5(), startUserTimestamp: Number.NaN }, "startUserTimestamp is not a finite number");
  });

  test("string timestamps", () => {
    expectSkipped({ ...b5(), startUserTimestamp: "1000", finalAssistantTimestamp: "1200" }, "startUserTimestamp is not a finite number");
  });

  test("toolRefs that is not a list", () => {
    expectSkipped({ ...b5(), toolRefs: null }, 'toolRefs is not a list of refs without ", <, > or line breaks');
  });

  test("a tool ref that would close the header early", () => {
    expectSkipped({ ...b5(), toolRefs: ['t1"><x'] }, 'toolRefs is not a list of refs without ", <, > or line breaks');
  });

  test("missing droppedToolCallIds", () => {
    const { droppedToolCallIds: _, ...bad } = b5();
    expectSkipped(bad, "droppedToolCallIds is missing");
  });

  test("protectedToolCallIds that is not a list", () => {
    expectSkipped({ ...b5(), protectedToolCallIds: "bash_18" }, "protectedToolCallIds is not a list of strings");
  });

  test("a range summary that is not a string", () => {
    expectSkipped({ ...b5(), rangeSummaryText: 42 }, "rangeSummaryText is not a string");
  });

  test("a block id that is not a string names no block in the report", () => {
    const { input, out, sink } = run({ ...b5(), blockId: { toString: 1 } });
    expect(out).toBe(input);
    expect(sink.reports.map((r) => r.key)).toEqual(["invalid:?"]);
  });

  test("a valid entry next to an invalid one still applies", () => {
    const sink = collectingSink();
    const out = applyChainCompressions(incident(), [{ ...b5(), blockId: "b9", startUserTimestamp: "x" } as any, b5()], body, true, () => undefined, sink);
    expect(synthetics(out).length).toBe(1);
    expect(textOf(synthetics(out)[0])).toStartWith('<compressed-chain id="b5"');
    expect(sink.reports.map((r) => r.key)).toEqual(["invalid:b9"]);
  });
});

describe("applyChainCompressions: odd messages inside a range", () => {
  test("a tool result with a non-string id inside a range is dropped without throwing", () => {
    const input = incident();
    input.splice(3, 0, { role: "toolResult", toolCallId: 99, toolName: "bash", content: "raw", timestamp: 1160 });
    const out = applyChainCompressions(input, [b5()], body, false);
    expect(out.some((m) => m.toolCallId === 99)).toBe(false);
  });

  test("an unknown role and a message with non-array content inside a range survive", () => {
    const weird = { role: "future-role", timestamp: 1120 };
    const stringUser = { role: "user", content: "plain string", timestamp: 1130 };
    const input = incident();
    input.splice(2, 0, weird, stringUser);
    const out = applyChainCompressions(input, [b5()], body, false);
    expect(out).toContain(weird);
    expect(out).toContain(stringUser);
  });

  test("an assistant with non-array content inside a range is dropped", () => {
    const odd = { role: "assistant", content: "string content", timestamp: 1110 };
    const input = incident();
    input.splice(2, 0, odd);
    const out = applyChainCompressions(input, [b5()], body, false);
    expect(out).not.toContain(odd);
    expect(roles(out.slice(0, 3))).toEqual(["user", "user", "assistant"]);
  });

  test("a user message with string content never counts as a present synthetic", () => {
    const input = [user(100), { role: "user", content: '<compressed-chain id="b1" tools="">', timestamp: 150 }, assistantWithTools(200, ["tc1"]), toolResult(300, "tc1"), assistantText(400)];
    const out = applyChainCompressions(input, [entry("b1", 100, ["tc1"], 400)], body, false);
    expect(synthetics(out).length).toBe(1);
  });
});

describe("compressChainRanges", () => {
  test("returns the same messages as applyChainCompressions", () => {
    const messages = incident();
    const tracked = compressChainRanges(messages, [b5(), b7()], body, true);
    expect(tracked.messages).toEqual(applyChainCompressions(messages, [b5(), b7()], body, true));
  });

  test("lists exactly the messages it made: synthetic blocks and thinking-stripped finals", () => {
    const messages = [user(100), assistantWithTools(200, ["tc1"]), toolResult(300, "tc1"), assistantText(400, true)];
    const { messages: out, created } = compressChainRanges(messages, [entry("b1", 100, ["tc1"], 400)], body, true);
    const made = out.filter((m) => !messages.includes(m));
    expect(made.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect([...created]).toEqual(made);
  });

  test("creates nothing and returns the input when no entry resolves", () => {
    const messages = simpleChain();
    const result = compressChainRanges(messages, [entry("b1", 999, ["tc1"], 400)], body, true);
    expect(result.messages).toBe(messages);
    expect(result.created.size).toBe(0);
  });

  test("a final kept with its thinking is carried over, not created", () => {
    const messages = simpleChain(true);
    const { messages: out, created } = compressChainRanges(messages, [entry("b1", 100, ["tc1"], 400)], body, false);
    expect(out).toContain(messages[3]);
    expect(created.has(messages[3])).toBe(false);
    expect(created.size).toBe(1);
  });
});
