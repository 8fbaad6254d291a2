/**
 * A recorded Anthropic session file's entries, built message by message: each entry chained to the one before
 * it, five seconds apart, assistant messages stamped with claude-sonnet-4-5 as pi records them.
 */
import type { SessionEntry } from "@earendil-works/pi-coding-agent";

/** `api`: the wire the assistant messages name (the provider stays anthropic). */
export function recordedSession(api = "anthropic-messages"): { entries: SessionEntry[]; add: (message: any) => void } {
  const entries: any[] = [];
  let time = 1_000_000;
  const add = (message: any) => {
    time += 5_000;
    const full = message.role === "assistant" ? { ...message, api, provider: "anthropic", model: "claude-sonnet-4-5" } : message;
    entries.push({ type: "message", id: `e${entries.length}`, parentId: entries.length ? `e${entries.length - 1}` : null, timestamp: new Date(time).toISOString(), message: { ...full, timestamp: time } });
  };
  return { entries, add };
}
