import { beforeAll, describe, expect, test } from "bun:test";
import { initTheme } from "@earendil-works/pi-coding-agent";
import { buildPruneTree, TreeBrowser } from "./tree-browser.js";
import type { TreeNode } from "./tree-browser.js";

const ENTER = "\r";
const DOWN = "\x1b[B";
const UP = "\x1b[A";
const ESC = "\x1b";
const CTRL_O = "\x0f";

beforeAll(() => {
  initTheme("dark");
});

const SEL_ON = "\x1b[7m";
const SEL_OFF = "\x1b[27m";
const plainTheme = { fg: (_c: string, s: string) => s, bg: (_c: string, s: string) => `${SEL_ON}${s}${SEL_OFF}` } as any;
const ANSI = /\x1b\[[0-9;]*m|\x1b\]8;;\x07/g;
const strip = (lines: string[]) => lines.map((l) => l.replace(ANSI, ""));
/** Marks the selected row with brackets so assertions can see the selection. */
const show = (line: string) => line.replace(SEL_ON, "[").replace(SEL_OFF, "]").replace(ANSI, "");

function record(id: string, patch: Record<string, unknown> = {}) {
  return { toolCallId: id, toolName: "read", args: { path: `/src/${id}.ts` }, resultText: "x".repeat(1500), isError: false, turnIndex: 1, timestamp: 1, ...patch };
}

function summaryEntry(refs: Array<{ shortId: string; toolCallId: string; resultTimestamp?: number }>, content = "## Summary\n- did things", extra = {}) {
  return { type: "custom_message", customType: "context-prune-summary", content, details: { toolCallRefs: refs, turnIndex: 4, ...extra } };
}

function ctxWith(branch: unknown[]) {
  return { sessionManager: { getBranch: () => branch } } as any;
}

function indexerOf(records: Record<string, any>) {
  const lookups: string[] = [];
  return { lookups, getRecord: (key: string) => (lookups.push(key), records[key]) } as any;
}

function twoLeafTree(): TreeNode[] {
  const indexer = indexerOf({ "a@10": record("a"), "b@11": record("b", { resultText: "tiny" }) });
  const entry = summaryEntry([
    { shortId: "t1", toolCallId: "a", resultTimestamp: 10 },
    { shortId: "t2", toolCallId: "b", resultTimestamp: 11 },
  ]);
  return buildPruneTree(ctxWith([entry]), indexer);
}

