// Loopback fake LLM provider speaking OpenAI chat-completions and Anthropic messages (SSE).
// Plays scripted replies for the main model and rule-routed replies for summarizer calls,
// records every request, and rejects structurally invalid requests like the real providers.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { writeFileSync } from "node:fs";
import { anthropicFrames, errorBody, openAiFrames, type FakeApi, type ScriptedReply, type StreamPlan } from "./sse.js";
import type { CacheUsage, PromptCacheSim } from "./cache-sim.js";
import { inputChars } from "./metrics.js";
import { validateAnthropicBody, validateAnthropicMessages, validateOpenAiMessages, type WireViolation } from "./wire-validate.js";

export type { FakeApi, ScriptedReply, ScriptedToolCall } from "./sse.js";

export const BATCH_MARKER = "You are summarizing a batch of tool calls";
export const RANGE_MARKER = "You are fusing several per-step summaries";

export interface RecordedRequest {
  seq: number;
  /** `warm`: pi's cache warming sending the last main request again with a one-token cap (answered empty, no scripted reply taken). */
  kind: "main" | "summarizer" | "warm";
  path: string;
  headers: Record<string, string>;
  body: any;
  api: FakeApi;
  model: string;
  /** HTTP status answered. */
  status: number;
  /** Provider error text when the request was rejected by wire validation. */
  rejected?: string;
  /** What the prompt-cache simulation billed, under the rule of the request's wire format (when the fake has one). */
  cache?: CacheUsage;
  /** When it arrived (ms since the epoch). */
  at: number;
}

export type ReplySource = ScriptedReply | ((req: RecordedRequest) => ScriptedReply);

export interface SummarizerRule {
  marker: string;
  /** When set, the rule only matches requests for this model id. */
  model?: string;
  reply: ReplySource;
}

export interface FakeLlmScript {
  main: ReplySource[];
  /** Default: echo summaries for the batch and range prompts. `[]` disables summarizer routing. */
  summarizers?: SummarizerRule[];
  exhausted?: ScriptedReply;
}

export interface FakeLlmOptions {
  /** Bill requests against this simulated prompt cache (see cache-sim.ts); summarizer calls under their own key. */
  cache?: PromptCacheSim;
}

export interface FakeLlm {
  port: number;
  baseUrl(api: FakeApi): string;
  requests: RecordedRequest[];
  setScript(s: FakeLlmScript): void;
  /** Write the request log as JSONL (debugging aid). */
  dump(file: string): void;
  close(): Promise<void>;
}

/** Text of every user-role text block of a request, in order. */
export function userTexts(body: any): string[] {
  const out: string[] = [];
  for (const m of body?.messages ?? []) {
    if (m?.role !== "user") continue;
    if (typeof m.content === "string") out.push(m.content);
    else for (const b of m.content ?? []) if (b?.type === "text") out.push(b.text);
  }
  return out;
}

/** A summary that keeps every `[[N:tool]]` label of the batch, like a well-behaved summarizer. */
export function echoBatchSummary(req: RecordedRequest): ScriptedReply {
  const text = userTexts(req.body).join("\n");
  const labels = [...new Set(text.match(/\[\[\d+:[^\]\s]+\]\]/g) ?? [])];
  const lines = labels.map((l) => `- ${l} fake summary: the call ran and its output was noted.`);
  return { text: lines.length > 0 ? lines.join("\n") : "- fake summary of the batch." };
}

export function echoRangeSummary(req: RecordedRequest): ScriptedReply {
  const text = userTexts(req.body).join("\n");
  const refs = [...new Set(text.match(/`t\d+`/g) ?? [])];
  return { text: `Fused fake summary of a closed sub-task${refs.length ? `; refs ${refs.join(", ")}` : ""}.` };
}

export const DEFAULT_SUMMARIZERS: SummarizerRule[] = [
  { marker: BATCH_MARKER, reply: echoBatchSummary },
  { marker: RANGE_MARKER, reply: echoRangeSummary },
];

function detectApi(path: string): FakeApi | undefined {
  if (path.endsWith("/chat/completions")) return "openai-completions";
  if (path.endsWith("/messages")) return "anthropic-messages";
  return undefined;
}

function flatHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) out[k] = Array.isArray(v) ? v.join(", ") : String(v ?? "");
  return out;
}

function hasTools(body: any): boolean {
  return Array.isArray(body?.tools) && body.tools.length > 0;
}

/**
 * pi's cache-warming refresh: the last main request again, capped at one output token (pi-ai's
 * `getCacheWarmingRequestOptions`). A real request near the context window can be capped at one token too, but
 * it carries new messages.
 */
function isWarming(body: any, lastMain: RecordedRequest | undefined): boolean {
  if (body?.max_tokens !== 1 && body?.max_completion_tokens !== 1) return false;
  return lastMain !== undefined && JSON.stringify(body?.messages) === JSON.stringify(lastMain.body?.messages);
}

