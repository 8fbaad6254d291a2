// Fast checks of the e2e infrastructure itself (no pi process): wire validation, the fake
// provider's streams and routing, request metrics and the wire-neutral view.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { BATCH_MARKER, RANGE_MARKER, startFakeLlm, type FakeLlm, type RecordedRequest } from "./fake-llm.js";
import { measureRequests } from "./metrics.js";
import { ANTHROPIC_MAX_IMAGES, countImageBlocks, validateAnthropicBody, validateAnthropicMessages, validateOpenAiMessages } from "./wire-validate.js";
import { compressedChainIds, orphanToolMessages, stubRefs, toolMessages } from "./wire-view.js";

const aUser = (text: string) => ({ role: "user", content: [{ type: "text", text }] });
const aToolUse = (...ids: string[]) => ({ role: "assistant", content: ids.map((id) => ({ type: "tool_use", id, name: "bash", input: {} })) });
const aResult = (...ids: string[]) => ({ role: "user", content: ids.map((id) => ({ type: "tool_result", tool_use_id: id, content: "out" })) });
const oUser = (text: string) => ({ role: "user", content: [{ type: "text", text }] });
const oCalls = (...ids: string[]) => ({ role: "assistant", content: null, tool_calls: ids.map((id) => ({ id, type: "function", function: { name: "bash", arguments: "{}" } })) });
const oTool = (id: string, content = "out") => ({ role: "tool", tool_call_id: id, content });

describe("Anthropic wire validation", () => {
  test("a tool_use answered by the next user message is accepted", () => {
    expect(validateAnthropicMessages([aUser("go"), aToolUse("x"), aResult("x"), aUser("more")])).toBeUndefined();
  });

  test("a tool_result with no tool_use in the previous message is rejected with Anthropic's wording", () => {
    const v = validateAnthropicMessages([aUser("go"), { role: "assistant", content: [{ type: "text", text: "hi" }] }, aResult("x")]);
    expect(v?.message).toBe(
      "messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: x. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.",
    );
  });

  test("the gh-11 shape (synthetic result, foreign text, real result) is rejected as a duplicate result", () => {
    const v = validateAnthropicMessages([aUser("go"), aToolUse("x"), aResult("x"), aUser("notice"), aResult("x")]);
    expect(v?.message).toBe("messages.4.content.0: each tool_use must have a single result. Found multiple `tool_result` blocks with id: x");
  });

  test("a tool_use id reused anywhere in the request is rejected", () => {
    const v = validateAnthropicMessages([aUser("go"), aToolUse("x"), aResult("x"), aToolUse("x"), aResult("x")]);
    expect(v?.message).toBe("messages.3.content.0: `tool_use` ids must be unique");
  });

  test("a tool_use left without a leading tool_result in the next turn is rejected", () => {
    const v = validateAnthropicMessages([aUser("go"), aToolUse("x", "y"), aResult("x"), aUser("go on")]);
    expect(v?.message).toContain("messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: y.");
  });

  test("a tool_result placed after text in the answering turn does not count as immediate", () => {
    const v = validateAnthropicMessages([aUser("go"), aToolUse("x"), aUser("notice"), aResult("x")]);
    expect(v?.message).toContain("`tool_use` ids were found without `tool_result` blocks immediately after: x.");
  });
});

describe("Anthropic image limit", () => {
  const anImage = { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } };
  const imageResults = (from: number, count: number) => {
    const ids = Array.from({ length: count }, (_, i) => `r${from + i}`);
    return [aToolUse(...ids), { role: "user", content: ids.map((id) => ({ type: "tool_result", tool_use_id: id, content: [{ type: "text", text: "Read image file" }, anImage] })) }];
  };

  test("images inside tool_result blocks and user messages are both counted", () => {
    expect(countImageBlocks([{ role: "user", content: [anImage, { type: "text", text: "see" }] }, ...imageResults(0, 3)])).toBe(4);
  });

  test("exactly the limit is accepted", () => {
    expect(validateAnthropicMessages([aUser("go"), ...imageResults(0, ANTHROPIC_MAX_IMAGES)])).toBeUndefined();
  });

  test("one image over the limit is rejected, naming the count", () => {
    const v = validateAnthropicMessages([{ role: "user", content: [anImage] }, ...imageResults(0, ANTHROPIC_MAX_IMAGES)]);
    expect(v?.message).toBe("Too many images in request: 101 > 100");
  });
});

