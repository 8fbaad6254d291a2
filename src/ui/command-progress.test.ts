import { describe, expect, spyOn, test } from "bun:test";
import { buildProgressRows, openProgressWidget, renderProgressRow, SPINNER_FRAMES } from "./command-progress.js";

function batch(texts: string[]) {
  return {
    turnIndex: 0,
    timestamp: 0,
    assistantText: "",
    toolCalls: texts.map((t, i) => ({ toolCallId: `c${i}`, toolName: "read", args: {}, resultText: t, isError: false })),
  };
}

function openWidget(batches = [batch(["aaaa", "bb"]), batch(["c"])], now = () => 0) {
  const widgetCalls: unknown[][] = [];
  let renderCount = 0;
  let component: any;
  const ctx = {
    ui: {
      setWidget: (...args: any[]) => {
        widgetCalls.push(args);
        if (typeof args[1] === "function") component = args[1]({ requestRender: () => renderCount++ }, {});
      },
    },
  } as any;
  const widget = openProgressWidget(ctx, batches, now);
  return { widget, widgetCalls, component, renders: () => renderCount };
}

describe("progress rows", () => {
  test("rows carry label, tool-call count and raw chars, all pending", () => {
    expect(buildProgressRows([batch(["aaaa", "bb"]), batch(["c"])])).toEqual([
      { label: "Batch 1/2", toolCallCount: 2, rawChars: 6, status: "pending", receivedChars: 0 },
      { label: "Batch 2/2", toolCallCount: 1, rawChars: 1, status: "pending", receivedChars: 0 },
    ]);
  });

  test("each status renders its own glyph and tail", () => {
    const row = { label: "Batch 1/3", toolCallCount: 1, rawChars: 8400, status: "pending" as const, receivedChars: 0 };
    expect(renderProgressRow(row, 0)).toBe("○ Batch 1/3 · 1 tool call · pending");
    expect(renderProgressRow({ ...row, status: "running" }, 0)).toBe("⠋ Batch 1/3 · 1 tool call");
    expect(renderProgressRow({ ...row, status: "running", receivedChars: 1200 }, 0)).toBe(
      "⠋ Batch 1/3 · 1 tool call · 1.2k summary chars / 8.4k raw chars",
    );
    expect(renderProgressRow({ ...row, status: "done", receivedChars: 1 }, 0)).toBe(
      "✓ Batch 1/3 · 1 tool call · 1 summary char / 8.4k raw chars",
    );
    expect(renderProgressRow({ ...row, status: "skipped" }, 0)).toBe("⚠ Batch 1/3 · 1 tool call · skipped");
  });

  test("the spinner frame advances every 120 ms and wraps after ten frames", () => {
    const row = { label: "Batch 1/1", toolCallCount: 2, rawChars: 0, status: "running" as const, receivedChars: 0 };
    expect(renderProgressRow(row, 119)[0]).toBe(SPINNER_FRAMES[0]);
    expect(renderProgressRow(row, 120)[0]).toBe(SPINNER_FRAMES[1]);
    expect(renderProgressRow(row, 1200)[0]).toBe(SPINNER_FRAMES[0]);
    expect(SPINNER_FRAMES.join(" ")).toBe("⠋ ⠙ ⠹ ⠸ ⠼ ⠴ ⠦ ⠧ ⠇ ⠏");
  });
});

describe("progress widget", () => {
  test("opens above the editor and renders one row per batch", () => {
    const { widgetCalls, component } = openWidget();
    expect(widgetCalls[0]![0]).toBe("context-prune-progress");
    expect(widgetCalls[0]![2]).toEqual({ placement: "aboveEditor" });
    expect(component.render(80)).toEqual(["○ Batch 1/2 · 2 tool calls · pending", "○ Batch 2/2 · 1 tool call · pending"]);
  });

  test("rows are truncated to the widget width", () => {
    const { component } = openWidget();
    for (const line of component.render(12)) expect(Bun.stringWidth(line)).toBeLessThanOrEqual(12);
  });

  test("updates request a render and only set received chars when given", () => {
    const { widget, component, renders } = openWidget();
    widget.updateRow(0, "running", 30);
    widget.updateRow(0, "done");
    expect(renders()).toBe(2);
    expect(component.render(100)[0]).toBe("✓ Batch 1/2 · 2 tool calls · 30 summary chars / 6 raw chars");
    widget.clearWidget();
  });

  test("out-of-range indexes are ignored", () => {
    const { widget, component, renders } = openWidget();
    widget.updateRow(5, "done", 10);
    widget.updateRow(-1, "done", 10);
    expect(renders()).toBe(0);
    expect(component.render(100)[0]).toStartWith("○");
  });

  test("a 120 ms unref'd timer runs only while a row is running", () => {
    const setSpy = spyOn(globalThis, "setInterval");
    const clearSpy = spyOn(globalThis, "clearInterval");
    try {
      const { widget } = openWidget();
      widget.updateRow(0, "running", 0);
      widget.updateRow(1, "running", 0);
      expect(setSpy).toHaveBeenCalledTimes(1);
      expect(setSpy.mock.calls[0]![1]).toBe(120);
      const timer = setSpy.mock.results[0]!.value as any;
      expect(timer.hasRef()).toBe(false);
      widget.updateRow(0, "done");
      expect(clearSpy).not.toHaveBeenCalled();
      widget.updateRow(1, "skipped");
      expect(clearSpy).toHaveBeenCalledTimes(1);
    } finally {
      setSpy.mockRestore();
      clearSpy.mockRestore();
    }
  });

  test("clearing stops the timer, drops the render hook and removes the widget", () => {
    const setSpy = spyOn(globalThis, "setInterval");
    const clearSpy = spyOn(globalThis, "clearInterval");
    try {
      const { widget, widgetCalls, renders } = openWidget();
      widget.updateRow(0, "running", 0);
      widget.clearWidget();
      expect(clearSpy).toHaveBeenCalledTimes(1);
      expect(widgetCalls[1]).toEqual(["context-prune-progress", undefined]);
      const before = renders();
      widget.updateRow(1, "running", 1);
      expect(renders()).toBe(before);
      expect(setSpy).toHaveBeenCalledTimes(1);
    } finally {
      setSpy.mockRestore();
      clearSpy.mockRestore();
    }
  });
});
