// The spare cache breakpoint through index.ts: every rendered request goes to `before_provider_request` as
// the Anthropic body pi-ai would build from it; after a flush stubs outputs deep in the conversation, the
// next request carries a fourth marker on the block right before the first stub.
import { afterAll, describe, expect, mock, test } from "bun:test";
import * as actualCompat from "@earendil-works/pi-ai/compat";
import { makeAgentDir, msgEntry, streamReply } from "../../test/fake-host.js";
import { type SimCall, startSim, type Sim } from "../../test/session-sim.js";

mock.module("@earendil-works/pi-ai/compat", () => ({
  ...actualCompat,
  stream: (_model: any, context: any) => {
    const prompt: string = context.messages[0].content[0].text;
    const labels = [...new Set(prompt.match(/\[\[\d+:[^\]\s]+\]\]/g) ?? [])];
    return streamReply(labels.map((l) => `- ${l} read the file`).join("\n") || "- summary");
  },
}));

const cleanups: Array<() => void> = [];
afterAll(() => cleanups.forEach((fn) => fn()));

const CC = { type: "ephemeral" };
const SONNET = { id: "claude-sonnet-4-5", provider: "anthropic", api: "anthropic-messages" };
const WARM = { input: 50, cacheRead: 20_000, cacheWrite: 500 };
const SYSTEM = "You are a careful coding agent. ".repeat(200);
const RAW = "raw output line\n";

const convertBlock = (b: any): any => {
  if (b.type === "toolCall") return { type: "tool_use", id: b.id, name: b.name, input: b.arguments };
  if (b.type === "image") return { type: "image", source: { type: "base64", media_type: b.mimeType, data: b.data } };
  return { type: "text", text: b.text };
};

/** The body pi-ai builds for these messages with an API key: tools, system, messages; three markers. */
function anthropicBody(messages: any[]): any {
  const out: any[] = [];
  for (const m of messages) {
    if (m.role === "toolResult") {
      const block = { type: "tool_result", tool_use_id: m.toolCallId, content: m.content.map(convertBlock), is_error: m.isError };
      const last = out.at(-1);
      if (last?.role === "user" && Array.isArray(last.content) && last.content.every((b: any) => b.type === "tool_result")) last.content.push(block);
      else out.push({ role: "user", content: [block] });
    } else if (m.role === "assistant") {
      out.push({ role: "assistant", content: m.content.map(convertBlock) });
    } else {
      out.push({ role: "user", content: typeof m.content === "string" ? m.content : m.content.map(convertBlock) });
    }
  }
  const last = out.at(-1);
  if (typeof last.content === "string") last.content = [{ type: "text", text: last.content }];
  last.content.at(-1).cache_control = { ...CC };
  return {
    model: SONNET.id,
    max_tokens: 8000,
    stream: true,
    system: [{ type: "text", text: SYSTEM, cache_control: { ...CC } }],
    tools: [{ name: "read", description: "Read a file", input_schema: { type: "object" }, cache_control: { ...CC } }],
    messages: out,
  };
}

interface Sent {
  payload: any;
  result: unknown;
}

/** A session on an Anthropic model whose every render is followed by pi's `before_provider_request`. */
async function started(contextPrune: Record<string, unknown>): Promise<{ sim: Sim; sent: Sent[] }> {
  const agent = makeAgentDir({ enabled: true, flushPolicy: "classic", ...contextPrune });
  cleanups.push(agent.cleanup);
  process.env.PI_CODING_AGENT_DIR = agent.dir;
  const sim = await startSim();
  (sim.ctx as any).model = SONNET;
  const sent: Sent[] = [];
  const render = sim.host.handlers.get("context")!;
  sim.host.handlers.set("context", async (event: any, ctx: any) => {
    const rendered: any = await render(event, ctx);
    const payload = anthropicBody(rendered?.messages ?? event.messages);
    const result = await sim.host.handlers.get("before_provider_request")!({ type: "before_provider_request", payload }, ctx);
    sent.push({ payload, result });
    return rendered;
  });
  return { sim, sent };
}

