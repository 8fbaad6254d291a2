import { describe, expect, test } from "bun:test";
import { scanAnthropicPayload, withMarker } from "./anthropic-payload.js";

const CC = { type: "ephemeral" };
const id = (text: string) => text;

function body(messages: any[], extra: Record<string, unknown> = {}): any {
  return {
    model: "claude-sonnet-4-5",
    max_tokens: 1000,
    tools: [{ name: "read", input_schema: { type: "object" } }, { name: "bash", input_schema: { type: "object" }, cache_control: CC }],
    system: [{ type: "text", text: "system prompt", cache_control: CC }],
    messages,
    ...extra,
  };
}

const conversation = () => [
  { role: "user", content: "first prompt" },
  { role: "assistant", content: [{ type: "thinking", thinking: "hmm", signature: "s" }, { type: "tool_use", id: "t1", name: "read", input: { path: "a" } }] },
  { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: [{ type: "text", text: "A" }, { type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } }] }] },
  { role: "assistant", content: [{ type: "redacted_thinking", data: "xx" }, { type: "text", text: "done" }] },
  { role: "user", content: [{ type: "text", text: "next", cache_control: CC }] },
];

describe("reading an Anthropic request body", () => {
  test("blocks come in the cache's order: tools, system, then each message's content", () => {
    const scan = scanAnthropicPayload(body(conversation()), id)!;
    expect(scan.blocks.map((b) => b.place)).toEqual([
      { section: "tools", index: 0 },
      { section: "tools", index: 1 },
      { section: "system", index: 0 },
      { section: "messages", message: 0, index: undefined },
      { section: "messages", message: 1, index: 0 },
      { section: "messages", message: 1, index: 1 },
      { section: "messages", message: 2, index: 0 },
      { section: "messages", message: 3, index: 0 },
      { section: "messages", message: 3, index: 1 },
      { section: "messages", message: 4, index: 0 },
    ]);
  });

  test("the three markers pi-ai puts with an API key are counted and their value kept", () => {
    const scan = scanAnthropicPayload(body(conversation()), id)!;
    expect(scan.markers).toBe(3);
    expect(scan.cacheControl).toEqual(CC);
    expect(scan.blocks.map((b) => b.marked)).toEqual([false, true, true, false, false, false, false, false, false, true]);
  });

  test("thinking, redacted thinking, string content and marked blocks are not eligible", () => {
    const scan = scanAnthropicPayload(body(conversation()), id)!;
    expect(scan.blocks.map((b) => b.eligible)).toEqual([true, false, false, false, false, true, true, false, true, false]);
  });

  test("a block's key leaves its marker out and names its message, so equal blocks of two messages differ", () => {
    const marked = scanAnthropicPayload(body([{ role: "user", content: [{ type: "text", text: "x", cache_control: CC }] }]), id)!;
    const plain = scanAnthropicPayload(body([{ role: "user", content: [{ type: "text", text: "x" }] }]), id)!;
    expect(marked.blocks[3]!.key).toBe(plain.blocks[3]!.key);
    const twice = scanAnthropicPayload(body([{ role: "user", content: "x" }, { role: "user", content: "x" }]), id)!;
    expect(twice.blocks[3]!.key).not.toBe(twice.blocks[4]!.key);
  });

  test("string content has the key of the one text block it stands for", () => {
    const asString = scanAnthropicPayload(body([{ role: "user", content: "hi" }]), id)!;
    const asBlock = scanAnthropicPayload(body([{ role: "user", content: [{ type: "text", text: "hi", cache_control: CC }] }]), id)!;
    expect(asString.blocks[3]!.key).toBe(asBlock.blocks[3]!.key);
  });

  test("a block's tokens are its JSON characters over four", () => {
    const block = { type: "text", text: "abcdefgh" };
    const scan = scanAnthropicPayload(body([{ role: "user", content: [block] }]), id)!;
    expect(scan.blocks[3]!.tokens).toBe(JSON.stringify(block).length / 4);
  });

  test("a marker on a block inside a tool result counts and marks the tool result", () => {
    const messages = [{ role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: [{ type: "text", text: "a", cache_control: CC }] }] }];
    const scan = scanAnthropicPayload(body(messages), id)!;
    expect(scan.markers).toBe(3);
    expect(scan.blocks[3]!.marked).toBe(true);
  });

  test("a top-level marker counts", () => {
    expect(scanAnthropicPayload(body([{ role: "user", content: "x" }], { cache_control: CC }), id)!.markers).toBe(3);
  });

  test("two OAuth system blocks make four markers", () => {
    const system = [{ type: "text", text: "identity", cache_control: CC }, { type: "text", text: "prompt", cache_control: CC }];
    expect(scanAnthropicPayload(body(conversation(), { system }), id)!.markers).toBe(4);
  });

  test("markers with different values give no value to copy", () => {
    const messages = [{ role: "user", content: [{ type: "text", text: "x", cache_control: { type: "ephemeral", ttl: "1h" } }] }];
    expect(scanAnthropicPayload(body(messages), id)!.cacheControl).toBeUndefined();
  });

  test("a marked thinking block is reported", () => {
    const messages = [{ role: "assistant", content: [{ type: "thinking", thinking: "t", signature: "s", cache_control: CC }] }];
    expect(scanAnthropicPayload(body(messages), id)!.markedThinking).toBe(true);
  });

  test("a string system prompt is one block that is not eligible", () => {
    const scan = scanAnthropicPayload(body([], { system: "plain" }), id)!;
    expect(scan.blocks[2]).toMatchObject({ place: { section: "system", index: undefined }, eligible: false });
  });

  test("a deferred tool is not eligible", () => {
    const tools = [{ name: "read", input_schema: {} }, { name: "placeholder", input_schema: {}, defer_loading: true }];
    expect(scanAnthropicPayload(body([], { tools }), id)!.blocks[1]!.eligible).toBe(false);
  });

  test("anything that is not a request body as pi-ai builds it gives nothing", () => {
    for (const payload of [null, undefined, "body", 5, [], {}, { messages: "x" }]) expect(scanAnthropicPayload(payload, id)).toBeUndefined();
    expect(scanAnthropicPayload(body([null]), id)).toBeUndefined();
    expect(scanAnthropicPayload(body([{ role: "user", content: 5 }]), id)).toBeUndefined();
    expect(scanAnthropicPayload(body([{ role: "user", content: ["text"] }]), id)).toBeUndefined();
    expect(scanAnthropicPayload(body([], { tools: {} }), id)).toBeUndefined();
    expect(scanAnthropicPayload(body([], { system: 5 }), id)).toBeUndefined();
  });
});

