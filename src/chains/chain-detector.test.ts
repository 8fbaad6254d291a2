import { describe, expect, test } from "bun:test";
import { detectChains, isChainAnchorCustom, withClosingMessage } from "./chain-detector.js";

const user = (ts: number, text = "go") => ({ role: "user", content: [{ type: "text", text }], timestamp: ts });
const synthetic = (ts: number) => ({
  role: "user",
  content: [{ type: "text", text: `<compressed-chain id="b1" tools="t1">\nS\n</compressed-chain>` }],
  timestamp: ts,
});
const callTurn = (ts: number, calls: Array<[string, string, unknown?]>) => ({
  role: "assistant",
  content: calls.map(([id, name, input]) => ({ type: "toolCall", id, name, arguments: {}, ...(input ? { input } : {}) })),
  timestamp: ts,
});
const assistantWithTools = (ts: number, ids: string[]) => callTurn(ts, ids.map((id) => [id, "bash"] as [string, string]));
const toolResult = (ts: number, id: string, toolName = "bash") => ({
  role: "toolResult",
  toolCallId: id,
  toolName,
  content: [{ type: "text", text: `out ${id}` }],
  isError: false,
  timestamp: ts,
});
const assistantText = (ts: number) => ({ role: "assistant", content: [{ type: "text", text: "done" }], timestamp: ts });

const protectTodo = (name: string) => name === "todowrite";
const custom = (ts: number, customType: string) => ({ role: "custom", customType, content: "steer", display: true, timestamp: ts });

describe("detectChains: values a hand-edited session can hold", () => {
  test("a user message without a finite timestamp interrupts the open chain and opens none", () => {
    const chains = detectChains([user(100), assistantWithTools(200, ["a"]), { ...user(0), timestamp: "300" }, assistantWithTools(400, ["b"]), assistantText(500)]);
    expect(chains).toEqual([
      { startUserTimestamp: 100, middleToolCallIds: ["a"], middleOccurrenceKeys: [], protectedToolCallIds: [], finalAssistantTimestamp: null },
    ]);
  });

  test("a closing reply without a finite timestamp ends the chain as interrupted", () => {
    const chains = detectChains([user(100), assistantWithTools(200, ["a"]), toolResult(210, "a"), { ...assistantText(0), timestamp: 1e400 }]);
    expect(chains.map((c) => c.finalAssistantTimestamp)).toEqual([null]);
  });

  test("call and result ids that are not strings contribute nothing", () => {
    const chains = detectChains([
      user(100),
      callTurn(200, [[{ toString: 1 } as any, "bash"], ["ok", "bash"]]),
      { ...toolResult(210, "x"), toolCallId: { toString: 1 } },
      toolResult(220, "ok"),
      assistantText(300),
    ]);
    expect(chains[0]!.middleToolCallIds).toEqual(["ok"]);
    expect(chains[0]!.middleOccurrenceKeys).toEqual(["ok@220"]);
  });
});

