import { describe, expect, mock, test } from "bun:test";
import { flushNotice } from "./command-actions.js";
import { helpText } from "./command-help.js";
import { registerCommands } from "./commands.js";
import { DEFAULT_CONFIG } from "../settings/config-shape.js";

// `/pruner now`, `/pruner compact` and `/pruner tree`, driven through registerCommands.
// None of these save config, so no agent dir is needed.

const ZERO_STATS = { callCount: 0, totalInputTokens: 0, totalOutputTokens: 0, totalCost: 0 };

function call(id: string, text: string) {
  return { toolCallId: id, toolName: "read", args: {}, resultText: text, isError: false, resultTimestamp: 1 };
}

function batch(turnIndex: number, calls: ReturnType<typeof call>[]) {
  return { turnIndex, timestamp: turnIndex * 10, assistantText: "", toolCalls: calls };
}

function harness(options: any = {}) {
  let spec: any;
  const pi = { registerCommand: (_n: string, s: any) => (spec = s), registerMessageRenderer: () => {} } as any;
  const box = { value: { ...DEFAULT_CONFIG, enabled: true, ...options.config } };
  const flushPending = mock(options.flush ?? (async () => ({ ok: false, reason: "empty" })));
  const capture = mock(options.capture ?? (() => []));
  const compact = mock(options.compact ?? (async () => ({ compressedEntries: [], kept: { alreadyCompressed: 0, underWay: 0, noToolCalls: 0, readBack: 0, nothingArchivable: 0 } })));
  registerCommands(pi, box, flushPending, capture, () => ZERO_STATS as any, () => undefined, options.indexer ?? ({} as any), compact, undefined, undefined, undefined, undefined);
  return { box, flushPending, capture, compact, run: (args: string, ctx: any) => spec.handler(args, ctx) };
}

function uiRecorder(extra: Record<string, unknown> = {}) {
  const events: any[] = [];
  const notes: Array<[string, string | undefined]> = [];
  const ui = {
    notify: (m: string, t?: string) => {
      notes.push([m, t]);
      events.push(["notify", m]);
    },
    setStatus: (id: string, text?: string) => events.push(["setStatus", id, text]),
    setWidget: (id: string, content: unknown, opts?: unknown) => events.push(["setWidget", id, content, opts]),
    ...extra,
  };
  return { ctx: { ui } as any, events, notes };
}

const NOTHING_KEPT = { alreadyCompressed: 0, underWay: 0, noToolCalls: 0, readBack: 0, nothingArchivable: 0 };

