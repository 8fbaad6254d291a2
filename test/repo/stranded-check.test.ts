import { describe, expect, test } from "bun:test";
import { strandedOutputs } from "../stranded-outputs.js";

const T0 = Date.UTC(2026, 11, 1);
const ids = ["a", "b", "c"];
const at = (id: string) => T0 + 10 * (ids.indexOf(id) + 1);
const text = (id: string) => `output of ${id} `.repeat(20);
const custom = (customType: string, data: unknown) => ({ type: "custom", customType, data });

/** One prompt: one tool turn per id (turn indexes 0, 1, ...), then the reply, then `extra` entries. */
function branch(extra: any[]): any[] {
  const entries: any[] = [{ type: "message", message: { role: "user", content: "go", timestamp: T0 } }];
  for (const id of ids) {
    entries.push({ type: "message", message: { role: "assistant", content: [{ type: "toolCall", id, name: "read", arguments: { path: `${id}.ts` } }], timestamp: at(id) } });
    entries.push({ type: "message", message: { role: "toolResult", toolCallId: id, toolName: "read", content: [{ type: "text", text: text(id) }], isError: false, timestamp: at(id) + 1 } });
  }
  entries.push({ type: "message", message: { role: "assistant", content: [{ type: "text", text: "done" }], timestamp: T0 + 999 } });
  return [...entries, ...extra];
}

const indexed = (id: string) =>
  custom("context-prune-index", { toolCalls: [{ toolCallId: id, toolName: "read", resultText: text(id), turnIndex: ids.indexOf(id), timestamp: at(id), resultTimestamp: at(id) + 1 }] });
/** The frontier a flush writes after attempting `count` outputs up to `id`; `summarized` once any of them got a summary. */
const frontier = (id: string, count: number) =>
  custom("context-prune-frontier", { lastAttemptedToolCallId: id, lastAttemptedToolName: "read", lastAttemptedTurnIndex: ids.indexOf(id), lastAttemptedTimestamp: at(id), attemptedBatchCount: count, attemptedToolCallCount: count, rawCharCount: 0, summaryCharCount: 0, outcome: "summarized" });

const check = { minBatchChars: 0, batchingMode: "turn" as const };

describe("the stranding check", () => {
  test("an output a flush skipped beside one it summarized is left raw by design, not stranded", () => {
    expect(strandedOutputs(branch([indexed("a"), indexed("b"), frontier("c", 3)]), check)).toEqual([]);
  });

  test("an output behind the frontier that its flush did not attempt is stranded", () => {
    expect(strandedOutputs(branch([indexed("c"), frontier("c", 1)]), check)).toEqual(["a", "b"]);
  });
});
