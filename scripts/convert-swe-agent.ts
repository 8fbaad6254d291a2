/**
 * Converts SWE-agent trajectories (`*.traj`, JSON) into pi session JSONL files, so `/pruner report` can
 * replay agent runs nobody here recorded. Usage:
 *
 *   node_modules/.bin/bun scripts/convert-swe-agent.ts <in.traj|dir> <out-dir>
 *
 * Mapping: the system prompt becomes pi's leading system message (one `bash` tool declared); user
 * messages before the first action stay user messages; each assistant action becomes one assistant
 * message (its text plus one `bash` tool call carrying the action); the observation that follows becomes
 * that call's `toolResult`. Timestamps start at 2025-01-01T00:00:00Z, one second per model reply plus the
 * step's recorded `execution_time` when the trajectory has one. The model is recorded as
 * anthropic/claude-sonnet-4-5 (the trajectories' own models are older or unnamed), with zero usage, so the
 * report prices the run at that catalog entry and estimates tokens from chars. The inputs are never written.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";

export const PROVIDER = "anthropic";
export const MODEL = "claude-sonnet-4-5";
const START = Date.UTC(2025, 0, 1);
export const BASH_TOOL = {
  name: "bash",
  description: "Run a shell command in the task's repository",
  parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] },
};
export const ZERO_USAGE = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };

interface HistoryItem {
  role?: string;
  content?: unknown;
  action?: unknown;
  tool_calls?: Array<{ id?: unknown }>;
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((part) => (typeof part?.text === "string" ? part.text : "")).join("\n");
  return "";
}

/** A session id derived from the trajectory's name, so a conversion is the same file every time. */
export function sessionIdOf(name: string): string {
  return createHash("sha256").update(name).digest("hex").slice(0, 32).replace(/^(.{8})(.{4})(.{4})(.{4})/, "$1-$2-$3-$4-");
}

export class SessionWriter {
  private readonly lines: string[] = [];
  private parent: string | null = null;
  private count = 0;
  time = START;

  constructor(id: string, cwd: string, title: string) {
    this.lines.push(JSON.stringify({ type: "session", version: 3, id, timestamp: new Date(START).toISOString(), cwd }));
    this.entry({ type: "model_change", provider: PROVIDER, modelId: MODEL });
    this.entry({ type: "session_info", name: title });
  }

  entry(fields: Record<string, unknown>): void {
    const id = (++this.count).toString(16).padStart(8, "0");
    this.lines.push(JSON.stringify({ ...fields, id, parentId: this.parent, timestamp: new Date(this.time).toISOString() }));
    this.parent = id;
  }

  message(message: Record<string, unknown>): void {
    this.entry({ type: "message", message: { ...message, timestamp: this.time } });
  }

  text(): string {
    return `${this.lines.join("\n")}\n`;
  }
}

export function convertTrajectory(json: string, name: string): string {
  const traj = JSON.parse(json) as { history?: HistoryItem[]; trajectory?: Array<{ execution_time?: unknown }> };
  const history = Array.isArray(traj.history) ? traj.history : [];
  const steps = Array.isArray(traj.trajectory) ? traj.trajectory : [];
  const out = new SessionWriter(sessionIdOf(name), `/swe-agent/${name}`, `SWE-agent: ${name}`);
  let openCall: string | undefined;
  let actions = 0;
  for (const item of history) {
    const text = textOf(item.content);
    if (item.role === "system") {
      out.message({ role: "system", content: "", sections: { preamble: text }, toolsAdded: [BASH_TOOL] });
    } else if (item.role === "assistant") {
      out.time += 1000;
      const recordedId = item.tool_calls?.[0]?.id;
      openCall = typeof recordedId === "string" ? recordedId : `call_${actions + 1}`;
      const command = typeof item.action === "string" ? item.action.trim() : text;
      out.message({
        role: "assistant",
        content: [{ type: "text", text }, { type: "toolCall", id: openCall, name: "bash", arguments: { command } }],
        api: "anthropic-messages",
        provider: PROVIDER,
        model: MODEL,
        usage: ZERO_USAGE,
        stopReason: "toolUse",
      });
      const seconds = Number(steps[actions]?.execution_time);
      out.time += Number.isFinite(seconds) && seconds > 0 ? Math.round(seconds * 1000) : 0;
      actions += 1;
    } else if (openCall !== undefined) {
      out.message({ role: "toolResult", toolCallId: openCall, toolName: "bash", content: [{ type: "text", text }], isError: false });
      openCall = undefined;
    } else {
      out.message({ role: "user", content: text });
    }
  }
  return out.text();
}

/**
 * A converter's command line: `<in-file|dir> <out-dir>`; each input ending in `extension` (every such file
 * of a directory, in name order) is written as `<name>.jsonl` in the output directory.
 */
export function convertFiles(script: string, extension: string, convert: (json: string, name: string) => string): void {
  const [input, outDir] = process.argv.slice(2);
  if (!input || !outDir) {
    console.error(`usage: bun ${script} <in${extension}|dir> <out-dir>`);
    process.exit(2);
  }
  mkdirSync(outDir, { recursive: true });
  const inputs = statSync(input).isDirectory()
    ? readdirSync(input).filter((file) => file.endsWith(extension)).sort().map((file) => join(input, file))
    : [input];
  for (const file of inputs) {
    const name = basename(file, extension);
    const target = join(outDir, `${name}.jsonl`);
    writeFileSync(target, convert(readFileSync(file, "utf8"), name));
    console.log(`${file} -> ${target}`);
  }
}

if (import.meta.main) convertFiles("scripts/convert-swe-agent.ts", ".traj", convertTrajectory);
