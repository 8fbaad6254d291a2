/**
 * `/pruner` subcommands that show or change one config value: on/off, model,
 * thinking, prune-on, batching, protected-tools/-paths, min-batch-chars,
 * recovery-grace, dedup. Bad arguments answer a usage warning and change
 * nothing.
 */
import type { ExtensionCommandContext } from "@earendil-works/pi-coding-agent";
import { applyConfig, confirm, info, onOff, recordToggle, refreshStatus, showToggleCost, toggleCost, warn } from "./command-context.js";
import type { CommandDeps, SubcommandHandler } from "./command-context.js";
import { dedupDescription, GRACE_OFF, listOrNone } from "./command-descriptions.js";
import { checkModel, exampleModel, keysForBareId } from "./model-check.js";
import { lacksCredentials, loginFix } from "../summarize/model-credentials.js";
import { BATCHING_MODES, DEFAULT_CONFIG, PRUNE_ON_MODES, SUMMARIZER_THINKING_LEVELS } from "../settings/config-shape.js";
import type { BatchingMode, ContextPruneConfig, PresetOption, PruneOn, SummarizerThinking } from "../settings/config-shape.js";
import { parseWholeNumber, WHOLE_RANGES, wholeRangeWords } from "../settings/whole-number.js";
import { clearBootWidget } from "../ui/boot-widget.js";

const THINKING_LIST = SUMMARIZER_THINKING_LEVELS.map((level) => level.value).join(", ");
/** `default`, or `<provider>/<model-id>` as the summarizer's model resolution expects. */
const MODEL_ID = /^[^/\s]+\/\S+$/;
const CLEAR_WORDS = new Set(["none", "clear", "-"]);

function findPreset<V extends string>(presets: PresetOption<V>[], value: string): PresetOption<V> | undefined {
  return presets.find((preset) => preset.value === value);
}

export function thinkingLabel(level: string): string {
  return findPreset(SUMMARIZER_THINKING_LEVELS, level)?.label ?? level;
}

/** A word of ours as typed, in any case (`LOW`, `Agent-Message`, `DEFAULT`): `/pruner` reads its words case-insensitively. */
function keyword(text: string): string {
  return text.toLowerCase();
}

function firstToken(text: string): string {
  return text.trim().split(/\s+/)[0] ?? "";
}

/**
 * pi's select always opens on its first option, so a `current` preset is listed first and
 * marked, which makes Enter keep it.
 */
async function pickPreset(
  ctx: ExtensionCommandContext,
  title: string,
  presets: PresetOption[],
  current?: string,
): Promise<string | undefined> {
  const first = presets.filter((preset) => preset.value === current);
  const options = [...first, ...presets.filter((preset) => preset.value !== current)].map(
    (preset) => `${preset.value} — ${preset.label}${preset.value === current ? " (current)" : ""}`,
  );
  const choice = await ctx.ui.select(title, options);
  return choice === undefined ? undefined : firstToken(choice);
}

export function setEnabled(enabled: boolean): SubcommandHandler {
  return async (deps, ctx) => {
    const before = deps.currentConfig.value;
    const cost = toggleCost(deps, ctx, before, enabled);
    const next = applyConfig(deps, ctx, { enabled });
    recordToggle(deps, ctx, before, next);
    confirm(deps, ctx, enabled ? "Context pruning enabled." : "Context pruning disabled.");
    showToggleCost(deps, ctx, cost, enabled);
    if (enabled) deps.measureContext?.(ctx);
    refreshStatus(deps, ctx, next);
  };
}

/** Warns and returns true when pi's registry does not know `model`. */
function refuseUnknownModel(ctx: ExtensionCommandContext, model: string): boolean {
  const check = checkModel(ctx.modelRegistry, model);
  if (check.known) return false;
  const hint =
    check.matches.length > 0
      ? `Close matches: ${check.matches.join(", ")}.`
      : "/pruner settings lists the models you can use.";
  warn(ctx, `pi does not know the model ${model}, so the summarizer model was not changed. ${hint}`);
  return true;
}

