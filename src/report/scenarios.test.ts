import { describe, expect, test } from "bun:test";
import { DEFAULT_CONFIG } from "../settings/config-shape.js";
import { actualScenario } from "./scenarios.js";

const custom = (customType: string, data: unknown) => ({ type: "custom", customType, data, id: customType, parentId: null, timestamp: "" }) as any;

describe("the recorded run's summarizer use", () => {
  test("its input counts the cache tokens the summarizer's calls wrote and read (issue 36, point 3)", () => {
    const branch = [
      custom("context-prune-stats", { totalInputTokens: 0, totalOutputTokens: 120, totalCost: 0.016, callCount: 1 }),
      custom("context-prune-summarizer-cache", { cacheReadTokens: 0, cacheWriteTokens: 4262 }),
    ];
    expect(actualScenario(branch, DEFAULT_CONFIG).summarizer()).toMatchObject({ input: 4262, output: 120, calls: 1, recordedCost: 0.016 });
  });

  test("a session of an older version, with no cache entry, keeps its input as recorded", () => {
    const branch = [custom("context-prune-stats", { totalInputTokens: 300, totalOutputTokens: 20, totalCost: 0.001, callCount: 2 })];
    expect(actualScenario(branch, DEFAULT_CONFIG).summarizer().input).toBe(300);
  });
});
