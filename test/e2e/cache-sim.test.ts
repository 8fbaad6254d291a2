// Fast checks of the prompt-cache simulation (no pi process): Anthropic's breakpoint rule and the prefix
// reading beside it, OpenAI's longest-prefix rule, TTLs, and the usage the fake provider streams with them.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cacheBlocks, openAiCacheBlocks, PromptCacheSim, VirtualClock } from "./cache-sim.js";
import { BATCH_MARKER, startFakeLlm, type FakeLlm } from "./fake-llm.js";

const CC = { type: "ephemeral" };
const text = (t: string, marked = false) => ({ type: "text", text: t, ...(marked ? { cache_control: CC } : {}) });
const user = (t: string, marked = false) => ({ role: "user", content: [text(t, marked)] });
const assistant = (t: string) => ({ role: "assistant", content: [text(t)] });
/** Over the main model's 1,024-token minimum cacheable prefix on its own, so every request here can be cached. */
const SYSTEM = [text("s".repeat(4400), true)];

/** A request whose last user message carries the breakpoint, the way pi-ai marks it. */
function request(...turns: string[]): any {
  const messages = turns.map((t, i) => (i % 2 === 0 ? user(t, i === turns.length - 1) : assistant(t)));
  return { system: SYSTEM, messages };
}

const charsOf = (body: any) => cacheBlocks(body).blocks.reduce((n, b) => n + b.length, 0);

