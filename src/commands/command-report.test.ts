import { describe, expect, test } from "bun:test";
import { statusReport } from "./command-report.js";
import { DEFAULT_CONFIG } from "../settings/config-shape.js";

const STATS = { callCount: 0, totalInputTokens: 0, totalOutputTokens: 0, totalCost: 0 };

function status(getFallback?: () => string | undefined): string {
  return statusReport({ currentConfig: { value: DEFAULT_CONFIG }, getStats: () => STATS, getFallback } as any, {} as any);
}

describe("/pruner status and the summarizer fallback", () => {
  test("names the model in use and why while the session model stands in", () => {
    expect(status(() => "session model Fake Model, the summarizer model is failing (401)")).toContain(
      "\n  in use now:               session model Fake Model, the summarizer model is failing (401)",
    );
  });

  test("adds no line while the summarizer model is in use", () => {
    expect(status(() => undefined)).not.toContain("in use now");
  });
});
