import { describe, expect, test } from "bun:test";
import { anticipatedBreakpointIndex, type PlacementInput, sharedBlocks, spareBreakpointIndex, spareMarkerIndex } from "./spare-breakpoint.js";

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

describe("spareMarkerIndex", () => {
  const toolUseIds = Array.from({ length: 80 }, (_, i) => (i === 41 ? "w" : undefined));

  test("a marker that reads more now wins over the next rewrite point", () => {
    expect(spareMarkerIndex({ ...input(80, { previous: 78, edit: 40, marks: [0, 1], best: 38 }), toolUseIds, pending: () => new Set(["w"]) })).toBe(39);
  });

  test("otherwise the marker waits before the first output still to be summarized", () => {
    expect(spareMarkerIndex({ ...input(80, { previous: 78, marks: [0, 1], best: 78 }), toolUseIds, pending: () => new Set(["w"]) })).toBe(40);
  });
});
