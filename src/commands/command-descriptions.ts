/**
 * Description texts of the settings overlay items (also reused by
 * `/pruner dedup status`). Every text is derived from the current config so
 * a change can recompute it.
 */
import { MAX_BUDGET_WINDOW } from "../summarize/budget.js";
import { plural } from "../format/plural.js";
import { onOff } from "./command-context.js";
import { PRUNE_ON_MODES } from "../settings/config-shape.js";
import type { ContextPruneConfig } from "../settings/config-shape.js";

export function listOrNone(values: readonly string[]): string {
  return values.length > 0 ? values.join(", ") : "(none)";
}

function seconds(ms: number): number {
  return Math.round(ms / 1000);
}

const PRUNE_ON_GUIDANCE: Record<string, string> = {
  "agent-message":
    "Recommended default: tool outputs are summarized once, after the agent's final text reply, which " +
    "saves context and keeps the prompt cache stable.",
  "on-demand": "Most manual control: nothing is summarized until you run /pruner now, so the cache changes only when you decide.",
};

function pruneOnDescription(config: ContextPruneConfig): string {
  const mode = PRUNE_ON_MODES.find((m) => m.value === config.pruneOn);
  const guidance =
    PRUNE_ON_GUIDANCE[config.pruneOn] ??
    "This setting controls when summaries take the place of raw tool results in later context.";
  return (
    `When tool outputs get summarized. Current: ${mode?.label ?? config.pruneOn} (${config.pruneOn}). ` +
    `${guidance} Enter/Space cycles through the modes.`
  );
}

function thinkingDescription(config: ContextPruneConfig): string {
  const level = config.summarizerThinking;
  if (level === "default") return "default: summarizer calls carry no thinking option, so the provider decides.";
  if (level === "off") {
    return "off: asks the provider to turn summarizer reasoning off where it allows that; some use their own default instead.";
  }
  return `${level}: requests ${level} thinking/reasoning for summarizer calls where supported.`;
}

function minBatchCharsDescription(config: ContextPruneConfig): string {
  const base =
    "A batch of tool calls whose outputs total fewer chars than this is not summarized (no model call); " +
    "its outputs stay as they are.";
  if (config.minBatchChars === 0) {
    return `${base} Current value 0: the guard is off and every batch goes to the summarizer.`;
  }
  return `${base} Current value ${config.minBatchChars}; choose off to turn it off.`;
}

/** What recovery-grace 0 does, in the same words in the overlay, the help and the confirmation. */
export const GRACE_OFF = "stays whole only until your next prompt, then goes back to its stub";

function recoveryGraceDescription(config: ContextPruneConfig): string {
  const n = config.recoveryGraceTurns;
  if (n === 0) {
    return (
      `Off: an output recovered with context_tree_query ${GRACE_OFF}. ` +
      "A positive number keeps it whole for that many of your later prompts."
    );
  }
  return (
    `An output recovered with context_tree_query stays whole for ${plural(n, "prompt")}, then goes back to its ` +
    "stub, so the agent does not recover it again and again. Choose off to turn it off."
  );
}

function idleTimeoutDescription(config: ContextPruneConfig): string {
  if (config.summarizerIdleTimeoutMs === 0) {
    return "The summarizer idle timeout is off: a stalled call is limited only by the max timeout, or not at all when that is off too.";
  }
  return (
    `A summarizer call is stopped after ${seconds(config.summarizerIdleTimeoutMs)} s without any streamed ` +
    "output; output that keeps flowing is never cut off. A timeout is handled like a provider error. " +
    "Choose off to turn it off."
  );
}

function maxTimeoutDescription(config: ContextPruneConfig): string {
  if (config.summarizerMaxTimeoutMs === 0) {
    return "The summarizer max timeout is off; only the idle timeout limits a call.";
  }
  return (
    `Hard cap of ${seconds(config.summarizerMaxTimeoutMs)} s on one summarizer call, for a stream that ` +
    "trickles on without ever going idle. Choose off to turn it off."
  );
}

function autoBudgetDescription(config: ContextPruneConfig): string {
  const cap = `${MAX_BUDGET_WINDOW / 1000}k`;
  const threshold = config.autoBudgetThreshold;
  const off = threshold === null || threshold === undefined;
  const share = off ? "the chosen share" : `${Math.round(threshold * 100)}%`;
  const rule =
    `Summarizes waiting tool outputs once the context reaches ${share} of the model's window or ${cap} tokens, ` +
    "whichever comes first, whatever the prune trigger.";
  return off ? `${rule} Currently off; choose a percentage to turn it on.` : `${rule} Choose off to turn it off.`;
}

export function dedupDescription(config: ContextPruneConfig): string {
  if (config.dedupByContentHash) {
    return (
      "Content-hash dedup runs before a flush: a tool output identical to one already archived (same tool, " +
      "same text) is kept as a copy of that one, with no summarizer call."
    );
  }
  return "Identical tool outputs go to the summarizer like any other.";
}

type Describer = (config: ContextPruneConfig) => string;

