/**
 * `/pruner` subcommand catalogue (completion items and the bare-command
 * picker) and the `/pruner help` text.
 */

export interface SubcommandItem {
  value: string;
  label: string;
}

/** Names padded to the longest, so every dash sits in one column of the bare `/pruner` picker. */
const NAME_WIDTH = 16;

/** Each label fits one row of the picker in an 80-column terminal (its own indent and arrow included). */
function item(value: string, description: string): SubcommandItem {
  return { value, label: `${value.padEnd(NAME_WIDTH)} — ${description}` };
}

export const SUBCOMMANDS: readonly SubcommandItem[] = [
  item("settings", "open the settings overlay"),
  item("on", "turn pruning on"),
  item("off", "turn pruning off"),
  item("status", "the settings, the summarizer's use, the context now"),
  item("model", "show or set the summarizer model"),
  item("thinking", "show or set the summarizer's thinking level"),
  item("prune-on", "choose when tool outputs are summarized"),
  item("batching", "one summary per tool turn, or per reply"),
  item("stats", "the summarizer's token use and cost"),
  item("report", "replay a session: tokens and dollars, pruned or not"),
  item("tree", "browse the archived tool outputs"),
  item("now", "summarize the waiting tool outputs now"),
  item("compact", "compress every finished earlier prompt's work now"),
  item("protected-tools", "tools whose outputs are never summarized"),
  item("protected-paths", "file globs whose reads are never summarized"),
  item("min-batch-chars", "size under which outputs are left as they are"),
  item("recovery-grace", "how long a recovered output stays whole"),
  item("dedup", "point repeated outputs at their earlier copy"),
  item("help", "show this help"),
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
  ["/pruner settings", "Open the settings overlay"],
  ["/pruner on", "Turn pruning on"],
  ["/pruner off", "Turn pruning off"],
  ["/pruner status", "Show the settings, the summarizer's use so far and the context now"],
  ["/pruner model", "Show the summarizer model"],
  ["/pruner model <id>", "Set the summarizer model (e.g. anthropic/claude-haiku-4-5); pi must know it"],
  ["/pruner model <id>:<thinking>", "Set model and thinking level in one step (e.g. openai/gpt-5-mini:low)"],
  ["/pruner thinking", "Show the summarizer's thinking level"],
  ["/pruner thinking <level>", "Set it: default, off, minimal, low, medium, high, xhigh"],
  ["/pruner prune-on", "Pick when tool outputs are summarized"],
  ["/pruner prune-on on-demand", "Summarize only when you run /pruner now"],
  [
    "/pruner prune-on agent-message",
    "Summarize after the agent's final reply (default; keeps the provider's cache hitting)",
  ],
  ["/pruner batching", "Pick what one summary covers"],
  ["/pruner batching turn", "One summary per tool turn of the agent (default)"],
  ["/pruner batching agent-message", "One summary per reply: every tool turn from your message to the agent's answer"],
  ["/pruner stats", "The summarizer's calls, tokens and cost so far"],
  ["/pruner report", "Replay this session: tokens, cache reads and writes, dollars, with and without pruning"],
  ["/pruner report <file.jsonl>", "Replay any pi session file; key=value overrides the what-if's settings"],
  ["/pruner report --model <id>", "Price the replay at that catalog model (e.g. anthropic/claude-sonnet-4-5)"],
  ["/pruner tree", "Browse the summarized tool outputs; Ctrl-O opens the selected summary"],
  ["/pruner now", "Summarize the waiting tool outputs right away; each summarizer call shows live progress while it runs"],
  ["/pruner protected-tools", "Edit the tools whose outputs are never summarized"],
  ["/pruner protected-tools <names>", "Set that list directly (comma or space separated; none clears it, default restores it)"],
  ["/pruner protected-paths", "Edit the file globs whose reads are never summarized"],
  ["/pruner protected-paths <globs>", "Set those globs directly (comma or space separated; none clears them, default restores them)"],
  ["/pruner min-batch-chars", "Show the size under which a turn's outputs are left as they are"],
  ["/pruner min-batch-chars <n>", "Set that size in characters (0 summarizes everything)"],
  ["/pruner recovery-grace", "Show for how many of your prompts a recovered output stays whole"],
  ["/pruner recovery-grace <n>", "Set that number (0: a recovered output stays whole only until your next prompt)"],
  ["/pruner compact", "Compress the work of every finished earlier prompt now, also the most recent ones"],
  ["/pruner dedup", "Show whether repeated outputs point at their earlier copy"],
  ["/pruner dedup on|off", "Switch that on or off"],
  ["/pruner help", "Show this help"],
];

/** Each body is one paragraph: the TUI wraps it to the terminal width, under its indentation. */
const SECTIONS: ReadonlyArray<[string, string]> = [
  [
    "Small outputs (min-batch-chars):",
    "When a tool turn's outputs add up to fewer characters than this (default 1000), summarizing would save " +
      "little: they stay as they are, with no summarizer call, and are not offered again. The Quiet skip " +
      "notifications setting (/pruner settings) leaves them out of the line a run ends with.",
  ],
  [
    "Protected tools and paths:",
    "Outputs of protected tools (e.g. todowrite, todoread) and reads of protected files (skill files by default) " +
      "are never summarized; of a file read several times only the newest read stays whole. Names of tools that " +
      "do not exist are ignored.",
  ],
  [
    "Repeated outputs (dedup):",
    "On by default. An output identical to one summarized earlier is not summarized again: it points at the " +
      "earlier copy's ref, and context_tree_query returns it.",
  ],
  [
    "What a summary covers (batching):",
    "turn (default) makes one summary per tool turn of the agent; agent-message makes one per reply, from your " +
      "message to the agent's answer.",
  ],
  [
    "When to summarize (prune-on):",
    "agent-message (default) summarizes after the agent's final reply; on-demand only when you run /pruner now.",
  ],
  [
    "Why this matters:",
    "Every change to earlier context makes the provider re-read it at full price (a cache miss), so summaries " +
      "are made once per finished piece of work, not after every tool turn.",
  ],
  ["Related:", "Anthropic prompt caching docs: https://docs.claude.com/en/docs/build-with-claude/prompt-caching"],
];

const SETTINGS_LOCATION =
  "Settings are stored under the contextPrune key of <agent-dir>/settings.json, where <agent-dir> is " +
  "$PI_CODING_AGENT_DIR when set, otherwise ~/.pi/agent.";

export function helpText(): string {
  const lines = ["pruner — summarizes tool outputs the agent already used, and keeps every original recoverable.", "", "Usage:"];
  for (const [command, description] of USAGE) lines.push(`  ${command.padEnd(41)}${description}`);
  for (const [heading, body] of SECTIONS) lines.push("", heading, `  ${body}`);
  lines.push("", SETTINGS_LOCATION);
  return lines.join("\n");
}
