// Spawns the real pi CLI (print, JSON or RPC mode) in an isolated sandbox wired to the fake LLM.
// No bun:test imports: the demo uses this module too.
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { RecordedRequest } from "./fake-llm.js";
import { baseArgs, childEnv, runtimeBinary, type PiRun, type RunOptions, type Sandbox } from "./sandbox.js";

export * from "./sandbox.js";

/** Run pi with stdin ignored (print or JSON mode). Args follow the base flags. */
export function runPi(sb: Sandbox, args: string[], opts: RunOptions = {}): Promise<PiRun> {
  const started = performance.now();
  const child = spawn(runtimeBinary(opts.runtime), [...baseArgs(sb, opts), ...args], { cwd: sb.projectDir, env: { ...childEnv(sb), ...opts.env }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const timer = setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs ?? 30000);
  return new Promise((resolvePromise, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const ms = Math.round(performance.now() - started);
      resolvePromise({ code: code ?? (signal ? 137 : -1), stdout, stderr: signal ? `${stderr}\n[killed by ${signal} after ${ms} ms]` : stderr, ms });
    });
  });
}

/** Print mode with one or more prompts (each runs after the previous one settled). */
export function runPrint(sb: Sandbox, prompts: string[], extraArgs: string[] = [], opts: RunOptions = {}): Promise<PiRun> {
  return runPi(sb, [...extraArgs, "-p", ...prompts], opts);
}

/** JSON mode: returns the run plus the parsed stdout records. */
export async function runJson(sb: Sandbox, prompts: string[], extraArgs: string[] = [], opts: RunOptions = {}): Promise<PiRun & { records: any[] }> {
  const run = await runPi(sb, [...extraArgs, "--mode", "json", ...prompts], opts);
  return { ...run, records: parseJsonl(run.stdout) };
}

export function parseJsonl(text: string): any[] {
  return text
    .split("\n")
    .map((l) => l.replace(/\r$/, ""))
    .filter((l) => l.trim().length > 0)
    .map((l) => JSON.parse(l));
}

export function sessionFiles(sb: Sandbox): string[] {
  if (!existsSync(sb.sessionDir)) return [];
  return readdirSync(sb.sessionDir)
    .filter((f) => f.endsWith(".jsonl"))
    .sort()
    .map((f) => join(sb.sessionDir, f));
}

/** The single session file of the sandbox (throws when there is not exactly one). */
export function sessionFile(sb: Sandbox): string {
  const files = sessionFiles(sb);
  if (files.length !== 1) throw new Error(`expected exactly one session file, found ${files.length}: ${files.join(", ")}`);
  return files[0]!;
}

/** Parsed lines of the single session file, header first. */
export function sessionEntries(sb: Sandbox): any[] {
  return parseJsonl(readFileSync(sessionFile(sb), "utf8"));
}

export function mainRequests(sb: Sandbox): RecordedRequest[] {
  return sb.fake.requests.filter((r) => r.kind === "main");
}

export function summarizerRequests(sb: Sandbox): RecordedRequest[] {
  return sb.fake.requests.filter((r) => r.kind === "summarizer");
}

export function customEntries(entries: any[], customType: string): any[] {
  return entries.filter((e) => (e.type === "custom" || e.type === "custom_message") && e.customType === customType);
}

export { notifications, openPiRpc, runPiRpc, uiRequests, type RpcOptions, type RpcResult, type RpcSession, type RpcStep } from "./rpc.js";
