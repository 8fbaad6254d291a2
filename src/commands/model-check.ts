/**
 * Checks a `/pruner model <provider>/<id>` against pi's model registry before
 * it is saved, and finds the known models closest to one that is not there.
 */

/** The part of pi's `ModelRegistry` the check reads. */
export interface ModelLookup {
  find(provider: string, modelId: string): unknown;
  getAll(): ReadonlyArray<{ provider: string; id: string }>;
}

export type ModelCheck = { known: true } | { known: false; matches: string[] };

const MAX_MATCHES = 5;

function splitKey(key: string): [provider: string, id: string] {
  const slash = key.indexOf("/");
  return [key.slice(0, slash), key.slice(slash + 1)];
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      row.push(Math.min(previous[j]! + 1, row[j - 1]! + 1, substitution));
    }
    previous = row;
  }
  return previous[b.length]!;
}

/**
 * Known keys worth suggesting for `wanted`: same provider, an id that contains the typed
 * id (three characters or more), or a small edit distance (a typo in the provider).
 * Closest first, at most five.
 */
export function closeModelMatches(wanted: string, known: readonly string[]): string[] {
  const target = wanted.toLowerCase();
  const [provider, id] = splitKey(target);
  const typoBudget = Math.max(2, Math.floor(target.length / 5));
  // A fragment of one or two characters is inside half the catalogue.
  const fragment = id.length >= 3 ? id : undefined;
  const scored: Array<{ key: string; distance: number }> = [];
  for (const key of new Set(known)) {
    const candidate = key.toLowerCase();
    const [candidateProvider, candidateId] = splitKey(candidate);
    const distance = editDistance(target, candidate);
    const related = candidateProvider === provider || (fragment !== undefined && candidateId.includes(fragment));
    if (related || distance <= typoBudget) scored.push({ key, distance });
  }
  scored.sort((a, b) => a.distance - b.distance || a.key.localeCompare(b.key));
  return scored.slice(0, MAX_MATCHES).map((entry) => entry.key);
}

/** A registry that is missing or fails cannot refuse anything: the flush falls back as before. */
export function checkModel(registry: Partial<ModelLookup> | undefined, key: string): ModelCheck {
  if (typeof registry?.find !== "function") return { known: true };
  try {
    const [provider, id] = splitKey(key);
    if (registry.find(provider, id)) return { known: true };
    const all = typeof registry.getAll === "function" ? registry.getAll() : [];
    return { known: false, matches: closeModelMatches(key, all.map((model) => `${model.provider}/${model.id}`)) };
  } catch (err) {
    console.error("pi-condense: checking the model against pi's registry failed", err);
    return { known: true };
  }
}
