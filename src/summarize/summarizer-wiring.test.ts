import { describe, expect, mock, test } from "bun:test";
import * as actualCompat from "@earendil-works/pi-ai/compat";

let streamImpl: (...args: any[]) => any = () => {
  throw new Error("stream not stubbed for this test");
};
mock.module("@earendil-works/pi-ai/compat", () => ({
  ...actualCompat,
  stream: (...args: any[]) => streamImpl(...args),
}));

const { summarizeBatch, summarizeBatches, summarizeRange } = await import("./summarizer.js");
const { FallbackController, COOLDOWN_MS } = await import("./summarizer-fallback.js");
const { DEFAULT_CONFIG } = await import("../settings/config-shape.js");

const P = { id: "primary-model", provider: "provider-a", name: "Primary" };
const S = { id: "session-model", provider: "provider-b", name: "Session" };
const USAGE = {
  input: 120,
  output: 30,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 150,
  cost: { input: 0.001, output: 0.002, cacheRead: 0, cacheWrite: 0, total: 0.003 },
};
const ENTER_WARNING = "pi-condense: summarizer model Primary failing, using session model Session until it recovers";
/** The one fallback notice: the contracted enter line, then the primary's error and what to do about it. */
const enterNotice = (error: string, fix = "it is tried again every 10 minutes; /pruner model <provider>/<id> picks another model, /pruner model default uses the session model") =>
  `${ENTER_WARNING}\nCause: ${error}. To fix: ${fix}.`;

interface StreamCall {
  model: any;
  context: any;
  options: any;
}

function cfg(overrides: Record<string, unknown> = {}): any {
  return { ...DEFAULT_CONFIG, ...overrides };
}
const distinct = (overrides: Record<string, unknown> = {}) =>
  cfg({ summarizerModel: "provider-a/primary-model", ...overrides });

function makeCtx(registry: Record<string, unknown> = {}, sessionModel: any = S) {
  const notes: Array<{ msg: string; level: string | undefined }> = [];
  const ctx: any = {
    model: sessionModel,
    modelRegistry: {
      find: (provider: string, id: string) => (provider === P.provider && id === P.id ? P : undefined),
      getApiKeyAndHeaders: async () => ({ ok: true, apiKey: "k", headers: {} }),
      getProviderAuth: async () => undefined,
      ...registry,
    },
    ui: { notify: (msg: string, level?: string) => notes.push({ msg, level }) },
  };
  const byLevel = (level: string) => notes.filter((n) => n.level === level);
  return { ctx, notes, byLevel };
}

function batch(resultText = "x".repeat(50), id = "c1") {
  return {
    turnIndex: 1,
    timestamp: 1000,
    assistantText: "",
    toolCalls: [
      { toolCallId: id, toolName: "bash", args: { cmd: "ls" }, resultText, isError: false, resultTimestamp: 1001 },
    ],
  };
}

function response(text: string, stopReason = "stop", errorMessage?: string) {
  return {
    role: "assistant",
    content: text === "" ? [] : [{ type: "text", text }],
    stopReason,
    errorMessage,
    usage: USAGE,
  };
}

function scripted(events: any[], final: any) {
  return {
    async *[Symbol.asyncIterator]() {
      for (const e of events) yield e;
    },
    async result() {
      return final;
    },
  };
}
const ok = (text: string) => scripted([], response(text));
const err = (msg: string) => scripted([], response("", "error", msg));

function untilAbort(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_, reject) => {
    if (signal?.aborted) return reject(new Error("aborted"));
    signal?.addEventListener("abort", () => reject(new Error("aborted")), { once: true });
  });
}

function hanging(signal: AbortSignal | undefined) {
  return {
    [Symbol.asyncIterator]() {
      return { next: () => untilAbort(signal) };
    },
    result: () => untilAbort(signal),
  };
}

/** A broken provider stream that never settles and ignores its abort signal. */
function deaf() {
  const never = () => new Promise<never>(() => {});
  return {
    [Symbol.asyncIterator]() {
      return { next: never };
    },
    result: never,
  };
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(new Error("aborted"));
      },
      { once: true },
    );
  });
}

function dripping(count: number, gapMs: number, text: string, signal: AbortSignal | undefined) {
  return {
    async *[Symbol.asyncIterator]() {
      for (let i = 0; i < count; i++) {
        await sleep(gapMs, signal);
        yield { type: "thinking_delta" };
      }
    },
    async result() {
      return response(text);
    },
  };
}

