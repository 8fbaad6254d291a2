/** Shape predicates over pi-ai messages shared by capture, chain detection, metrics and the turn hooks. */
import type { AssistantMessage } from "@earendil-works/pi-ai";

export function toolCallBlocks(message: any): any[] {
  const content = message?.content;
  if (!Array.isArray(content)) return [];
  return content.filter((block: any) => block?.type === "toolCall");
}

/** An assistant reply without toolCall blocks: the end of a chain, the agent's final text answer. */
export function isTextOnlyAssistant(message: any): message is AssistantMessage {
  if (message?.role !== "assistant") return false;
  return !(Array.isArray(message.content) && message.content.some((block: any) => block?.type === "toolCall"));
}

/** Custom types this package writes, now and later (`context-prune-*`), or that carry its name (`pi-condense*`). */
export function isPrunerCustomType(customType: unknown): boolean {
  // Not String(value): an object read back from a session file could throw when converted.
  const type = typeof customType === "string" ? customType : "";
  return type.startsWith("context-prune-") || type.startsWith("pi-condense");
}

/**
 * A custom message another extension sent (an orchestrator's steer, a
 * sub-agent notice): it may open a chain like a user message does.
 */
export function isChainAnchorCustom(msg: any): boolean {
  return msg?.role === "custom" && !isPrunerCustomType(msg.customType);
}