describe("detectChains: boundaries", () => {
  test("an empty array yields no chains", () => {
    // 1
    expect(detectChains([])).toEqual([]);
  });

  test("a user, one tool turn and a text reply form one closed chain", () => {
    // 2
    const chains = detectChains([
      user(100),
      assistantWithTools(200, ["tc1", "tc2"]),
      toolResult(300, "tc1"),
      toolResult(310, "tc2"),
      assistantText(400),
    ]);
    expect(chains).toHaveLength(1);
    expect(chains[0].startUserTimestamp).toBe(100);
    expect(chains[0].finalAssistantTimestamp).toBe(400);
    expect(chains[0].middleToolCallIds).toEqual(["tc1", "tc2"]);
  });

  test("back-to-back chains are emitted in order", () => {
    // 3
    const chains = detectChains([
      user(100), assistantWithTools(200, ["tc1"]), toolResult(300, "tc1"), assistantText(400),
      user(500), assistantWithTools(600, ["tc2"]), toolResult(700, "tc2"), assistantText(800),
    ]);
    expect(chains.map((c) => [c.startUserTimestamp, c.finalAssistantTimestamp])).toEqual([[100, 400], [500, 800]]);
  });

  test("a chain without a text reply is in flight and not emitted", () => {
    // 4
    expect(detectChains([user(100), assistantWithTools(200, ["tc1"]), toolResult(300, "tc1")])).toEqual([]);
  });

  test("a synthetic compressed-chain message never starts a chain", () => {
    // 5
    expect(detectChains([synthetic(50), assistantText(60)])).toEqual([]);
  });

  test("a synthetic message before a real chain does not disturb it", () => {
    // 6
    const chains = detectChains([
      synthetic(50), user(100), assistantWithTools(200, ["tc1"]), toolResult(300, "tc1"), assistantText(400),
    ]);
    expect(chains).toHaveLength(1);
    expect(chains[0].startUserTimestamp).toBe(100);
  });

  test("a synthetic message with string content inside a chain neither interrupts nor closes it", () => {
    const chains = detectChains([
      user(100), assistantWithTools(200, ["tc1"]),
      { role: "user", content: "  <compressed-chain id=\"b2\">x</compressed-chain>", timestamp: 250 },
      toolResult(300, "tc1"), assistantText(400),
    ]);
    expect(chains).toEqual([
      { startUserTimestamp: 100, middleToolCallIds: ["tc1"], middleOccurrenceKeys: ["tc1@300"], protectedToolCallIds: [], finalAssistantTimestamp: 400 },
    ]);
  });

  test("a new user message interrupts the open chain", () => {
    // 7
    const chains = detectChains([
      user(100), assistantWithTools(200, ["tc1"]), toolResult(300, "tc1"), user(400), assistantText(500),
    ]);
    expect(chains).toHaveLength(2);
    expect(chains[0]).toMatchObject({ startUserTimestamp: 100, finalAssistantTimestamp: null });
    expect(chains[1]).toMatchObject({ startUserTimestamp: 400, middleToolCallIds: [], finalAssistantTimestamp: 500 });
  });

  test("a trailing chain whose close has not arrived is dropped", () => {
    // 8
    const chains = detectChains([
      user(100), assistantWithTools(200, ["tc1"]), toolResult(300, "tc1"), assistantText(400),
      user(500), assistantWithTools(600, ["tc2"]), toolResult(700, "tc2"),
    ]);
    expect(chains.map((c) => c.startUserTimestamp)).toEqual([100]);
  });

  test("every tool-using turn of a chain contributes its middles", () => {
    // 9
    const chains = detectChains([
      user(100), assistantWithTools(200, ["tc1", "tc2"]), toolResult(210, "tc1"), toolResult(220, "tc2"),
      assistantWithTools(300, ["tc3"]), toolResult(310, "tc3"), assistantText(400),
    ]);
    expect(chains[0].middleToolCallIds).toEqual(["tc1", "tc2", "tc3"]);
  });

  test("an assistant with non-array content closes the chain", () => {
    const chains = detectChains([user(100), assistantWithTools(200, ["tc1"]), toolResult(300, "tc1"),
      { role: "assistant", content: "plain", timestamp: 400, stopReason: "error" }]);
    expect(chains[0].finalAssistantTimestamp).toBe(400);
  });

  test("custom, system and unknown roles neither close nor interrupt a chain", () => {
    const chains = detectChains([
      user(100), assistantWithTools(200, ["tc1"]),
      { role: "custom", customType: "context-prune-summary", content: "s", timestamp: 250 },
      { role: "system", content: "patch", timestamp: 260 },
      { role: "future-role", timestamp: 270 },
      toolResult(300, "tc1"), assistantText(400),
    ]);
    expect(chains).toHaveLength(1);
    expect(chains[0].middleToolCallIds).toEqual(["tc1"]);
  });

  test("tool calls without id or name still keep the chain open but add nothing", () => {
    const chains = detectChains([
      user(100),
      { role: "assistant", content: [{ type: "toolCall", name: "bash", arguments: {} }, { type: "toolCall", id: "x" }], timestamp: 200 },
      { role: "toolResult", content: [], timestamp: 250 },
      assistantText(400),
    ]);
    expect(chains).toEqual([
      { startUserTimestamp: 100, middleToolCallIds: [], middleOccurrenceKeys: [], protectedToolCallIds: [], finalAssistantTimestamp: 400 },
    ]);
  });

  test("tool turns and results arriving while idle are ignored", () => {
    const chains = detectChains([assistantWithTools(50, ["early"]), toolResult(60, "early"), user(100), assistantText(200)]);
    expect(chains).toEqual([
      { startUserTimestamp: 100, middleToolCallIds: [], middleOccurrenceKeys: [], protectedToolCallIds: [], finalAssistantTimestamp: 200 },
    ]);
  });

  test("malformed entries (null, missing role) are skipped without throwing", () => {
    const chains = detectChains([null, {}, user(100), undefined, assistantText(200)] as any[]);
    expect(chains.map((c) => c.finalAssistantTimestamp)).toEqual([200]);
  });
});