/** Installs a stream double chosen per call and records every call. */
function route(pick: (model: any, call: StreamCall) => any): StreamCall[] {
  const calls: StreamCall[] = [];
  streamImpl = (model: any, context: any, options: any) => {
    const call = { model, context, options };
    calls.push(call);
    return pick(model, call);
  };
  return calls;
}
const isPrimary = (model: any) => model.id === P.id;
const promptOf = (call: StreamCall) => call.context.messages[0].content[0].text as string;

describe("summarizeBatch legacy path", () => {
  test("a provider error with the default model returns null and notifies once at error level (5)", async () => {
    route(() => err("provider overloaded"));
    const { ctx, notes } = makeCtx();
    const controller = new FallbackController();
    const result = await summarizeBatch(batch() as any, cfg(), ctx, { controller });
    expect(result).toBeNull();
    expect(controller.inFallback).toBe(false);
    expect(notes).toEqual([{ msg: "pruner: summarization failed: provider overloaded", level: "error" }]);
  });

  test("an error stop reason without errorMessage uses the default error text", async () => {
    route(() => scripted([], response("", "error")));
    const { ctx, notes } = makeCtx();
    expect(await summarizeBatch(batch() as any, cfg(), ctx)).toBeNull();
    expect(notes).toEqual([{ msg: "pruner: summarization failed: Summarizer stopped with reason: error", level: "error" }]);
  });

  test("a 429 reported through an error event ends as a transient failure", async () => {
    route(() =>
      scripted(
        [{ type: "start", partial: response("") }, { type: "error", reason: "error", error: response("", "error") }],
        response("", "error", '429: {"message":"rate limited"}'),
      ),
    );
    const { ctx, notes } = makeCtx();
    expect(await summarizeBatch(batch() as any, cfg(), ctx)).toBeNull();
    expect(notes).toEqual([{ msg: 'pruner: summarization failed: 429: {"message":"rate limited"}', level: "error" }]);
  });

  test("a synchronous throw from stream becomes a transient failure with its message", async () => {
    route(() => {
      throw new Error("No API provider registered for api: custom");
    });
    const { ctx, notes } = makeCtx();
    expect(await summarizeBatch(batch() as any, cfg(), ctx)).toBeNull();
    expect(notes[0].msg).toBe("pruner: summarization failed: No API provider registered for api: custom");
  });

  test("a rejected result() becomes a transient failure with its message", async () => {
    route(() => ({
      async *[Symbol.asyncIterator]() {},
      result: async () => {
        throw new Error("socket hang up");
      },
    }));
    const { ctx, notes } = makeCtx();
    expect(await summarizeBatch(batch() as any, cfg(), ctx)).toBeNull();
    expect(notes).toEqual([{ msg: "pruner: summarization failed: socket hang up", level: "error" }]);
  });

  test("a non-user aborted stop reason is reported as a failed summarization", async () => {
    route(() => scripted([], response("", "aborted")));
    const { ctx, notes } = makeCtx();
    expect(await summarizeBatch(batch() as any, cfg(), ctx)).toBeNull();
    expect(notes).toEqual([
      { msg: "pruner: summarization failed: summarize: stream stopped with reason aborted", level: "error" },
    ]);
  });

  test("both timers off and an ok stream return the text without notifications (15)", async () => {
    route(() => ok("- ok"));
    const { ctx, notes } = makeCtx();
    const result = await summarizeBatch(
      batch() as any,
      cfg({ summarizerIdleTimeoutMs: 0, summarizerMaxTimeoutMs: 0 }),
      ctx,
    );
    expect(result?.summaryText).toBe("- ok");
    expect(result?.usage).toEqual(USAGE);
    expect(notes).toEqual([]);
  });

  test("the summary text is kept untrimmed and text blocks are joined with a newline", async () => {
    route(() =>
      scripted([], {
        ...response(""),
        content: [
          { type: "thinking", thinking: "hmm" },
          { type: "text", text: "- a " },
          { type: "text", text: "- b\n" },
        ],
      }),
    );
    const { ctx } = makeCtx();
    const result = await summarizeBatch(batch() as any, cfg(), ctx);
    expect(result?.summaryText).toBe("- a \n- b\n");
  });

  test("stop reasons other than length, error and aborted count as usable", async () => {
    route(() => scripted([], response("- done", "toolUse")));
    const { ctx } = makeCtx();
    expect((await summarizeBatch(batch() as any, cfg(), ctx))?.summaryText).toBe("- done");
  });
});