/** A bare id pi knows under some provider gets "did you mean"; anything else the usage line. */
function invalidModelNotice(ctx: ExtensionCommandContext, args: string[], model: string, suffix: string | undefined): string {
  const keys = args.length === 1 ? keysForBareId(ctx.modelRegistry, model) : [];
  const withSuffix = (key: string) => (suffix ? `${key}:${suffix}` : key);
  if (keys.length === 1) return `Invalid summarizer model: ${model} has no provider. Did you mean /pruner model ${withSuffix(keys[0]!)}?`;
  if (keys.length > 1) return `Invalid summarizer model: ${model} has no provider. Did you mean one of: ${keys.map(withSuffix).join(", ")}?`;
  const example = exampleModel(ctx.modelRegistry);
  return (
    `Invalid summarizer model: ${args.join(" ")}. Usage: /pruner model <provider>/<model-id>[:<thinking>] ` +
    `(e.g. ${example} or ${example}:low), or /pruner model default.`
  );
}

/** The session's model as `provider/id`, the model `default` stands for; undefined when pi has none yet. */
export function sessionModelKey(ctx: { model?: { provider?: unknown; id?: unknown } }): string | undefined {
  try {
    const model = ctx.model;
    return typeof model?.provider === "string" && typeof model.id === "string" ? `${model.provider}/${model.id}` : undefined;
  } catch {
    return undefined;
  }
}

/** What the summarizer model `default` is, in words. */
export function defaultModelWords(sessionModel: string | undefined): string {
  return `the session's model${sessionModel ? `, now ${sessionModel}` : ""}`;
}

/** What the thinking level `default` is: nothing is asked of the model, so it thinks as it does by default. */
export const DEFAULT_THINKING_WORDS = "the model's own level; pi-condense asks for none";

/** `Current summarizer model: <m>` and `Current summarizer thinking: <Label> (<value>)`, each `default` said in words after it. */
function currentModelText(config: ContextPruneConfig, ctx: ExtensionCommandContext): string {
  const model = config.summarizerModel === "default" ? ` (${defaultModelWords(sessionModelKey(ctx))})` : "";
  return `Current summarizer model: ${config.summarizerModel}${model}`;
}

function currentThinkingText(config: ContextPruneConfig): string {
  const words = config.summarizerThinking === "default" ? `: ${DEFAULT_THINKING_WORDS}` : "";
  return `Current summarizer thinking: ${thinkingLabel(config.summarizerThinking)} (${config.summarizerThinking})${words}`;
}

export const modelCommand: SubcommandHandler = async (deps, ctx, args) => {
  const config = deps.currentConfig.value;
  if (args.length === 0) {
    const inUse = deps.getFallback?.(ctx);
    info(ctx, `${currentModelText(config, ctx)}\n` + (inUse ? `In use now: ${inUse}\n` : "") + currentThinkingText(config));
    return;
  }
  const raw = args[0]!;
  const colon = raw.lastIndexOf(":");
  const typed = colon >= 0 ? raw.slice(0, colon) : raw;
  // Only our own words ignore case: a provider may tell model ids apart by case.
  const model = keyword(typed) === "default" ? "default" : typed;
  const suffix = colon >= 0 ? keyword(raw.slice(colon + 1)) : undefined;
  if (suffix !== undefined && (!findPreset(SUMMARIZER_THINKING_LEVELS, suffix) || model === "")) {
    // An empty suffix (`provider/id:`) is named in words: `Invalid model thinking suffix: .` read as a typo.
    const shown = suffix === "" ? `nothing after the ":" in ${raw}` : suffix;
    warn(ctx, `Invalid model thinking suffix: ${shown}. Use one of: ${THINKING_LIST}.`);
    return;
  }
  if (args.length > 1 || (model !== "default" && !MODEL_ID.test(model))) {
    warn(ctx, invalidModelNotice(ctx, args, model, suffix));
    return;
  }
  if (model !== "default" && refuseUnknownModel(ctx, model)) return;
  const level = suffix as SummarizerThinking | undefined;
  applyConfig(deps, ctx, level ? { summarizerModel: model, summarizerThinking: level } : { summarizerModel: model });
  // Picked again after it failed, the same model is tried at the next summary rather than in 10 minutes.
  deps.resetSummarizerFallback?.();
  // The start-up line names the model it was started with.
  clearBootWidget(ctx);
  confirm(deps, ctx, `Summarizer model set to: ${model}${level ? ` with thinking ${level}` : ""}`);
  if (model !== "default") warnWithoutCredentials(ctx, model);
};

/** Saved anyway: the user may log in next, and the session model covers the summaries until then. */
function warnWithoutCredentials(ctx: ExtensionCommandContext, key: string): void {
  const provider = key.slice(0, key.indexOf("/"));
  const found = ctx.modelRegistry?.find?.(provider, key.slice(provider.length + 1));
  if (!lacksCredentials(ctx.modelRegistry, found)) return;
  warn(ctx, `pi has no credentials for ${provider}, so summaries use the session model until it has: ${loginFix(provider)}.`);
}

