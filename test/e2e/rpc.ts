// RPC-mode driver: sends commands one by one, waits for each response (and for `agent_settled`
// when a prompt started a run), answers extension dialogs, then closes stdin for an orderly exit.
import { spawn } from "node:child_process";
import { baseArgs, childEnv, runtimeBinary, type RunOptions, type Sandbox } from "./sandbox.js";

/**
 * A raw RPC command (`{ type: "prompt", message }`, `{ type: "get_entries" }`, ...); `id` is assigned when absent.
 * `pauseBeforeMs` is the driver's own: it waits that long before sending the step (an idle user) and never sends it.
 */
export type RpcStep = Record<string, unknown> & { type: string; pauseBeforeMs?: number };

export interface RpcResult {
  records: any[];
  /** One `response` record per step, in step order. */
  responses: any[];
  code: number;
  stderr: string;
  ms: number;
}

export interface RpcOptions extends RunOptions {
  /** Answer for a dialog request (`select`, `confirm`, `input`, `editor`); default: cancel. */
  answer?: (req: any) => Record<string, unknown> | undefined;
  extraArgs?: string[];
}

const DIALOGS = new Set(["select", "confirm", "input", "editor"]);

/** One pi process in RPC mode, driven a step at a time (two of them can share a session file). */
export interface RpcSession {
  /** Sends one command and waits for its response, and for `agent_settled` when a prompt started a run. */
  step(command: RpcStep): Promise<any>;
  /** Closes stdin (pi shuts down in order) and waits for the exit. */
  close(): Promise<RpcResult>;
}

export function openPiRpc(sb: Sandbox, opts: RpcOptions = {}): RpcSession {
  const started = performance.now();
  const args = [...baseArgs(sb, opts), ...(opts.extraArgs ?? []), "--mode", "rpc"];
  const child = spawn(runtimeBinary(opts.runtime), args, { cwd: sb.projectDir, env: childEnv(sb), stdio: ["pipe", "pipe", "pipe"] });
  const records: any[] = [];
  const responses: any[] = [];
  let stderr = "";
  let buffer = "";
  let steps = 0;
  let waiter: (() => void) | undefined;
  const wake = () => waiter?.();

  const send = (obj: unknown) => child.stdin.write(JSON.stringify(obj) + "\n");
  const onRecord = (rec: any) => {
    records.push(rec);
    if (rec?.type === "extension_ui_request" && DIALOGS.has(rec.method)) {
      send({ type: "extension_ui_response", id: rec.id, ...(opts.answer?.(rec) ?? { cancelled: true }) });
    }
    wake();
  };
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    buffer += chunk;
    let nl: number;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, nl).replace(/\r$/, "");
      buffer = buffer.slice(nl + 1);
      if (line.trim()) onRecord(JSON.parse(line));
    }
  });
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const exited = new Promise<number>((resolve) => child.on("close", (code, signal) => resolve(code ?? (signal ? 137 : -1))));
  let dead = false;
  exited.then(() => {
    dead = true;
    wake();
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs ?? 30000);

  const until = async (pred: () => boolean, what: string) => {
    while (!pred()) {
      if (dead) throw new Error(`pi exited while waiting for ${what}; stderr:\n${stderr}`);
      await new Promise<void>((resolve) => (waiter = resolve));
      waiter = undefined;
    }
  };
  const settledCount = () => records.filter((r) => r?.type === "agent_settled").length;

  return {
    async step(command) {
      const step = { id: `step-${steps++}`, ...command } as RpcStep & { id: string };
      const settledBefore = settledCount();
      send(step);
      let response: any;
      try {
        await until(() => (response = records.find((r) => r?.type === "response" && r.id === step.id)) !== undefined, `response to ${step.id}`);
        responses.push(response);
        const disposition = response?.data?.disposition;
        if (step.type === "prompt" && response.success && (disposition === "started" || disposition === "queued")) {
          await until(() => settledCount() > settledBefore, `agent_settled after ${step.id}`);
        }
      } catch (err) {
        child.kill("SIGKILL");
        clearTimeout(timer);
        throw err;
      }
      return response;
    },
    async close() {
      child.stdin.end();
      const code = await exited;
      clearTimeout(timer);
      return { records, responses, code, stderr, ms: Math.round(performance.now() - started) };
    },
  };
}

export async function runPiRpc(sb: Sandbox, steps: RpcStep[], opts: RpcOptions = {}): Promise<RpcResult> {
  const session = openPiRpc(sb, opts);
  for (const { pauseBeforeMs, ...command } of steps) {
    if (pauseBeforeMs) await new Promise((resolve) => setTimeout(resolve, pauseBeforeMs));
    await session.step(command as RpcStep);
  }
  return session.close();
}

export function notifications(records: any[]): Array<{ message: string; notifyType?: string }> {
  return records.filter((r) => r?.type === "extension_ui_request" && r.method === "notify").map((r) => ({ message: r.message, notifyType: r.notifyType }));
}

export function uiRequests(records: any[], method: string): any[] {
  return records.filter((r) => r?.type === "extension_ui_request" && r.method === method);
}
