// Issue 45: the tree list takes Home/End/PgUp/PgDn and names them (point 5); its rows follow the prompts (point 6).
import { beforeAll, describe, expect, test } from "bun:test";
import { initTheme } from "@earendil-works/pi-coding-agent";
import { buildPruneTree, TreeBrowser } from "./tree-browser.js";

const HOME = "\x1b[H";
const END = "\x1b[F";
const PAGE_UP = "\x1b[5~";
const PAGE_DOWN = "\x1b[6~";
const PINNED_HINT = "Enter/Space expand • Ctrl-O open summary • Esc/q close";

beforeAll(() => {
  initTheme("dark");
});

const plainTheme = { fg: (_c: string, s: string) => s, bg: (_c: string, s: string) => s } as any;

const user = (text: string) => ({ type: "message", message: { role: "user", content: text, timestamp: 1 } });
const result = (id: string, timestamp: number) => ({ type: "message", message: { role: "toolResult", toolCallId: id, toolName: "bash", content: [], isError: false, timestamp } });
const summary = (id: string, timestamp: number) => ({
  type: "custom_message",
  customType: "context-prune-summary",
  content: `summary of ${id}`,
  details: { toolCallRefs: [{ shortId: `t-${id}`, toolCallId: id, resultTimestamp: timestamp }] },
});
/** What `/pruner compact` writes for an output no flush archived: an index entry of its own. */
const backfill = (id: string, timestamp: number) => ({
  type: "custom",
  customType: "context-prune-index",
  data: { toolCalls: [{ toolCallId: id, toolName: "bash", args: {}, resultText: "ok", isError: false, turnIndex: 0, timestamp, resultTimestamp: timestamp }], backfilled: true },
});

function indexerFor(ids: string[]) {
  const records = new Map(ids.map((id, i) => [id, { toolCallId: id, toolName: "bash", args: { command: id }, resultText: "x".repeat(400), isError: false, turnIndex: 0, timestamp: i }]));
  const bare = (key: string) => key.split("@")[0]!;
  return { getRecord: (key: string) => records.get(bare(key)), getShortRefForToolCallId: (key: string) => `t-${bare(key)}` } as any;
}

function treeOf(prompts: number, maxRows = 12): TreeBrowser {
  const branch: unknown[] = [];
  const ids: string[] = [];
  for (let i = 0; i < prompts; i++) {
    ids.push(`c${i}`);
    branch.push(user(`prompt ${i}`), result(`c${i}`, i + 1), summary(`c${i}`, i + 1));
  }
  return new TreeBrowser(buildPruneTree({ sessionManager: { getBranch: () => branch } } as any, indexerFor(ids)), plainTheme, () => {}, undefined, () => maxRows);
}

const selected = (browser: TreeBrowser) => /→ ▸ (prompt \d+)/.exec(browser.render(90).join("\n"))?.[1];

describe("the tree list's keys (issue 45, point 5)", () => {
  test("End selects the last row and Home the first, without wrapping", () => {
    const browser = treeOf(20);
    browser.handleInput(END);
    expect(selected(browser)).toBe("prompt 19");
    browser.handleInput(HOME);
    expect(selected(browser)).toBe("prompt 0");
  });

  test("PgDn moves a page of the rows shown and stops at the last, PgUp moves back and stops at the first", () => {
    const browser = treeOf(20);
    const shown = browser.render(90).filter((line) => line.includes("▸ prompt")).length;
    browser.handleInput(PAGE_DOWN);
    expect(selected(browser)).toBe(`prompt ${shown}`);
    for (let i = 0; i < 5; i++) browser.handleInput(PAGE_DOWN);
    expect(selected(browser)).toBe("prompt 19");
    browser.handleInput(PAGE_UP);
    expect(selected(browser)).toBe(`prompt ${19 - shown}`);
    for (let i = 0; i < 5; i++) browser.handleInput(PAGE_UP);
    expect(selected(browser)).toBe("prompt 0");
  });

  test("the hint names the keys after its pinned words, on one line in an 80-column box", () => {
    const lines = treeOf(2).render(80);
    expect(lines[1]).toBe(`│${`${PINNED_HINT} • PgUp/PgDn Home/End`.padEnd(78)}│`);
    expect(lines[2]).toBe(`│${" ".repeat(78)}│`);
  });

  test("in a narrower box the keys take a line of their own under the pinned hint", () => {
    const lines = treeOf(2).render(60);
    expect(lines[1]).toContain(PINNED_HINT.slice(0, 40));
    expect(lines[2]).toBe(`│${"PgUp/PgDn Home/End".padEnd(58)}│`);
  });
});

describe("the tree's rows after /pruner compact (issue 45, point 6)", () => {
  test("rows of outputs compact archived last are listed under their own prompts, in prompt order", () => {
    const branch = [
      user("first"),
      result("a", 1),
      result("b", 2),
      summary("a", 1),
      user("second"),
      result("c", 3),
      result("d", 4),
      summary("c", 3),
      user("third"),
      result("e", 5),
      summary("e", 5),
      backfill("b", 2),
      backfill("d", 4),
    ];
    const roots = buildPruneTree({ sessionManager: { getBranch: () => branch } } as any, indexerFor(["a", "b", "c", "d", "e"]));
    expect(roots.map((root) => root.label)).toEqual(["first", "first", "second", "second", "third"]);
    expect(roots.map((root) => root.meta!.split(" · ")[0])).toEqual(["1 of 2", "2 of 2", "1 of 2", "2 of 2", "bash"]);
    expect(roots.map((root) => root.children.map((child) => child.ref))).toEqual([["t-a"], ["t-b"], ["t-c"], ["t-d"], ["t-e"]]);
  });

  test("within one prompt, rows follow where their first outputs stand, not where they were written", () => {
    const branch = [user("only"), result("a", 1), result("b", 2), backfill("a", 1), summary("b", 2)];
    const roots = buildPruneTree({ sessionManager: { getBranch: () => branch } } as any, indexerFor(["a", "b"]));
    expect(roots.map((root) => root.children[0]!.ref)).toEqual(["t-a", "t-b"]);
    const later = [user("only"), result("a", 1), result("b", 2), summary("b", 2), backfill("a", 1)];
    expect(buildPruneTree({ sessionManager: { getBranch: () => later } } as any, indexerFor(["a", "b"])).map((root) => root.children[0]!.ref)).toEqual(["t-a", "t-b"]);
  });
});
