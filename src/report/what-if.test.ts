import { describe, expect, test } from "bun:test";
import type { SessionEntry } from "@earendil-works/pi-coding-agent";
import { DEFAULT_CONFIG, type ContextPruneConfig } from "../types.js";
import { buildRequests } from "./requests.js";
import { whatIfScenario } from "./what-if.js";

const ESTIMATE = { ratio: 0.1, samples: 0, meanAbsError: undefined, realChars: 0, rawChars: 0 };

/** `prompts` user prompts, each one bash call with a 2,000-char output and a text reply, a minute apart. */
function session(prompts: number, tool = "bash"): SessionEntry[] {
  const entries: any[] = [];
  let time = 1_000_000;
  const add = (message: any) => {
    time += 60_000;
    entries.push({ type: "message", id: `e${entries.length}`, parentId: entries.length ? `e${entries.length - 1}` : null, timestamp: new Date(time).toISOString(), message: { ...message, timestamp: time } });
  };
  for (let p = 0; p < prompts; p++) {
    add({ role: "user", content: `task ${p}` });
    add({ role: "assistant", content: [{ type: "toolCall", id: `c${p}`, name: tool, arguments: { command: `run ${p}` } }] });
    add({ role: "toolResult", toolCallId: `c${p}`, toolName: tool, content: [{ type: "text", text: `${p}:`.padEnd(2000, "x") }], isError: false });
    add({ role: "assistant", content: [{ type: "text", text: `done ${p}` }] });
  }
  return entries;
}

async function lastRequest(entries: SessionEntry[], config: Partial<ContextPruneConfig> = {}) {
  const scenario = whatIfScenario({ ...DEFAULT_CONFIG, enabled: true, ...config }, ESTIMATE, 200_000, "what-if");
  const requests = buildRequests(entries);
  let last: any[] = [];
  for (const request of requests) last = await scenario.messagesAt(request);
  return { messages: last, summarizer: scenario.summarizer(), bare: requests.at(-1)!.bare.length };
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
