import { describe, expect, test } from "bun:test";
import type { SessionEntry } from "@earendil-works/pi-coding-agent";
import { DEFAULT_CONFIG, type ContextPruneConfig } from "../settings/config-shape.js";
import { buildRequests } from "./requests.js";
import { type WhatIfPolicy, whatIfScenario } from "./what-if.js";
import { costModelFor } from "../economics/cost-model.js";

const ESTIMATE = { ratio: 0.1, samples: 0, meanAbsError: undefined, realChars: 0, rawChars: 0 };

/** `prompts` user prompts, each one bash call with a 2,000-char output and a text reply, a minute apart (`pauseMs` more before each later prompt). */
function session(prompts: number, tool = "bash", pauseMs = 0, outputChars = 2000): SessionEntry[] {
  const entries: any[] = [];
  let time = 1_000_000;
  const add = (message: any) => {
    time += 60_000 + (message.role === "user" && entries.length > 0 ? pauseMs : 0);
    entries.push({ type: "message", id: `e${entries.length}`, parentId: entries.length ? `e${entries.length - 1}` : null, timestamp: new Date(time).toISOString(), message: { ...message, timestamp: time } });
  };
  for (let p = 0; p < prompts; p++) {
    add({ role: "user", content: `task ${p}` });
    add({ role: "assistant", content: [{ type: "toolCall", id: `c${p}`, name: tool, arguments: { command: `run ${p}` } }] });
    add({ role: "toolResult", toolCallId: `c${p}`, toolName: tool, content: [{ type: "text", text: `${p}:`.padEnd(outputChars, "x") }], isError: false });
    add({ role: "assistant", content: [{ type: "text", text: `done ${p}` }] });
  }
  return entries;
}

async function lastRequest(entries: SessionEntry[], config: Partial<ContextPruneConfig> = {}, policy?: WhatIfPolicy) {
  const scenario = whatIfScenario({ ...DEFAULT_CONFIG, enabled: true, ...config }, ESTIMATE, 200_000, "what-if", policy);
  const requests = buildRequests(entries);
  let last: any[] = [];
  for (const request of requests) last = await scenario.messagesAt(request);
  return { messages: last, summarizer: scenario.summarizer(), bare: requests.at(-1)!.bare.length, bets: scenario.bets?.() };
}

const has = (messages: any[], part: string) => JSON.stringify(messages).includes(part);

describe("the what-if run", () => {
  test("each final reply but the last flushes its prompt's tool output: the last request holds stubs and summaries", async () => {
    const { messages, summarizer } = await lastRequest(session(3), { chainCompression: { ...DEFAULT_CONFIG.chainCompression, enabled: false } });
    // The last reply's flush would come after the last request: nothing reads it.
    expect(summarizer.calls).toBe(2);
    expect(has(messages, "[Summarized in pruner summary, ref `t1`")).toBe(true);
    expect(messages.filter((m) => m.role === "custom" && m.customType === "context-prune-summary")).toHaveLength(2);
  });

  test("with chain compression on, closed chains beyond the rolling window become one compressed block", async () => {
    const { messages, bare } = await lastRequest(session(8));
    expect(has(messages, '<compressed-chain id=\\"b1\\"')).toBe(true);
    expect(messages.length).toBeLessThan(bare);
  });

  test("with chain compression off, no chain is compressed", async () => {
    const { messages } = await lastRequest(session(8), { chainCompression: { ...DEFAULT_CONFIG.chainCompression, enabled: false } });
    expect(has(messages, "<compressed-chain")).toBe(false);
  });

  test("on-demand pruning never flushes: the what-if sends what pi alone sends", async () => {
    const { messages, summarizer, bare } = await lastRequest(session(3), { pruneOn: "on-demand" });
    expect(summarizer.calls).toBe(0);
    expect(messages).toHaveLength(bare);
  });

  test("batches under minBatchChars stay whole", async () => {
    const { summarizer } = await lastRequest(session(3), { minBatchChars: 5000 });
    expect(summarizer.calls).toBe(0);
  });

  test("protected tools are left out of every batch", async () => {
    const { messages, summarizer } = await lastRequest(session(3, "todoread"), { protectedTools: ["todoread"] });
    expect(summarizer.calls).toBe(0);
    expect(has(messages, "0:xxxx")).toBe(true);
  });
});

