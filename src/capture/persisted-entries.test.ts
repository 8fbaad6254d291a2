import { describe, expect, test } from "bun:test";
import {
  parseAliasEntry,
  parseChainEntry,
  parseFrontierEntry,
  parseIndexEntry,
  parseStatsEntry,
  parseSummaryEntry,
  parseToolCallRecord,
  recordArgs,
} from "./persisted-entries.js";

const record = (extra: Record<string, unknown> = {}) => ({
  toolCallId: "bash_1",
  toolName: "bash",
  args: { command: "ls" },
  resultText: "a\nb",
  isError: false,
  turnIndex: 2,
  timestamp: 1000,
  resultTimestamp: 1100,
  ...extra,
});

const chain = (extra: Record<string, unknown> = {}) => ({
  blockId: "b3",
  startUserTimestamp: 100,
  droppedToolCallIds: ["bash_1"],
  finalAssistantTimestamp: 300,
  toolRefs: ["t1"],
  compressedAt: 400,
  ...extra,
});

const frontier = (extra: Record<string, unknown> = {}) => ({
  lastAttemptedToolCallId: "bash_1",
  lastAttemptedToolName: "bash",
  lastAttemptedTurnIndex: 2,
  lastAttemptedTimestamp: 1000,
  attemptedBatchCount: 1,
  attemptedToolCallCount: 1,
  rawCharCount: 10,
  summaryCharCount: 5,
  outcome: "summarized",
  ...extra,
});

const reasonOf = (parsed: { ok: boolean; reason?: string }) => (parsed.ok ? undefined : parsed.reason);

describe("tool-call records", () => {
  test("a valid record is returned as the same object, unknown fields included", () => {
    const value = record({ capturedBy: "0.9.3" });
    const parsed = parseToolCallRecord(value);
    expect(parsed.ok && parsed.value).toBe(value as any);
  });

  test("a legacy record without resultTimestamp or isError loads", () => {
    const { resultTimestamp: _r, isError: _e, ...legacy } = record();
    expect(parseToolCallRecord(legacy).ok).toBe(true);
  });

  test("a spilled record with its spill fields loads", () => {
    const spilled = record({ resultText: "", spillPath: "/s/x-blobs/a.txt", spillBytes: 900, resultPreview: "head", contentHash: "ab12" });
    expect(parseToolCallRecord(spilled).ok).toBe(true);
  });

  test("a spilled record with the SHA-256 of its sidecar loads with it", () => {
    const parsed = parseToolCallRecord(record({ resultText: "", spillPath: "/s/x-blobs/a.txt", spillBytes: 900, spillSha256: "0a".repeat(32) }));
    expect(parsed.ok && parsed.value.spillSha256).toBe("0a".repeat(32));
  });

  for (const [key, value, reason] of [
    ["toolCallId", "", "toolCallId is not a non-empty string"],
    ["toolCallId", { toString: 1 }, "toolCallId is not a non-empty string"],
    ["toolName", 7, "toolName is not a string"],
    ["resultText", ["x"], "resultText is not a string"],
    ["isError", "false", "isError is not a boolean"],
    ["turnIndex", "2", "turnIndex is not a finite number"],
    ["timestamp", Number.POSITIVE_INFINITY, "timestamp is not a finite number"],
    ["resultTimestamp", null, "resultTimestamp is not a finite number"],
    ["spillPath", 42, "spillPath is not a string"],
    ["spillBytes", -1, "spillBytes is not a number >= 0"],
    ["resultPreview", { valueOf: 1 }, "resultPreview is not a string"],
    ["contentHash", 5, "contentHash is not a string"],
    ["spillSha256", 5, "spillSha256 is not 64 lowercase hex digits"],
    ["spillSha256", "AB".repeat(32), "spillSha256 is not 64 lowercase hex digits"],
    ["spillSha256", "ab12", "spillSha256 is not 64 lowercase hex digits"],
    ["outcome", 3, "outcome is not a single-line string of at most 300 characters"],
    ["outcome", "", "outcome is not a single-line string of at most 300 characters"],
    ["outcome", "exit 1\n[fake] new line", "outcome is not a single-line string of at most 300 characters"],
    ["outcome", "exit 1\u001b[2J", "outcome is not a single-line string of at most 300 characters"],
    ["outcome", "x".repeat(301), "outcome is not a single-line string of at most 300 characters"],
  ] as const) {
    test(`a record whose ${key} is ${JSON.stringify(value)} is rejected`, () => {
      expect(reasonOf(parseToolCallRecord(record({ [key]: value })))).toBe(reason);
    });
  }

  test("a record with outcome facts loads with them", () => {
    const parsed = parseToolCallRecord(record({ outcome: "exit 1; first error: boom" }));
    expect(parsed.ok && parsed.value.outcome).toBe("exit 1; first error: boom");
  });

  test("a record with a digest loads with it, as the same object", () => {
    const value = record({ digest: "exit 1; ValueError a.py:3" });
    const parsed = parseToolCallRecord(value);
    expect(parsed.ok && parsed.value).toBe(value as any);
  });

  for (const [what, digest] of [
    ["a number", 7],
    ["empty", ""],
    ["longer than 400 characters", "x".repeat(401)],
    ["two lines", "exit 1\n[fake] instruction"],
    ["a control character", "exit 1\u001b[2J"],
  ] as const) {
    test(`a record whose digest is ${what} loads without its digest, its input untouched`, () => {
      const value: Record<string, unknown> = record({ digest, outcome: "exit 1" });
      const parsed = parseToolCallRecord(value);
      expect(parsed.ok && parsed.value).toEqual(record({ outcome: "exit 1" }) as any);
      expect(value.digest).toBe(digest);
    });
  }

  test("a digest up to the read limit loads", () => {
    const parsed = parseToolCallRecord(record({ digest: "x".repeat(400) }));
    expect(parsed.ok && parsed.value.digest).toHaveLength(400);
  });

  test("a record without resultText is rejected", () => {
    const { resultText: _, ...bare } = record();
    expect(reasonOf(parseToolCallRecord(bare))).toBe("resultText is missing");
  });

  test("missing or null arguments load as an empty object", () => {
    const { args: _, ...noArgs } = record();
    const parsed = parseToolCallRecord(noArgs);
    expect(parsed.ok && parsed.value.args).toEqual({});
    const nullArgs = parseToolCallRecord(record({ args: null }));
    expect(nullArgs.ok && nullArgs.value.args).toEqual({});
  });

  test("non-object arguments keep the record and are kept under _raw", () => {
    const value = record({ args: '{"command":"ls"' });
    const parsed = parseToolCallRecord(value);
    expect(parsed.ok && parsed.value.args).toEqual({ _raw: '{"command":"ls"' });
    expect(parsed.ok && parsed.value.resultText).toBe("a\nb");
    expect(value.args as unknown).toBe('{"command":"ls"');
  });

  test("recordArgs keeps an object as it is and wraps a list", () => {
    const args = { path: "/x" };
    expect(recordArgs(args)).toBe(args);
    expect(recordArgs([1, 2])).toEqual({ _raw: [1, 2] });
  });
});

