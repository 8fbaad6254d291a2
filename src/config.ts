/**
 * The `contextPrune` block of pi's own `<agent-dir>/settings.json`: tolerant
 * loading with per-key defaults, and atomic read-modify-write saving that keeps
 * every other key of the file. A file that cannot be parsed is never written,
 * because replacing it would destroy the user's pi settings.
 */
import { getAgentDir } from "@earendil-works/pi-coding-agent";
import { randomBytes } from "node:crypto";
import { chmod, mkdir, readFile, realpath, rename, stat, unlink, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import {
  DEFAULT_CONFIG,
  PRUNE_ON_MODES,
  SUMMARIZER_THINKING_LEVELS,
  type ContextPruneConfig,
} from "./types.js";

export const SETTINGS_KEY = "contextPrune";

export function settingsPath(): string {
  return join(getAgentDir(), "settings.json");
}

type SettingsFile =
  | { state: "absent" }
  | { state: "ok"; data: Record<string, unknown> }
  | { state: "unusable"; reason: string };

type PlainObject = Record<string, unknown>;

const THINKING_LEVELS = new Set<unknown>(SUMMARIZER_THINKING_LEVELS.map((level) => level.value));
const PRUNE_ON_VALUES = new Set<unknown>(PRUNE_ON_MODES.map((mode) => mode.value));
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

const bool = (value: unknown, fallback: boolean): boolean => (typeof value === "boolean" ? value : fallback);
const isNumber = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);
const count = (value: unknown, fallback: number): number =>
  isNumber(value) && value >= 0 ? Math.floor(value) : fallback;
const positiveCount = (value: unknown, fallback: number): number =>
  isNumber(value) && Math.floor(value) > 0 ? Math.floor(value) : fallback;
const share = (value: unknown): number | null => (isNumber(value) && value > 0 && value <= 1 ? value : null);
const text = (value: unknown, fallback: string): string => (typeof value === "string" ? value : fallback);

function stringList(value: unknown, fallback: string[]): string[] {
  if (!Array.isArray(value)) return fallback;
  return value.every((item) => typeof item === "string") ? value : value.filter((item) => typeof item === "string");
}

/**
 * Nested blocks replace the default wholesale (absent sub-keys stay absent);
 * only a present sub-key of the wrong type falls back to its default value.
 */
function nestedBlock<T extends object>(value: unknown, fallback: T): T {
  if (!isPlainObject(value)) return fallback;
  const defaults = fallback as PlainObject;
  const badKeys = Object.keys(value).filter((key) => {
    if (!(key in defaults)) return false;
    const expected = typeof defaults[key];
    return typeof value[key] !== expected || (expected === "number" && !isNumber(value[key]));
  });
  if (badKeys.length === 0) return value as T;
  const repaired: PlainObject = { ...value };
  for (const key of badKeys) repaired[key] = defaults[key];
  return repaired as T;
}

function normalize(existing: Partial<ContextPruneConfig>): ContextPruneConfig {
  const d = DEFAULT_CONFIG;
  const merged: ContextPruneConfig = { ...d, ...existing };
  return {
    ...merged,
    enabled: bool(merged.enabled, d.enabled),
    showPruneStatusLine: bool(merged.showPruneStatusLine, d.showPruneStatusLine),
    summarizerModel: text(merged.summarizerModel, d.summarizerModel),
    summarizerThinking: THINKING_LEVELS.has(merged.summarizerThinking) ? merged.summarizerThinking : d.summarizerThinking,
    pruneOn: PRUNE_ON_VALUES.has(merged.pruneOn) ? merged.pruneOn : d.pruneOn,
    batchingMode: text(merged.batchingMode, d.batchingMode) as ContextPruneConfig["batchingMode"],
    quietOversizedSkips: bool(merged.quietOversizedSkips, d.quietOversizedSkips),
    minBatchChars: count(merged.minBatchChars, d.minBatchChars),
    recoveryGraceTurns: count(merged.recoveryGraceTurns, d.recoveryGraceTurns),
    summarizerIdleTimeoutMs: count(merged.summarizerIdleTimeoutMs, d.summarizerIdleTimeoutMs),
    summarizerMaxTimeoutMs: count(merged.summarizerMaxTimeoutMs, d.summarizerMaxTimeoutMs),
    protectedTools: stringList(merged.protectedTools, d.protectedTools),
    protectedPaths: stringList(merged.protectedPaths, d.protectedPaths),
    chainCompression: nestedBlock(merged.chainCompression, d.chainCompression),
    purgeErrors: nestedBlock(merged.purgeErrors, d.purgeErrors),
    dedupByContentHash: bool(merged.dedupByContentHash, d.dedupByContentHash),
    autoBudgetThreshold: share(merged.autoBudgetThreshold),
    spillThreshold: positiveCount(merged.spillThreshold, d.spillThreshold),
    spillPreviewBytes: count(merged.spillPreviewBytes, d.spillPreviewBytes),
    budgetTurnDelta: share(merged.budgetTurnDelta),
  };
}

export async function loadConfig(): Promise<ContextPruneConfig> {
  let path = "settings.json";
  try {
    path = settingsPath();
    const file = await readSettings(path);
    if (file.state === "unusable") {
      warnOnce(path, file.reason);
      return { ...DEFAULT_CONFIG };
    }
    const block = file.state === "ok" ? file.data[SETTINGS_KEY] : undefined;
    return isPlainObject(block) ? normalize(block as Partial<ContextPruneConfig>) : { ...DEFAULT_CONFIG };
  } catch (err) {
    warnOnce(path, `could not be loaded (${errorText(err)})`);
    return { ...DEFAULT_CONFIG };
  }
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

async function writeSettings(path: string, config: ContextPruneConfig): Promise<void> {
  const current = await readSettings(path);
  if (current.state === "unusable") {
    throw new Error(
      `pi-condense: not saving settings: ${path} ${current.reason}. The file was left untouched; fix it by hand and try again.`,
    );
  }
  const base = current.state === "ok" ? current.data : {};
  let tmp: string | undefined;
  try {
    const body = `${JSON.stringify({ ...base, [SETTINGS_KEY]: config }, null, 2)}\n`;
    const { target, mode } = await resolveTarget(path);
    await mkdir(dirname(target), { recursive: true });
    tmp = join(dirname(target), `${basename(target)}.${randomBytes(8).toString("hex")}.tmp`);
    await writeFile(tmp, body, "utf8");
    if (mode !== undefined) await chmod(tmp, mode);
    await rename(tmp, target);
  } catch (err) {
    if (tmp) await unlink(tmp).catch(() => {});
    throw new Error(`pi-condense: failed to save settings to ${path}: ${errorText(err)}`, { cause: err });
  }
}

/** Saves are serialized so that fire-and-forget callers land on disk in call order. */
export async function saveConfig(config: ContextPruneConfig): Promise<void> {
  const path = settingsPath();
  const run = saveQueue.then(() => writeSettings(path, config));
  saveQueue = run.catch(() => {});
  return run;
}
