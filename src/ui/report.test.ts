import { describe, expect, test } from "bun:test";
import { registerReportRenderer, renderReportEntry, showReport } from "./report.js";
import { CUSTOM_TYPE_REPORT } from "../names.js";

function recorder(mode: string) {
  const entries: Array<[string, unknown]> = [];
  const notices: Array<[string, string | undefined]> = [];
  const pi = { appendEntry: (type: string, data: unknown) => entries.push([type, data]) };
  const ctx = { mode, ui: { notify: (text: string, level?: string) => notices.push([text, level]) } } as any;
  return { pi, ctx, entries, notices };
}

const theme = { fg: (color: string, text: string) => `<${color}>${text}` } as any;

describe("showReport", () => {
  test("in the TUI a report is a chat entry, not a notice the next one replaces", () => {
    const r = recorder("tui");
    showReport(r.pi, r.ctx, "pruner: summarized 2 tool outputs");
    expect(r.entries).toEqual([[CUSTOM_TYPE_REPORT, { text: "pruner: summarized 2 tool outputs", level: "info" }]]);
    expect(r.notices).toEqual([]);
  });

  test("in RPC mode it stays a notice for the client", () => {
    const r = recorder("rpc");
    showReport(r.pi, r.ctx, "pruner status:\n  pruning: on", "warning");
    expect(r.notices).toEqual([["pruner status:\n  pruning: on", "warning"]]);
    expect(r.entries).toEqual([]);
  });

  test("a failing session write never reaches the caller", () => {
    const r = recorder("tui");
    const pi = {
      appendEntry: () => {
        throw new Error("stale");
      },
    };
    const errors: unknown[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => errors.push(args);
    try {
      expect(() => showReport(pi, r.ctx, "x")).not.toThrow();
    } finally {
      console.error = original;
    }
    expect(errors).toHaveLength(1);
  });
});

describe("the report renderer", () => {
  test("draws the first line as the headline and the rest muted", () => {
    const text = renderReportEntry({ data: { text: "pruner status:\n  pruning: on", level: "info" } }, { expanded: false } as any, theme);
    expect(text!.render(80).join("\n")).toContain("<accent>pruner status:");
    expect(text!.render(80).join("\n")).toContain("<muted>  pruning: on");
  });

  test("lays the text out anew for each width, keeping command columns", () => {
    const text = "pruner help:\n  /pruner on        Turn pruning on\n  /pruner report    " + "Replay the session in tokens and dollars ".repeat(2).trim();
    const view = renderReportEntry({ data: { text, level: "info" } }, { expanded: false } as any, { fg: (_c: string, t: string) => t } as any)!;
    expect(view.render(80).every((line) => line.length <= 80)).toBe(true);
    expect(view.render(80)[1]).toBe("   /pruner on      Turn pruning on");
    expect(view.render(80)[3]).toMatch(/^ {19}\S/);
    expect(view.render(120)[2]).toBe(`   /pruner report    ${"Replay the session in tokens and dollars ".repeat(2).trim()}`);
  });

  test("a path alone on its line stays on its own rows and links every piece to the whole file where links work", () => {
    const path = `/tmp/${"d".repeat(90)}/s.report.html`;
    const data = { data: { text: `pruner report:\n  HTML report:\n${path}`, level: "info" } };
    const plain = { fg: (_c: string, t: string) => t } as any;
    const linked = renderReportEntry(data, { expanded: false } as any, plain, () => true)!.render(80);
    expect(linked).toHaveLength(4);
    for (const row of linked.slice(2)) expect(row).toContain(`\x1b]8;;file://${path}\x1b\\`);
    expect(linked.slice(2).map((row) => row.replace(/\x1b\]8;;[^\x1b]*\x1b\\/g, "").trim()).join("")).toBe(path);
    const bare = renderReportEntry(data, { expanded: false } as any, plain, () => false)!.render(80);
    expect(bare.join("\n")).not.toContain("\x1b");
    expect(bare.slice(2).map((row) => row.trim()).join("")).toBe(path);
  });

  test("a warning headline uses the warning colour", () => {
    const text = renderReportEntry({ data: { text: "pruner: set aside", level: "warning" } }, { expanded: false } as any, theme);
    expect(text!.render(80).join("\n")).toContain("<warning>pruner: set aside");
  });

  test("a malformed entry from a hand-edited session draws nothing", () => {
    for (const data of [undefined, null, 42, { text: 7 }, { text: "" }, { level: "info" }]) {
      expect(renderReportEntry({ data }, { expanded: false } as any, theme)).toBeUndefined();
    }
  });

  test("is registered for the report entry type and never throws", () => {
    const renderers = new Map<string, any>();
    registerReportRenderer({ registerEntryRenderer: (type: string, fn: any) => renderers.set(type, fn) } as any);
    const render = renderers.get(CUSTOM_TYPE_REPORT)!;
    const original = console.error;
    console.error = () => {};
    try {
      expect(render({ data: { text: "x" } }, {}, null)?.render(80) ?? []).toEqual([]);
    } finally {
      console.error = original;
    }
  });
});