describe("summarizeBatch request shape", () => {
  test("sends exactly one user message holding the batch prompt and the serialized batch", async () => {
    const calls = route(() => ok("- ok"));
    const { ctx } = makeCtx();
    await summarizeBatch(batch() as any, cfg(), ctx);
    expect(calls).toHaveLength(1);
    const context = calls[0].context;
    expect(Object.keys(context)).toEqual(["messages"]);
    expect(context.messages).toHaveLength(1);
    expect(context.messages[0].role).toBe("user");
    expect(typeof context.messages[0].timestamp).toBe("number");
    const text = promptOf(calls[0]);
    expect(text.startsWith("You are summarizing a batch of tool calls")).toBe(true);
    expect(text).toContain("[[N:toolname]]");
    expect(text).toContain("\n\n<tool-call-batch>\n[[1:bash]] Tool: bash(");
    expect(text.endsWith(`Result (OK): ${"x".repeat(50)}\n</tool-call-batch>`)).toBe(true);
  });

  test("a batch holding an image marker is sent with the cannot-see-images rule (spec 70 §13.4)", async () => {
    const calls = route(() => ok("- ok"));
    const { ctx } = makeCtx();
    await summarizeBatch(batch("[image returned: image/png sha256:0123abcd]\nRead image file [image/png]") as any, cfg(), ctx);
    const text = promptOf(calls[0]);
    expect(text).toContain("means the tool returned an image you cannot see");
    expect(text).toContain("Result (OK): [image returned: image/png sha256:0123abcd]\nRead image file");
  });

  test("the range prompt carries no image rule", async () => {
    const calls = route(() => ok("fused"));
    const { ctx } = makeCtx();
    await summarizeRange("- `t1` did a thing", cfg(), ctx);
    expect(promptOf(calls[0])).not.toContain("image");
  });

  test("stream options carry only apiKey, headers and signal by default", async () => {
    const calls = route(() => ok("- ok"));
    const { ctx } = makeCtx({ getApiKeyAndHeaders: async () => ({ ok: true, apiKey: "k", headers: { "x-h": "1" } }) });
    await summarizeBatch(batch() as any, cfg(), ctx);
    const options = calls[0].options;
    expect(Object.keys(options).sort()).toEqual(["apiKey", "headers", "signal"]);
    expect(options.apiKey).toBe("k");
    expect(options.headers).toEqual({ "x-h": "1" });
    expect(options.signal).toBeInstanceOf(AbortSignal);
  });

  test("thinking off sends reasoningEffort undefined, default omits it, high sends high (42)", async () => {
    const calls = route(() => ok("- ok"));
    const { ctx } = makeCtx();
    await summarizeBatch(batch() as any, cfg({ summarizerThinking: "off" }), ctx);
    await summarizeBatch(batch() as any, cfg({ summarizerThinking: "default" }), ctx);
    await summarizeBatch(batch() as any, cfg({ summarizerThinking: "high" }), ctx);
    expect("reasoningEffort" in calls[0].options).toBe(true);
    expect(calls[0].options.reasoningEffort).toBeUndefined();
    expect("reasoningEffort" in calls[1].options).toBe(false);
    expect(calls[2].options.reasoningEffort).toBe("high");
  });

  test("a provider baseUrl rebases a copy of the model and leaves the original untouched (37)", async () => {
    const calls = route(() => ok("- ok"));
    const { ctx } = makeCtx({ getProviderAuth: async () => ({ auth: { baseUrl: "https://seat.example" } }) });
    await summarizeBatch(batch() as any, distinct(), ctx);
    expect(calls[0].model).not.toBe(P);
    expect(calls[0].model).toEqual({ ...P, baseUrl: "https://seat.example" });
    expect((P as any).baseUrl).toBeUndefined();
  });

  test("a baseUrl and env resolved with the request auth are used", async () => {
    const calls = route(() => ok("- ok"));
    const { ctx } = makeCtx({
      getApiKeyAndHeaders: async () => ({ ok: true, apiKey: "k", baseUrl: "https://auth.example", env: { A: "1" } }),
      getProviderAuth: async () => ({ auth: { baseUrl: "https://other.example" } }),
    });
    await summarizeBatch(batch() as any, cfg(), ctx);
    expect(calls[0].model.baseUrl).toBe("https://auth.example");
    expect(calls[0].options.env).toEqual({ A: "1" });
  });

  test("text progress reports the initial 0 and then only changed totals (38)", async () => {
    const part = (text: string) => ({ ...response(""), content: [{ type: "text", text }] });
    route(() =>
      scripted(
        [
          { type: "start" },
          { type: "text_start", partial: part("") },
          { type: "text_delta", partial: part("hello") },
          { type: "thinking_delta" },
          { type: "text_delta", partial: part("hello") },
          { type: "text_end", partial: part("hello world!") },
        ],
        response("hello world!"),
      ),
    );
    const { ctx } = makeCtx();
    const seen: number[] = [];
    await summarizeBatch(batch() as any, cfg(), ctx, { onTextProgress: (n) => seen.push(n) });
    expect(seen).toEqual([0, 0, 5, 12]);
  });
});

