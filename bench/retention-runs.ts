/**
 * Agent runs for the retention benchmark: mini-swe-agent (`*.traj.json`) and SWE-agent (`*.traj`)
 * trajectories through the project's converters, and pi sessions (`*.jsonl`) as they are, read as the
 * task (the system prompt and the user messages before the first tool call) and each tool call with
 * its result. Files are only read.
 */
import { readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { convertMiniSweAgent } from "../scripts/convert-mini-swe-agent.js";
import { convertTrajectory } from "../scripts/convert-swe-agent.js";
import type { Trajectory } from "./retention-identifiers.js";

export interface RunStep {
  command: string;
  output: string;
  toolName: string;
  args: Record<string, unknown>;
  isError: boolean;
}

export interface Run extends Trajectory {
  name: string;
  steps: RunStep[];
}

const SUFFIXES = [".traj.json", ".traj", ".jsonl"];

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part) => (part?.type === "text" && typeof part.text === "string" ? part.text : "")).join("\n");
}

function commandOf(args: Record<string, unknown>): string {
  return typeof args.command === "string" ? args.command : JSON.stringify(args);
}

/** A pi session's messages as a run. */
export function runOfSession(jsonl: string, name: string): Run {
  const run: Run = { name, task: "", steps: [] };
  const calls = new Map<string, { toolName: string; args: Record<string, unknown> }>();
  const task: string[] = [];
  for (const line of jsonl.split("\n")) {
    let entry: any;
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    const msg = entry?.type === "message" ? entry.message : undefined;
    if (msg?.role === "system" || (msg?.role === "user" && calls.size === 0)) task.push(msg.sections?.preamble ?? textOf(msg.content));
    if (msg?.role === "assistant" && Array.isArray(msg.content)) {
      for (const block of msg.content) {
        if (block?.type !== "toolCall") continue;
        const args = block.arguments !== null && typeof block.arguments === "object" ? block.arguments : {};
        calls.set(block.id, { toolName: String(block.name), args });
      }
    }
    const call = msg?.role === "toolResult" ? calls.get(msg.toolCallId) : undefined;
    if (call) run.steps.push({ ...call, command: commandOf(call.args), output: textOf(msg.content), isError: msg.isError === true });
  }
  run.task = task.join("\n");
  return run;
}

/** A trajectory or session file of a folder as pi session JSONL, or why it could not be read. */
/** `pi`: a pi session file (`*.jsonl`), not a converted trajectory. */
export type SessionText = { name: string; jsonl: string; pi?: true } | { name: string; error: string };

/** Every trajectory or session file in `dir`, by file name, as pi session JSONL (through the converters). */
export function sessionTextsIn(dir: string): SessionText[] {
  const out: SessionText[] = [];
  for (const file of readdirSync(dir).sort()) {
    const suffix = SUFFIXES.find((s) => file.endsWith(s));
    if (suffix === undefined) continue;
    const name = basename(file, suffix);
    try {
      const text = readFileSync(join(dir, file), "utf8");
      out.push({ name, jsonl: suffix === ".traj.json" ? convertMiniSweAgent(text, name) : suffix === ".traj" ? convertTrajectory(text, name) : text, ...(suffix === ".jsonl" ? { pi: true as const } : {}) });
    } catch (err) {
      out.push({ name, error: `${file}: ${err instanceof Error ? err.message : String(err)}` });
    }
  }
  return out;
}

/** The runs of every trajectory or session file in `dir`, by file name. */
export function runsIn(dir: string): Run[] {
  return sessionTextsIn(dir).flatMap((s) => ("jsonl" in s ? [runOfSession(s.jsonl, s.name)] : []));
}
