/**
 * Phase 2: a failed tool call's arguments (often a large file body the model
 * tried to write) are dead weight once the model has moved on. After
 * `cooldownTurns` assistant turns, arguments at least `minArgChars` long (as
 * JSON) are replaced by a size marker. The error result itself is kept.
 * The caller gates on `config.enabled`.
 */
import type { ErrorPurgeConfig } from "../types.js";

export function purgeErroredArgs(messages: any[], config: ErrorPurgeConfig): any[] {
  const { errorTurns, currentTurn } = erroredCallTurns(messages);
  if (errorTurns.size === 0) return messages;

  let out: any[] | null = null;
  for (let i = 0; i < messages.length; i++) {
    const msg = messages[i];
    if (msg?.role !== "assistant" || !Array.isArray(msg.content)) continue;
    const content = purgeBlocks(msg.content, errorTurns, currentTurn, config);
    if (content === msg.content) continue;
    out ??= messages.slice();
    out[i] = { ...msg, content };
  }
  return out ?? messages;
}

/** Maps each errored tool-call id to the assistant-turn count at its (latest) errored result. */
function erroredCallTurns(messages: any[]): { errorTurns: Map<string, number>; currentTurn: number } {
  const errorTurns = new Map<string, number>();
  let turn = 0;
  for (const msg of messages) {
    if (msg?.role === "assistant") turn++;
    else if (msg?.role === "toolResult" && msg.isError === true) errorTurns.set(msg.toolCallId, turn);
  }
  return { errorTurns, currentTurn: turn };
}

function purgeBlocks(
  content: any[],
  errorTurns: Map<string, number>,
  currentTurn: number,
  config: ErrorPurgeConfig,
): any[] {
  let out: any[] | null = null;
  for (let j = 0; j < content.length; j++) {
    const block = content[j];
    if (block?.type !== "toolCall" || !("arguments" in block)) continue;
    const errorTurn = errorTurns.get(block.id);
    // Written positively so a missing config field (shallow-merged settings) purges nothing.
    if (errorTurn === undefined || !(currentTurn - errorTurn >= config.cooldownTurns)) continue;
    const json = JSON.stringify(block.arguments);
    if (json === undefined || !(json.length >= config.minArgChars)) continue;
    out ??= content.slice();
    out[j] = { ...block, arguments: { _purged: `<purged-errored-args size="${json.length}"/>` } };
  }
  return out ?? content;
}
