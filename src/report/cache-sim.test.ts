import { describe, expect, test } from "bun:test";
import { CacheSim, messageChars } from "./cache-sim.js";

const user = (text: string) => ({ role: "user", content: text });
const a = user("a".repeat(100));
const b = user("b".repeat(200));
const c = user("c".repeat(300));
const request = (time: number, messages: any[], systemVersion = 1) => ({ time, messages, systemChars: 50, systemVersion });

describe("CacheSim", () => {
  test("the first request writes everything and is cold", () => {
    const step = new CacheSim(1000).step(request(0, [a]));
    expect(step).toEqual({ chars: 50 + messageChars(a), cachedChars: 0, prefixBreak: false, cold: true });
  });

  test("a request that extends the previous one within the TTL reads the shared prefix", () => {
    const sim = new CacheSim(1000);
    sim.step(request(0, [a, b]));
    const step = sim.step(request(500, [a, b, c]));
    expect(step.cachedChars).toBe(50 + messageChars(a) + messageChars(b));
    expect(step.prefixBreak).toBe(false);
    expect(step.cold).toBe(false);
  });

  test("an equal copy of a message counts as the same prefix", () => {
    const sim = new CacheSim(1000);
    sim.step(request(0, [a]));
    expect(sim.step(request(1, [{ ...a }, b])).cachedChars).toBe(50 + messageChars(a));
  });

  test("after the TTL nothing is read and it is no prefix break", () => {
    const sim = new CacheSim(1000);
    sim.step(request(0, [a]));
    const step = sim.step(request(1001, [a, b]));
    expect(step.cachedChars).toBe(0);
    expect(step.cold).toBe(true);
    expect(step.prefixBreak).toBe(false);
  });

  test("rewriting a cached message reads only up to it and counts a prefix break", () => {
    const sim = new CacheSim(1000);
    sim.step(request(0, [a, b]));
    const step = sim.step(request(10, [a, c]));
    expect(step.cachedChars).toBe(50 + messageChars(a));
    expect(step.prefixBreak).toBe(true);
  });

  test("a changed system prompt breaks the prefix at its start", () => {
    const sim = new CacheSim(1000);
    sim.step(request(0, [a], 1));
    const step = sim.step(request(10, [a, b], 2));
    expect(step.cachedChars).toBe(0);
    expect(step.prefixBreak).toBe(true);
  });

  test("a clock that goes backwards is treated as cold", () => {
    const sim = new CacheSim(1000);
    sim.step(request(500, [a]));
    expect(sim.step(request(100, [a, b])).cold).toBe(true);
  });
});
