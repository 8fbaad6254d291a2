/**
 * The three configurations a replay compares, each a function from a request
 * (in order) to the messages it would send:
 * - `none`: pi alone, pi-condense's own summary messages left out;
 * - `actual`: what the session sent, its own `context-prune-*` entries replayed
 *   through the render pipeline with the index as it stood at each request;
 * - `whatif`: the capture and render pipeline run offline with the given
 *   settings, summaries estimated (what-if-flush.ts).
 * Pure apart from the in-memory index each builds.
 */
import { argumentStubsOn } from "../arguments/fields.js";
import type { SessionEntry } from "@earendil-works/pi-coding-agent";
import { ToolCallIndexer } from "../archive/indexer.js";
import { renderMessages } from "../render/pruner.js";
import { argumentHorizon, NO_HORIZON } from "../arguments/horizon.js";
import { archiveWrites } from "../sight/archive-writes.js";
import { type ArchiveWrite, sightOptions } from "../sight/working-set.js";
import { parseStatsEntry, parseSummarizerCacheEntry, parseToggleEntry } from "../capture/persisted-entries.js";
import { CUSTOM_TYPE_CHAIN, CUSTOM_TYPE_DEDUP_ALIAS, CUSTOM_TYPE_INDEX, CUSTOM_TYPE_STATS, CUSTOM_TYPE_SUMMARIZER_CACHE, CUSTOM_TYPE_SUMMARY, CUSTOM_TYPE_TOGGLE } from "../names.js";
import type { ContextPruneConfig } from "../settings/config-shape.js";
import type { ReplayRequest } from "./requests.js";
import { StableMessages } from "./cache-sim.js";

import type { PolicyBets } from "./what-if-policy.js";
import type { ScenarioName, SummarizerUse } from "../bill/series.js";

export type { SummarizerUse } from "../bill/series.js";

export interface Scenario {
  name: ScenarioName;
  label: string;
  /** `coldStart`: the recording shows this request found the provider's cache empty. */
  messagesAt(request: ReplayRequest, coldStart?: boolean): unknown[] | Promise<unknown[]>;
  summarizer(): SummarizerUse;
  /** Tool call ids of the outputs waiting to be summarized after the last `messagesAt` (what-if only). */
  pending?(): ReadonlySet<string>;
  /** The cost policy's bets so far (what-if under the cost policy only): what the bound on them sums over. */
  bets?(): PolicyBets;
}

export const NO_SUMMARIZER: SummarizerUse = { input: 0, output: 0, unit: "tokens", calls: 0 };

function prefixOf(view: { messages: unknown[]; length: number }): unknown[] {
  return view.length === view.messages.length ? view.messages.slice() : view.messages.slice(0, view.length);
}

export function noPruningScenario(): Scenario {
  return { name: "none", label: "no pruning", messagesAt: (request) => prefixOf(request.bare), summarizer: () => NO_SUMMARIZER };
}

const INDEX_TYPES = new Set([CUSTOM_TYPE_INDEX, CUSTOM_TYPE_SUMMARY, CUSTOM_TYPE_CHAIN, CUSTOM_TYPE_DEDUP_ALIAS]);

function customTypeOf(entry: SessionEntry): unknown {
  return (entry as { customType?: unknown }).customType;
}

export function hasPrunerEntries(branch: SessionEntry[]): boolean {
  return branch.some((entry) => INDEX_TYPES.has(customTypeOf(entry) as string));
}

/** The last snapshots of the summarizer's stats and cache tokens: its input counts cache reads and writes too. */
function recordedSummarizer(branch: SessionEntry[]): SummarizerUse {
  let use: SummarizerUse = NO_SUMMARIZER;
  let cached = 0;
  for (const entry of branch) {
    if (entry.type !== "custom") continue;
    const data = (entry as { data?: unknown }).data;
    if (customTypeOf(entry) === CUSTOM_TYPE_SUMMARIZER_CACHE) {
      const parsed = parseSummarizerCacheEntry(data);
      if (parsed.ok) cached = parsed.value.cacheReadTokens + parsed.value.cacheWriteTokens;
      continue;
    }
    if (customTypeOf(entry) !== CUSTOM_TYPE_STATS) continue;
    const parsed = parseStatsEntry(data);
    if (!parsed.ok) continue;
    const stats = parsed.value;
    use = { input: stats.totalInputTokens, output: stats.totalOutputTokens, unit: "tokens", recordedCost: stats.totalCost, calls: stats.callCount };
  }
  return use.calls > 0 ? { ...use, input: use.input + cached } : use;
}

/** Where pruning was turned on or off on the branch, in order. */
function togglesOf(branch: SessionEntry[]): Array<{ index: number; enabled: boolean }> {
  const toggles: Array<{ index: number; enabled: boolean }> = [];
  branch.forEach((entry, index) => {
    if (entry.type !== "custom" || customTypeOf(entry) !== CUSTOM_TYPE_TOGGLE) return;
    const parsed = parseToggleEntry((entry as { data?: unknown }).data);
    if (parsed.ok) toggles.push({ index, enabled: parsed.value.enabled });
  });
  return toggles;
}

/**
 * Whether pruning was on at each branch position: from the toggles `/pruner on|off` recorded, and before
 * the first one the opposite of what it turned to (a session without toggles was pruned throughout).
 */
function prunedAt(branch: SessionEntry[]): (entryIndex: number) => boolean {
  const toggles = togglesOf(branch);
  const initial = toggles.length === 0 ? true : !toggles[0]!.enabled;
  return (entryIndex) => {
    let on = initial;
    for (const toggle of toggles) if (toggle.index < entryIndex) on = toggle.enabled;
    return on;
  };
}

export function actualScenario(branch: SessionEntry[], config: ContextPruneConfig): Scenario {
  const indexer = new ToolCallIndexer();
  let scanned = 0;
  const stable = new StableMessages();
  const pruned = prunedAt(branch);
  let horizon = NO_HORIZON;
  let writes: ArchiveWrite[] = [];
  return {
    name: "actual",
    label: "as recorded",
    messagesAt(request) {
      // The index as a reload at this request would rebuild it, grown by the entries written since the last one.
      const from = scanned;
      let changed = false;
      for (; scanned < request.entryIndex; scanned++) if (INDEX_TYPES.has(customTypeOf(branch[scanned]!) as string)) changed = true;
      if (changed) {
        indexer.extendFromEntries(branch.slice(from, request.entryIndex), branch);
        horizon = argumentHorizon(branch, request.entryIndex);
        writes = archiveWrites(branch, request.entryIndex);
      }
      const messages = prefixOf(request.all);
      // While pruning was off the session sent its branch as it stood, its summary messages included.
      if (!pruned(request.entryIndex)) return stable.stable(messages);
      return stable.stable(renderMessages(messages, indexer, config.chainCompression, config.purgeErrors, config, config.recoveryGraceTurns, indexer.archiveCheck(), argumentStubsOn(config), horizon, sightOptions(config, writes)));
    },
    summarizer: () => recordedSummarizer(branch),
  };
}
