import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ToolCallIndexer } from "./indexer.js";

const branch = readFileSync(join(import.meta.dir, "../../test/fixtures/multi-version-session.jsonl"), "utf8")
  .trim()
  .split("\n")
  .map((line) => JSON.parse(line))
  .filter((entry) => entry.type !== "session");

function rebuilt(entries: unknown[]): ToolCallIndexer {
  const indexer = new ToolCallIndexer();
  indexer.reconstructFromSession({ sessionManager: { getBranch: () => entries } } as any);
  return indexer;
}

function view(indexer: ToolCallIndexer) {
  const keys = [...indexer.getIndex().keys()].sort();
  return {
    keys,
    refs: keys.map((key) => indexer.getShortRefForToolCallId(key)),
    chains: indexer.getChainEntries().map((entry) => entry.blockId),
    bodies: indexer.getPerBatchSummariesForToolCallIds(keys),
  };
}

describe("ToolCallIndexer.extendFromEntries", () => {
  test("extending entry by entry gives the index a rebuild over the whole branch gives", () => {
    const extended = new ToolCallIndexer();
    for (const entry of branch) extended.extendFromEntries([entry], branch);
    expect(view(extended)).toEqual(view(rebuilt(branch)));
    expect(view(extended).keys.length).toBeGreaterThan(0);
  });

  test("at every point of the branch, the extended index equals a rebuild of the branch up to it", () => {
    const extended = new ToolCallIndexer();
    for (let i = 0; i < branch.length; i++) {
      extended.extendFromEntries([branch[i]], branch);
      expect(view(extended)).toEqual(view(rebuilt(branch.slice(0, i + 1))));
    }
  });
});
