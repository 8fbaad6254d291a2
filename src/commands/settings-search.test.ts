import { describe, expect, test } from "bun:test";
import { filterSettings } from "./settings-search.js";
import { valueRoom } from "./command-settings.js";

const items = [
  { id: "autoBudgetThreshold", label: "Auto-flush budget", currentValue: "off" },
  { id: "showPruneStatusLine", label: "Footer line", currentValue: "on" },
  { id: "summarizerIdleTimeoutMs", label: "Summarizer idle timeout", currentValue: "20 s" },
];
const words: Record<string, string> = { showPruneStatusLine: "footer status line showPruneStatusLine", summarizerIdleTimeoutMs: "summarizerIdleTimeoutMs" };
const wordsOf = (id: string) => words[id] ?? "";

describe("filterSettings", () => {
  test("an empty query keeps every setting in order", () => {
    expect(filterSettings(items, " ", wordsOf)).toEqual(items);
  });

  test("finds a setting by the README's name for it after the label matches", () => {
    expect(filterSettings(items, "status", wordsOf).map((item) => item.id)).toEqual(["showPruneStatusLine"]);
    expect(filterSettings(items, "budget", wordsOf).map((item) => item.id)).toEqual(["autoBudgetThreshold"]);
  });

  test("a config key finds its row, and other words do not match by scattered letters", () => {
    expect(filterSettings(items, "showPruneStatusLine", wordsOf).map((item) => item.id)).toEqual(["showPruneStatusLine"]);
    expect(filterSettings(items, "tsl", wordsOf).map((item) => item.id)).not.toContain("showPruneStatusLine");
  });
});

describe("valueRoom", () => {
  test("leaves a value what pi's list leaves it in 80 and 120 columns", () => {
    const labels = ["Pruning", "Error purge min argument size"];
    expect(valueRoom(labels, 76)).toBe(76 - 2 - 29 - 2 - 2);
    expect(valueRoom(labels, 116)).toBe(116 - 2 - 29 - 2 - 2);
    expect(valueRoom(["x".repeat(50)], 116)).toBe(116 - 2 - 36 - 2 - 2);
  });
});