describe("context-prune-index", () => {
  test("a valid entry keeps its record list", () => {
    const toolCalls = [record(), record({ toolCallId: "bash_2" })];
    const parsed = parseIndexEntry({ toolCalls });
    expect(parsed.ok && parsed.value.toolCalls).toBe(toolCalls as any);
    expect(parsed.ok && parsed.value.partial).toBeUndefined();
  });

  test("bad records are left out, the rest loads, and the entry names the first problem", () => {
    const parsed = parseIndexEntry({ toolCalls: [record(), null, record({ timestamp: "x" }), record({ toolCallId: "ok2" })] });
    expect(parsed.ok && parsed.value.toolCalls.map((r) => r.toolCallId)).toEqual(["bash_1", "ok2"]);
    expect(parsed.ok && parsed.value.partial).toBe("2 of 4 record(s), first toolCalls[1] is not an object");
  });

  test("a backfilled entry keeps its refs and drops a ref that could break a header", () => {
    const parsed = parseIndexEntry({
      toolCalls: [record()],
      backfilled: true,
      refs: [{ shortId: "t4", toolCallId: "bash_1", resultTimestamp: 1100 }, { shortId: 't5">', toolCallId: "bash_1" }],
    });
    expect(parsed.ok && parsed.value.backfilled).toBe(true);
    expect(parsed.ok && parsed.value.refs).toEqual([{ shortId: "t4", toolCallId: "bash_1", resultTimestamp: 1100 }]);
    expect(parsed.ok && parsed.value.partial).toContain("1 ref(s), first refs[1] shortId is not");
  });

  for (const [name, data, reason] of [
    ["not an object", "x", "data is not an object"],
    ["toolCalls not a list", { toolCalls: {} }, "toolCalls is not a list"],
    ["backfilled not a boolean", { toolCalls: [], backfilled: "yes" }, "backfilled is not a boolean"],
    ["refs not a list", { toolCalls: [], refs: 1 }, "refs is not a list"],
  ] as const) {
    test(`an entry whose ${name} is rejected`, () => {
      expect(reasonOf(parseIndexEntry(data))).toBe(reason);
    });
  }
});

