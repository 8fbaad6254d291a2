import { describe, expect, test } from "bun:test";
import { measureRender } from "./render-size.js";

const size = (messages: unknown[]) => JSON.stringify(messages).length;
const msg = (role: string, ts: number, text = "x".repeat(ts)) => ({ role, content: [{ type: "text", text }], timestamp: ts });
const NONE: ReadonlySet<unknown> = new Set();
const unstubbed = (messages: any[]) => ({ messages, stubSizes: null });

describe("measureRender", () => {
  test("a positional replacement without a reported size is measured", () => {
    const input = [msg("user", 1), msg("assistant", 300)];
    const positional = [input[0], msg("assistant", 2)];
    const sizes = measureRender(input, unstubbed(input), positional, positional, NONE);
    expect(sizes).toEqual({ beforeChars: size(input), afterChars: size(positional) });
  });

  test("a reported stub size is used only for the stub it was reported for", () => {
    const input = [msg("toolResult", 200)];
    const stub = msg("toolResult", 3);
    const replacedAgain = msg("toolResult", 4);
    const stubbed = { messages: [stub], stubSizes: Float64Array.of(JSON.stringify(stub).length) };
    expect(measureRender(input, stubbed, [stub], [stub], NONE).afterChars).toBe(size([stub]));
    expect(measureRender(input, stubbed, [replacedAgain], [replacedAgain], NONE).afterChars).toBe(size([replacedAgain]));
  });

  test("dropped messages and created ones are both accounted for", () => {
    const input = [msg("user", 1), msg("assistant", 150), msg("toolResult", 400), msg("assistant", 5)];
    const synthetic = msg("user", 60);
    const output = [input[0], synthetic, input[3]];
    const sizes = measureRender(input, unstubbed(input), input, output, new Set([synthetic]));
    expect(sizes).toEqual({ beforeChars: size(input), afterChars: size(output) });
  });

  test("a new message nobody reported is still measured exactly", () => {
    const input = [msg("user", 1), msg("assistant", 130), msg("toolResult", 7)];
    const stray = msg("custom", 9);
    const output = [input[0], stray, input[2]];
    expect(measureRender(input, unstubbed(input), input, output, NONE).afterChars).toBe(size(output));
  });

  test("an empty output measures as an empty array", () => {
    const input = [msg("toolResult", 3)];
    expect(measureRender(input, unstubbed(input), input, [], NONE)).toEqual({ beforeChars: size(input), afterChars: 2 });
  });
});
