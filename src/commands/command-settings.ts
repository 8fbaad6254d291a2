/**
 * `/pruner settings`: a SettingsList overlay over every tunable config key,
 * with a searchable model browser as the summarizer-model submenu.
 */
import type { ExtensionCommandContext, Theme } from "@earendil-works/pi-coding-agent";
import { DynamicBorder, getSettingsListTheme } from "@earendil-works/pi-coding-agent";
import { Container, SettingsList, Text } from "@earendil-works/pi-tui";
import type { SettingItem } from "@earendil-works/pi-tui";
import { errorMessage, refreshStatus, safeNotify } from "./command-context.js";
import type { CommandDeps, SubcommandHandler } from "./command-context.js";
import { listOrNone, settingDescription } from "./command-descriptions.js";
import {
  AUTO_BUDGET_PRESETS,
  BATCHING_MODES,
  DEFAULT_CONFIG,
  MIN_BATCH_CHARS_PRESETS,
  PRUNE_ON_MODES,
  PURGE_COOLDOWN_PRESETS,
  PURGE_MIN_ARG_PRESETS,
  RECOVERY_GRACE_PRESETS,
  ROLLING_WINDOW_PRESETS,
  SUMMARIZER_IDLE_TIMEOUT_PRESETS,
  SUMMARIZER_MAX_TIMEOUT_PRESETS,
  SUMMARIZER_THINKING_LEVELS,
} from "../types.js";
import type { ChainCompressionConfig, ContextPruneConfig, ErrorPurgeConfig, PresetOption } from "../types.js";

type Config = ContextPruneConfig;

interface SettingSpec {
  id: string;
  label: string;
  values: (config: Config) => string[];
  current: (config: Config) => string;
  /** Absent for read-only rows. */
  apply?: (value: string, config: Config) => Config;
  withModelBrowser?: true;
}

const BOOL_VALUES = ["true", "false"];

function presetValues(presets: PresetOption[]): string[] {
  return presets.map((preset) => preset.value);
}

function inCycle(values: string[], value: string, fallback: string): string {
  return values.includes(value) ? value : fallback;
}

function intAtLeast(value: string, min: number, fallback: number): number {
  const n = Number.parseInt(value, 10);
  return Number.isNaN(n) || n < min ? fallback : n;
}

function boolSpec(id: string, label: string, get: (c: Config) => boolean, set: (c: Config, v: boolean) => Config): SettingSpec {
  return { id, label, values: () => BOOL_VALUES, current: (c) => String(get(c)), apply: (v, c) => set(c, v === "true") };
}

function topBool(id: "enabled" | "showPruneStatusLine" | "quietOversizedSkips" | "dedupByContentHash", label: string): SettingSpec {
  return boolSpec(id, label, (c) => c[id], (c, v) => ({ ...c, [id]: v }));
}

function intSpec(
  id: "minBatchChars" | "recoveryGraceTurns" | "summarizerIdleTimeoutMs" | "summarizerMaxTimeoutMs",
  label: string,
  presets: PresetOption[],
): SettingSpec {
  const values = presetValues(presets);
  const fallback = DEFAULT_CONFIG[id];
  return {
    id,
    label,
    values: () => values,
    current: (c) => inCycle(values, String(c[id]), String(fallback)),
    apply: (v, c) => ({ ...c, [id]: intAtLeast(v, 0, fallback) }),
  };
}

function chainSpec(id: string, label: string, key: keyof ChainCompressionConfig): SettingSpec {
  return boolSpec(
    id,
    label,
    (c) => Boolean(c.chainCompression[key]),
    (c, v) => ({ ...c, chainCompression: { ...c.chainCompression, [key]: v } }),
  );
}

function purgeIntSpec(id: string, label: string, key: "cooldownTurns" | "minArgChars", presets: PresetOption[], min: number): SettingSpec {
  const values = presetValues(presets);
  const fallback = DEFAULT_CONFIG.purgeErrors[key];
  return {
    id,
    label,
    values: () => values,
    current: (c) => inCycle(values, String(c.purgeErrors[key]), String(fallback)),
    apply: (v, c) => ({ ...c, purgeErrors: { ...c.purgeErrors, [key]: intAtLeast(v, min, fallback) } as ErrorPurgeConfig }),
  };
}

function castSpec<K extends "pruneOn" | "summarizerThinking" | "batchingMode">(id: K, label: string, presets: PresetOption[]): SettingSpec {
  const values = presetValues(presets);
  return { id, label, values: () => values, current: (c) => c[id], apply: (v, c) => ({ ...c, [id]: v as Config[K] }) };
}

function readOnlyList(id: "protectedTools" | "protectedPaths", label: string): SettingSpec {
  return { id, label, values: (c) => [listOrNone(c[id])], current: (c) => listOrNone(c[id]) };
}

