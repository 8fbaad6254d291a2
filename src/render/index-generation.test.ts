import { describe, expect, test } from "bun:test";
import { generationOf, namesTouchedSince, trackChanges } from "./index-generation.js";
import { ToolCallIndexer } from "../archive/indexer.js";

describe("index generation", () => {
  test("an object that does not count its changes has no generation", () => {
    expect(generationOf({})).toBeUndefined();
  });

  test("a tracked owner reports how many changes its log holds", () => {
    const owner = {};
    const log = trackChanges(owner);
    expect(generationOf(owner)).toBe(0);
    log.change();
    log.touchedEverything();
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

describe("change log", () => {
  const watched = () => {
    const owner = {};
    const log = trackChanges(owner);
    return { log, generation: () => generationOf(owner)!, since: (g: number) => namesTouchedSince(owner, g) };
  };

  test("names touched after a generation are what the changes since named", () => {
    const { log, generation, since } = watched();
    log.change();
    log.touched("old@1");
    const g = generation();
    log.change();
    log.touched("a@10");
    log.touched("a");
    log.change();
    expect([...since(g)!].sort()).toEqual(["a", "a@10"]);
  });

  test("no change since a generation touched nothing", () => {
    const { generation, since } = watched();
    expect(since(generation())!.size).toBe(0);
  });

  test("a change that touched everything leaves earlier generations unknown", () => {
    const { log, generation, since } = watched();
    const g = generation();
    log.touchedEverything();
    log.change();
    log.touched("a@10");
    expect(since(g)).toBeUndefined();
  });

  test("more names than the log keeps leave earlier generations unknown", () => {
    const { log, generation, since } = watched();
    const g = generation();
    log.change();
    for (let i = 0; i < 5000; i++) log.touched(`k${i}`);
    expect(since(g)).toBeUndefined();
  });

  test("after a rebuild the next reader's generation is known again", () => {
    const { log, generation, since } = watched();
    generation();
    log.touchedEverything();
    for (let i = 0; i < 10; i++) log.change();
    const g = generation();
    log.change();
    log.touched("b@20");
    expect([...since(g)!]).toEqual(["b@20"]);
  });

  test("a generation the log never reached is unknown", () => {
    const { generation, since } = watched();
    expect(since(generation() + 1)).toBeUndefined();
    expect(since(Number.NaN)).toBeUndefined();
  });

  test("the indexer names a new record's key and bare id, and nothing for an empty ref list", () => {
    const indexer = new ToolCallIndexer();
    const g = generationOf(indexer)!;
    indexer.registerSummaryRefs([]);
    expect(namesTouchedSince(indexer, g)!.size).toBe(0);
    indexer.addBatch({ turnIndex: 0, timestamp: 1, assistantText: "", toolCalls: [{ toolCallId: "a", toolName: "bash", args: {}, resultText: "x", isError: false, resultTimestamp: 10 }] }, () => {});
    expect([...namesTouchedSince(indexer, g)!].sort()).toEqual(["a", "a@10"]);
  });
});
