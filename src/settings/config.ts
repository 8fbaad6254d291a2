/**
 * The `contextPrune` block of pi's own `<agent-dir>/settings.json`: tolerant
 * loading with per-key defaults, and atomic read-modify-write saving that keeps
 * every other key of the file and writes only the settings the user changed.
 * A file that cannot be parsed is never written, because replacing it would
 * destroy the user's pi settings.
 */
import { getAgentDir } from "@earendil-works/pi-coding-agent";
import { randomBytes } from "node:crypto";
import { chmod, mkdir, readFile, realpath, rename, stat, unlink, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { plural } from "../format/plural.js";
import { parseWholeNumber, WHOLE_RANGES, wholeRangeWords, type WholeKey, type WholeRange } from "./whole-number.js";
import { BATCHING_MODES, DEFAULT_CONFIG, FLUSH_POLICIES, SUMMARIES_MODES, PRUNE_ON_MODES, SUMMARIZER_THINKING_LEVELS, type ContextPruneConfig, type SettingsOffReason } from "./config-shape.js";
import { unknownKeyWarnings } from "./unknown-keys.js";

export const SETTINGS_KEY = "contextPrune";

export function settingsPath(): string {
  return join(getAgentDir(), "settings.json");
}

type SettingsFile =
  | { state: "absent" }
  | { state: "ok"; data: Record<string, unknown> }
  | { state: "unusable"; reason: string };

type PlainObject = Record<string, unknown>;

const warnedPaths = new Set<string>();
let saveQueue: Promise<void> = Promise.resolve();

function isPlainObject(value: unknown): value is PlainObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

async function readSettings(path: string): Promise<SettingsFile> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException)?.code === "ENOENT") return { state: "absent" };
    return { state: "unusable", reason: `cannot be read (${errorText(err)})` };
  }
  text = text.replace(/^\uFEFF/, "");
  if (text.trim() === "") return { state: "absent" };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return { state: "unusable", reason: `is not valid JSON (${errorText(err)})` };
  }
  if (!isPlainObject(parsed)) return { state: "unusable", reason: "does not contain a JSON object" };
  return { state: "ok", data: parsed };
}

function warnOnce(path: string, reason: string): void {
  if (warnedPaths.has(path)) return;
  warnedPaths.add(path);
  console.error(
    `pi-condense: settings file ${path} ${reason}; using default contextPrune settings. ` +
      "pi-condense will not write to this file until it is fixed.",
  );
}

/** What `loadConfig` returns, plus one warning per setting that was of the wrong type and replaced, or unknown. */
export interface LoadedConfig {
  config: ContextPruneConfig;
  warnings: string[];
  /** Set when the file or block left pruning off (its default) in place of what the user wrote. */
  offReason?: SettingsOffReason;
}

const isNumber = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);

function describeValue(value: unknown): string {
  if (typeof value === "string") {
    const shown = value.length > 40 ? `${value.slice(0, 40)}...` : value;
    return `the string ${JSON.stringify(shown)}`;
  }
  if (Array.isArray(value)) return "a list";
  if (value === null) return "null";
  if (typeof value === "object") return "an object";
  return String(value);
}

const shown = (value: unknown): string => JSON.stringify(value) ?? String(value);

/**
 * Validates one settings block, collecting one warning per key it had to
 * replace. A value it can use passes silently (a whole-number key takes only a
 * whole number in its range, see whole-number.ts); unknown keys are left to
 * `unknownKeyWarnings`.
 */
class Normalizer {
  readonly warnings: string[] = [];

  warn(key: string, expected: string, found: string, using: string): void {
    this.warnings.push(`pruner: settings.json contextPrune.${key} should be ${expected}, found ${found}; using ${using}`);
  }

  private fallback<T>(key: string, expected: string, value: unknown, fallback: T): T {
    this.warn(key, expected, describeValue(value), shown(fallback));
    return fallback;
  }

  bool(key: string, value: unknown, fallback: boolean): boolean {
    return typeof value === "boolean" ? value : this.fallback(key, "true or false", value, fallback);
  }

  text(key: string, value: unknown, fallback: string, expected = "a string"): string {
    return typeof value === "string" ? value : this.fallback(key, expected, value, fallback);
  }

  /** One of our words, in any letter case, as `/pruner` reads them. */
  oneOf<T extends string>(key: string, value: unknown, allowed: readonly T[], fallback: T): T {
    const word = typeof value === "string" ? value.toLowerCase() : value;
    if (allowed.includes(word as T)) return word as T;
    return this.fallback(key, `one of ${allowed.map((v) => `"${v}"`).join(", ")}`, value, fallback);
  }