const AUTO_BUDGET_VALUES = presetValues(AUTO_BUDGET_PRESETS);
const WINDOW_VALUES = presetValues(ROLLING_WINDOW_PRESETS);

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
  topBool("quietOversizedSkips", "Quiet skip notifications"),
  intSpec("minBatchChars", "Min batch chars", MIN_BATCH_CHARS_PRESETS),
  intSpec("recoveryGraceTurns", "Recovery grace (user-turn-groups)", RECOVERY_GRACE_PRESETS),
  intSpec("summarizerIdleTimeoutMs", "Summarizer idle timeout", SUMMARIZER_IDLE_TIMEOUT_PRESETS),
  intSpec("summarizerMaxTimeoutMs", "Summarizer max timeout", SUMMARIZER_MAX_TIMEOUT_PRESETS),
  {
    id: "autoBudgetThreshold",
    label: "Auto-flush at context %",
    values: () => AUTO_BUDGET_VALUES,
    current: (c) => (c.autoBudgetThreshold == null ? "0" : inCycle(AUTO_BUDGET_VALUES, String(c.autoBudgetThreshold), "0")),
    apply: (v, c) => {
      const x = Number.parseFloat(v);
      return { ...c, autoBudgetThreshold: x > 0 && x <= 1 ? x : null };
    },
  },
  topBool("dedupByContentHash", "Dedup by content hash"),
  chainSpec("chainCompressionEnabled", "Chain compression", "enabled"),
  {
    id: "chainCompressionRollingWindow",
    label: "Chain window (K)",
    values: () => WINDOW_VALUES,
    current: (c) =>
      inCycle(WINDOW_VALUES, String(c.chainCompression.rollingWindow), String(DEFAULT_CONFIG.chainCompression.rollingWindow)),
    apply: (v, c) => ({
      ...c,
      chainCompression: { ...c.chainCompression, rollingWindow: intAtLeast(v, 1, DEFAULT_CONFIG.chainCompression.rollingWindow) },
    }),
  },
  chainSpec("chainCompressionStripThinking", "Strip final thinking", "stripFinalAssistantThinking"),
  chainSpec("chainCompressionFuseRange", "Fuse range summary", "fuseRangeSummary"),
  boolSpec(
    "purgeErrorsEnabled",
    "Error purge",
    (c) => c.purgeErrors.enabled,
    (c, v) => ({ ...c, purgeErrors: { ...c.purgeErrors, enabled: v } }),
  ),
  purgeIntSpec("purgeErrorsCooldown", "Error purge cooldown (turns)", "cooldownTurns", PURGE_COOLDOWN_PRESETS, 1),
  purgeIntSpec("purgeErrorsMinArgChars", "Error purge min arg chars", "minArgChars", PURGE_MIN_ARG_PRESETS, 0),
  readOnlyList("protectedTools", "Protected tools"),
  readOnlyList("protectedPaths", "Protected paths"),
];

function availableModels(ctx: ExtensionCommandContext): Array<{ provider: string; id: string; name?: string }> {
  try {
    return ctx.modelRegistry?.getAvailable() ?? [];
  } catch (err) {
    console.error("pi-condense: listing available models failed", err);
    return [];
  }
}

export function modelBrowserItems(ctx: ExtensionCommandContext, current: string): SettingItem[] {
  const items: SettingItem[] = [
    {
      id: "default",
      label: "default (active model)",
      values: ["default"],
      currentValue: current === "default" ? "default" : "",
      description: "Use the currently active model for summarization",
    },
  ];
  for (const model of availableModels(ctx)) {
    const key = `${model.provider}/${model.id}`;
    items.push({ id: key, label: key, values: [key], currentValue: key === current ? key : "", description: model.name || key });
  }
  return items;
}

export function buildSettingItems(ctx: ExtensionCommandContext, config: Config): SettingItem[] {
  return SPECS.map((spec) => {
    const item: SettingItem = {
      id: spec.id,
      label: spec.label,
      description: settingDescription(spec.id, config),
      currentValue: spec.current(config),
      values: spec.values(config),
    };
    if (spec.withModelBrowser) {
      item.submenu = (current, done) =>
        new SettingsList(modelBrowserItems(ctx, current), 15, getSettingsListTheme(), (_id, value) => done(value), () => done(undefined), {
          enableSearch: true,
        });
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
  const next = spec.apply(value, deps.currentConfig.value);
  deps.currentConfig.value = next;
  deps.persist(ctx, next);
  refreshStatus(deps, ctx, next);
  for (const item of items) {
    item.description = settingDescription(item.id, next);
    if (item.id === id) item.currentValue = spec.current(next);
  }
  return next;
}

class SettingsOverlay extends Container {
  readonly capturesViewportInput = true;

  constructor(title: string, private readonly list: SettingsList, theme?: Theme) {
    super();
    const border = theme ? (text: string) => theme.fg("border", text) : undefined;
    this.addChild(new DynamicBorder(border));
    this.addChild(new Text(theme ? theme.fg("accent", title) : title, 0, 0));
    this.addChild(list);
    this.addChild(new DynamicBorder(border));
  }

  handleInput(data: string): void {
    this.list.handleInput(data);
  }
}

export const settingsCommand: SubcommandHandler = async (deps, ctx) => {
  await ctx.ui.custom<undefined>(
    (_tui, theme, _keybindings, done) => {
      const items = buildSettingItems(ctx, deps.currentConfig.value);
      const onChange = (id: string, value: string): void => {
        try {
          if (applySettingChange(deps, ctx, items, id, value)) list.invalidate();
        } catch (err) {
          safeNotify(ctx, `pruner: settings change failed: ${errorMessage(err)}`, "error");
        }
      };
      const list = new SettingsList(items, 10, getSettingsListTheme(), onChange, () => done(undefined), {
        enableSearch: false,
      });
      return new SettingsOverlay("pruner settings", list, theme);
    },
    { overlay: true, overlayOptions: { width: 60 } },
  );
};