describe("isChainAnchorCustom (spec 70 §5.1, §17 C4)", () => {
  test("another extension's custom message is an anchor", () => {
    expect(isChainAnchorCustom(custom(1, "pi-gauntlet-transition-recovery"))).toBe(true);
    expect(isChainAnchorCustom(custom(1, "x"))).toBe(true);
  });

  test("every context-prune- type, present or future, is pruner-owned", () => {
    expect(isChainAnchorCustom(custom(1, "context-prune-summary"))).toBe(false);
    expect(isChainAnchorCustom(custom(1, "context-prune-anything-later"))).toBe(false);
  });

  test("a type starting with pi-condense is pruner-owned too", () => {
    expect(isChainAnchorCustom(custom(1, "pi-condense:summary"))).toBe(false);
    expect(isChainAnchorCustom(custom(1, "pi-condense"))).toBe(false);
  });

  test("only the custom role qualifies, whatever its type", () => {
    expect(isChainAnchorCustom({ role: "user", customType: "x", timestamp: 1 })).toBe(false);
    expect(isChainAnchorCustom({ role: "custom", timestamp: 1 })).toBe(true);
    expect(isChainAnchorCustom(null)).toBe(false);
  });

  test("a customType a hand-edited file made an object neither throws nor counts as pruner-owned", () => {
    expect(isChainAnchorCustom({ role: "custom", customType: { toString: 1, valueOf: 1 }, timestamp: 1 })).toBe(true);
  });
});

describe("detectChains: custom-message anchors (spec 70 §5.1)", () => {
  const session = (customType: string) => [
    user(1), assistantWithTools(2, ["tc1"]), toolResult(3, "tc1"), assistantText(4),
    custom(5, customType), assistantWithTools(6, ["tc2"]), toolResult(7, "tc2"), assistantText(8),
  ];

  test("an eligible custom after a closed chain opens the next one", () => {
    const chains = detectChains(session("pi-gauntlet-transition-recovery"));
    expect(chains.map((c) => [c.startUserTimestamp, c.finalAssistantTimestamp])).toEqual([[1, 4], [5, 8]]);
    expect(chains[1]!.middleToolCallIds).toEqual(["tc2"]);
    expect(chains[1]!.middleOccurrenceKeys).toEqual(["tc2@7"]);
  });

  test("a context-prune-summary anchors nothing: the turns after it are not chained", () => {
    const chains = detectChains(session("context-prune-summary"));
    expect(chains.map((c) => c.startUserTimestamp)).toEqual([1]);
    expect(chains.flatMap((c) => c.middleToolCallIds)).toEqual(["tc1"]);
  });

  test("a pi-condense custom anchors nothing either", () => {
    expect(detectChains(session("pi-condense:summary")).map((c) => c.startUserTimestamp)).toEqual([1]);
  });

  test("inside an open chain an eligible custom is passthrough: it neither interrupts nor closes", () => {
    const chains = detectChains([user(1), assistantWithTools(2, ["tc1"]), custom(3, "x"), assistantWithTools(4, ["tc2"]), assistantText(5)]);
    expect(chains).toEqual([
      { startUserTimestamp: 1, middleToolCallIds: ["tc1", "tc2"], middleOccurrenceKeys: [], protectedToolCallIds: [], finalAssistantTimestamp: 5 },
    ]);
  });

  test("a custom at the branch start opens a chain", () => {
    const chains = detectChains([custom(10, "x"), assistantWithTools(20, ["a"]), toolResult(30, "a"), assistantText(40)]);
    expect(chains.map((c) => [c.startUserTimestamp, c.finalAssistantTimestamp])).toEqual([[10, 40]]);
  });

  test("a user message still interrupts a custom-anchored chain", () => {
    const chains = detectChains([custom(10, "x"), assistantWithTools(20, ["a"]), user(30), assistantText(40)]);
    expect(chains.map((c) => [c.startUserTimestamp, c.finalAssistantTimestamp])).toEqual([[10, null], [30, 40]]);
  });

  test("a custom without a finite timestamp opens nothing", () => {
    const chains = detectChains([{ ...custom(0, "x"), timestamp: Number.NaN }, assistantWithTools(20, ["a"]), assistantText(40)]);
    expect(chains).toEqual([]);
  });
});

