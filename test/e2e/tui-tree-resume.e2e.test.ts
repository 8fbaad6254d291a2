// Issue 45, points 4, 5, 6 and 17 in the real pi TUI (tmux, the fake provider), at 80x24 and at 120x40:
// an archived `write` opened in /pruner tree shows its arguments as a short header and pages the rest with
// its output (4), the tree list takes Home/End/PgUp/PgDn and names them (5), the tree after /pruner compact
// lists its rows in prompt order (6), and the footer's figure is the same after `pi -c` as before the quit
// (17; before the compact, so the resumed session is the one compacted). Each test saves its screen before it asserts (PI_CONDENSE_SCREENS=<dir>), so a run against older
// code writes the "before" screens.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { disposeSandbox, makeSandbox, type Sandbox } from "./harness.js";
import type { RecordedRequest, ScriptedReply } from "./fake-llm.js";
import { inputChars } from "./metrics.js";
import { bash, say } from "./scenario-kit.js";
import { editorText, findBox, saveScreen, startTui, tmuxUnavailable, type Box, type TuiSession } from "./tui.js";

const unavailable = tmuxUnavailable();
if (unavailable) console.warn(`tui-tree-resume.e2e: skipping: ${unavailable}`);

const write = (path: string, content: string): ScriptedReply => ({ toolCalls: [{ name: "write", args: { path, content } }] });

/** 42 lines, 1.3k characters: the size the issue names. */
const NOTES = Array.from({ length: 42 }, (_, i) => `Note ${String(i + 1).padStart(2, "0")}: keep the tree short.`).join("\n");
const NOTES_HEADER = `content: 42 lines, ${(NOTES.length / 1000).toFixed(1)}k chars`;

const PROMPTS: Array<[string, string]> = [
  ["Write the notes file and count to four hundred", "Notes written."],
  ["Tail of three hundred", "Tail done."],
  ["Last, the tail of three hundred and fifty", "Third done."],
];
const SCRIPT: ScriptedReply[] = [
  { toolCalls: [...write("notes.md", NOTES).toolCalls!, ...bash("seq 1 400").toolCalls!] },
  bash("echo ok"),
  say("Notes written."),
  bash("seq 1 300 | tail -n 200"),
  bash("echo hi"),
  say("Tail done."),
  bash("seq 1 350 | tail -n 250"),
  say("Third done."),
];
/**
 * Every reply reports its request's size as a provider with its own tokenizer and tool declarations would:
 * three characters a token and 700 tokens more than the messages and system prompt, so the footer's
 * estimate is anchored on the provider's count and a resume that forgot the anchor shows another figure.
 */
const counted = (reply: ScriptedReply) => (req: RecordedRequest): ScriptedReply => ({ ...reply, promptTokens: Math.ceil(inputChars(req) / 3) + 700 });
const FOOTER = /prune: ON · [\d.]+[kM]?->[\d.]+[kM]? \(-\d+%\)/;
const TREE = "Pruned Tool Calls";
const OUTPUT = "Original Output";
const joined = (screen: string[]) => screen.join("\n");
const isMarked = (row: string) => row.startsWith("→ ");
const marked = (box: Box) => box.inner.findIndex(isMarked);
/** The tree's rows of nodes: every row after the hint and its blank line. */
/** pi's footer: the last rows of the screen. */
const footer = (screen: string[]) => joined(screen.slice(-2));
const nodeRows = (box: Box) => box.inner.slice(box.inner.findIndex((row) => row.trim() === "") + 1);

