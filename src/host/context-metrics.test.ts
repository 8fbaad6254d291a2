import { describe, expect, test } from "bun:test";
import { charsOf, computeContextMetrics } from "./context-metrics.js";
import type { PruneFrontier } from "../capture/records.js";

const T = (x: unknown) => Math.round(JSON.stringify(x).length / 4);
const chars = (msgs: unknown[]) => msgs.reduce<number>((n, m) => n + JSON.stringify(m).length, 0);
const share = (part: unknown[], all: unknown[]) => Math.round((100 * chars(part)) / chars(all));

const none = () => false;
const user = (ts: number, text = "go") => ({ role: "user", content: [{ type: "text", text }], timestamp: ts });
const thinking = (text: string) => ({ type: "thinking", thinking: text, thinkingSignature: `sig-${text}` });
const assistantText = (ts: number, think?: any) => ({
  role: "assistant",
  content: [...(think ? [think] : []), { type: "text", text: "done" }],
  timestamp: ts,
});
const callTurn = (ts: number, calls: Array<[string, string, Record<string, unknown>?]>, think?: any) => ({
  role: "assistant",
  content: [...(think ? [think] : []), ...calls.map(([id, name, args]) => ({ type: "toolCall", id, name, arguments: args ?? {} }))],
  timestamp: ts,
});
const result = (ts: number, id: string, text = `out ${id}`, toolName = "bash") => ({
  role: "toolResult",
  toolCallId: id,
  toolName,
  content: [{ type: "text", text }],
  isError: false,
  timestamp: ts,
});
const frontierAt = (turn: number, id: string): PruneFrontier => ({
  lastAttemptedToolCallId: id,
  lastAttemptedToolName: "bash",
  lastAttemptedTurnIndex: turn,
  lastAttemptedTimestamp: 0,
  attemptedBatchCount: 1,
  attemptedToolCallCount: 1,
  rawCharCount: 0,
  summaryCharCount: 0,
  outcome: "summarized",
});

describe("computeContextMetrics: empty branch", () => {
  test("an empty branch reports zero for every metric", () => {
    // 1
    expect(computeContextMetrics([], null, none, none)).toEqual({
      openCycleThinkingTokens: 0,
      largestChainSharePct: 0,
      frontierGapTokens: 0,
    });
  });

  test("the share of an empty branch is 0, not NaN", () => {
    // 9
    expect(computeContextMetrics([], frontierAt(0, "x"), none, none).largestChainSharePct).toBe(0);
  });
});

describe("computeContextMetrics: open-cycle thinking", () => {
  test("only thinking after the last text-only assistant counts", () => {
    // 2
    const X = thinking("open work");
    const branch = [
      user(100), assistantText(200, thinking("A")),
      user(300), callTurn(400, [["tc1", "bash"]]), result(410, "tc1"), assistantText(500, thinking("B")),
      user(600), callTurn(700, [["tc2", "bash"]], X), result(710, "tc2"),
    ];
    expect(computeContextMetrics(branch, null, none, none).openCycleThinkingTokens).toBe(T(X));
  });

  test("with no text-only assistant the whole branch is open", () => {
    // 3
    const X = thinking("incident");
    const branch = [user(100), callTurn(200, [["tc1", "bash"]], X), result(210, "tc1")];
    expect(computeContextMetrics(branch, null, none, none).openCycleThinkingTokens).toBe(T(X));
  });

  test("a branch without thinking blocks reports 0 thinking tokens", () => {
    // 4
    const branch = [user(100), callTurn(200, [["tc1", "bash"]]), result(210, "tc1")];
    expect(computeContextMetrics(branch, null, none, none).openCycleThinkingTokens).toBe(0);
  });

  test("thinking tokens round once on the summed chars", () => {
    const X = thinking("a");
    const Y = thinking("bb");
    const branch = [user(100), callTurn(200, [["tc1", "bash"]], X), result(210, "tc1"), callTurn(300, [["tc2", "bash"]], Y)];
    const summed = JSON.stringify(X).length + JSON.stringify(Y).length;
    expect(computeContextMetrics(branch, null, none, none).openCycleThinkingTokens).toBe(Math.round(summed / 4));
  });

  test("thinking is not windowed by the frontier", () => {
    const X = thinking("stranded");
    const branch = [user(100), callTurn(200, [["tc1", "bash"]], X), result(210, "tc1")];
    expect(computeContextMetrics(branch, frontierAt(0, "tc1"), none, none).openCycleThinkingTokens).toBe(T(X));
  });
});

