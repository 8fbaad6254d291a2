import { describe, expect, test } from "bun:test";
import {
  captureBatch,
  captureUnindexedBatchesFromSession,
  extractToolResultText,
  groupBatchesByMode,
  imageDigest,
  imageMarkerDigests,
  projectBranchMessages,
  serializeBatchForSummarizer,
} from "./batch-capture.js";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { ToolCallIndexer } from "../archive/indexer.js";
import type { CapturedBatch, CapturedToolCall } from "./records.js";

const assistantWithTools = (ts: number, calls: [string, string][], text?: string) => ({
  role: "assistant",
  content: [
    ...(text ? [{ type: "text", text }] : []),
    ...calls.map(([id, name]) => ({ type: "toolCall", id, name, arguments: { cmd: id } })),
  ],
  timestamp: ts,
});
const toolResult = (ts: number, id: string, text: string, toolName = "bash") => ({
  role: "toolResult",
  toolCallId: id,
  toolName,
  content: [{ type: "text", text }],
  isError: false,
  timestamp: ts,
});
const user = (ts: number) => ({ role: "user", content: [{ type: "text", text: "go" }], timestamp: ts });
const entry = (message: any) => ({ type: "message", message });
const nothingSummarized = { isSummarized: () => false };
const call = (id: string, toolName: string, resultText = "out"): CapturedToolCall => ({
  toolCallId: id,
  toolName,
  args: { id },
  resultText,
  isError: false,
});
const batch = (calls: CapturedToolCall[], extra: Partial<CapturedBatch> = {}): CapturedBatch => ({
  turnIndex: 0,
  timestamp: 1,
  assistantText: "",
  toolCalls: calls,
  ...extra,
});

describe("extractToolResultText", () => {
  test("joins text blocks with newlines (C1)", () => {
    const msg = { content: [{ type: "text", text: "a" }, { type: "thinking", thinking: "t" }, { type: "text", text: "b" }] };
    expect(extractToolResultText(msg)).toBe("a\nb");
  });

  test("puts one marker line per image before the texts, in block order (spec 70 §13.4)", () => {
    const msg = {
      content: [
        { type: "text", text: "Read image file [image/png]" },
        { type: "image", data: "AAAA", mimeType: "image/png" },
        { type: "image", data: "BBBB", mimeType: "image/jpeg" },
      ],
    };
    expect(extractToolResultText(msg).split("\n")).toEqual([
      `[image returned: image/png sha256:${imageDigest("AAAA")}]`,
      `[image returned: image/jpeg sha256:${imageDigest("BBBB")}]`,
      "Read image file [image/png]",
    ]);
  });

  test("an image-only result is its markers alone", () => {
    const msg = { content: [{ type: "image", data: "AAAA", mimeType: "image/png" }] };
    expect(extractToolResultText(msg)).toBe(`[image returned: image/png sha256:${imageDigest("AAAA")}]`);
  });

  test("the markers' digests read back in order", () => {
    const msg = { content: [{ type: "image", data: "AAAA", mimeType: "image/png" }, { type: "text", text: "x" }, { type: "image", data: "BBBB", mimeType: "image/gif" }] };
    expect(imageMarkerDigests(extractToolResultText(msg))).toEqual([imageDigest("AAAA"), imageDigest("BBBB")]);
  });

  test("dedup tells images apart by their bytes: same text, other image misses; same image hits (spec 70 §13.4)", () => {
    const read = (id: string, ts: number, data: string) =>
      captureBatch(
        { content: [{ type: "toolCall", id, name: "read", arguments: { path: "shot.png" } }] },
        [{ toolCallId: id, timestamp: ts, content: [{ type: "text", text: "Read image file [image/png]" }, { type: "image", data, mimeType: "image/png" }] }],
        0,
        ts,
      ).toolCalls[0]!;
    const indexer = new ToolCallIndexer();
    indexer.addBatch({ turnIndex: 0, timestamp: 101, assistantText: "", toolCalls: [read("r1", 101, "AAAA")] }, () => {});
    expect(indexer.lookupByContent("read", read("r2", 102, "BBBB").resultText)).toBeUndefined();
    expect(indexer.lookupByContent("read", read("r3", 103, "AAAA").resultText)).toBe("r1@101");
  });

  test("a captured image result keeps its marker through the summarizer serialization", () => {
    const result = {
      toolCallId: "r1",
      timestamp: 5,
      content: [{ type: "text", text: "y".repeat(9000) }, { type: "image", data: "AAAA", mimeType: "image/png" }],
    };
    const captured = captureBatch({ content: [{ type: "toolCall", id: "r1", name: "read", arguments: { path: "a.png" } }] }, [result], 0, 1);
    expect(serializeBatchForSummarizer(captured)).toContain(`[image returned: image/png sha256:${imageDigest("AAAA")}]`);
  });

  test("non-array content gives an empty string", () => {
    expect(extractToolResultText({ content: "plain" })).toBe("");
    expect(extractToolResultText(undefined)).toBe("");
  });
});