describe("the simulated prompt cache", () => {
  test("a first request writes everything up to its breakpoint and reads nothing", () => {
    const sim = new PromptCacheSim({ ttlMs: 3000, now: new VirtualClock().now });
    const body = request("u".repeat(800));
    const usage = sim.account("s1", body);
    expect(usage).toMatchObject({ inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: Math.round(charsOf(body) / 4), prefixBreak: false, expired: false });
  });

  test("a request that extends the previous one within the TTL reads all of it and writes only the new part", () => {
    const clock = new VirtualClock();
    const sim = new PromptCacheSim({ ttlMs: 3000, now: clock.now });
    const first = request("u".repeat(800));
    sim.account("s1", first);
    clock.advance(2999);
    const second = request("u".repeat(800), "a".repeat(400), "v".repeat(400));
    const usage = sim.account("s1", second);
    expect(usage.cacheReadTokens).toBe(Math.round(charsOf(first) / 4));
    expect(usage.cacheReadTokens + usage.cacheWriteTokens).toBe(Math.round(charsOf(second) / 4));
    expect(usage.prefixBreak).toBe(false);
    expect(usage.prefix).toMatchObject({ cacheReadTokens: usage.cacheReadTokens, cacheWriteTokens: usage.cacheWriteTokens });
  });

  test("a rewrite in the middle reads up to the last entry before the changed block (the prefix reading: up to the changed block) and counts a prefix break", () => {
    const clock = new VirtualClock();
    const sim = new PromptCacheSim({ ttlMs: 3000, now: clock.now });
    sim.account("s1", request("u".repeat(800), "a".repeat(400), "v".repeat(400)));
    clock.advance(1000);
    const rewritten = request("u".repeat(800), "stub", "v".repeat(400), "b", "w");
    const usage = sim.account("s1", rewritten);
    const chars = (n: number) => cacheBlocks(rewritten).blocks.slice(0, n).reduce((sum, b) => sum + b.length, 0);
    // Entries exist only at breakpoints: the system prompt's is the last one before the change.
    expect(usage.cacheReadTokens).toBe(Math.round(chars(1) / 4));
    expect(usage.prefix?.cacheReadTokens).toBe(Math.round(chars(2) / 4));
    expect(usage.prefixBreak).toBe(true);
  });

  test("after the TTL nothing is read, everything is written, and an expiry is not a prefix break", () => {
    const clock = new VirtualClock();
    const sim = new PromptCacheSim({ ttlMs: 3000, now: clock.now });
    sim.account("s1", request("u".repeat(800)));
    clock.advance(3001);
    const second = request("u".repeat(800), "a", "v");
    const usage = sim.account("s1", second);
    expect(usage).toMatchObject({ cacheReadTokens: 0, cacheWriteTokens: Math.round(charsOf(second) / 4), prefixBreak: false, expired: true });
  });

  test("each read refreshes the entry, so steady traffic keeps it warm past one TTL", () => {
    const clock = new VirtualClock();
    const sim = new PromptCacheSim({ ttlMs: 3000, now: clock.now });
    const turns = ["u".repeat(800)];
    sim.account("s1", request(...turns));
    for (let i = 0; i < 5; i++) {
      clock.advance(2000);
      turns.push("a", `v${i}`);
      expect(sim.account("s1", request(...turns)).cacheReadTokens).toBeGreaterThan(0);
    }
  });

  test("sessions do not share entries", () => {
    const sim = new PromptCacheSim({ ttlMs: 3000, now: new VirtualClock().now });
    sim.account("s1", request("u".repeat(800)));
    expect(sim.account("s2", request("u".repeat(800))).cacheReadTokens).toBe(0);
  });

  test("a request without any cache_control is plain input and caches nothing", () => {
    const sim = new PromptCacheSim({ ttlMs: 3000, now: new VirtualClock().now });
    const body = { system: [text("s".repeat(4400))], messages: [user("u".repeat(800))] };
    expect(sim.account("s1", body)).toMatchObject({ inputTokens: Math.round(charsOf(body) / 4), cacheReadTokens: 0, cacheWriteTokens: 0 });
    expect(sim.account("s1", body).cacheReadTokens).toBe(0);
  });

  test("blocks after the last breakpoint are billed as input", () => {
    const sim = new PromptCacheSim({ ttlMs: 3000, now: new VirtualClock().now });
    const body = { system: SYSTEM, messages: [user("u".repeat(800), true), assistant("a".repeat(400))] };
    const tail = cacheBlocks(body).blocks.at(-1)!.length;
    expect(sim.account("s1", body).inputTokens).toBe(Math.round(tail / 4));
  });

  test("a clock that went backwards counts as an expired cache", () => {
    const clock = new VirtualClock(10_000);
    const sim = new PromptCacheSim({ ttlMs: 3000, now: clock.now });
    sim.account("s1", request("u".repeat(800)));
    clock.advance(-5000);
    expect(sim.account("s1", request("u".repeat(800), "a", "v"))).toMatchObject({ cacheReadTokens: 0, expired: true });
  });

  test("tools come first in the cached prefix, as Anthropic orders them", () => {
    const { blocks, cacheable } = cacheBlocks({ tools: [{ name: "bash", cache_control: CC }], system: SYSTEM, messages: [user("go")] });
    expect(blocks[0]).toBe('tool:{"name":"bash"}');
    expect(cacheable).toBe(2);
  });
});

