/**
 * Keys of the `contextPrune` block that no setting reads: each gets one warning naming it, with the setting it
 * was probably meant to be when only the letter case differs. The key stays in the file (a save keeps it). Pure.
 */
import { DEFAULT_CONFIG } from "./config-shape.js";

/** 2.9.1's retired blocks: kept in the file and read by nothing, as 2.9.1 left them, so no warning. */
const RETIRED_KEYS = new Set(["thinkingStrip", "remindUnprunedCount"]);
const NESTED_BLOCKS = ["chainCompression", "purgeErrors"] as const;

type PlainObject = Record<string, unknown>;

const isPlainObject = (value: unknown): value is PlainObject => typeof value === "object" && value !== null && !Array.isArray(value);

function unknownIn(block: PlainObject, known: PlainObject, prefix: string, skip: ReadonlySet<string>): string[] {
  const names = Object.keys(known);
  return Object.keys(block)
    .filter((key) => !Object.hasOwn(known, key) && !skip.has(key))
    .map((key) => {
      const meant = names.find((name) => name.toLowerCase() === key.toLowerCase());
      const hint = meant ? ` (did you mean ${prefix}${meant}?)` : "";
      return `pruner: settings.json ${prefix}${key} is not a pi-condense setting${hint}; it is left in the file and ignored`;
    });
}

/** One warning per unknown key of the block and of its nested blocks, in file order. */
export function unknownKeyWarnings(block: PlainObject): string[] {
  const defaults = DEFAULT_CONFIG as unknown as PlainObject;
  const warnings = unknownIn(block, defaults, "contextPrune.", RETIRED_KEYS);
  for (const nested of NESTED_BLOCKS) {
    const value = block[nested];
    if (isPlainObject(value)) warnings.push(...unknownIn(value, defaults[nested] as PlainObject, `contextPrune.${nested}.`, new Set()));
  }
  return warnings;
}
