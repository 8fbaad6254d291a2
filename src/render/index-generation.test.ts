import { describe, expect, test } from "bun:test";
import { generationOf, trackChanges } from "./index-generation.js";
import { ToolCallIndexer } from "../archive/indexer.js";

describe("index generation", () => {
  test("an object that does not count its changes has no generation", () => {
    expect(generationOf({})).toBeUndefined();
  });

  test("a tracked owner reports the count its counter holds", () => {
    const owner = {};
    const counter = trackChanges(owner);
    expect(generationOf(owner)).toBe(0);
    counter.changes += 2;
    expect(generationOf(owner)).toBe(2);
  });

  test("a proxy of a tracked indexer has no generation of its own", () => {
    const indexer = new ToolCallIndexer();
    expect(typeof generationOf(indexer)).toBe("number");
    expect(generationOf(new Proxy(indexer, {}))).toBeUndefined();
  });

  test("the indexer counts a change on a rebuild, new refs and edits through the live map", () => {
    const indexer = new ToolCallIndexer();
    const seen = () => generationOf(indexer)!;
    let last = seen();
    const changed = () => {
      const now = seen();
      const moved = now !== last;
      last = now;
      return moved;
    };
    indexer.reconstructFromSession({ sessionManager: { getBranch: () => [] } } as any);
    expect(changed()).toBe(true);
    indexer.registerSummaryRefs([{ shortId: "t1", toolCallId: "a", resultTimestamp: 1 }]);
    expect(changed()).toBe(true);
    indexer.getIndex().set("a@1", { toolCallId: "a", toolName: "bash", args: {}, resultText: "", isError: false, turnIndex: 0, timestamp: 1 });
    expect(changed()).toBe(true);
    indexer.isSummarized("a@1");
    indexer.getRecord("a@1");
    expect(changed()).toBe(false);
  });
});