describe("computeContextMetrics: largest-chain share", () => {
  test("a closed chain followed by an empty-middle chain is measured against the whole branch", () => {
    // 5
    const branch = [user(100), callTurn(200, [["tc1", "bash"]]), result(300, "tc1", "x".repeat(2000)), assistantText(400), user(500), assistantText(600)];
    expect(computeContextMetrics(branch, null, none, none).largestChainSharePct).toBe(share(branch.slice(0, 4), branch));
  });

  test("a larger open segment wins over a small closed chain", () => {
    // 6
    const branch = [
      user(100), callTurn(200, [["tc1", "bash"]]), result(210, "tc1"), assistantText(300),
      user(400), callTurn(500, [["tc2", "bash"]]), result(510, "tc2", "y".repeat(3000)),
    ];
    const pct = computeContextMetrics(branch, null, none, none).largestChainSharePct;
    expect(pct).toBe(share(branch.slice(4), branch));
    expect(pct).toBeGreaterThan(share(branch.slice(0, 4), branch));
  });

  test("a lone closed chain holds 100% until other messages join the branch", () => {
    // 7, with a custom of this package's own (since spec 70 §5.1 another extension's would open a chain)
    const chain = [user(100), callTurn(200, [["tc1", "bash"]]), result(210, "tc1"), assistantText(300)];
    expect(computeContextMetrics(chain, null, none, none).largestChainSharePct).toBe(100);
    const extended = [...chain, { role: "custom", customType: "pi-condense:summary", content: "z".repeat(3000), timestamp: 350 }, assistantText(400)];
    const pct = computeContextMetrics(extended, null, none, none).largestChainSharePct;
    expect(pct).toBe(share(chain, extended));
    expect(pct).toBeLessThan(100);
  });

  test("an interrupted chain counts as retained context", () => {
    // 8
    const branch = [user(100), callTurn(200, [["tc1", "bash"]]), result(300, "tc1", "x".repeat(5000)), user(400), assistantText(500)];
    const pct = computeContextMetrics(branch, null, none, none).largestChainSharePct;
    expect(pct).toBe(share(branch.slice(0, 3), branch));
    expect(pct).toBeGreaterThan(0);
  });

  test("a custom message inside a chain's span counts toward that chain", () => {
    const branch = [
      user(100), callTurn(200, [["tc1", "bash"]]),
      { role: "custom", customType: "context-prune-summary", content: "s".repeat(4000), timestamp: 250 },
      result(300, "tc1"), assistantText(400), user(500), assistantText(600),
    ];
    expect(computeContextMetrics(branch, null, none, none).largestChainSharePct).toBe(share(branch.slice(0, 5), branch));
  });
});

describe("computeContextMetrics: custom-message anchors (spec 70 §5.1 rule 5)", () => {
  const steer = (ts: number, text = "next", customType = "pi-gauntlet-transition-recovery") => ({
    role: "custom",
    customType,
    content: text,
    display: true,
    timestamp: ts,
  });

  test("a projected custom_message entry of this package counts toward the denominator only", () => {
    const chain = [user(100), callTurn(200, [["tc1", "bash"]]), result(210, "tc1", "x".repeat(2000)), assistantText(300)];
    const branch = [...chain, steer(350, "z".repeat(100), "pi-condense:summary"), assistantText(400)];
    expect(computeContextMetrics(branch, null, none, none).largestChainSharePct).toBe(share(chain, branch));
  });

  test("another extension's custom after a closed chain opens a chain of its own, which can be the largest", () => {
    const first = [user(100), callTurn(200, [["tc1", "bash"]]), result(210, "tc1"), assistantText(300)];
    const second = [steer(350, "z".repeat(3000)), callTurn(360, [["tc2", "bash"]]), result(370, "tc2"), assistantText(400)];
    const branch = [...first, ...second];
    expect(computeContextMetrics(branch, null, none, none).largestChainSharePct).toBe(share(second, branch));
  });

  test("an interrupted custom-anchored chain runs to the message before the next user message", () => {
    const branch = [
      assistantText(50),
      steer(100), callTurn(200, [["tc1", "bash"]]), result(300, "tc1", "x".repeat(5000)),
      steer(350, "passthrough"),
      user(400), assistantText(500),
    ];
    expect(computeContextMetrics(branch, null, none, none).largestChainSharePct).toBe(share(branch.slice(1, 5), branch));
  });
});

