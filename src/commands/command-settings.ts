/**
 * `/pruner settings`: a boxed, searchable SettingsList overlay over every tunable config key,
 * values shown in their units (`60%`, `20 s`) and saved as the stored numbers, with a
 * searchable model browser as the summarizer-model submenu.
 */
import type { ExtensionCommandContext, Theme } from "@earendil-works/pi-coding-agent";
import { getSettingsListTheme } from "@earendil-works/pi-coding-agent";
import { SettingsList, truncateToWidth, visibleWidth, wrapTextWithAnsi } from "@earendil-works/pi-tui";
import type { Component, SettingItem, SettingsListTheme } from "@earendil-works/pi-tui";
import { plural } from "../format/plural.js";
import { centered, frame } from "../ui/frame.js";
import { ListView } from "../ui/list-view.js";
import { errorMessage, recordToggle, refreshStatus, safeNotify, showToggleCost, toggleCost } from "./command-context.js";
import type { CommandDeps, SubcommandHandler } from "./command-context.js";
import { listOrNone, settingDescription } from "./command-descriptions.js";
import { openModelBrowser } from "./model-browser.js";
import { searchSettingsBy } from "./settings-search.js";
import { AUTO_BUDGET_PRESETS, MIN_BATCH_CHARS_PRESETS, PURGE_COOLDOWN_PRESETS, PURGE_MIN_ARG_PRESETS, RECOVERY_GRACE_PRESETS, ROLLING_WINDOW_PRESETS, SUMMARIZER_IDLE_TIMEOUT_PRESETS, SUMMARIZER_MAX_TIMEOUT_PRESETS } from "./settings-presets.js";
import { BATCHING_MODES, SUMMARIES_MODES, PRUNE_ON_MODES, SUMMARIZER_THINKING_LEVELS } from "../settings/config-shape.js";
import { parseWholeNumber, WHOLE_RANGES, type WholeKey } from "../settings/whole-number.js";
import type { ChainCompressionConfig, ContextPruneConfig, ErrorPurgeConfig, PresetOption } from "../settings/config-shape.js";

type Config = ContextPruneConfig;

interface SettingSpec {
  id: string;
  label: string;
  values: (config: Config) => string[];
  current: (config: Config) => string;
  /** Absent for read-only rows. */
  apply?: (value: string, config: Config) => Config;
  withModelBrowser?: true;
  /** A read-only list: Enter shows it whole and says how to edit it. */
  list?: { entries: (config: Config) => string[]; edit: string };
}

const BOOL_VALUES = ["true", "false"];

function presetValues(presets: PresetOption[]): string[] {
  return presets.map((preset) => preset.value);
}

function boolSpec(id: string, label: string, get: (c: Config) => boolean, set: (c: Config, v: boolean) => Config): SettingSpec {
  return { id, label, values: () => BOOL_VALUES, current: (c) => String(get(c)), apply: (v, c) => set(c, v === "true") };
}

type TopBool = "enabled" | "showPruneStatusLine" | "quietOversizedSkips" | "dedupByContentHash" | "cacheBreakpoint";

function topBool(id: TopBool, label: string): SettingSpec {
  return boolSpec(id, label, (c) => c[id], (c, v) => ({ ...c, [id]: v }));
}

/** How a stored number is shown (`20 s`, `60%`, `1000 chars`, `off`), and read back from the text shown. */
interface Unit {
  show: (n: number) => string;
  /** Only our own texts reach it: the list cycles the values we gave it. */
  read: (shown: string) => number;
}

const offOr = (show: (n: number) => string, read: (figure: number) => number = (figure) => figure): Unit => ({
  show: (n) => (n === 0 ? "off" : show(n)),
  read: (shown) => (shown === "off" ? 0 : read(Number.parseFloat(shown))),
});
const chars = offOr((n) => `${n} chars`);
const secondsShown = offOr((n) => `${n / 1000} s`, (s) => Math.round(s * 1000));
const percent = offOr((n) => `${Math.round(n * 1000) / 10}%`, (p) => p / 100);
const counted = (unit: string): Unit => offOr((n) => plural(n, unit));