describe("Anthropic's breakpoint lookup, and the prefix reading beside it", () => {
  const blocksChars = (body: any, n: number) => cacheBlocks(body).blocks.slice(0, n).reduce((s, b) => s + b.length, 0);

  test("a request that extends the previous one by a few blocks reads all of it, as in the prefix reading", () => {
    const sim = new PromptCacheSim({ ttlMs: 3000, now: new VirtualClock().now });
    sim.account("s1", request("u".repeat(800)));
    const usage = sim.account("s1", request("u".repeat(800), "a", "v"));
    expect(usage.cacheReadTokens).toBe(usage.prefix!.cacheReadTokens);
  });

  test("a rewrite more than twenty blocks before the breakpoint reads only the system prompt", () => {
    const sim = new PromptCacheSim({ ttlMs: 3000, now: new VirtualClock().now });
    const turns = Array.from({ length: 25 }, (_, i) => `turn ${i} ${"x".repeat(200)}`);
    sim.account("s1", request(...turns));
    const rewritten = [...turns];
    rewritten[2] = "stub";
    const body = request(...rewritten);
    const usage = sim.account("s1", body);
    expect(usage.prefix!.cacheReadTokens).toBe(Math.round(blocksChars(body, 3) / 4));
    expect(usage.cacheReadTokens).toBe(Math.round(blocksChars(body, 1) / 4));
    expect(usage.cacheReadTokens + usage.cacheWriteTokens).toBe(usage.prefix!.cacheReadTokens + usage.prefix!.cacheWriteTokens);
  });

  test("a rewrite between two earlier breakpoints near the end reads up to the older one", () => {
    const sim = new PromptCacheSim({ ttlMs: 3000, now: new VirtualClock().now });
    sim.account("s1", request("u", "a", "v"));
    sim.account("s1", request("u", "a", "v", "b", "w"));
    const body = request("u", "a", "v", "stub", "w", "c", "x");
    expect(sim.account("s1", body).cacheReadTokens).toBe(Math.round(blocksChars(body, 4) / 4));
  });

  test("appending more than twenty blocks at once misses the previous entry", () => {
    const sim = new PromptCacheSim({ ttlMs: 3000, now: new VirtualClock().now });
    sim.account("s1", request("u"));
    const body = request("u", ...Array.from({ length: 24 }, (_, i) => `t${i}`));
    const usage = sim.account("s1", body);
    expect(usage.prefix!.cacheReadTokens).toBeGreaterThan(usage.cacheReadTokens);
    expect(usage.cacheReadTokens).toBe(Math.round(blocksChars(body, 1) / 4));
  });

  test("an expired entry is not read in either reading", () => {
    const clock = new VirtualClock();
    const sim = new PromptCacheSim({ ttlMs: 3000, now: clock.now });
    sim.account("s1", request("u"));
    clock.advance(3001);
    const usage = sim.account("s1", request("u", "a", "v"));
    expect([usage.cacheReadTokens, usage.prefix!.cacheReadTokens]).toEqual([0, 0]);
  });
});