describe("summarizeBatch model resolution", () => {
  test("a summarizerModel without a slash warns and uses the session model (33)", async () => {
    const calls = route(() => ok("- ok"));
    const { ctx, notes } = makeCtx();
    const controller = new FallbackController();
    const result = await summarizeBatch(batch() as any, cfg({ summarizerModel: "gpt" }), ctx, { controller });
    expect(result?.summaryText).toBe("- ok");
    expect(calls.map((c) => c.model)).toEqual([S]);
    expect(notes).toEqual([
      {
        msg: `pruner: the summarizer model "gpt" is not of the form provider/model-id; summarizing with the session's model instead.`,
        level: "warning",
      },
    ]);
    expect(controller.inFallback).toBe(false);
  });

  test("an unknown summarizerModel warns and uses the session model (34)", async () => {
    const calls = route(() => ok("- ok"));
    const { ctx, notes } = makeCtx();
    await summarizeBatch(batch() as any, cfg({ summarizerModel: "x/y" }), ctx);
    expect(calls.map((c) => c.model)).toEqual([S]);
    expect(notes).toEqual([
      { msg: `pruner: pi does not know the summarizer model "x/y"; summarizing with the session's model instead.`, level: "warning" },
    ]);
  });

  test("a missing session model with the default summarizer fails without calling stream", async () => {
    const calls = route(() => ok("- ok"));
    const { ctx, notes } = makeCtx();
    ctx.model = undefined;
    expect(await summarizeBatch(batch() as any, cfg(), ctx)).toBeNull();
    expect(calls).toHaveLength(0);
    expect(notes).toEqual([{ msg: "pruner: summarization failed: no summarizer model available", level: "error" }]);
  });
});

