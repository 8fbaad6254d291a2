import { describe, expect, test } from "bun:test";
import { ToolCallIndexer } from "../archive/indexer.js";
import { captureBatch } from "../capture/batch-capture.js";
import { occKey } from "../capture/occurrence-key.js";
import { DEFAULT_CONFIG } from "../settings/config-shape.js";
import { MAX_KEPT_CHARS } from "../sight/working-set.js";
import { pruneMessages } from "./pruner.js";
import { replaceSummarizedResults } from "./stub-replace.js";

const user = (ts: number) => ({ role: "user", content: [{ type: "text", text: "go" }], timestamp: ts });
const call = (ts: number, id: string, name: string, args: Record<string, unknown>) => ({ role: "assistant", content: [{ type: "toolCall", id, name, arguments: args }], stopReason: "toolUse", timestamp: ts });
const result = (ts: number, id: string, name: string, text: string) => ({ role: "toolResult", toolCallId: id, toolName: name, content: [{ type: "text", text }], isError: false, timestamp: ts });
const reply = (ts: number) => ({ role: "assistant", content: [{ type: "text", text: "done" }], stopReason: "stop", timestamp: ts });

const READ = "line of the file that the agent will edit later on\n".repeat(60);
const EDIT = { path: "src/a.ts", edits: [{ oldText: "const first = 1;\n".repeat(20), newText: "const first = 2;\n".repeat(20) }] };

/** A run that read src/a.ts and edited it, both archived (without summaries) by one write at the horizon 41. */
function archivedRun(ended: boolean) {
  const messages: unknown[] = [user(10), call(20, "r", "read", { path: "src/a.ts" }), result(21, "r", "read", READ), call(30, "e", "edit", EDIT), result(31, "e", "edit", "Successfully replaced text in src/a.ts."), call(40, "g", "bash", { command: "grep -rn x ." }), result(41, "g", "bash", "x".repeat(3000))];
  if (ended) messages.push(reply(50));
  const indexer = new ToolCallIndexer();
  for (const [i, at] of [[1, 20], [3, 30], [5, 40]] as const) {
    const batch = { ...captureBatch(messages[i] as never, [messages[i + 1]], i, at), userTurnGroup: 1 };
    const refs = indexer.allocateSummaryRefs(batch);
    indexer.addBatch(batch, () => {}, refs);
    indexer.registerSummaryRefs(refs);
  }
  const keys = [occKey("r", 21), occKey("e", 31), occKey("g", 41)];
  return { messages, indexer, writes: [{ at: ended ? 50 : 41, keys }] };
}

const render = (run: ReturnType<typeof archivedRun>, sight = true) =>
  pruneMessages(run.messages, run.indexer, DEFAULT_CONFIG.chainCompression, DEFAULT_CONFIG.purgeErrors, DEFAULT_CONFIG, 0, undefined, undefined, run.indexer.archiveCheck(), true, 50, sight ? { writes: run.writes, recentPrompts: 0, maxChars: MAX_KEPT_CHARS } : undefined).messages as any[];

describe("the render keeps the working set's latest view in view", () => {
  test("the running prompt's read and edit stay raw while the output outside the set is stubbed", () => {
    const out = render(archivedRun(false));
    expect(out[2].content[0].text).toBe(READ);
    expect(out[3].content[0].arguments).toEqual(EDIT);
    expect(out[6].content[0].text).toContain("context_tree_query");
  });

  test("without the working set the same read is stubbed", () => {
    expect(render(archivedRun(false), false)[2].content[0].text).toContain("context_tree_query");
  });

  test("once the run has ended, the write at its reply stubs its outputs like any other", () => {
    const out = render(archivedRun(true));
    expect(out[2].content[0].text).toContain("context_tree_query");
    expect(out[4].content[0].text).toContain("context_tree_query");
  });

  test("a kept output is archived all the same: its ref gives it back verbatim", () => {
    const run = archivedRun(false);
    render(run);
    expect(run.indexer.getRecord(occKey("r", 21))?.resultText).toBe(READ);
  });
});

describe("a kept output a chain drops", () => {
  test("names its ref beside the render, so a chain block drops it as archived instead of carrying it raw", () => {
    const run = archivedRun(false);
    const stubbed = replaceSummarizedResults(run.messages, run.indexer, undefined, new Set(), undefined, run.indexer.archiveCheck(), new Set([occKey("r", 21)]));
    expect(stubbed.messages[2]).toBe(run.messages[2]);
    expect(stubbed.keptRefs?.[2]).toEqual([run.indexer.getShortRefForToolCallId(occKey("r", 21))!]);
  });
});
