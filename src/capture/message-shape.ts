/** Shape predicates over pi-ai messages shared by capture, chain detection, metrics and the turn hooks. */

export function toolCallBlocks(message: any): any[] {
  const content = message?.content;
  if (!Array.isArray(content)) return [];
  return content.filter((block: any) => block?.type === "toolCall");
}

/** An assistant reply without toolCall blocks: the end of a chain, the agent's final text answer. */
export function isTextOnlyAssistant(message: any): boolean {
  if (message?.role !== "assistant") return false;
  return !(Array.isArray(message.content) && message.content.some((block: any) => block?.type === "toolCall"));
}
