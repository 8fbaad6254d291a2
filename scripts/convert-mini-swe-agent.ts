/**
 * Converts mini-swe-agent trajectories (`*.traj.json`) into pi session JSONL files, as
 * `scripts/convert-swe-agent.ts` does for SWE-agent. Usage:
 *
 *   node_modules/.bin/bun scripts/convert-mini-swe-agent.ts <in.traj.json|dir> <out-dir>
 *
 * Mapping: the system prompt becomes pi's leading system message (one `bash` tool declared); the task and
 * every other user message that answers no action stay user messages. An assistant message with exactly
 * one ```` ```bash ```` block is an action: one assistant message (its whole text plus one `bash` tool call
 * whose command is the block); the observation that follows becomes that call's `toolResult`, unwrapped the
 * way pi's bash tool would have shown it: the `<output>` text (head and tail around the elided note when
 * mini-swe-agent cut it), `(no output)` when empty, and `Command exited with code N` appended with
 * `isError` when the return code is not 0. A timeout note is kept as written, as an error. An assistant
 * message with no block or several was rejected by mini-swe-agent: it stays text only. Timestamps come
 * from each reply's recorded `created` time when it moves forward, else one second later. The model is
 * recorded as anthropic/claude-sonnet-4-5 with zero usage, as the SWE-agent converter does. The inputs
 * are never written.
 */
import { BASH_TOOL, convertFiles, MODEL, PROVIDER, SessionWriter, sessionIdOf, ZERO_USAGE } from "./convert-swe-agent.js";

interface MiniMessage {
  role?: unknown;
  content?: unknown;
  extra?: { response?: { created?: unknown } };
}

const BASH_BLOCK = /```bash\s*\n([\s\S]*?)\n```/g;
const RETURN_CODE = /^<returncode>(-?\d+)<\/returncode>\s*/;
const TIMED_OUT = /^The last command <command>[\s\S]*<\/command> timed out/;

/** The commands of an assistant reply: the body of each ```bash block. */
export function bashBlocks(text: string): string[] {
  return [...text.matchAll(BASH_BLOCK)].map((m) => m[1]!.trim());
}

function between(text: string, open: string, close: string): string | undefined {
  const start = text.indexOf(open);
  const end = text.lastIndexOf(close);
  if (start < 0 || end < start + open.length) return undefined;
  return text.slice(start + open.length, end).replace(/^\n/, "");
}

/** What pi's bash tool would have returned for one observation. */
export function unwrapObservation(text: string): { text: string; isError: boolean } {
  const code = RETURN_CODE.exec(text);
  if (!code) return { text, isError: TIMED_OUT.test(text) };
  const rest = text.slice(code[0].length);
  const whole = between(rest, "<output>", "</output>");
  const head = between(rest, "<output_head>", "</output_head>");
  const tail = between(rest, "<output_tail>", "</output_tail>");
  const elided = between(rest, "<elided_chars>", "</elided_chars>")?.trim();
  const output = whole ?? (head !== undefined && tail !== undefined ? `${head}\n\n[${elided ?? "output elided"}]\n\n${tail}` : rest);
  const exit = Number(code[1]);
  if (exit === 0) return { text: output === "" ? "(no output)" : output, isError: false };
  return { text: `${output === "" ? "" : `${output}\n\n`}Command exited with code ${exit}`, isError: true };
}

export function convertMiniSweAgent(json: string, name: string): string {
  const traj = JSON.parse(json) as { messages?: MiniMessage[] };
  const messages = Array.isArray(traj.messages) ? traj.messages : [];
  const out = new SessionWriter(sessionIdOf(name), `/mini-swe-agent/${name}`, `mini-swe-agent: ${name}`);
  let openCall: string | undefined;
  let actions = 0;
  for (const item of messages) {
    const text = typeof item.content === "string" ? item.content : "";
    if (item.role === "system") {
      out.message({ role: "system", content: "", sections: { preamble: text }, toolsAdded: [BASH_TOOL] });
    } else if (item.role === "assistant") {
      const created = Number(item.extra?.response?.created) * 1000;
      out.time = Number.isFinite(created) && created > out.time ? created : out.time + 1000;
      const commands = bashBlocks(text);
      openCall = commands.length === 1 ? `call_${++actions}` : undefined;
      const call = openCall === undefined ? [] : [{ type: "toolCall", id: openCall, name: "bash", arguments: { command: commands[0] } }];
      out.message({
        role: "assistant",
        content: [{ type: "text", text }, ...call],
        api: "anthropic-messages",
        provider: PROVIDER,
        model: MODEL,
        usage: ZERO_USAGE,
        stopReason: openCall === undefined ? "stop" : "toolUse",
      });
    } else if (openCall !== undefined) {
      const result = unwrapObservation(text);
      out.message({ role: "toolResult", toolCallId: openCall, toolName: "bash", content: [{ type: "text", text: result.text }], isError: result.isError });
      openCall = undefined;
    } else {
      out.message({ role: "user", content: text });
    }
  }
  return out.text();
}

if (import.meta.main) convertFiles("scripts/convert-mini-swe-agent.ts", ".traj.json", convertMiniSweAgent);
