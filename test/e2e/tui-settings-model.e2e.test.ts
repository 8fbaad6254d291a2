// Issue 45, points 1, 3 and 18 in the real pi TUI (tmux, the fake provider), at 80x24 and at 120x40:
// a summarizer model changed after a fallback takes (what /pruner model says and where the next summaries
// go), the settings overlay's row shows the value /pruner min-batch-chars set and Enter moves on from it,
// and the model browser starts on the current model, names it once and says why a search finds nothing.
// With PI_CONDENSE_SCREENS=<dir> each asserted screen is also written there.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { disposeSandbox, makeSandbox, summarizerRequests, type Sandbox } from "./harness.js";
import { bash, say } from "./scenario-kit.js";
import { chatEntry, flat, saveScreen, startTui, tmuxUnavailable, type Box, type TuiSession } from "./tui.js";

const unavailable = tmuxUnavailable();
if (unavailable) console.warn(`tui-settings-model.e2e: skipping: ${unavailable}`);

const SETTINGS = "pruner settings";
const SCRIPT = [
  bash("echo first; seq 1 300"),
  bash("seq 1 250 | tail -n 120"),
  say("Counted twice."),
  bash("seq 1 500 | tail -n 200"),
  say("Tail done."),
];
/** A provider pi has credentials for whose endpoint refuses every connection (port 1). */
const BROKEN = { baseUrl: "http://127.0.0.1:1/v1", api: "openai-completions", apiKey: "broken-key", models: [{ id: "dead-model", name: "Dead Model", contextWindow: 200000, maxTokens: 4096 }] };

const joined = (screen: string[]) => screen.join("\n");
const selectedRow = (box: Box) => box.inner.find((row) => /^ ?→ /.test(row));

for (const [width, height] of [
  [80, 24],
  [120, 40],
] as const) {
  const size = `${width}x${height}`;
  describe.skipIf(unavailable !== undefined)(`summarizer model and settings rows in the pi TUI at ${size}`, () => {
    let sb: Sandbox;
    let tui: TuiSession;
    const waitFlat = (pattern: RegExp, timeoutMs?: number) => tui.waitFor((screen) => pattern.test(flat(screen)), timeoutMs);
    const boxed = (ready: (box: Box) => boolean) => tui.waitForBox(SETTINGS, ready);

    beforeAll(async () => {
      sb = await makeSandbox({ contextPrune: { enabled: true, minBatchChars: 0, flushPolicy: "classic" }, script: { main: SCRIPT } });
      const modelsFile = join(sb.agentDir, "models.json");
      const models = JSON.parse(readFileSync(modelsFile, "utf8"));
      models.providers.broken = BROKEN;
      writeFileSync(modelsFile, JSON.stringify(models, null, 2));
      tui = startTui(sb, { width, height, term: "tmux-256color" });
      await tui.waitFor("fake-model", 30000);
    });
    afterAll(async () => {
      tui?.close();
      if (sb) await disposeSandbox(sb);
    });

    test("point 1: a model picked after a fallback takes: /pruner model names it in use, and the next summaries go to it", async () => {
      await tui.command("/pruner model broken/dead-model");
      await waitFlat(/Summarizer model set to: broken\/dead-model/);
      tui.type("Count to three hundred and then show the last lines");
      tui.keys("Enter");
      await tui.waitFor("Counted twice.", 30000);
      const fallback = await waitFlat(/Dead Model failing, using session model Fake Model.*Cause: .*To fix/, 30000);
      saveScreen(`p1-fallback-${size}`, fallback);
      expect(flat(chatEntry(fallback, "Dead Model failing"))).not.toContain(".:");

      await tui.command("/pruner model fake/fake-summarizer");
      await waitFlat(/Summarizer model set to: fake\/fake-summarizer/);
      await tui.command("/pruner model");
      const screen = await waitFlat(/Current summarizer model: fake\/fake-summarizer/);
      saveScreen(`p1-${size}`, screen);
      expect(flat(screen)).not.toContain("In use now");

      const before = summarizerRequests(sb).length;
      tui.type("Now the tail of five hundred");
      tui.keys("Enter");
      await tui.waitFor("Tail done.", 30000);
      await tui.waitFor(() => summarizerRequests(sb).length > before, 30000);
      expect(summarizerRequests(sb).slice(before).map((request) => request.model)).toEqual(["fake-summarizer"]);
    });

    test("point 3: the settings row shows the value /pruner min-batch-chars set, and Enter moves to the next preset after it", async () => {
      await tui.command("/pruner min-batch-chars 200");
      await waitFlat(/min-batch-chars set to 200/);
      await tui.command("/pruner settings");
      await boxed((box) => selectedRow(box)?.includes("Enabled") ?? false);
      tui.type("min batch");
      let { box, screen } = await boxed((b) => selectedRow(b)?.includes("Min batch size") ?? false);
      saveScreen(`p3-${size}`, screen);
      expect(selectedRow(box)).toMatch(/Min batch size +200 chars/);
      tui.keys("Enter");
      ({ box, screen } = await boxed((b) => !(selectedRow(b) ?? "").includes("200 chars")));
      saveScreen(`p3-enter-${size}`, screen);
      expect(selectedRow(box)).toMatch(/Min batch size +500 chars/);
      tui.keys("Escape");
      await tui.waitGone(SETTINGS);
    });

    test("point 18: the model browser starts on the current model, names it once, and a search without a match speaks of models", async () => {
      await tui.command("/pruner settings");
      await boxed((box) => selectedRow(box)?.includes("Enabled") ?? false);
      tui.type("summarizer model");
      await boxed((b) => selectedRow(b)?.includes("Summarizer model") ?? false);
      tui.keys("Enter");
      let { box, screen } = await boxed((b) => b.inner.some((row) => row.includes("default (active model)")));
      saveScreen(`p18-open-${size}`, screen);
      const current = selectedRow(box) ?? "";
      expect(current).toContain("fake/fake-summarizer");
      expect(current.split("fake/fake-summarizer")).toHaveLength(2);
      tui.type("haiku");
      ({ box, screen } = await boxed((b) => b.inner.some((row) => row.includes("> haiku")) && !b.inner.some((row) => row.includes("default (active model)"))));
      saveScreen(`p18-search-${size}`, screen);
      const text = flat(box.inner);
      expect(text).not.toContain("No matching settings");
      expect(text).toContain("No matching models");
      expect(text).toMatch(/only providers pi has credentials for are listed/);
      tui.keys("Escape");
      await boxed((b) => b.inner.some((row) => row.includes("Summarizer model")) && !joined(b.inner).includes("haiku"));
      tui.keys("Escape");
      await tui.waitGone(SETTINGS);
    });
  });
}