describe("Anthropic cache marker limits", () => {
  const marked = (type = "text") => ({ type, text: "x", thinking: "x", signature: "s", cache_control: { type: "ephemeral" } });
  const body = (blocks: unknown[]) => ({ system: [marked()], messages: [{ role: "user", content: blocks }] });

  test("four markers pass and a fifth is refused", () => {
    expect(validateAnthropicBody(body([marked(), marked(), marked()]))).toBeUndefined();
    expect(validateAnthropicBody(body([marked(), marked(), marked(), marked()]))?.message).toBe("at most 4 blocks may carry cache_control; this request has 5");
  });

  test("a marker on a thinking block is refused", () => {
    expect(validateAnthropicBody(body([marked("thinking")]))?.message).toBe("a thinking block cannot carry cache_control");
  });
});

describe("OpenAI wire validation", () => {
  test("tool messages answering the preceding tool_calls are accepted", () => {
    expect(validateOpenAiMessages([oUser("go"), oCalls("a", "b"), oTool("a"), oTool("b"), oUser("more")])).toBeUndefined();
  });

  test("a tool message after a user message is rejected with OpenAI's wording", () => {
    const v = validateOpenAiMessages([oUser("go"), oCalls("a"), oTool("a"), oUser("notice"), oTool("a")]);
    expect(v?.message).toBe("Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.");
    expect(v?.param).toBe("messages.[4].role");
  });

  test("an unanswered tool call is rejected", () => {
    const v = validateOpenAiMessages([oUser("go"), oCalls("a", "b"), oTool("a"), oUser("more")]);
    expect(v?.message).toContain("The following tool_call_ids did not have response messages: b");
  });

  test("a tool-call id reused in a later turn is accepted", () => {
    expect(validateOpenAiMessages([oUser("go"), oCalls("dup_1"), oTool("dup_1"), oCalls("dup_1"), oTool("dup_1")])).toBeUndefined();
  });
});

async function post(fake: FakeLlm, api: "openai" | "anthropic", body: unknown): Promise<Response> {
  const url = api === "openai" ? `${fake.baseUrl("openai-completions")}/chat/completions` : `${fake.baseUrl("anthropic-messages")}/v1/messages?beta=true`;
  return fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
}

function sseData(text: string): any[] {
  return text
    .split("\n\n")
    .map((f) => f.split("\n").find((l) => l.startsWith("data: ")))
    .filter((l): l is string => !!l && l !== "data: [DONE]")
    .map((l) => JSON.parse(l.slice(6)));
}

const TOOLS = [{ type: "function", function: { name: "bash", description: "", parameters: {} } }];