export const thinkingCommand: SubcommandHandler = async (deps, ctx, args) => {
  const config = deps.currentConfig.value;
  const typed = args[0];
  if (typed === undefined) {
    info(ctx, currentThinkingText(config));
    return;
  }
  const arg = keyword(typed);
  if (!findPreset(SUMMARIZER_THINKING_LEVELS, arg)) {
    warn(ctx, `Invalid summarizer thinking level: ${typed}. Use one of: ${THINKING_LIST}.`);
    return;
  }
  applyConfig(deps, ctx, { summarizerThinking: arg as SummarizerThinking });
  confirm(deps, ctx, `Summarizer thinking set to: ${arg}`);
};

const PRUNE_ON_EFFECT: Record<PruneOn, string> = {
  "agent-message": "tool outputs are summarized after the agent's final reply",
  "on-demand": "tool outputs are summarized only when you run /pruner now",
};

export const pruneOnCommand: SubcommandHandler = async (deps, ctx, args) => {
  const current = deps.currentConfig.value.pruneOn;
  const typed =
    args[0] ?? (await pickPreset(ctx, "pruner — choose when to trigger summarization", PRUNE_ON_MODES, current));
  if (typed === undefined) return;
  const mode = keyword(typed);
  if (!findPreset(PRUNE_ON_MODES, mode)) {
    warn(ctx, `Invalid prune-on mode: ${typed}. Use one of: ${PRUNE_ON_MODES.map((m) => m.value).join(", ")}.`);
    return;
  }
  const next = applyConfig(deps, ctx, { pruneOn: mode as PruneOn });
  confirm(deps, ctx, `Prune-on set to ${mode}: ${PRUNE_ON_EFFECT[mode as PruneOn]}.`);
  refreshStatus(deps, ctx, next);
};

export const batchingCommand: SubcommandHandler = async (deps, ctx, args) => {
  const typed = args[0] ?? (await pickPreset(ctx, "pruner — choose batching granularity", BATCHING_MODES));
  if (typed === undefined) return;
  const preset = findPreset(BATCHING_MODES, keyword(typed));
  if (!preset) {
    warn(ctx, `Invalid batching mode: ${typed}. Use one of: ${BATCHING_MODES.map((m) => m.value).join(", ")}.`);
    return;
  }
  applyConfig(deps, ctx, { batchingMode: preset.value as BatchingMode });
  confirm(deps, ctx, `Batching mode set to: ${preset.label}`);
};

function parseListEntry(text: string, key: ListSpec["key"]): string[] {
  const word = keyword(text.trim());
  if (CLEAR_WORDS.has(word)) return [];
  if (word === "default") return [...DEFAULT_CONFIG[key]];
  return text.split(/[\s,]+/).filter((part) => part.length > 0);
}

interface ListSpec {
  key: "protectedTools" | "protectedPaths";
  label: string;
  what: string;
  /** What is wrong with the entries, in a warning; undefined when nothing is. */
  check: (list: string[], deps: CommandDeps) => string | undefined;
}

/** Only `*`, `**` and `?` are wildcards in these globs; brackets and braces match themselves. */
const LITERAL_GLOB_CHARS = /[[\]{}]/;

function checkGlobs(list: string[]): string | undefined {
  const literal = list.filter((glob) => LITERAL_GLOB_CHARS.test(glob));
  if (literal.length === 0) return undefined;
  return (
    `${literal.join(", ")}: only *, ** and ? are wildcards in these globs, so [ ] { } match those characters ` +
    "themselves. Saved as given; /pruner protected-paths <globs> changes it."
  );
}

function checkToolNames(list: string[], deps: CommandDeps): string | undefined {
  let known: string[];
  try {
    known = deps.pi.getAllTools().map((tool) => tool.name);
  } catch {
    return undefined;
  }
  const unknown = list.filter((name) => !known.includes(name));
  if (unknown.length === 0 || known.length === 0) return undefined;
  return (
    `pi has no tool named ${unknown.join(", ")} (its tools: ${known.join(", ")}). Saved anyway, in case an ` +
    "extension adds it later; /pruner protected-tools <names> changes it."
  );
}

