// The spare breakpoint on hand-built Anthropic request bodies: where the marker goes, and every case where
// the body is sent as pi-ai built it.
import { describe, expect, test } from "bun:test";
import { anthropicCodec, scanAnthropicPayload } from "../economics/anthropic-payload.js";
import { normalizedToolUseId } from "../economics/payload-scan.js";
import { CacheTracker } from "../economics/cache-tracker.js";
import type { CapturedBatch } from "../capture/records.js";
import { DEFAULT_CONFIG } from "../settings/config-shape.js";
import { onBeforeProviderRequest, type RequestFacts, SpareBreakpoint } from "./cache-breakpoint.js";

const CC = { type: "ephemeral" };
const HOUR = 3_600_000;
/** Over the 1,024-token minimum of claude-sonnet-4-5 on its own, so every prefix past it is cacheable. */
const SYSTEM = "You are a careful coding agent. ".repeat(200);
const FACTS: RequestFacts = { sessionId: "s1", codec: anthropicCodec, minTokens: 1024, ttlMs: HOUR, cacheUnused: false };

interface Shape {
  /** Turn numbers (1-based) whose tool result is a stub. */
  stubs?: number[];
  /** Turn numbers whose tool call's arguments were purged. */
  purged?: number[];
  thinking?: boolean;
  oauth?: boolean;
  model?: string;
}

/** A prompt, then `turns` tool turns (assistant tool_use, user tool_result), without markers. */
function conversation(turns: number, first = 0, shape: Shape = {}): any[] {
  const messages: any[] = [{ role: "user", content: [{ type: "text", text: "fix the bug" }] }];
  for (let k = first + 1; k <= first + turns; k++) {
    const input = shape.purged?.includes(k) ? { path: "<purged/>" } : { path: `/src/file${k}.ts` };
    const call = { type: "tool_use", id: `t${k}`, name: "read", input };
    messages.push({ role: "assistant", content: shape.thinking ? [{ type: "thinking", thinking: `why ${k}`, signature: "sig" }, call] : [call] });
    const text = shape.stubs?.includes(k) ? `[[${k}:read]] stub` : `output ${k} `.repeat(50);
    messages.push({ role: "user", content: [{ type: "tool_result", tool_use_id: `t${k}`, content: [{ type: "text", text }] }] });
  }
  return messages;
}

/** The body pi-ai sends for `conversation(turns)`: three markers (four with OAuth). */
const body = (turns: number, shape: Shape = {}): any => withLastMarker(conversation(turns, 0, shape), shape);

function withLastMarker(messages: any[], shape: Shape = {}): any {
  const last = messages.at(-1);
  if (typeof last.content === "string") last.content = [{ type: "text", text: last.content }];
  last.content.at(-1).cache_control = { ...CC };
  const system = shape.oauth
    ? [{ type: "text", text: "identity", cache_control: { ...CC } }, { type: "text", text: SYSTEM, cache_control: { ...CC } }]
    : [{ type: "text", text: SYSTEM, cache_control: { ...CC } }];
  const tools = [{ name: "bash", input_schema: { type: "object" } }, { name: "read", input_schema: { type: "object" }, cache_control: { ...CC } }];
  return { model: shape.model ?? "claude-sonnet-4-5", max_tokens: 1000, stream: true, system, tools, messages };
}

/** Message blocks start after two tools and one system block; the prompt is block 3. */
const TOOL_USE = (k: number, thinking = false) => (thinking ? 3 * k + 2 : 2 * k + 2);
const RESULT = (k: number, thinking = false) => TOOL_USE(k, thinking) + 1;

const ident = (text: string) => text;
const marks = (payload: any): number[] => scanAnthropicPayload(payload, ident)!.blocks.flatMap((b, i) => (b.marked ? [i] : []));
/** Block indexes marked in `out` and not in `input`. */
const added = (input: any, out: any): number[] => (out === undefined ? [] : marks(out).filter((i) => !marks(input).includes(i)));

function clocked(start = 1_000_000) {
  let t = start;
  const sb = new SpareBreakpoint(() => t);
  const send = (payload: any, facts: Partial<RequestFacts> = {}) => {
    t += 1000;
    return sb.place(payload, { ...FACTS, ...facts });
  };
  return { sb, send, setTime: (at: number) => (t = at) };
}

/** A session that grew one turn per request up to `turns`; every request needed no marker. */
function grown(turns: number, shape: Shape = {}) {
  const c = clocked();
  for (let n = 1; n <= turns; n++) expect(c.send(body(n, shape))).toBeUndefined();
  return c;
}