describe("captureBatch", () => {
  test("pairs the call with its result timestamp (27)", () => {
    const captured = captureBatch(assistantWithTools(2000, [["bash_23", "bash"]]), [toolResult(2150, "bash_23", "x")], 3, 99);
    expect(captured.toolCalls[0]!.resultTimestamp).toBe(2150);
    expect(captured.turnIndex).toBe(3);
    expect(captured.timestamp).toBe(99);
    expect(Object.hasOwn(captured, "userTurnGroup")).toBe(false);
  });

  test("a call without a result has no resultTimestamp property (28)", () => {
    const captured = captureBatch(assistantWithTools(2000, [["bash_23", "bash"]]), [], 0, 1);
    const only = captured.toolCalls[0]!;
    expect(only.resultTimestamp).toBeUndefined();
    expect(Object.hasOwn(only, "resultTimestamp")).toBe(false);
    expect(only.resultText).toBe("(no result)");
    expect(only.isError).toBe(false);
  });

  test("a result with a non-numeric timestamp leaves the property absent", () => {
    const result = { ...toolResult(0, "a", "x"), timestamp: "soon" };
    const captured = captureBatch(assistantWithTools(1, [["a", "bash"]]), [result], 0, 1);
    expect(Object.hasOwn(captured.toolCalls[0]!, "resultTimestamp")).toBe(false);
  });

  test("args prefer input, then args, then arguments, else {} (C2)", () => {
    const message = {
      role: "assistant",
      content: [
        { type: "toolCall", id: "a", name: "x", input: { i: 1 }, args: { a: 1 }, arguments: { r: 1 } },
        { type: "toolCall", id: "b", name: "x", args: { a: 1 }, arguments: { r: 1 } },
        { type: "toolCall", id: "c", name: "x", arguments: { r: 1 } },
        { type: "toolCall", id: "d", name: "x" },
      ],
    };
    expect(captureBatch(message, [], 0, 0).toolCalls.map((c) => c.args)).toEqual([{ i: 1 }, { a: 1 }, { r: 1 }, {}]);
  });

  test("the first matching result wins and isError is carried (C2)", () => {
    const first = { ...toolResult(10, "a", "first"), isError: true };
    const captured = captureBatch(assistantWithTools(1, [["a", "bash"]]), [first, toolResult(20, "a", "second")], 0, 0);
    expect(captured.toolCalls[0]).toMatchObject({ resultText: "first", isError: true, resultTimestamp: 10 });
  });

  test("in a turn with many results the first result per id still wins", () => {
    const ids = Array.from({ length: 40 }, (_, i) => `c${i}`);
    const results = ids.map((id, i) => toolResult(100 + i, id, `first ${id}`));
    results.push(toolResult(200, "c3", "second c3"), toolResult(201, "c39", "second c39"));
    results.unshift(toolResult(99, "c30", "early c30"));
    const captured = captureBatch(assistantWithTools(1, ids.map((id) => [id, "bash"])), results, 0, 0);
    expect(captured.toolCalls.map((c) => c.resultText)).toEqual(ids.map((id) => (id === "c30" ? "early c30" : `first ${id}`)));
    expect(captured.toolCalls[30]!.resultTimestamp).toBe(99);
  });

  test("a NaN call id is not captured and its result pairs with nothing, in a small or a large turn", () => {
    for (const size of [2, 40]) {
      const calls = Array.from({ length: size }, (_, i) => ({ type: "toolCall", id: i === 0 ? Number.NaN : `c${i}`, name: "bash", arguments: {} }));
      const results = calls.map((c, i) => ({ ...toolResult(10 + i, "x", `out ${i}`), toolCallId: c.id }));
      const captured = captureBatch({ role: "assistant", content: calls }, results, 0, 0);
      expect(captured.toolCalls.map((c) => c.toolCallId)).toEqual(calls.slice(1).map((c) => String(c.id)));
      expect(captured.toolCalls.map((c) => c.resultText)).toEqual(results.slice(1).map((r) => r.content[0]!.text));
    }
  });

  test("assistant text is the trimmed join of text blocks", () => {
    const message = { role: "assistant", content: [{ type: "text", text: "  hi" }, { type: "text", text: "there  " }] };
    expect(captureBatch(message, [], 0, 0).assistantText).toBe("hi\nthere");
  });
});