describe("summarizeBatch outage fallback", () => {
  test("a failing primary is rescued by the session model with exactly one warning naming cause and fix (6)", async () => {
    route((model) => (isPrimary(model) ? err("boom") : ok("- fallback summary")));
    const { ctx, byLevel } = makeCtx();
    const controller = new FallbackController();
    const result = await summarizeBatch(batch() as any, distinct(), ctx, { controller });
    expect(result?.summaryText).toBe("- fallback summary");
    expect(controller.inFallback).toBe(true);
    expect(byLevel("warning").map((n) => n.msg)).toEqual([enterNotice("boom")]);
    expect(byLevel("error")).toEqual([]);
  });

  test("a primary pi has no credentials for names its error and how to log in", async () => {
    route((model) => (isPrimary(model) ? err("401 invalid x-api-key") : ok("- fallback summary")));
    const { ctx, byLevel } = makeCtx({ hasConfiguredAuth: (model: any) => !isPrimary(model) });
    const controller = new FallbackController();
    await summarizeBatch(batch() as any, distinct(), ctx, { controller });
    expect(byLevel("warning").map((n) => n.msg)).toEqual([
      enterNotice("401 invalid x-api-key", "run /login provider-a in pi, or set provider-a's API key environment variable (pi's docs/providers.md names it)"),
    ]);
    expect(controller.cause).toBe("401 invalid x-api-key");
  });

  test("in steady fallback only the session model is called, silently (7)", async () => {
    route((model) => (isPrimary(model) ? err("boom") : ok("- fallback summary")));
    const controller = new FallbackController();
    await summarizeBatch(batch() as any, distinct(), makeCtx().ctx, { controller });
    const calls = route((model) => (isPrimary(model) ? err("boom") : ok("- steady")));
    const { ctx, notes } = makeCtx();
    const result = await summarizeBatch(batch() as any, distinct(), ctx, { controller });
    expect(result?.summaryText).toBe("- steady");
    expect(calls.map((c) => c.model)).toEqual([S]);
    expect(notes).toEqual([]);
  });

  test("both models down enters silently, and the next rescued call owes exactly one warning (8)", async () => {
    route(() => err("everything down"));
    const controller = new FallbackController();
    const first = makeCtx();
    expect(await summarizeBatch(batch() as any, distinct(), first.ctx, { controller })).toBeNull();
    expect(controller.inFallback).toBe(true);
    expect(first.byLevel("warning")).toEqual([]);
    expect(first.byLevel("error").map((n) => n.msg)).toEqual(["pruner: summarization failed: everything down"]);

    route((model) => (isPrimary(model) ? err("still down") : ok("- rescued")));
    const second = makeCtx();
    const result = await summarizeBatch(batch() as any, distinct(), second.ctx, { controller });
    expect(result?.summaryText).toBe("- rescued");
    expect(second.notes).toEqual([{ msg: enterNotice("everything down"), level: "warning" }]);
  });

  test("a failure of the steady-state fallback is reported and not retried", async () => {
    const controller = new FallbackController();
    controller.onPrimaryFailFallbackOk(false);
    const calls = route(() => err("session down"));
    const { ctx, notes } = makeCtx();
    expect(await summarizeBatch(batch() as any, distinct(), ctx, { controller })).toBeNull();
    expect(calls.map((c) => c.model)).toEqual([S]);
    expect(notes).toEqual([{ msg: "pruner: summarization failed: session down", level: "error" }]);
    expect(controller.inFallback).toBe(true);
  });

  test("an auth failure on the primary notifies and never retries (35)", async () => {
    const calls = route(() => ok("- never"));
    const { ctx, notes } = makeCtx({
      getApiKeyAndHeaders: async () => ({ ok: false, error: 'No API key found for "p"' }),
    });
    const controller = new FallbackController();
    expect(await summarizeBatch(batch() as any, distinct(), ctx, { controller })).toBeNull();
    expect(calls).toHaveLength(0);
    expect(notes).toEqual([{ msg: 'pruner: summarization failed: No API key found for "p"', level: "error" }]);
    expect(controller.inFallback).toBe(false);
    expect(controller.chooseTarget()).toEqual({ target: "primary", wasProbe: false });
  });

  test("an auth failure without an error field reports authentication failed", async () => {
    route(() => ok("- never"));
    const { ctx, notes } = makeCtx({ getApiKeyAndHeaders: async () => ({ ok: false }) });
    expect(await summarizeBatch(batch() as any, cfg(), ctx)).toBeNull();
    expect(notes).toEqual([{ msg: "pruner: summarization failed: authentication failed", level: "error" }]);
  });

  test("truncated and empty replies return null silently and leave the controller alone (36)", async () => {
    const controller = new FallbackController();
    const { ctx, notes } = makeCtx();
    route(() => scripted([], response("- partial", "length")));
    expect(await summarizeBatch(batch() as any, distinct(), ctx, { controller })).toBeNull();
    route(() => ok(""));
    expect(await summarizeBatch(batch() as any, distinct(), ctx, { controller })).toBeNull();
    route(() => ok(" \n\t"));
    expect(await summarizeBatch(batch() as any, distinct(), ctx, { controller })).toBeNull();
    expect(notes).toEqual([]);
    expect(controller.inFallback).toBe(false);
  });

  test("an unusable probe does not recover and consumes the probe slot (36)", async () => {
    let now = 0;
    const controller = new FallbackController(() => now);
    controller.onPrimaryFailFallbackOk(false);
    now = COOLDOWN_MS;
    const calls = route(() => scripted([], response("- partial", "length")));
    const { ctx, notes } = makeCtx();
    expect(await summarizeBatch(batch() as any, distinct(), ctx, { controller })).toBeNull();
    expect(calls.map((c) => c.model)).toEqual([P]);
    expect(notes).toEqual([]);
    expect(controller.inFallback).toBe(true);
    expect(controller.chooseTarget()).toEqual({ target: "fallback", wasProbe: false });
  });

  test("a successful probe recovers with an info notice", async () => {
    let now = 0;
    const controller = new FallbackController(() => now);
    controller.onPrimaryFailFallbackOk(false);
    now = COOLDOWN_MS;
    route(() => ok("- back"));
    const { ctx, notes } = makeCtx();
    expect((await summarizeBatch(batch() as any, distinct(), ctx, { controller }))?.summaryText).toBe("- back");
    expect(notes).toEqual([{ msg: "pi-condense: summarizer model Primary recovered", level: "info" }]);
    expect(controller.inFallback).toBe(false);
  });

  test("an already-aborted signal rejects before any model call (9)", async () => {
    const calls = route(() => ok("- never"));
    const { ctx, notes } = makeCtx();
    const abort = new AbortController();
    abort.abort();
    const controller = new FallbackController();
    await expect(
      summarizeBatch(batch() as any, distinct(), ctx, { controller, signal: abort.signal }),
    ).rejects.toThrow("summarize: aborted before start");
    expect(calls).toHaveLength(0);
    expect(notes).toEqual([]);
  });

  test("the usage of a rescued call is the session model's usage", async () => {
    const sessionUsage = { ...USAGE, input: 7 };
    route((model) =>
      isPrimary(model) ? err("boom") : scripted([], { ...response("- r"), usage: sessionUsage }),
    );
    const { ctx } = makeCtx();
    const result = await summarizeBatch(batch() as any, distinct(), ctx, { controller: new FallbackController() });
    expect(result?.usage).toBe(sessionUsage);
  });
});

