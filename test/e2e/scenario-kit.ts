// Small builders and readers shared by the e2e scenarios and the demo (no bun:test imports).
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { ScriptedReply } from "./fake-llm.js";
import { customEntries, mainRequests, parseJsonl, type Sandbox } from "./harness.js";
import { formatMetrics, measureRequests } from "./metrics.js";
import { orphanToolMessages } from "./wire-view.js";

export const APIS = ["openai-completions", "anthropic-messages"] as const;

export const bash = (command: string, id?: string): ScriptedReply => ({ toolCalls: [{ id, name: "bash", args: { command } }] });
export const read = (path: string, id?: string): ScriptedReply => ({ toolCalls: [{ id, name: "read", args: { path } }] });
export const say = (text: string): ScriptedReply => ({ text });
export const query = (...refs: string[]): ScriptedReply => ({ toolCalls: [{ name: "context_tree_query", args: { toolCallIds: refs } }] });

/** Every provider-side rejection and every orphan tool message in the main requests. */
export function problems(sb: Sandbox): string[] {
  const rejected = sb.fake.requests.filter((r) => r.rejected).map((r) => `request ${r.seq} rejected: ${r.rejected}`);
  const orphans = mainRequests(sb).flatMap((r) => orphanToolMessages(r).map((id) => `request ${r.seq} orphan tool message ${id}`));
  return [...rejected, ...orphans];
}

export function flushMetrics(entries: any[]): Array<{ trigger: string; outcome: string; capturedBatches: number; processedBatches: number }> {
  return customEntries(entries, "context-prune-flush-metrics").map((e) => e.data);
}

export function pruneEntries(entries: any[]): any[] {
  return entries.filter((e) => typeof e.customType === "string" && e.customType.startsWith("context-prune-"));
}

export function messageRoles(entries: any[]): string[] {
  return entries.filter((e) => e.type === "message").map((e) => e.message.role);
}

/** Lines written by helpers/probe.ts. */
export function probeLog(sb: Sandbox): any[] {
  const file = join(sb.agentDir, "e2e-probe.jsonl");
  return existsSync(file) ? parseJsonl(readFileSync(file, "utf8")) : [];
}

export function reportMetrics(label: string, sb: Sandbox): void {
  console.log(formatMetrics(label, measureRequests(sb.fake.requests)));
}

/** `seq 1 n` output as bash prints it. */
export function seqOutput(n: number, from = 1): string {
  let s = "";
  for (let i = from; i <= n; i++) s += `${i}\n`;
  return s;
}
