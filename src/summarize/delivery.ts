/**
 * Where a flush writes. Automatic flushes (message_end, the turn_end gate) use
 * the session manager directly: it persists without starting an extra model
 * turn and keeps working in print mode where `pi` may already be stale.
 * `/pruner now` uses the runtime API (`pi.sendMessage` as a steer).
 */
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { CUSTOM_TYPE_SUMMARY } from "../names.js";
import type { SummaryMessageDetails } from "../capture/records.js";

export const STALE_CONTEXT_MARKER = "This extension ctx is stale";

export type AppendEntry = (customType: string, data?: unknown) => void;

/** The runtime SessionManager has these methods; pi 1.6.0 types it as read-only. */
export interface SessionAppender {
  appendCustomEntry(customType: string, data?: unknown): string;
  appendCustomMessageEntry(customType: string, content: string, display: boolean, details?: unknown): string;
}

export interface Delivery {
  kind: "runtime" | "session";
  appendEntry: AppendEntry;
  sendSummary(text: string, details: SummaryMessageDetails): void;
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export function isStaleContextError(err: unknown): boolean {
  return errorMessage(err).includes(STALE_CONTEXT_MARKER);
}

export function sessionAppenderOf(ctx: ExtensionContext): SessionAppender {
  return ctx.sessionManager as unknown as SessionAppender;
}

export function runtimeDelivery(pi: ExtensionAPI): Delivery {
  return {
    kind: "runtime",
    appendEntry: (customType, data) => pi.appendEntry(customType, data),
    sendSummary: (text, details) =>
      pi.sendMessage({ customType: CUSTOM_TYPE_SUMMARY, content: text, display: false, details }, { deliverAs: "steer" }),
  };
}

export function sessionDelivery(sm: SessionAppender): Delivery {
  return {
    kind: "session",
    appendEntry: (customType, data) => {
      sm.appendCustomEntry(customType, data);
    },
    sendSummary: (text, details) => {
      sm.appendCustomMessageEntry(CUSTOM_TYPE_SUMMARY, text, false, details);
    },
  };
}

/** A notify on a stale ctx is dropped silently; anything else propagates. */
export function safeNotify(ctx: ExtensionContext, message: string, type: "info" | "warning" | "error"): void {
  try {
    ctx.ui.notify(message, type);
  } catch (err) {
    if (!isStaleContextError(err)) throw err;
  }
}