const read = (id: string, lines: number): SimCall => ({ id, name: "read", args: { path: `/src/${id}.ts` }, text: RAW.repeat(lines) });
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

/** Blocks in the cache's order, each with its own marker state. */
const flat = (body: any): any[] => [...body.tools, ...body.system, ...body.messages.flatMap((m: any) => (typeof m.content === "string" ? [m.content] : m.content))];
const isStub = (b: any) => b?.type === "tool_result" && !String(b.content?.[0]?.text ?? "").startsWith(RAW);

/** Three short turns (left raw), then twelve long ones, summarized at the final reply; then the next prompt's request. */
async function afterDeepFlush(contextPrune: Record<string, unknown>) {
  const { sim, sent } = await started(contextPrune);
  await sim.prompt({ turns: [[read("s1", 10)], [read("s2", 10)], [read("s3", 10)]], usage: WARM });
  const turns = Array.from({ length: 12 }, (_, i) => [read(`big${i}`, 150)]);
  await sim.prompt({ turns, usage: WARM });
  await settle();
  sim.fake.branch.push(msgEntry({ role: "user", content: [{ type: "text", text: "and now?" }], timestamp: sim.now() + 10 }));
  await sim.render();
  return { sim, sent };
}

describe("the spare cache breakpoint through index.ts", () => {
  test("after a flush stubs outputs deep in the conversation, the next request marks the block right before the first stub", async () => {
    const { sent } = await afterDeepFlush({});
    const last = sent.at(-1)!;
    const blocks = flat(last.payload);
    const first = blocks.findIndex(isStub);
    expect(first).toBe(12);
    expect(blocks.length - first).toBeGreaterThan(20);
    const out = flat(last.result as any);
    expect(out[first - 1]).toEqual({ ...blocks[first - 1], cache_control: CC });
    expect(blocks[first - 1]).toMatchObject({ type: "tool_use", id: "big0" });
    expect(out.filter((b: any) => b?.cache_control).length).toBe(4);
  });

  test("while outputs wait to be summarized, each request keeps a marker right before the first of them", async () => {
    const { sent } = await afterDeepFlush({});
    // The long run's requests once big0's output exists and waits (the first prompt's short outputs were summarized).
    const waiting = sent.filter((s) => flat(s.payload).some((b: any) => b?.type === "tool_result" && b.tool_use_id === "big0" && !isStub(b)));
    expect(waiting.length).toBeGreaterThan(5);
    for (const s of waiting) {
      const out = flat(s.result as any);
      const at = out.findIndex((b: any) => b?.type === "tool_use" && b.id === "big0");
      expect(out[at]?.cache_control).toEqual(CC);
    }
  });

  test("once the window is full, each request keeps a marker right before the chain compressed next", async () => {
    const { sim, sent } = await started({});
    for (let p = 1; p <= 3; p++) {
      await sim.prompt({ turns: [[read(`c${p}`, 10)]], usage: WARM });
      await settle();
    }
    const before = sent.length;
    await sim.prompt({ turns: [[read("c4", 10)], [read("c5", 10)]], usage: WARM });
    const fourth = sent.slice(before).filter((s) => flat(s.payload).some((b: any) => b?.type === "tool_use" && b.id === "c5"));
    expect(fourth.length).toBeGreaterThan(0);
    for (const s of fourth) {
      const out = flat(s.result as any);
      const call = out.findIndex((b: any) => b?.type === "tool_use" && b.id === "c1");
      // The first prompt's chain is the next to be compressed: its block replaces everything after the prompt.
      expect(out[call - 1]).toMatchObject({ type: "text", text: expect.any(String), cache_control: CC });
    }
  });

  test("with the setting off, every request goes out as it was built", async () => {
    const { sent } = await afterDeepFlush({ cacheBreakpoint: false });
    expect(flat(sent.at(-1)!.payload).some(isStub)).toBe(true);
    expect(sent.length).toBeGreaterThan(15);
    expect(sent.every((s) => s.result === undefined)).toBe(true);
  });
});