/**
 * A numeric setting's cycle: its presets with the current value in its place when it is none of them, so
 * the row shows the real value and Enter moves to the next preset above it (and comes round to it again).
 */
function cycleWith(presets: PresetOption[], unit: Unit, current: number): string[] {
  const numbers = presets.map((preset) => Number(preset.value));
  if (!numbers.includes(current)) numbers.push(current);
  return numbers.sort((a, b) => a - b).map(unit.show);
}

function wholeSpec(
  id: string,
  label: string,
  key: WholeKey,
  presets: PresetOption[],
  unit: Unit,
  get: (c: Config) => number,
  set: (c: Config, n: number) => Config,
): SettingSpec {
  return {
    id,
    label,
    values: (c) => cycleWith(presets, unit, get(c)),
    current: (c) => unit.show(get(c)),
    apply: (v, c) => {
      const n = parseWholeNumber(unit.read(v), WHOLE_RANGES[key]);
      return n === undefined ? c : set(c, n);
    },
  };
}

type TopWhole = "minBatchChars" | "recoveryGraceTurns" | "summarizerIdleTimeoutMs" | "summarizerMaxTimeoutMs";

function intSpec(id: TopWhole, label: string, presets: PresetOption[], unit: Unit): SettingSpec {
  return wholeSpec(id, label, id, presets, unit, (c) => c[id], (c, n) => ({ ...c, [id]: n }));
}

function chainSpec(id: string, label: string, key: keyof ChainCompressionConfig): SettingSpec {
  return boolSpec(
    id,
    label,
    (c) => Boolean(c.chainCompression[key]),
    (c, v) => ({ ...c, chainCompression: { ...c.chainCompression, [key]: v } }),
  );
}

function purgeIntSpec(id: string, label: string, key: "cooldownTurns" | "minArgChars", presets: PresetOption[], unit: Unit): SettingSpec {
  return wholeSpec(
    id,
    label,
    `purgeErrors.${key}`,
    presets,
    unit,
    (c) => c.purgeErrors[key],
    (c, n) => ({ ...c, purgeErrors: { ...c.purgeErrors, [key]: n } as ErrorPurgeConfig }),
  );
}

function castSpec<K extends "pruneOn" | "summarizerThinking" | "batchingMode" | "summaries">(id: K, label: string, presets: PresetOption[]): SettingSpec {
  const values = presetValues(presets);
  return { id, label, values: () => values, current: (c) => c[id], apply: (v, c) => ({ ...c, [id]: v as Config[K] }) };
}

function readOnlyList(id: "protectedTools" | "protectedPaths", label: string, command: string): SettingSpec {
  return {
    id,
    label,
    values: (c) => [listOrNone(c[id])],
    current: (c) => listOrNone(c[id]),
    list: { entries: (c) => c[id], edit: `Edit with ${command}, or ${command} <list> to set it in one step. Enter or Esc goes back.` },
  };
}