describe("/pruner now", () => {
  test("its help promises live progress only while a summarizer call runs, since a run that needs none ends at once (issue 45, point 20)", () => {
    const row = helpText().replace(/\s+/g, " ");
    expect(row).toContain("/pruner now Summarize the waiting tool outputs right away; each summarizer call shows live progress while it runs");
    expect(row).not.toContain("right away, with live progress");
  });

  test("an empty capture still runs one manual flush after the nothing-pending notice (#1)", async () => {
    const h = harness();
    const notes: unknown[][] = [];
    const ctx = { ui: { notify: (...args: unknown[]) => notes.push(args) } } as any;
    await h.run("now", ctx);
    expect(h.flushPending).toHaveBeenCalledTimes(1);
    expect(h.flushPending.mock.calls[0]![1]).toMatchObject({ previewedBatches: [], trigger: "manual" });
    expect(notes[0]![0]).toBe("pruner: nothing to summarize yet");
    expect(notes).toHaveLength(1);
  });

  test("while disabled it warns and captures nothing (#28)", async () => {
    const h = harness({ config: { enabled: false } });
    const { ctx, notes } = uiRecorder();
    await h.run("now", ctx);
    expect(notes).toEqual([["Context pruning is disabled. Run /pruner on first.", "warning"]]);
    expect(h.capture).not.toHaveBeenCalled();
    expect(h.flushPending).not.toHaveBeenCalled();
  });

  test("two batches flushed show progress rows, clear the widget, refresh status and leave the report to the flush (#27)", async () => {
    const batches = [batch(1, [call("a", "x".repeat(300)), call("b", "y".repeat(200))]), batch(2, [call("c", "z".repeat(400))])];
    const rendered: string[][] = [];
    let renderWidget: ((width: number) => string[]) | undefined;
    const { ctx, events, notes } = uiRecorder({
      setWidget: (id: string, content: any, opts?: unknown) => {
        events.push(["setWidget", id, typeof content, opts]);
        if (typeof content === "function") renderWidget = content({ requestRender: () => {} }, {}).render;
      },
    });
    const flush = async (_ctx: unknown, options: any) => {
      rendered.push(renderWidget!(120));
      options.onProgress(0, 2, batches[0], "start");
      options.onBatchTextProgress(0, 2, batches[0], 42);
      rendered.push(renderWidget!(120));
      options.onProgress(0, 2, batches[0], "done");
      options.onProgress(1, 2, batches[1], "skipped");
      rendered.push(renderWidget!(120));
      return { ok: true, reason: "flushed", batchCount: 2, toolCallCount: 3, rawCharCount: 900, summaryCharCount: 120 };
    };
    const h = harness({ capture: () => batches, flush });
    await h.run("now", ctx);

    expect(events[0]).toEqual(["setWidget", "context-prune-progress", "function", { placement: "aboveEditor" }]);
    expect(rendered[0]).toEqual(["○ Batch 1/2 · 2 tool calls · pending", "○ Batch 2/2 · 1 tool call · pending"]);
    expect(rendered[1]![0]).toMatch(/^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] Batch 1\/2 · 2 tool calls · 42 summary chars \/ 500 raw chars$/);
    expect(rendered[2]).toEqual(["✓ Batch 1/2 · 2 tool calls · 42 summary chars / 500 raw chars", "⚠ Batch 2/2 · 1 tool call · skipped"]);
    expect(events.slice(1).map((e) => e.slice(0, 3))).toEqual([
      ["setWidget", "context-prune-progress", "undefined"],
      ["setStatus", "context-prune", "│ prune: ON"],
    ]);
    // The flush itself ends with the line saying what it did; the command adds no second one.
    expect(notes).toEqual([]);
  });

  test("the non-empty flush passes the previewed batches and progress callbacks without a trigger", async () => {
    const batches = [batch(1, [call("a", "x")])];
    const h = harness({ capture: () => batches, flush: async () => ({ ok: false, reason: "empty" }) });
    await h.run("now", uiRecorder().ctx);
    const options = h.flushPending.mock.calls[0]![1] as any;
    expect(options.previewedBatches).toBe(batches);
    expect(typeof options.onProgress).toBe("function");
    expect(typeof options.onBatchTextProgress).toBe("function");
    expect(options.trigger).toBeUndefined();
    expect(options.delivery).toBeUndefined();
  });

  test("a throwing flush still clears the widget and reports an error", async () => {
    const h = harness({
      capture: () => [batch(1, [call("a", "x")])],
      flush: async () => {
        throw new Error("provider down");
      },
    });
    const { ctx, events, notes } = uiRecorder();
    await h.run("now", ctx);
    expect(events.some((e) => e[0] === "setWidget" && e[2] === undefined)).toBe(true);
    expect(notes).toEqual([["pruner: command failed: provider down", "error"]]);
  });
});

describe("flush result notices", () => {
  test("a failure names what went wrong and the error, as a warning", () => {
    expect(flushNotice({ ok: false, reason: "summarizer-failed", error: "boom" })).toEqual({
      message: "pruner: the summarizer could not summarize anything (boom)",
      type: "warning",
    });
  });

  test("an empty result is informational", () => {
    expect(flushNotice({ ok: false, reason: "empty" })).toEqual({ message: "pruner: nothing to summarize yet", type: "info" });
  });

  test("a flush that did something adds nothing: it ends with its own line", () => {
    const base = { ok: true as const, batchCount: 1, toolCallCount: 2, rawCharCount: 800, summaryCharCount: 900 };
    for (const reason of ["flushed", "skipped-oversized", "skipped-trivial", "skipped-deduped"] as const) {
      expect(flushNotice({ ...base, reason })).toBeUndefined();
    }
  });

  test("an unknown reason is shown as it is", () => {
    expect(flushNotice({ ok: false, reason: "odd" as any })!.message).toBe("pruner: odd");
  });
});