describe("summarizeBatch timeouts", () => {
  test("an idle timeout on a hanging stream returns null with one stalled warning (10)", async () => {
    route((_m, call) => hanging(call.options.signal));
    const { ctx, notes } = makeCtx();
    const result = await summarizeBatch(
      batch() as any,
      cfg({ summarizerIdleTimeoutMs: 20, summarizerMaxTimeoutMs: 0 }),
      ctx,
    );
    expect(result).toBeNull();
    expect(notes).toEqual([
      {
        msg: "pi-condense: summarizer Session stalled (no output for 0s); summarizer call abandoned",
        level: "warning",
      },
    ]);
  });

  test("a ceiling timeout on a hanging stream returns null with one ceiling warning (11)", async () => {
    route((_m, call) => hanging(call.options.signal));
    const { ctx, notes } = makeCtx();
    const result = await summarizeBatch(
      batch() as any,
      cfg({ summarizerIdleTimeoutMs: 0, summarizerMaxTimeoutMs: 20 }),
      ctx,
    );
    expect(result).toBeNull();
    expect(notes).toEqual([
      { msg: "pi-condense: summarizer Session exceeded 0s ceiling; summarizer call abandoned", level: "warning" },
    ]);
  });

  test("a stream that ignores its abort signal still ends at the idle timeout", async () => {
    route(() => deaf());
    const { ctx, notes } = makeCtx();
    const result = await summarizeBatch(
      batch() as any,
      cfg({ summarizerIdleTimeoutMs: 20, summarizerMaxTimeoutMs: 0 }),
      ctx,
    );
    expect(result).toBeNull();
    expect(notes.map((n) => n.msg)).toEqual([
      "pi-condense: summarizer Session stalled (no output for 0s); summarizer call abandoned",
    ]);
  });

  test("a stall after the last event, while awaiting the result, also times out", async () => {
    route((_m, call) => ({
      async *[Symbol.asyncIterator]() {
        yield { type: "start" };
      },
      result: () => untilAbort(call.options.signal),
    }));
    const { ctx, notes } = makeCtx();
    const result = await summarizeBatch(batch() as any, cfg({ summarizerIdleTimeoutMs: 20 }), ctx);
    expect(result).toBeNull();
    expect(notes[0].msg).toContain("stalled");
  });

  test("a timeout whose stream resolves with an error stop reason reports the timeout", async () => {
    route((_m, call) => ({
      async *[Symbol.asyncIterator]() {},
      result: () =>
        untilAbort(call.options.signal).catch(() => response("", "error", "Request was aborted")),
    }));
    const { ctx, notes } = makeCtx();
    expect(await summarizeBatch(batch() as any, cfg({ summarizerIdleTimeoutMs: 20 }), ctx)).toBeNull();
    expect(notes).toEqual([
      {
        msg: "pi-condense: summarizer Session stalled (no output for 0s); summarizer call abandoned",
        level: "warning",
      },
    ]);
  });

  test("the timeout label falls back to provider/id when the model has no name", async () => {
    route((_m, call) => hanging(call.options.signal));
    const { ctx, notes } = makeCtx({}, { id: "session-model", provider: "provider-b" });
    await summarizeBatch(batch() as any, cfg({ summarizerIdleTimeoutMs: 20 }), ctx);
    expect(notes[0].msg).toBe(
      "pi-condense: summarizer provider-b/session-model stalled (no output for 0s); summarizer call abandoned",
    );
  });

  test("a primary that times out is rescued by the session model with exactly one warning (12, option B)", async () => {
    route((model, call) => (isPrimary(model) ? hanging(call.options.signal) : ok("- rescued")));
    const { ctx, byLevel } = makeCtx();
    const controller = new FallbackController();
    const result = await summarizeBatch(batch() as any, distinct({ summarizerIdleTimeoutMs: 20 }), ctx, {
      controller,
    });
    expect(result?.summaryText).toBe("- rescued");
    expect(controller.inFallback).toBe(true);
    expect(byLevel("warning").map((n) => n.msg)).toEqual([enterNotice("summarizer Primary stalled (no output for 0s)")]);
    expect(byLevel("error")).toEqual([]);
  });

  test("when both models time out one timeout warning names the session model (13)", async () => {
    route((_m, call) => hanging(call.options.signal));
    const { ctx, notes } = makeCtx();
    const controller = new FallbackController();
    const result = await summarizeBatch(batch() as any, distinct({ summarizerIdleTimeoutMs: 20 }), ctx, {
      controller,
    });
    expect(result).toBeNull();
    expect(notes).toEqual([
      {
        msg: "pi-condense: summarizer Session stalled (no output for 0s); summarizer call abandoned",
        level: "warning",
      },
    ]);
    expect(controller.inFallback).toBe(true);
  });

  test("an already-aborted signal on a hanging stream rejects without a warning (14)", async () => {
    route((_m, call) => hanging(call.options.signal));
    const { ctx, notes } = makeCtx();
    const abort = new AbortController();
    abort.abort();
    await expect(
      summarizeBatch(batch() as any, cfg({ summarizerIdleTimeoutMs: 20 }), ctx, { signal: abort.signal }),
    ).rejects.toThrow();
    expect(notes).toEqual([]);
  });

  test("a user abort mid-stream is re-thrown, not reported as a timeout", async () => {
    route((_m, call) => hanging(call.options.signal));
    const { ctx, notes } = makeCtx();
    const abort = new AbortController();
    const controller = new FallbackController();
    const pending = summarizeBatch(batch() as any, distinct({ summarizerIdleTimeoutMs: 0 }), ctx, {
      signal: abort.signal,
      controller,
    });
    setTimeout(() => abort.abort(), 5);
    await expect(pending).rejects.toThrow("summarize: aborted during stream");
    expect(notes).toEqual([]);
    expect(controller.inFallback).toBe(false);
  });

  test("a stream that keeps emitting events is not cut off by the idle timer (16)", async () => {
    route((_m, call) => dripping(6, 10, "- dripped", call.options.signal));
    const { ctx, notes } = makeCtx();
    const result = await summarizeBatch(
      batch() as any,
      cfg({ summarizerIdleTimeoutMs: 25, summarizerMaxTimeoutMs: 0 }),
      ctx,
    );
    expect(result?.summaryText).toBe("- dripped");
    expect(notes).toEqual([]);
  });

  test("a timeout in one parallel batch does not abort its sibling", async () => {
    route((_m, call) =>
      promptOf(call).includes("HANGS") ? hanging(call.options.signal) : dripping(3, 10, "- sibling", call.options.signal),
    );
    const { ctx } = makeCtx();
    const results = await summarizeBatches(
      [batch("HANGS", "h1"), batch("fine", "f1")] as any,
      cfg({ summarizerIdleTimeoutMs: 15, summarizerMaxTimeoutMs: 0 }),
      ctx,
    );
    expect(results[0]).toBeNull();
    expect(results[1]?.summaryText).toBe("- sibling");
  });
});

