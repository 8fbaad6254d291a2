/**
 * The prune frontier: the last batch boundary a flush attempted, persisted as
 * a custom entry so work at or before it is never re-summarized after reload.
 * A flush that leaves an earlier waiting batch unattempted cannot move it past
 * that batch; the outputs it did handle without archiving them (too small, or a
 * summary that came out longer) are remembered here instead, in memory only, so
 * they are not handled again before the frontier passes them (after a reload
 * they are, once).
 */
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { corruptEntryMessage, parseFrontierEntry } from "./persisted-entries.js";
import { CUSTOM_TYPE_FRONTIER } from "../names.js";
import type { PruneFrontier } from "./records.js";
import { looseEntry } from "./message-shape.js";

export class PruneFrontierTracker {
  private current: PruneFrontier | null = null;
  private readonly attemptedAhead = new Set<string>();

  reset(): void {
    this.current = null;
    this.attemptedAhead.clear();
  }

  /** Occurrence keys a flush handled past where the frontier could move. */
  noteAttemptedAhead(keys: Iterable<string>): void {
    for (const key of keys) this.attemptedAhead.add(key);
  }

  wasAttemptedAhead(key: string): boolean {
    return this.attemptedAhead.has(key);
  }

  get(): PruneFrontier | null {
    return this.current ? { ...this.current } : null;
  }

  /** An unusable snapshot leaves the current frontier as it is. */
  fromJSON(data: PruneFrontier): void {
    const parsed = parseFrontierEntry(data);
    if (parsed.ok) this.current = parsed.value;
  }

  /** The last valid entry wins: a corrupt later entry is reported and does not erase an earlier one. */
  reconstructFromSession(ctx: ExtensionContext): void {
    this.reset();
    for (const value of ctx.sessionManager.getBranch() as readonly unknown[]) {
      const entry = looseEntry(value);
      if (entry?.type !== "custom" || entry.customType !== CUSTOM_TYPE_FRONTIER || !entry.data) continue;
      const parsed = parseFrontierEntry(entry.data);
      if (parsed.ok) this.current = parsed.value;
      else console.error(corruptEntryMessage(CUSTOM_TYPE_FRONTIER, parsed.reason));
    }
  }

  advance(frontier: PruneFrontier): void {
    this.current = { ...frontier };
  }

  persist(pi: ExtensionAPI): void {
    if (this.current) pi.appendEntry(CUSTOM_TYPE_FRONTIER, this.current);
  }
}