describe("detectChains: protection", () => {
  const chain = () => [
    user(100), callTurn(200, [["tc-read", "read"], ["tc-todo", "todowrite"]]),
    toolResult(210, "tc-read", "read"), toolResult(220, "tc-todo", "todowrite"), assistantText(300),
  ];

  test("without a predicate nothing is protected", () => {
    // 10
    const [c] = detectChains(chain());
    expect(c.protectedToolCallIds).toEqual([]);
    expect(c.middleToolCallIds).toEqual(["tc-read", "tc-todo"]);
  });

  test("a tool-name predicate marks the call protected while it stays a middle", () => {
    // 11
    const [c] = detectChains(chain(), protectTodo);
    expect(c.protectedToolCallIds).toEqual(["tc-todo"]);
    expect(c.middleToolCallIds).toEqual(["tc-read", "tc-todo"]);
  });

  test("protected ids do not leak into the next chain", () => {
    // 12
    const chains = detectChains([
      ...chain(),
      user(400), callTurn(500, [["tc-read", "read"]]), toolResult(510, "tc-read", "read"), assistantText(600),
    ], protectTodo);
    expect(chains[0].protectedToolCallIds).toEqual(["tc-todo"]);
    expect(chains[1].protectedToolCallIds).toEqual([]);
    expect(chains[1].middleToolCallIds).toEqual(["tc-read"]);
  });

  test("path protection reads the call's input args", () => {
    // 13
    const byPath = (name: string, args: any) => name === "read" && typeof args?.path === "string" && args.path.includes("/skills/");
    const [c] = detectChains([
      user(100),
      callTurn(200, [["r1", "read", { path: "/h/skills/x/SKILL.md" }], ["r2", "read", { path: "/h/src/app.ts" }]]),
      toolResult(210, "r1", "read"), toolResult(220, "r2", "read"), assistantText(300),
    ], byPath);
    expect(c.protectedToolCallIds).toEqual(["r1"]);
  });

  test("path protection falls back to the arguments field", () => {
    const byPath = (_: string, args: any) => args?.path === "/skills/a.md";
    const [c] = detectChains([
      user(100),
      { role: "assistant", content: [{ type: "toolCall", id: "r1", name: "read", arguments: { path: "/skills/a.md" } }], timestamp: 200 },
      toolResult(210, "r1", "read"), assistantText(300),
    ], byPath);
    expect(c.protectedToolCallIds).toEqual(["r1"]);
  });

  test("an interrupted chain keeps its protected ids", () => {
    // 14
    const chains = detectChains([
      user(100), callTurn(200, [["tc-todo", "todowrite"]]), toolResult(210, "tc-todo", "todowrite"), user(300),
    ], protectTodo);
    expect(chains).toEqual([
      { startUserTimestamp: 100, middleToolCallIds: ["tc-todo"], middleOccurrenceKeys: ["tc-todo@210"], protectedToolCallIds: ["tc-todo"], finalAssistantTimestamp: null },
    ]);
  });

  test("a result whose call is outside the chain is protected by its tool name", () => {
    const [c] = detectChains([user(100), toolResult(150, "orphan", "todowrite"), assistantText(200)], protectTodo);
    expect(c.protectedToolCallIds).toEqual(["orphan"]);
    expect(c.middleToolCallIds).toEqual(["orphan"]);
  });
});

