import { describe, expect, test } from "bun:test";
import { cacheRouteOf } from "../economics/cache-route.js";
import { cacheSetup, CachePricer, type CacheSetup } from "./cache-sim.js";
import { messageChars } from "./request-blocks.js";

const user = (text: string) => ({ role: "user", content: text });
const a = user("a".repeat(100));
const b = user("b".repeat(200));
const c = user("c".repeat(300));
const request = (time: number, messages: any[], systemVersion = 1) => ({ time, messages, systemChars: 50, systemVersion });
const prefix: CacheSetup = { rule: "longest-prefix", options: { ttlMs: 1000, minTokens: 0 } };
const anthropic: CacheSetup = { rule: "anthropic-breakpoints", options: { ttlMs: 1000, minTokens: 0 } };
const pricer = (setup = prefix, spare = false) => new CachePricer(setup, spare, false);

describe("the rule and its sizes in chars", () => {
  test("an Anthropic session follows breakpoints, its minimum scaled at 4 chars per token", () => {
    expect(cacheSetup(cacheRouteOf({ api: "anthropic-messages", provider: "anthropic", id: "claude-sonnet-4-5" }), 300_000)).toEqual({ rule: "anthropic-breakpoints", options: { ttlMs: 300_000, minTokens: 4096 } });
  });

  test("an OpenAI session follows the longest prefix, minimum and increment scaled at 4 chars per token", () => {
    expect(cacheSetup(cacheRouteOf({ api: "openai-responses", provider: "openai", id: "gpt-5" }), 300_000)).toEqual({ rule: "longest-prefix", options: { ttlMs: 300_000, minTokens: 4096, increment: 512 } });
  });
});

describe("the longest-prefix rule over replayed requests", () => {
  test("the first request writes everything and is cold", () => {
    const { step } = pricer().step(request(0, [a]));
    expect(step).toEqual({ chars: 50 + messageChars(a), cachedChars: 0, writtenChars: 50 + messageChars(a), prefixBreak: false, cold: true, lookbackMiss: false });
  });

  test("a request that extends the previous one within the TTL reads the shared prefix", () => {
    const sim = pricer();
    sim.step(request(0, [a, b]));
    const { step } = sim.step(request(500, [a, b, c]));
    expect(step.cachedChars).toBe(50 + messageChars(a) + messageChars(b));
    expect(step.prefixBreak).toBe(false);
    expect(step.cold).toBe(false);
  });

  test("an equal copy of a message counts as the same prefix", () => {
    const sim = pricer();
    sim.step(request(0, [a]));
    expect(sim.step(request(1, [{ ...a }, b])).step.cachedChars).toBe(50 + messageChars(a));
  });

  test("after the TTL nothing is read and it is no prefix break", () => {
    const sim = pricer();
    sim.step(request(0, [a]));
    const { step } = sim.step(request(1001, [a, b]));
    expect(step.cachedChars).toBe(0);
    expect(step.cold).toBe(true);
    expect(step.prefixBreak).toBe(false);
  });

  test("rewriting a cached message reads only up to it and counts a prefix break", () => {
    const sim = pricer();
    sim.step(request(0, [a, b]));
    const { step } = sim.step(request(10, [a, c]));
    expect(step.cachedChars).toBe(50 + messageChars(a));
    expect(step.prefixBreak).toBe(true);
  });

  test("a changed system prompt breaks the prefix at its start", () => {
    const sim = pricer();
    sim.step(request(0, [a], 1));
    const { step } = sim.step(request(10, [a, b], 2));
    expect(step.cachedChars).toBe(0);
    expect(step.prefixBreak).toBe(true);
  });

  test("a clock that goes backwards is treated as cold", () => {
    const sim = pricer();
    sim.step(request(500, [a]));
    expect(sim.step(request(100, [a, b])).step.cold).toBe(true);
  });
});

/** A conversation of `turns` tool turns: an assistant with one tool call and its result, each 100-char output. */
function conversation(turns: number): any[] {
  const messages: any[] = [user("start")];
  for (let t = 0; t < turns; t++) {
    messages.push({ role: "assistant", content: [{ type: "toolCall", id: `c${t}`, name: "bash", arguments: {} }] });
    messages.push({ role: "toolResult", toolCallId: `c${t}`, toolName: "bash", content: [{ type: "text", text: "x".repeat(100) }], isError: false });
  }
  return messages;
}

describe("Anthropic's breakpoint rule over replayed requests", () => {
  test("a turn that adds more than 20 blocks with nothing rewritten is a lookback miss, not a prefix break", () => {
    const sim = pricer(anthropic);
    const all = conversation(20);
    sim.step(request(0, all.slice(0, 3)));
    const { step } = sim.step(request(10, all));
    expect(step.prefixBreak).toBe(false);
    expect(step.lookbackMiss).toBe(true);
    expect(step.cachedChars).toBe(50);
  });

  test("the spare breakpoint reads past the same long turn", () => {
    const sim = pricer(anthropic, true);
    const all = conversation(20);
    const first = sim.step(request(0, all.slice(0, 3))).step;
    const { step } = sim.step(request(10, all));
    expect(step.cachedChars).toBe(first.chars);
    expect(step.lookbackMiss).toBe(false);
  });

  test("the alternative bills the same requests with the spare breakpoint the other way", () => {
    const sim = new CachePricer(anthropic, true, true);
    const all = conversation(20);
    sim.step(request(0, all.slice(0, 3)));
    const both = sim.step(request(10, all));
    expect(both.step.cachedChars).toBeGreaterThan(both.alternative!.cachedChars);
    expect(both.alternative!.chars).toBe(both.step.chars);
  });

  test("under the minimum nothing is cached: the request is billed as plain input", () => {
    const sim = new CachePricer({ rule: "anthropic-breakpoints", options: { ttlMs: 1000, minTokens: 100_000 } }, false, false);
    const { step } = sim.step(request(0, [a, b]));
    expect(step.cachedChars + step.writtenChars).toBe(0);
  });
});

describe("the spare breakpoint keeps the next rewrite point alive", () => {
  const call = (id: string) => ({ role: "assistant", content: [{ type: "toolCall", id, name: "read", arguments: { path: id } }] });
  const result = (id: string, text: string) => ({ role: "toolResult", toolCallId: id, toolName: "read", content: [{ type: "text", text }], isError: false });
  const ids = Array.from({ length: 30 }, (_, i) => `t${i}`);
  const prompt = user("p".repeat(400));
  const raw = ids.flatMap((id) => [call(id), result(id, `${id} `.repeat(200))]);
  const stubbed = ids.flatMap((id, i) => [raw[2 * i], result(id, `[${id}] stub`)]);

  /** A run of 30 tool turns 100 ms apart (three cache lifetimes), then the request whose outputs are stubs. */
  function rewriteRead(pending: boolean): number {
    const sim = pricer(anthropic, true);
    const waiting = () => new Set(ids);
    for (let n = 1; n <= 30; n++) sim.step({ ...request(n * 100, [prompt, ...raw.slice(0, 2 * n)]), ...(pending ? { pending: waiting } : {}) });
    return sim.step(request(3_100, [prompt, ...stubbed, user("next")])).step.cachedChars;
  }

  test("with the waiting outputs known, the rewrite reads everything before the first of them", () => {
    expect(rewriteRead(true)).toBe(50 + messageChars(prompt) + messageChars(raw[0]));
  });

  test("without them the entry before the first output has expired and only a later one could be read", () => {
    expect(rewriteRead(false)).toBeLessThan(rewriteRead(true));
  });
});
