// Phase 1 for `context_tree_query` results the index knows nothing of (issue 16): verbatim through the
// grace window, then a stub naming the refs they recovered; never a flip back, never a throw.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { pruneMessages, sizeMessages, type RenderIndexer } from "./pruner.js";
import { recoveryStubText } from "./recovery-grace.js";
import { expectNoOrphanToolResults } from "../../test/orphan-assertions.js";

const QUERY = "context_tree_query";
const EMPTY: RenderIndexer = {
  isSummarized: () => false,
  hasLegacyBareRecord: () => false,
  getRecord: () => undefined,
  getShortRefForToolCallId: () => undefined,
  getChainEntries: () => [],
  getPerBatchSummaryTextForToolCallIds: () => "",
};
const RECOVERED = `## toolRef: t1\nTool: bash\nArgs: {}\nStatus: OK\nTurn: 0\n\n${"line of the original output\n".repeat(10)}`;

const user = (ts: number) => ({ role: "user", content: [{ type: "text", text: `prompt ${ts}` }], timestamp: ts });
const reply = (ts: number) => ({ role: "assistant", content: [{ type: "text", text: "done" }], stopReason: "stop", timestamp: ts });
const callTurn = (ts: number, args: unknown, id = "q1", name = QUERY) => ({
  role: "assistant",
  content: [{ type: "toolCall", id, name, arguments: args }],
  stopReason: "toolUse",
  timestamp: ts,
});
const recovery = (ts: number, extra: Record<string, unknown> = {}, id = "q1") => ({
  role: "toolResult",
  toolCallId: id,
  toolName: QUERY,
  content: [{ type: "text", text: RECOVERED }],
  details: { results: {} },
  isError: false,
  timestamp: ts,
  ...extra,
});

/** A recovery of `args` followed by `laterPrompts` chat-only prompts. */
function session(args: unknown, laterPrompts: number, result: Record<string, unknown> = {}): any[] {
  const messages: any[] = [user(100), callTurn(200, args), recovery(201, result), reply(300)];
  for (let i = 0; i < laterPrompts; i++) messages.push(user(400 + i * 100), reply(450 + i * 100));
  return messages;
}

const render = (messages: any[], grace = 3) => pruneMessages(messages, EMPTY, undefined, undefined, undefined, grace);
const textAt = (messages: any[], i: number) => messages[i].content.map((b: any) => b.text ?? "").join("");

describe("a recovery result past its grace window", () => {
  test("becomes the stub naming its ref and the exact call that shows it again", () => {
    const out = render(session({ toolCallIds: ["t1"] }, 4));
    expect(textAt(out.messages, 2)).toBe(
      '[Recovered output of ref `t1`, shown here earlier. Call context_tree_query({ toolCallIds: ["t1"] }) to see it again.]',
    );
    expect(out.messages[2]).toMatchObject({ role: "toolResult", toolCallId: "q1", toolName: QUERY, isError: false, timestamp: 201 });
    expect(out.messages[2].details).toBeUndefined();
  });

  test("names every ref once and repeats the call with its order, repeats and lines", () => {
    const out = render(session({ toolCallIds: ["t2", "t1", "t2"], lines: "2001-4000" }, 4));
    expect(textAt(out.messages, 2)).toBe(
      '[Recovered output of refs `t2`, `t1`, shown here earlier. Call context_tree_query({ toolCallIds: ["t2","t1","t2"], lines: "2001-4000" }) to see it again.]',
    );
  });

  test("a single-string id list is repeated as a one-element list", () => {
    expect(textAt(render(session({ toolCallIds: "t1" }, 4)).messages, 2)).toBe(recoveryStubText({ toolCallIds: ["t1"] }));
  });

  test("stays verbatim while in grace, exactly up to K later prompts", () => {
    expect(render(session({ toolCallIds: ["t1"] }, 3)).pruned).toBe(false);
    expect(render(session({ toolCallIds: ["t1"] }, 4)).pruned).toBe(true);
  });

  test("with grace 0 a fresh recovery still reaches the model, and is stubbed once a later prompt exists", () => {
    const fresh = session({ toolCallIds: ["t1"] }, 0);
    expect(render(fresh, 0).messages).toBe(fresh);
    expect(textAt(render(session({ toolCallIds: ["t1"] }, 1), 0).messages, 2)).toBe(recoveryStubText({ toolCallIds: ["t1"] }));
  });

  test("the decision is stable: every later render of a growing transcript keeps the stub", () => {
    const messages = session({ toolCallIds: ["t1"] }, 4);
    const first = render(messages).messages;
    for (let extra = 0; extra < 5; extra++) {
      messages.push(user(2000 + extra * 100), reply(2050 + extra * 100));
      expect(textAt(render(messages).messages, 2)).toBe(textAt(first, 2));
    }
    expect(JSON.stringify(render(session({ toolCallIds: ["t1"] }, 4)).messages)).toBe(JSON.stringify(first));
  });

  test("the render's sizes are exact and no result is orphaned", () => {
    const messages = session({ toolCallIds: ["t1"] }, 4);
    const out = render(messages);
    expect(out.beforeChars).toBe(sizeMessages(messages));
    expect(out.afterChars).toBe(sizeMessages(out.messages));
    expect(out.afterChars).toBeLessThan(out.beforeChars);
    expectNoOrphanToolResults(out.messages);
  });

  test("an image-only recovery is stubbed even when its text is short", () => {
    const content = [{ type: "text", text: "## toolRef: t1" }, { type: "image", mimeType: "image/png", data: "QUJD" }];
    const out = render(session({ toolCallIds: ["t1"] }, 4, { content }));
    expect(textAt(out.messages, 2)).toBe(recoveryStubText({ toolCallIds: ["t1"] }));
  });

  test("a protected recovery tool stays verbatim", () => {
    const messages = session({ toolCallIds: ["t1"] }, 4);
    const out = pruneMessages(messages, EMPTY, undefined, undefined, { protectedTools: [QUERY], protectedPaths: [] }, 3);
    expect(out.messages).toBe(messages);
  });
});

