// Real pi 1.6.0 + pi-condense in the interactive TUI (no -p), inside tmux, against the fake provider:
// /pruner on, scripted tool turns, the tree browser and the settings overlay, checked on the
// captured screen at 80x24 and 120x40 under TERM=tmux-256color and TERM=xterm-256color.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { disposeSandbox, makeSandbox, summarizerRequests, type Sandbox } from "./harness.js";
import { bash, say } from "./scenario-kit.js";
import { saveScreen, startTui, tmuxUnavailable, type Box, type TuiSession } from "./tui.js";

const unavailable = tmuxUnavailable();
if (unavailable) console.warn(`tui.e2e: skipping the TUI tests: ${unavailable}`);

const FIRST_PROMPT = "Count to three hundred and then show the last lines";
const SECOND_PROMPT = "Now the tail of five hundred";
const SCRIPT = [
  bash("echo first; seq 1 300"),
  bash("seq 1 250 | tail -n 120"),
  say("Counted twice."),
  bash("seq 1 500 | tail -n 200"),
  say("Tail done."),
];
/** The footer's reclaim figure, whatever its exact numbers: `prune: ON · 2.8k->1.2k (-56%)`. */
const FOOTER_FIGURE = /prune: ON · [\d.]+[kM]?\s*(->|→)\s*[\d.]+[kM]?\s*\(-\d+%\)/;
const TREE = "Pruned Tool Calls";
const SUMMARY = "Pruned Summary";
const SETTINGS = "pruner settings";
const OUTPUT = "Original Output";
/** A `/pruner help` usage row as drawn in the chat: the command, a gap, the description's first words. */
const HELP_ROW = /^ {3}(\/pruner \S+(?: \S+)*) {2,}(\S.*)$/;

interface Layout {
  term: string;
  first: [number, number];
  then: [number, number];
}

// Two pi processes cover the four size and TERM pairs: each starts at one size and is resized to the other.
const LAYOUTS: Layout[] = [
  { term: "tmux-256color", first: [80, 24], then: [120, 40] },
  { term: "xterm-256color", first: [120, 40], then: [80, 24] },
];

/** Indexes of the rows inside the box that carry the selection arrow. */
function markedRows(found: Box): number[] {
  return found.inner.flatMap((row, i) => (row.startsWith("→ ") || row.startsWith(" → ") ? [i] : []));
}

const settled = (screen: string[]) => FOOTER_FIGURE.test(screen.join("\n"));