describe("the fake provider with a simulated cache", () => {
  let fake: FakeLlm;
  const clock = new VirtualClock();
  beforeAll(async () => {
    fake = await startFakeLlm({ main: [{ text: "one" }, { text: "two" }] }, { cache: new PromptCacheSim({ ttlMs: 3000, now: clock.now }) });
  });
  afterAll(() => fake.close());

  const post = async (body: unknown) => {
    const res = await fetch(`${fake.baseUrl("anthropic-messages")}/v1/messages`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const frames = await res.text();
    const start = frames.split("\n").find((l) => l.startsWith("data: ") && l.includes('"message_start"'))!;
    return JSON.parse(start.slice(6)).message.usage;
  };

  test("message_start reports input, cache-read and cache-creation tokens the way Anthropic does", async () => {
    const first = await post({ model: "m", ...request("u".repeat(800)) });
    expect(first.cache_read_input_tokens).toBe(0);
    expect(first.cache_creation_input_tokens).toBeGreaterThan(0);
    const second = await post({ model: "m", ...request("u".repeat(800), "a", "v") });
    expect(second.cache_read_input_tokens).toBe(first.cache_creation_input_tokens);
    expect(fake.requests[1]!.cache?.cacheReadTokens).toBe(second.cache_read_input_tokens);
  });

  test("a summarizer request is billed under its own cache and leaves the main one intact", async () => {
    const usage = await post({ model: "m", system: SYSTEM, messages: [user(`${BATCH_MARKER}: [[1:bash]]`, true)] });
    const summarizer = fake.requests.at(-1)!;
    expect(summarizer.kind).toBe("summarizer");
    expect(usage.cache_read_input_tokens).toBe(0);
    expect(summarizer.cache?.cacheWriteTokens).toBeGreaterThan(0);
    const next = await post({ model: "m", ...request("u".repeat(800), "a", "v", "b", "w") });
    expect(next.cache_read_input_tokens).toBeGreaterThan(0);
    expect(fake.requests.at(-1)!.cache?.prefixBreak).toBe(false);
  });

  test("two summarizer calls with the same instructions read them from their cache", async () => {
    await post({ model: "m", system: SYSTEM, messages: [user(`${BATCH_MARKER}: [[2:bash]]`, true)] });
    expect(fake.requests.at(-1)!.cache?.cacheReadTokens).toBe(Math.round(cacheBlocks({ system: SYSTEM }).blocks[0]!.length / 4));
  });
});

describe("OpenAI's longest-prefix rule on the chat-completions wire", () => {
  const chat = (...turns: string[]) => ({ model: "m", messages: [{ role: "system", content: "s".repeat(6000) }, ...turns.map((t, i) => ({ role: i % 2 === 0 ? "user" : "assistant", content: t }))] });
  const total = (body: any) => Math.round(openAiCacheBlocks(body).reduce((n, b) => n + b.length, 0) / 4);

  test("a first request reads nothing and bills everything as input, with no cache write", () => {
    const sim = new PromptCacheSim({ ttlMs: 3000, now: new VirtualClock().now });
    const body = chat("u".repeat(800));
    expect(sim.account("s1", body, "openai-completions")).toMatchObject({ rule: "longest-prefix", inputTokens: total(body), cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  test("a request extending the previous one reads the shared prefix rounded down to 128 tokens", () => {
    const sim = new PromptCacheSim({ ttlMs: 3000, now: new VirtualClock().now });
    const first = chat("u".repeat(800));
    sim.account("s1", first, "openai-completions");
    const second = chat("u".repeat(800), "a", "v");
    const usage = sim.account("s1", second, "openai-completions");
    const shared = openAiCacheBlocks(first).reduce((n, b) => n + b.length, 0) / 4;
    expect(usage.cacheReadTokens).toBe(Math.floor(shared / 128) * 128);
    expect(usage.inputTokens + usage.cacheReadTokens).toBe(total(second));
    expect(usage.prefix).toBeUndefined();
  });

  test("a shared prefix under 1,024 tokens is not read", () => {
    const sim = new PromptCacheSim({ ttlMs: 3000, now: new VirtualClock().now });
    const small = { model: "m", messages: [{ role: "user", content: "u".repeat(2000) }] };
    sim.account("s1", small, "openai-completions");
    expect(sim.account("s1", { ...small, messages: [...small.messages, { role: "assistant", content: "a" }] }, "openai-completions").cacheReadTokens).toBe(0);
  });

  test("the fake streams the cached tokens inside prompt_tokens, as usage.prompt_tokens_details.cached_tokens", async () => {
    const fake = await startFakeLlm({ main: [{ text: "one" }, { text: "two" }] }, { cache: new PromptCacheSim({ ttlMs: 3000, now: new VirtualClock().now }) });
    try {
      const usageOf = async (body: unknown) => {
        const res = await fetch(`${fake.baseUrl("openai-completions")}/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
        const frames = (await res.text()).split("\n").filter((l) => l.startsWith("data: {"));
        return JSON.parse(frames.at(-1)!.slice(6)).usage;
      };
      await usageOf(chat("u".repeat(800)));
      const second = chat("u".repeat(800), "a", "v");
      const usage = await usageOf(second);
      expect(usage.prompt_tokens).toBe(total(second));
      expect(usage.prompt_tokens_details.cached_tokens).toBe(fake.requests[1]!.cache!.cacheReadTokens);
      expect(usage.prompt_tokens_details.cached_tokens).toBeGreaterThan(1024);
    } finally {
      await fake.close();
    }
  });
});

describe("an OpenAI chat-completions body carrying cache_control (the OpenRouter shape)", () => {
  /** pi-ai's three markers: the last tool, the system message, the last message's text. */
  const marked = (...turns: string[]) => ({
    model: "m",
    tools: [{ type: "function", function: { name: "read" }, cache_control: CC }],
    messages: [
      { role: "system", content: [text("s".repeat(6000), true)] },
      ...turns.map((t, i) => ({ role: i % 2 === 0 ? "user" : "assistant", content: i === turns.length - 1 ? [text(t, true)] : t })),
    ],
  });

  test("is billed by the breakpoint rule: the first request writes up to its last marker and reads nothing", () => {
    const sim = new PromptCacheSim({ ttlMs: 3000, now: new VirtualClock().now });
    const usage = sim.account("s1", marked("u".repeat(800)), "openai-completions");
    expect(usage.rule).toBe("anthropic-breakpoints");
    expect(usage.cacheReadTokens).toBe(0);
    expect(usage.cacheWriteTokens).toBeGreaterThan(1500);
  });

  test("a request that extends it reads what it wrote and writes only the new part", () => {
    const sim = new PromptCacheSim({ ttlMs: 3000, now: new VirtualClock().now });
    const first = sim.account("s1", marked("u".repeat(800)), "openai-completions");
    const second = sim.account("s1", marked("u".repeat(800), "a".repeat(400), "v".repeat(400)), "openai-completions");
    expect(second.cacheReadTokens).toBe(first.cacheWriteTokens);
    expect(second.cacheWriteTokens).toBeGreaterThan(150);
    expect(second.inputTokens).toBe(0);
  });

  test("the fake reports the write as cache_write_tokens inside prompt_tokens, as OpenRouter does", async () => {
    const fake = await startFakeLlm({ main: [{ text: "one" }] }, { cache: new PromptCacheSim({ ttlMs: 3000, now: new VirtualClock().now }) });
    try {
      const body = marked("u".repeat(800));
      const res = await fetch(`${fake.baseUrl("openai-completions")}/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      const usage = JSON.parse((await res.text()).split("\n").filter((l) => l.startsWith("data: {")).at(-1)!.slice(6)).usage;
      const billed = fake.requests[0]!.cache!;
      expect(usage.prompt_tokens_details).toEqual({ cached_tokens: 0, cache_write_tokens: billed.cacheWriteTokens });
      expect(usage.prompt_tokens).toBe(billed.inputTokens + billed.cacheWriteTokens);
    } finally {
      await fake.close();
    }
  });

  test("a fifth marker is refused as the provider would", async () => {
    const fake = await startFakeLlm({ main: [{ text: "one" }] });
    try {
      const body = marked("u");
      body.messages.push({ role: "assistant", content: [text("a", true)] }, { role: "user", content: [text("v", true)] });
      const res = await fetch(`${fake.baseUrl("openai-completions")}/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      expect(res.status).toBe(400);
      expect(fake.requests[0]!.rejected).toBe("at most 4 blocks may carry cache_control; this request has 5");
    } finally {
      await fake.close();
    }
  });
});

describe("the minimum cacheable prefix of the priced model", () => {
  test("a request under the model's minimum is not cached under the breakpoint rule, while the prefix reading still reads it", () => {
    const clock = new VirtualClock();
    const sim = new PromptCacheSim({ ttlMs: 3000, now: clock.now, modelIds: { m: "claude-haiku-4-5" } });
    const body = { model: "m", system: [text("s".repeat(8000), true)], messages: [user("u", true)] };
    sim.account("s1", body);
    const usage = sim.account("s1", { ...body, messages: [user("u"), assistant("a"), user("v", true)] });
    // 2,000 tokens: over Sonnet 4.5's 1,024, under Haiku 4.5's 4,096.
    expect(usage.cacheReadTokens).toBe(0);
    expect(usage.cacheWriteTokens).toBe(0);
    expect(usage.prefix!.cacheReadTokens).toBeGreaterThan(2000);
    const sonnet = new PromptCacheSim({ ttlMs: 3000, now: clock.now, modelIds: { m: "claude-sonnet-4-5" } });
    sonnet.account("s1", body);
    expect(sonnet.account("s1", { ...body, messages: [user("u"), assistant("a"), user("v", true)] }).cacheReadTokens).toBeGreaterThan(2000);
  });
});