describe("buildPruneTree", () => {
  test("one summary whose refs resolve to two records gives one collapsed root with two leaves (#30)", () => {
    const roots = twoLeafTree();
    expect(roots).toHaveLength(1);
    const root = roots[0]!;
    expect(root).toMatchObject({ id: "summary-0", expanded: false, depth: 0, isLeaf: false, charCount: 23, detail: "## Summary\n- did things" });
    expect(root.label).toBe("[pruner] Turn 4 summary (2 tools · 23 chars · original 1.5k)");
    expect(root.children.map((c) => c.label)).toEqual(['read(path="/src/a.ts") · 1.5k chars', 'read(path="/src/b.ts") · 4 chars']);
    expect(root.children.every((c) => c.isLeaf && c.depth === 1 && !c.expanded)).toBe(true);
  });

  test("refs are resolved by occurrence key, and legacy ids by bare id", () => {
    const indexer = indexerOf({ "a@10": record("a"), legacy: record("legacy") });
    const branch = [
      summaryEntry([{ shortId: "t1", toolCallId: "a", resultTimestamp: 10 }]),
      { type: "custom_message", customType: "context-prune-summary", content: "old", details: { toolCallIds: ["legacy"] } },
    ];
    const roots = buildPruneTree(ctxWith(branch), indexer);
    expect(indexer.lookups).toEqual(["a@10", "legacy"]);
    expect(roots.map((r) => r.id)).toEqual(["summary-0", "summary-1"]);
    expect(roots[1]!.label).toStartWith("[pruner] Turn ? summary (1 tool ·");
  });

  test("unresolved refs make the root a leaf (#31)", () => {
    const roots = buildPruneTree(ctxWith([summaryEntry([{ shortId: "t1", toolCallId: "gone" }])]), indexerOf({}));
    expect(roots[0]!.isLeaf).toBe(true);
    expect(roots[0]!.children).toEqual([]);
    expect(roots[0]!.label).toContain("(0 tools · ");
  });

  test("other entries are ignored", () => {
    const branch = [
      { type: "message", message: { role: "user" } },
      { type: "custom", customType: "context-prune-summary", data: {} },
      { type: "custom_message", customType: "other", content: "x" },
    ];
    expect(buildPruneTree(ctxWith(branch), indexerOf({}))).toEqual([]);
  });

  test("spilled, errored and previewed leaves get their unit, marker and collapsed preview", () => {
    const spilled = record("s", { resultText: "", spillBytes: 70000, resultPreview: "head\n\n   of   file" });
    const failed = record("e", { isError: true, args: { cmd: "ls", n: 2 }, resultText: `${"word ".repeat(60)}` });
    const roots = buildPruneTree(
      ctxWith([summaryEntry([{ shortId: "t1", toolCallId: "s" }, { shortId: "t2", toolCallId: "e" }])]),
      indexerOf({ s: spilled, e: failed }),
    );
    const [leafS, leafE] = roots[0]!.children;
    expect(leafS!.label).toBe('read(path="/src/s.ts") · 70.0k bytes');
    expect(leafS!.detail).toBe("head of file");
    expect(leafS!.charCount).toBe(70000);
    expect(leafE!.label).toBe('read(cmd="ls", n=2) · 300 chars [error]');
    expect(leafE!.detail).toHaveLength(200);
    expect(leafE!.id).toBe("e");
  });

  test("a summary timestamp is appended as a local date", () => {
    const ts = Date.UTC(2025, 0, 2, 3, 4, 5);
    const roots = buildPruneTree(ctxWith([summaryEntry([], "s", { timestamp: ts })]), indexerOf({}));
    expect(roots[0]!.label).toEndWith(` · ${new Date(ts).toLocaleString()}`);
  });

  test("non-string content counts as zero chars and has no detail", () => {
    const entry = { type: "custom_message", customType: "context-prune-summary", content: [{ type: "text", text: "x" }], details: {} };
    const roots = buildPruneTree(ctxWith([entry]), indexerOf({}));
    expect(roots[0]!.label).toContain("· 0 chars ·");
    expect(roots[0]!.detail).toBeUndefined();
  });
});

