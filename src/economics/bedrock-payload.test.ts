// Reading and marking a Bedrock Converse body as pi-ai builds it (test/pi-ai-request.ts).
import { describe, expect, test } from "bun:test";
import type { Api, Model } from "@earendil-works/pi-ai";
import { getModel } from "@earendil-works/pi-ai/compat";
import { piAiRequest, toolTurns } from "../../test/pi-ai-request.js";
import { bedrockCodec, scanBedrockPayload, withCachePoint } from "./bedrock-payload.js";

const CLAUDE = getModel("amazon-bedrock" as never, "anthropic.claude-sonnet-4-5-20250929-v1:0" as never) as Model<Api>;
const ident = (text: string) => text;

describe("reading a Converse body", () => {
  test("blocks come in the cache's order, tools, system, messages, and a cachePoint is not a block", async () => {
    const body = await piAiRequest(CLAUDE, toolTurns(CLAUDE, 1));
    const scan = scanBedrockPayload(body, ident)!;
    expect(scan.blocks.map((b) => b.place)).toEqual([
      { section: "tools", index: 0 },
      { section: "system", index: 0 },
      { section: "messages", message: 0, index: 0 },
      { section: "messages", message: 1, index: 0 },
      { section: "messages", message: 2, index: 0 },
    ]);
  });

  test("pi-ai's two cachePoints mark the system prompt and the last tool result, with one value", async () => {
    const scan = scanBedrockPayload(await piAiRequest(CLAUDE, toolTurns(CLAUDE, 2)), ident)!;
    expect(scan.markers).toBe(2);
    expect(scan.cacheControl).toEqual({ type: "default" });
    expect(scan.blocks.flatMap((b, i) => (b.marked ? [i] : []))).toEqual([1, scan.blocks.length - 1]);
  });

  test("long retention asks Bedrock for one hour on every cachePoint", async () => {
    const scan = scanBedrockPayload(await piAiRequest(CLAUDE, toolTurns(CLAUDE, 1), { cacheRetention: "long" }), ident)!;
    expect(scan.cacheControl).toEqual({ type: "default", ttl: "1h" });
  });

  test("a tool result names its tool call as pi-ai normalizes it; reasoning is never eligible", async () => {
    const scan = scanBedrockPayload(await piAiRequest(CLAUDE, toolTurns(CLAUDE, 1, { thinking: true })), ident)!;
    const kinds = scan.blocks.map((b) => [b.eligible, b.toolUseId]);
    // tool, system (marked), prompt, reasoning, tool call, tool result (marked)
    expect(kinds).toEqual([[true, undefined], [false, undefined], [true, undefined], [false, undefined], [true, undefined], [false, "call_1"]]);
    expect(scan.markedThinking).toBe(false);
  });

  test("a cachePoint right after a reasoning block is reported, so the body is left alone", () => {
    const body = { modelId: "m", messages: [{ role: "assistant", content: [{ reasoningContent: { reasoningText: { text: "hm" } } }, { cachePoint: { type: "default" } }] }] };
    expect(scanBedrockPayload(body, ident)!.markedThinking).toBe(true);
  });

  test("anything that is not a Converse body as pi-ai builds it is not read", () => {
    for (const body of [undefined, "text", { modelId: "m" }, { messages: [{ role: "user", content: "hi" }] }, { messages: [{ role: "user", content: ["hi"] }] }, { messages: [], system: "s" }, { messages: [], toolConfig: 3 }]) {
      expect(scanBedrockPayload(body, ident)).toBeUndefined();
    }
    expect(bedrockCodec.modelOf({ modelId: "anthropic.claude" })).toBe("anthropic.claude");
    expect(bedrockCodec.modelOf({ model: "x" })).toBeUndefined();
  });
});

describe("adding a cachePoint", () => {
  test("it goes right after the block, as a copy; everything off its path is the input's own", async () => {
    const body = await piAiRequest(CLAUDE, toolTurns(CLAUDE, 3));
    const before = JSON.stringify(body);
    const out: any = withCachePoint(body, { section: "messages", message: 3, index: 0 }, { type: "default" });
    expect(out.messages[3].content).toEqual([body.messages[3].content[0], { cachePoint: { type: "default" } }]);
    expect(out.messages.filter((m: unknown, i: number) => m !== body.messages[i])).toHaveLength(1);
    expect(out.system).toBe(body.system);
    expect(JSON.stringify(body)).toBe(before);
    expect(scanBedrockPayload(out, ident)!.markers).toBe(3);
  });

  test("on a tool or a system block too, and nowhere for a place that holds no block", async () => {
    const body = await piAiRequest(CLAUDE, toolTurns(CLAUDE, 1));
    expect((withCachePoint(body, { section: "tools", index: 0 }, { type: "default" }) as any).toolConfig.tools[1]).toEqual({ cachePoint: { type: "default" } });
    expect((withCachePoint(body, { section: "system", index: 0 }, { type: "default" }) as any).system).toHaveLength(3);
    expect(withCachePoint(body, { section: "messages", message: 9, index: 0 }, {})).toBe(body);
    expect(withCachePoint(body, { section: "messages", message: 0, index: undefined }, {})).toBe(body);
  });
});
