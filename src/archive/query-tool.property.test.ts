import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { captureUnindexedBatchesFromSession } from "../capture/batch-capture.js";
import { ToolCallIndexer } from "./indexer.js";
import { occKey } from "../capture/occurrence-key.js";
import { pruneMessages } from "../render/pruner.js";
import { registerQueryTool } from "./query-tool.js";
import type { CapturedBatch } from "../types.js";

// Texts whose dedup normalization is the identity, so an alias's recovered body
// (its original's) is byte-identical to the alias's own output.
const textArb = fc
  .array(fc.array(fc.constantFrom("alpha", "beta", "δ", "😀", "[x]", "{}", "tab\there"), { minLength: 1, maxLength: 3 }).map((t) => t.join("-")), {
    minLength: 1,
    maxLength: 3,
  })
  .map((lines) => lines.join("\n"));

const turnArb = fc.record({
  calls: fc.uniqueArray(fc.record({ id: fc.constantFrom("call_a", "call_b", "functions.bash:0", "x@y"), text: textArb }), {
    minLength: 1,
    maxLength: 3,
    selector: (c) => c.id,
  }),
  newUser: fc.boolean(),
  flushAfter: fc.boolean(),
});

const noop = () => {};

function flush(indexer: ToolCallIndexer, branch: any[]): void {
  for (const batch of captureUnindexedBatchesFromSession(branch, indexer)) {
    const kept = batch.toolCalls.filter((call) => {
      const original = indexer.lookupByContent(call.toolName, call.resultText);
      const key = occKey(call.toolCallId, call.resultTimestamp);
      if (!original || original === key) return true;
      indexer.registerDuplicate(key, original, noop);
      return false;
    });
    if (kept.length === 0) continue;
    const clone: CapturedBatch = { ...batch, toolCalls: kept };
    const refs = indexer.allocateSummaryRefs(clone);
    indexer.registerSummaryRefs(refs);
    indexer.addBatch(clone, noop);
    indexer.registerSummaryBody(kept.map((c) => occKey(c.toolCallId, c.resultTimestamp)), "summary");
  }
}

function bodiesByLabel(text: string): Map<string, string> {
  const bodies = new Map<string, string>();
  for (const block of text.split("\n\n---\n\n")) {
    const label = block.slice("## toolRef: ".length, block.indexOf("\n"));
    bodies.set(label, block.slice(block.indexOf("\n\n") + 2));
  }
  return bodies;
}

describe("recovery round trip", () => {
  test("every stubbed result is recovered verbatim by short ref and by raw id", async () => {
    let tool: any;
    let recovered = 0;
    const query = async (ids: string[]) => (await tool.execute("q", { toolCallIds: ids })).content[0].text as string;
    await fc.assert(
      fc.asyncProperty(fc.array(turnArb, { minLength: 1, maxLength: 8 }), async (turns) => {
        const indexer = new ToolCallIndexer();
        registerQueryTool({ registerTool: (def: any) => (tool = def) } as any, indexer);
        const branch: any[] = [];
        const push = (message: any) => branch.push({ type: "message", message });
        let clock = 1000;
        push({ role: "user", content: [{ type: "text", text: "start" }], timestamp: clock++ });
        for (const turn of turns) {
          if (turn.newUser) push({ role: "user", content: [{ type: "text", text: "more" }], timestamp: clock++ });
          push({ role: "assistant", content: turn.calls.map((c) => ({ type: "toolCall", id: c.id, name: "bash", arguments: { c: c.id } })), timestamp: clock++ });
          for (const c of turn.calls) {
            push({ role: "toolResult", toolCallId: c.id, toolName: "bash", content: [{ type: "text", text: c.text }], isError: false, timestamp: clock++ });
          }
          if (turn.flushAfter) flush(indexer, branch);
        }
        const messages = branch.map((e) => e.message);
        const rendered = pruneMessages(messages, indexer).messages;
        for (let i = 0; i < rendered.length; i++) {
          const out = rendered[i];
          if (out.role !== "toolResult" || out === messages[i]) continue;
          const original = messages[i].content[0].text as string;
          const ref = /ref `([^`]+)`/.exec(out.content[0].text)![1]!;
          expect([...bodiesByLabel(await query([ref])).values()]).toEqual([original]);
          const byId = bodiesByLabel(await query([out.toolCallId]));
          const label = byId.size === 1 ? out.toolCallId : `${out.toolCallId}@${out.timestamp}`;
          expect(byId.get(label)).toBe(original);
          recovered += 1;
        }
        expect(rendered).toHaveLength(messages.length);
      }),
      { numRuns: 1000 },
    );
    expect(recovered).toBeGreaterThan(1000);
  });
});
