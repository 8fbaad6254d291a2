// Reading and marking a chat-completions body with Anthropic's cache_control, as pi-ai builds it for
// OpenRouter's Anthropic models (test/pi-ai-request.ts).
import { describe, expect, test } from "bun:test";
import type { Api, Model } from "@earendil-works/pi-ai";
import { getModel } from "@earendil-works/pi-ai/compat";
import { piAiRequest, toolTurns } from "../../test/pi-ai-request.js";
import { openAiCodec, scanOpenAiPayload, withCacheControl } from "./openai-payload.js";

const OPENROUTER = getModel("openrouter" as never, "anthropic/claude-sonnet-4.5:batch" as never) as Model<Api>;
const ident = (text: string) => text;
const CC = { type: "ephemeral" };

describe("reading an OpenRouter-style chat-completions body", () => {
  test("blocks come as the Anthropic model hashes them: tools, the system message, each message's content and tool calls", async () => {
    const body = await piAiRequest(OPENROUTER, toolTurns(OPENROUTER, 1));
    const scan = scanOpenAiPayload(body, ident)!;
    expect(scan.blocks.map((b) => b.place)).toEqual([
      { section: "tools", index: 0 },
      { section: "messages", message: 0, index: 0 },
      { section: "messages", message: 1, index: 0 },
      { section: "messages", message: 2, index: undefined },
      { section: "messages", message: 3, index: 0 },
    ]);
  });

  test("pi-ai's three markers (last tool, system prompt, last message) are counted with their value", async () => {
    const scan = scanOpenAiPayload(await piAiRequest(OPENROUTER, toolTurns(OPENROUTER, 2)), ident)!;
    expect(scan.markers).toBe(3);
    expect(scan.cacheControl).toEqual(CC);
    expect(scan.blocks.flatMap((b, i) => (b.marked ? [i] : []))).toEqual([0, 1, scan.blocks.length - 1]);
  });

  test("long retention gives pi-ai's markers a one-hour ttl on OpenRouter", async () => {
    expect(scanOpenAiPayload(await piAiRequest(OPENROUTER, toolTurns(OPENROUTER, 1), { cacheRetention: "long" }), ident)!.cacheControl).toEqual({ type: "ephemeral", ttl: "1h" });
  });

  test("string content and the one marked text part pi-ai turns it into have the same key", async () => {
    const two = scanOpenAiPayload(await piAiRequest(OPENROUTER, toolTurns(OPENROUTER, 2)), ident)!;
    const three = scanOpenAiPayload(await piAiRequest(OPENROUTER, toolTurns(OPENROUTER, 3)), ident)!;
    const lastOfTwo = two.blocks.length - 1;
    expect(two.blocks[lastOfTwo]!.marked).toBe(true);
    expect(three.blocks[lastOfTwo]!.marked).toBe(false);
    expect(three.blocks[lastOfTwo]!.key).toBe(two.blocks[lastOfTwo]!.key);
  });

  test("tool calls, reasoning details and images are never eligible; text parts, string content and tools are", () => {
    const body = {
      model: "anthropic/claude-sonnet-4.5",
      tools: [{ type: "function", function: { name: "read" } }],
      messages: [
        { role: "user", content: [{ type: "text", text: "look" }, { type: "image_url", image_url: { url: "data:image/png;base64,AA" } }] },
        { role: "assistant", content: null, reasoning_details: [{ type: "reasoning.text", text: "hm" }], tool_calls: [{ id: "c1", type: "function", function: { name: "read", arguments: "{}" } }] },
        { role: "tool", tool_call_id: "c1", content: "file body" },
      ],
    };
    const scan = scanOpenAiPayload(body, ident)!;
    expect(scan.blocks.map((b) => b.eligible)).toEqual([true, true, false, false, false, true]);
    expect(scan.blocks.at(-1)!.toolUseId).toBe("c1");
  });

  test("anything that is not a chat-completions body is not read", () => {
    for (const body of [null, [], { model: "m" }, { messages: [{ content: "x" }] }, { messages: [{ role: "user", content: 3 }] }, { messages: [], tools: {} }]) {
      expect(scanOpenAiPayload(body, ident)).toBeUndefined();
    }
    expect(openAiCodec.toolUseId("call_7")).toBe("call_7");
  });
});

describe("adding cache_control", () => {
  test("string content becomes the one marked text part pi-ai writes; the rest is the input's own", async () => {
    const body = await piAiRequest(OPENROUTER, toolTurns(OPENROUTER, 3));
    const before = JSON.stringify(body);
    const out: any = withCacheControl(body, { section: "messages", message: 3, index: undefined }, CC);
    expect(out.messages[3]).toEqual({ ...body.messages[3], content: [{ type: "text", text: body.messages[3].content, cache_control: CC }] });
    expect(out.messages.filter((m: unknown, i: number) => m !== body.messages[i])).toHaveLength(1);
    expect(out.tools).toBe(body.tools);
    expect(JSON.stringify(body)).toBe(before);
    expect(scanOpenAiPayload(out, ident)!.markers).toBe(4);
  });

  test("a text part or a tool gets the marker on itself; any other place leaves the body as it is", async () => {
    const body = await piAiRequest(OPENROUTER, toolTurns(OPENROUTER, 1));
    expect((withCacheControl(body, { section: "messages", message: 1, index: 0 }, CC) as any).messages[1].content[0].cache_control).toEqual(CC);
    expect((withCacheControl(body, { section: "tools", index: 0 }, CC) as any).tools[0].cache_control).toEqual(CC);
    expect(withCacheControl(body, { section: "messages", message: 2, index: undefined }, CC)).toBe(body);
    expect(withCacheControl(body, { section: "system", index: 0 }, CC)).toBe(body);
    expect(withCacheControl(body, { section: "messages", message: 40, index: 0 }, CC)).toBe(body);
  });
});
