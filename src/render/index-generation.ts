/**
 * Change logs of live indexers. The render may only call the indexer's
 * lookup methods (a duck-typed index must work too), so the log lives beside
 * the indexer, keyed by it, rather than on its surface.
 *
 * A change names what it touched (occurrence keys, bare ids, short refs), so
 * a render can keep the decisions of every position no change since named: a
 * flush touches a handful of names, and the 30,000 other positions stay
 * decided. A change that touches everything (a rebuild) forgets the history.
 */

/** Names kept for the recent changes; past it, every change so far counts as having touched everything. */
const NAMES_KEPT = 4096;

export class ChangeLog {
  private count = 0;
  /** History before this generation is not known. */
  private since = 0;
  /** Names touched by the changes after `since`, in order; `starts[k]` is where change `since + k + 1` begins. */
  private names: string[] = [];
  private starts: number[] = [];
  /**
   * Whether a reader took a generation at or after `since`: only then can anyone ask for the names since.
   * A rebuild touches everything and then logs thousands of changes no reader can ask about; unwatched, they cost a count.
   */
  private watched = false;

  get changes(): number {
    return this.count;
  }

  /** The current generation, for a reader that will later ask what changed since. */
  observe(): number {
    if (!this.watched) {
      this.forget();
      this.watched = true;
    }
    return this.count;
  }

  /**
   * Starts a change; the names it touches follow (`touched`). A change that names nothing touched nothing a
   * lookup reads. False when nobody can ask for the names, so the caller need not work them out.
   */
  change(): boolean {
    this.count++;
    if (!this.watched) return false;
    this.starts.push(this.names.length);
    return true;
  }

  touched(name: string): void {
    if (!this.watched) return;
    if (this.names.length >= NAMES_KEPT) this.forget();
    else this.names.push(name);
  }

  touchedEverything(): void {
    this.count++;
    this.forget();
  }

  /** Every name touched after `generation`; undefined when that is not known. */
  namesSince(generation: number): ReadonlySet<string> | undefined {
    if (!Number.isInteger(generation) || generation < this.since || generation > this.count) return undefined;
    const names = new Set<string>();
    if (generation === this.count) return names;
    for (let k = this.starts[generation - this.since]!; k < this.names.length; k++) names.add(this.names[k]!);
    return names;
  }

  /** Every reader's generation is now before `since`: nothing is recorded until one takes a new one. */
  private forget(): void {
    this.since = this.count;
    this.names = [];
    this.starts = [];
    this.watched = false;
  }
}

const logs = new WeakMap<object, ChangeLog>();

/** Starts logging changes of `owner`; the owner reports every change to the returned log. */
export function trackChanges(owner: object): ChangeLog {
  const log = new ChangeLog();
  logs.set(owner, log);
  return log;
}

/** The owner's change count, or undefined for an object that does not log its changes. */
export function generationOf(owner: object): number | undefined {
  return logs.get(owner)?.observe();
}

/** The names the owner's changes after `generation` touched; undefined when not known (or not logged). */
export function namesTouchedSince(owner: object, generation: number): ReadonlySet<string> | undefined {
  return logs.get(owner)?.namesSince(generation);
}