describe("captureUnindexedBatchesFromSession", () => {
  test("a reused id pairs each call with its own window's result (29)", () => {
    const branch = [
      entry(user(1000)),
      entry(assistantWithTools(1100, [["bash_23", "bash"]])),
      entry(toolResult(1150, "bash_23", "FIRST")),
      entry(assistantWithTools(2100, [["bash_23", "bash"]])),
      entry(toolResult(2150, "bash_23", "SECOND")),
    ];
    const batches = captureUnindexedBatchesFromSession(branch, nothingSummarized);
    expect(batches.map((b) => [b.toolCalls[0]!.resultText, b.toolCalls[0]!.resultTimestamp])).toEqual([
      ["FIRST", 1150],
      ["SECOND", 2150],
    ]);
  });

  test("isSummarized is asked with the occurrence key (30)", () => {
    const asked: string[] = [];
    const branch = [entry(assistantWithTools(1100, [["bash_23", "bash"]])), entry(toolResult(1150, "bash_23", "x"))];
    captureUnindexedBatchesFromSession(branch, { isSummarized: (id: string) => (asked.push(id), false) });
    expect(asked).toEqual(["bash_23@1150"]);
  });

  test("a call whose result has not arrived is not captured (31)", () => {
    expect(captureUnindexedBatchesFromSession([entry(assistantWithTools(1, [["bash_23", "bash"]]))], nothingSummarized)).toEqual([]);
  });

  test("a result after the next assistant never pairs with the earlier call (32)", () => {
    const branch = [
      entry(assistantWithTools(1, [["bash_23", "bash"]])),
      entry(assistantWithTools(2, [["other", "bash"]])),
      entry(toolResult(3, "bash_23", "late")),
    ];
    expect(captureUnindexedBatchesFromSession(branch, nothingSummarized)).toEqual([]);
  });

  test("a turn with many results pairs each call with its first result in its own window", () => {
    const ids = Array.from({ length: 40 }, (_, i) => `c${i}`);
    const branch = [
      entry(assistantWithTools(1, ids.map((id) => [id, "bash"]))),
      ...ids.map((id, i) => entry(toolResult(100 + i, id, `first ${id}`))),
      entry(toolResult(200, "c5", "second c5")),
      entry(assistantWithTools(300, [["c7", "bash"], ["c8", "bash"]])),
      entry(toolResult(301, "c8", "next turn c8")),
    ];
    const batches = captureUnindexedBatchesFromSession(branch, nothingSummarized);
    expect(batches).toHaveLength(2);
    expect(batches[0]!.toolCalls.map((c) => c.resultText)).toEqual(ids.map((id) => `first ${id}`));
    expect(batches[1]!.toolCalls.map((c) => [c.toolCallId, c.resultText])).toEqual([["c8", "next turn c8"]]);
  });

  test("turn index counts every assistant message, text-only ones included (C5)", () => {
    const branch = [
      entry({ role: "assistant", content: [{ type: "text", text: "thinking aloud" }], timestamp: 1 }),
      entry(assistantWithTools(2, [["a", "bash"]])),
      entry(toolResult(3, "a", "x")),
    ];
    expect(captureUnindexedBatchesFromSession(branch, nothingSummarized)[0]!.turnIndex).toBe(1);
  });

  test("batches are tagged with the user turn group (C6)", () => {
    const branch = [
      entry(user(1)),
      entry(assistantWithTools(2, [["a", "bash"]])),
      entry(toolResult(3, "a", "x")),
      entry(user(4)),
      entry(assistantWithTools(5, [["b", "bash"]])),
      entry(toolResult(6, "b", "y")),
    ];
    expect(captureUnindexedBatchesFromSession(branch, nothingSummarized).map((b) => b.userTurnGroup)).toEqual([1, 2]);
  });

  describe("custom_message entries (spec 70 §5.1 rule 4)", () => {
    const customEntry = (customType: string) => ({
      type: "custom_message",
      customType,
      content: "steer",
      display: true,
      timestamp: "2026-01-01T00:00:00.000Z",
    });
    const branchAround = (customType: string) => [
      entry(user(1)),
      entry(assistantWithTools(2, [["a", "bash"]])),
      entry(toolResult(3, "a", "x")),
      customEntry(customType),
      entry(assistantWithTools(5, [["b", "bash"]])),
      entry(toolResult(6, "b", "y")),
    ];
    const groups = (branch: any[]) => captureUnindexedBatchesFromSession(branch, nothingSummarized).map((b) => b.userTurnGroup);

    test("another extension's custom message starts a new user turn group", () => {
      expect(groups(branchAround("pi-gauntlet-transition-recovery"))).toEqual([1, 2]);
    });

    test("a context-prune-summary or pi-condense custom leaves the group as it is", () => {
      expect(groups(branchAround("context-prune-summary"))).toEqual([1, 1]);
      expect(groups(branchAround("pi-condense:summary"))).toEqual([1, 1]);
    });

    test("agent-message batching never merges across an eligible custom", () => {
      const grouped = groupBatchesByMode(captureUnindexedBatchesFromSession(branchAround("x"), nothingSummarized), "agent-message");
      expect(grouped.map((b) => b.toolCalls.map((c) => c.toolCallId))).toEqual([["a"], ["b"]]);
    });

    test("turn numbering still counts assistants only", () => {
      expect(captureUnindexedBatchesFromSession(branchAround("x"), nothingSummarized).map((b) => b.turnIndex)).toEqual([0, 1]);
    });

    test("a custom spliced between a call and its result leaves the result with its call", () => {
      const branch = [entry(user(1)), entry(assistantWithTools(2, [["a", "bash"]])), customEntry("foreign-notice"), entry(toolResult(3, "a", "x"))];
      const batches = captureUnindexedBatchesFromSession(branch, nothingSummarized);
      expect(batches.map((b) => [b.userTurnGroup, b.toolCalls.map((c) => c.resultText)])).toEqual([[1, ["x"]]]);
    });
  });

  test("non-message entries are invisible to the rescan (C4)", () => {
    const branch = [
      entry(assistantWithTools(2, [["a", "bash"]])),
      { type: "custom", customType: "x", data: {} },
      { type: "context_edit" },
      entry({ role: "system", content: "prompt" }),
      entry(toolResult(3, "a", "x")),
    ];
    expect(captureUnindexedBatchesFromSession(branch, nothingSummarized)).toHaveLength(1);
  });

  test("summarized, excluded and unanswered calls are left out of the batch (C8, C9)", () => {
    const message = assistantWithTools(
      2,
      [
        ["done", "bash"],
        ["keep", "bash"],
        ["todo", "todowrite"],
        ["pending", "bash"],
      ],
      "doing things",
    );
    const branch = [entry(message), entry(toolResult(3, "done", "x")), entry(toolResult(4, "keep", "y")), entry(toolResult(5, "todo", "z"))];
    const batches = captureUnindexedBatchesFromSession(
      branch,
      { isSummarized: (k: string) => k === "done@3" },
      (name) => name === "todowrite",
    );
    expect(batches).toHaveLength(1);
    expect(batches[0]!.toolCalls.map((c) => c.toolCallId)).toEqual(["keep"]);
    expect(batches[0]!.assistantText).toBe("doing things");
  });

  test("exclude receives input before arguments (P2)", () => {
    const seen: unknown[] = [];
    const message = { role: "assistant", content: [{ type: "toolCall", id: "a", name: "read", input: { path: "i" }, arguments: { path: "r" } }] };
    captureUnindexedBatchesFromSession([entry(message), entry(toolResult(2, "a", "x"))], nothingSummarized, (_n, args) => {
      seen.push(args);
      return false;
    });
    expect(seen).toEqual([{ path: "i" }]);
  });

  test("the batch timestamp prefers the session entry timestamp (C9)", () => {
    const withIso = { type: "message", timestamp: "2024-01-01T00:00:00.000Z", message: assistantWithTools(5, [["a", "bash"]]) };
    const [fromEntry] = captureUnindexedBatchesFromSession([withIso, entry(toolResult(6, "a", "x"))], nothingSummarized);
    expect(fromEntry!.timestamp).toBe(Date.parse("2024-01-01T00:00:00.000Z"));
    const [fromMessage] = captureUnindexedBatchesFromSession([entry(assistantWithTools(5, [["a", "bash"]])), entry(toolResult(6, "a", "x"))], nothingSummarized);
    expect(fromMessage!.timestamp).toBe(5);
  });
});

