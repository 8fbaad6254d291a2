/**
 * A minimal fake pi host for driving index.ts in unit/integration tests. It
 * provides only the surface the extension may use (overview §2.10 / spec 50
 * §2.5), typed against pi 1.6.0's own ExtensionAPI / ExtensionContext.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";

type Handler = (event: any, ctx: ExtensionContext) => unknown;

export interface AppendedEntry {
  via: "pi" | "session";
  kind: "custom" | "custom_message";
  customType: string;
  data?: any;
  content?: string;
  details?: any;
}

export type FakePi = Pick<
  ExtensionAPI,
  | "on"
  | "appendEntry"
  | "sendMessage"
  | "registerCommand"
  | "registerTool"
  | "registerMessageRenderer"
  | "registerEntryRenderer"
  | "events"
  | "getActiveTools"
  | "getAllTools"
  | "setActiveTools"
>;

export interface FakeHost {
  pi: FakePi;
  handlers: Map<string, Handler>;
  onCalls: string[];
  entries: AppendedEntry[];
  sent: any[];
  emitted: Array<{ channel: string; data: unknown }>;
  tools: any[];
  /** Names of the tools declared to the model, as pi's active set: a registered tool starts active unless `defaultActive: false`. */
  activeTools: string[];
  commands: Map<string, any>;
  entryRenderers: Map<string, any>;
  /** Set to make pi.appendEntry log and then throw (a stale runtime). */
  piAppendThrows: boolean;
}

export function makeFakePi(): FakeHost {
  const host: FakeHost = {
    handlers: new Map(),
    onCalls: [],
    entries: [],
    sent: [],
    emitted: [],
    tools: [],
    activeTools: ["read", "bash"],
    commands: new Map(),
    entryRenderers: new Map(),
    piAppendThrows: false,
    pi: undefined as unknown as FakePi,
  };
  const pi: FakePi = {
    on: ((name: string, fn: Handler) => {
      host.onCalls.push(name);
      host.handlers.set(name, fn);
      return () => {};
    }) as unknown as ExtensionAPI["on"],
    appendEntry: (customType: string, data?: unknown) => {
      host.entries.push({ via: "pi", kind: "custom", customType, data });
      if (host.piAppendThrows) throw new Error("This extension ctx is stale after session replacement or reload.");
    },
    sendMessage: ((message: any, options: any) => {
      host.sent.push({ message, options });
    }) as ExtensionAPI["sendMessage"],
    registerCommand: (name: string, options: any) => {
      host.commands.set(name, options);
    },
    registerTool: ((tool: any) => {
      host.tools.push(tool);
      if (tool.defaultActive !== false && !host.activeTools.includes(tool.name)) host.activeTools.push(tool.name);
    }) as ExtensionAPI["registerTool"],
    getActiveTools: () => host.activeTools.slice(),
    getAllTools: (() => host.tools.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters }))) as unknown as ExtensionAPI["getAllTools"],
    setActiveTools: (names: string[]) => {
      const known = new Set(["read", "bash", ...host.tools.map((t) => t.name)]);
      host.activeTools = [...new Set(names.filter((name) => known.has(name)))];
    },
    registerMessageRenderer: () => {},
    registerEntryRenderer: ((customType: string, renderer: any) => {
      host.entryRenderers.set(customType, renderer);
    }) as ExtensionAPI["registerEntryRenderer"],
    events: {
      emit: (channel: string, data: unknown) => {
        host.emitted.push({ channel, data });
      },
    } as unknown as ExtensionAPI["events"],
  };
  host.pi = pi;
  return host;
}

export interface FakeCtxOptions {
  branch?: any[];
  usage?: { tokens: number | null; contextWindow: number };
  sessionDir?: string;
  /** Called before every sessionManager append; throw to simulate a failing write. */
  beforeSessionAppend?: (customType: string) => void;
  /** Called on each getBranch(); throw to simulate a read failure. */
  onGetBranch?: (callNumber: number) => void;
  /** What `ctx.getSystemPrompt()` returns (pi's system prompt for the next request). */
  systemPrompt?: string;
}

export interface FakeCtx {
  ctx: ExtensionContext;
  branch: any[];
  statuses: Array<{ id: string; text: string | undefined }>;
  notices: Array<{ message: string; type: string | undefined }>;
  widgets: Array<{ id: string; lines: unknown }>;
  getBranchCalls: () => number;
  setUsage(tokens: number | null, contextWindow?: number): void;
  lastStatus(): string | undefined;
}

