/**
 * Drives the real extension (index.ts) through pi's event order on the fake host, the way pi 1.6.0
 * dispatches it: for each tool turn the assistant and its results are on the branch before
 * `turn_end`; the final reply's `message_end` runs before pi writes the reply, `turn_end` after.
 * A `context` render projects the branch the way pi builds the request (custom messages included).
 * A recovery call runs the extension's own `context_tree_query` tool, as pi would.
 */
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { SidecarFiles } from "../src/capture/spill.js";
import { makeFakeCtx, makeFakePi, type FakeCtx, type FakeCtxOptions, type FakeHost, msgEntry } from "./fake-host.js";

export interface SimCall {
  id: string;
  name?: string;
  args?: Record<string, unknown>;
  /**
   * Text of the result; `content` wins when given. A `context_tree_query` call with neither runs the
   * registered tool on the branch as it stands (as pi does), and its result carries the tool's content and details.
   */
  text?: string;
  content?: any[];
  isError?: boolean;
  /** The result's timestamp; by default the assistant's plus the call's position plus one. */
  resultTs?: number;
  /** No result ever comes (pi was killed while the tool ran); pi-ai answers the call "No result provided". */
  noResult?: boolean;
}

export interface SimPrompt {
  turns: SimCall[][];
  final?: string;
  /** Start the run with another extension's custom message (`pi.sendMessage(..., { triggerTurn: true })`) instead of a user prompt. */
  custom?: { customType: string; content?: string };
  /** Usage the provider reports on every assistant message of this prompt (as pi records it). */
  usage?: { input: number; output?: number; cacheRead: number; cacheWrite: number };
  /**
   * End the run with an assistant message that stopped (`error`, or `aborted` for the user's Esc) carrying
   * these calls, left unanswered, instead of a final text reply: pi ends the run at once (no tool runs).
   */
  stopped?: { reason: "error" | "aborted"; calls: SimCall[] };
}

export interface Sim {
  host: FakeHost;
  fake: FakeCtx;
  ctx: ExtensionContext;
  fire(name: string, event: any): Promise<any>;
  prompt(p: SimPrompt): Promise<void>;
  /** What the `context` hook returns for the current branch (the input when it changes nothing). */
  render(): Promise<any[]>;
  /** The request messages before pruning. */
  projection(): any[];
  query(ids: string[], extra?: Record<string, unknown>): Promise<{ text: string; images: any[] }>;
  /** The next timestamp the simulation hands out. */
  now(): number;
  /** Moves the simulation's clock on, as an idle pause between prompts does. */
  advance(ms: number): void;
  /** pi's reload: `session_shutdown` for this instance, then a fresh instance on the same branch. */
  reload(): Promise<Sim>;
}

function usageOf(p: SimPrompt): { usage?: Record<string, number> } {
  if (!p.usage) return {};
  const { input, output = 10, cacheRead, cacheWrite } = p.usage;
  return { usage: { input, output, cacheRead, cacheWrite, totalTokens: input + output + cacheRead + cacheWrite } };
}

function stoppedMessage(stopped: NonNullable<SimPrompt["stopped"]>, timestamp: number, p: SimPrompt) {
  return {
    role: "assistant",
    content: stopped.calls.map((c) => ({ type: "toolCall", id: c.id, name: c.name ?? "bash", arguments: c.args ?? { command: c.id } })),
    stopReason: stopped.reason,
    errorMessage: stopped.reason === "aborted" ? "Request was aborted." : "Provider finish_reason: refusal",
    timestamp,
    ...usageOf(p),
  };
}

export interface SimOptions {
  branch?: any[];
  sessionDir?: string;
  sessionId?: string;
  startTs?: number;
  /** The file layer sidecars are written through (test/faulty-files.ts injects faults). */
  files?: SidecarFiles;
  /** Called before every session-manager append; throw to refuse the write. */
  beforeSessionAppend?: FakeCtxOptions["beforeSessionAppend"];
  systemPrompt?: string;
}

