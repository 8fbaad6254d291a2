// What a user reads in the real pi TUI at 80x24 (tmux, the fake provider): the footer right after a flush
// and a chain compression, /pruner model's usage, did-you-mean and credentials warning, confirmations that
// stay, the report's on-demand note, one name per setting, the protected list, stats and compact wording
// (issue 28 points 2, 5, 6, 7, 11, 12, 13; points 8, 9, 10 and the settings search are in tui.e2e.test.ts).
// With PI_CONDENSE_SCREENS=<dir> each asserted screen is also written there, as the evidence a change shows.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { disposeSandbox, makeSandbox, summarizerRequests, type Sandbox } from "./harness.js";
import { bash, say } from "./scenario-kit.js";
import { chatEntry, flat, lastAboveEditor, saveScreen, startTui, tmuxUnavailable, type TuiSession } from "./tui.js";

const unavailable = tmuxUnavailable();
if (unavailable) console.warn(`tui-surfaces.e2e: skipping: ${unavailable}`);

const [WIDTH, HEIGHT] = [80, 24];
/** Tall enough for a whole report: pi keeps no scrollback to read it from. */
const TALL = 90;
const LONG_PATHS = ["**/skills/**/*.md", "**/gauntlet-overrides.md", "docs/architecture/decisions/**/*.md", "vendor/generated/schemas/**/*.json"];
const SCRIPT = [
  bash("echo first; seq 1 300"),
  bash("seq 1 250 | tail -n 120"),
  say("Counted twice."),
  bash("seq 1 500 | tail -n 200"),
  say("Tail done."),
  bash("seq 1 400 | tail -n 150"),
  say("Third done."),
];
const FOOTER = /prune: ON · ([\d.]+[kM]?)->([\d.]+[kM]?) \(-(\d+)%\)/;
const SENT = /context sent: +([\d.]+[kM]?) tokens? \(([\d.]+[kM]?) without pruning, -(\d+)%\)/;

const shot = saveScreen;

const joined = (screen: string[]) => screen.join("\n");
const entry = chatEntry;

