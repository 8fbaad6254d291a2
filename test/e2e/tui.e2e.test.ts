// Real pi 1.6.0 + pi-condense in the interactive TUI (no -p), inside tmux, against the fake provider:
// /pruner on, scripted tool turns, the tree browser and the settings overlay, checked on the
// captured screen at 80x24 and 160x50 under TERM=tmux-256color and TERM=xterm-256color.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { disposeSandbox, makeSandbox, summarizerRequests, type Sandbox } from "./harness.js";
import { bash, say } from "./scenario-kit.js";
import { startTui, tmuxUnavailable, type Box, type TuiSession } from "./tui.js";

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

interface Layout {
  term: string;
  first: [number, number];
  then: [number, number];
}

// Two pi processes cover the four size and TERM pairs: each starts at one size and is resized to the other.
const LAYOUTS: Layout[] = [
  { term: "tmux-256color", first: [80, 24], then: [160, 50] },
  { term: "xterm-256color", first: [160, 50], then: [80, 24] },
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

    test("/pruner report draws its chart and totals in the chat without wrapping, and names the HTML page", async () => {
      await tui.command("/pruner report");
      const screen = await tui.waitFor("HTML report:", 30000);
      const text = screen.join("\n");
      expect(text).toMatch(/^ +peak context +[\d.]+k? +[\d.]+k? +[\d.]+k?$/m);
      expect(text).toMatch(/^ +dollars +(unpriced|\$[\d.]+) +(unpriced|\$[\d.]+) +(unpriced|\$[\d.]+)$/m);
      // A wrapped 78-column line would leave a row that starts with a chart block or a table figure.
      expect(text).not.toMatch(/^[▁▂▃▄▅▆▇█]/m);
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
    });

    test("Ctrl-O shows the summary in the same box with its figures whole; Esc goes back, Esc again closes", async () => {
      const tree = await boxed(TREE);
      tui.keys("C-o");
      const { box: summary, screen } = await tui.waitForBox(SUMMARY);
      expect(screen.join("\n")).not.toContain(TREE);
      expect([summary.left, summary.right]).toEqual([tree.left, tree.right]);
      expect(summary.inner.join(" ").replace(/\s+/g, " ")).toMatch(/outputs [\d.]+k? tokens? → summary [\d.]+k? tokens?/);
      expect(summary.inner.join("\n")).toContain("Summarized tool refs");
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
      await boxed(SUMMARY);
      tui.keys("Escape");
      await boxed(TREE);
      tui.keys("Escape");
      await tui.waitGone(TREE);
      await tui.command("/pruner settings");
      const settings = await boxed(SETTINGS);
      expect(settings.bottom - settings.top + 1).toBeLessThanOrEqual(height2);
      if (height2 >= 50) expect(settings.inner.join("\n")).toContain("Protected paths");
      tui.keys("Escape");
      await tui.waitGone(SETTINGS);
    });
  });
}
