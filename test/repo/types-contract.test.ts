// 2.9.1's contract names these types as exports of src/types.ts (spec 00-overview, the module table); each is
// declared beside its owner and re-exported there. The type check (`npm run typecheck`) fails when one goes
// missing; the test below fails when a re-export points at a module that no longer loads.
import { describe, expect, test } from "bun:test";
import type * as Types from "../../src/types.js";

type Contract = [
  Types.DiagnosticKind, Types.DiagnosticEntryData, Types.PruneOn, Types.BatchingMode, Types.SummarizerThinking,
  Types.ContextPruneConfig, Types.ChainRange, Types.ChainCompressionEntry, Types.ChainCompressionConfig,
  Types.ErrorPurgeConfig, Types.CapturedToolCall, Types.CapturedBatch, Types.ToolCallRecord, Types.IndexEntryData,
  Types.DedupAliasEntryData, Types.SummaryToolCallRef, Types.SummaryMessageDetails, Types.ContextMetricsSnapshot,
  Types.FlushTrigger, Types.FlushMetricsEntry, Types.SummarizerStats, Types.ExternalCostUpdate, Types.LiveReclaim,
  Types.PruneFrontierOutcome, Types.PruneFrontier, Types.ProgressCallback, Types.BatchTextProgressCallback,
  Types.FlushOptions, Types.SummarizeBatchOptions, Types.SummarizeBatchesOptions, Types.SummarizeResult,
];

describe("src/types.ts", () => {
  test("names every type of 2.9.1's contract and still loads with its values", async () => {
    const contract: Contract["length"] = 31;
    const types = await import("../../src/types.js");
    expect(contract).toBe(31);
    expect(types.DEFAULT_CONFIG.enabled).toBeBoolean();
    expect(types.CUSTOM_TYPE_INDEX).toBeString();
  });
});

// The values of 2.9.1's contract (spec 00-overview): the face re-exports each one, the very object its owner holds.
const CONTRACT_VALUES = [
  "CUSTOM_TYPE_SUMMARY", "CUSTOM_TYPE_INDEX", "CUSTOM_TYPE_STATS", "CUSTOM_TYPE_FRONTIER", "CUSTOM_TYPE_DEDUP_ALIAS",
  "CUSTOM_TYPE_CHAIN", "CUSTOM_TYPE_DIAGNOSTIC", "CUSTOM_TYPE_FLUSH_METRICS", "QUERY_TOOL_NAME", "EXTERNAL_COST_CHANNEL",
  "EXTERNAL_COST_SOURCE", "STATUS_WIDGET_ID", "PROGRESS_WIDGET_ID", "SUMMARIZER_THINKING_LEVELS", "PURGE_COOLDOWN_PRESETS",
  "PURGE_MIN_ARG_PRESETS", "BATCHING_MODES", "ROLLING_WINDOW_PRESETS", "MIN_BATCH_CHARS_PRESETS", "RECOVERY_GRACE_PRESETS",
  "SUMMARIZER_IDLE_TIMEOUT_PRESETS", "SUMMARIZER_MAX_TIMEOUT_PRESETS", "AUTO_BUDGET_PRESETS", "PRUNE_ON_MODES", "DEFAULT_CONFIG",
];

describe("src/types.ts values", () => {
  test("re-exports every value of 2.9.1's contract from the module that owns it", async () => {
    const face: Record<string, unknown> = await import("../../src/types.js");
    const owners: Record<string, unknown> = {
      ...(await import("../../src/names.js")),
      ...(await import("../../src/settings/config-shape.js")),
      ...(await import("../../src/commands/settings-presets.js")),
    };
    const notFromOwner = CONTRACT_VALUES.filter((name) => face[name] === undefined || face[name] !== owners[name]);
    expect(notFromOwner).toEqual([]);
  });
});
