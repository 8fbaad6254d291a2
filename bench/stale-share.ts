/**
 * Stale-share measurement (issue 26 item 3): how much of the tool-output text
 * of two recorded pi sessions the stale-output rules find superseded, by rule
 * (a read later edited, a read inside a later read, a re-run bash command).
 * Sessions are read as JSONL in file order (every `type: "message"` line; a
 * malformed line is skipped and counted), with the header's `cwd`.
 * Targets: the detector runs on both sessions without error, and finds at least
 * 25% of tool-output characters stale on session.jsonl.
 * Run: bun bench/stale-share.ts [session.jsonl ...]
 */
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Message } from "@earendil-works/pi-ai";
import { occKey, resultTimestampOf } from "../src/capture/occurrence-key.js";
import { findStaleOutputs, type StaleRule } from "../src/capture/stale-outputs.js";
import { reportTargets, type Target } from "./targets.js";

const CORPUS = ["../shared/corpus/pi-sessions", "/work/shared/corpus/pi-sessions"].map((dir) => resolve(import.meta.dir, "..", dir)).find(existsSync) ?? "../shared/corpus/pi-sessions";
const SESSIONS = process.argv.slice(2).filter((arg) => !arg.startsWith("--"));
const FILES = SESSIONS.length > 0 ? SESSIONS : [`${CORPUS}/session.jsonl`, `${CORPUS}/large-session.jsonl`];
const RULES: StaleRule[] = ["edited", "reread", "rerun"];
const MIN_SHARE = 0.25;

interface SessionRead {
  messages: Message[];
  cwd: string | undefined;
  malformed: number;
}

function readSession(file: string): SessionRead {
  const messages: Message[] = [];
  let cwd: string | undefined;
  let malformed = 0;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (line.trim() === "") continue;
    let entry: any;
    try {
      entry = JSON.parse(line);
    } catch {
      malformed++;
      continue;
    }
    if (entry?.type === "session" && typeof entry.cwd === "string") cwd = entry.cwd;
    if (entry?.type === "message" && entry.message) messages.push(entry.message);
  }
  return { messages, cwd, malformed };
}

/** Text characters of every tool result, by occurrence key. */
function outputChars(messages: Message[]): Map<string, number> {
  const chars = new Map<string, number>();
  for (const msg of messages as any[]) {
    if (msg?.role !== "toolResult" || !Array.isArray(msg.content)) continue;
    let n = 0;
    for (const block of msg.content) if (block?.type === "text" && typeof block.text === "string") n += block.text.length;
    chars.set(occKey(msg.toolCallId, resultTimestampOf(msg.timestamp)), n);
  }
  return chars;
}

const pct = (part: number, whole: number) => `${whole === 0 ? "0.0" : ((100 * part) / whole).toFixed(1)}%`;

function measure(file: string): { ok: boolean; share: number } {
  try {
    const session = readSession(file);
    const chars = outputChars(session.messages);
    const total = [...chars.values()].reduce((a, b) => a + b, 0);
    const started = performance.now();
    const stale = findStaleOutputs(session.messages, { cwd: session.cwd });
    const ms = performance.now() - started;
    const byRule = new Map<StaleRule, { outputs: number; chars: number }>(RULES.map((rule) => [rule, { outputs: 0, chars: 0 }]));
    for (const [key, s] of stale) {
      const slot = byRule.get(s.rule)!;
      slot.outputs++;
      slot.chars += chars.get(key) ?? 0;
    }
    const staleChars = [...byRule.values()].reduce((a, b) => a + b.chars, 0);
    console.log(`${file}: ${chars.size} tool outputs, ${total.toLocaleString("en-US")} chars, ${session.malformed} malformed line(s) skipped, detector ${ms.toFixed(1)} ms`);
    for (const [rule, slot] of byRule) console.log(`  ${rule.padEnd(7)} ${String(slot.outputs).padStart(4)} outputs  ${pct(slot.chars, total).padStart(6)} of output chars`);
    console.log(`  all     ${String(stale.size).padStart(4)} outputs  ${pct(staleChars, total).padStart(6)} of output chars`);
    return { ok: true, share: total === 0 ? 0 : staleChars / total };
  } catch (error) {
    console.log(`${file}: detector failed: ${error instanceof Error ? error.message : String(error)}`);
    return { ok: false, share: 0 };
  }
}

const results = FILES.map(measure);
const targets: Target[] = [
  { name: `the detector runs on all ${FILES.length} sessions without error`, met: results.every((r) => r.ok) },
  { name: `at least ${MIN_SHARE * 100}% of tool-output characters stale on ${FILES[0]}`, met: results[0]!.share >= MIN_SHARE },
];
reportTargets(targets);