export async function startSim(opts: SimOptions = {}): Promise<Sim> {
  const host = makeFakePi();
  const piCondense = (await import("../index.js")).default;
  piCondense(host.pi as any, opts.files);
  const fake = makeFakeCtx(host, { branch: opts.branch ?? [], sessionDir: opts.sessionDir, beforeSessionAppend: opts.beforeSessionAppend, systemPrompt: opts.systemPrompt });
  // In pi, runtime writes land in the same session as the session manager's (the agent is idle for commands).
  const { appendEntry, sendMessage } = host.pi;
  host.pi.appendEntry = (customType: string, data?: unknown) => {
    appendEntry(customType, data);
    fake.branch.push({ type: "custom", customType, data });
  };
  host.pi.sendMessage = ((message: any, options: any) => {
    sendMessage(message, options);
    fake.branch.push({ type: "custom_message", customType: message.customType, content: message.content, display: message.display, details: message.details, timestamp: new Date().toISOString() });
  }) as typeof host.pi.sendMessage;
  if (opts.sessionId) (fake.ctx.sessionManager as any).getSessionId = () => opts.sessionId;
  let ts = opts.startTs ?? 1_000;
  const tick = (step = 10) => (ts += step);
  const fire = async (name: string, event: any) => host.handlers.get(name)?.(event, fake.ctx);
  const projection = () =>
    fake.branch.flatMap((entry: any) => {
      if (entry.type === "message") return [entry.message];
      if (entry.type === "custom_message") {
        return [{ role: "custom", customType: entry.customType, content: entry.content, display: entry.display, details: entry.details, timestamp: new Date(entry.timestamp).getTime() }];
      }
      return [];
    });

  const queryTool = () => host.tools.find((t) => t.name === "context_tree_query");
  const runRecovery = async (c: SimCall): Promise<{ content: any[]; details: unknown } | undefined> => {
    if (c.name !== "context_tree_query" || c.text !== undefined || c.content !== undefined) return undefined;
    return queryTool().execute(c.id, c.args ?? {}, undefined, undefined, fake.ctx);
  };

  const sim: Sim = {
    host,
    fake,
    ctx: fake.ctx,
    fire,
    now: () => ts,
    advance: (ms) => void (ts += ms),
    projection,
    async reload() {
      await fire("session_shutdown", { reason: "reload" });
      return startSim({ ...opts, branch: fake.branch, startTs: ts });
    },
    async prompt(p) {
      if (p.custom) {
        const { customType, content = `steer ${ts}` } = p.custom;
        fake.branch.push({ type: "custom_message", customType, content, display: true, timestamp: new Date(tick()).toISOString() });
      } else {
        fake.branch.push(msgEntry({ role: "user", content: [{ type: "text", text: `prompt ${ts}` }], timestamp: tick() }));
      }
      for (const [turnIndex, calls] of p.turns.entries()) {
        await fire("context", { messages: projection() });
        const at = tick(1000);
        const assistant = {
          role: "assistant",
          content: calls.map((c) => ({ type: "toolCall", id: c.id, name: c.name ?? "bash", arguments: c.args ?? { command: c.id } })),
          stopReason: "toolUse",
          timestamp: at,
          ...usageOf(p),
        };
        await fire("message_end", { message: assistant });
        fake.branch.push(msgEntry(assistant));
        const results: any[] = [];
        for (const [i, c] of calls.entries()) {
          if (c.noResult) continue;
          const ran = await runRecovery(c);
          results.push({
            role: "toolResult",
            toolCallId: c.id,
            toolName: c.name ?? "bash",
            content: ran?.content ?? c.content ?? [{ type: "text", text: c.text ?? "" }],
            ...(ran ? { details: ran.details } : {}),
            isError: c.isError === true,
            timestamp: c.resultTs ?? at + i + 1,
          });
        }
        for (const r of results) fake.branch.push(msgEntry(r));
        tick(calls.length + 10);
        await fire("turn_end", { message: assistant, toolResults: results, turnIndex });
      }
      await fire("context", { messages: projection() });
      const final = p.stopped ? stoppedMessage(p.stopped, tick(1000), p) : { role: "assistant", content: [{ type: "text", text: p.final ?? "done" }], stopReason: "stop", timestamp: tick(1000), ...usageOf(p) };
      await fire("message_end", { message: final });
      fake.branch.push(msgEntry(final));
      await fire("turn_end", { message: final, toolResults: [], turnIndex: p.turns.length });
      await fire("agent_end", {});
    },
    async render() {
      const messages = projection();
      const result = (await fire("context", { messages })) as { messages?: any[] } | undefined;
      return result?.messages ?? messages;
    },
    async query(ids, extra = {}) {
      const result = await queryTool().execute("q", { toolCallIds: ids, ...extra }, undefined, undefined, fake.ctx);
      const content: any[] = result.content;
      return { text: content.filter((b) => b.type === "text").map((b) => b.text).join("\n"), images: content.filter((b) => b.type === "image") };
    },
  };
  await fire("session_start", {});
  return sim;
}
