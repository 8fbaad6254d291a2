/**
 * The main-model requests of a session branch, in order: each assistant
 * message is one request, whose input is the system prompt plus every context
 * message before it (compaction and context edits applied by pi's own
 * projection). Two message views are kept side by side: everything the
 * session holds, and the same without pi-condense's summary messages (what pi
 * alone would have sent). pi's cache-warming refreshes (`usage` entries of kind
 * `cache_warm`) ride on the request they sent again. Pure.
 */
import { entryMessage, isAssistant, isCustom, loose, type LooseMessage } from "../capture/message-shape.js";
import type { AssistantMessage } from "@earendil-works/pi-ai";
import { buildSessionContext, sessionEntryToContextMessages } from "@earendil-works/pi-coding-agent";
import type { SessionEntry } from "@earendil-works/pi-coding-agent";
import { CUSTOM_TYPE_SUMMARY } from "../names.js";

export interface RecordedUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** The part of `cacheWrite` written for one hour. */
  cacheWrite1h?: number;
}

/** One refresh of pi's cache warming: when it was sent. */
export interface RecordedRefresh {
  time: number;
}

export interface ReplayRequest {
  /** Position of the request's assistant entry on the branch. */
  entryIndex: number;
  /** When the request was sent: the assistant message's time (ms). */
  time: number;
  /** The messages array the request reads, and how many of its leading messages it sends. */
  all: { messages: unknown[]; length: number };
  bare: { messages: unknown[]; length: number };
  /** Size of the system prompt and tool declarations in force, in chars. */
  systemChars: number;
  /** The text of the system messages in force (what the model is told beside the messages). */
  systemText: string;
  /** The assistant message that answered the request: what the agent then did. */
  reply: unknown;
  /** Changes whenever the system prompt or the tools change: a new value breaks the cached prefix. */
  systemVersion: number;
  /** Output tokens of the reply (recorded, or chars/4 of the reply). */
  outputTokens: number;
  usage: RecordedUsage | undefined;
  provider: string | undefined;
  model: string | undefined;
  /** The pi-ai API the request went through (`anthropic-messages`, `openai-responses`, ...). */
  api: string | undefined;
  /** pi's cache warming sent this request again at these times (before the next request). */
  refreshes?: RecordedRefresh[];
  /** The request's reply ended the agent's run (a text reply): warming after it is idle, not streaming. */
  endsRun: boolean;
}

const REBUILDING = new Set(["compaction", "context_edit"]);

function finite(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : 0;
}

function usageOf(message: unknown): RecordedUsage | undefined {
  const usage = loose(loose(message)?.usage);
  if (!usage) return undefined;
  const recorded: RecordedUsage = { input: finite(usage.input), output: finite(usage.output), cacheRead: finite(usage.cacheRead), cacheWrite: finite(usage.cacheWrite) };
  const long = finite(usage.cacheWrite1h);
  if (long > 0) recorded.cacheWrite1h = Math.min(long, recorded.cacheWrite);
  return recorded.input + recorded.cacheRead + recorded.cacheWrite > 0 ? recorded : undefined;
}

function timeOf(entry: SessionEntry, message: AssistantMessage, fallback: number): number {
  if (typeof message.timestamp === "number" && Number.isFinite(message.timestamp)) return message.timestamp;
  const parsed = Date.parse(String(entry.timestamp));
  return Number.isFinite(parsed) ? parsed : fallback;
}

function systemSize(message: LooseMessage): number {
  const { timestamp: _ignored, ...rest } = message;
  return JSON.stringify(rest).length;
}

function isPrunerSummary(message: unknown): boolean {
  return isCustom(message) && message.customType === CUSTOM_TYPE_SUMMARY;
}

function replyChars(message: AssistantMessage): number {
  return JSON.stringify(message.content ?? "").length;
}

class Views {
  all: unknown[] = [];
  bare: unknown[] = [];
  systemChars = 0;
  systemVersion = 0;
  systemText = "";

  push(messages: unknown[]): void {
    for (const value of messages) {
      const message = loose(value);
      if (message?.role === "system") {
        this.systemChars += systemSize(message);
        this.systemVersion += 1;
        this.systemText += JSON.stringify(message.content ?? "") + JSON.stringify(message.sections ?? "");
        continue;
      }
      this.all.push(value);
      if (!isPrunerSummary(value)) this.bare.push(value);
    }
  }

  /** A compaction or a context edit rewrites earlier context: start fresh arrays from pi's projection. */
  rebuild(path: SessionEntry[], leaf: SessionEntry): void {
    let context;
    try {
      context = buildSessionContext(path, leaf.id);
    } catch {
      // An entry pi's projection cannot read (hand-edited file): the context goes on as it was.
      return;
    }
    this.all = [];
    this.bare = [];
    this.systemChars = 0;
    this.systemText = "";
    this.systemVersion += 1;
    this.push(context.messages as unknown[]);
  }
}

/** A hand-edited entry pi's conversion cannot read (a message entry without a message) adds nothing. */
function contextMessagesOf(entry: SessionEntry): unknown[] {
  if (entry.type === "message" && typeof (entry as { message?: unknown }).message !== "object") return [];
  try {
    return sessionEntryToContextMessages(entry) as unknown[];
  } catch {
    return [];
  }
}

/**
 * The branch with every parent link pointing at the entry before it. pi's projection walks `parentId`
 * from the leaf and never stops on a cycle (an entry that names itself, in a hand-edited file); over
 * this copy it walks exactly the branch.
 */
function linked(branch: SessionEntry[]): SessionEntry[] {
  return branch.map((entry, k) => {
    const parentId = k === 0 ? null : branch[k - 1]!.id;
    return entry.parentId === parentId ? entry : ({ ...entry, parentId } as SessionEntry);
  });
}

/** A refresh sends the last request again; one with no request before it, or no readable time, refreshes nothing. */
function addRefresh(request: ReplayRequest | undefined, time: number): void {
  if (!request || !Number.isFinite(time)) return;
  (request.refreshes ??= []).push({ time });
}

export function buildRequests(input: SessionEntry[]): ReplayRequest[] {
  const branch = linked(input);
  const views = new Views();
  const requests: ReplayRequest[] = [];
  let lastTime = 0;
  for (let i = 0; i < branch.length; i++) {
    const entry = branch[i]!;
    if (REBUILDING.has(entry.type)) {
      views.rebuild(branch.slice(0, i + 1), entry);
      continue;
    }
    if (entry.type === "usage" && (entry as { kind?: unknown }).kind === "cache_warm") {
      addRefresh(requests[requests.length - 1], Date.parse(String(entry.timestamp)));
      continue;
    }
    const message = entryMessage(entry);
    if (isAssistant(message)) {
      const usage = usageOf(message);
      lastTime = timeOf(entry, message, lastTime);
      requests.push({
        entryIndex: i,
        time: lastTime,
        all: { messages: views.all, length: views.all.length },
        bare: { messages: views.bare, length: views.bare.length },
        systemChars: views.systemChars,
        systemText: views.systemText,
        reply: message,
        systemVersion: views.systemVersion,
        outputTokens: usage && usage.output > 0 ? usage.output : Math.ceil(replyChars(message) / 4),
        usage,
        provider: typeof message.provider === "string" ? message.provider : undefined,
        model: typeof message.model === "string" ? message.model : undefined,
        api: typeof message.api === "string" ? message.api : undefined,
        endsRun: message.stopReason === "stop" || message.stopReason === "length",
      });
    }
    views.push(contextMessagesOf(entry));
  }
  return requests;
}