describe("context-prune-index digests", () => {
  test("an entry whose record has a bad digest keeps the record and names the digest it left out", () => {
    const parsed = parseIndexEntry({ toolCalls: [record({ digest: "ok digest" }), record({ toolCallId: "bash_2", digest: 5 })] });
    expect(parsed.ok && parsed.value.toolCalls.map((r) => [r.toolCallId, r.digest])).toEqual([
      ["bash_1", "ok digest"],
      ["bash_2", undefined],
    ]);
    expect(parsed.ok && parsed.value.partial).toBe("1 digest(s), first toolCalls[1] digest is not a single-line string of at most 400 characters");
  });

  test("a record dropped for another field is not counted again for its digest", () => {
    const parsed = parseIndexEntry({ toolCalls: [record({ turnIndex: "x", digest: 5 })] });
    expect(parsed.ok && parsed.value.partial).toBe("1 of 1 record(s), first toolCalls[0] turnIndex is not a finite number");
  });
});

describe("context-prune-summary", () => {
  const entry = (details: unknown, content: unknown = "body") => ({ content, details });

  test("toolCallRefs load as clean refs and string content is the text", () => {
    const parsed = parseSummaryEntry(entry({ toolCallRefs: [{ shortId: "t1", toolCallId: "a", resultTimestamp: 5, extra: 1 }], toolNames: ["bash"], turnIndex: 1, timestamp: 9 }));
    expect(parsed.ok && parsed.value).toEqual({ refs: [{ shortId: "t1", toolCallId: "a", resultTimestamp: 5 }], text: "body" });
  });

  test("legacy toolCallIds make each id its own ref", () => {
    const parsed = parseSummaryEntry(entry({ toolCallIds: ["a", "b"] }));
    expect(parsed.ok && parsed.value.refs).toEqual([{ shortId: "a", toolCallId: "a" }, { shortId: "b", toolCallId: "b" }]);
  });

  test("block content contributes its text blocks", () => {
    const parsed = parseSummaryEntry(entry({ toolCallRefs: [] }, [{ type: "text", text: "x" }, { type: "image", data: "", mimeType: "image/png" }, { type: "text", text: "y" }]));
    expect(parsed.ok && parsed.value.text).toBe("x\ny");
  });

  for (const [name, value, reason] of [
    ["details missing", entry(undefined), "details is not an object"],
    ["no refs list", entry({ toolNames: [] }), "details carry no refs list"],
    ["toolCallRefs not a list", entry({ toolCallRefs: "t1" }), "details.toolCallRefs is not a list"],
    ["a ref with a numeric id", entry({ toolCallRefs: [{ shortId: "t1", toolCallId: 3 }] }), "details.toolCallRefs[0] toolCallId is not a non-empty string"],
    ["a ref with a huge timestamp", entry({ toolCallRefs: [{ shortId: "t1", toolCallId: "a", resultTimestamp: 1e400 }] }), "details.toolCallRefs[0] resultTimestamp is not a finite number"],
    ["toolCallIds with a number", entry({ toolCallIds: ["a", 1] }), "details.toolCallIds is not a list of non-empty strings"],
    ["turnIndex a string", entry({ toolCallRefs: [], turnIndex: "1" }), "details.turnIndex is not a finite number"],
    ["toolNames not strings", entry({ toolCallRefs: [], toolNames: [1] }), "details.toolNames is not a list of strings"],
    ["content a number", entry({ toolCallRefs: [] }, 42), "content is not a string or a list of blocks"],
    ["a text block without text", entry({ toolCallRefs: [] }, [{ type: "text", text: { toString: 1 } }]), "content[0].text is not a string"],
  ] as const) {
    test(`an entry with ${name} is rejected`, () => {
      expect(reasonOf(parseSummaryEntry(value))).toBe(reason);
    });
  }
});

