/**
 * The ground floor: the runtime names every layer shares (custom entry types, the recovery tool's name, the
 * cost channel, widget ids). Their values are persisted in session files or seen by pi and other extensions,
 * so they are a contract (2.9.1 exported them from `src/types.ts`, which still re-exports them). Imports nothing.
 */

export const CUSTOM_TYPE_SUMMARY = "context-prune-summary";
export const CUSTOM_TYPE_INDEX = "context-prune-index";
export const CUSTOM_TYPE_STATS = "context-prune-stats";
export const CUSTOM_TYPE_FRONTIER = "context-prune-frontier";
export const CUSTOM_TYPE_DEDUP_ALIAS = "context-prune-dedup-alias";
export const CUSTOM_TYPE_CHAIN = "context-prune-chain";
export const CUSTOM_TYPE_DIAGNOSTIC = "context-prune-diagnostic";
export const CUSTOM_TYPE_FLUSH_METRICS = "context-prune-flush-metrics";
/** The summarizer's cache tokens, kept beside the stats snapshot (whose counters stay 2.9.1's). */
export const CUSTOM_TYPE_SUMMARIZER_CACHE = "context-prune-summarizer-cache";
/** Pruning turned on or off mid-session (`{ enabled }`), so a replay sends what the session sent. */
export const CUSTOM_TYPE_TOGGLE = "context-prune-toggle";
/** Live sight's raw window widened or narrowed (`{ widened, recoveries, window }`), so a reload keeps it. */
export const CUSTOM_TYPE_SIGHT = "context-prune-sight";
/** A report shown in the TUI chat (flush line, `/pruner status`, `/pruner stats`); never sent to the model. */
export const CUSTOM_TYPE_REPORT = "context-prune-report";

export const QUERY_TOOL_NAME = "context_tree_query";
export const EXTERNAL_COST_CHANNEL = "cost:external";
export const EXTERNAL_COST_SOURCE = "pi-condense";
export const STATUS_WIDGET_ID = "context-prune";
export const PROGRESS_WIDGET_ID = "context-prune-progress";