describe("capture of values a hand-edited session can hold", () => {
  test("a toolCall block without a string id is not captured", () => {
    const message = { role: "assistant", content: [{ type: "toolCall", id: { toString: 1 }, name: "bash" }, { type: "toolCall", name: "bash" }, { type: "toolCall", id: "ok", name: "bash" }], timestamp: 1 };
    expect(captureBatch(message, [], 0, 1).toolCalls.map((c) => c.toolCallId)).toEqual(["ok"]);
  });

  test("captured calls take the types the index reads back", () => {
    const message = { role: "assistant", content: [{ type: "toolCall", id: "a", name: 7, arguments: "ls -la" }], timestamp: 1 };
    const [captured] = captureBatch(message, [{ ...toolResult(5, "a", "out"), isError: "yes" }], 0, 1).toolCalls;
    expect(captured).toEqual({ toolCallId: "a", toolName: "", args: { _raw: "ls -la" }, resultText: "out", isError: false, resultTimestamp: 5, digest: "1 line" });
  });

  test("the rescan skips a block whose id is not a string without throwing", () => {
    const odd = { role: "assistant", content: [{ type: "toolCall", id: { toString: 1 }, name: "bash" }], timestamp: 2 };
    const branch = [entry(user(1)), entry(odd), entry({ ...toolResult(3, "x", "out"), toolCallId: { toString: 1 } })];
    expect(captureUnindexedBatchesFromSession(branch, nothingSummarized)).toEqual([]);
  });
});

