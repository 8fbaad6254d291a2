// Issue 45, point 4: a call with long arguments opens with a short header; its long arguments page with its output.
import { beforeAll, describe, expect, test } from "bun:test";
import { initTheme } from "@earendil-works/pi-coding-agent";
import { buildPruneTree, TreeBrowser } from "./tree-browser.js";
import { argumentView, textSize } from "./tree-arguments.js";

const ENTER = "\r";
const DOWN = "\x1b[B";
const END = "\x1b[F";
const HOME = "\x1b[H";
const PAGE_DOWN = "\x1b[6~";

beforeAll(() => {
  initTheme("dark");
});

const plainTheme = { fg: (_c: string, s: string) => s, bg: (_c: string, s: string) => s } as any;
const ANSI = /\x1b\[[0-9;]*m|\x1b\]8;;\x07/g;

const NOTES = Array.from({ length: 42 }, (_, i) => `Note ${String(i + 1).padStart(2, "0")}: keep the tree short.`).join("\n");

function writeTree(args: Record<string, unknown>, output = "Successfully wrote to notes.md") {
  const record = { toolCallId: "w", toolName: "write", args, resultText: output, isError: false, turnIndex: 1, timestamp: 1 };
  const branch = [
    { type: "message", message: { role: "user", content: "Write the notes", timestamp: 1 } },
    { type: "custom_message", customType: "context-prune-summary", content: "## Summary", details: { toolCallRefs: [{ shortId: "t1", toolCallId: "w" }] } },
  ];
  return buildPruneTree({ sessionManager: { getBranch: () => branch } } as any, { getRecord: () => record } as any);
}

/** The write's output opened in an 80-column box that may take 19 rows (80x24 at the overlay's 80%). */
function openWrite(args: Record<string, unknown>, output?: string): { browser: TreeBrowser; render: () => string[] } {
  const browser = new TreeBrowser(writeTree(args, output), plainTheme, () => {}, undefined, () => 19);
  browser.handleInput(ENTER);
  browser.handleInput(DOWN);
  browser.handleInput(ENTER);
  return { browser, render: () => browser.render(80).map((line) => line.replace(ANSI, "")) };
}

describe("a call's arguments in the output viewer", () => {
  test("a long argument is named in the header by its size, a short one by its value", () => {
    expect(argumentView({ path: "notes.md", content: NOTES }).facts).toEqual(["path: notes.md", `content: 42 lines, ${(NOTES.length / 1000).toFixed(1)}k chars`]);
  });

  test("a nested argument is named by its path and a value that is not text by its JSON", () => {
    const view = argumentView({ path: "a.ts", edits: [{ oldText: "x\ny", newText: "z" }], replaceAll: false });
    expect(view.facts).toEqual(["path: a.ts", "edits[0].oldText: 2 lines, 3 chars", "edits[0].newText: z", "replaceAll: false"]);
    expect(view.sections).toEqual([{ title: "edits[0].oldText (2 lines, 3 chars)", text: "x\ny" }]);
  });

  test("past five arguments the header counts the rest, which are paged below", () => {
    const view = argumentView({ a: "1", b: "2", c: "3", d: "4", e: "5", f: "6", g: "7" });
    expect(view.facts.at(-1)).toBe("2 more arguments below");
    expect(view.sections.map((s) => s.title)).toEqual(["f", "g"]);
  });

  test("a size reads in lines and characters, one line in characters alone", () => {
    expect(textSize("a\nb")).toBe("2 lines, 3 chars");
    expect(textSize("x".repeat(1300))).toBe("1.3k chars");
  });

  test("an archived write opens with a short header, the box whole with its bottom edge and key hint", () => {
    const lines = openWrite({ path: "notes.md", content: NOTES }).render();
    expect(lines[0]).toStartWith("┌─ Original Output ─");
    expect(lines[1]).toBe(`│${`write · path: notes.md · content: 42 lines, ${(NOTES.length / 1000).toFixed(1)}k chars`.padEnd(78)}│`);
    expect(lines[2]).toBe(`│${"ref t1 · 8 tokens".padEnd(78)}│`);
    expect(lines.length).toBeLessThanOrEqual(19);
    expect(lines.at(-1)).toMatch(/^└─+┘$/);
    expect(lines.at(-2)).toContain("Ctrl-O/Esc/q close");
    expect(lines.join("\n")).not.toContain("\\n");
  });

  test("the write's content is paged as text above its output, and End reaches the output", () => {
    const { browser, render } = openWrite({ path: "notes.md", content: NOTES });
    const first = render().join("\n");
    expect(first).toContain(`│ content (42 lines, ${(NOTES.length / 1000).toFixed(1)}k chars):`);
    expect(first).toContain("│ Note 01: keep the tree short.");
    browser.handleInput(END);
    const last = render().join("\n");
    expect(last).toContain("│ Note 42: keep the tree short.");
    expect(last).toContain("│ output:");
    expect(last).toContain("│ Successfully wrote to notes.md");
    // The title, 42 lines, a blank row, the output's title and its line.
    expect(last).toMatch(/ • \d+-46 \/ 46/);
    browser.handleInput(HOME);
    browser.handleInput(PAGE_DOWN);
    expect(render().join("\n")).not.toContain("Note 01:");
  });

  test("a call whose arguments are all short keeps its output alone under the header", () => {
    const lines = openWrite({ path: "notes.md", content: "one line" }, "done").render();
    expect(lines[1]).toContain("write · path: notes.md · content: one line");
    expect(lines.join("\n")).not.toContain("output:");
    expect(lines[4]).toBe(`│${" done".padEnd(78)}│`);
  });
});
