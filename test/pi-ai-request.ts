// The request body pi-ai's own code builds for a model and a conversation: its stream function is called
// with an `onPayload` hook that keeps the body and throws, so the request never leaves the process (pi-ai
// turns the throw into an error event, which is drained). Tests run pi-condense's readers and marker
// placement on these bodies, not on hand-built imitations.
import type { Api, AssistantMessage, Message, Model, StreamOptions, Tool } from "@earendil-works/pi-ai";
import { stream as anthropicStream } from "@earendil-works/pi-ai/api/anthropic-messages";
import { stream as bedrockStream } from "@earendil-works/pi-ai/api/bedrock-converse-stream";
import { stream as completionsStream } from "@earendil-works/pi-ai/api/openai-completions";
import { normalizeContext } from "@earendil-works/pi-ai/utils/transcript";

const CAPTURED = "pi-condense test: request body captured";

const STREAMS: Record<string, (model: any, context: any, options: any) => AsyncIterable<any>> = {
  "anthropic-messages": anthropicStream,
  "bedrock-converse-stream": bedrockStream,
  "openai-completions": completionsStream,
};

export const READ_TOOL: Tool = { name: "read", description: "Read a file", parameters: { type: "object", properties: { path: { type: "string" } } } };

/** The body pi-ai would send for `messages` (with a system prompt and the read tool) to `model`. */
export async function piAiRequest(model: Model<Api>, messages: Message[], options: Partial<StreamOptions> = {}, systemPrompt = "You are a careful coding agent."): Promise<any> {
  const stream = STREAMS[model.api];
  if (!stream) throw new Error(`no pi-ai stream for ${model.api} in this helper`);
  let body: unknown;
  const context = normalizeContext({ systemPrompt, messages, tools: [READ_TOOL] });
  const events = stream(model, context, {
    apiKey: "test-key",
    ...options,
    onPayload: (payload: unknown) => {
      body = payload;
      throw new Error(CAPTURED);
    },
  });
  for await (const event of events) {
    if (event.type === "error" && event.error?.errorMessage !== CAPTURED) throw new Error(`pi-ai failed before the payload: ${event.error?.errorMessage}`);
  }
  if (body === undefined) throw new Error(`pi-ai built no payload for ${model.provider}/${model.id}`);
  return body;
}

export interface TurnShape {
  /** Turn numbers (1-based) whose tool result is a short stub. */
  stubs?: number[];
  /** Each assistant turn starts with a thinking block (signed, so pi-ai replays it). */
  thinking?: boolean;
}

/** A prompt, then `turns` tool turns (assistant tool call, tool result) written by `model` itself. */
export function toolTurns(model: Model<Api>, turns: number, shape: TurnShape = {}): Message[] {
  const messages: Message[] = [{ role: "user", content: [{ type: "text", text: "Fix the failing test." }], timestamp: 1 }];
  for (let k = 1; k <= turns; k++) {
    const call = { type: "toolCall" as const, id: `call_${k}`, name: "read", arguments: { path: `/src/file${k}.ts` } };
    const thinking = { type: "thinking" as const, thinking: `Read file ${k} next.`, thinkingSignature: `sig${k}` };
    const assistant: AssistantMessage = {
      role: "assistant",
      content: shape.thinking ? [thinking, call] : [call],
      api: model.api,
      provider: model.provider,
      model: model.id,
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
      stopReason: "toolUse",
      timestamp: 2 * k,
    };
    const text = shape.stubs?.includes(k) ? `[[${k}:read]] stub` : `line ${k} of the output `.repeat(60);
    messages.push(assistant, { role: "toolResult", toolCallId: call.id, toolName: "read", content: [{ type: "text", text }], isError: false, timestamp: 2 * k + 1 });
  }
  return messages;
}
