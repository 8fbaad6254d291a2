import { describe, expect, test } from "bun:test";
import { BlockList, messageBlocks, messageChars, requestBlocks } from "./request-blocks.js";

const user = (content: unknown) => ({ role: "user", content, timestamp: 1 });
const assistant = (content: unknown[]) => ({ role: "assistant", content, api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5", timestamp: 2 });
const result = (id: string, text: string) => ({ role: "toolResult", toolCallId: id, toolName: "bash", content: [{ type: "text", text }], isError: false, timestamp: 3 });
const call = (id: string) => ({ type: "toolCall", id, name: "bash", arguments: { command: "ls" } });

const count = (message: unknown) => messageBlocks(message).blocks.length;
const total = (blocks: { tokens: number }[]) => blocks.reduce((n, b) => n + b.tokens, 0);

describe("the blocks a message sends, as pi-ai converts it for Anthropic", () => {
  test("a user message with string content is one block", () => {
    expect(count(user("hello"))).toBe(1);
  });

  test("a user message with an array sends one block per non-empty text and per image", () => {
    expect(count(user([{ type: "text", text: "a" }, { type: "text", text: "  " }, { type: "image", data: "x".repeat(9000), mimeType: "image/png" }]))).toBe(2);
  });

  test("an assistant message sends each non-empty text, thinking and tool call as its own block", () => {
    const message = assistant([{ type: "thinking", thinking: "hmm", thinkingSignature: "sig" }, { type: "text", text: "" }, { type: "text", text: "ok" }, call("c1"), call("c2")]);
    const shape = messageBlocks(message);
    expect(shape.blocks).toHaveLength(4);
    expect(shape.blocks.map((b) => b.eligible)).toEqual([false, true, true, true]);
  });

  test("each tool result is one block, and pi's custom, bash and summary messages are user messages", () => {
    expect(count(result("c1", "out"))).toBe(1);
    expect(count({ role: "custom", customType: "x", content: "note", display: false, timestamp: 1 })).toBe(1);
    expect(count({ role: "bashExecution", command: "ls", output: "a", exitCode: 0, timestamp: 1 })).toBe(1);
    expect(count({ role: "compactionSummary", summary: "s", tokensBefore: 1, timestamp: 1 })).toBe(1);
    expect(messageBlocks({ role: "custom", content: "x", timestamp: 1 }).userSide).toBe(true);
  });

  test("messages pi-ai drops send no block: an empty, failed or aborted assistant, an excluded bash run, an unknown role", () => {
    expect(count(assistant([{ type: "text", text: " " }]))).toBe(0);
    expect(count({ ...assistant([{ type: "text", text: "partial" }]), stopReason: "error" })).toBe(0);
    expect(count({ ...assistant([{ type: "text", text: "partial" }]), stopReason: "aborted" })).toBe(0);
    expect(count({ ...assistant([{ type: "text", text: "whole" }]), stopReason: "stop" })).toBe(1);
    expect(count({ role: "bashExecution", command: "ls", output: "a", excludeFromContext: true, timestamp: 1 })).toBe(0);
    expect(count({ role: "mystery", content: "x" })).toBe(0);
  });

  test("a message's blocks add up to its measured chars, an image at 6,400", () => {
    const image = user([{ type: "text", text: "look" }, { type: "image", data: "x".repeat(9000), mimeType: "image/png" }]);
    const shape = messageBlocks(image);
    expect(total(shape.blocks.map((b) => b.block))).toBe(messageChars(image));
    expect(shape.blocks[1]!.block.tokens).toBe(6400);
  });

  test("the same message object keeps its keys; an equal copy is another message", () => {
    const message = result("c1", "out");
    expect(messageBlocks(message).blocks[0]!.block.key).toBe(messageBlocks(message).blocks[0]!.block.key);
    expect(messageBlocks({ ...message }).blocks[0]!.block.key).not.toBe(messageBlocks(message).blocks[0]!.block.key);
  });
});

describe("a request's blocks and pi-ai's markers", () => {
  const u = user("fix it");
  const a1 = assistant([{ type: "text", text: "reading" }, call("c1"), call("c2")]);
  const r1 = result("c1", "one");
  const r2 = result("c2", "two");

  test("the system prompt comes first as one marked block, then every message's blocks in order", () => {
    const { blocks } = requestBlocks([u, a1, r1, r2], 500, 1);
    expect(blocks).toHaveLength(1 + 1 + 3 + 2);
    expect(blocks[0]).toEqual({ key: "s1", tokens: 500, breakpoint: true });
    expect(total(blocks)).toBe(500 + [u, a1, r1, r2].reduce((n, m) => n + messageChars(m), 0));
  });

  test("the last tool result of the last turn carries the conversation's marker, and only it", () => {
    const { blocks } = requestBlocks([u, a1, r1, r2], 500, 1);
    expect(blocks.map((b) => b.breakpoint)).toEqual([true, false, false, false, false, false, true]);
  });

  test("a request that ends with an assistant message has no conversation marker", () => {
    const { blocks } = requestBlocks([u, a1], 500, 1);
    expect(blocks.filter((b) => b.breakpoint)).toHaveLength(1);
  });

  test("a dropped last message is not sent: it counts nothing and the marker stays on the last message pi-ai sends", () => {
    const { blocks } = requestBlocks([u, a1, r1, assistant([])], 500, 1);
    expect(blocks.at(-1)!.breakpoint).toBe(true);
    expect(total(blocks)).toBe(500 + [u, a1, r1].reduce((n, m) => n + messageChars(m), 0));
  });

  test("marking a request never changes the message's own blocks (the next request reuses them)", () => {
    requestBlocks([u, a1, r1], 500, 1);
    expect(messageBlocks(r1).blocks[0]!.block.breakpoint).toBe(false);
  });

  test("a new system version is a new system key", () => {
    expect(requestBlocks([u], 500, 2).blocks[0]!.key).not.toBe(requestBlocks([u], 500, 1).blocks[0]!.key);
  });
});

describe("the block list kept between requests", () => {
  const u = user("go");
  const turns = [1, 2, 3, 4].flatMap((n) => [assistant([{ type: "text", text: `step ${n}` }, call(`c${n}`)]), result(`c${n}`, `out ${n}`)]);
  const stub = result("c1", "[stub]");

  test("growing, rewritten, shrunk and re-prompted requests give the blocks a fresh list gives", () => {
    const list = new BlockList();
    const sequence: Array<[unknown[], number]> = [
      [[u, ...turns.slice(0, 2)], 1],
      [[u, ...turns], 1],
      [[u, turns[0], stub, ...turns.slice(2)], 1],
      [[u, turns[0]], 1],
      [[u, ...turns], 2],
    ];
    for (const [messages, version] of sequence) {
      list.update(messages, 100 * version, version);
      const fresh = requestBlocks(messages, 100 * version, version);
      expect(list.keys).toEqual(fresh.blocks.map((b) => b.key));
      expect(list.eligible).toEqual(fresh.eligible);
      expect(list.chars).toBe(total(fresh.blocks));
    }
  });

  test("it reports how many leading messages a request shares with the previous one", () => {
    const list = new BlockList();
    list.update([u, ...turns], 100, 1);
    expect(list.update([u, turns[0], stub, ...turns.slice(2)], 100, 1)).toBe(2);
    expect(list.blocksOf(2)).toBe(1 + 1 + 2);
  });
});