describe("where the spare marker goes", () => {
  test("a rewrite deep in the conversation gets the marker on the block before the first changed block", () => {
    const { send } = grown(30);
    const input = body(30, { stubs: [4, 5, 6, 7, 8] });
    expect(added(input, send(input))).toEqual([TOOL_USE(4)]);
  });

  test("the marked block gets a copy of pi-ai's marker value and the input is not changed", () => {
    const { send } = grown(30);
    const input = body(30, { stubs: [4] });
    const before = structuredClone(input);
    const out: any = send(input);
    expect(out.messages[7].content[0].cache_control).toEqual(CC);
    expect(out.messages[7].content[0].cache_control).not.toBe(input.messages[1].content[0].cache_control);
    expect(input).toEqual(before);
  });

  test("a turn adding more than 20 blocks gets a marker within 20 blocks of the previous request's end", () => {
    const { send } = grown(10);
    const input = body(25);
    const [mark] = added(input, send(input));
    expect(mark).toBeGreaterThanOrEqual(RESULT(10));
    expect(mark).toBeLessThanOrEqual(RESULT(10) + 20);
  });

  test("an ordinary turn needs none", () => {
    const { send } = grown(10);
    expect(send(body(11))).toBeUndefined();
  });

  test("a rewrite within 20 blocks of the end needs none", () => {
    const { send } = grown(30);
    expect(send(body(30, { stubs: [25] }))).toBeUndefined();
  });

  test("an OAuth request with four markers is left as it is", () => {
    const { send } = grown(30, { oauth: true });
    expect(send(body(30, { oauth: true, stubs: [4] }))).toBeUndefined();
  });

  test("with a thinking block before the rewrite point the marker goes on an earlier eligible block", () => {
    const { send } = grown(30, { thinking: true });
    const input = body(30, { thinking: true, purged: [4] });
    expect(added(input, send(input))).toEqual([RESULT(3, true)]);
  });

  test("string content before the rewrite point is skipped and stays a string", () => {
    const c = clocked();
    const tail = (purged: boolean) => [
      { role: "assistant", content: [{ type: "text", text: "done" }] },
      { role: "user", content: "now the tests" },
      { role: "assistant", content: [{ type: "tool_use", id: "t99", name: "bash", input: { command: purged ? "<purged/>" : "npm test" } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t99", content: [{ type: "text", text: "ok" }] }] },
    ];
    const later = (purged: boolean, extra: number) => withLastMarker([...conversation(25), ...tail(purged), ...conversation(extra, 100).slice(1)]);
    for (let n = 1; n <= 25; n++) c.send(body(n));
    for (let extra = 0; extra <= 12; extra++) c.send(later(false, extra));
    const input = later(true, 12);
    const out: any = c.send(input);
    expect(added(input, out)).toEqual([RESULT(25) + 1]);
    expect(out.messages[52].content).toBe("now the tests");
  });

  test("a request with images is read like any other and the marker may land on an image", () => {
    const shot = { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } };
    const withImage = (n: number, purged: number[] = []) => {
      const messages = conversation(n, 0, { purged });
      if (n >= 4) messages[8].content.push({ type: "text", text: "screenshot:" }, structuredClone(shot));
      return withLastMarker(messages);
    };
    const c = clocked();
    for (let n = 1; n <= 30; n++) c.send(withImage(n));
    const input = withImage(30, [5]);
    const [mark] = added(input, c.send(input));
    expect(scanAnthropicPayload(input, ident)!.blocks[mark!]!.place).toEqual({ section: "messages", message: 8, index: 2 });
  });
});

describe("bodies sent as pi-ai built them", () => {
  test("a body that is not an object or has no messages list", () => {
    const { send } = grown(3);
    for (const payload of [null, undefined, 42, "body", [], { model: "claude-sonnet-4-5" }, { model: "claude-sonnet-4-5", messages: {} }]) {
      expect(send(payload)).toBeUndefined();
    }
  });

  test("a body without a model id", () => {
    const { send } = grown(30);
    const { model: _model, ...rest } = body(30, { stubs: [4] });
    expect(send(rest)).toBeUndefined();
  });

  test("a body with four markers already", () => {
    const { send } = grown(30);
    const input = body(30, { stubs: [4] });
    input.messages[0].content[0].cache_control = { ...CC };
    expect(send(input)).toBeUndefined();
  });

  test("a body with a marker on a thinking block already", () => {
    const { send } = grown(30, { thinking: true });
    const input = body(30, { thinking: true, stubs: [4] });
    input.messages[1].content[0].cache_control = { ...CC };
    expect(send(input)).toBeUndefined();
  });

  test("a body without any marker: caching is off", () => {
    const strip = (b: any) => JSON.parse(JSON.stringify(b, (k, v) => (k === "cache_control" ? undefined : v)));
    const c = clocked();
    for (let n = 1; n <= 30; n++) c.send(strip(body(n)));
    expect(c.send(strip(body(30, { stubs: [4] })))).toBeUndefined();
  });

  test("a body whose markers carry different lifetimes", () => {
    const { send } = grown(30);
    const input = body(30, { stubs: [4] });
    input.system[0].cache_control = { type: "ephemeral", ttl: "1h" };
    expect(send(input)).toBeUndefined();
  });

  test("the first request of a model switched to mid-session, and the next one", () => {
    const { send } = grown(30);
    expect(send(body(30, { stubs: [4], model: "claude-opus-4-1" }))).toBeUndefined();
    expect(send(body(31, { stubs: [4], model: "claude-opus-4-1" }))).toBeUndefined();
  });

  test("a request of another session", () => {
    const { send } = grown(30);
    expect(send(body(30, { stubs: [4] }), { sessionId: "s2" })).toBeUndefined();
  });

  test("a provider that reports no cache use", () => {
    const { send } = grown(30);
    expect(send(body(30, { stubs: [4] }), { cacheUnused: true })).toBeUndefined();
  });

  test("a clock that went backwards", () => {
    const c = grown(30);
    c.setTime(0);
    expect(c.send(body(30, { stubs: [4] }))).toBeUndefined();
  });

  test("a body that cannot be serialized", () => {
    const { send } = grown(30);
    const input = body(30, { stubs: [4] });
    input.messages[2].content[0].input = { big: 1n };
    expect(() => send(input)).not.toThrow();
    expect(send(input)).toBeUndefined();
  });

  test("entries older than the cache lifetime give no marker", () => {
    const c = grown(30);
    c.setTime(1_000_000 + 2 * HOUR);
    expect(c.send(body(30, { stubs: [4] }))).toBeUndefined();
  });
});

const waiting = (id: string): CapturedBatch => ({ turnIndex: 0, timestamp: 1, assistantText: "", toolCalls: [{ toolCallId: id, toolName: "read", args: {}, resultText: "", isError: false, resultTimestamp: 1 }] });

describe("the handler", () => {
  const anthropic = { id: "claude-sonnet-4-5", provider: "anthropic", api: "anthropic-messages" };

  function handlerState(config: Partial<typeof DEFAULT_CONFIG> = {}) {
    const state = { config: { value: { ...DEFAULT_CONFIG, enabled: true, ...config } }, cache: new CacheTracker(), breakpoint: new SpareBreakpoint(), pending: [] as CapturedBatch[] };
    state.cache.record({ at: Date.now(), input: 10, cacheRead: 100, cacheWrite: 100 });
    return state;
  }
  const ctxOf = (model: any, sessionId = "s1") => ({ model, sessionManager: { getSessionId: () => sessionId } }) as any;
  const session = (state: any, model: any, stubbed: number[]) => {
    for (let n = 1; n <= 30; n++) onBeforeProviderRequest(state, ctxOf(model), { payload: body(n) });
    return onBeforeProviderRequest(state, ctxOf(model), { payload: body(30, { stubs: stubbed }) });
  };

  test("adds the marker for an Anthropic model with pruning and the setting on", () => {
    const input = body(30, { stubs: [4] });
    const state = handlerState();
    session(state, anthropic, []);
    expect(added(input, onBeforeProviderRequest(state, ctxOf(anthropic), { payload: input }))).toEqual([TOOL_USE(4)]);
  });

  test("in an ordinary turn the marker waits before the first output still to be summarized", () => {
    const state = handlerState();
    state.pending = [waiting("t25"), waiting("t26")];
    for (let n = 1; n <= 29; n++) onBeforeProviderRequest(state, ctxOf(anthropic), { payload: body(n) });
    const input = body(30);
    expect(added(input, onBeforeProviderRequest(state, ctxOf(anthropic), { payload: input }))).toEqual([TOOL_USE(25)]);
  });

  test("in an ordinary turn the marker waits before the chain compressed next when it starts earlier", () => {
    const state = { ...handlerState(), nextChainStart: () => "t12" };
    state.pending = [waiting("t25")];
    for (let n = 1; n <= 29; n++) onBeforeProviderRequest(state, ctxOf(anthropic), { payload: body(n) });
    const input = body(30);
    // The chain's rewrite starts at the assistant message holding call t12: the marker goes on the block before it.
    expect(added(input, onBeforeProviderRequest(state, ctxOf(anthropic), { payload: input }))).toEqual([TOOL_USE(12) - 1]);
  });

  test("pending ids are matched as pi-ai normalizes them for Anthropic", () => {
    expect(normalizedToolUseId("call:1|fc/x")).toBe("call_1_fc_x");
    expect(normalizedToolUseId("a".repeat(80))).toHaveLength(64);
  });

  test("leaves every other API's body alone", () => {
    expect(session(handlerState(), { ...anthropic, api: "openai-completions" }, [4])).toBeUndefined();
    expect(session(handlerState(), { ...anthropic, api: undefined }, [4])).toBeUndefined();
  });

  test("does nothing with the setting off or pruning disabled", () => {
    expect(session(handlerState({ cacheBreakpoint: false }), anthropic, [4])).toBeUndefined();
    expect(session(handlerState({ enabled: false }), anthropic, [4])).toBeUndefined();
  });

  test("does nothing when the provider answered without reporting cache use", () => {
    const state = handlerState();
    state.cache.reset();
    state.cache.record({ at: Date.now(), input: 5000, cacheRead: 0, cacheWrite: 0 });
    expect(session(state, anthropic, [4])).toBeUndefined();
  });

  test("does nothing when the session id cannot be read", () => {
    const ctx = { model: anthropic, sessionManager: { getSessionId: () => { throw new Error("stale"); } } } as any;
    expect(onBeforeProviderRequest(handlerState(), ctx, { payload: body(3) })).toBeUndefined();
  });
});