const SPECS: SettingSpec[] = [
  topBool("enabled", "Enabled"),
  topBool("showPruneStatusLine", "Prune status line"),
  castSpec("pruneOn", "Prune trigger", PRUNE_ON_MODES),
  {
    id: "summarizerModel",
    label: "Summarizer model",
    values: (c) => [c.summarizerModel],
    current: (c) => c.summarizerModel,
    apply: (v, c) => ({ ...c, summarizerModel: v }),
    withModelBrowser: true,
  },
  castSpec("summarizerThinking", "Summarizer thinking", SUMMARIZER_THINKING_LEVELS),
  castSpec("batchingMode", "Batching mode", BATCHING_MODES),
  castSpec("summaries", "Summaries", SUMMARIES_MODES),
  topBool("quietOversizedSkips", "Quiet skip notifications"),
  intSpec("minBatchChars", "Min batch size", MIN_BATCH_CHARS_PRESETS, chars),
  intSpec("recoveryGraceTurns", "Recovery grace", RECOVERY_GRACE_PRESETS, counted("prompt")),
  intSpec("summarizerIdleTimeoutMs", "Summarizer idle timeout", SUMMARIZER_IDLE_TIMEOUT_PRESETS, secondsShown),
  intSpec("summarizerMaxTimeoutMs", "Summarizer max timeout", SUMMARIZER_MAX_TIMEOUT_PRESETS, secondsShown),
  {
    id: "autoBudgetThreshold",
    label: "Auto-flush at context %",
    values: (c) => cycleWith(AUTO_BUDGET_PRESETS, percent, c.autoBudgetThreshold ?? 0),
    current: (c) => percent.show(c.autoBudgetThreshold ?? 0),
    apply: (v, c) => {
      const share = percent.read(v);
      return { ...c, autoBudgetThreshold: share > 0 && share <= 1 ? share : null };
    },
  },
  topBool("dedupByContentHash", "Dedup by content hash"),
  topBool("cacheBreakpoint", "Spare cache breakpoint"),
  chainSpec("chainCompressionEnabled", "Chain compression", "enabled"),
  wholeSpec(
    "chainCompressionRollingWindow",
    "Recent prompts kept whole",
    "chainCompression.rollingWindow",
    ROLLING_WINDOW_PRESETS,
    counted("prompt"),
    (c) => c.chainCompression.rollingWindow,
    (c, n) => ({ ...c, chainCompression: { ...c.chainCompression, rollingWindow: n } }),
  ),
  chainSpec("chainCompressionStripThinking", "Strip final thinking", "stripFinalAssistantThinking"),
  chainSpec("chainCompressionFuseRange", "Fuse range summary", "fuseRangeSummary"),
  boolSpec(
    "purgeErrorsEnabled",
    "Error purge",
    (c) => c.purgeErrors.enabled,
    (c, v) => ({ ...c, purgeErrors: { ...c.purgeErrors, enabled: v } }),
  ),
  purgeIntSpec("purgeErrorsCooldown", "Error purge cooldown", "cooldownTurns", PURGE_COOLDOWN_PRESETS, counted("turn")),
  purgeIntSpec("purgeErrorsMinArgChars", "Error purge min argument size", "minArgChars", PURGE_MIN_ARG_PRESETS, chars),
  readOnlyList("protectedTools", "Protected tools", "/pruner protected-tools"),
  readOnlyList("protectedPaths", "Protected paths", "/pruner protected-paths"),
];

/** A setting as the overlay shows it (its label and its current value), for the surfaces that name it elsewhere. */
export function settingShown(id: string, config: Config): { label: string; value: string } | undefined {
  const spec = SPECS.find((candidate) => candidate.id === id);
  return spec && { label: spec.label, value: spec.current(config) };
}

/** What the README, /pruner status and settings.json call each setting, for the search. */
const SEARCH_WORDS: Record<string, string> = {
  enabled: "pruning enabled on off",
  showPruneStatusLine: "footer line status line showPruneStatusLine",
  pruneOn: "summarizes after the agent's final reply only on /pruner now prune trigger prune-on pruneOn when",
  summarizerModel: "summarizerModel",
  summarizerThinking: "thinking level reasoning summarizerThinking",
  batchingMode: "batching one per tool turn one per agent reply batchingMode",
  summaries: "summaries auto always never",
  quietOversizedSkips: "quiet skip notices quietOversizedSkips",
  minBatchChars: "minimum batch size min-batch-chars minBatchChars small outputs",
  recoveryGraceTurns: "recovery grace recovery-grace recoveryGraceTurns",
  summarizerIdleTimeoutMs: "summarizerIdleTimeoutMs",
  summarizerMaxTimeoutMs: "summarizerMaxTimeoutMs",
  autoBudgetThreshold: "auto-flush budget autoBudgetThreshold context window",
  dedupByContentHash: "repeated outputs content-hash dedup dedupByContentHash",
  cacheBreakpoint: "cache breakpoint cacheBreakpoint anthropic",
  chainCompressionEnabled: "chain compression chainCompression",
  chainCompressionRollingWindow: "chain window recent prompts kept whole rollingWindow",
  chainCompressionStripThinking: "strip final thinking drop thinking compressed prompt stripFinalAssistantThinking",
  chainCompressionFuseRange: "fuse range summary one summary compressed prompt fuseRangeSummary",
  purgeErrorsEnabled: "error purge purgeErrors",
  purgeErrorsCooldown: "error purge cooldown cooldownTurns",
  purgeErrorsMinArgChars: "error purge minArgChars",
  protectedTools: "protected tools protected-tools protectedTools",
  protectedPaths: "protected paths protected-paths protectedPaths globs",
};

