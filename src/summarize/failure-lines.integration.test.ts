// Issue 18, item 3: the summarizer is asked to keep a failure's first error line and final counts word for
// word, and a summary that does so carries them through a flush into the persisted summary message.
import { describe, expect, mock, test } from "bun:test";
import * as actualCompat from "@earendil-works/pi-ai/compat";
import { assistantWithTools, makeFakeCtx, makeFakePi, msgEntry, streamReply, toolResult, user } from "../../test/fake-host.js";

const prompts: string[] = [];
/** A summarizer that follows the prompt's rule as a real one would: the first error line and the count lines, copied. */
function obedientSummary(prompt: string): string {
  const batch = prompt.slice(prompt.indexOf("<tool-call-batch>"));
  const lines = batch.split("\n");
  const error = lines.find((line) => /^error:/.test(line.trim())) ?? "";
  const counts = lines.filter((line) => /^\s*\d+ (pass|fail)\b/.test(line)).map((line) => line.trim());
  return `- [[1:bash]] npm test failed. First error: ${error.trim()}. Totals: ${counts.join(", ")}.`;
}
mock.module("@earendil-works/pi-ai/compat", () => ({
  ...actualCompat,
  stream: (_model: any, context: any) => {
    const prompt: string = context.messages[0].content[0].text;
    prompts.push(prompt);
    return streamReply(obedientSummary(prompt));
  },
}));

const { createExtensionState } = await import("../host/extension-state.js");
const { flushPending } = await import("./flush.js");
const T = { ...(await import("../names.js")), ...(await import("../settings/config-shape.js")) };

const ERROR_LINE = "error: expect(received).toBe(expected) at src/parser.test.ts:41:7";
const OUTPUT = [
  "bun test v1.4.5",
  ...Array.from({ length: 80 }, (_, i) => `(pass) parser > case ${i}`),
  ERROR_LINE,
  "(fail) parser > reads a quoted line [0.4ms]",
  " 80 pass",
  " 1 fail",
  "Ran 81 tests across 1 file. [210.00ms]",
  "",
  "Command exited with code 1",
].join("\n");

describe("failure lines survive a flush (issue 18)", () => {
  test("the prompt asks for the first error line and final counts word for word, and the summary keeps them", async () => {
    const host = makeFakePi();
    const state = createExtensionState(host.pi as any);
    state.config.value = { ...T.DEFAULT_CONFIG, enabled: true, minBatchChars: 1, chainCompression: { ...T.DEFAULT_CONFIG.chainCompression, enabled: false } } as any;
    const branch = [
      msgEntry(user(100)),
      msgEntry(assistantWithTools(200, [{ id: "run_1", name: "bash", args: { command: "bun test" } } as any])),
      msgEntry({ ...toolResult(210, "run_1", "bash", OUTPUT), isError: true }),
    ];
    const fake = makeFakeCtx(host, { branch, usage: { tokens: 1000, contextWindow: 1_000_000 } });
    expect(await flushPending(state, fake.ctx, { delivery: "session" })).toMatchObject({ ok: true, reason: "flushed" });

    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toContain("When a call failed or reported errors, copy its first error line word for word");
    expect(prompts[0]).toContain("When its output ends with final counts");
    expect(prompts[0]).toContain("copy those count lines word for word too");

    const summary: any = host.entries.find((e) => e.customType === T.CUSTOM_TYPE_SUMMARY);
    const text = typeof summary.content === "string" ? summary.content : summary.content.map((b: any) => b.text).join("\n");
    expect(text).toContain(ERROR_LINE);
    expect(text).toContain("80 pass, 1 fail");

    const index: any = host.entries.find((e) => e.customType === T.CUSTOM_TYPE_INDEX);
    expect(index.data.toolCalls[0].outcome).toBe(`exit 1; first error: ${ERROR_LINE}; totals: 80 pass | 1 fail | Ran 81 tests across 1 file. [210.00ms]`);
  });
});
