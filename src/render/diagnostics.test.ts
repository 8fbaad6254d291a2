import { describe, expect, spyOn, test } from "bun:test";
import { DiagnosticSink } from "./diagnostics.js";
import { CUSTOM_TYPE_DIAGNOSTIC } from "../names.js";

type Append = { customType: string; data: unknown };

function recordingSink(): { sink: DiagnosticSink; appended: Append[] } {
  const appended: Append[] = [];
  const sink = new DiagnosticSink((customType, data) => appended.push({ customType, data }));
  return { sink, appended };
}

function withSilencedConsoleError<T>(fn: (spy: ReturnType<typeof spyOn>) => T): T {
  const spy = spyOn(console, "error").mockImplementation(() => {});
  try {
    return fn(spy);
  } finally {
    spy.mockRestore();
  }
}

describe("DiagnosticSink.report", () => {
  test("appends one context-prune-diagnostic entry with exactly kind and detail", () => {
    // D1
    const { sink, appended } = recordingSink();
    sink.report("unresolved-range", "b5", "blockId=b5 start=1 final=null");
    expect(appended).toEqual([
      { customType: CUSTOM_TYPE_DIAGNOSTIC, data: { kind: "unresolved-range", detail: "blockId=b5 start=1 final=null" } },
    ]);
    expect(CUSTOM_TYPE_DIAGNOSTIC).toBe("context-prune-diagnostic");
  });

  test("the same key reported twice appends once and counts once", () => {
    // D2
    const { sink, appended } = recordingSink();
    sink.report("unresolved-range", "b5", "first");
    sink.report("unresolved-range", "b5", "second");
    expect(appended.length).toBe(1);
    expect(sink.counts()["unresolved-range"]).toBe(1);
  });

  test("different keys of one kind append and count separately", () => {
    // D3
    const { sink, appended } = recordingSink();
    sink.report("unresolved-range", "b5", "x");
    sink.report("unresolved-range", "b7", "y");
    expect(appended.length).toBe(2);
    expect(sink.counts()["unresolved-range"]).toBe(2);
  });

  test("one key under two kinds is two distinct diagnostics", () => {
    // D4
    const { sink, appended } = recordingSink();
    sink.report("unresolved-range", "b5", "x");
    sink.report("range-id-mismatch", "b5", "y");
    expect(appended.map((a) => a.customType)).toEqual([CUSTOM_TYPE_DIAGNOSTIC, CUSTOM_TYPE_DIAGNOSTIC]);
    expect(sink.counts()["unresolved-range"]).toBe(1);
    expect(sink.counts()["range-id-mismatch"]).toBe(1);
  });

  test("a failing append is logged, not counted and never thrown", () => {
    // D6
    withSilencedConsoleError((spy) => {
      const sink = new DiagnosticSink(() => {
        throw new Error("stale ctx");
      });
      expect(() => sink.report("orphan-sweep", "k", "d")).not.toThrow();
      expect(spy).toHaveBeenCalled();
      expect(String(spy.mock.calls[0]![0])).toBe("pruner: failed to persist orphan-sweep diagnostic:");
      expect(sink.counts()["orphan-sweep"]).toBe(0);
    });
  });

  test("a failed write is retried by a later report of the same key", () => {
    // D7
    withSilencedConsoleError(() => {
      let fail = true;
      const appended: unknown[] = [];
      const sink = new DiagnosticSink((_type, data) => {
        if (fail) throw new Error("boom");
        appended.push(data);
      });
      sink.report("unresolved-range", "b5", "d");
      expect(sink.counts()["unresolved-range"]).toBe(0);
      expect(appended.length).toBe(0);
      fail = false;
      sink.report("unresolved-range", "b5", "d");
      expect(sink.counts()["unresolved-range"]).toBe(1);
      expect(appended.length).toBe(1);
    });
  });

  test("backfill-empty reports dedup like any other kind", () => {
    // D11
    const { sink, appended } = recordingSink();
    sink.report("backfill-empty", "1000", "middles=2");
    sink.report("backfill-empty", "1000", "middles=2");
    expect(sink.counts()["backfill-empty"]).toBe(1);
    expect(appended).toEqual([{ customType: CUSTOM_TYPE_DIAGNOSTIC, data: { kind: "backfill-empty", detail: "middles=2" } }]);
  });
});

describe("DiagnosticSink.counts", () => {
  test("a fresh sink has all four kinds at zero and counts a report", () => {
    // D5
    const { sink } = recordingSink();
    expect(sink.counts()).toEqual({ "unresolved-range": 0, "range-id-mismatch": 0, "orphan-sweep": 0, "backfill-empty": 0 });
    sink.report("orphan-sweep", "abc", "swept 1 orphan toolResult(s): x");
    expect(sink.counts()).toEqual({ "unresolved-range": 0, "range-id-mismatch": 0, "orphan-sweep": 1, "backfill-empty": 0 });
  });

  test("mutating the returned object does not change the sink", () => {
    // D8
    const { sink } = recordingSink();
    sink.report("orphan-sweep", "k", "d");
    const counts = sink.counts();
    counts["orphan-sweep"] = 99;
    counts["unresolved-range"] = 7;
    expect(sink.counts()["orphan-sweep"]).toBe(1);
    expect(sink.counts()["unresolved-range"]).toBe(0);
  });
});

describe("DiagnosticSink.reset", () => {
  test("zeroes every counter", () => {
    // D9
    const { sink } = recordingSink();
    sink.report("orphan-sweep", "k", "d");
    sink.report("range-id-mismatch", "b1", "d");
    sink.reset();
    expect(sink.counts()).toEqual({ "unresolved-range": 0, "range-id-mismatch": 0, "orphan-sweep": 0, "backfill-empty": 0 });
  });

  test("forgets seen keys so the same key is written again", () => {
    // D10
    const { sink, appended } = recordingSink();
    sink.report("unresolved-range", "b5", "old detail");
    sink.reset();
    sink.report("unresolved-range", "b5", "new detail");
    expect(appended.map((a) => (a.data as any).detail)).toEqual(["old detail", "new detail"]);
    expect(sink.counts()["unresolved-range"]).toBe(1);
  });
});

describe("DiagnosticSink.reportArchiveMiss", () => {
  test("persists one archive-miss entry per key and counts it apart from the 2.9.1 kinds", () => {
    const written: Array<[string, unknown]> = [];
    const sink = new DiagnosticSink((type, data) => written.push([type, data]));
    sink.reportArchiveMiss("c1@5", "ref=t1 no record");
    sink.reportArchiveMiss("c1@5", "ref=t1 no record");
    sink.reportArchiveMiss("c2@6", "ref=t2 the archived text differs");
    expect(written).toEqual([
      [CUSTOM_TYPE_DIAGNOSTIC, { kind: "archive-miss", detail: "ref=t1 no record" }],
      [CUSTOM_TYPE_DIAGNOSTIC, { kind: "archive-miss", detail: "ref=t2 the archived text differs" }],
    ]);
    expect(sink.archiveMisses()).toBe(2);
    expect(sink.counts()).toEqual({ "unresolved-range": 0, "range-id-mismatch": 0, "orphan-sweep": 0, "backfill-empty": 0 });
  });

  test("a reset clears the count", () => {
    const sink = new DiagnosticSink(() => {});
    sink.reportArchiveMiss("k", "d");
    sink.reset();
    expect(sink.archiveMisses()).toBe(0);
  });
});