const searchWords = (id: string): string => SEARCH_WORDS[id] ?? "";

/**
 * The columns a value gets in a list `listWidth` wide, by pi's SettingsList's own arithmetic:
 * cursor, label column (at most 36) and separator before it, two columns after.
 */
export function valueRoom(labels: string[], listWidth: number): number {
  const labelColumn = Math.min(36, Math.max(0, ...labels.map((label) => visibleWidth(label))));
  return Math.max(1, listWidth - 2 - labelColumn - 2 - 2);
}

/** `modelRows` is the height of the model browser's list; `listWidth`, when given, ends a list too long for its row in `…`. */
export function buildSettingItems(ctx: ExtensionCommandContext, config: Config, modelRows = 15, listWidth?: number): SettingItem[] {
  const room = listWidth === undefined ? Number.POSITIVE_INFINITY : valueRoom(SPECS.map((spec) => spec.label), listWidth);
  return SPECS.map((spec) => {
    const item: SettingItem = {
      id: spec.id,
      label: spec.label,
      description: settingDescription(spec.id, config),
      currentValue: spec.current(config),
      values: spec.values(config),
    };
    const list = spec.list;
    if (list) {
      item.currentValue = truncateToWidth(item.currentValue, room, "…");
      item.submenu = (_current, done) => new ListView(spec.label, list.entries(config), list.edit, () => done());
    }
    if (spec.withModelBrowser) {
      item.submenu = (current, done) => openModelBrowser(ctx, current, modelRows, done);
    }
    return item;
  });
}

/** Applies one overlay change; returns the new config, or undefined for read-only rows. */
export function applySettingChange(
  deps: CommandDeps,
  ctx: ExtensionCommandContext,
  items: SettingItem[],
  id: string,
  value: string,
): Config | undefined {
  const spec = SPECS.find((candidate) => candidate.id === id);
  if (!spec?.apply) return undefined;
  const before = deps.currentConfig.value;
  const next = spec.apply(value, before);
  const cost = toggleCost(deps, ctx, before, next.enabled);
  deps.currentConfig.value = next;
  if (id === "summarizerModel") deps.resetSummarizerFallback?.();
  deps.persist(ctx, next);
  recordToggle(deps, ctx, before, next);
  showToggleCost(deps, ctx, cost, next.enabled);
  if (next.enabled && !before.enabled) deps.measureContext?.(ctx);
  refreshStatus(deps, ctx, next);
  for (const item of items) {
    item.description = settingDescription(item.id, next);
    if (item.id === id) item.currentValue = spec.current(next);
  }
  return next;
}

const TITLE = "pruner settings";
/** Every change is saved at once, so Esc closes rather than cancels. */
const CLOSE_HINT = "Esc to close · changes are saved";
const OVERLAY_WIDTH = 80;
/** Box rows besides the list, its scroll line and the description: two edges, search line and gap, two gaps, hint. */
const BOX_ROWS = 7;
/** Rows kept free above and below the box. */
const TERMINAL_MARGIN = 2;
const MIN_LIST_ROWS = 3;

function overlayTheme(): SettingsListTheme {
  const base = getSettingsListTheme();
  return { ...base, hint: (text) => base.hint(text.replace("Esc to cancel", CLOSE_HINT)) };
}

