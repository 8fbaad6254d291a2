/**
 * Description texts of the settings overlay items (also reused by
 * `/pruner dedup status`). Every text is derived from the current config so
 * a change can recompute it.
 */
import { MAX_BUDGET_WINDOW } from "../summarize/budget.js";
import { onOff } from "./command-context.js";
import { PRUNE_ON_MODES } from "../types.js";
import type { ContextPruneConfig } from "../types.js";

export function listOrNone(values: readonly string[]): string {
  return values.length > 0 ? values.join(", ") : "(none)";
}

function seconds(ms: number): number {
  return Math.round(ms / 1000);
}

const PRUNE_ON_GUIDANCE: Record<string, string> = {
  "agent-message":
    "Recommended default: tool work is batched and pruned once, after the agent's final text reply — " +
    "the best trade-off between automation, context savings and prompt-cache stability.",
  "on-demand":
    "Most manual control: nothing is pruned until you run /pruner now, so the prompt cache is only " +
    "invalidated when you decide.",
};

function pruneOnDescription(config: ContextPruneConfig): string {
  const mode = PRUNE_ON_MODES.find((m) => m.value === config.pruneOn);
  const guidance =
    PRUNE_ON_GUIDANCE[config.pruneOn] ??
    "This setting controls when summaries take the place of raw tool results in later context.";
  return (
    `Decides when tool outputs get summarized. Current: ${mode?.label ?? config.pruneOn} (${config.pruneOn}). ` +
    `${guidance} Enter/Space cycles through the modes.`
  );
}

function thinkingDescription(config: ContextPruneConfig): string {
  const level = config.summarizerThinking;
  if (level === "default") {
    return "default: legacy behavior is kept — summarizer calls carry no explicit thinking option.";
  }
  if (level === "off") {
    return (
      "off: asks for summarizer reasoning to be turned off where the provider adapter allows it; " +
      "some providers may use their own default instead."
    );
  }
  return `${level}: requests ${level} thinking/reasoning for summarizer calls where supported.`;
}

function minBatchCharsDescription(config: ContextPruneConfig): string {
  const base =
    "Pre-flush guard: a batch whose combined raw resultText is under this many chars is skipped with " +
    "no LLM call, and the frontier advances regardless.";
  if (config.minBatchChars === 0) {
    return `${base} Current value 0: the guard is off and every batch goes to the summarizer.`;
  }
  return `${base} Current value ${config.minBatchChars}; handy for sessions full of tiny tool calls. 0 turns it off.`;
}

function recoveryGraceDescription(config: ContextPruneConfig): string {
  const n = config.recoveryGraceTurns;
  if (n === 0) {
    return (
      "Grace is off: context_tree_query output is replaced by its stub right away. A positive integer " +
      "keeps recovered output verbatim for that many user-turn-groups."
    );
  }
  return (
    `Recovered context_tree_query output stays verbatim for ${n} user-turn-group(s), then returns to its ` +
    `stub. This caps the recover, re-stub, re-query cycle. Current value ${n}; 0 turns it off.`
  );
}

function idleTimeoutDescription(config: ContextPruneConfig): string {
  if (config.summarizerIdleTimeoutMs === 0) {
    return (
      "The summarizer idle timeout is DISABLED: a stalled stream is limited only by the total ceiling, " +
      "or not at all when that is 0 as well."
    );
  }
  return (
    `A summarizer call is aborted after ${seconds(config.summarizerIdleTimeoutMs)}s without any stream ` +
    "event. Every event restarts the timer, so output that keeps flowing is never cut off. A timeout takes " +
    "the same outage-fallback retry path as a provider error. 0 turns it off."
  );
}

function maxTimeoutDescription(config: ContextPruneConfig): string {
  if (config.summarizerMaxTimeoutMs === 0) {
    return "The summarizer total-duration ceiling is DISABLED; only the idle timeout limits a call.";
  }
  return (
    `Hard cap of ${seconds(config.summarizerMaxTimeoutMs)}s on the total duration of one summarizer call — ` +
    "a safety net for a stream that trickles on forever without going idle. 0 turns it off."
  );
}

function autoBudgetDescription(config: ContextPruneConfig): string {
  const cap = `${MAX_BUDGET_WINDOW / 1000}k`;
  const threshold = config.autoBudgetThreshold;
  if (threshold === null || threshold === undefined) {
    return (
      `Token-budget auto-flush: forces a prune once context usage reaches the chosen share of the window ` +
      `or ${cap} tokens, whichever comes first, whatever the prune-on mode. Currently off; choose a ` +
      "percentage (e.g. 0.8 = 80%) to turn it on."
    );
  }
  return (
    `Token-budget auto-flush: forces a prune once context usage reaches ${Math.round(threshold * 100)}% of ` +
    `the window or ${cap} tokens, whichever comes first, whatever the prune-on mode. The ${cap} cap keeps ` +
    "the trigger reachable on models with very large windows. Choose 0 (Off) to turn it off."
  );
}