describe("a recovery result stays verbatim when the stub could not give it back", () => {
  for (const [name, args] of [
    ["no arguments", undefined],
    ["arguments that are a string", "t1"],
    ["a list with a number", { toolCallIds: ["t1", 2] }],
    ["an id that could break the stub", { toolCallIds: ["t1`]) and ignore this"] }],
    ["a numeric range", { toolCallIds: ["t1"], lines: 5 }],
    ["an empty list", { toolCallIds: [] }],
  ] as const) {
    test(`${name}`, () => {
      const messages = session(args, 4);
      expect(render(messages).messages).toBe(messages);
    });
  }

  test("a not-found answer (the ref may resolve later)", () => {
    const messages = session({ toolCallIds: ["t1"] }, 4, {
      content: [{ type: "text", text: `${RECOVERED}\n\n---\n\n## toolRef: t9\n(not found in index \u2014 may not have been summarized yet)` }],
    });
    expect(render(messages).messages).toBe(messages);
  });

  test("an error result", () => {
    const messages = session({ toolCallIds: ["t1"] }, 4, { isError: true });
    expect(render(messages).messages).toBe(messages);
  });

  test("an output shorter than the stub", () => {
    const messages = session({ toolCallIds: ["t1"] }, 4, { content: [{ type: "text", text: "## toolRef: t1\n\nok" }] });
    expect(render(messages).messages).toBe(messages);
  });

  test("a call that is not in the assistant right before it", () => {
    const messages = session({ toolCallIds: ["t1"] }, 4);
    messages[1] = callTurn(200, { toolCallIds: ["t1"] }, "other");
    messages.splice(1, 0, callTurn(150, { toolCallIds: ["t1"] }));
    const out = render(messages);
    expect(out.messages.some((m: any) => m.content?.[0]?.text?.startsWith("[Recovered output"))).toBe(false);
  });

  test("a call of another tool under the same id", () => {
    const messages = session({ toolCallIds: ["t1"] }, 4);
    messages[1] = callTurn(200, { toolCallIds: ["t1"] }, "q1", "bash");
    expect(render(messages).messages).toBe(messages);
  });
});

test("hostile arguments and content never make the render throw", () => {
  fc.assert(
    fc.property(fc.anything(), fc.anything(), fc.nat(5), (args, content, later) => {
      const messages = session(args, later, { content });
      const out = render(messages, 1);
      expect(out.beforeChars === 0 || out.beforeChars === sizeMessages(messages)).toBe(true);
    }),
    { numRuns: 500 },
  );
});

test("over random sessions mixing recoveries, summarized results and orphans, sizes are exact and a second render is identical", () => {
  const summarized: RenderIndexer = { ...EMPTY, isSummarized: (key) => key.startsWith("b"), getShortRefForToolCallId: (key) => `t${key.length}` };
  const argsArb = fc.constantFrom<unknown>({ toolCallIds: ["t1"] }, { toolCallIds: ["t2", "t1"], lines: "1-3" }, { toolCallIds: "t3" }, { toolCallIds: [4] }, undefined);
  const stepArb = fc.oneof(
    fc.constant({ kind: "user" as const }),
    fc.record({ kind: fc.constant("recover" as const), args: argsArb, orphan: fc.boolean(), images: fc.boolean() }),
    fc.record({ kind: fc.constant("bash" as const), orphan: fc.boolean(), images: fc.boolean() }),
  );
  fc.assert(
    fc.property(fc.array(stepArb, { maxLength: 14 }), fc.constantFrom(0, 1, 3), (steps, grace) => {
      const messages: any[] = [user(1)];
      steps.forEach((step, i) => {
        const ts = 10 * (i + 1);
        if (step.kind === "user") return void messages.push(user(ts));
        const id = step.kind === "recover" ? `q${i}` : `b${i}`;
        const content: any[] = [{ type: "text", text: RECOVERED }];
        if (step.images) content.push({ type: "image", mimeType: "image/png", data: "QUJD" });
        messages.push(callTurn(ts, step.kind === "recover" ? step.args : {}, id, step.kind === "recover" ? QUERY : "bash"));
        messages.push({ ...recovery(ts + 1, { content, toolName: step.kind === "recover" ? QUERY : "bash" }, id) });
        if (step.orphan) messages.push(recovery(ts + 2, {}, `ghost${i}`));
      });
      const first = pruneMessages(messages, summarized, undefined, undefined, undefined, grace);
      const second = pruneMessages(structuredClone(messages), summarized, undefined, undefined, undefined, grace);
      expect(JSON.stringify(second.messages)).toBe(JSON.stringify(first.messages));
      if (first.pruned) {
        expect(first.beforeChars).toBe(sizeMessages(messages));
        expect(first.afterChars).toBe(sizeMessages(first.messages));
      } else expect(first.messages).toBe(messages);
      expectNoOrphanToolResults(first.messages);
    }),
    { numRuns: 300 },
  );
});
