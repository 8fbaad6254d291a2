// Issue 36 in the real pi TUI (tmux, the fake provider on Anthropic's wire, its prompt cache simulated and
// the models priced): figures that agree with the footer and the provider (points 1 to 7), the tree,
// picker, report path and overlays (8 to 12, 8 and 10 at 120x40), the words (13, 14), input checks (15)
// and one fallback warning (16), at 80x24. Each test saves its screen before it asserts, so a run against
// older code writes the "before" screens (PI_CONDENSE_SCREENS=<dir>).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { PromptCacheSim } from "./cache-sim.js";
import { disposeSandbox, makeSandbox, sessionEntries, type Sandbox } from "./harness.js";
import { pricedModelFields } from "./priced-models.js";
import { bash, say } from "./scenario-kit.js";
import { chatEntry, findBox, flat, lastAboveEditor, saveScreen, startTui, tmuxUnavailable, type Box, type TuiSession } from "./tui.js";

const unavailable = tmuxUnavailable();
if (unavailable) console.warn(`tui-figures.e2e: skipping: ${unavailable}`);

const [WIDTH, HEIGHT] = [80, 24];
const TALL = 100;
const SCRIPT = [
  bash("seq 1 400"),
  bash("echo ok"),
  say("One done."),
  bash("seq 1 300 | tail -n 200"),
  say("Two done."),
  bash("seq 1 350 | tail -n 250"),
  say("Three done."),
  bash("seq 1 500 | tail -n 300"),
  say("Four done."),
  bash("echo hi"),
  say("Five done."),
  bash("seq 1 600 | tail -n 320"),
  say("Six done."),
];
const FOOTER = /prune: ON · ([\d.]+[kM]?)->([\d.]+[kM]?) \(-(\d+)%\)/;
const tokensOf = (figure: string) => Number.parseFloat(figure) * (figure.endsWith("k") ? 1000 : figure.endsWith("M") ? 1_000_000 : 1);
const joined = (screen: string[]) => screen.join("\n");
const shot = (name: string, screen: string[]) => saveScreen(`36-${name}`, screen);
/** The selected row of a box: its marker starts the row (a size like `373 → 61 tokens` has an arrow too). */
const isMarked = (row: string) => row.startsWith("→ ");