const DESCRIBERS: Record<string, Describer> = {
  enabled: () => "Enable or disable context pruning",
  showPruneStatusLine: (c) =>
    `The prune figure in the footer and the notices about tool calls waiting for a summary: currently ${onOff(c.showPruneStatusLine)}.`,
  pruneOn: pruneOnDescription,
  summarizerModel: () => "The model that summarizes tool outputs. Press Enter to open a model browser.",
  summarizerThinking: thinkingDescription,
  summaries: (c) =>
    ({
      auto: "Auto (the default): the summarizer runs only for outputs that cannot simply be had again (a test run, a build); reads, listings and searches, and outputs made stale by a later edit or re-run, are archived without a model call, their stubs keeping each output's facts.",
      always: "Always: every batch gets a summary from the summarizer (what the classic flush policy implies).",
      never: "Never: no summarizer calls; every archived output keeps a stub with its facts and its ref.",
    })[c.summaries] + (c.flushPolicy === "classic" ? " flushPolicy classic overrides this: always." : ""),
  batchingMode: (c) =>
    c.batchingMode === "agent-message"
      ? "Per agent message: all tool calls between two of your prompts get one summary: fewer, larger summaries."
      : "Per turn (the default): each agent response with tool calls gets its own summary: small, fine-grained summaries.",
  quietOversizedSkips: (c) =>
    `Currently ${onOff(c.quietOversizedSkips)}: ${c.quietOversizedSkips ? "no notice shows" : "a notice shows"} when a batch ` +
    "stays unsummarized because its summary would be longer than its outputs, or because its outputs are under " +
    "the min batch size.",
  minBatchChars: minBatchCharsDescription,
  recoveryGraceTurns: recoveryGraceDescription,
  summarizerIdleTimeoutMs: idleTimeoutDescription,
  summarizerMaxTimeoutMs: maxTimeoutDescription,
  autoBudgetThreshold: autoBudgetDescription,
  dedupByContentHash: dedupDescription,
  cacheBreakpoint: (c) =>
    "Anthropic models only: pi marks three places for the prompt cache and Anthropic allows four. The fourth " +
    "goes on the last block before the first one a summary rewrote, so the request reads the cache up to " +
    `there instead of writing the whole conversation again. Currently ${onOff(c.cacheBreakpoint)}.`,
  chainCompressionEnabled: (c) =>
    "The work of each of your prompts (its tool calls and outputs up to the agent's final reply) is " +
    `compressed into one summary block once ${plural(c.chainCompression.rollingWindow, "later prompt")} ` +
    `${c.chainCompression.rollingWindow === 1 ? "has" : "have"} finished; the outputs stay recoverable by their refs. Currently ${onOff(c.chainCompression.enabled)}.`,
  chainCompressionRollingWindow: (c) =>
    `The work of your ${plural(c.chainCompression.rollingWindow, "most recent finished prompt")} stays as it is; ` +
    "an earlier prompt's work is compressed into one summary block.",
  chainCompressionStripThinking: (c) =>
    "When an earlier prompt's work is compressed, the agent's thinking in its final reply is dropped too; the " +
    `reply's text stays. Currently ${onOff(c.chainCompression.stripFinalAssistantThinking)}.`,
  chainCompressionFuseRange: (c) =>
    "When an earlier prompt's work is compressed, its summaries are merged into one summary (one more summarizer " +
    `call for a prompt with several); when off they are kept one after another. Currently ${onOff(c.chainCompression.fuseRangeSummary)}.`,
  purgeErrorsEnabled: (c) =>
    "After a cooldown, long strings (over 200 chars) in the arguments of failed tool calls, such as a write that " +
    "never succeeded, become size markers; the call keeps its shape so it still replays. " +
    `Currently ${onOff(c.purgeErrors.enabled)}.`,
  purgeErrorsCooldown: (c) =>
    `How many turns after a failed tool call its long arguments are shrunk. Current value ${c.purgeErrors.cooldownTurns}.`,
  purgeErrorsMinArgChars: (c) =>
    "Only failed calls whose arguments add up to at least this many characters (as JSON) are shrunk; inside " +
    `them each string over 200 characters becomes a size marker. Current value ${c.purgeErrors.minArgChars}.`,
  protectedTools: (c) =>
    `Outputs of these tools are never summarized. Current: ${listOrNone(c.protectedTools)}. ` +
    "Edit with /pruner protected-tools, or /pruner protected-tools <names, comma-separated>. Typical: todowrite, todoread.",
  protectedPaths: (c) =>
    "Tool calls whose args.path matches one of these globs are never summarized. " +
    `Current: ${listOrNone(c.protectedPaths)}. Edit with /pruner protected-paths (or give the globs; ` +
    '"none" turns it off, "default" restores it). Defaults: skill files (**/skills/**/*.md) and ' +
    "pi-gauntlet's repository rules (**/gauntlet-overrides.md; matches nothing without that extension).",
};

export function settingDescription(id: string, config: ContextPruneConfig): string {
  return DESCRIBERS[id]?.(config) ?? "";
}