describe("summarizeBatches", () => {
  test("zero batches give an empty array without calling the model (40)", async () => {
    const calls = route(() => ok("- never"));
    expect(await summarizeBatches([], cfg(), makeCtx().ctx)).toEqual([]);
    expect(calls).toHaveLength(0);
  });

  test("results stay index-aligned with a null for the failed batch (40)", async () => {
    route((_m, call) => {
      const text = promptOf(call);
      if (text.includes("MARK-1")) return err("nope");
      return ok(text.includes("MARK-0") ? "- r0" : "- r2");
    });
    const { ctx } = makeCtx();
    const results = await summarizeBatches(
      [batch("MARK-0", "a"), batch("MARK-1", "b"), batch("MARK-2", "c")] as any,
      cfg(),
      ctx,
    );
    expect(results.map((r) => r?.summaryText ?? null)).toEqual(["- r0", null, "- r2"]);
  });

  test("only the first of three parallel batches probes the primary after the cooldown (39)", async () => {
    let now = 0;
    const controller = new FallbackController(() => now);
    controller.onPrimaryFailFallbackOk(false);
    now = COOLDOWN_MS;
    const calls = route((model) => ok(isPrimary(model) ? "- primary" : "- session"));
    const { ctx } = makeCtx();
    const results = await summarizeBatches(
      [batch("a", "a"), batch("b", "b"), batch("c", "c")] as any,
      distinct(),
      ctx,
      { controller },
    );
    expect(calls.map((c) => c.model.id)).toEqual([P.id, S.id, S.id]);
    expect(results.map((r) => r?.summaryText)).toEqual(["- primary", "- session", "- session"]);
  });

  test("text progress is forwarded with the batch index and total", async () => {
    const part = (text: string) => ({ ...response(""), content: [{ type: "text", text }] });
    route(() => scripted([{ type: "text_delta", partial: part("abc") }], response("abc")));
    const { ctx } = makeCtx();
    const b = batch();
    const seen: any[] = [];
    await summarizeBatches([b] as any, cfg(), ctx, {
      onBatchTextProgress: (index, total, which, chars) => seen.push([index, total, which === b, chars]),
    });
    expect(seen).toEqual([
      [0, 1, true, 0],
      [0, 1, true, 3],
    ]);
  });

  test("an abort in a child rejects the whole call", async () => {
    route((_m, call) => hanging(call.options.signal));
    const abort = new AbortController();
    const pending = summarizeBatches([batch("a", "a"), batch("b", "b")] as any, cfg({ summarizerIdleTimeoutMs: 0 }), makeCtx().ctx, {
      signal: abort.signal,
    });
    setTimeout(() => abort.abort(), 5);
    await expect(pending).rejects.toThrow("summarize: aborted during stream");
  });
});