describe("detectChains: occurrence keys", () => {
  test("a result contributes its id@timestamp key", () => {
    // 15
    const [c] = detectChains([user(1000), assistantWithTools(1100, ["bash_1"]), toolResult(1150, "bash_1"), assistantText(1200)]);
    expect(c.middleToolCallIds).toEqual(["bash_1"]);
    expect(c.middleOccurrenceKeys).toEqual(["bash_1@1150"]);
  });

  test("a call that never got a result contributes no occurrence key", () => {
    // 16
    const [c] = detectChains([user(1000), assistantWithTools(1100, ["bash_1"]), assistantText(1200)]);
    expect(c.middleToolCallIds).toEqual(["bash_1"]);
    expect(c.middleOccurrenceKeys).toEqual([]);
  });

  test("a reused id gets a distinct occurrence key per chain", () => {
    // 17
    const chains = detectChains([
      user(1000), assistantWithTools(1100, ["bash_23"]), toolResult(1150, "bash_23"), assistantText(1200),
      user(2000), assistantWithTools(2100, ["bash_23"]), toolResult(2150, "bash_23"), assistantText(2200),
    ]);
    expect(chains.map((c) => c.middleOccurrenceKeys)).toEqual([["bash_23@1150"], ["bash_23@2150"]]);
  });

  test("an interrupted chain keeps its occurrence keys", () => {
    // 18
    const [c] = detectChains([user(1000), assistantWithTools(1100, ["bash_1"]), toolResult(1150, "bash_1"), user(2000)]);
    expect(c.finalAssistantTimestamp).toBeNull();
    expect(c.middleOccurrenceKeys).toEqual(["bash_1@1150"]);
  });

  test("an id reused inside one chain stays one middle but gets one key per result", () => {
    const [c] = detectChains([
      user(1000), assistantWithTools(1100, ["bash_1"]), toolResult(1150, "bash_1"),
      assistantWithTools(1160, ["bash_1"]), toolResult(1170, "bash_1"), assistantText(1200),
    ]);
    expect(c.middleToolCallIds).toEqual(["bash_1"]);
    expect(c.middleOccurrenceKeys).toEqual(["bash_1@1150", "bash_1@1170"]);
  });

  test("a result without a numeric timestamp contributes its bare id", () => {
    const [c] = detectChains([user(1000), assistantWithTools(1100, ["bash_1"]),
      { ...toolResult(0, "bash_1"), timestamp: "late" }, assistantText(1200)]);
    expect(c.middleOccurrenceKeys).toEqual(["bash_1"]);
  });

  test("emitted arrays are fresh for every chain", () => {
    const chains = detectChains([
      user(100), assistantText(200), user(300), assistantText(400),
    ]);
    expect(chains[0].middleToolCallIds).not.toBe(chains[1].middleToolCallIds);
    chains[0].middleToolCallIds.push("x");
    expect(chains[1].middleToolCallIds).toEqual([]);
  });
});

describe("withClosingMessage", () => {
  const branch = () => [user(100), assistantWithTools(200, ["tc1"]), toolResult(300, "tc1")];

  test("an absent closing message returns the identical array", () => {
    // 19
    const b = branch();
    expect(withClosingMessage(b, undefined)).toBe(b);
  });

  test("a new closing message is appended to a fresh array", () => {
    // 20
    const b = branch();
    const reply = assistantText(400);
    const out = withClosingMessage(b, reply);
    expect(out).not.toBe(b);
    expect(out).toHaveLength(4);
    expect(out[3]).toBe(reply);
    expect(b).toHaveLength(3);
  });

  test("a branch already ending with the closing message is returned as is", () => {
    // 21
    const reply = assistantText(400);
    const b = [...branch(), reply];
    expect(withClosingMessage(b, reply)).toBe(b);
    expect(withClosingMessage(b, assistantText(400))).toBe(b);
  });

  test("a last message with the same timestamp but another role does not count as the close", () => {
    const b = [...branch(), user(400)];
    expect(withClosingMessage(b, assistantText(400))).toHaveLength(5);
  });

  test("threading the close lets detection see the newest chain", () => {
    // 22
    const b = [
      user(100), assistantWithTools(200, ["tc1"]), toolResult(300, "tc1"), assistantText(400),
      user(500), assistantWithTools(600, ["tc2"]), toolResult(700, "tc2"),
    ];
    expect(detectChains(b)).toHaveLength(1);
    const chains = detectChains(withClosingMessage(b, assistantText(800)));
    expect(chains).toHaveLength(2);
    expect(chains[1]).toMatchObject({ startUserTimestamp: 500, finalAssistantTimestamp: 800 });
  });
});
