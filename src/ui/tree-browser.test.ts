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

/** No colours at all, like a terminal that shows no background: the selection must still show. */
const plainTheme = { fg: (_c: string, s: string) => s, bg: (_c: string, s: string) => s } as any;
const ANSI = /\x1b\[[0-9;]*m|\x1b\]8;;\x07/g;
const strip = (lines: string[]) => lines.map((l) => l.replace(ANSI, ""));

function record(id: string, patch: Record<string, unknown> = {}) {
  return { toolCallId: id, toolName: "read", args: { path: `/src/${id}.ts` }, resultText: "x".repeat(1500), isError: false, turnIndex: 1, timestamp: 1, ...patch };
}

type Ref = { shortId: string; toolCallId: string; resultTimestamp?: number };

function summaryEntry(refs: Ref[], content = "## Summary\n- did things", extra = {}) {
  return { type: "custom_message", customType: "context-prune-summary", content, details: { toolCallRefs: refs, turnIndex: 4, ...extra } };
}

const user = (text: unknown) => ({ type: "message", message: { role: "user", content: text, timestamp: 1 } });
const result = (toolCallId: string, timestamp: number) => ({ type: "message", message: { role: "toolResult", toolCallId, toolName: "read", content: [], isError: false, timestamp } });

function ctxWith(branch: unknown[]) {
  return { sessionManager: { getBranch: () => branch } } as any;
}

function indexerOf(records: Record<string, any>) {
  const lookups: string[] = [];
  return { lookups, getRecord: (key: string) => (lookups.push(key), records[key]) } as any;
}

const REFS: Ref[] = [
  { shortId: "t1", toolCallId: "a", resultTimestamp: 10 },
  { shortId: "t2", toolCallId: "b", resultTimestamp: 11 },
];

function twoLeafTree(): TreeNode[] {
  const indexer = indexerOf({ "a@10": record("a"), "b@11": record("b", { resultText: "tiny" }) });
  const branch = [user("Read the two source files please"), result("a", 10), result("b", 11), summaryEntry(REFS)];
  return buildPruneTree(ctxWith(branch), indexer);
}

function render(browser: TreeBrowser, width: number): string[] {
  return strip(browser.render(width));
}

