// Issue 45 in the real pi TUI (tmux, fake provider), at 80x24 and 120x40:
// point 7: a malformed `contextPrune` block on `pi -c`: its warnings show after the restored chat, the footer
// and `/pruner status` say why pruning is off, and an unknown key is named;
// point 15: a write that copies an argument marker is blocked, and the user is told in plain words that nothing
// was written (pi draws the call's content before the block).
// Each test saves its screen before it asserts, so a run against older code writes the "before" screens
// (PI_CONDENSE_SCREENS=<dir>).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { RecordedRequest, ScriptedReply } from "./fake-llm.js";
import { disposeSandbox, makeSandbox, runPrint, type Sandbox } from "./harness.js";
import { say } from "./scenario-kit.js";
import { flat, saveScreen, startTui, tmuxUnavailable, type TuiSession } from "./tui.js";

const unavailable = tmuxUnavailable();
if (unavailable) console.warn(`tui-warnings.e2e: skipping: ${unavailable}`);

const SIZES: Array<[number, number]> = [
  [80, 24],
  [120, 40],
];
const TERM = "tmux-256color";
const TALL = 100;

/** A reply long enough that three of them push whatever the chat showed first off a 40-row screen. */
const longReply = (n: number) => say(Array.from({ length: 16 }, (_, i) => `Reply ${n}, line ${i + 1}.`).join("\n\n") + `\n\nEnd of reply ${n}.`);

// One session per size: each resume appends its own notice, and `/pruner status` its report, to the session.
for (const [width, height] of SIZES) {
  describe.skipIf(unavailable !== undefined)(`point 7: a malformed contextPrune block on pi -c at ${width}x${height}`, () => {
    let sb: Sandbox;
    let tui: TuiSession;
    let resumed: string[] = [];
    beforeAll(async () => {
      sb = await makeSandbox({ contextPrune: { enabled: "yes", madeUpKey: 1 }, script: { main: [longReply(1), longReply(2), longReply(3)] } });
      const run = await runPrint(sb, ["first", "second", "third"], [], { timeoutMs: 60_000 });
      if (run.code !== 0) throw new Error(`the print run failed: ${run.stderr}`);
      tui = startTui(sb, { width, height, term: TERM, args: ["-c"] });
      await tui.waitFor((s) => /prune: OFF/.test(flat(s)) && /End of reply 3\./.test(flat(s)), 30000);
      // The startup settles (the footer, the notices drawn after the transcript) before the screen is read.
      await new Promise((r) => setTimeout(r, 1500));
      resumed = tui.capture();
      saveScreen(`p7-${width}x${height}-resumed`, resumed);
    }, 120_000);
    afterAll(async () => {
      tui?.close();
      if (sb) await disposeSandbox(sb);
    });

    test("the settings warnings show below the restored chat, the unknown key named", () => {
      const lastReply = resumed.findLastIndex((row) => row.includes("End of reply 3."));
      const below = flat(resumed.slice(lastReply + 1));
      expect(below).toContain("contextPrune.enabled should be true or false");
      expect(below).toContain("contextPrune.madeUpKey");
    });

    test("the footer says pruning is off and why", () => {
      const footer = resumed.slice(-3).join("\n");
      expect(footer).toMatch(/prune: OFF · settings\.json: enabled is not true or false/);
    });

    test("/pruner status says Enabled: false and why", async () => {
      // As tall as the whole status block: pi keeps no scrollback to read it from.
      tui.resize(width, TALL);
      await tui.command("/pruner status");
      const tall = await tui.waitFor((s) => /pruner status:/.test(flat(s)) && /Summarizer model:/.test(flat(s)), 15000);
      tui.resize(width, height);
      const screen = tall.slice(tall.findLastIndex((row) => row.includes("pruner status:")));
      saveScreen(`p7-${width}x${height}-status`, screen);
      expect(flat(screen)).toMatch(/Enabled: false \(off because settings\.json contextPrune\.enabled should be true or false/);
    }, 30_000);
  });
}

// ---------------------------------------------------------------------------
// Point 15: a blocked write
// ---------------------------------------------------------------------------

const MARKER = /⟦pi-condense: [^⟧\n]*⟧/;
const OLD = Array.from({ length: 20 }, (_, i) => `export const value${i} = ${i} * 2; // original line`).join("\n");
const NEW = OLD.replaceAll("original", "revised");

/** Prompt 2's first reply: a write whose content is the marker the request shows, as a model imitating it would send. */
function copyTheMarker(req: RecordedRequest): ScriptedReply {
  const marker = MARKER.exec(JSON.stringify(req.body).replaceAll('\\"', '"'))?.[0] ?? "no marker in the request";
  return { toolCalls: [{ name: "write", args: { path: "copy.ts", content: `// restored\n${marker}\n` } }] };
}

const copyScript = () => ({
  main: [
    { toolCalls: [{ name: "edit", args: { path: "values.ts", edits: [{ oldText: OLD, newText: NEW }] } }] } as ScriptedReply,
    say("Edited values.ts."),
    copyTheMarker,
    say("I will recover the original first."),
  ],
});

for (const [width, height] of SIZES) {
  describe.skipIf(unavailable !== undefined)(`point 15: a blocked write at ${width}x${height}`, () => {
    let sb: Sandbox;
    let tui: TuiSession;
    let screen: string[] = [];
    beforeAll(async () => {
      sb = await makeSandbox({ contextPrune: { enabled: true, minBatchChars: 0 }, script: copyScript() });
      writeFileSync(join(sb.projectDir, "values.ts"), `${OLD}\n`);
      tui = startTui(sb, { width, height, term: TERM });
      await tui.waitFor("fake-model", 30000);
      tui.type("revise values.ts");
      tui.keys("Enter");
      await tui.waitFor("Edited values.ts.", 30000);
      await tui.waitFor((s) => /pruner: (archived|summarized)/.test(flat(s)), 30000);
      tui.type("now copy it");
      tui.keys("Enter");
      await tui.waitFor("I will recover the original first.", 30000);
      await new Promise((r) => setTimeout(r, 1000));
      screen = tui.capture();
      saveScreen(`p15-${width}x${height}`, screen);
    }, 120_000);
    afterAll(async () => {
      tui?.close();
      if (sb) await disposeSandbox(sb);
    });

    test("the write was blocked: no file", () => {
      expect(existsSync(join(sb.projectDir, "copy.ts"))).toBe(false);
    });

    test("the chat tells the user in plain words that the write to copy.ts was blocked and nothing was written", () => {
      expect(flat(screen)).toMatch(/blocked the agent's write to copy\.ts: nothing was written/);
    });
  });
}
