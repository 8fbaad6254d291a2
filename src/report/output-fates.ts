/**
 * The biggest tool outputs of a session and what each configuration's last
 * request made of them: kept whole, replaced by a stub (naming its ref), or
 * gone from the request (a compressed chain or a compaction). Pure.
 */
import { entryMessage, isAssistant, isToolCall, isToolResult } from "../capture/message-shape.js";
import type { ToolCall, ToolResultMessage } from "@earendil-works/pi-ai";
import type { SessionEntry } from "@earendil-works/pi-coding-agent";
import { extractToolResultText } from "../capture/batch-capture.js";

export const BIGGEST_OUTPUTS = 5;

export interface OutputFate {
  toolName: string;
  toolCallId: string;
  /** A short view of the call (its command or path), for the reader. */
  call: string;
  chars: number;
  /** Per configuration label: what the last request held in its place. */
  fates: Array<{ label: string; fate: string }>;
}

interface Final {
  label: string;
  messages: unknown[];
}

function callView(branch: SessionEntry[], toolCallId: string): string {
  for (const entry of branch) {
    const message = entryMessage(entry);
    if (!isAssistant(message) || !Array.isArray(message.content)) continue;
    const block = message.content.find((b): b is ToolCall => isToolCall(b) && b.id === toolCallId);
    if (!block) continue;
    const args: Record<string, unknown> = block.arguments ?? {};
    const shown = typeof args.command === "string" ? args.command : typeof args.path === "string" ? args.path : JSON.stringify(args);
    return String(shown).replace(/\s+/g, " ").slice(0, 80);
  }
  return "";
}

function fateIn(messages: unknown[], original: ToolResultMessage, originalText: string): string {
  // Matched by occurrence (id and time): a provider may reuse an id across requests.
  const result = messages.find((m) => isToolResult(m) && m.toolCallId === original.toolCallId && m.timestamp === original.timestamp);
  if (!result) return "not in the request (compressed or compacted away)";
  const text = extractToolResultText(result);
  if (text === originalText) return "kept whole";
  const ref = /ref `([^`]+)`/.exec(text)?.[1];
  return ref ? `stub, ref ${ref} (${text.length} chars)` : `shortened to ${text.length} chars`;
}

export function fateOfOutputs(branch: SessionEntry[], finals: Final[]): OutputFate[] {
  const results: Array<{ message: ToolResultMessage; text: string }> = [];
  for (const entry of branch) {
    const message = entryMessage(entry);
    if (isToolResult(message) && typeof message.toolCallId === "string") results.push({ message, text: extractToolResultText(message) });
  }
  results.sort((a, b) => b.text.length - a.text.length);
  return results.slice(0, BIGGEST_OUTPUTS).map(({ message, text }) => ({
    toolName: String(message.toolName ?? "tool"),
    toolCallId: message.toolCallId,
    call: callView(branch, message.toolCallId),
    chars: text.length,
    fates: finals.map((final) => ({ label: final.label, fate: fateIn(final.messages, message, text) })),
  }));
}