describe("computeContextMetrics: frontier gap", () => {
  const twoCallBranch = () => [user(100), callTurn(200, [["tc1", "bash"], ["tc2", "bash"]]), result(300, "tc1", "first"), result(310, "tc2", "second")];

  test("with a null frontier every result counts", () => {
    // 10
    const b = twoCallBranch();
    expect(computeContextMetrics(b, null, none, none).frontierGapTokens).toBe(T(b[2]) + T(b[3]));
  });

  test("a mid-turn frontier excludes calls up to and including the frontier call", () => {
    // 11
    const b = twoCallBranch();
    expect(computeContextMetrics(b, frontierAt(0, "tc1"), none, none).frontierGapTokens).toBe(T(b[3]));
  });

  test("a frontier id missing from its turn falls back to the whole branch", () => {
    // 12
    const b = twoCallBranch();
    expect(computeContextMetrics(b, frontierAt(0, "ghost"), none, none).frontierGapTokens).toBe(T(b[2]) + T(b[3]));
  });

  test("a frontier turn that is never reached falls back to the whole branch", () => {
    // 13
    const b = [user(100), callTurn(200, [["tc1", "bash"]]), result(300, "tc1")];
    expect(computeContextMetrics(b, frontierAt(99, "tc1"), none, none).frontierGapTokens).toBe(T(b[2]));
  });

  test("a summarized occurrence does not count", () => {
    // 14
    const b = [user(100), callTurn(200, [["tc1", "bash"]]), result(300, "tc1")];
    const seen: string[] = [];
    const isSummarized = (k: string) => (seen.push(k), k === "tc1@300");
    expect(computeContextMetrics(b, null, isSummarized, none).frontierGapTokens).toBe(0);
    expect(seen).toEqual(["tc1@300"]);
  });

  test("a path-protected read does not count, using the pairing call's args", () => {
    // 15
    const b = [user(100), callTurn(200, [["tc1", "read", { path: "/skills/secret.md" }]]), result(300, "tc1", "secret", "read")];
    const protectSkills = (name: string, args: any) => name === "read" && String(args?.path ?? "").includes("/skills/");
    expect(computeContextMetrics(b, null, none, protectSkills).frontierGapTokens).toBe(0);
  });

  test("a context_tree_query recovery does not count: it is never summarized (issue 16)", () => {
    const r = result(310, "tc2", "plain output");
    const b = [user(100), callTurn(200, [["q1", "context_tree_query", { toolCallIds: ["t1"] }], ["tc2", "bash"]]), result(300, "q1", "recovered", "context_tree_query"), r];
    expect(computeContextMetrics(b, null, none, none).frontierGapTokens).toBe(T(r));
  });

  test("a single result contributes exactly its rounded chars/4", () => {
    // 16
    const r = result(300, "tc1", "fixed text of a known length");
    const b = [user(100), callTurn(200, [["tc1", "bash"]]), r];
    expect(computeContextMetrics(b, null, none, none).frontierGapTokens).toBe(T(r));
  });

  test("the gap rounds per result and then sums", () => {
    const r1 = result(300, "tc1", "a");
    const r2 = result(310, "tc2", "bcd");
    const b = [user(100), callTurn(200, [["tc1", "bash"], ["tc2", "bash"]]), r1, r2];
    expect(computeContextMetrics(b, null, none, none).frontierGapTokens).toBe(T(r1) + T(r2));
  });

  test("frontier exclusion is positional: a later turn reusing the id still counts", () => {
    // 17
    const later = result(510, "tc1", "z".repeat(150));
    const b = [user(100), callTurn(200, [["tc1", "bash"]]), result(300, "tc1", "first"), callTurn(500, [["tc1", "bash"]]), later];
    expect(computeContextMetrics(b, frontierAt(0, "tc1"), none, none).frontierGapTokens).toBe(T(later));
  });

  test("protection args come from the nearest preceding call for a reused id", () => {
    // 18
    const first = result(300, "tc1", "normal", "read");
    const b = [
      user(100), callTurn(200, [["tc1", "read", { path: "/normal.md" }]]), first,
      callTurn(400, [["tc1", "read", { path: "/skills/secret.md" }]]), result(500, "tc1", "secret", "read"),
    ];
    const protectSkills = (_: string, args: any) => String(args?.path ?? "").includes("/skills/");
    expect(computeContextMetrics(b, null, none, protectSkills).frontierGapTokens).toBe(T(first));
  });

  test("protection args come from the first call with the id inside the nearest turn", () => {
    const r = result(300, "tc1", "x", "read");
    const b = [
      user(100),
      callTurn(150, [["tc1", "read", { path: "/a.md" }]]),
      callTurn(200, [["tc1", "read", { path: "/skills/first.md" }], ["tc1", "read", { path: "/second.md" }]]),
      r,
    ];
    const protectSkills = (_: string, args: any) => String(args?.path ?? "").includes("/skills/");
    expect(computeContextMetrics(b, null, none, protectSkills).frontierGapTokens).toBe(0);
  });

  test("a NaN result id takes no call's args", () => {
    const call = { role: "assistant", content: [{ type: "toolCall", id: Number.NaN, name: "read", arguments: { path: "/skills/x.md" } }], timestamp: 200 };
    const r = { ...result(300, "x", "out", "read"), toolCallId: Number.NaN };
    const seen: unknown[] = [];
    computeContextMetrics([user(100), call, r], null, none, (_: string, args: unknown) => (seen.push(args), false));
    expect(seen).toEqual([undefined]);
  });

  test("protection uses the result's own tool name", () => {
    const b = [user(100), callTurn(200, [["tc1", "bash"]]), result(300, "tc1", "x", "todowrite")];
    const byName = (name: string) => name === "todowrite";
    expect(computeContextMetrics(b, null, none, byName).frontierGapTokens).toBe(0);
  });

  test("the input branch is not mutated", () => {
    const b = [user(100), callTurn(200, [["tc1", "bash"]], thinking("t")), result(300, "tc1")];
    const before = JSON.stringify(b);
    computeContextMetrics(b, frontierAt(0, "tc1"), none, none);
    expect(JSON.stringify(b)).toBe(before);
  });
});

