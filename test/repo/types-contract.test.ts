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