describe("summarizeRange", () => {
  test("wraps the per-batch text after the range prompt in sub-task-summaries tags (41)", async () => {
    const calls = route(() => ok("- fused"));
    const { ctx } = makeCtx();
    const result = await summarizeRange("…per-batch text…", cfg(), ctx);
    expect(result?.summaryText).toBe("- fused");
    const text = promptOf(calls[0]);
    expect(text.startsWith("You are fusing several per-step summaries")).toBe(true);
    expect(text.endsWith("\n\n<sub-task-summaries>\n…per-batch text…\n</sub-task-summaries>")).toBe(true);
    expect(calls[0].context.messages).toHaveLength(1);
  });

  test("range fusion uses the same outage fallback (41)", async () => {
    route((model) => (isPrimary(model) ? err("boom") : ok("- fused by session")));
    const { ctx, notes } = makeCtx();
    const controller = new FallbackController();
    const result = await summarizeRange("text", distinct(), ctx, { controller });
    expect(result?.summaryText).toBe("- fused by session");
    expect(notes).toEqual([{ msg: enterNotice("boom"), level: "warning" }]);
  });

  test("range fusion uses the same idle timeout (41)", async () => {
    route((_m, call) => hanging(call.options.signal));
    const { ctx, notes } = makeCtx();
    expect(await summarizeRange("text", cfg({ summarizerIdleTimeoutMs: 20 }), ctx)).toBeNull();
    expect(notes.map((n) => n.level)).toEqual(["warning"]);
    expect(notes[0].msg).toContain("stalled");
  });
});
