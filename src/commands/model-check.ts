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

/** The `<provider>/<id>` keys whose id is `bareId` exactly: what a `/pruner model <id>` without a provider meant. */
export function keysForBareId(registry: Partial<ModelLookup> | undefined, bareId: string): string[] {
  try {
    const all = typeof registry?.getAll === "function" ? registry.getAll() : [];
    return all.filter((model) => model.id === bareId).map((model) => `${model.provider}/${model.id}`);
  } catch (err) {
    console.error("pi-condense: listing pi's models failed", err);
    return [];
  }
}

/** Cheap models worth naming in the usage line, best first; the example is one pi's catalog has. */
const EXAMPLE_CANDIDATES = ["anthropic/claude-haiku-4-5", "openai/gpt-5-mini", "google/gemini-2.5-flash"];

/** A `<provider>/<id>` for the usage line that pi knows; the first candidate when the registry cannot say. */
export function exampleModel(registry: Partial<ModelLookup> | undefined): string {
  if (typeof registry?.find !== "function") return EXAMPLE_CANDIDATES[0]!;
  try {
    const known = EXAMPLE_CANDIDATES.find((key) => registry.find!(...splitKey(key)));
    if (known) return known;
    const first = typeof registry.getAll === "function" ? registry.getAll()[0] : undefined;
    return first ? `${first.provider}/${first.id}` : EXAMPLE_CANDIDATES[0]!;
  } catch (err) {
    console.error("pi-condense: reading pi's models failed", err);
    return EXAMPLE_CANDIDATES[0]!;
  }
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