  /**
   * A whole number in the key's range. A fraction is floored, as the file has always been read, but said; a
   * string, or a number out of range once floored, is refused for the fallback.
   */
  whole(key: WholeKey, value: unknown, fallback: number): number {
    return this.wholeIn(key, WHOLE_RANGES[key], value, fallback);
  }

  /** A whole number in the key's range as `whole` reads it, or null ("no limit of mine", or "off"). */
  wholeOrNull(key: WholeKey, value: unknown, fallback: number | null = null): number | null {
    return value === null ? null : this.wholeIn(key, WHOLE_RANGES[key], value, fallback, " or null");
  }

  private wholeIn<F extends number | null>(key: string, range: WholeRange, value: unknown, fallback: F, orElse = ""): number | F {
    const expected = `${wholeRangeWords(range)}${orElse}`;
    const n = isNumber(value) ? parseWholeNumber(Math.floor(value), range) : undefined;
    if (n === undefined) return this.fallback(key, expected, value, fallback);
    if (n !== value) this.warn(key, expected, describeValue(value), shown(n));
    return n;
  }

  share(key: string, value: unknown, fallback: number | null = null): number | null {
    if (value === null || (isNumber(value) && value > 0 && value <= 1)) return value;
    return this.fallback(key, "a number above 0 and at most 1 (a share: 0.6 is 60%), or null", value, fallback);
  }

  stringList(key: string, value: unknown, fallback: string[]): string[] {
    if (!Array.isArray(value)) return this.fallback(key, "a list of strings", value, fallback);
    if (value.every((item) => typeof item === "string")) return value;
    const kept = value.filter((item) => typeof item === "string");
    const others = value.length - kept.length;
    const found = `${plural(others, "entry", "entries")} that ${others === 1 ? "is" : "are"} not a string`;
    this.warn(key, "a list of strings", found, shown(kept));
    return kept;
  }

  /**
   * Nested blocks replace the default wholesale (absent sub-keys stay absent);
   * only a present sub-key of the wrong type falls back to its default value.
   */
  nestedBlock<T extends object>(key: string, value: unknown, fallback: T, feature: string): T {
    if (!isPlainObject(value)) return this.fallback(key, `an object with ${Object.keys(fallback).join(", ")}`, value, fallback);
    const defaults = fallback as PlainObject;
    let repaired: PlainObject | undefined;
    for (const sub of Object.keys(value)) {
      if (!Object.hasOwn(defaults, sub)) continue;
      const expected = typeof defaults[sub];
      const current = value[sub];
      const range = (WHOLE_RANGES as Record<string, WholeRange | undefined>)[`${key}.${sub}`];
      if (range) {
        const n = this.wholeIn(`${key}.${sub}`, range, current, defaults[sub] as number);
        if (n !== current) (repaired ??= { ...value })[sub] = n;
        continue;
      }
      if (typeof current === expected && (expected !== "number" || isNumber(current))) continue;
      repaired ??= { ...value };
      repaired[sub] = defaults[sub];
      const wanted = expected === "boolean" ? "true or false" : expected === "number" ? "a number" : `a ${expected}`;
      this.warn(`${key}.${sub}`, wanted, describeValue(current), shown(defaults[sub]));
    }
    if (value.enabled === undefined) {
      this.warnings.push(
        `pruner: settings.json contextPrune.${key} has no "enabled" field, so ${feature} stays off ` +
          `(a nested block replaces the defaults instead of merging with them; add "enabled": true or false)`,
      );
    }
    return (repaired ?? value) as T;
  }
}

const THINKING_VALUES = SUMMARIZER_THINKING_LEVELS.map((level) => level.value);
const PRUNE_ON_VALUES = PRUNE_ON_MODES.map((mode) => mode.value);
const SUMMARIES_VALUES = SUMMARIES_MODES.map((mode) => mode.value);
const BATCHING_VALUES = BATCHING_MODES.map((mode) => mode.value);