describe("serializeBatchForSummarizer", () => {
  test("labels each call with its position and tool name (25)", () => {
    const text = serializeBatchForSummarizer(batch([call("x1", "read"), call("x2", "bash")]));
    expect(text).toContain("[[1:read]] Tool: read(");
    expect(text).toContain("[[2:bash]] Tool: bash(");
  });

  test("numbering is contiguous regardless of ids (26)", () => {
    const text = serializeBatchForSummarizer(batch([call("zz", "read"), call("aa", "read"), call("q", "write")]));
    expect(text).toContain("[[1:read]] Tool:");
    expect(text).toContain("[[2:read]] Tool:");
    expect(text).toContain("[[3:write]] Tool:");
  });

  test("renders the exact layout with assistant prose, status and separator (C12)", () => {
    const failed = { ...call("b", "bash", "boom"), isError: true };
    const text = serializeBatchForSummarizer(batch([call("a", "read", "ok"), failed], { assistantText: "Looking" }));
    expect(text).toBe(
      'Assistant said: Looking\n\n[[1:read]] Tool: read({\n  "id": "a"\n})\nResult (OK): ok\n---\n[[2:bash]] Tool: bash({\n  "id": "b"\n})\nResult (ERROR): boom',
    );
  });
});

describe("groupBatchesByMode", () => {
  test("turn mode returns the same array reference (C13)", () => {
    const input = [batch([call("a", "bash")], { userTurnGroup: 1 })];
    expect(groupBatchesByMode(input, "turn")).toBe(input);
  });

  test("agent-message mode merges batches of one user span without mutating them (C13)", () => {
    const first = batch([call("a", "bash")], { userTurnGroup: 1, assistantText: "one", turnIndex: 0, timestamp: 10 });
    const second = batch([call("b", "read")], { userTurnGroup: 1, assistantText: "", turnIndex: 1, timestamp: 20 });
    const third = batch([call("c", "bash")], { userTurnGroup: 1, assistantText: "three", turnIndex: 2, timestamp: 30 });
    const other = batch([call("d", "bash")], { userTurnGroup: 2, turnIndex: 3, timestamp: 40 });
    const firstCalls = first.toolCalls;
    const grouped = groupBatchesByMode([first, second, third, other], "agent-message");
    expect(grouped).toHaveLength(2);
    expect(grouped[0]!.toolCalls.map((c) => c.toolCallId)).toEqual(["a", "b", "c"]);
    expect(grouped[0]).toMatchObject({ assistantText: "one\n\nthree", turnIndex: 2, timestamp: 30 });
    expect(first.toolCalls).toBe(firstCalls);
    expect(first.toolCalls).toHaveLength(1);
    expect(first).toMatchObject({ assistantText: "one", turnIndex: 0, timestamp: 10 });
    expect(grouped[1]).not.toBe(other);
    expect(grouped[1]).toEqual(other);
  });

  test("agent-message mode merges a batch with more calls than a call can take as arguments", () => {
    const huge = new Array<CapturedToolCall>(1_200_000).fill(call("h", "bash"));
    const grouped = groupBatchesByMode(
      [batch([call("a", "bash")], { userTurnGroup: 1 }), batch(huge, { userTurnGroup: 1 })],
      "agent-message",
    );
    expect(grouped).toHaveLength(1);
    expect(grouped[0]!.toolCalls).toHaveLength(1_200_001);
  });

  test("a batch without a user turn group passes through and closes the open group (C13)", () => {
    const a = batch([call("a", "bash")], { userTurnGroup: 1 });
    const loose = batch([call("l", "bash")]);
    const b = batch([call("b", "bash")], { userTurnGroup: 1 });
    const grouped = groupBatchesByMode([a, loose, b], "agent-message");
    expect(grouped).toHaveLength(3);
    expect(grouped[1]).toBe(loose);
  });
});