describe("computeContextMetrics: images", () => {
  const withImage = (ts: number, id: string) => ({
    ...result(ts, id, "Read image file [image/png]", "read"),
    content: [{ type: "text", text: "Read image file [image/png]" }, { type: "image", data: "A".repeat(137_000), mimeType: "image/png" }],
  });

  test("a toolResult with one image past the frontier counts its JSON with { type: image } plus 6,400 chars", () => {
    const b = [user(1), callTurn(2, [["tc1", "read"]]), withImage(3, "tc1")];
    const slim = { ...b[2], content: [b[2]!.content[0], { type: "image" }] };
    const expected = Math.round((JSON.stringify(slim).length + 6400) / 4);
    expect(computeContextMetrics(b, null, none, none).frontierGapTokens).toBe(expected);
  });

  test("charsOf is exported with the metrics and prices the image flat", () => {
    const msg = withImage(3, "tc1");
    expect(charsOf(msg)).toBeLessThan(10_000);
  });

  test("a screenshot does not make its chain dominate the branch by its base64 length", () => {
    const b = [user(1, "x".repeat(6000)), assistantText(2), user(3), callTurn(4, [["tc1", "read"]]), withImage(5, "tc1"), assistantText(6)];
    expect(computeContextMetrics(b, null, none, none).largestChainSharePct).toBeLessThan(80);
  });
});
