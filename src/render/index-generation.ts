/**
 * Change counters of live indexers. The render may only call the indexer's
 * lookup methods (a duck-typed index must work too), so the counter lives
 * beside the indexer, keyed by it, rather than on its surface.
 */

export interface ChangeCounter {
  changes: number;
}

const counters = new WeakMap<object, ChangeCounter>();

/** Starts counting changes of `owner`; the owner bumps the returned counter on every change. */
export function trackChanges(owner: object): ChangeCounter {
  const counter = { changes: 0 };
  counters.set(owner, counter);
  return counter;
}

/** The owner's change count, or undefined for an object that does not count its changes. */
export function generationOf(owner: object): number | undefined {
  return counters.get(owner)?.changes;
}
