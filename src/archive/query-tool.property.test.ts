import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { captureUnindexedBatchesFromSession } from "../capture/batch-capture.js";
import { ToolCallIndexer } from "./indexer.js";
import { occKey } from "../capture/occurrence-key.js";
import { pruneMessages } from "../render/pruner.js";
import { registerQueryTool } from "./query-tool.js";
import type { CapturedBatch } from "../capture/records.js";

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

const hostile = () => {
  throw new Error("hostile");
};
const revoked = () => {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
};
const throwingTraps = { get: hostile, has: hostile, ownKeys: hostile, getPrototypeOf: hostile, getOwnPropertyDescriptor: hostile };

// Built inside the property, so a counterexample prints as names, never as a value that throws when printed.
const HOSTILE: Record<string, () => unknown> = {
  "toString null": () => ({ toString: null }),
  "toString and valueOf null": () => ({ toString: null, valueOf: null }),
  "toString throws": () => ({ toString: hostile }),
  "valueOf throws, toString null": () => ({ valueOf: hostile, toString: null }),
  "toPrimitive throws": () => ({ [Symbol.toPrimitive]: hostile }),
  "toPrimitive gives an object": () => ({ [Symbol.toPrimitive]: () => ({}) }),
  "toString gives an object": () => ({ toString: () => ({}), valueOf: () => ({}) }),
  "no prototype": () => Object.create(null),
  "prototype proxy that throws": () => Object.create(new Proxy({}, throwingTraps)),
  "symbol": () => Symbol("s"),
  "bigint": () => 10n,
  "proxy that throws": () => new Proxy({}, throwingTraps),
  "array proxy that throws": () => new Proxy(["a"], throwingTraps),
  "revoked proxy": revoked,
  "array with a throwing element": () => Object.defineProperty(["a", "b"], 1, { get: hostile }),
  "array of toString null": () => [{ toString: null }],
};
const PLAIN: Record<string, () => unknown> = {
  "undefined": () => undefined,
  "null": () => null,
  "a ref": () => "a",
  "a range": () => "1-2",
  "a number": () => 7,
  "a list of refs": () => ["a", "t1", "missing"],
  "prototype names": () => ["__proto__", "constructor", "toString", "hasOwnProperty"],
  "an empty object": () => ({}),
};
const valueArb = fc.constantFrom(...Object.keys(HOSTILE), ...Object.keys(PLAIN));
const build = (name: string) => (HOSTILE[name] ?? PLAIN[name])!();

const paramsArb = fc.oneof(
  valueArb.map((name) => ({ whole: name })),
  fc.record(
    { toolCallIds: fc.oneof(valueArb, fc.array(valueArb, { maxLength: 3 })), lines: valueArb, pattern: valueArb, proto: fc.constantFrom("plain", "no prototype", "prototype proxy that throws") },
    { requiredKeys: ["proto"] },
  ),
);

function paramsOf(shape: any): unknown {
  if ("whole" in shape) return build(shape.whole);
  const params = shape.proto === "plain" ? {} : build(shape.proto);
  for (const key of ["toolCallIds", "lines", "pattern"] as const) {
    if (!(key in shape)) continue;
    Object.defineProperty(params, key, { value: Array.isArray(shape[key]) ? shape[key].map(build) : build(shape[key]), enumerable: true });
  }
  return params;
}

describe("hostile arguments", () => {
  test("every argument shape answers with text and details that serialize, and never throws", async () => {
    const indexer = new ToolCallIndexer();
    indexer.addBatch({ turnIndex: 1, timestamp: 1, assistantText: "", toolCalls: [{ toolCallId: "a", toolName: "bash", args: {}, resultText: "one\ntwo", isError: false, resultTimestamp: 2 }] }, noop);
    indexer.registerSummaryRefs(indexer.allocateSummaryRefs({ turnIndex: 1, timestamp: 1, assistantText: "", toolCalls: [{ toolCallId: "a", toolName: "bash", args: {}, resultText: "", isError: false, resultTimestamp: 2 }] }));
    let tool: any;
    registerQueryTool({ registerTool: (def: any) => (tool = def) } as any, indexer);
    await fc.assert(
      fc.asyncProperty(paramsArb, async (shape) => {
        const result = await tool.execute("q", paramsOf(shape), undefined, undefined, undefined);
        expect(result.content[0].type).toBe("text");
        expect(result.content[0].text.length).toBeGreaterThan(0);
        expect(() => JSON.stringify(result)).not.toThrow();
      }),
      { numRuns: 2000 },
    );
  });
});
