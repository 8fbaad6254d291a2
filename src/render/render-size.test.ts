import { describe, expect, test } from "bun:test";
import { measureRender } from "./render-size.js";

const size = (messages: unknown[]) => JSON.stringify(messages).length;
const REQUEST_FIELDS = ["role", "content", "toolCallId", "toolName", "isError", "command", "output", "summary"];
/** What the provider receives of each message: only its request fields. */
const requestSize = (messages: any[]) =>
  JSON.stringify(messages.map((m) => Object.fromEntries(Object.entries(m).filter(([k]) => REQUEST_FIELDS.includes(k))))).length;
const msg = (role: string, ts: number, text = "x".repeat(ts)) => ({ role, content: [{ type: "text", text }], timestamp: ts });
const NONE: ReadonlySet<unknown> = new Set();
const unstubbed = (messages: any[]) => ({ messages, stubSizes: null, stubRefs: null });

describe("measureRender", () => {
  test("a positional replacement without a reported size is measured", () => {
    const input = [msg("user", 1), msg("assistant", 300)];
    const positional = [input[0], msg("assistant", 2)];
    const sizes = measureRender(input, unstubbed(input), positional, positional, NONE);
    expect(sizes).toMatchObject({ beforeChars: size(input), afterChars: size(positional) });
  });

  test("a reported stub size is used only for the stub it was reported for", () => {
    const input = [msg("toolResult", 200)];
    const stub = msg("toolResult", 3);
    const replacedAgain = msg("toolResult", 4);
    const stubbed = { messages: [stub], stubSizes: Float64Array.of(JSON.stringify(stub).length), stubRefs: [] };
    expect(measureRender(input, stubbed, [stub], [stub], NONE).afterChars).toBe(size([stub]));
    expect(measureRender(input, stubbed, [replacedAgain], [replacedAgain], NONE).afterChars).toBe(size([replacedAgain]));
  });

  test("dropped messages and created ones are both accounted for", () => {
    const input = [msg("user", 1), msg("assistant", 150), msg("toolResult", 400), msg("assistant", 5)];
    const synthetic = msg("user", 60);
    const output = [input[0], synthetic, input[3]];
    const sizes = measureRender(input, unstubbed(input), input, output, new Set([synthetic]));
    expect(sizes).toMatchObject({ beforeChars: size(input), afterChars: size(output) });
  });

  test("a new message nobody reported is still measured exactly", () => {
    const input = [msg("user", 1), msg("assistant", 130), msg("toolResult", 7)];
    const stray = msg("custom", 9);
    const output = [input[0], stray, input[2]];
    expect(measureRender(input, unstubbed(input), input, output, NONE).afterChars).toBe(size(output));
  });

  test("an empty output measures as an empty array", () => {
    const input = [msg("toolResult", 3)];
    expect(measureRender(input, unstubbed(input), input, [], NONE)).toMatchObject({ beforeChars: size(input), afterChars: 2 });
  });

  test("the request view leaves out details, timestamps and usage, which the provider never receives", () => {
    const recovered = {
      role: "toolResult",
      toolCallId: "q1",
      toolName: "context_tree_query",
      content: [{ type: "text", text: "original output" }],
      details: { copy: "d".repeat(31_700) },
      isError: false,
      timestamp: 1_700_000_000_000,
    };
    const reply = { role: "assistant", content: [{ type: "text", text: "ok" }], usage: { input: 10, output: 2 }, api: "x", model: "m", stopReason: "stop", timestamp: 5 };
    const input = [recovered, reply];
    const stub = { ...recovered, content: [{ type: "text", text: "[stub]" }], details: undefined };
    const output = [stub, reply];
    const sizes = measureRender(input, unstubbed(input), output, output, NONE);
    expect(sizes.requestBeforeChars).toBe(requestSize(input));
    expect(sizes.requestAfterChars).toBe(requestSize(output));
    expect(sizes.requestBeforeChars).toBeLessThan(300);
    expect(sizes.beforeChars).toBeGreaterThan(31_700);
  });

  test("a stub's reported size gives its request size without the timestamp", () => {
    const input = [msg("toolResult", 200)];
    const stub = { role: "toolResult", toolCallId: "a", toolName: "bash", content: [{ type: "text", text: "[s]" }], isError: false, timestamp: 123456 };
    const stubbed = { messages: [stub], stubSizes: Float64Array.of(JSON.stringify(stub).length), stubRefs: [] };
    expect(measureRender(input, stubbed, [stub], [stub], NONE).requestAfterChars).toBe(requestSize([stub]));
  });
});