function normalize(existing: Partial<ContextPruneConfig>, n: Normalizer): ContextPruneConfig {
  const d = DEFAULT_CONFIG;
  const merged: ContextPruneConfig = { ...d, ...existing };
  return {
    ...merged,
    enabled: n.bool("enabled", merged.enabled, d.enabled),
    showPruneStatusLine: n.bool("showPruneStatusLine", merged.showPruneStatusLine, d.showPruneStatusLine),
    summarizerModel: n.text("summarizerModel", merged.summarizerModel, d.summarizerModel, '"default" (the session\'s model) or a model as "provider/id"'),
    summarizerThinking: n.oneOf("summarizerThinking", merged.summarizerThinking, THINKING_VALUES, d.summarizerThinking),
    pruneOn: n.oneOf("pruneOn", merged.pruneOn, PRUNE_ON_VALUES, d.pruneOn),
    batchingMode: n.text("batchingMode", merged.batchingMode, d.batchingMode, BATCHING_VALUES.map((v) => `"${v}"`).join(" or ")) as ContextPruneConfig["batchingMode"],
    quietOversizedSkips: n.bool("quietOversizedSkips", merged.quietOversizedSkips, d.quietOversizedSkips),
    minBatchChars: n.whole("minBatchChars", merged.minBatchChars, d.minBatchChars),
    recoveryGraceTurns: n.whole("recoveryGraceTurns", merged.recoveryGraceTurns, d.recoveryGraceTurns),
    summarizerIdleTimeoutMs: n.whole("summarizerIdleTimeoutMs", merged.summarizerIdleTimeoutMs, d.summarizerIdleTimeoutMs),
    summarizerMaxTimeoutMs: n.whole("summarizerMaxTimeoutMs", merged.summarizerMaxTimeoutMs, d.summarizerMaxTimeoutMs),
    protectedTools: n.stringList("protectedTools", merged.protectedTools, d.protectedTools),
    protectedPaths: n.stringList("protectedPaths", merged.protectedPaths, d.protectedPaths),
    chainCompression: n.nestedBlock("chainCompression", merged.chainCompression, d.chainCompression, "chain compression"),
    purgeErrors: n.nestedBlock("purgeErrors", merged.purgeErrors, d.purgeErrors, "error purge"),
    dedupByContentHash: n.bool("dedupByContentHash", merged.dedupByContentHash, d.dedupByContentHash),
    autoBudgetThreshold: n.share("autoBudgetThreshold", merged.autoBudgetThreshold),
    spillThreshold: n.whole("spillThreshold", merged.spillThreshold, d.spillThreshold),
    spillPreviewBytes: n.whole("spillPreviewBytes", merged.spillPreviewBytes, d.spillPreviewBytes),
    budgetTurnDelta: n.share("budgetTurnDelta", merged.budgetTurnDelta),
    // Below 1 would fire on every gated turn (the gap is never negative), so it means off.
    frontierGapThresholdTokens: n.wholeOrNull("frontierGapThresholdTokens", merged.frontierGapThresholdTokens),
    maxImagesPerRequest: n.wholeOrNull("maxImagesPerRequest", merged.maxImagesPerRequest),
    flushPolicy: n.oneOf("flushPolicy", merged.flushPolicy, FLUSH_POLICIES, d.flushPolicy),
    contextPressure: n.share("contextPressure", merged.contextPressure, d.contextPressure),
    cacheBreakpoint: n.bool("cacheBreakpoint", merged.cacheBreakpoint, d.cacheBreakpoint),
    stubArguments: n.bool("stubArguments", merged.stubArguments, d.stubArguments),
    workingSetPrompts: n.wholeOrNull("workingSetPrompts", merged.workingSetPrompts, d.workingSetPrompts),
    summaries: n.oneOf("summaries", merged.summaries, SUMMARIES_VALUES, d.summaries),
  };
}

/** A validation that keeps, per key, the words its first refusal names: what the key accepts. */
class AcceptedValues extends Normalizer {
  readonly accepts = new Map<string, string>();

  override warn(key: string, expected: string, found: string, using: string): void {
    if (!this.accepts.has(key)) this.accepts.set(key, expected);
    super.warn(key, expected, found, using);
  }
}

/** No setting takes it: its refusal names what the setting does take. */
const NO_SETTING_TAKES = Symbol("none");

/**
 * One top-level setting checked as the settings file's block is (`/pruner report key=value`): the value it
 * takes as given, or, for one it would refuse or change, the values it accepts in the words of its warning.
 */
export function checkSetting(key: keyof ContextPruneConfig, value: unknown): { ok: true; value: unknown } | { ok: false; accepts: string } {
  const taken = normalize({ [key]: value } as Partial<ContextPruneConfig>, new Normalizer()) as unknown as Record<string, unknown>;
  if (isDeepStrictEqual(taken[key], value)) return { ok: true, value };
  const words = new AcceptedValues();
  normalize({ [key]: NO_SETTING_TAKES } as unknown as Partial<ContextPruneConfig>, words);
  return { ok: false, accepts: words.accepts.get(key) ?? "another value" };
}

export async function loadConfig(): Promise<ContextPruneConfig> {
  return (await loadConfigWithWarnings()).config;
}