export function makeFakeCtx(host: FakeHost, opts: FakeCtxOptions = {}): FakeCtx {
  const branch = opts.branch ?? [];
  const statuses: FakeCtx["statuses"] = [];
  const notices: FakeCtx["notices"] = [];
  const widgets: FakeCtx["widgets"] = [];
  let usage = opts.usage ?? { tokens: 1000, contextWindow: 1_000_000 };
  let branchCalls = 0;
  const sessionAppend = (entry: AppendedEntry) => {
    opts.beforeSessionAppend?.(entry.customType);
    host.entries.push(entry);
    branch.push(
      entry.kind === "custom"
        ? { type: "custom", customType: entry.customType, data: entry.data }
        : {
            type: "custom_message",
            customType: entry.customType,
            content: entry.content,
            display: false,
            details: entry.details,
            timestamp: new Date().toISOString(),
          },
    );
    return "id";
  };
  const sessionManager = {
    getBranch: () => {
      branchCalls++;
      opts.onGetBranch?.(branchCalls);
      return branch;
    },
    appendCustomEntry: (customType: string, data?: unknown) =>
      sessionAppend({ via: "session", kind: "custom", customType, data }),
    appendCustomMessageEntry: (customType: string, content: string, _display: boolean, details?: unknown) =>
      sessionAppend({ via: "session", kind: "custom_message", customType, content, details }),
    getSessionDir: () => opts.sessionDir ?? "",
    getSessionId: () => "test",
  };
  const ctx = {
    sessionManager,
    getContextUsage: () => ({ ...usage }),
    getSystemPrompt: () => opts.systemPrompt ?? "",
    model: { id: "session-model", provider: "fake", name: "Session Model" },
    modelRegistry: {
      find: () => undefined,
      getApiKeyAndHeaders: async () => ({ ok: true, apiKey: "k", headers: {} }),
      getProviderAuth: async () => undefined,
    },
    ui: {
      setStatus: (id: string, text: string | undefined) => statuses.push({ id, text }),
      setWidget: (id: string, lines: unknown) => widgets.push({ id, lines }),
      notify: (message: string, type?: string) => notices.push({ message, type }),
      select: async () => undefined,
    },
  } as unknown as ExtensionContext;
  return {
    ctx,
    branch,
    statuses,
    notices,
    widgets,
    getBranchCalls: () => branchCalls,
    setUsage: (tokens, contextWindow = usage.contextWindow) => {
      usage = { tokens, contextWindow };
    },
    lastStatus: () => statuses[statuses.length - 1]?.text,
  };
}

/** An isolated agent dir holding a settings.json with the given contextPrune block. */
export function makeAgentDir(contextPrune: Record<string, unknown>): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "pi-condense-agent-"));
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "settings.json"), JSON.stringify({ contextPrune }, null, 2));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

// ---------------------------------------------------------------------------
// Branch entry factories
// ---------------------------------------------------------------------------

export const msgEntry = (message: any) => ({ type: "message", message });

export const user = (ts: number, text = `question ${ts}`) => ({ role: "user", content: [{ type: "text", text }], timestamp: ts });

export const assistantWithTools = (ts: number, calls: Array<{ id: string; name: string; args?: any }>, thinking?: string) => ({
  role: "assistant",
  content: [
    ...(thinking ? [{ type: "thinking", thinking, thinkingSignature: "sig" }] : []),
    ...calls.map((c) => ({ type: "toolCall", id: c.id, name: c.name, arguments: c.args ?? { path: `/w/${c.id}` } })),
  ],
  stopReason: "toolUse",
  timestamp: ts,
});

export const assistantText = (ts: number, text = "done") => ({
  role: "assistant",
  content: [{ type: "text", text }],
  stopReason: "stop",
  timestamp: ts,
});

export const toolResult = (ts: number, id: string, name: string, text: string) => ({
  role: "toolResult",
  toolCallId: id,
  toolName: name,
  content: [{ type: "text", text }],
  isError: false,
  timestamp: ts,
});

export const streamReply = (text: string) => ({
  async *[Symbol.asyncIterator]() {},
  async result() {
    return {
      role: "assistant",
      stopReason: "stop",
      content: [{ type: "text", text }],
      usage: {
        input: 100,
        output: 10,
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: 110,
        cost: { input: 0.001, output: 0.0005, cacheRead: 0, cacheWrite: 0, total: 0.0015 },
      },
    };
  },
});

/** A summarizer's reply to a batch prompt: one line naming each `[[N:tool]]` output it labels. */
export function labelledSummary(context: any, verb = "ran") {
  const prompt: string = context.messages[0].content[0].text;
  const labels = [...new Set(prompt.match(/\[\[\d+:[^\]\s]+\]\]/g) ?? [])];
  return streamReply(labels.map((l) => `- ${l} ${verb}`).join("\n") || `- ${verb}`);
}