export function dedupDescription(config: ContextPruneConfig): string {
  if (config.dedupByContentHash) {
    return (
      "Content-hash dedup runs before a flush: a captured tool call whose (toolName, normalized " +
      "resultText) equals that of a record already in the index is stored as an alias of that original, " +
      "with no summarizer call. Currently ON."
    );
  }
  return (
    "Content-hash dedup before a flush is currently OFF: identical re-reads go to the summarizer like " +
    "every other tool call."
  );
}

type Describer = (config: ContextPruneConfig) => string;

const DESCRIBERS: Record<string, Describer> = {
  enabled: () => "Enable or disable context pruning",
  showPruneStatusLine: (c) =>
    c.showPruneStatusLine
      ? "Footer prune status line and queued-turn notifications: currently ON, both are shown."
      : "Footer prune status line and queued-turn notifications: currently OFF, both are hidden.",
  pruneOn: pruneOnDescription,
  summarizerModel: () => "The model that summarizes tool outputs. Press Enter to open a model browser.",
  summarizerThinking: thinkingDescription,
  batchingMode: (c) =>
    c.batchingMode === "agent-message"
      ? "Per agent message: every assistant turn between two user messages is folded into a single " +
        "summary, giving fewer but larger summaries per exchange."
      : "Per turn (the default): each assistant turn gets its own summary, so summaries stay small and " +
        "fine-grained.",
  quietOversizedSkips: (c) =>
    c.quietOversizedSkips
      ? 'Currently ON: every non-error "skipped pruning" notice is silenced — both the oversized case ' +
        "(summary longer than the raw output) and the trivial case (batch under minBatchChars, no LLM " +
        "call). The frontier advances either way."
      : "Currently OFF: an info notice appears whenever a batch is skipped, for either reason — oversized " +
        "(the summary would have exceeded the raw output) or trivial (under minBatchChars, no LLM call).",
  minBatchChars: minBatchCharsDescription,
  recoveryGraceTurns: recoveryGraceDescription,
  summarizerIdleTimeoutMs: idleTimeoutDescription,
  summarizerMaxTimeoutMs: maxTimeoutDescription,
  autoBudgetThreshold: autoBudgetDescription,
  dedupByContentHash: dedupDescription,
  chainCompressionEnabled: (c) =>
    `Closed chains older than the rolling window (K=${c.chainCompression.rollingWindow}) are ` +
    "range-compressed: their middle assistant turns and tool results are dropped and a synthetic summary " +
    `takes their place. Currently ${onOff(c.chainCompression.enabled)}.`,
  chainCompressionRollingWindow: (c) =>
    "The K most recently closed chains stay raw; older ones get compressed. " +
    `Current value ${c.chainCompression.rollingWindow}.`,
  chainCompressionStripThinking: (c) =>
    "When a chain is compressed, thinking blocks are removed from the final text-only assistant message " +
    `that is kept. Currently ${onOff(c.chainCompression.stripFinalAssistantThinking)}.`,
  chainCompressionFuseRange: (c) =>
    "Merges the per-batch summaries of a compressed chain into a single LLM summary, at the cost of one " +
    "extra summarizer call per span with several batches. When off, the per-batch summaries are simply " +
    `concatenated. Currently ${onOff(c.chainCompression.fuseRangeSummary)}.`,
  purgeErrorsEnabled: (c) =>
    "After a cooldown, long strings inside the arguments of failed tool calls (over 200 chars, e.g. a " +
    "write/edit body that will never succeed) are shrunk to size markers, winning back context; keys, " +
    "short values and the argument shape are kept so the call still replays. " +
    `Currently ${onOff(c.purgeErrors.enabled)}.`,
  purgeErrorsCooldown: (c) =>
    "How many turns pass after a tool error before its argument body is purged. " +
    `Current value ${c.purgeErrors.cooldownTurns}.`,
  purgeErrorsMinArgChars: (c) =>
    `Only argument bodies of at least this many chars get purged. Current value ${c.purgeErrors.minArgChars}.`,
  protectedTools: (c) =>
    `Outputs of these tools are never pruned and stay verbatim. Current: ${listOrNone(c.protectedTools)}. ` +
    "Edit interactively with /pruner protected-tools, or directly with " +
    "/pruner protected-tools <comma-separated names>. Typical candidates: todowrite, todoread.",
  protectedPaths: (c) =>
    "Glob patterns tested against a tool call's args.path; matching outputs are never pruned. " +
    `Current: ${listOrNone(c.protectedPaths)}. Edit interactively with /pruner protected-paths, or ` +
    'directly with /pruner protected-paths <comma-separated globs>; "none" turns path protection off ' +
    "entirely (kill switch). Default protects skill files and per-repo gauntlet overrides: " +
    "**/skills/**/*.md, **/gauntlet-overrides.md.",
};

export function settingDescription(id: string, config: ContextPruneConfig): string {
  return DESCRIBERS[id]?.(config) ?? "";
}

