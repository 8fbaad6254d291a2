import { describe, expect, test } from "bun:test";
import { anticipatedBreakpointIndex, nextRewriteBlock, type PlacementInput, sharedBlocks, spareBreakpointIndex, spareMarkerIndex } from "./spare-breakpoint.js";

/** Blocks `k0..k(n-1)`; `edit` renames block i; the last block and `marks` carry markers; `ineligible` cannot. */
function input(n: number, opts: { previous: number; edit?: number; marks?: number[]; ineligible?: number[]; best: number }): PlacementInput {
  const keys = Array.from({ length: n }, (_, i) => (i === opts.edit ? `x${i}` : `k${i}`));
  const marked = keys.map((_, i) => i === n - 1 || (opts.marks ?? []).includes(i));
  const eligible = keys.map((_, i) => !(opts.ineligible ?? []).includes(i));
  return { keys, marked, eligible, previousKeys: Array.from({ length: opts.previous }, (_, i) => `k${i}`), bestEntry: opts.best };
}

describe("spareBreakpointIndex", () => {
  test("after a deep rewrite the marker goes on the block right before the first changed block", () => {
    expect(spareBreakpointIndex(input(80, { previous: 78, edit: 40, marks: [0, 1], best: 38 }))).toBe(39);
  });

  test("a thinking block right before the rewrite is skipped for the eligible block before it", () => {
    expect(spareBreakpointIndex(input(80, { previous: 78, edit: 40, marks: [0, 1], ineligible: [39], best: 38 }))).toBe(38);
  });

  test("a turn that adds more than 20 blocks gets the marker on the previous request's last block", () => {
    expect(spareBreakpointIndex(input(60, { previous: 30, marks: [0, 1], best: 30 }))).toBe(29);
  });

  test("an ordinary turn needs no marker: pi-ai's last marker reaches the previous entry", () => {
    expect(spareBreakpointIndex(input(34, { previous: 30, marks: [0, 1], best: 30 }))).toBeUndefined();
  });

  test("four markers already (an OAuth request) leave no room", () => {
    expect(spareBreakpointIndex(input(80, { previous: 78, edit: 40, marks: [0, 1, 2], best: 38 }))).toBeUndefined();
  });

  test("without a live entry there is nothing a marker could read", () => {
    expect(spareBreakpointIndex(input(80, { previous: 78, edit: 40, marks: [0, 1], best: 0 }))).toBeUndefined();
  });

  test("when the best entry lies more than 20 blocks before the rewrite the marker stays within its reach", () => {
    expect(spareBreakpointIndex(input(80, { previous: 78, edit: 60, marks: [0, 1], best: 30 }))).toBe(49);
  });

  test("no eligible block within reach means no marker", () => {
    const blocked = Array.from({ length: 21 }, (_, i) => 30 + i - 1);
    expect(spareBreakpointIndex(input(80, { previous: 78, edit: 60, marks: [0, 1], ineligible: blocked, best: 30 }))).toBeUndefined();
  });

  test("the shared prefix of two requests is counted in blocks", () => {
    expect(sharedBlocks(["a", "b", "c"], ["a", "b", "x", "y"])).toBe(2);
    expect(sharedBlocks(["a"], [])).toBe(0);
  });
});

describe("anticipatedBreakpointIndex", () => {
  const shape = (n: number, results: Record<number, string>, marks: number[] = [n - 1], ineligible: number[] = []) => ({
    marked: Array.from({ length: n }, (_, i) => marks.includes(i)),
    eligible: Array.from({ length: n }, (_, i) => !ineligible.includes(i)),
    toolUseIds: Array.from({ length: n }, (_, i) => results[i]),
  });

  test("the marker goes on the block right before the first tool result still waiting to be summarized", () => {
    expect(anticipatedBreakpointIndex({ ...shape(30, { 11: "a", 21: "b" }), pending: new Set(["b", "a"]) })).toBe(10);
  });

  test("nothing waiting, or the waiting output after the last marker, means no marker", () => {
    expect(anticipatedBreakpointIndex({ ...shape(30, { 11: "a" }), pending: new Set() })).toBeUndefined();
    expect(anticipatedBreakpointIndex({ ...shape(30, { 11: "a" }, [5]), pending: new Set(["a"]) })).toBeUndefined();
  });

  test("a marker already at the spot, or four markers, leave it alone", () => {
    expect(anticipatedBreakpointIndex({ ...shape(30, { 11: "a" }, [10, 29]), pending: new Set(["a"]) })).toBeUndefined();
    expect(anticipatedBreakpointIndex({ ...shape(30, { 11: "a" }, [0, 1, 2, 29]), pending: new Set(["a"]) })).toBeUndefined();
  });

  test("an ineligible block before the output is passed over for the one before it", () => {
    expect(anticipatedBreakpointIndex({ ...shape(30, { 11: "a" }, [29], [10]), pending: new Set(["a"]) })).toBe(9);
  });
});

describe("the next chain compression as a rewrite ahead", () => {
  // Blocks 0-1: tools and system; then messages of two blocks each: message m holds blocks 2+2m and 3+2m.
  const messageOf = Array.from({ length: 30 }, (_, i) => (i < 2 ? undefined : Math.floor((i - 2) / 2)));
  const results = (at: Record<number, string>) => Array.from({ length: 30 }, (_, i) => at[i]);

  test("the chain's rewrite starts at the first block of the message holding its first call", () => {
    // The first output "c" is block 9 (message 3): its call is message 2, which starts at block 6.
    expect(nextRewriteBlock({ toolUseIds: results({ 9: "c" }), pending: new Set(), messageOf, chainStart: "c" })).toBe(6);
  });

  test("the earlier of the chain start and the first waiting output wins", () => {
    const ids = results({ 9: "c", 21: "w" });
    expect(nextRewriteBlock({ toolUseIds: ids, pending: new Set(["w"]), messageOf, chainStart: "c" })).toBe(6);
    expect(nextRewriteBlock({ toolUseIds: results({ 21: "c", 9: "w" }), pending: new Set(["w"]), messageOf, chainStart: "c" })).toBe(9);
  });

  test("a chain start the request does not hold leaves the waiting outputs to decide", () => {
    expect(nextRewriteBlock({ toolUseIds: results({ 21: "w" }), pending: new Set(["w"]), messageOf, chainStart: "gone" })).toBe(21);
    expect(nextRewriteBlock({ toolUseIds: results({ 9: "c" }), pending: new Set(), messageOf, chainStart: "gone" })).toBe(-1);
  });

  test("the marker goes on the last block before the chain's first call message", () => {
    const marked = Array.from({ length: 30 }, (_, i) => i === 1 || i === 29);
    const eligible = Array.from({ length: 30 }, () => true);
    expect(anticipatedBreakpointIndex({ marked, eligible, toolUseIds: results({ 9: "c" }), pending: new Set(), messageOf, chainStart: "c" })).toBe(5);
  });
});

describe("spareMarkerIndex", () => {
  const toolUseIds = Array.from({ length: 80 }, (_, i) => (i === 41 ? "w" : undefined));

  test("a marker that reads more now wins over the next rewrite point", () => {
    expect(spareMarkerIndex({ ...input(80, { previous: 78, edit: 40, marks: [0, 1], best: 38 }), toolUseIds, pending: () => new Set(["w"]) })).toBe(39);
  });

  test("otherwise the marker waits before the first output still to be summarized", () => {
    expect(spareMarkerIndex({ ...input(80, { previous: 78, marks: [0, 1], best: 78 }), toolUseIds, pending: () => new Set(["w"]) })).toBe(40);
  });
});