/**
 * List rows that fit the terminal with the longest description showing, the tallest the box can get,
 * and the row its top edge stays on.
 */
export function settingsLayout(items: SettingItem[], rows: number, columns: number): { listRows: number; height: number; top: number } {
  const content = Math.min(OVERLAY_WIDTH, columns) - 4;
  const described = Math.max(0, ...items.map((item) => wrapTextWithAnsi(item.description ?? "", content - 4).length));
  const all = rows - TERMINAL_MARGIN - BOX_ROWS - described;
  const listRows = Math.max(MIN_LIST_ROWS, all >= items.length ? items.length : all - 1);
  const scrollRow = listRows < items.length ? 1 : 0;
  const height = Math.min(rows, BOX_ROWS + listRows + scrollRow + described);
  return { listRows, height, top: Math.max(0, Math.floor((rows - height) / 2)) };
}

/**
 * pi-tui 1.6.0's SettingsList reads its page size at every render but offers no setter: after a resize the
 * list gets the rows the terminal has now through the field itself, when it is there as expected.
 */
function setVisibleRows(list: SettingsList, rows: number): void {
  const fields = list as unknown as { maxVisible?: unknown };
  if (typeof fields.maxVisible === "number") fields.maxVisible = rows;
}

/**
 * The settings list in a full box, centered in rows as wide as the terminal, so no chat text shows through,
 * beside or past its edges; it fits the terminal again at every render, so a resize never cuts it off.
 */
export class SettingsOverlay implements Component {
  readonly capturesViewportInput = true;
  private listRows: number | undefined;

  constructor(
    readonly list: SettingsList,
    private readonly items: SettingItem[],
    private readonly terminalRows: () => number,
    private readonly theme?: Theme,
  ) {}

  render(width: number): string[] {
    const boxWidth = Math.min(OVERLAY_WIDTH, width);
    this.fit(boxWidth);
    const lines = this.list.render(Math.max(1, boxWidth - 4));
    const paint = this.theme ? (text: string) => this.theme!.fg("border", text) : undefined;
    return centered(frame(this.theme ? this.theme.fg("accent", TITLE) : TITLE, lines, boxWidth, { paint, padding: 1 }), boxWidth, width);
  }

  private fit(boxWidth: number): void {
    const { listRows } = settingsLayout(this.items, this.terminalRows(), boxWidth);
    if (listRows === this.listRows) return;
    this.listRows = listRows;
    setVisibleRows(this.list, listRows);
  }

  handleInput(data: string): void {
    this.list.handleInput(data);
  }

  invalidate(): void {
    this.list.invalidate();
  }
}

export const settingsCommand: SubcommandHandler = async (deps, ctx) => {
  let top = 0;
  await ctx.ui.custom<undefined>(
    (tui, theme, _keybindings, done) => {
      const probe = buildSettingItems(ctx, deps.currentConfig.value);
      const layout = settingsLayout(probe, tui.terminal.rows, tui.terminal.columns);
      top = layout.top;
      const listWidth = Math.min(OVERLAY_WIDTH, tui.terminal.columns) - 4;
      const items = buildSettingItems(ctx, deps.currentConfig.value, layout.listRows, listWidth);
      const onChange = (id: string, value: string): void => {
        try {
          if (applySettingChange(deps, ctx, items, id, value)) list.invalidate();
        } catch (err) {
          safeNotify(ctx, `pruner: settings change failed: ${errorMessage(err)}`, "error");
        }
      };
      const list = new SettingsList(items, layout.listRows, overlayTheme(), onChange, () => done(undefined), {
        enableSearch: true,
      });
      searchSettingsBy(list, searchWords);
      return new SettingsOverlay(list, items, () => tui.terminal.rows, theme);
    },
    // pi reads the options once, after the factory ran: the top row stays put, so the list does not move
    // when a longer description or a search changes the box's height (pi keeps a box that no longer fits
    // above the bottom edge). The overlay spans the terminal; the box is centered in it.
    { overlay: true, overlayOptions: () => ({ width: "100%", row: top }) },
  );
};
