import { describe, expect, test } from "bun:test";
import { helpText } from "../commands/command-help.js";
import { layoutText } from "./text-layout.js";

const USAGE_ROW = /^ {2}\/pruner \S/;

/** The column each usage row's description starts at. */
function descriptionColumns(lines: string[]): number[] {
  return lines.filter((line) => USAGE_ROW.test(line)).map((line) => /^ {2}\S.*?\S {2,}/.exec(line)![0].length);
}

describe("layoutText", () => {
  for (const width of [78, 118]) {
    test(`lays the help out in ${width} columns with no line wider and every description in one column`, () => {
      const lines = layoutText(helpText(), width);
      expect(lines.every((line) => line.length <= width)).toBe(true);
      expect(new Set(descriptionColumns(lines)).size).toBe(1);
      const column = descriptionColumns(lines)[0]!;
      const usage = lines.slice(lines.indexOf("Usage:") + 1, lines.indexOf("", 3));
      for (const line of usage) expect(USAGE_ROW.test(line) || line.startsWith(" ".repeat(column))).toBe(true);
    });
  }

  test("keeps a paragraph's words whole and under its indentation", () => {
    const lines = layoutText("When to summarize:\n  agent-message summarizes after the agent's final reply; on-demand only when you run /pruner now.", 60);
    expect(lines).toEqual([
      "When to summarize:",
      "  agent-message summarizes after the agent's final reply;",
      "  on-demand only when you run /pruner now.",
    ]);
  });

  test("wraps a description under its own column at 80 columns", () => {
    const text = ["  /pruner on        Turn pruning on", `  /pruner report    ${"Replay this session with and without pruning, in tokens and dollars ".repeat(2).trim()}`].join("\n");
    const lines = layoutText(text, 78);
    expect(lines[0]).toBe("  /pruner on      Turn pruning on");
    expect(lines[1]).toStartWith("  /pruner report  Replay this session");
    expect(lines.slice(2).every((line) => line.startsWith(" ".repeat(18)) && line[18] !== " ")).toBe(true);
  });

  test("leaves rows that fit exactly as written", () => {
    const text = "pruner status:\n  pruning:      on\n  footer line:  on";
    expect(layoutText(text, 78)).toEqual(text.split("\n"));
  });

  test("puts a long path on a line of its own and cuts it only where the row ends", () => {
    const path = `/home/user/.pi/agent/sessions/--home-user-project--/${"x".repeat(80)}.report.html`;
    const lines = layoutText(`  HTML report:\n${path}`, 78);
    expect(lines[0]).toBe("  HTML report:");
    expect(lines.slice(1).join("")).toBe(path);
    expect(lines.slice(1).every((line) => line.length <= 78 && !line.startsWith(" "))).toBe(true);
    expect(layoutText(`  HTML report:\n/tmp/s.report.html`, 118)).toEqual(["  HTML report:", "/tmp/s.report.html"]);
  });

  test("puts each description under its command when the column leaves too little room", () => {
    const lines = layoutText("  /pruner protected-paths <globs>  Set those globs directly", 40);
    expect(lines).toEqual(["  /pruner protected-paths <globs>", "      Set those globs directly"]);
  });
});