describe("the what-if run with the cost policy", () => {
  const priced = (id: string, cost: Record<string, number>) => costModelFor({ id, provider: "anthropic", api: "anthropic-messages", cost, promptCache: { short: 300 } } as any);
  const POLICY: WhatIfPolicy = {
    main: priced("claude-sonnet-4-5", { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }),
    summarizer: priced("claude-haiku-4-5", { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 }),
  };
  const NO_CHAINS = { chainCompression: { ...DEFAULT_CONFIG.chainCompression, enabled: false } };

  test("a warm cache defers the flushes that do not pay, which 2.9.1's timing makes anyway, until waiting has cost what they owed", async () => {
    // Outputs barely longer than their stubs: rewriting the cache for them does not pay back soon.
    const classic = await lastRequest(session(3, "bash", 0, 1200), NO_CHAINS);
    const cost = await lastRequest(session(3, "bash", 0, 1200), NO_CHAINS, POLICY);
    expect(classic.summarizer.calls).toBe(2);
    // The first reply waits; by the next reply waiting has cost what the rewrite owed, and the bound makes it.
    const deferred = cost.bets!.deferrals.filter((d) => d.kind === "reply");
    expect(deferred.length).toBeGreaterThan(0);
    expect(deferred.some((d) => d.bound)).toBe(true);
    expect(deferred.every((d) => d.regret <= d.owed + d.step)).toBe(true);
    expect(cost.summarizer.calls).toBeGreaterThan(0);
  });

  test("a flush that pays over the session's requests is applied at the reply, as 2.9.1 would", async () => {
    const cost = await lastRequest(session(3), NO_CHAINS, POLICY);
    expect(cost.summarizer.calls).toBe(2);
  });

  test("a prompt after the cache's lifetime first flushes what waited: its request already holds the stubs", async () => {
    const { messages, summarizer } = await lastRequest(session(3, "bash", 10 * 60_000), NO_CHAINS, POLICY);
    expect(summarizer.calls).toBeGreaterThan(0);
    expect(has(messages, "[Summarized in pruner summary, ref `t1`")).toBe(true);
  });

  test("past contextPressure a tool turn's output is flushed whatever the cache says", async () => {
    const { summarizer } = await lastRequest(session(3), { ...NO_CHAINS, contextPressure: 0.001 }, POLICY);
    expect(summarizer.calls).toBeGreaterThan(0);
  });
});

describe("the what-if's chain pass under the cost policy", () => {
  /** `prompts` prompts of 20 tool calls each, 2 s apart: warm throughout, under the pressure line. */
  function busySession(prompts: number): SessionEntry[] {
    const entries: any[] = [];
    let time = 1_000_000;
    const add = (message: any) => {
      time += 2_000;
      entries.push({ type: "message", id: `e${entries.length}`, parentId: entries.length ? `e${entries.length - 1}` : null, timestamp: new Date(time).toISOString(), message: { ...message, timestamp: time } });
    };
    for (let p = 0; p < prompts; p++) {
      add({ role: "user", content: `task ${p}` });
      for (let k = 0; k < 20; k++) {
        add({ role: "assistant", content: [{ type: "toolCall", id: `c${p}_${k}`, name: "bash", arguments: { command: `run ${p} ${"y".repeat(500)}` } }] });
        add({ role: "toolResult", toolCallId: `c${p}_${k}`, toolName: "bash", content: [{ type: "text", text: `${p}:`.padEnd(3000, "x") }], isError: false });
      }
      add({ role: "assistant", content: [{ type: "text", text: `done ${p}` }] });
    }
    return entries;
  }
  const priced = (id: string, cost: Record<string, number>) => costModelFor({ id, provider: "anthropic", api: "anthropic-messages", cost, promptCache: { short: 300 } } as any);
  const main = priced("claude-sonnet-4-5", { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 });
  const cheap = priced("claude-haiku-4-5", { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 });
  // A summarizer so dear that no range summary pays back: the batch flush is weighed without it after the reply.
  const dear = priced("dear", { input: 5_000, output: 25_000, cacheRead: 500, cacheWrite: 6_250 });

  test("a warm flush that pays compresses the closed chains when that pays too", async () => {
    const { messages } = await lastRequest(busySession(5), {}, { main, summarizer: cheap });
    expect(has(messages, "<compressed-chain")).toBe(true);
  });

  test("and leaves them when compressing them does not pay", async () => {
    const { messages, summarizer } = await lastRequest(busySession(5), {}, { main, summarizer: dear });
    expect(summarizer.calls).toBeGreaterThan(0);
    expect(has(messages, "<compressed-chain")).toBe(false);
  });
});
