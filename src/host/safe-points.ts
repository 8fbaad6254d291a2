/**
 * Moments when a flush that finished in the background may write to the
 * session: at once while the agent is idle, else at the next safe point the
 * turn hooks announce (see final-reply-flush.ts).
 */
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";

export interface BackgroundFlush {
  done: Promise<unknown>;
  abort: AbortController;
  /** Set once a provider request has waited for this flush (only the first one waits). */
  requestWaited: boolean;
}

/** Flushes waiting for a moment when writing to the session is safe. */
export class SafePoints {
  private waiting: Array<() => void> = [];
  private leaving = false;
  private holders = 0;

  /** Resolves at once when the agent is idle or a safe point is being held open, else when one is reached. */
  async wait(ctx: ExtensionContext): Promise<void> {
    if (this.leaving || this.holders > 0 || isIdle(ctx)) return;
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  /** The session is being left: from now on every moment is safe (no run can start any more). */
  leave(): void {
    this.leaving = true;
    this.reached();
  }

  /** A momentary safe point (agent_end): whoever waits now may write. */
  reached(): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (const resolve of waiting) resolve();
  }

  /** Keeps a safe point open until `until` settles (a request's context hook waiting for a flush). */
  async holdOpen(until: Promise<unknown>): Promise<void> {
    this.holders++;
    this.reached();
    try {
      await until;
    } finally {
      this.holders--;
    }
  }
}

function isIdle(ctx: ExtensionContext): boolean {
  try {
    return (ctx as { isIdle?: () => boolean }).isIdle?.() !== false;
  } catch {
    // A stale context writes nothing anyway; the write reports it.
    return true;
  }
}