describe.skipIf(unavailable !== undefined)("what a user reads in the pi TUI at 80x24", () => {
  let sb: Sandbox;
  let tui: TuiSession;
  let afterFirstFlush: string[] = [];

  /** Waits for a sentence the chat may have wrapped over several rows. */
  const waitFlat = (pattern: RegExp, timeoutMs?: number) => tui.waitFor((screen) => pattern.test(flat(screen)), timeoutMs);

  /**
   * Runs a command on a tall screen and returns its chat entry (the rows from `start` to the blank row after
   * it) once that entry is the last one above the editor, holds `until` and the screen stopped changing: an
   * earlier entry of the same command, or one drawn in several writes, is never read.
   */
  async function tallEntry(command: string, start: string, until: RegExp): Promise<string[]> {
    await resized(TALL);
    await tui.command(command);
    let previous = "";
    const screen = await tui.waitFor((s) => {
      const stable = joined(s) === previous;
      previous = joined(s);
      return stable && lastAboveEditor(s, start) && until.test(flat(entry(s, start)));
    }, 30000);
    await resized(HEIGHT);
    return entry(screen, start);
  }

  /** Resizes, then waits until pi has redrawn the whole screen at the new size: footer on the last row, nothing moving. */
  async function resized(height: number): Promise<void> {
    tui.resize(WIDTH, height);
    let previous = "";
    await tui.waitFor((s) => {
      const stable = joined(s) === previous;
      previous = joined(s);
      return stable && s.length === height && /prune: ON/.test(s[s.length - 1] ?? "");
    });
  }

  function footerFigure(screen: string[]): string[] {
    const found = FOOTER.exec(joined(screen));
    expect(found).not.toBeNull();
    return found!.slice(1);
  }

  async function statusFigure(): Promise<string[]> {
    const status = await tallEntry("/pruner status", "pruner status:", SENT);
    const found = SENT.exec(joined(status));
    expect(found).not.toBeNull();
    return [found![2]!, found![1]!, found![3]!];
  }

  beforeAll(async () => {
    sb = await makeSandbox({
      contextPrune: {
        enabled: true,
        minBatchChars: 0,
        flushPolicy: "classic",
        chainCompression: { enabled: true, rollingWindow: 1 },
        protectedPaths: LONG_PATHS,
      },
      script: { main: SCRIPT },
    });
    tui = startTui(sb, { width: WIDTH, height: HEIGHT, term: "tmux-256color" });
    await tui.waitFor("fake-model", 30000);
  });
  afterAll(async () => {
    tui?.close();
    if (sb) await disposeSandbox(sb);
  });

  test("point 2: right after a flush the footer shows the request that follows, as /pruner status does", async () => {
    tui.type("Count to three hundred and then show the last lines");
    tui.keys("Enter");
    await tui.waitFor("Counted twice.", 30000);
    const screen = await tui.waitFor((s) => joined(s).includes("pruner: summarized") && FOOTER.test(joined(s)), 30000);
    shot("02-after-flush", screen);
    afterFirstFlush = footerFigure(screen);
    expect(await statusFigure()).toEqual(afterFirstFlush);
    expect(footerFigure(await tui.waitFor(FOOTER))).toEqual(afterFirstFlush);
  });

  test("point 2: right after a chain compression the footer moves to the compressed request, as /pruner status does", async () => {
    tui.type("Now the tail of five hundred");
    tui.keys("Enter");
    await tui.waitFor("Tail done.", 30000);
    const screen = await waitFlat(/compressed the work of 1 earlier prompt/, 30000);
    shot("02-after-chain-compression", screen);
    const figure = footerFigure(await tui.waitFor(FOOTER));
    expect(figure).not.toEqual(afterFirstFlush);
    expect(await statusFigure()).toEqual(figure);
  });

  test("point 5: a bare model id gets a did-you-mean, and the usage line's example is a model pi accepts", async () => {
    await tui.command("/pruner model fake-summarizer");
    let screen = await waitFlat(/Did you mean/);
    expect(flat(screen)).toContain("fake-summarizer has no provider. Did you mean /pruner model fake/fake-summarizer?");
    shot("05-did-you-mean", screen);
    await tui.command("/pruner model not-a-model!");
    screen = await waitFlat(/Usage: \/pruner model/);
    const example = /\(e\.g\. (\S+) or/.exec(flat(screen))?.[1];
    expect(example).toBe("anthropic/claude-haiku-4-5");
    shot("05-usage", screen);
    await tui.command(`/pruner model ${example}`);
    screen = await waitFlat(new RegExp(`Summarizer model set to: ${example}`));
    expect(joined(screen)).not.toContain("pi does not know");
  });

  test("point 6: a model without credentials is saved with a warning that names the fix", async () => {
    const screen = await waitFlat(/pi has no credentials for anthropic/);
    expect(flat(screen)).toMatch(/pi has no credentials for anthropic, so summaries use the session model until it has: .*login/);
    shot("06-no-credentials", screen);
  });

  test("point 7: a confirmation stays in the chat when the next notice arrives", async () => {
    await tui.command("/pruner now");
    const screen = await waitFlat(/pruner: nothing to summarize yet/);
    expect(joined(screen)).toContain("Summarizer model set to: anthropic/claude-haiku-4-5");
    shot("07-confirmation-stays", screen);
  });

  test("point 7: the dedup state is named once", async () => {
    await tui.command("/pruner dedup");
    const screen = await waitFlat(/Content-hash dedup is ON/);
    const notice = flat(entry(screen, "Content-hash dedup is"));
    expect(notice.match(/\bON\b/g)).toHaveLength(1);
    shot("07-dedup", screen);
  });

  test("point 6: after the summarizer model fails, status and /pruner model say which model is in use and why", async () => {
    tui.type("And the tail of four hundred");
    tui.keys("Enter");
    await tui.waitFor("Third done.", 30000);
    await tui.waitFor((s) => joined(s).includes("pruner: summarized"), 30000);
    expect(summarizerRequests(sb).length).toBeGreaterThan(0);
    const status = await tallEntry("/pruner status", "pruner status:", /in use now:/);
    expect(joined(status)).toMatch(/Summarizer model: +anthropic\/claude-haiku-4-5/);
    expect(flat(status)).toMatch(/in use now: +session model Fake Model/);
    shot("06-status-in-use", status);
    await tui.command("/pruner model");
    const screen = await waitFlat(/In use now: session model Fake Model/);
    shot("06-model-in-use", screen);
  });

  test("point 13: stats say whose calls they count and show the context sent", async () => {
    const stats = await tallEntry("/pruner stats", "pruner stats:", /context sent:/);
    expect(joined(stats)).toContain("(calls, tokens and cost are the summarizer's own)");
    expect(joined(stats)).toMatch(SENT);
    shot("13-stats", stats);
  });

  test("point 13: status names the policy in force while pruning is on", async () => {
    const status = joined(await tallEntry("/pruner status", "pruner status:", /policy: /));
    expect(status).toContain("policy: classic (summarize at every final reply of the agent)");
    expect(status).not.toContain("inactive");
  });

  test("point 13: a second /pruner compact says why nothing is left to compress", async () => {
    await tui.command("/pruner compact");
    await waitFlat(/pruner: (compressed|no earlier prompt's work left to compress)/);
    await tui.command("/pruner compact");
    const screen = await waitFlat(/left to compress: /);
    expect(flat(screen)).toMatch(/no earlier prompt's work left to compress: .*(already compressed|still under way|no tool output)/);
    shot("13-compact-again", screen);
  });

  test("point 12: /pruner status and the settings overlay name the trigger the same way", async () => {
    await tui.command("/pruner prune-on on-demand");
    await waitFlat(/Prune-on set to on-demand/);
    const status = await tallEntry("/pruner status", "pruner status:", /Prune trigger: +on-demand/);
    expect(joined(status)).toMatch(/Prune trigger: +on-demand \(only on \/pruner now\)/);
    shot("12-status-names", status);
    await tui.command("/pruner settings");
    const { box } = await tui.waitForBox("pruner settings", (b) => b.inner.some((row) => row.includes("Prune trigger")));
    expect(box.inner.join("\n")).toMatch(/Prune trigger +on-demand/);
  });

  test("point 12: a protected list too long for its row ends in an ellipsis, and Enter shows it whole", async () => {
    tui.type("protected paths");
    let { box, screen } = await tui.waitForBox("pruner settings", (b) => b.inner.some((row) => row.includes("→ Protected paths")));
    const row = box.inner.find((r) => r.includes("→ Protected paths"))!;
    expect(row.trimEnd()).toMatch(/…$/);
    shot("12-protected-row", screen);
    tui.keys("Enter");
    ({ box, screen } = await tui.waitForBox("pruner settings", (b) => b.inner.some((r) => r.includes("vendor/generated/schemas"))));
    expect(box.inner[0]!.trim()).toBe("Protected paths");
    for (const path of LONG_PATHS) expect(box.inner.join("\n")).toContain(path);
    expect(flat(box.inner)).toContain("/pruner protected-paths");
    shot("12-protected-whole", screen);
    tui.keys("Escape");
    await tui.waitForBox("pruner settings", (b) => b.inner.some((r) => r.includes("→ Protected paths")));
    tui.keys("Escape");
    await tui.waitGone("pruner settings");
  });

  test("point 11: with summaries only on demand, the report says why its what-if equals no pruning", async () => {
    // The session's only report, so the first one drawn whole is this one.
    await resized(TALL);
    await tui.command("/pruner report");
    const screen = await tui.waitFor("HTML report:", 30000);
    await resized(HEIGHT);
    const report = flat(screen.slice(screen.findLastIndex((row) => row.includes("pruner report:"))));
    expect(report).toContain("your settings summarize only when you run /pruner now, which a replay cannot do");
    expect(report).toContain("add pruneOn=agent-message");
    shot("11-report-on-demand", screen.slice(screen.findLastIndex((row) => row.includes("pruner report:"))));
  });
});
