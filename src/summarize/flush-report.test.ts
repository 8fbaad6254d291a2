import { describe, expect, test } from "bun:test";
import { archivedNotice, compressedPromptsText, flushReportLine, promptListWords, unusableNotice } from "./flush-report.js";
import type { ProcessedBatch } from "./flush-persist.js";

const call = (id: string) => ({ toolCallId: id, toolName: "bash", args: {}, resultText: "x", isError: false, resultTimestamp: 1 });
function done(kind: ProcessedBatch["kind"], calls: number, raw: number, summaryChars = 0, deduped = 0): ProcessedBatch {
  const batch = { turnIndex: 4, timestamp: 1, assistantText: "", toolCalls: Array.from({ length: calls }, (_, i) => call(`c${i}`)) };
  const item = { batch, deduped: Array.from({ length: deduped }, (_, i) => call(`d${i}`)), dedupedChars: 0, raw, kind: "summarize" as const };
  return { item, kind, summaryChars, refs: ["t1", "t2"] };
}
const CONFIG = { quietOversizedSkips: false, minBatchChars: 1000, stubArguments: true, flushPolicy: "cost" };
const NONE = { prompts: [], archived: 0 };

describe("the line a flush ends with", () => {
  test("says what was summarized with the size before and after", () => {
    expect(flushReportLine([done("summarized", 5, 48_000, 3_200)], NONE, CONFIG)).toBe("pruner: summarized 5 tool outputs (12.0k \u2192 800 tokens)");
  });

  test("folds repeated and small outputs into the same line", () => {
    const line = flushReportLine([done("summarized", 1, 4_000, 400, 2), done("trivial", 3, 300)], NONE, CONFIG);
    expect(line).toBe(
      "pruner: summarized 1 tool output (1.0k \u2192 100 tokens) \u00b7 2 repeated outputs pointed at their earlier copies \u00b7 3 small outputs (under 1000 chars) left as they are",
    );
  });

  test("names the earlier prompts whose work was compressed by their places, not by block ids (issue 45, point 12)", () => {
    expect(flushReportLine([done("summarized", 2, 8_000, 800)], { prompts: [1, 2], archived: 0 }, CONFIG)).toEndWith(
      " \u00b7 compressed the work of 2 earlier prompts (prompts 1 and 2) into one summary block each",
    );
    expect(flushReportLine([done("summarized", 2, 8_000, 800)], { prompts: [3], archived: 0 }, CONFIG)).toEndWith(
      " \u00b7 compressed the work of 1 earlier prompt (prompt 3) into one summary block",
    );
  });

  test("a run of three or more prompts is a range", () => {
    expect(promptListWords([6, 1, 2, 3, 4])).toBe("prompts 1 to 4 and 6");
    expect(promptListWords([2, 5, 9])).toBe("prompts 2, 5 and 9");
    expect(compressedPromptsText(6, [1, 2, 3, 4, 5, 6], 0)).toBe("compressed the work of 6 earlier prompts (prompts 1 to 6) into one summary block each");
  });

  test("counts the outputs a compression archived with no summary of their own (issue 36, point 5)", () => {
    expect(flushReportLine([done("summarized", 2, 8_000, 800)], { prompts: [1, 2], archived: 5 }, CONFIG)).toEndWith(
      "into one summary block each, archiving 5 outputs in them without a summary",
    );
  });

  test("a flush that only left small outputs as they are says that nothing was summarized", () => {
    expect(flushReportLine([done("trivial", 1, 200)], NONE, CONFIG)).toBe("pruner: nothing summarized: 1 small output (under 1000 chars) left as it is");
  });

  test("a summary longer than its output is reported as kept whole", () => {
    expect(flushReportLine([done("oversized", 2, 100, 400)], NONE, CONFIG)).toBe("pruner: nothing summarized: 2 outputs kept whole: the summary came out longer");
  });

  test("quiet skips leave out the skip parts, and a flush with nothing else says nothing", () => {
    const quiet = { ...CONFIG, quietOversizedSkips: true };
    expect(flushReportLine([done("trivial", 1, 200)], NONE, quiet)).toBeUndefined();
    expect(flushReportLine([done("summarized", 1, 4_000, 400), done("trivial", 1, 200)], NONE, quiet)).toBe("pruner: summarized 1 tool output (1.0k \u2192 100 tokens)");
  });

  test("outputs set aside with a plain listing count as summarized", () => {
    expect(flushReportLine([done("archived", 2, 8_000, 600)], NONE, CONFIG)).toBe("pruner: summarized 2 tool outputs (2.0k \u2192 150 tokens)");
  });

  test("counts the write and edit arguments that markers replace, with their size against the markers' (issue 45, point 14)", () => {
    const writes = [
      { ...call("w1"), toolName: "write", args: { path: "/a.ts", content: "a".repeat(1_680) } },
      { ...call("w2"), toolName: "write", args: { path: "/b.ts", content: "b".repeat(1_200) } },
      { ...call("e1"), toolName: "edit", args: { path: "/a.ts", edits: [{ oldText: "o".repeat(300), newText: "n".repeat(400) }] } },
      { ...call("w3"), toolName: "write", args: { path: "/c.ts", content: "short" } },
    ];
    const archived = done("unsummarized", 0, 64);
    archived.item.batch.toolCalls = writes;
    expect(flushReportLine([archived], NONE, CONFIG)).toBe(
      "pruner: archived 4 outputs without a summary (16 tokens, no summarizer call) \u00b7 replaced 4 arguments of write and edit calls with markers (895 \u2192 150 tokens)",
    );
  });

  test("no argument part when argument stubs are off, under the classic policy, or for a failed call", () => {
    const archived = done("unsummarized", 0, 64);
    archived.item.batch.toolCalls = [{ ...call("w1"), toolName: "write", args: { path: "/a.ts", content: "a".repeat(1_000) } }];
    const line = "pruner: archived 1 output without a summary (16 tokens, no summarizer call)";
    expect(flushReportLine([archived], NONE, { ...CONFIG, stubArguments: false })).toBe(line);
    expect(flushReportLine([archived], NONE, { ...CONFIG, flushPolicy: "classic" })).toBe(line);
    archived.item.batch.toolCalls = [{ ...archived.item.batch.toolCalls[0]!, isError: true }];
    expect(flushReportLine([archived], NONE, CONFIG)).toBe(line);
  });

  test("outputs gone out of date say what replaced them, with the size in the same parentheses", () => {
    const stale = done("unsummarized", 0, 400);
    stale.item.batch.toolCalls = [{ ...call("r1"), supersededBy: "r2@1" } as any, { ...call("r3"), supersededBy: "r4@1" } as any];
    expect(flushReportLine([stale], NONE, CONFIG)).toBe("pruner: retired 2 out-of-date outputs (a later read, edit or rerun replaced them; 100 tokens, no summarizer call)");
  });

  test("uses no internal terms", () => {
    const lines = [
      flushReportLine([done("summarized", 1, 4_000, 400, 1), done("trivial", 1, 2), done("oversized", 1, 2, 9)], { prompts: [1], archived: 1 }, CONFIG)!,
      archivedNotice(done("archived", 2, 10)),
      unusableNotice(done("summarized", 2, 10).item),
    ];
    for (const line of lines) expect(line).not.toMatch(/frontier|turn \d|user-turn|resultText|minBatchChars|chain|batch|\bb\d/i);
  });
});