describe("/pruner compact", () => {
  test("nothing left to compress names why each remaining prompt stays whole (#29, issue 28)", async () => {
    const kept = { alreadyCompressed: 3, underWay: 1, noToolCalls: 1, readBack: 2, nothingArchivable: 1 };
    const h = harness({ config: { recoveryGraceTurns: 3 }, compact: async () => ({ compressedEntries: [], kept }) });
    const { ctx, notes } = uiRecorder();
    await h.run("compact", ctx);
    expect(notes).toEqual([
      [
        "pruner: no earlier prompt's work left to compress: 3 prompts already compressed; " +
          "2 prompts holding an output read back recently (kept whole for your next 3 prompts after the read); " +
          "1 prompt whose outputs are protected or could not be archived; 1 prompt with no tool output to compress; 1 prompt still under way",
        "info",
      ],
    ]);
  });

  test("nothing on the branch to compress reads the bare notice", async () => {
    const { ctx, notes } = uiRecorder();
    await harness().run("compact", ctx);
    expect(notes).toEqual([["pruner: no earlier prompt's work left to compress", "info"]]);
  });

  test("compressed prompts are named by their places and the footer's own change of the next request is given, even while disabled (issue 36, point 1; issue 45, point 12)", async () => {
    const entries = [{ blockId: "b1", droppedToolCallIds: ["a"] }, { blockId: "b2", droppedToolCallIds: ["b"] }];
    const compact = async () => ({ compressedEntries: entries, prompts: [1, 2], kept: NOTHING_KEPT, archived: 0, tokensFewer: 3400 });
    const { ctx, notes } = uiRecorder();
    await harness({ config: { enabled: false }, compact }).run("compact", ctx);
    expect(notes).toEqual([["pruner: compressed the work of 2 earlier prompts (prompts 1 and 2) into one summary block each; the next request is about 3.4k tokens smaller", "info"]]);
  });

  test("outputs archived by the compaction are counted, and a compaction of stubs only says the request is no smaller (issue 36, point 5)", async () => {
    const compact = async () => ({ compressedEntries: [{ blockId: "b4", droppedToolCallIds: ["a"] }], prompts: [4], kept: NOTHING_KEPT, archived: 2, tokensFewer: 0 });
    const { ctx, notes } = uiRecorder();
    await harness({ compact }).run("compact", ctx);
    expect(notes).toEqual([
      ["pruner: compressed the work of 1 earlier prompt (prompt 4) into one summary block, archiving 2 outputs in it without a summary; the next request is no smaller (its outputs were stubs already)", "info"],
    ]);
  });

  test("a compaction failure is a warning", async () => {
    const h = harness({
      compact: async () => {
        throw new Error("disk full");
      },
    });
    const { ctx, notes } = uiRecorder();
    await h.run("compact", ctx);
    expect(notes).toEqual([["pruner: compact failed: disk full", "warning"]]);
  });
});

describe("/pruner tree", () => {
  test("a branch without summaries says so", async () => {
    const { ctx, notes } = uiRecorder();
    ctx.sessionManager = { getBranch: () => [{ type: "message", message: { role: "user" } }] };
    await harness().run("tree", ctx);
    expect(notes).toEqual([["No summarized tool outputs in this session yet.", "info"]]);
  });

  test("summaries open the tree browser as a centered overlay that q closes", async () => {
    const indexer = { getRecord: () => ({ toolCallId: "a", toolName: "read", args: {}, resultText: "abc", isError: false }) };
    const branch = [
      { type: "message", message: { role: "user", content: "read it", timestamp: 1 } },
      { type: "custom_message", customType: "context-prune-summary", content: "sum", details: { toolCallRefs: [{ shortId: "t1", toolCallId: "a" }] } },
    ];
    let options: any;
    let closed = false;
    const custom = async (factory: any, opts: any) => {
      options = opts;
      const theme = { fg: (_c: string, s: string) => s, bg: (_c: string, s: string) => s };
      const kb = { matches: (data: string, id: string) => id === "tui.select.cancel" && data === "\x1b" };
      const component = factory({ terminal: { rows: 24, columns: 80 } }, theme, kb, () => (closed = true));
      expect(component.render(80).join("\n")).toContain("→ ▸ read it");
      component.handleInput("q");
    };
    const { ctx } = uiRecorder({ custom });
    ctx.sessionManager = { getBranch: () => branch };
    await harness({ indexer }).run("tree", ctx);
    expect(options).toEqual({ overlay: true, overlayOptions: { width: "100%", maxHeight: "80%", anchor: "center" } });
    expect(closed).toBe(true);
  });
});
