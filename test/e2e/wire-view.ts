// A wire-format-neutral view of a recorded request, so scenarios assert once for both APIs.
import type { RecordedRequest } from "./fake-llm.js";

export type WireMessage =
  | { role: "system"; text: string }
  | { role: "user"; text: string }
  | { role: "assistant"; text: string; toolCallIds: string[] }
  | { role: "tool"; toolCallId: string; text: string };

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((b: any) => b?.type === "text")
    .map((b: any) => b.text)
    .join("\n");
}

function openAiView(body: any): WireMessage[] {
  const out: WireMessage[] = [];
  for (const m of body?.messages ?? []) {
    if (m.role === "system" || m.role === "developer") out.push({ role: "system", text: textOf(m.content) });
    else if (m.role === "user") out.push({ role: "user", text: textOf(m.content) });
    else if (m.role === "tool") out.push({ role: "tool", toolCallId: m.tool_call_id, text: textOf(m.content) });
    else if (m.role === "assistant") out.push({ role: "assistant", text: textOf(m.content), toolCallIds: (m.tool_calls ?? []).map((c: any) => c.id) });
  }
  return out;
}

function anthropicView(body: any): WireMessage[] {
  const out: WireMessage[] = [];
  if (body?.system) out.push({ role: "system", text: textOf(body.system) });
  for (const m of body?.messages ?? []) {
    const blocks = typeof m.content === "string" ? [{ type: "text", text: m.content }] : (m.content ?? []);
    if (m.role === "assistant") {
      out.push({ role: "assistant", text: textOf(blocks), toolCallIds: blocks.filter((b: any) => b.type === "tool_use").map((b: any) => b.id) });
      continue;
    }
    for (const b of blocks) if (b.type === "tool_result") out.push({ role: "tool", toolCallId: b.tool_use_id, text: textOf(b.content) });
    const text = textOf(blocks);
    if (blocks.some((b: any) => b.type === "text")) out.push({ role: "user", text });
  }
  return out;
}

export function wireMessages(req: RecordedRequest): WireMessage[] {
  return req.api === "anthropic-messages" ? anthropicView(req.body) : openAiView(req.body);
}

export function toolMessages(req: RecordedRequest): Array<Extract<WireMessage, { role: "tool" }>> {
  return wireMessages(req).filter((m): m is Extract<WireMessage, { role: "tool" }> => m.role === "tool");
}

export function userMessages(req: RecordedRequest): string[] {
  return wireMessages(req)
    .filter((m) => m.role === "user")
    .map((m) => (m as { text: string }).text);
}

export function declaredToolNames(req: RecordedRequest): string[] {
  return (req.body?.tools ?? []).map((t: any) => t?.function?.name ?? t?.name);
}

/** Tool messages whose id is not declared by the nearest preceding assistant message, with no user message in between (spec 60 §7.15). */
export function orphanToolMessages(req: RecordedRequest): string[] {
  const orphans: string[] = [];
  let declared = new Set<string>();
  for (const m of wireMessages(req)) {
    if (m.role === "assistant") declared = new Set(m.toolCallIds);
    else if (m.role === "user") declared = new Set();
    else if (m.role === "tool" && !declared.has(m.toolCallId)) orphans.push(m.toolCallId);
  }
  return orphans;
}

export function compressedChainIds(req: RecordedRequest): string[] {
  return userMessages(req).flatMap((t) => [...t.matchAll(/<compressed-chain id="([^"]+)"/g)].map((m) => m[1]!));
}

// The summarized and the archived-without-a-summary stubs (issue 26), each with the record's outcome facts
// (issue 18) or without (records that have none), and the digest stub of an output archived without a summary.
export const STUB_RE =
  /^\[(?:(?:Summarized in pruner summary|Archived without a summary), ref `(t\d+)`\.(?: Outcome: [^\n]*? Use context_tree_query to retrieve the full output, or pass pattern to search it\.| Use context_tree_query to retrieve full output\.)|`(t\d+)` archived: [^\n]*)\]$/;

/** The ref a stub names, or undefined when the text is no ref stub. */
export function stubRefOf(text: string): string | undefined {
  const hit = STUB_RE.exec(text);
  return hit ? (hit[1] ?? hit[2]) : undefined;
}

export function stubRefs(req: RecordedRequest): string[] {
  return toolMessages(req).flatMap((m) => {
    const ref = stubRefOf(m.text);
    return ref === undefined ? [] : [ref];
  });
}