describe("fake provider streams and routing", () => {
  let fake: FakeLlm;
  beforeAll(async () => {
    fake = await startFakeLlm({ main: [] });
  });
  afterAll(() => fake.close());

  test("an OpenAI text reply streams content chunks, a stop finish and a usage chunk", async () => {
    fake.setScript({ main: [{ text: "hello there", promptTokens: 123 }] });
    const res = await post(fake, "openai", { model: "m", messages: [oUser("hi")], tools: TOOLS });
    const body = await res.text();
    const chunks = sseData(body);
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    expect(body.endsWith("data: [DONE]\n\n")).toBe(true);
    expect(chunks.map((c) => c.choices[0]?.delta?.content ?? "").join("")).toBe("hello there");
    expect(chunks.some((c) => c.choices[0]?.finish_reason === "stop")).toBe(true);
    expect(chunks.at(-1).usage.prompt_tokens).toBe(123);
  });

  test("OpenAI tool-call arguments reassemble into the scripted JSON with generated ids", async () => {
    fake.setScript({ main: [{ toolCalls: [{ name: "bash", args: { command: "ls" } }, { id: "fixed", name: "read", args: { path: "a" } }] }] });
    const chunks = sseData(await (await post(fake, "openai", { model: "m", messages: [oUser("hi")], tools: TOOLS })).text());
    const calls: Record<number, { id?: string; args: string }> = {};
    for (const c of chunks) for (const tc of c.choices[0]?.delta?.tool_calls ?? []) {
      calls[tc.index] ??= { args: "" };
      if (tc.id) calls[tc.index]!.id = tc.id;
      calls[tc.index]!.args += tc.function?.arguments ?? "";
    }
    expect(JSON.parse(calls[0]!.args)).toEqual({ command: "ls" });
    expect(calls[0]!.id).toMatch(/^call_\d+_0$/);
    expect(calls[1]!.id).toBe("fixed");
    expect(chunks.some((c) => c.choices[0]?.finish_reason === "tool_calls")).toBe(true);
  });

  test("pi's cache-warming refresh (the last request again, one output token) is answered empty and takes no scripted reply; a real request capped at one token is not one", async () => {
    fake.setScript({ main: [{ text: "first" }, { text: "second" }] });
    const body = { model: "m", messages: [aUser("hi")], tools: [{ name: "bash" }], max_tokens: 4096 };
    await (await post(fake, "anthropic", body)).text();
    const warm = await (await post(fake, "anthropic", { ...body, max_tokens: 1 })).text();
    expect(fake.requests.at(-1)!.kind).toBe("warm");
    expect(sseData(warm).some((d) => d.delta?.text === "second")).toBe(false);
    const full = await (await post(fake, "anthropic", { ...body, messages: [aUser("hi"), { role: "assistant", content: "first" }, aUser("go on")], max_tokens: 1 })).text();
    expect(fake.requests.at(-1)!.kind).toBe("main");
    expect(sseData(full).map((d) => d.delta?.text ?? "").join("")).toBe("second");
  });

  test("an Anthropic tool reply follows the message_start ... message_stop event order", async () => {
    fake.setScript({ main: [{ text: "ok", toolCalls: [{ name: "bash", args: { command: "ls" } }] }] });
    const text = await (await post(fake, "anthropic", { model: "m", messages: [aUser("hi")], tools: [{ name: "bash" }] })).text();
    const events = [...text.matchAll(/^event: (\S+)$/gm)].map((m) => m[1]);
    expect(events[0]).toBe("message_start");
    expect(events.slice(-2)).toEqual(["message_delta", "message_stop"]);
    const data = sseData(text);
    const json = data.filter((d) => d.delta?.type === "input_json_delta").map((d) => d.delta.partial_json).join("");
    expect(JSON.parse(json)).toEqual({ command: "ls" });
    expect(data.find((d) => d.type === "message_delta").delta.stop_reason).toBe("tool_use");
  });

  test("a stopped Anthropic reply ends with stop_reason refusal and keeps its tool calls", async () => {
    fake.setScript({ main: [{ stopped: true, toolCalls: [{ name: "bash", args: { command: "ls" } }] }] });
    const data = sseData(await (await post(fake, "anthropic", { model: "m", messages: [aUser("hi")], tools: [{ name: "bash" }] })).text());
    expect(data.find((d) => d.type === "message_delta").delta.stop_reason).toBe("refusal");
    expect(data.some((d) => d.content_block?.type === "tool_use")).toBe(true);
  });

  test("a stopped OpenAI reply ends with finish_reason content_filter", async () => {
    fake.setScript({ main: [{ stopped: true, toolCalls: [{ name: "bash", args: { command: "ls" } }] }] });
    const chunks = sseData(await (await post(fake, "openai", { model: "m", messages: [oUser("hi")], tools: TOOLS })).text());
    expect(chunks.some((c) => c.choices[0]?.finish_reason === "content_filter")).toBe(true);
    expect(chunks.some((c) => c.choices[0]?.finish_reason === "tool_calls")).toBe(false);
  });

  test("a tool-less request carrying the batch marker goes to the summarizer and keeps its labels", async () => {
    fake.setScript({ main: [{ text: "main reply" }] });
    const prompt = `${BATCH_MARKER} ...\n<tool-call-batch>\n[[1:bash]] ...\n[[2:read]] ...\n</tool-call-batch>`;
    const chunks = sseData(await (await post(fake, "openai", { model: "m", messages: [oUser(prompt)] })).text());
    const text = chunks.map((c) => c.choices[0]?.delta?.content ?? "").join("");
    expect(fake.requests.at(-1)!.kind).toBe("summarizer");
    expect(text).toContain("[[1:bash]]");
    expect(text).toContain("[[2:read]]");
  });

  test("a request that declares tools is main even when it contains a marker", async () => {
    fake.setScript({ main: [{ text: "main reply" }] });
    await (await post(fake, "openai", { model: "m", messages: [oUser(RANGE_MARKER)], tools: TOOLS })).text();
    expect(fake.requests.at(-1)!.kind).toBe("main");
  });

  test("a model-specific summarizer rule only answers requests for that model", async () => {
    fake.setScript({ main: [], summarizers: [{ marker: BATCH_MARKER, model: "primary", reply: { status: 500 } }, { marker: BATCH_MARKER, reply: { text: "fine" } }] });
    const primary = await post(fake, "openai", { model: "primary", messages: [oUser(BATCH_MARKER)] });
    const session = await post(fake, "openai", { model: "session", messages: [oUser(BATCH_MARKER)] });
    expect(primary.status).toBe(500);
    expect((await primary.json()) as any).toEqual({ error: { message: "fake error 500", type: "server_error" } });
    expect(session.status).toBe(200);
    await session.text();
  });

  test("an exhausted main script answers SCRIPT EXHAUSTED", async () => {
    fake.setScript({ main: [] });
    const chunks = sseData(await (await post(fake, "openai", { model: "m", messages: [oUser("hi")], tools: TOOLS })).text());
    expect(chunks.map((c) => c.choices[0]?.delta?.content ?? "").join("")).toBe("SCRIPT EXHAUSTED");
  });

  test("an invalid request is answered 400, recorded as rejected and consumes no scripted reply", async () => {
    fake.setScript({ main: [{ text: "kept for the next valid request" }] });
    const bad = await post(fake, "anthropic", { model: "m", messages: [aUser("go"), aResult("ghost")], tools: [{ name: "bash" }] });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).error.type).toBe("invalid_request_error");
    expect(fake.requests.at(-1)!.rejected).toContain("unexpected `tool_use_id`");
    const good = sseData(await (await post(fake, "anthropic", { model: "m", messages: [aUser("go")], tools: [{ name: "bash" }] })).text());
    expect(good.filter((d) => d.delta?.type === "text_delta").map((d) => d.delta.text).join("")).toBe("kept for the next valid request");
  });

  test("a stalled reply sends headers at once and ends the body only after the stall", async () => {
    fake.setScript({ main: [{ stallMs: 1000 }] });
    const t0 = performance.now();
    const res = await post(fake, "openai", { model: "m", messages: [oUser("hi")], tools: TOOLS });
    const headersAt = performance.now() - t0;
    const text = await res.text();
    expect(headersAt).toBeLessThan(900);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(990);
    expect(text).toBe(": stall\n\n");
  });
});

