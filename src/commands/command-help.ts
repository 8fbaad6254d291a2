/**
 * `/pruner` subcommand catalogue (completion items and the bare-command
 * picker) and the `/pruner help` text.
 */

export interface SubcommandItem {
  value: string;
  label: string;
}

function item(value: string, label: string): SubcommandItem {
  return { value, label };
}

export const SUBCOMMANDS: readonly SubcommandItem[] = [
  item("settings", "settings  — interactive settings overlay"),
  item("on", "on        — enable context pruning"),
  item("off", "off       — disable context pruning"),
  item("status", "status    — show status, model, thinking, prune trigger, and status line"),
  item("model", "model     — show or set the summarizer model"),
  item("thinking", "thinking  — show or set the summarizer thinking level"),
  item("prune-on", "prune-on  — show or set the trigger mode"),
  item("batching", "batching  — show or set the batching mode (turn / agent-message)"),
  item("stats", "stats     — show cumulative summarizer token/cost stats"),
  item("tree", "tree      — browse pruned tool calls in a foldable tree"),
  item("now", "now       — flush pending tool calls immediately (widget progress)"),
  item("compact", "compact   — retroactively compress all eligible closed chains"),
  item("protected-tools", "protected-tools — show or edit the never-pruned tool allowlist"),
  item("protected-paths", "protected-paths — show or edit the never-pruned path globs"),
  item("min-batch-chars", "min-batch-chars — show or set the pre-flush trivial-batch threshold"),
  item(
    "recovery-grace",
    "recovery-grace - show or set how long context_tree_query output stays verbatim (user-turn-groups)",
  ),
  item("dedup", "dedup     — toggle pre-flush content-hash dedup (on/off/status)"),
  item("help", "help      — show this help"),
];

/**
 * Subcommands that start with `prefix`, or none once `prefix` names one in full: pi's editor
 * spends an Enter on accepting an open argument completion, even an identical one, so an
 * empty list lets `/pruner status` run on the first Enter.
 */
export function completeSubcommand(prefix: string): SubcommandItem[] {
  if (SUBCOMMANDS.some((entry) => entry.value === prefix)) return [];
  return SUBCOMMANDS.filter((entry) => entry.value.startsWith(prefix)).map((entry) => ({ ...entry }));
}

const USAGE: ReadonlyArray<[string, string]> = [
  ["/pruner settings", "Open the interactive settings overlay"],
  ["/pruner on", "Turn context pruning on"],
  ["/pruner off", "Turn context pruning off"],
  ["/pruner status", "Show the current state: enabled flag, model, prune trigger, batching mode and stats"],
  ["/pruner model", "Print the summarizer model in use"],
  ["/pruner model <id>", "Set the summarizer model (e.g. anthropic/claude-haiku-3-5)"],
  ["/pruner model <id>:<thinking>", "Set model and thinking level in one step (e.g. openai/gpt-5-mini:low)"],
  ["/pruner thinking", "Print the summarizer thinking level in use"],
  ["/pruner thinking <level>", "Set the summarizer thinking level: default, off, minimal, low, medium, high, xhigh"],
  ["/pruner prune-on", "Show the prune trigger, or pick it interactively"],
  ["/pruner prune-on on-demand", "Summarize only when you run /pruner now"],
  [
    "/pruner prune-on agent-message",
    "Summarize after the agent's final text reply (default; best for prompt-cache stability)",
  ],
  ["/pruner batching", "Show the batching granularity, or pick it interactively"],
  ["/pruner batching turn", "One summary per assistant turn (default)"],
  [
    "/pruner batching agent-message",
    "One summary per span from a user message to the agent's final message, combining every turn in it",
  ],
  ["/pruner stats", "Cumulative summarizer token and cost totals"],
  ["/pruner tree", "Browse pruned tool calls in a collapsible tree; Ctrl-O opens the selected summary"],
  ["/pruner now", "Summarize pending tool calls right away, with live progress"],
  ["/pruner protected-tools", "Edit the never-pruned tool list interactively"],
  ["/pruner protected-tools <names>", "Set that list directly (comma or space separated; none clears it)"],
  ["/pruner protected-paths", "Edit the never-pruned path globs interactively"],
  ["/pruner protected-paths <globs>", "Set those globs directly (comma or space separated; none clears them)"],
  ["/pruner min-batch-chars", "Show the trivial-batch threshold applied before a flush"],
  ["/pruner min-batch-chars <n>", "Set that threshold (non-negative integer; 0 turns it off)"],
  ["/pruner recovery-grace", "Show the recovery grace window, in user-turn-groups"],
  ["/pruner recovery-grace <n>", "Set that window (non-negative integer; 0 turns it off)"],
  ["/pruner compact", "Compress every eligible closed chain after the fact, ignoring rollingWindow"],
  ["/pruner dedup", "Show whether pre-flush content-hash dedup is on"],
  ["/pruner dedup on|off", "Turn content-hash dedup on or off"],
  ["/pruner help", "Show this help"],
];

const SECTIONS: ReadonlyArray<[string, string[]]> = [
  [
    "Trivial-batch skip (minBatchChars):",
    [
      "A batch whose raw output is below the threshold skips the LLM call and injects no summary,",
      "but the frontier still advances past it. Default 1000; 0 disables. The check runs before the",
      "post-LLM oversized check; quietOversizedSkips silences both kinds of skip notice.",
    ],
  ],
  [
    "Protected tools:",
    [
      "Tools such as todowrite/todoread stay verbatim: they bypass the summarizer and the index.",
      "Names of tools that do not exist are simply ignored.",
    ],
  ],
  [
    "Content-hash dedup (dedupByContentHash):",
    [
      "On by default. A SHA-1 over the tool name plus the normalized output text (line endings unified,",
      "trailing whitespace stripped per line, whole text trimmed) finds outputs already indexed. A match",
      "becomes an alias of the original: no LLM call, its stub reuses the original's ref, and",
      "context_tree_query resolves it. Only matches against earlier flushes count (cross-flush only).",
    ],
  ],
  [
    "Batching mode:",
    [
      "turn (default) summarizes each assistant turn on its own; agent-message merges all turns",
      "between a user message and the agent's final reply into one summary.",
    ],
  ],
  [
    "Mode guidance:",
    [
      "on-demand gives you manual control over when the context is rewritten;",
      "agent-message is the recommended default.",
    ],
  ],
  [
    "Why this matters:",
    ["Every edit to earlier context lowers prefix-cache hits, so pruning is batched instead of per turn."],
  ],
  [
    "Related:",
    ["Anthropic prompt caching docs: https://docs.claude.com/en/docs/build-with-claude/prompt-caching"],
  ],
];

const SETTINGS_LOCATION =
  "Settings are stored under the contextPrune key of <agent-dir>/settings.json, where <agent-dir> is " +
  "$PI_CODING_AGENT_DIR when set, otherwise ~/.pi/agent.";

export function helpText(): string {
  const lines = ["pruner — automatically summarizes tool-call outputs to keep context lean.", "", "Usage:"];
  for (const [command, description] of USAGE) lines.push(`  ${command.padEnd(41)}${description}`);
  for (const [heading, body] of SECTIONS) {
    lines.push("", heading);
    for (const line of body) lines.push(`  ${line}`);
  }
  lines.push("", SETTINGS_LOCATION);
  return lines.join("\n");
}
