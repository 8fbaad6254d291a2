import { describe, expect, test } from "bun:test";
import { archivedNotice, flushReportLine, unusableNotice } from "./flush-report.js";
import type { ProcessedBatch } from "./flush-persist.js";

const call = (id: string) => ({ toolCallId: id, toolName: "bash", args: {}, resultText: "x", isError: false, resultTimestamp: 1 });
function done(kind: ProcessedBatch["kind"], calls: number, raw: number, summaryChars = 0, deduped = 0): ProcessedBatch {
  const batch = { turnIndex: 4, timestamp: 1, assistantText: "", toolCalls: Array.from({ length: calls }, (_, i) => call(`c${i}`)) };
  const item = { batch, deduped: Array.from({ length: deduped }, (_, i) => call(`d${i}`)), dedupedChars: 0, raw, kind: "summarize" as const };
  return { item, kind, summaryChars, refs: ["t1", "t2"] };
}
const CONFIG = { quietOversizedSkips: false, minBatchChars: 1000 };
const NONE = { blocks: [], archived: 0 };

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

  test("names the earlier prompts whose work was compressed, and what their block ids are", () => {
    expect(flushReportLine([done("summarized", 2, 8_000, 800)], { blocks: ["b1", "b2"], archived: 0 }, CONFIG)).toEndWith(
      " \u00b7 compressed the work of 2 earlier prompts into one summary block each (b1, b2)",
    );
    expect(flushReportLine([done("summarized", 2, 8_000, 800)], { blocks: ["b3"], archived: 0 }, CONFIG)).toEndWith(
      " \u00b7 compressed the work of 1 earlier prompt into one summary block (b3)",
    );
  });

  test("counts the outputs a compression archived with no summary of their own (issue 36, point 5)", () => {
    expect(flushReportLine([done("summarized", 2, 8_000, 800)], { blocks: ["b1", "b2"], archived: 5 }, CONFIG)).toEndWith(
      "into one summary block each (b1, b2), archiving 5 outputs in them without a summary",
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

  test("uses no internal terms", () => {
    const lines = [
      flushReportLine([done("summarized", 1, 4_000, 400, 1), done("trivial", 1, 2), done("oversized", 1, 2, 9)], { blocks: ["b1"], archived: 1 }, CONFIG)!,
      archivedNotice(done("archived", 2, 10)),
      unusableNotice(done("summarized", 2, 10).item),
    ];
    for (const line of lines) expect(line).not.toMatch(/frontier|turn \d|user-turn|resultText|minBatchChars|chain|batch/i);
  });
});