for (const layout of LAYOUTS) {
  const [width, height] = layout.first;
  const [width2, height2] = layout.then;
  describe.skipIf(unavailable !== undefined)(`pi TUI, TERM=${layout.term}, ${width}x${height} then ${width2}x${height2}`, () => {
    let sb: Sandbox;
    let tui: TuiSession;
    const shotPrefix = `${width}x${height}`;
    const boxed = async (title: string, ready?: (box: Box, screen: string[]) => boolean) => (await tui.waitForBox(title, ready)).box;

    beforeAll(async () => {
      sb = await makeSandbox({ contextPrune: { enabled: false, minBatchChars: 0 }, script: { main: SCRIPT } });
      tui = startTui(sb, { width, height, term: layout.term });
      await tui.waitFor("fake-model", 30000);
    });
    afterAll(async () => {
      tui?.close();
      if (sb) await disposeSandbox(sb);
    });

    test("/pruner on turns pruning on and the footer says so", async () => {
      await tui.command("/pruner on");
      await tui.waitFor(/prune: ON/);
    });

    test("scripted tool turns are summarized and the footer shows the reclaim figure", async () => {
      tui.type(FIRST_PROMPT);
      tui.keys("Enter");
      await tui.waitFor("Counted twice.", 30000);
      tui.type(SECOND_PROMPT);
      tui.keys("Enter");
      await tui.waitFor("Tail done.", 30000);
      await tui.waitFor((screen) => settled(screen) && summarizerRequests(sb).length === 3, 30000);
    });

    test("each flush leaves one line in the chat naming what was summarized and the sizes", async () => {
      const chat = tui.capture().join("\n");
      expect(chat).toMatch(/pruner: summarized \d+ tool outputs? \([\d.]+k? \u2192 [\d.]+k? tokens\)/);
      expect(chat).toMatch(/prune: ON \u00b7 [\d.]+k?->[\d.]+k? \(-\d+%\)/);
    });

    test("/pruner help keeps its command column and wraps each description under it", async () => {
      // As tall as the whole help, as wide as the layout: pi keeps no scrollback to read it from.
      tui.resize(width, 120);
      await tui.command("/pruner help");
      const all = await tui.waitFor((screen) => screen.some((row) => row.includes("Usage:")) && screen.some((row) => row.includes("PI_CODING_AGENT_DIR")));
      tui.resize(width, height);
      const help = all.slice(all.findLastIndex((row) => row.includes("Usage:")));
      const rows = help.filter((row) => HELP_ROW.test(row));
      expect(rows.length).toBe(33);
      const columns = new Set(help.flatMap((row) => (HELP_ROW.test(row) ? [row.indexOf(HELP_ROW.exec(row)![2]!)] : [])));
      expect(columns.size).toBe(1);
      const column = [...columns][0]!;
      const usage = help.slice(1, help.findIndex((row, i) => i > 0 && row.trim() === ""));
      for (const row of usage) expect(HELP_ROW.test(row) || (row.slice(0, column).trim() === "" && row[column] !== " ")).toBe(true);
      // A paragraph wraps between words, every row under its indentation.
      expect(help.join(" ").replace(/\s+/g, " ")).toContain("final reply; on-demand only when you run /pruner now.");
      const paragraph = help.slice(help.findIndex((row) => row.includes("When to summarize")) + 1);
      for (const row of paragraph.slice(0, paragraph.findIndex((r) => r.trim() === ""))) expect(row).toMatch(/^ {3}\S/);
      for (const row of help) expect(row.length).toBeLessThanOrEqual(width);
      saveScreen(`${shotPrefix}-08-help`, help);
    });

    test("/pruner report draws its chart and totals in the chat without wrapping, and names the HTML page", async () => {
      // As tall as the whole report (chart, totals, limit, notes), as wide as the layout.
      tui.resize(width, 120);
      await tui.command("/pruner report");
      const tall = await tui.waitFor((rows) => rows.some((row) => row.trim() === "HTML report:") && rows.some((row) => /^ +peak context /.test(row)), 30000);
      tui.resize(width, height);
      const start = tall.findLastIndex((row) => row.includes("pruner report:"));
      const screen = start < 0 ? tall : tall.slice(start);
      const text = screen.join("\n");
      expect(text).toMatch(/^ +peak context +[\d.]+k? +[\d.]+k? +[\d.]+k?$/m);
      expect(text).toMatch(/^ +dollars +(unpriced|\$[\d.]+) +(unpriced|\$[\d.]+) +(unpriced|\$[\d.]+)$/m);
      // A wrapped 78-column line would leave a row that starts with a chart block or a table figure.
      expect(text).not.toMatch(/^[▁▂▃▄▅▆▇█]/m);
      // The path follows on the next row, from its first character, with no blank row between; the home
      // directory is written ~ so the path fits one row (issue 36, point 12).
      const at = screen.findIndex((row) => row.trim() === "HTML report:");
      expect(screen[at + 1]).toMatch(/^ ~?\/\S+\.html$/);
      saveScreen(`${shotPrefix}-09-report`, screen);
    });

    test("the tree browser marks the selection with an arrow in an aligned box and labels rows by prompt", async () => {
      await tui.command("/pruner tree");
      let tree = await boxed(TREE);
      expect(markedRows(tree)).toHaveLength(1);
      const first = markedRows(tree)[0]!;
      const text = tree.inner.join("\n");
      expect(text).toContain("Count to three");
      expect(text).toContain("Now the tail of five");
      expect(text).not.toMatch(/Turn \d/);
      expect(text).toMatch(/1 of 2 · bash · [\d.]+k? → [\d.]+k? tokens?/);
      tui.keys("Down");
      await boxed(TREE, (b) => markedRows(b)[0] === first + 1);
      tui.keys("Enter");
      tree = await boxed(TREE, (b) => b.inner.join("\n").includes('bash(command="seq 1 250'));
      expect(markedRows(tree)).toEqual([first + 1]);
      expect(tree.inner.join("\n")).toMatch(/ t\d+ bash\(command="seq 1 250 \| tail -n 120"\)/);
      saveScreen(`${shotPrefix}-10-tree`, tui.capture());
    });

    test("Enter on a child row opens that output under its ref; Esc goes back to the tree", async () => {
      tui.keys("Down");
      await boxed(TREE, (b) => b.inner[markedRows(b)[0]!]!.includes('bash(command="seq 1 250'));
      tui.keys("Enter");
      const output = await boxed(OUTPUT);
      const text = output.inner.join("\n");
      expect(text).toMatch(/ref t\d+ · [\d.]+k? tokens?/);
      expect(text).toMatch(/^ 131 *$/m);
      saveScreen(`${shotPrefix}-10-child-output`, tui.capture());
      tui.keys("Escape");
      const tree = await boxed(TREE);
      expect(tree.inner[markedRows(tree)[0]!]).toContain('bash(command="seq 1 250');
      tui.keys("Up");
      await boxed(TREE, (b) => b.inner[markedRows(b)[0]!]!.includes("Count to three"));
    });

    test("Ctrl-O shows the summary in the same box with its figures whole; Esc goes back, Esc again closes", async () => {
      const tree = await boxed(TREE);
      tui.keys("C-o");
      const { box: summary, screen } = await tui.waitForBox(SUMMARY);
      expect(screen.join("\n")).not.toContain(TREE);
      expect([summary.left, summary.right]).toEqual([tree.left, tree.right]);
      expect(summary.inner.join(" ").replace(/\s+/g, " ")).toMatch(/outputs [\d.]+k? tokens? → summary [\d.]+k? tokens?/);
      expect(summary.inner.join("\n")).toContain("Summarized tool refs");
      expect(summary.inner.join(" ")).not.toContain("Use context_tree_query");
      // The facts break between facts: the time stays whole and no row starts inside it.
      expect(summary.inner.some((row) => /\d{1,2}:\d{2}:\d{2}( [AP]M)?/.test(row))).toBe(true);
      expect(summary.inner.some((row) => /^[AP]M\b/.test(row.trim()))).toBe(false);
      const rule = summary.inner.find((row) => /^ ─+ *$/.test(row));
      expect(rule?.trim().length).toBe(summary.right - summary.left - 3);
      saveScreen(`${shotPrefix}-09-summary-box`, screen);
      tui.keys("Escape");
      await boxed(TREE);
      tui.keys("Escape");
      await tui.waitGone(TREE);
    });

    test("the settings overlay is a full box with units, type-to-search and a close hint", async () => {
      await tui.command("/pruner settings");
      let settings = await boxed(SETTINGS);
      expect(settings.inner.find((row) => row.includes("→ "))).toContain("→ Enabled");
      expect(settings.inner.join("\n")).toContain("Esc to close · changes are saved");
      expect(settings.inner.join("\n")).not.toContain("Esc to cancel");
      for (let i = 0; i < 12; i++) tui.keys("Down");
      settings = await boxed(SETTINGS, (b) => b.inner.some((row) => row.includes("→ Auto-flush at context %")));
      expect(settings.inner.join("\n")).toMatch(/→ Auto-flush at context % +(off|\d+%)/);
      tui.type("timeout");
      settings = await boxed(SETTINGS, (b) => b.inner.some((row) => row.includes("> timeout")));
      const rows = settings.inner.join("\n");
      expect(rows).toMatch(/Summarizer idle timeout +20 s/);
      expect(rows).toMatch(/Summarizer max timeout +180 s/);
      expect(rows).not.toContain("Enabled");
      for (let i = 0; i < "timeout".length; i++) tui.keys("BSpace");
      tui.type("budget");
      settings = await boxed(SETTINGS, (b) => b.inner.some((row) => row.includes("> budget")));
      expect(settings.inner.join("\n")).toMatch(/→ Auto-flush at context % +(off|\d+%)/);
      expect(settings.inner.join("\n")).not.toContain("No matching settings");
      saveScreen(`${shotPrefix}-12-settings-budget`, tui.capture());
      tui.keys("Escape");
      await tui.waitGone(SETTINGS);
      await tui.waitFor(FOOTER_FIGURE);
    });

    test(`after a resize to ${width2}x${height2} the tree, the summary and the settings still fit their boxes`, async () => {
      tui.resize(width2, height2);
      await tui.waitFor(FOOTER_FIGURE);
      await tui.command("/pruner tree");
      const tree = await boxed(TREE);
      expect(markedRows(tree)).toHaveLength(1);
      expect(tree.right - tree.left + 1).toBe(Math.max(80, Math.floor(width2 * 0.8)));
      tui.keys("C-o");
      const summary = await boxed(SUMMARY);
      expect(summary.inner.find((row) => /^ ─+ *$/.test(row))?.trim().length).toBe(summary.right - summary.left - 3);
      tui.keys("Escape");
      await boxed(TREE);
      tui.keys("Escape");
      await tui.waitGone(TREE);
      await tui.command("/pruner settings");
      const settings = await boxed(SETTINGS);
      expect(settings.bottom - settings.top + 1).toBeLessThanOrEqual(height2);
      if (height2 >= 40) expect(settings.inner.join("\n")).toContain("Protected paths");
      tui.keys("Escape");
      await tui.waitGone(SETTINGS);
    });
  });
}