describe("adding a marker", () => {
  test("the marker lands on the block at the place and everything else is shared with the input", () => {
    const input = body(conversation());
    const out = withMarker(input, { section: "messages", message: 3, index: 1 }, { ...CC });
    expect(out.messages[3].content[1]).toEqual({ type: "text", text: "done", cache_control: CC });
    expect(input.messages[3].content[1].cache_control).toBeUndefined();
    expect(out.tools).toBe(input.tools);
    expect(out.system).toBe(input.system);
    expect(out.messages[2]).toBe(input.messages[2]);
    expect(out.messages[3].content[0]).toBe(input.messages[3].content[0]);
  });

  test("a tool and a system block can take the marker", () => {
    const input = body(conversation());
    expect(withMarker(input, { section: "tools", index: 0 }, CC).tools[0].cache_control).toEqual(CC);
    expect(withMarker(input, { section: "system", index: 0 }, CC).system[0].cache_control).toEqual(CC);
  });

  test("a place holding string content or nothing returns the input itself", () => {
    const input = body(conversation());
    expect(withMarker(input, { section: "messages", message: 0, index: undefined }, CC)).toBe(input);
    expect(withMarker(input, { section: "messages", message: 9, index: 0 }, CC)).toBe(input);
    expect(withMarker(input, { section: "system", index: undefined }, CC)).toBe(input);
  });
});