describe("buildPruneTree", () => {
  test("a root is labelled by the prompt that led to its tool calls, with tools and sizes beside it (#30)", () => {
    const roots = twoLeafTree();
    expect(roots).toHaveLength(1);
    const root = roots[0]!;
    expect(root).toMatchObject({ id: "summary-0", expanded: false, depth: 0, isLeaf: false, charCount: 23 });
    expect(root.detail).toStartWith("## Summary\n- did things\n\n---\n**Summarized tool refs**: `t1`, `t2`\n");
    expect(root.label).toBe("Read the two source files please");
    expect(root.meta).toBe("read ×2 · 376 → 6 tokens");
    expect(root.facts).toBe("read ×2 · outputs 376 tokens → summary 6 tokens");
    expect(root.children.map((c) => [c.label, c.meta])).toEqual([
      ['t1 read(path="/src/a.ts")', "375 tokens"],
      ['t2 read(path="/src/b.ts")', "1 token"],
    ]);
    expect(root.children.every((c) => c.isLeaf && c.depth === 1 && !c.expanded)).toBe(true);
  });

  test("the prompt comes from the summarized results, not from where the summary was written", () => {
    const indexer = indexerOf({ "a@10": record("a"), "b@11": record("b") });
    const branch = [
      user("first question"),
      result("a", 10),
      user("second question"),
      result("b", 11),
      summaryEntry([REFS[0]!]),
      summaryEntry([REFS[1]!]),
    ];
    expect(buildPruneTree(ctxWith(branch), indexer).map((r) => r.label)).toEqual(["first question", "second question"]);
  });

  test("refs are resolved by occurrence key, and legacy ids by bare id", () => {
    const indexer = indexerOf({ "a@10": record("a"), legacy: record("legacy") });
    const branch = [
      user("look"),
      result("a", 10),
      result("legacy", 12),
      summaryEntry([REFS[0]!]),
      user("again"),
      { type: "custom_message", customType: "context-prune-summary", content: "old", details: { toolCallIds: ["legacy"] } },
    ];
    const roots = buildPruneTree(ctxWith(branch), indexer);
    expect(indexer.lookups).toEqual(["a@10", "legacy"]);
    expect(roots.map((r) => r.id)).toEqual(["summary-0", "summary-1"]);
    expect(roots.map((r) => r.label)).toEqual(["look", "look"]);
    expect(roots.map((r) => r.meta)).toEqual(["1 of 2 · read · 375 → 6 tokens", "2 of 2 · read · 375 → 1 token"]);
  });

  test("summaries of one prompt are numbered, the same words in another prompt are not", () => {
    const indexer = indexerOf({ "a@10": record("a"), "b@11": record("b"), "c@12": record("c") });
    const branch = [
      user("go"),
      result("a", 10),
      result("b", 11),
      summaryEntry([REFS[0]!]),
      summaryEntry([REFS[1]!]),
      user("go"),
      result("c", 12),
      summaryEntry([{ shortId: "t3", toolCallId: "c", resultTimestamp: 12 }]),
    ];
    const roots = buildPruneTree(ctxWith(branch), indexer);
    expect(roots.map((r) => r.meta!.split(" · ")[0])).toEqual(["1 of 2", "2 of 2", "read"]);
    expect(roots[0]!.facts).toStartWith("1 of 2 · read · outputs");
  });

  test("a run started by another extension's message is labelled by that message; pruner messages start nothing", () => {
    const indexer = indexerOf({ "a@10": record("a") });
    const branch = [
      user("typed prompt"),
      { type: "custom_message", customType: "steer", content: [{ type: "text", text: "Steered   run\nby hook" }] },
      { type: "custom_message", customType: "context-prune-chain-note", content: "pruner text" },
      result("a", 10),
      summaryEntry([REFS[0]!]),
    ];
    expect(buildPruneTree(ctxWith(branch), indexer)[0]!.label).toBe("Steered run by hook");
  });

  test("without the results on the branch the prompt before the summary is used, else a placeholder", () => {
    const indexer = indexerOf({ "a@10": record("a") });
    expect(buildPruneTree(ctxWith([user("earlier"), summaryEntry([REFS[0]!])]), indexer)[0]!.label).toBe("earlier");
    expect(buildPruneTree(ctxWith([summaryEntry([REFS[0]!])]), indexer)[0]!.label).toBe("(prompt not on this branch)");
    const images = [user([{ type: "image", data: "x", mimeType: "image/png" }]), summaryEntry([])];
    expect(buildPruneTree(ctxWith(images), indexer)[0]!.label).toBe("(prompt without text)");
  });

  test("a long prompt becomes one line of at most 200 chars", () => {
    const label = buildPruneTree(ctxWith([user(`start\n\n${"word ".repeat(100)}`), summaryEntry([])]), indexerOf({}))[0]!.label;
    expect(label).toHaveLength(200);
    expect(label).toStartWith("start word word");
    expect(label).toEndWith("…");
  });

  test("unresolved refs make the root a leaf (#31)", () => {
    const roots = buildPruneTree(ctxWith([user("q"), summaryEntry([{ shortId: "t1", toolCallId: "gone" }])]), indexerOf({}));
    expect(roots[0]!.isLeaf).toBe(true);
    expect(roots[0]!.children).toEqual([]);
    expect(roots[0]!.meta).toBe("no tool calls found · 0 → 6 tokens");
  });

  test("other entries are ignored", () => {
    const branch = [
      { type: "message", message: { role: "user" } },
      { type: "custom", customType: "context-prune-summary", data: {} },
      { type: "custom_message", customType: "other", content: "x" },
    ];
    expect(buildPruneTree(ctxWith(branch), indexerOf({}))).toEqual([]);
  });

  test("spilled, errored and previewed leaves get their ref, unit, marker and output", () => {
    const spilled = record("s", { resultText: "", spillBytes: 70000, resultPreview: "head\n\n   of   file" });
    const failed = record("e", { isError: true, args: { cmd: "ls", n: 2 }, resultText: `${"word ".repeat(60)}` });
    const roots = buildPruneTree(
      ctxWith([summaryEntry([{ shortId: "t1", toolCallId: "s" }, { shortId: "t2", toolCallId: "e" }])]),
      indexerOf({ s: spilled, e: failed }),
    );
    const [leafS, leafE] = roots[0]!.children;
    expect([leafS!.label, leafS!.meta]).toEqual(['t1 read(path="/src/s.ts")', "17.5k tokens"]);
    expect(leafS!.detail).toBe("head\n\n   of   file");
    expect(leafS!.facts).toStartWith("ref t1 · 17.5k tokens · its first lines");
    expect(leafS!.charCount).toBe(70000);
    expect([leafE!.label, leafE!.meta]).toEqual(['t2 read(cmd="ls", n=2)', "75 tokens · error"]);
    expect(leafE!.detail).toHaveLength(300);
    expect(leafE!.id).toBe("e");
  });

  test("a summary timestamp is shown as a local date in the summary facts", () => {
    const ts = Date.UTC(2025, 0, 2, 3, 4, 5);
    const roots = buildPruneTree(ctxWith([summaryEntry([], "s", { timestamp: ts })]), indexerOf({}));
    expect(roots[0]!.facts).toEndWith(` · ${new Date(ts).toLocaleString()}`);
    expect(roots[0]!.meta).not.toContain(new Date(ts).toLocaleString());
  });

  test("non-string content counts as zero tokens and has no detail", () => {
    const entry = { type: "custom_message", customType: "context-prune-summary", content: [{ type: "text", text: "x" }], details: {} };
    const roots = buildPruneTree(ctxWith([entry]), indexerOf({}));
    expect(roots[0]!.meta).toEndWith("→ 0 tokens");
    expect(roots[0]!.detail).toBeUndefined();
  });
});