describe("projectBranchMessages (spec 70 §5.1)", () => {
  test("message entries become their messages; custom_message entries the custom role with a ms timestamp", () => {
    const message = user(1);
    const projected = projectBranchMessages([
      entry(message),
      {
        type: "custom_message",
        id: "e2",
        parentId: "e1",
        customType: "pi-gauntlet-transition-recovery",
        content: [{ type: "text", text: "next task" }],
        display: true,
        details: { step: 2 },
        timestamp: "2026-03-04T05:06:07.089Z",
      },
    ]);
    expect(projected[0]).toBe(message);
    expect(projected[1]).toEqual({
      role: "custom",
      customType: "pi-gauntlet-transition-recovery",
      content: [{ type: "text", text: "next task" }],
      display: true,
      details: { step: 2 },
      timestamp: Date.parse("2026-03-04T05:06:07.089Z"),
    });
  });

  test("a custom message carries the timestamp pi's own session projection gives it", () => {
    const sm = SessionManager.inMemory("/tmp");
    sm.appendMessage(user(1) as any);
    sm.appendCustomMessageEntry("pi-gauntlet-transition-recovery", "next task", true, { step: 2 });
    const ours = projectBranchMessages(sm.getBranch()).find((m) => m.role === "custom");
    const pis = sm.buildSessionProjection().messages.find((m: any) => m.role === "custom");
    expect(ours).toEqual(pis);
  });

  test("every other entry is dropped", () => {
    const projected = projectBranchMessages([
      { type: "custom", customType: "context-prune-index", data: {} },
      { type: "model_change", provider: "p", modelId: "m" },
      { type: "message" },
      null,
    ]);
    expect(projected).toEqual([]);
  });

  test("a timestamp a hand-edited file made an object projects as NaN instead of throwing", () => {
    const [projected] = projectBranchMessages([{ type: "custom_message", customType: "x", content: "c", timestamp: { toString: 1, valueOf: 1 } }]);
    expect(projected.timestamp).toBeNaN();
  });
});