for (const [width, height] of [
  [80, 24],
  [120, 40],
] as const) {
  describe.skipIf(unavailable !== undefined)(`issue 45's tree and resume in the pi TUI at ${width}x${height}`, () => {
    let sb: Sandbox;
    let tui: TuiSession;
    const size = `${width}x${height}`;
    const shot = (name: string, screen: string[]) => saveScreen(`45-${name}-${size}`, screen);

    /** Waits until the screen stops changing and `ready` holds. */
    async function steady(ready: (screen: string[]) => boolean, timeoutMs = 30000): Promise<string[]> {
      let previous = "";
      return tui.waitFor((s) => {
        const stable = joined(s) === previous;
        previous = joined(s);
        return stable && ready(s);
      }, timeoutMs);
    }

    /**
     * `tui.command`, with more time for pi to take the Enter on a loaded machine: the harness gives it two
     * seconds; here the editor may take ten to clear before the command counts as not submitted.
     */
    async function run(command: string): Promise<void> {
      try {
        await tui.command(command);
      } catch (err) {
        if (!String(err).includes("was not submitted by the first Enter")) throw err;
        await tui.waitFor((s) => editorText(s, width) !== command, 8000);
      }
    }

    /** Opens the tree and moves the selection to the first row holding `text`. */
    async function selectRow(text: string): Promise<Box> {
      for (let i = 0; i < 30; i++) {
        const { box } = await tui.waitForBox(TREE, (b) => marked(b) >= 0);
        if (box.inner[marked(box)]!.includes(text)) return box;
        tui.keys("Down");
        await tui.waitForBox(TREE, (b) => b.inner[marked(b)] !== box.inner[marked(box)] || marked(b) !== marked(box));
      }
      throw new Error(`no tree row holds "${text}"`);
    }

    beforeAll(async () => {
      sb = await makeSandbox({
        contextPrune: {
          enabled: true,
          flushPolicy: "classic",
          minBatchChars: 1000,
          chainCompression: { enabled: true, rollingWindow: 10, fuseRangeSummary: false },
        },
        script: { main: SCRIPT.map(counted) },
      });
      tui = startTui(sb, { width, height, term: "tmux-256color" });
      await tui.waitFor("fake-model", 30000);
      for (const [text, reply] of PROMPTS) {
        tui.type(text);
        tui.keys("Enter");
        await tui.waitFor(reply, 30000);
        await steady((s) => FOOTER.test(joined(s)) && !/summarizing…/.test(joined(s)));
      }
    });
    afterAll(async () => {
      tui?.close();
      if (sb) await disposeSandbox(sb);
    });

    test("point 4: an archived write opens with a short header of its arguments, and its content pages with the output", async () => {
      await run("/pruner tree");
      await selectRow("Write the notes");
      tui.keys("Enter");
      await tui.waitForBox(TREE, (b) => b.inner.some((row) => row.includes(" write(")));
      await selectRow(" write(");
      tui.keys("Enter");
      // Saved before anything is asserted: older code draws a box with no bottom edge.
      const opened = await steady((s) => s.some((row) => row.includes(`┌─ ${OUTPUT} `)), 15000);
      shot("p4-open", opened);
      const found = findBox(opened, OUTPUT);
      expect(typeof found === "string" ? found : "").toBe("");
      const box = found as Box;
      const text = joined(box.inner);
      expect(text).toContain("path: notes.md");
      expect(text).toContain(NOTES_HEADER);
      expect(text).not.toContain("\\n");
      expect(text).toContain("Ctrl-O/Esc/q close");
      // The header is short: the content's first line shows in the body, under the header.
      expect(box.inner.findIndex((row) => row.includes("Note 01:"))).toBeLessThan(8);
      tui.keys("End");
      const { box: end, screen } = await tui.waitForBox(OUTPUT, (b) => b.inner.some((row) => row.includes("Successfully wrote")));
      shot("p4-end", screen);
      expect(joined(end.inner)).toContain("Note 42:");
      tui.keys("PPage");
      const { box: up } = await tui.waitForBox(OUTPUT, (b) => !b.inner.some((row) => row.includes("Successfully wrote")));
      expect(joined(up.inner)).toContain("Note");
      tui.keys("Home");
      await tui.waitForBox(OUTPUT, (b) => b.inner.some((row) => row.includes("Note 01:")));
      tui.keys("NPage");
      await tui.waitForBox(OUTPUT, (b) => !b.inner.some((row) => row.includes("Note 01:")));
      tui.keys("Escape");
      await tui.waitForBox(TREE);
    });

    test("point 5: the tree list takes End, Home, PgDn and PgUp, and its hint names them", async () => {
      const { box, screen } = await tui.waitForBox(TREE);
      shot("p5-tree", screen);
      expect(joined(box.inner)).toContain("Enter/Space expand • Ctrl-O open summary • Esc/q close");
      expect(joined(box.inner)).toMatch(/PgUp\/PgDn.*Home\/End/);
      const rows = nodeRows(box).filter((row) => row.trim() !== "");
      const first = box.inner.indexOf(rows[0]!);
      const last = box.inner.indexOf(rows.at(-1)!);
      tui.keys("End");
      await tui.waitForBox(TREE, (b) => marked(b) === last);
      tui.keys("Home");
      await tui.waitForBox(TREE, (b) => marked(b) === first);
      tui.keys("NPage");
      await tui.waitForBox(TREE, (b) => marked(b) === last);
      tui.keys("PPage");
      await tui.waitForBox(TREE, (b) => marked(b) === first);
      tui.keys("Escape");
      await tui.waitGone(TREE);
    });

    test("point 17: the footer's figure after pi -c is the one shown before the quit", async () => {
      const before = await steady((s) => FOOTER.test(footer(s)));
      const figure = FOOTER.exec(footer(before))![0];
      tui.close();
      tui = startTui(sb, { width, height, term: "tmux-256color", args: ["-c"] });
      await tui.waitFor((s) => FOOTER.test(footer(s)), 30000);
      const after = await steady((s) => FOOTER.test(footer(s)));
      shot("p17-resumed", [`before the quit: ${figure}`, ...after.slice(-3)]);
      expect(FOOTER.exec(footer(after))![0]).toBe(figure);
    });
    test("point 6: after /pruner compact the tree lists its rows in prompt order", async () => {
      await run("/pruner compact");
      await steady((s) => /pruner: compressed the work of/.test(joined(s).replace(/\s+/g, " ")) && FOOTER.test(joined(s)));
      await run("/pruner tree");
      const { box, screen } = await tui.waitForBox(TREE);
      shot("p6-tree", screen);
      const order = nodeRows(box)
        .filter((row) => row.trim() !== "")
        .map((row) => PROMPTS.findIndex(([text]) => row.includes(text.slice(0, 14))));
      expect(order.every((at) => at >= 0)).toBe(true);
      expect(order).toEqual([...order].sort((a, b) => a - b));
      expect(new Set(order).size).toBe(PROMPTS.length);
      expect(order.length).toBeGreaterThan(PROMPTS.length);
      tui.keys("Escape");
      await tui.waitGone(TREE);
    });

  });
}