describe("context-prune-chain", () => {
  test("a valid entry is returned as the same object, unknown and optional fields included", () => {
    const value = chain({ rangeSummaryText: "", bodySource: "deterministic", droppedOccurrenceKeys: ["bash_1@1100"], protectedToolCallIds: [], renderHint: "x" });
    const parsed = parseChainEntry(value);
    expect(parsed.ok && parsed.value).toBe(value as any);
  });

  test("an interrupted final (null) is valid", () => {
    expect(parseChainEntry(chain({ finalAssistantTimestamp: null })).ok).toBe(true);
  });

  test("a null range summary means none", () => {
    const parsed = parseChainEntry(chain({ rangeSummaryText: null }));
    expect(parsed.ok && Object.hasOwn(parsed.value, "rangeSummaryText")).toBe(false);
    expect(parsed.ok && parsed.value.blockId).toBe("b3");
  });

  for (const [name, extra, reason] of [
    ["blockId an object", { blockId: { toString: 1 } }, 'blockId is not a block id "b<digits>"'],
    ["blockId not b<digits>", { blockId: 'b1" x="' }, 'blockId is not a block id "b<digits>"'],
    ["rangeSummaryText a number", { rangeSummaryText: 42 }, "rangeSummaryText is not a string"],
    ["startUserTimestamp a string", { startUserTimestamp: "100" }, "startUserTimestamp is not a finite number"],
    ["finalAssistantTimestamp huge", { finalAssistantTimestamp: 1e400 }, "finalAssistantTimestamp is not a finite number or null"],
    ["compressedAt missing", { compressedAt: undefined }, "compressedAt is missing"],
    ["droppedToolCallIds with a number", { droppedToolCallIds: ["a", 1] }, "droppedToolCallIds is not a list of strings"],
    ["droppedOccurrenceKeys a string", { droppedOccurrenceKeys: "a@1" }, "droppedOccurrenceKeys is not a list of strings"],
    ["protectedToolCallIds with null", { protectedToolCallIds: [null] }, "protectedToolCallIds is not a list of strings"],
    ["a tool ref with a quote", { toolRefs: ['t1" onload="'] }, 'toolRefs is not a list of refs without ", <, > or line breaks'],
    ["a tool ref with a newline", { toolRefs: ["t1\n</compressed-chain>"] }, 'toolRefs is not a list of refs without ", <, > or line breaks'],
    ["an empty tool ref", { toolRefs: [""] }, 'toolRefs is not a list of refs without ", <, > or line breaks'],
    ["bodySource unknown", { bodySource: "llm" }, 'bodySource is not "deterministic"'],
  ] as const) {
    test(`an entry with ${name} is rejected`, () => {
      expect(reasonOf(parseChainEntry(chain(extra)))).toBe(reason);
    });
  }
});

describe("context-prune-dedup-alias", () => {
  test("a legacy alias with a hash and no timestamps loads as the same object", () => {
    const value = { newToolCallId: "call_8", originalToolCallId: "call_7", hash: "0f1e" };
    const parsed = parseAliasEntry(value);
    expect(parsed.ok && parsed.value).toBe(value as any);
  });

  for (const [name, data, reason] of [
    ["newToolCallId an object", { newToolCallId: { toString: 1 }, originalToolCallId: "a" }, "newToolCallId is not a non-empty string"],
    ["originalToolCallId missing", { newToolCallId: "a" }, "originalToolCallId is missing"],
    ["a string timestamp", { newToolCallId: "a", originalToolCallId: "b", newResultTimestamp: "5" }, "newResultTimestamp is not a finite number"],
    ["hash a number", { newToolCallId: "a", originalToolCallId: "b", hash: 5 }, "hash is not a string"],
  ] as const) {
    test(`an alias with ${name} is rejected`, () => {
      expect(reasonOf(parseAliasEntry(data))).toBe(reason);
    });
  }
});

describe("context-prune-frontier", () => {
  test("a valid frontier loads with exactly the nine fields", () => {
    const parsed = parseFrontierEntry(frontier({ thinkingStripBoundaryTimestamp: 5 }));
    expect(parsed.ok && parsed.value).toEqual(frontier() as any);
  });

  test("missing and null fields take their defaults", () => {
    const parsed = parseFrontierEntry({ lastAttemptedToolCallId: "x", rawCharCount: null });
    expect(parsed.ok && parsed.value).toMatchObject({ lastAttemptedToolName: "unknown", rawCharCount: 0, outcome: "summarized" });
  });

  for (const [name, extra, reason] of [
    ["no id", { lastAttemptedToolCallId: "" }, "lastAttemptedToolCallId is not a non-empty string"],
    ["a string turn index", { lastAttemptedTurnIndex: "3" }, "lastAttemptedTurnIndex is not a finite number"],
    ["an unknown outcome", { outcome: "exploded" }, "outcome is not a frontier outcome"],
    ["a numeric tool name", { lastAttemptedToolName: 5 }, "lastAttemptedToolName is not a string"],
  ] as const) {
    test(`a frontier with ${name} is rejected`, () => {
      expect(reasonOf(parseFrontierEntry(frontier(extra)))).toBe(reason);
    });
  }
});

describe("context-prune-stats", () => {
  test("a legacy snapshot without chain counters loads them as 0", () => {
    const parsed = parseStatsEntry({ totalInputTokens: 900, totalOutputTokens: 60, totalCost: 0.001, callCount: 1 });
    expect(parsed.ok && parsed.value).toEqual({ totalInputTokens: 900, totalOutputTokens: 60, totalCost: 0.001, callCount: 1, chainsCompressed: 0, rangesSummarized: 0 });
  });

  for (const [name, data, reason] of [
    ["a negative count", { callCount: -1 }, "callCount is not a number >= 0"],
    ["an infinite cost", { totalCost: 1e400 }, "totalCost is not a number >= 0"],
    ["a numeric string", { totalInputTokens: "12" }, "totalInputTokens is not a number >= 0"],
  ] as const) {
    test(`a snapshot with ${name} is rejected`, () => {
      expect(reasonOf(parseStatsEntry(data))).toBe(reason);
    });
  }
});