const rec = (seq: number, kind: "main" | "summarizer", messages: any[], api: RecordedRequest["api"] = "openai-completions"): RecordedRequest =>
  ({ seq, kind, path: "", headers: {}, body: { messages }, api, model: "m", status: 200 }) as RecordedRequest;

describe("request metrics", () => {
  test("input chars are summed per kind and a rewritten history counts as one prefix break", () => {
    const m1 = [oUser("go")];
    const m2 = [...m1, oCalls("a"), oTool("a", "x".repeat(50))];
    const m3 = [...m1, oCalls("a"), oTool("a", "stub"), oUser("next")];
    const m = measureRequests([rec(1, "main", m1), rec(2, "main", m2), rec(3, "summarizer", [oUser("sum")]), rec(4, "main", m3)]);
    expect(m.mainRequests).toBe(3);
    expect(m.summarizerRequests).toBe(1);
    expect(m.prefixBreaks).toBe(1);
    expect(m.requests.map((r) => r.prefixBreak)).toEqual([false, false, false, true]);
    expect(m.mainInputChars).toBe(m.requests.filter((r) => r.kind === "main").reduce((s, r) => s + r.inputChars, 0));
    expect(m.requests[1]!.inputChars).toBeGreaterThan(m.requests[3]!.inputChars - JSON.stringify(oUser("next")).length);
  });

  test("a moved Anthropic cache_control marker is not a prefix break", () => {
    const first = [{ role: "user", content: [{ type: "text", text: "go", cache_control: { type: "ephemeral" } }] }];
    const second = [{ role: "user", content: [{ type: "text", text: "go" }] }, { role: "assistant", content: [{ type: "text", text: "ok" }] }];
    expect(measureRequests([rec(1, "main", first, "anthropic-messages"), rec(2, "main", second, "anthropic-messages")]).prefixBreaks).toBe(0);
  });
});

describe("wire-neutral view", () => {
  const stub = "[Summarized in pruner summary, ref `t1`. Use context_tree_query to retrieve full output.]";

  test("stub refs and tool messages read the same on both wire formats", () => {
    const openai = rec(1, "main", [oUser("go"), oCalls("a"), oTool("a", stub)]);
    const anthropic = rec(2, "main", [aUser("go"), aToolUse("a"), { role: "user", content: [{ type: "tool_result", tool_use_id: "a", content: [{ type: "text", text: stub }] }] }], "anthropic-messages");
    expect(stubRefs(openai)).toEqual(["t1"]);
    expect(stubRefs(anthropic)).toEqual(["t1"]);
    expect(toolMessages(anthropic)).toEqual([{ role: "tool" as const, toolCallId: "a", text: stub }]);
  });

  test("a tool message behind a user message counts as an orphan", () => {
    expect(orphanToolMessages(rec(1, "main", [oUser("go"), oCalls("a"), oTool("a"), oUser("n"), oTool("a")]))).toEqual(["a"]);
  });

  test("compressed-chain blocks are found in user messages", () => {
    const req = rec(1, "main", [oUser("go"), oUser('<compressed-chain id="b1" tools="t1">\nbody\n</compressed-chain>')]);
    expect(compressedChainIds(req)).toEqual(["b1"]);
  });
});
