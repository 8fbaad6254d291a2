/**
 * The one reading of a whole-number setting, shared by the `/pruner` commands, the settings overlay and the
 * settings file: a whole number inside the setting's range, or nothing. `0x10`, `1e3`, `12abc`, `2.5`, `3x`
 * and `-1` are refused rather than read as something else, and the refusal names the range.
 */

/** The whole numbers a setting takes, both ends included. */
export interface WholeRange {
  min: number;
  max: number;
}

/** Largest count any setting takes: far past any context window, and a number the notices can print as typed. */
export const MAX_WHOLE = 1_000_000_000;

const COUNT: WholeRange = { min: 0, max: MAX_WHOLE };
const POSITIVE: WholeRange = { min: 1, max: MAX_WHOLE };

/** Every whole-number setting's range, by its key in the settings file (nested keys as `block.key`). */
export const WHOLE_RANGES = {
  minBatchChars: COUNT,
  recoveryGraceTurns: COUNT,
  summarizerIdleTimeoutMs: COUNT,
  summarizerMaxTimeoutMs: COUNT,
  spillPreviewBytes: COUNT,
  spillThreshold: POSITIVE,
  frontierGapThresholdTokens: POSITIVE,
  maxImagesPerRequest: POSITIVE,
  workingSetPrompts: COUNT,
  // 0 keeps no prompt whole: every closed chain is compressed (spec 11, P3).
  "chainCompression.rollingWindow": COUNT,
  "purgeErrors.cooldownTurns": COUNT,
  "purgeErrors.minArgChars": COUNT,
} as const satisfies Record<string, WholeRange>;

export type WholeKey = keyof typeof WHOLE_RANGES;

const DIGITS = /^[0-9]+$/;

/**
 * `input` as a whole number inside `range`, or undefined. Text must be digits only (what a user types); a
 * number (what a JSON file holds) must be an integer.
 */
export function parseWholeNumber(input: string | number, range: WholeRange): number | undefined {
  const n = typeof input === "number" ? input : DIGITS.test(input.trim()) ? Number(input.trim()) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < range.min || n > range.max) return undefined;
  // -0 from a JSON file reads as 0.
  return n + 0;
}

/** What a refusal says the setting takes: `a whole number from 0 to 1000000000`, or `a whole number of <unit> from ...`. */
export function wholeRangeWords(range: WholeRange, unit?: string): string {
  return `a whole number${unit ? ` of ${unit}` : ""} from ${range.min} to ${range.max}`;
}