/** The marker limits hold on both wires: an OpenAI-format body with `cache_control` goes to an Anthropic model (OpenRouter). */
function validate(api: FakeApi, body: any): WireViolation | undefined {
  return validateAnthropicBody(body) ?? (api === "anthropic-messages" ? validateAnthropicMessages(body?.messages) : validateOpenAiMessages(body?.messages));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function planFor(reply: ScriptedReply, rec: RecordedRequest): StreamPlan {
  const prefix = rec.api === "anthropic-messages" ? "toolu" : "call";
  const cached = reply.promptTokens === undefined ? rec.cache : undefined;
  // Anthropic's input_tokens leaves the cached tokens out; OpenAI's prompt_tokens counts them (reads, and OpenRouter's writes).
  const billedPrompt = cached && (rec.api === "anthropic-messages" ? cached.inputTokens : cached.inputTokens + cached.cacheReadTokens + cached.cacheWriteTokens);
  return {
    model: rec.model,
    text: reply.text,
    thinking: reply.thinking,
    calls: (reply.toolCalls ?? []).map((c, i) => ({ id: c.id ?? `${prefix}_${rec.seq}_${i}`, name: c.name, args: c.args })),
    promptTokens: billedPrompt ?? reply.promptTokens ?? Math.ceil(inputChars(rec) / 4),
    ...(reply.stopped ? { stopped: true } : {}),
    completionTokens: reply.completionTokens ?? 20,
    ...(cached ? { cacheReadTokens: cached.cacheReadTokens, cacheWriteTokens: cached.cacheWriteTokens } : {}),
  };
}

function sendStream(res: ServerResponse, frames: string[]): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  for (const f of frames) res.write(f);
  res.end();
}

function stall(req: IncomingMessage, res: ServerResponse, ms: number): Promise<void> {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  res.write(": stall\n\n");
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      if (!res.writableEnded) res.end();
      resolve();
    };
    const timer = setTimeout(done, ms);
    req.on("close", done);
    res.on("close", done);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The session a request belongs to: pi's session-affinity header when sent, else one shared session. */
function sessionKey(rec: RecordedRequest): string {
  return rec.headers["x-session-affinity"] ?? rec.headers["x-session-id"] ?? "session";
}

export async function startFakeLlm(initial: FakeLlmScript, options: FakeLlmOptions = {}): Promise<FakeLlm> {
  let script = initial;
  let mainCursor = 0;
  const requests: RecordedRequest[] = [];

  const pickReply = (rec: RecordedRequest): ScriptedReply => {
    const resolve = (src: ReplySource) => (typeof src === "function" ? src(rec) : src);
    if (rec.kind === "summarizer") {
      const rule = (script.summarizers ?? DEFAULT_SUMMARIZERS).find((r) => matches(r, rec));
      return resolve(rule!.reply);
    }
    const next = script.main[mainCursor];
    if (next === undefined) return script.exhausted ?? { text: "SCRIPT EXHAUSTED" };
    mainCursor++;
    return resolve(next);
  };

  const matches = (rule: SummarizerRule, rec: RecordedRequest) =>
    (rule.model === undefined || rule.model === rec.model) && JSON.stringify(rec.body).includes(rule.marker);

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? "").split("?")[0]!;
    const api = detectApi(path);
    const raw = await readBody(req);
    if (!api || req.method !== "POST") {
      res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: `no route ${path}` } }));
      return;
    }
    let body: any;
    try {
      body = JSON.parse(raw);
    } catch {
      body = raw;
    }
    const rec: RecordedRequest = { seq: requests.length + 1, kind: "main", path, headers: flatHeaders(req), body, api, model: String(body?.model ?? ""), status: 200, at: Date.now() };
    requests.push(rec);
    if (!hasTools(body) && (script.summarizers ?? DEFAULT_SUMMARIZERS).some((r) => matches(r, rec))) rec.kind = "summarizer";
    else if (isWarming(body, requests.findLast((r) => r.kind === "main" && r !== rec))) rec.kind = "warm";
    const violation = validate(api, body);
    if (violation) {
      rec.status = 400;
      rec.rejected = violation.message;
      res.writeHead(400, { "content-type": "application/json" }).end(errorBody(api, 400, violation.message, violation.param));
      return;
    }
    // Summarizer calls get a cache of their own per model: they share their instructions, never the main prefix.
    if (options.cache) rec.cache = options.cache.account(rec.kind === "summarizer" ? `summarizer:${rec.model}` : sessionKey(rec), body, api);
    const reply = rec.kind === "warm" ? { text: "", completionTokens: 1 } : pickReply(rec);
    if (reply.delayMs) await sleep(reply.delayMs);
    if (reply.stallMs) return stall(req, res, reply.stallMs);
    if (reply.status && reply.status !== 200) {
      rec.status = reply.status;
      res.writeHead(reply.status, { "content-type": "application/json" }).end(errorBody(api, reply.status, `fake error ${reply.status}`));
      return;
    }
    const responseId = `${api === "anthropic-messages" ? "msg" : "chatcmpl"}-fake-${rec.seq}`;
    const plan = planFor(reply, rec);
    sendStream(res, api === "anthropic-messages" ? anthropicFrames(plan, responseId) : openAiFrames(plan, responseId));
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `fake server failure: ${String(err)}`, type: "server_error" } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    port,
    requests,
    baseUrl: (api) => (api === "anthropic-messages" ? `http://127.0.0.1:${port}` : `http://127.0.0.1:${port}/v1`),
    setScript(s) {
      script = s;
      mainCursor = 0;
    },
    dump(file) {
      writeFileSync(file, requests.map((r) => JSON.stringify(r)).join("\n") + "\n");
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