/** `loadConfig` with the warnings for settings that had the wrong type or no meaning (session_start shows them). */
export async function loadConfigWithWarnings(): Promise<LoadedConfig> {
  let path = "settings.json";
  try {
    path = settingsPath();
    const file = await readSettings(path);
    if (file.state === "unusable") return unusableFile(path, file.reason);
    const block = file.state === "ok" ? file.data[SETTINGS_KEY] : undefined;
    const n = new Normalizer();
    if (isPlainObject(block)) {
      const config = normalize(block as Partial<ContextPruneConfig>, n);
      return { config, warnings: [...n.warnings, ...unknownKeyWarnings(block)], offReason: enabledOffReason(block) };
    }
    if (block === undefined) return { config: { ...DEFAULT_CONFIG }, warnings: [] };
    const detail = `settings.json ${SETTINGS_KEY} should be an object, found ${describeValue(block)}`;
    return {
      config: { ...DEFAULT_CONFIG },
      warnings: [`pruner: ${detail}; using the default settings`],
      offReason: { footer: `settings.json: ${SETTINGS_KEY} is not an object`, detail },
    };
  } catch (err) {
    return unusableFile(path, `could not be loaded (${errorText(err)})`);
  }
}

/** The defaults, pruning off, and why: a file that cannot be used is never written either. */
function unusableFile(path: string, reason: string): LoadedConfig {
  warnOnce(path, reason);
  const detail = `settings file ${path} ${reason}`;
  return {
    config: { ...DEFAULT_CONFIG },
    warnings: [`pruner: ${detail}; using the default settings (pruning off) and leaving the file untouched until it is fixed`],
    offReason: { footer: `settings.json ${reason.replace(/ \(.*\)$/s, "")}`, detail },
  };
}

/** An `enabled` that is not a boolean leaves pruning off (the default) in place of what the user meant. */
function enabledOffReason(block: PlainObject): SettingsOffReason | undefined {
  if (!Object.hasOwn(block, "enabled") || typeof block.enabled === "boolean" || DEFAULT_CONFIG.enabled) return undefined;
  return {
    footer: "settings.json: enabled is not true or false",
    detail: `settings.json ${SETTINGS_KEY}.enabled should be true or false, found ${describeValue(block.enabled)}`,
  };
}

/** Writes go to the real file behind a symlink, so a linked settings file stays linked. */
async function resolveTarget(path: string): Promise<{ target: string; mode?: number }> {
  try {
    const target = await realpath(path);
    return { target, mode: (await stat(target)).mode & 0o777 };
  } catch {
    return { target: path };
  }
}

/** A refused or failed save: `reason` is one clause without a final period, `path` names the file once. */
export class SettingsSaveError extends Error {
  override readonly name = "SettingsSaveError";

  constructor(
    readonly path: string,
    readonly reason: string,
    cause?: unknown,
  ) {
    super(`pi-condense: failed to save settings to ${path}: ${reason}`, { cause });
  }
}

/**
 * The block to write: every key the file's block already has (settings keep their new value,
 * keys we do not know keep theirs) plus every setting whose value differs from its default,
 * so an untouched setting follows later default changes. A nested block is compared and
 * written whole, because loading takes a nested block as stored, without default sub-keys.
 */
function blockToWrite(stored: unknown, config: ContextPruneConfig): PlainObject {
  const block: PlainObject = isPlainObject(stored) ? { ...stored } : {};
  const defaults: PlainObject = DEFAULT_CONFIG as unknown as PlainObject;
  for (const [key, value] of Object.entries(config)) {
    if (value === undefined) continue;
    const inFile = Object.hasOwn(block, key);
    const write = Object.hasOwn(defaults, key) ? inFile || !isDeepStrictEqual(value, defaults[key]) : !inFile;
    // defineProperty: a carried-over "__proto__" key stays a plain key instead of a prototype.
    if (write) Object.defineProperty(block, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return block;
}

async function writeSettings(path: string, config: ContextPruneConfig): Promise<void> {
  const current = await readSettings(path);
  if (current.state === "unusable") {
    throw new SettingsSaveError(path, `it ${current.reason}, so it was left untouched (fix it by hand and try again)`);
  }
  const base = current.state === "ok" ? current.data : {};
  let tmp: string | undefined;
  try {
    const block = blockToWrite(base[SETTINGS_KEY], config);
    const body = `${JSON.stringify({ ...base, [SETTINGS_KEY]: block }, null, 2)}\n`;
    const { target, mode } = await resolveTarget(path);
    await mkdir(dirname(target), { recursive: true });
    tmp = join(dirname(target), `${basename(target)}.${randomBytes(8).toString("hex")}.tmp`);
    await writeFile(tmp, body, "utf8");
    if (mode !== undefined) await chmod(tmp, mode);
    await rename(tmp, target);
  } catch (err) {
    if (tmp) await unlink(tmp).catch(() => {});
    throw new SettingsSaveError(path, errorText(err), err);
  }
}

/** Saves are serialized so that fire-and-forget callers land on disk in call order. */
export async function saveConfig(config: ContextPruneConfig): Promise<void> {
  const path = settingsPath();
  const run = saveQueue.then(() => writeSettings(path, config));
  saveQueue = run.catch(() => {});
  return run;
}
