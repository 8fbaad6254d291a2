/**
 * The purged history goes through pi-ai's real request building for a
 * grammar-constrained tool: Chat Completions replays a call of such a tool as a
 * custom tool call whose input must be a string (`getGrammarToolInput`), so a
 * purge that drops the string argument fails every later request before any
 * byte is sent.
 */
import { describe, expect, test } from "bun:test";
import type { AssistantMessage, Context, Model, Tool } from "@earendil-works/pi-ai";
import { streamSimple } from "@earendil-works/pi-ai/compat";
import { ToolCallIndexer } from "../archive/indexer.js";
import { pruneMessages } from "./pruner.js";

const PURGE = { enabled: true, cooldownTurns: 2, minArgChars: 500 };

const grammarModel: Model<"openai-completions"> = {
  id: "grammar-model",
  name: "Grammar model",
  api: "openai-completions",
  provider: "grammar-test",
  // Nothing listens here; the stub fetch below stands in for the refused connection.
  baseUrl: "http://127.0.0.1:9/v1",
  input: ["text"],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  reasoning: false,
  contextWindow: 128_000,
  maxTokens: 4096,
  compat: { supportsOpenAIGrammarTools: true },
};

const codemode: Tool = {
  name: "codemode",
  description: "Runs a code snippet.",
  parameters: { type: "object", properties: { code: { type: "string" } }, required: ["code"] },
  constrainedSampling: { type: "grammar", variants: { openai_lark: "start: /[\\s\\S]+/" } },
};

const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };

function assistant(ts: number, content: AssistantMessage["content"], stopReason: AssistantMessage["stopReason"]): AssistantMessage {
  return { role: "assistant", content, api: "openai-completions", provider: "grammar-test", model: "grammar-model", usage, stopReason, timestamp: ts };
}

/** A failed codemode call with a 1000-char body, then two more assistant turns so the cooldown has passed. */
function historyWithFailedCodemode(): any[] {
  return [
    { role: "user", content: "compute it", timestamp: 1 },
    assistant(2, [{ type: "toolCall", id: "call_cm1", name: "codemode", arguments: { code: "x".repeat(1000) } }], "toolUse"),
    { role: "toolResult", toolCallId: "call_cm1", toolName: "codemode", content: [{ type: "text", text: "SyntaxError" }], isError: true, timestamp: 3 },
    assistant(4, [{ type: "text", text: "That failed; let me think." }], "stop"),
    { role: "user", content: "go on", timestamp: 5 },
    assistant(6, [{ type: "text", text: "Still thinking." }], "stop"),
    { role: "user", content: "and now?", timestamp: 7 },
  ];
}

/** Sends `messages` through pi-ai with a fetch that refuses every connection, and counts the attempts. */
async function send(messages: any[]): Promise<{ result: AssistantMessage; fetchCalls: number; bodies: any[] }> {
  let fetchCalls = 0;
  const bodies: any[] = [];
  const refusingFetch = (async (_url: unknown, init?: { body?: unknown }) => {
    fetchCalls++;
    if (typeof init?.body === "string") bodies.push(JSON.parse(init.body));
    throw new TypeError("fetch failed");
  }) as unknown as typeof fetch;
  const context: Context = { systemPrompt: "You are terse.", messages, tools: [codemode] };
  const result = await streamSimple(grammarModel, context, { apiKey: "test-key", fetch: refusingFetch, maxRetries: 0 }).result();
  return { result, fetchCalls, bodies };
}

describe("error purge through pi-ai's grammar tool replay", () => {
  test("the render actually purges the failed codemode call", () => {
    const out = pruneMessages(historyWithFailedCodemode(), new ToolCallIndexer(), undefined, PURGE);
    expect(out.pruned).toBe(true);
    expect(out.messages[1].content[0].arguments).toEqual({ code: '<purged-errored-args size="1000"/>' });
  });

  test("a purged history reaches the network: a connection error after exactly one fetch", async () => {
    const rendered = pruneMessages(historyWithFailedCodemode(), new ToolCallIndexer(), undefined, PURGE).messages;
    const { result, fetchCalls, bodies } = await send(rendered);
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toContain("Connection error");
    expect(fetchCalls).toBe(1);
    const replayed = bodies[0].messages.flatMap((m: any) => m.tool_calls ?? []);
    expect(replayed).toEqual([
      { id: "call_cm1", type: "custom", custom: { name: "codemode", input: '<purged-errored-args size="1000"/>' } },
    ]);
  });

  test("control: the old whole-arguments marker fails at request building and never fetches", async () => {
    const history = historyWithFailedCodemode();
    const oldShape = { _purged: '<purged-errored-args size="1011"/>' };
    history[1] = { ...history[1], content: [{ ...history[1].content[0], arguments: oldShape }] };
    const { result, fetchCalls } = await send(history);
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toContain('Grammar tool call "codemode" requires argument "code" to be a string.');
    expect(fetchCalls).toBe(0);
  });
});