describe("TreeBrowser", () => {
  test("renders a titled box with the hint line and collapsed roots", () => {
    const lines = new TreeBrowser(twoLeafTree(), plainTheme, () => {}).render(70);
    expect(lines[0]).toBe(`┌─ Pruned Tool Calls ${"─".repeat(48)}┐`);
    expect(lines[1]).toBe(`│${"Enter/Space expand • Ctrl-O open summary • Esc/q close".padEnd(68)}│`);
    expect(lines[2]).toBe(`│${" ".repeat(68)}│`);
    expect(show(lines[3]!)).toBe(`│[${"▸ [pruner] Turn 4 summary (2 tools · 23 chars · original 1.5k)".padEnd(68)}]│`);
    expect(lines.at(-1)).toBe(`└${"─".repeat(68)}┘`);
    expect(lines).toHaveLength(5);
  });

  test("an empty tree shows the muted placeholder", () => {
    const lines = new TreeBrowser([], plainTheme, () => {}).render(50);
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain("(no pruned tool calls in this session)");
  });

  test("Enter expands the root and shows its leaves indented (#30)", () => {
    const browser = new TreeBrowser(twoLeafTree(), plainTheme, () => {});
    browser.handleInput(ENTER);
    const lines = browser.render(70);
    expect(lines[3]).toContain("▾ [pruner] Turn 4");
    expect(lines[4]).toBe(`│    ${'read(path="/src/a.ts") · 1.5k chars'.padEnd(64)}│`);
    expect(lines[5]).toContain('    read(path="/src/b.ts") · 4 chars');
    browser.handleInput(" ");
    expect(browser.render(70)).toHaveLength(5);
  });

  test("up and down wrap around the visible rows", () => {
    const browser = new TreeBrowser(twoLeafTree(), plainTheme, () => {});
    browser.handleInput(ENTER);
    browser.handleInput(UP);
    expect(show(browser.render(70)[5]!)).toStartWith("│[");
    browser.handleInput(DOWN);
    expect(show(browser.render(70)[3]!)).toStartWith("│[");
  });

  test("Enter on a leaf does nothing", () => {
    const browser = new TreeBrowser(twoLeafTree(), plainTheme, () => {});
    browser.handleInput(ENTER);
    browser.handleInput(DOWN);
    browser.handleInput(ENTER);
    expect(browser.render(70)).toHaveLength(7);
  });

  test("long labels are truncated with an ellipsis to the inner width", () => {
    const roots = twoLeafTree();
    const lines = new TreeBrowser(roots, plainTheme, () => {}).render(30);
    expect(show(lines[3]!)).toBe("│[▸ [pruner] Turn 4 summary (…]│");
    for (const line of lines) expect(Bun.stringWidth(line)).toBe(30);
  });

  test("Ctrl-O opens the summary overlay, q closes it, a second q finishes (#30)", () => {
    let done = 0;
    const browser = new TreeBrowser(twoLeafTree(), plainTheme, () => done++);
    browser.handleInput(CTRL_O);
    const open = strip(browser.render(80));
    expect(open.some((l) => l.includes("─ Pruned Summary "))).toBe(true);
    expect(open.some((l) => l.includes("Pruned summary message"))).toBe(true);
    expect(open.some((l) => l.includes("did things"))).toBe(true);
    expect(open.some((l) => l.includes("↑/↓ scroll • Ctrl-O/Esc/q close"))).toBe(true);
    for (const line of browser.render(80)) expect(Bun.stringWidth(line)).toBe(80);
    browser.handleInput("q");
    expect(done).toBe(0);
    expect(strip(browser.render(80)).some((l) => l.includes("Pruned Summary"))).toBe(false);
    browser.handleInput("q");
    expect(done).toBe(1);
  });

  test("Ctrl-O on a root without resolved children does nothing (#31)", () => {
    const roots = buildPruneTree(ctxWith([summaryEntry([{ shortId: "t1", toolCallId: "gone" }])]), indexerOf({}));
    const browser = new TreeBrowser(roots, plainTheme, () => {});
    const before = browser.render(80);
    browser.handleInput(CTRL_O);
    expect(browser.render(80)).toEqual(before);
  });

  test("while the overlay is open other keys do not reach the tree", () => {
    let done = 0;
    const browser = new TreeBrowser(twoLeafTree(), plainTheme, () => done++);
    browser.handleInput(CTRL_O);
    browser.handleInput(ENTER);
    browser.handleInput(ESC);
    expect(done).toBe(0);
    expect(browser.render(80)).toHaveLength(5);
  });

  test("a long summary scrolls and reports its range", () => {
    const body = Array.from({ length: 40 }, (_, i) => `line ${i + 1}`).join("\n\n");
    const indexer = indexerOf({ a: record("a") });
    const roots = buildPruneTree(ctxWith([summaryEntry([{ shortId: "t1", toolCallId: "a" }], body)]), indexer);
    const browser = new TreeBrowser(roots, plainTheme, () => {});
    browser.handleInput(CTRL_O);
    const first = strip(browser.render(80)).join("\n");
    // visible height = max(12, min(markdown lines, base lines + 8)) = 5 + 8
    expect(first).toMatch(/• 1-13 \/ \d+/);
    browser.handleInput(DOWN);
    browser.handleInput(DOWN);
    expect(strip(browser.render(80)).join("\n")).toMatch(/• 3-15 \/ \d+/);
    for (let i = 0; i < 500; i++) browser.handleInput(DOWN);
    const total = Number(/\/ (\d+)/.exec(strip(browser.render(80)).join("\n"))![1]);
    browser.handleInput(UP);
    expect(strip(browser.render(80)).join("\n")).toContain(`• ${total - 13}-${total - 1} / ${total}`);
  });

  test("the global keybindings are used when none are passed, injected ones otherwise", () => {
    let done = 0;
    const kb = { matches: (data: string, id: string) => id === "tui.select.cancel" && data === "x" };
    const browser = new TreeBrowser(twoLeafTree(), plainTheme, () => done++, kb);
    browser.handleInput(ESC);
    expect(done).toBe(0);
    browser.handleInput("x");
    expect(done).toBe(1);
    const defaults = new TreeBrowser(twoLeafTree(), plainTheme, () => done++);
    defaults.handleInput(ESC);
    expect(done).toBe(2);
  });
});