function protectedListCommand(spec: ListSpec): SubcommandHandler {
  return async (deps, ctx, args) => {
    let list: string[];
    if (args.length > 0) {
      list = parseListEntry(args.join(" "), spec.key);
    } else {
      const current = deps.currentConfig.value[spec.key];
      // pi 1.6.0 ignores input()'s second argument, so the title carries the current value.
      const title =
        `${spec.label} (current: ${listOrNone(current)}) — enter ${spec.what} separated by commas; ` +
        '"none" clears the list, "default" restores the default one, an empty entry keeps it';
      const entered = await ctx.ui.input(title, current.join(", "));
      if (entered === undefined) return;
      if (entered.trim() === "") {
        info(ctx, `${spec.label} unchanged: ${listOrNone(current)}`);
        return;
      }
      list = parseListEntry(entered, spec.key);
    }
    applyConfig(deps, ctx, { [spec.key]: list });
    confirm(deps, ctx, `${spec.label}: ${listOrNone(list)}`);
    const problem = spec.check(list, deps);
    if (problem) warn(ctx, problem);
  };
}

export const protectedToolsCommand = protectedListCommand({
  key: "protectedTools",
  label: "Protected tools",
  what: "tool names",
  check: checkToolNames,
});

export const protectedPathsCommand = protectedListCommand({
  key: "protectedPaths",
  label: "Protected paths",
  what: "globs",
  check: checkGlobs,
});

export const minBatchCharsCommand: SubcommandHandler = async (deps, ctx, args) => {
  const arg = args[0];
  if (arg === undefined) {
    const n = deps.currentConfig.value.minBatchChars;
    info(ctx, n === 0 ? "Every tool turn's outputs are summarized, however small (min-batch-chars 0)." : `Tool turns whose outputs add up to fewer than ${n} characters are left as they are.`);
    return;
  }
  const range = WHOLE_RANGES.minBatchChars;
  const n = parseWholeNumber(arg, range);
  if (n === undefined) {
    const now = deps.currentConfig.value.minBatchChars;
    warn(ctx, `Invalid min-batch-chars: "${arg}". Expected ${wholeRangeWords(range, "characters")} (0 summarizes everything); it stays ${now}.`);
    return;
  }
  applyConfig(deps, ctx, { minBatchChars: n });
  confirm(deps, ctx, n === 0 ? "min-batch-chars set to 0: every tool turn's outputs are summarized, however small." : `min-batch-chars set to ${n}: smaller tool turns are left as they are.`);
};

/** `n` of recovery grace in words: "your next 3 prompts". */
export function nextPromptsWord(n: number): string {
  return n === 1 ? "your next prompt" : `your next ${n} prompts`;
}

export const recoveryGraceCommand: SubcommandHandler = async (deps, ctx, args) => {
  const arg = args[0];
  if (arg === undefined) {
    const n = deps.currentConfig.value.recoveryGraceTurns;
    info(ctx, n === 0 ? `A recovered output ${GRACE_OFF} (recovery-grace 0).` : `A recovered output stays whole for ${nextPromptsWord(n)}.`);
    return;
  }
  const range = WHOLE_RANGES.recoveryGraceTurns;
  const n = parseWholeNumber(arg, range);
  if (n === undefined) {
    const now = deps.currentConfig.value.recoveryGraceTurns;
    warn(ctx, `Invalid recovery-grace: "${arg}". Expected ${wholeRangeWords(range)} (0 turns it off); it stays ${now}.`);
    return;
  }
  applyConfig(deps, ctx, { recoveryGraceTurns: n });
  confirm(
    deps,
    ctx,
    n === 0
      ? `recovery-grace set to 0: a recovered output ${GRACE_OFF}.`
      : `recovery-grace set to ${n}: a recovered output stays whole for ${nextPromptsWord(n)}.`,
  );
};

const DEDUP_VALUES: Record<string, boolean> = { on: true, true: true, off: false, false: false };

export const dedupCommand: SubcommandHandler = async (deps, ctx, args) => {
  const arg = args[0] === undefined ? undefined : keyword(args[0]);
  const config = deps.currentConfig.value;
  if (arg === undefined || arg === "status") {
    info(ctx, `Content-hash dedup is ${onOff(config.dedupByContentHash)}. ${dedupDescription(config)}`);
    return;
  }
  if (!Object.hasOwn(DEDUP_VALUES, arg)) {
    warn(ctx, `Invalid dedup value: "${arg}". Expected on, off, status, true, or false.`);
    return;
  }
  const value = DEDUP_VALUES[arg]!;
  applyConfig(deps, ctx, { dedupByContentHash: value });
  confirm(deps, ctx, `Content-hash dedup turned ${onOff(value)}.`);
};
