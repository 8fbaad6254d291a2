// Serializes one scripted reply as the streaming body of each wire format.

export interface ScriptedToolCall {
  id?: string;
  name: string;
  args: Record<string, unknown>;
}

export interface ScriptedReply {
  text?: string;
  thinking?: string;
  toolCalls?: ScriptedToolCall[];
  /** Reported input tokens (drives getContextUsage). Default: request chars / 4. */
  promptTokens?: number;
  completionTokens?: number;
  /** Non-200 => JSON error body, no stream. */
  status?: number;
  /** Send headers + one SSE comment, then nothing for stallMs, then end the response. */
  stallMs?: number;
  /** Wait before answering normally. */
  delayMs?: number;
  /**
   * End the reply with a stop reason pi-ai turns into `stopReason: "error"` (Anthropic `refusal`, OpenAI
   * `content_filter`): pi ends the run there, as after an aborted or failed turn; the reply's tool calls stay unanswered.
   */
  stopped?: boolean;
}

export type FakeApi = "openai-completions" | "anthropic-messages";

export interface ResolvedCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
}

export interface StreamPlan {
  model: string;
  text?: string;
  thinking?: string;
  calls: ResolvedCall[];
  promptTokens: number;
  completionTokens: number;
  /** Prompt-cache figures (OpenAI: the read and any write, inside `promptTokens`); absent means the provider reports no cache use. */
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  stopped?: boolean;
}

function splitInTwo(s: string): string[] {
  if (s.length < 2) return [s];
  const mid = Math.ceil(s.length / 2);
  return [s.slice(0, mid), s.slice(mid)];
}

export function openAiFrames(plan: StreamPlan, responseId: string): string[] {
  const created = Math.floor(Date.now() / 1000);
  const chunk = (delta: unknown, finish: string | null = null) =>
    JSON.stringify({ id: responseId, object: "chat.completion.chunk", created, model: plan.model, choices: [{ index: 0, delta, finish_reason: finish }] });
  const frames: string[] = [chunk({ role: "assistant", content: "" })];
  if (plan.thinking) for (const part of splitInTwo(plan.thinking)) frames.push(chunk({ reasoning_content: part }));
  if (plan.text) for (const part of splitInTwo(plan.text)) frames.push(chunk({ content: part }));
  plan.calls.forEach((call, index) => {
    frames.push(chunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] }));
    for (const part of splitInTwo(JSON.stringify(call.args))) frames.push(chunk({ tool_calls: [{ index, function: { arguments: part } }] }));
  });
  frames.push(chunk({}, plan.stopped ? "content_filter" : plan.calls.length > 0 ? "tool_calls" : "stop"));
  const total = plan.promptTokens + plan.completionTokens;
  const usage: Record<string, unknown> = { prompt_tokens: plan.promptTokens, completion_tokens: plan.completionTokens, total_tokens: total };
  if (plan.cacheReadTokens !== undefined) {
    // OpenRouter reports an Anthropic model's cache writes beside the reads; OpenAI writes none.
    const writes = plan.cacheWriteTokens ? { cache_write_tokens: plan.cacheWriteTokens } : {};
    usage.prompt_tokens_details = { cached_tokens: plan.cacheReadTokens, ...writes };
  }
  frames.push(JSON.stringify({ id: responseId, object: "chat.completion.chunk", created, model: plan.model, choices: [], usage }));
  return [...frames.map((f) => `data: ${f}\n\n`), "data: [DONE]\n\n"];
}

function anthropicStartUsage(plan: StreamPlan): Record<string, number> {
  const usage: Record<string, number> = { input_tokens: plan.promptTokens, output_tokens: 1 };
  if (plan.cacheReadTokens !== undefined) {
    usage.cache_read_input_tokens = plan.cacheReadTokens;
    usage.cache_creation_input_tokens = plan.cacheWriteTokens ?? 0;
  }
  return usage;
}

export function anthropicFrames(plan: StreamPlan, responseId: string): string[] {
  const ev = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  const frames = [
    ev("message_start", {
      message: { id: responseId, type: "message", role: "assistant", model: plan.model, content: [], stop_reason: null, stop_sequence: null, usage: anthropicStartUsage(plan) },
    }),
  ];
  let index = 0;
  const block = (start: unknown, deltas: unknown[]) => {
    frames.push(ev("content_block_start", { index, content_block: start }));
    for (const delta of deltas) frames.push(ev("content_block_delta", { index, delta }));
    frames.push(ev("content_block_stop", { index }));
    index++;
  };
  if (plan.thinking) {
    const parts = splitInTwo(plan.thinking).map((thinking) => ({ type: "thinking_delta", thinking }));
    block({ type: "thinking", thinking: "", signature: "" }, [...parts, { type: "signature_delta", signature: `sig-${responseId}` }]);
  }
  if (plan.text) block({ type: "text", text: "" }, splitInTwo(plan.text).map((text) => ({ type: "text_delta", text })));
  for (const call of plan.calls) {
    const parts = splitInTwo(JSON.stringify(call.args)).map((partial_json) => ({ type: "input_json_delta", partial_json }));
    block({ type: "tool_use", id: call.id, name: call.name, input: {} }, parts);
  }
  const stop = plan.stopped ? "refusal" : plan.calls.length > 0 ? "tool_use" : "end_turn";
  frames.push(ev("message_delta", { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: plan.completionTokens } }));
  frames.push(ev("message_stop", {}));
  return frames;
}

export function errorBody(api: FakeApi, status: number, message: string, param?: string): string {
  if (api === "anthropic-messages") {
    const type = status === 400 ? "invalid_request_error" : status === 429 ? "rate_limit_error" : "api_error";
    return JSON.stringify({ type: "error", error: { type, message } });
  }
  if (status === 400) return JSON.stringify({ error: { message, type: "invalid_request_error", param: param ?? null, code: null } });
  return JSON.stringify({ error: { message, type: status >= 500 ? "server_error" : "invalid_request_error" } });
}