describe.skipIf(unavailable !== undefined)("issue 36 in the pi TUI at 80x24", () => {
  let sb: Sandbox;
  let tui: TuiSession;
  const flushLines: string[] = [];
  let compactArchived = 0;

  const waitFlat = (pattern: RegExp, timeoutMs?: number) => tui.waitFor((screen) => pattern.test(flat(screen)), timeoutMs);

  async function resized(width: number, height: number): Promise<string[]> {
    tui.resize(width, height);
    let previous = "";
    return tui.waitFor((s) => {
      const stable = joined(s) === previous;
      previous = joined(s);
      return stable && s.length === height && /prune: (ON|OFF)/.test(s[s.length - 1] ?? "");
    });
  }

  /** Runs a command on a tall screen and returns its chat entry once it is last above the editor and holds `until`. */
  async function tallEntry(command: string, start: string, until: RegExp): Promise<string[]> {
    await resized(WIDTH, TALL);
    await tui.command(command);
    let previous = "";
    const screen = await tui.waitFor((s) => {
      const stable = joined(s) === previous;
      previous = joined(s);
      return stable && lastAboveEditor(s, start) && until.test(flat(chatEntry(s, start)));
    }, 30000);
    await resized(WIDTH, HEIGHT);
    return chatEntry(screen, start);
  }

  /** Sends a prompt and waits for its reply and the footer to settle; returns the screen. */
  async function prompt(text: string, reply: string): Promise<string[]> {
    tui.type(text);
    tui.keys("Enter");
    await tui.waitFor(reply, 30000);
    let previous = "";
    return tui.waitFor((s) => {
      const stable = joined(s) === previous;
      previous = joined(s);
      return stable && !/summarizing…/.test(joined(s));
    }, 30000);
  }

  function footer(screen: string[]): string[] {
    const found = FOOTER.exec(joined(screen));
    expect(found).not.toBeNull();
    return found!.slice(1);
  }

  function noteFlushLine(screen: string[]): void {
    const line = /pruner: summarized (\d+) tool outputs?/.exec(flat(screen));
    if (line) flushLines.push(line[0]);
  }

  beforeAll(async () => {
    sb = await makeSandbox({
      api: "anthropic-messages",
      cache: new PromptCacheSim({ ttlMs: 300_000 }),
      modelFields: pricedModelFields(300),
      contextPrune: {
        enabled: true,
        flushPolicy: "classic",
        minBatchChars: 1000,
        chainCompression: { enabled: true, rollingWindow: 10, fuseRangeSummary: false },
      },
      script: { main: SCRIPT },
    });
    tui = startTui(sb, { width: WIDTH, height: HEIGHT, term: "tmux-256color" });
    await tui.waitFor("fake-model", 30000);
    for (const [text, reply] of [
      ["Count to four hundred, then say ok", "One done."],
      ["The tail of three hundred", "Two done."],
      ["The tail of three hundred and fifty", "Three done."],
    ]) {
      noteFlushLine(await prompt(text!, reply!));
    }
  });
  afterAll(async () => {
    tui?.close();
    if (sb) await disposeSandbox(sb);
  });

  test("point 3: the summarizer's input counts what it wrote to its cache", async () => {
    const stats = await tallEntry("/pruner stats", "pruner stats:", /context sent:/);
    shot("03-stats", stats);
    const input = /input: +([\d.]+[kM]?) tokens?/.exec(joined(stats));
    expect(input).not.toBeNull();
    expect(tokensOf(input![1]!)).toBeGreaterThan(0);
    expect(joined(stats)).toMatch(/input: +[\d.]+[kM]? tokens \([\d.]+[kM]? written to its cache, [\d.]+[kM]? read from it\)/);
  });

  test("point 1: /pruner compact's saving is the footer's own change", async () => {
    const before = footer(tui.capture());
    await tui.command("/pruner compact");
    const screen = await waitFlat(/pruner: compressed the work of/);
    const after = footer(await tui.waitFor(FOOTER));
    shot("01-compact", screen);
    const line = flat(chatEntry(screen, "pruner: compressed"));
    const claimed = /the next request is about ([\d.]+[kM]?) tokens? smaller/.exec(line);
    expect(claimed).not.toBeNull();
    expect(Math.abs(tokensOf(claimed![1]!) - (tokensOf(before[1]!) - tokensOf(after[1]!)))).toBeLessThanOrEqual(100);
    // Issue 36 point 13, then issue 45 point 12: the blocks are named by the prompts they hold, not by block ids.
    expect(line).toMatch(/the work of 3 earlier prompts \(prompts 1 to 3\) into one summary block each/);
    expect(line).not.toMatch(/\bb\d+\b/);
    compactArchived = Number(/archiving (\d+) outputs? in/.exec(line)?.[1] ?? "0");
  });

  test("point 5: status counts what the flush lines summarized and what compact archived", async () => {
    const status = await tallEntry("/pruner status", "pruner status:", /outputs so far:/);
    shot("05-status-counts", status);
    const counts = /outputs so far: (\d+) summarized, (\d+) archived without a summary/.exec(flat(status));
    expect(counts).not.toBeNull();
    const summarized = flushLines.reduce((sum, line) => sum + Number(/(\d+)/.exec(line)![1]), 0);
    expect(Number(counts![1])).toBe(summarized);
    expect(compactArchived).toBeGreaterThan(0);
    expect(Number(counts![2])).toBe(compactArchived);
  });

  test("point 9: the tree has a row for outputs archived without a summary, and an opened output pages", async () => {
    await resized(WIDTH, 40);
    await tui.command("/pruner tree");
    let { box, screen } = await tui.waitForBox("Pruned Tool Calls");
    shot("09-tree", screen);
    const noSummary = box.inner.findIndex((row) => row.includes("no summary"));
    expect(noSummary).toBeGreaterThan(0);
    const marked = () => tui.waitForBox("Pruned Tool Calls").then(({ box: b }) => b.inner.findIndex(isMarked));
    for (let at = await marked(); at !== box.inner.findIndex((row) => row.includes("Count to four")); at = await marked()) tui.keys("Down");
    tui.keys("Enter");
    ({ box } = await tui.waitForBox("Pruned Tool Calls", (b) => b.inner.some((row) => row.includes('bash(command="seq 1 400")'))));
    tui.keys("Down");
    await tui.waitForBox("Pruned Tool Calls", (b) => (b.inner.find(isMarked) ?? "").includes("seq 1 400"));
    tui.keys("Enter");
    ({ box, screen } = await tui.waitForBox("Original Output", (b) => b.inner.some((row) => /^ 1 *$/.test(row))));
    const firstRow = (b: Box) => Number(b.inner.find((row) => /^ \d+ *$/.test(row))!.trim());
    tui.keys("PPage");
    tui.keys("NPage");
    ({ box } = await tui.waitForBox("Original Output", (b) => firstRow(b) > 1));
    expect(firstRow(box)).toBeGreaterThan(10);
    tui.keys("End");
    ({ box, screen } = await tui.waitForBox("Original Output", (b) => b.inner.some((row) => /^ 400 *$/.test(row))));
    shot("09-output-end", screen);
    tui.keys("Home");
    await tui.waitForBox("Original Output", (b) => firstRow(b) === 1);
    tui.keys("Escape");
    await tui.waitForBox("Pruned Tool Calls");
    tui.keys("Escape");
    await tui.waitGone("Pruned Tool Calls");
    await resized(WIDTH, HEIGHT);
  });

  test("point 11: the bare /pruner picker keeps one row per subcommand and its dashes in one column", async () => {
    tui.type("/pruner");
    await tui.waitFor((s) => s.some((row) => row.trimEnd().endsWith("/pruner")));
    tui.keys("Enter");
    const screen = await tui.waitFor("choose a subcommand");
    shot("11-picker", screen);
    const options = screen.slice(screen.findIndex((row) => row.includes("choose a subcommand")) + 1, screen.findIndex((row) => /\(\d+\/\d+\)/.test(row)));
    const rows = options.filter((row) => row.trim() !== "");
    expect(rows.length).toBeGreaterThan(5);
    for (const row of rows) expect(row).toMatch(/^ {1,3}(→ )?\S+ +— \S/);
    expect(new Set(rows.map((row) => row.indexOf("—"))).size).toBe(1);
    tui.keys("Escape");
    await tui.waitGone("choose a subcommand");
  });

  test("point 15: a capitalized subcommand runs, extra words refuse, default restores the protected globs, a huge number is refused", async () => {
    await tui.command("/pruner off now");
    let screen = await waitFlat(/pruner: \/pruner off takes no arguments|Context pruning disabled\./);
    shot("15-off-now", screen);
    expect(flat(screen)).toContain('pruner: /pruner off takes no arguments, so nothing was done ("now" is more than it reads)');
    expect(joined(screen)).toMatch(/prune: ON/);
    await tui.command("/pruner protected-paths none");
    await waitFlat(/Protected paths: \(none\)/);
    await tui.command("/pruner protected-paths default");
    screen = await waitFlat(/Protected paths: (default|\*\*\/skills)/);
    shot("15-protected-default", screen);
    expect(flat(screen)).toContain("Protected paths: **/skills/**/*.md, **/gauntlet-overrides.md");
    await tui.command("/pruner min-batch-chars 99999999999999999999");
    screen = await waitFlat(/min-batch-chars( set to |: ")/i);
    shot("15-huge-number", screen);
    expect(flat(screen)).toContain('Invalid min-batch-chars: "99999999999999999999"');
  });

  test("point 14: recovery-grace 0 and an empty model suffix are said in plain words", async () => {
    await tui.command("/pruner recovery-grace 0");
    let screen = await waitFlat(/recovery-grace set to 0/);
    shot("14-grace-0", screen);
    expect(flat(screen)).toContain("recovery-grace set to 0: a recovered output stays whole only until your next prompt, then goes back to its stub.");
    await tui.command("/pruner recovery-grace 3");
    await waitFlat(/recovery-grace set to 3/);
    await tui.command("/pruner model fake/fake-model:");
    screen = await waitFlat(/Invalid model thinking suffix/);
    shot("14-empty-suffix", screen);
    expect(flat(screen)).toContain('Invalid model thinking suffix: nothing after the ":" in fake/fake-model:.');
  });

  test("point 2: /pruner off says what the next request costs before it goes out, and stats follow", async () => {
    const before = footer(tui.capture());
    await tui.command("/pruner off");
    let screen = await waitFlat(/Context pruning disabled\./);
    screen = await tui.waitFor(() => true);
    shot("02-off", screen);
    expect(flat(screen)).toContain(`The next request sends the history unpruned: about ${before[0]} tokens instead of ${before[1]}`);
    expect(flat(screen)).toMatch(/At fake\/fake-model's prices that request costs about \$[\d.]+ more than with pruning on/);
    await prompt("The tail of five hundred", "Four done.");
    const stats = await tallEntry("/pruner stats", "pruner stats:", /context sent:/);
    shot("02-stats-after-off", stats);
    const sent = /context sent: ([\d.]+[kM]?) tokens \(pruning is off; ([\d.]+[kM]?) with it\)/.exec(flat(stats));
    expect(sent).not.toBeNull();
    expect(tokensOf(sent![1]!)).toBeGreaterThan(tokensOf(before[0]!));
  });

  test("point 15: /pruner ON turns pruning on, as the footer writes it, and says what its first request rewrites", async () => {
    await tui.command("/pruner ON");
    const screen = await waitFlat(/Context pruning enabled\.|Unknown subcommand/);
    shot("15-ON", screen);
    expect(flat(screen)).toContain("Context pruning enabled.");
    expect(flat(screen)).toContain("The next request sends the history pruned");
    expect(footer(await tui.waitFor(FOOTER)).length).toBe(3);
  });

  test("point 4: the report's as-recorded dollars are not below what the provider billed for the main model", async () => {
    await resized(WIDTH, 140);
    await tui.command("/pruner report");
    const tall = await tui.waitFor((rows) => rows.some((row) => row.trim() === "HTML report:") && rows.some((row) => /^ +dollars /.test(row)), 60000);
    await resized(WIDTH, HEIGHT);
    const report = tall.slice(tall.findLastIndex((row) => row.includes("pruner report:")));
    shot("04-12-13-report", report);
    const dollars = /^ +dollars +\$([\d.]+) +\$([\d.]+) +\$([\d.]+)$/m.exec(joined(report));
    expect(dollars).not.toBeNull();
    const billed = sessionEntries(sb)
      .filter((e) => e.type === "message" && e.message.role === "assistant")
      .reduce((sum, e) => sum + (e.message.usage?.cost?.total ?? 0), 0);
    expect(billed).toBeGreaterThan(0);
    expect(Number(dollars![2])).toBeGreaterThanOrEqual(billed * 0.99);
    // Point 12: the path is one row that fits, and names the page that was written.
    const at = report.findIndex((row) => row.trim() === "HTML report:");
    const path = report[at + 1]!.trim();
    expect(report[at + 2]?.trim() ?? "").not.toMatch(/^\S+\.html$/);
    expect(path).toMatch(/^~\/\S+\.html$/);
    expect(existsSync(join(sb.root, path.slice(2)))).toBe(true);
    // Point 13: no jargon row.
    expect(joined(report)).toContain("out of lookback");
    expect(joined(report)).not.toContain("lookback misses");
  });

  test("point 6: a small output waiting does not hide the figure; one worth a flush is counted beside it", async () => {
    await tui.command("/pruner prune-on on-demand");
    await waitFlat(/Prune-on set to on-demand/);
    let screen = await prompt("Say hi", "Five done.");
    shot("06-small-pending", screen.slice(-3));
    expect(screen.at(-1)).toMatch(FOOTER);
    expect(screen.at(-1)).not.toContain("pending");
    screen = await prompt("The tail of six hundred", "Six done.");
    shot("06-pending", screen.slice(-3));
    expect(screen.at(-1)).toMatch(/prune: ON · [\d.]+[kM]?->[\d.]+[kM]? \(-\d+%\) · 1 pending/);
  });

  test("point 7: a summarizer model pi has no credentials for shows in status as not in use", async () => {
    await tui.command("/pruner model anthropic/claude-haiku-4-5");
    await waitFlat(/Summarizer model set to: anthropic\/claude-haiku-4-5/);
    const status = await tallEntry("/pruner status", "pruner status:", /Summarizer model:/);
    shot("07-status", status);
    expect(flat(status)).toMatch(/in use now: session model Fake Model, pi has no credentials for anthropic/);
  });

  test("point 16: the fallback that follows raises one warning with its cause and fix", async () => {
    await tui.command("/pruner now");
    const screen = await waitFlat(/failing, using session model/, 30000);
    const settled = await tui.waitFor((s) => /pruner: summarized/.test(flat(s)) || /nothing/.test(flat(s)), 30000);
    shot("16-fallback", settled);
    expect(flat(settled).match(/failing, using session model/g)).toHaveLength(1);
    // The notice's two lines, as the chat wrapped them: the event, then its cause and fix.
    expect(flat(screen)).toMatch(/failing, using session model .+ until it recovers .*Cause: .+\. To fix: run \/login anthropic in pi/);
  });

  describe("after a restart, at 120x40", () => {
    test("point 6: the resumed session's footer shows its figure before any request", async () => {
      tui.close();
      tui = startTui(sb, { width: 120, height: 40, term: "xterm-256color", args: ["-c"] });
      // The resumed chat ends with the last flush line; the footer is pi's last row.
      const screen = await tui.waitFor((s) => /prune: ON/.test(s.at(-1) ?? "") && /pruner: summarized/.test(joined(s)), 30000);
      await new Promise((r) => setTimeout(r, 500));
      const shown = tui.capture();
      shot("06-resumed", shown.slice(-3));
      expect(screen.length).toBe(40);
      expect(shown.at(-1)).toMatch(FOOTER);
    });

    test("point 10: the tree and settings boxes leave no chat text beside them", async () => {
      await tui.command("/pruner tree");
      let { box, screen } = await tui.waitForBox("Pruned Tool Calls");
      shot("10-tree-120x40", screen);
      const sides = (b: Box, rows: string[]) => rows.slice(b.top, b.bottom + 1).map((row) => [row.slice(0, b.left), row.slice(b.right + 1)].join("|"));
      for (const side of sides(box, screen)) expect(side.trim()).toBe("|");
      tui.keys("Escape");
      await tui.waitGone("Pruned Tool Calls");
      await tui.command("/pruner settings");
      ({ box, screen } = await tui.waitForBox("pruner settings"));
      shot("10-settings-120x40", screen);
      for (const side of sides(box, screen)) expect(side.trim()).toBe("|");
    });

    test("point 8: the settings overlay opened at 120x40 refits at 80x24, and 20 Downs keep the marker in view", async () => {
      tui.resize(80, 24);
      let previous = "";
      const screen = await tui.waitFor((s) => {
        const stable = joined(s) === previous;
        previous = joined(s);
        return stable && s.length === 24;
      });
      shot("08-settings-resized", screen);
      const box = findBox(screen, "pruner settings");
      expect(typeof box).not.toBe("string");
      expect(joined(screen)).toContain("Esc to close");
      expect(screen.at(-1)).toMatch(/prune: ON/);
      for (let i = 0; i < 20; i++) tui.keys("Down");
      const { box: moved, screen: after } = await tui.waitForBox("pruner settings", (b) => b.inner.some((row) => row.includes("→ ")));
      shot("08-settings-20-down", after);
      expect(moved.inner.filter((row) => row.includes("→ "))).toHaveLength(1);
      tui.keys("Escape");
      await tui.waitGone("pruner settings");
    });
  });
});