describe("TreeBrowser", () => {
  test("renders a titled box with the hint line and an arrow on the selected row", () => {
    const lines = render(new TreeBrowser(twoLeafTree(), plainTheme, () => {}), 70);
    expect(lines[0]).toBe(`┌─ Pruned Tool Calls ${"─".repeat(48)}┐`);
    expect(lines[1]).toBe(`│${"Enter/Space expand • Ctrl-O open summary • Esc/q close".padEnd(68)}│`);
    expect(lines[2]).toBe(`│${"PgUp/PgDn Home/End".padEnd(68)}│`);
    expect(lines[3]).toBe(`│${" ".repeat(68)}│`);
    expect(lines[4]).toBe(`│→ ▸ Read the two source files please${" ".repeat(8)}read ×2 · 376 → 6 tokens│`);
    expect(lines.at(-1)).toBe(`└${"─".repeat(68)}┘`);
    expect(lines).toHaveLength(6);
  });

  test("an empty tree shows the muted placeholder", () => {
    const lines = new TreeBrowser([], plainTheme, () => {}).render(50);
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain("(no pruned tool calls in this session)");
  });

  test("Enter expands the root and shows its leaves indented (#30)", () => {
    const browser = new TreeBrowser(twoLeafTree(), plainTheme, () => {});
    browser.handleInput(ENTER);
    const lines = render(browser, 70);
    expect(lines[4]).toContain("→ ▾ Read the two source files please");
    expect(lines[5]).toBe(`│      ${'t1 read(path="/src/a.ts")'.padEnd(52)}375 tokens│`);
    expect(lines[6]).toBe(`│      ${'t2 read(path="/src/b.ts")'.padEnd(55)}1 token│`);
    browser.handleInput(" ");
    expect(browser.render(70)).toHaveLength(6);
  });

  test("the arrow follows up and down, wrapping around the visible rows", () => {
    const browser = new TreeBrowser(twoLeafTree(), plainTheme, () => {});
    browser.handleInput(ENTER);
    const marked = () => render(browser, 70).flatMap((line, i) => (line.startsWith("│→ ") ? [i] : []));
    expect(marked()).toEqual([4]);
    browser.handleInput(UP);
    expect(marked()).toEqual([6]);
    browser.handleInput(DOWN);
    expect(marked()).toEqual([4]);
    browser.handleInput(DOWN);
    expect(marked()).toEqual([5]);
  });

  test("the selected row also keeps the theme's selection background", () => {
    const marking = { fg: (_c: string, s: string) => s, bg: (c: string, s: string) => `<${c}>${s}</>` } as any;
    const lines = new TreeBrowser(twoLeafTree(), marking, () => {}).render(70);
    expect(lines[4]).toStartWith("│<selectedBg>→ ▸ Read");
  });

  test("Enter on a child opens its output under its ref; Esc goes back to the tree", () => {
    const browser = new TreeBrowser(twoLeafTree(), plainTheme, () => {});
    browser.handleInput(ENTER);
    const tree = render(browser, 70);
    browser.handleInput(DOWN);
    browser.handleInput(DOWN);
    browser.handleInput(ENTER);
    const open = render(browser, 70);
    expect(open[0]).toStartWith("┌─ Original Output ─");
    expect(open[1]).toBe(`│${"read · path: /src/b.ts".padEnd(68)}│`);
    expect(open[2]).toBe(`│${"ref t2 · 1 token".padEnd(68)}│`);
    expect(open[4]).toBe(`│${" tiny".padEnd(68)}│`);
    browser.handleInput(ESC);
    browser.handleInput(UP);
    expect(render(browser, 70)).toEqual(tree.map((line) => line.replace("→ ▾", "  ▾").replace("│      t1", "│→     t1")));
  });

  test("Ctrl-O on a child opens its output too, wrapped and without the output's escapes", () => {
    const indexer = indexerOf({ a: record("a", { resultText: `\x1b[31mred\x1b[0m\tdone\n${"word ".repeat(30)}` }) });
    const roots = buildPruneTree(ctxWith([user("q"), summaryEntry([{ shortId: "t7", toolCallId: "a" }])]), indexer);
    const browser = new TreeBrowser(roots, plainTheme, () => {});
    browser.handleInput(ENTER);
    browser.handleInput(DOWN);
    browser.handleInput(CTRL_O);
    const open = render(browser, 60);
    expect(open[0]).toStartWith("┌─ Original Output ─");
    expect(open.join("\n")).toContain(" red    done");
    expect(open.join("\n")).not.toContain("\x1b");
    for (const line of open) expect(Bun.stringWidth(line)).toBe(60);
  });

  test("a narrow box cuts the prompt before the figures, and a very narrow one cuts both", () => {
    const roots = twoLeafTree();
    const narrow = render(new TreeBrowser(roots, plainTheme, () => {}), 48);
    expect(narrow[4]).toBe("│→ ▸ Read the two so…  read ×2 · 376 → 6 tokens│");
    const tiny = render(new TreeBrowser(roots, plainTheme, () => {}), 30);
    expect(tiny[4]).toBe("│→ ▸ Read the two source fil…│");
    for (const line of [...narrow, ...tiny]) expect([48, 30]).toContain(Bun.stringWidth(line));
  });

  test("a tree taller than its room scrolls with the selection and says where it is", () => {
    const records: Record<string, any> = {};
    const branch: unknown[] = [];
    for (let i = 0; i < 10; i++) {
      records[`r${i}@${i}`] = record(`r${i}`);
      branch.push(user(`prompt ${i}`), result(`r${i}`, i), summaryEntry([{ shortId: `t${i}`, toolCallId: `r${i}`, resultTimestamp: i }]));
    }
    const browser = new TreeBrowser(buildPruneTree(ctxWith(branch), indexerOf(records)), plainTheme, () => {}, undefined, () => 10);
    for (let i = 0; i < 7; i++) browser.handleInput(DOWN);
    const lines = render(browser, 60);
    expect(lines).toHaveLength(10);
    expect(lines.filter((l) => l.includes("▸ prompt")).map((l) => l.slice(1, 13))).toEqual(["  ▸ prompt 5", "  ▸ prompt 6", "→ ▸ prompt 7", "  ▸ prompt 8", "  ▸ prompt 9"]);
    expect(lines.at(-1)).toStartWith("└─ 8/10 ─");
    expect(Bun.stringWidth(lines.at(-1)!)).toBe(60);
  });

  test("Ctrl-O shows the summary in the same box; q goes back to the tree, a second q finishes (#30)", () => {
    let done = 0;
    const browser = new TreeBrowser(twoLeafTree(), plainTheme, () => done++);
    const tree = render(browser, 80);
    browser.handleInput(CTRL_O);
    const open = render(browser, 80);
    expect(open[0]).toBe(`┌─ Pruned Summary ${"─".repeat(61)}┐`);
    expect(open[1]).toBe(`│${"Read the two source files please".padEnd(78)}│`);
    expect(open[2]).toBe(`│${"read ×2 · outputs 376 tokens → summary 6 tokens".padEnd(78)}│`);
    expect(open.some((l) => l.includes("did things"))).toBe(true);
    expect(open.at(-2)).toBe(`│${"↑/↓ PgUp/PgDn/Space Home/End scroll • Ctrl-O/Esc/q close".padEnd(78)}│`);
    expect(open.at(-1)).toBe(`└${"─".repeat(78)}┘`);
    expect(open.some((l) => l.includes("▸"))).toBe(false);
    for (const line of open) expect(Bun.stringWidth(line)).toBe(80);
    browser.handleInput("q");
    expect(done).toBe(0);
    expect(render(browser, 80)).toEqual(tree);
    browser.handleInput("q");
    expect(done).toBe(1);
  });

  test("the summary's figures wrap instead of being cut at 80 columns", () => {
    const long = { ...twoLeafTree()[0]!, facts: "read ×2 · outputs 7.8k tokens → summary 275 tokens · 02/01/2025, 03:04:05 and more words to wrap" };
    const browser = new TreeBrowser([long], plainTheme, () => {});
    browser.handleInput(CTRL_O);
    const text = render(browser, 80).join("\n").replace(/[│ \n]+/g, " ");
    expect(text).toContain("outputs 7.8k tokens → summary 275 tokens · 02/01/2025, 03:04:05 and more words to wrap");
  });

  test("the summary tells the user what its refs are and how to read them, with a rule as wide as the box", () => {
    const content = "## Summary\n- did things\n\n---\n**Summarized tool refs**: `t1`, `t2`\nUse `context_tree_query` with these refs to retrieve the original full outputs.";
    const indexer = indexerOf({ "a@10": record("a"), "b@11": record("b") });
    const roots = buildPruneTree(ctxWith([user("q"), result("a", 10), result("b", 11), summaryEntry(REFS, content)]), indexer);
    const browser = new TreeBrowser(roots, plainTheme, () => {});
    browser.handleInput(CTRL_O);
    for (const width of [80, 96]) {
      const open = render(browser, width);
      const text = open.join(" ").replace(/[│\s]+/g, " ");
      expect(text).toContain("Summarized tool refs: t1, t2");
      expect(text).toContain("press Enter on the output's row");
      expect(text).not.toContain("Use context_tree_query with these refs");
      expect(open.find((line) => line.includes("──") && line.startsWith("│"))).toBe(`│ ${"─".repeat(width - 4)} │`);
    }
  });

  test("the summary's facts break between facts, never inside the time at the box's side", () => {
    const facts = "1 of 2 · read ×2 · outputs 31.2k chars → summary 1.1k chars · 12/3/2026, 3:44:10 PM";
    const long = { ...twoLeafTree()[0]!, facts };
    const browser = new TreeBrowser([long], plainTheme, () => {});
    browser.handleInput(CTRL_O);
    const rows = render(browser, 80).slice(2, 4).map((line) => line.slice(1, -1).trimEnd());
    expect(rows).toEqual(["1 of 2 · read ×2 · outputs 31.2k chars → summary 1.1k chars ·", "12/3/2026, 3:44:10 PM"]);
  });

  test("Ctrl-O on a root without resolved children does nothing (#31)", () => {
    const roots = buildPruneTree(ctxWith([summaryEntry([{ shortId: "t1", toolCallId: "gone" }])]), indexerOf({}));
    const browser = new TreeBrowser(roots, plainTheme, () => {});
    const before = browser.render(80);
    browser.handleInput(CTRL_O);
    expect(browser.render(80)).toEqual(before);
  });

  test("while the summary is open other keys do not reach the tree", () => {
    let done = 0;
    const browser = new TreeBrowser(twoLeafTree(), plainTheme, () => done++);
    browser.handleInput(CTRL_O);
    browser.handleInput(ENTER);
    browser.handleInput(ESC);
    expect(done).toBe(0);
    expect(browser.render(80)).toHaveLength(5);
  });

  test("a long summary stays within its rows, scrolls and reports its range", () => {
    const body = Array.from({ length: 40 }, (_, i) => `line ${i + 1}`).join("\n\n");
    const indexer = indexerOf({ a: record("a") });
    const roots = buildPruneTree(ctxWith([user("q"), summaryEntry([{ shortId: "t1", toolCallId: "a" }], body)]), indexer);
    const browser = new TreeBrowser(roots, plainTheme, () => {}, undefined, () => 19);
    browser.handleInput(CTRL_O);
    const first = render(browser, 80);
    // 19 rows: two edges, prompt, facts, two blanks and the footer leave 12 for the summary
    expect(first).toHaveLength(19);
    expect(first.join("\n")).toMatch(/• 1-12 \/ \d+/);
    browser.handleInput(DOWN);
    browser.handleInput(DOWN);
    expect(render(browser, 80).join("\n")).toMatch(/• 3-14 \/ \d+/);
    for (let i = 0; i < 500; i++) browser.handleInput(DOWN);
    const total = Number(/\/ (\d+)/.exec(render(browser, 80).join("\n"))![1]);
    browser.handleInput(UP);
    expect(render(browser, 80).join("\n")).toContain(`• ${total - 12}-${total - 1} / ${total}`);
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

describe("outputs archived without a summary (issue 36, point 9)", () => {
  const indexEntry = (records: any[]) => ({ type: "custom", customType: "context-prune-index", data: { toolCalls: records } });

  function indexerWithRefs(records: Record<string, any>, refs: Record<string, string>) {
    return { getRecord: (key: string) => records[key], getShortRefForToolCallId: (key: string) => refs[key] } as any;
  }

  test("get a root labelled by their prompt, with each output as a row under its ref", () => {
    const a = record("a", { resultTimestamp: 10, unsummarized: true, digest: "12 lines, names: main" });
    const b = record("b", { resultTimestamp: 11, unsummarized: true });
    const indexer = indexerWithRefs({ "a@10": a, "b@11": b }, { "a@10": "t4", "b@11": "t5" });
    const branch = [user("List the sources"), result("a", 10), result("b", 11), indexEntry([a, b])];
    const roots = buildPruneTree(ctxWith(branch), indexer);
    expect(roots).toHaveLength(1);
    expect(roots[0]!.label).toBe("List the sources");
    expect(roots[0]!.meta).toBe("read ×2 · 750 tokens · no summary");
    expect(roots[0]!.children.map((c) => c.label)).toEqual(['t4 read(path="/src/a.ts")', 't5 read(path="/src/b.ts")']);
    expect(roots[0]!.detail).toContain("- `t4` read: 12 lines, names: main");
  });

  test("outputs a summary covers are not listed twice", () => {
    const a = record("a", { resultTimestamp: 10 });
    const indexer = indexerWithRefs({ "a@10": a }, { "a@10": "t1" });
    const branch = [user("Read it"), result("a", 10), indexEntry([a]), summaryEntry([{ shortId: "t1", toolCallId: "a", resultTimestamp: 10 }])];
    const roots = buildPruneTree(ctxWith(branch), indexer);
    expect(roots.map((r) => r.id)).toEqual(["summary-0"]);
  });
});

describe("an opened output scrolls as pi's viewers do (issue 36, point 9)", () => {
  const PAGE_UP = "\x1b[5~";
  const PAGE_DOWN = "\x1b[6~";
  const HOME = "\x1b[H";
  const END = "\x1b[F";

  function openedLong(): TreeBrowser {
    const long = Array.from({ length: 100 }, (_, i) => `row ${i + 1}`).join("\n");
    const indexer = indexerOf({ "a@10": record("a", { resultText: long }) });
    const branch = [user("Read the long file"), result("a", 10), summaryEntry([{ shortId: "t1", toolCallId: "a", resultTimestamp: 10 }])];
    const browser = new TreeBrowser(buildPruneTree(ctxWith(branch), indexer), plainTheme, () => {}, undefined, () => 20);
    browser.handleInput(ENTER);
    browser.handleInput(DOWN);
    browser.handleInput(ENTER);
    return browser;
  }

  const firstRow = (browser: TreeBrowser) => render(browser, 60).find((l) => /│ row \d+/.test(l))!.match(/row (\d+)/)![1];

  test("PageDown and Space move a page, PageUp back, End and Home to either end", () => {
    const browser = openedLong();
    expect(firstRow(browser)).toBe("1");
    browser.handleInput(PAGE_DOWN);
    const page = Number(firstRow(browser)) - 1;
    expect(page).toBeGreaterThan(5);
    browser.handleInput(" ");
    expect(Number(firstRow(browser))).toBe(2 * page + 1);
    browser.handleInput(PAGE_UP);
    expect(Number(firstRow(browser))).toBe(page + 1);
    browser.handleInput(END);
    expect(render(browser, 60).some((l) => l.includes("row 100"))).toBe(true);
    browser.handleInput(HOME);
    expect(firstRow(browser)).toBe("1");
  });
});

describe("the box in a wide terminal (issue 36, point 10)", () => {
  test("is centered in rows as wide as the terminal, blank on both sides, in the tree and in an opened summary", () => {
    const browser = new TreeBrowser(twoLeafTree(), plainTheme, () => {}, undefined, () => 30, (width) => Math.max(80, Math.floor(width * 0.8)));
    for (const lines of [render(browser, 120), (browser.handleInput(CTRL_O), render(browser, 120))]) {
      for (const line of lines) {
        expect(Bun.stringWidth(line)).toBe(120);
        expect(line.slice(0, 12)).toBe(" ".repeat(12));
        expect(line.slice(108)).toBe(" ".repeat(12));
      }
      expect(lines[0]!.slice(12, 14)).toBe("┌─");
    }
  });
});
