import { helpText } from "./command-help.js";
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { initTheme } from "@earendil-works/pi-coding-agent";
import { settingDescription } from "./command-descriptions.js";
import { buildSettingItems, settingsLayout } from "./command-settings.js";
import { modelBrowserItems } from "./model-browser.js";
import { registerCommands } from "./commands.js";
import { DEFAULT_CONFIG } from "../settings/config-shape.js";
import { useTempAgentDirs } from "../../test/temp-agent-dir.js";

const ENTER = "\r";
const DOWN = "\x1b[B";
const ESC = "\x1b";

const agentDirs = useTempAgentDirs("pruner-settings-", () => initTheme("dark"));
const { settleSaves } = agentDirs;

const plainTheme = { fg: (_c: string, s: string) => s, bg: (_c: string, s: string) => s } as any;

const ANSI = /\x1b\[[0-9;]*m|\x1b_[^\x07]*\x07|\x1b\]8;;\x07/g;
const strip = (lines: readonly string[]) => lines.map((l) => l.replace(ANSI, ""));

/** Opens `/pruner settings` on a terminal of `rows` x `columns` and returns the overlay component plus observation hooks. */
async function openSettings(config: Record<string, unknown> = {}, models: any[] | (() => any[]) = [], rows = 24, columns = 80) {
  const dir = await agentDirs.fresh();
  let spec: any;
  const pi = { registerCommand: (_n: string, s: any) => (spec = s), registerMessageRenderer: () => {} } as any;
  const box = { value: { ...DEFAULT_CONFIG, enabled: true, ...config } as any };
  registerCommands(pi, box, async () => ({ ok: false, reason: "empty" }), () => [], () => ({}) as any, () => undefined, {} as any, async () => ({ compressedEntries: [], kept: { alreadyCompressed: 0, underWay: 0, noToolCalls: 0, readBack: 0, nothingArchivable: 0 } }));
  const status: Array<string | undefined> = [];
  const notes: string[] = [];
  const widgets: Array<[string, unknown]> = [];
  let component: any;
  let options: any;
  const tui = { terminal: { rows, columns } };
  let finish: (value: unknown) => void = () => {};
  const closed = new Promise((resolve) => (finish = resolve));
  const getAvailable = typeof models === "function" ? models : () => models;
  const ctx = {
    ui: {
      notify: (m: string) => notes.push(m),
      setStatus: (_id: string, t?: string) => status.push(t),
      setWidget: (id: string, lines: unknown) => widgets.push([id, lines]),
      custom: (factory: any, opts: any) => {
        options = opts;
        component = factory(tui, plainTheme, {}, (value: unknown) => finish(value));
        return closed;
      },
    },
    modelRegistry: { getAvailable },
  } as any;
  const done = spec.handler("settings", ctx);
  const list = component.list;
  const saved = async () => {
    await settleSaves();
    const file = join(dir, "settings.json");
    return existsSync(file) ? JSON.parse(await readFile(file, "utf8")).contextPrune : undefined;
  };
  return { box, component, list, options, status, notes, widgets, done, saved, ctx, closed, tui };
}

describe("settings overlay", () => {
  test("opens an 80-column overlay in a full box titled pruner settings", async () => {
    const s = await openSettings();
    expect(s.options.overlay).toBe(true);
    expect(s.options.overlayOptions()).toEqual({ width: "100%", row: 1 });
    const lines = strip(s.component.render(80));
    expect(lines[0]).toStartWith("┌─ pruner settings ─");
    expect(lines.at(-1)).toBe(`└${"─".repeat(78)}┘`);
    for (const line of lines.slice(1, -1)) expect(line).toMatch(/^│ .{76} │$/u);
    for (const line of lines) expect(Bun.stringWidth(line)).toBe(80);
    expect(lines.some((l) => l.includes("→ Enabled"))).toBe(true);
    s.component.handleInput(ESC);
    await s.done;
  });

  test("opened at 120x40 and shrunk to 80x24, the box fits again and keeps the selection in view (issue 36, point 8)", async () => {
    const s = await openSettings({}, [], 40, 120);
    const tall = strip(s.component.render(120));
    s.tui.terminal.rows = 24;
    s.tui.terminal.columns = 80;
    for (let i = 0; i < 20; i++) s.component.handleInput(DOWN);
    const lines = strip(s.component.render(80));
    expect(lines.length).toBeLessThan(tall.length);
    expect(lines.length).toBeLessThanOrEqual(24 - 2);
    expect(lines.at(-1)).toBe(`└${"─".repeat(78)}┘`);
    expect(lines.some((l) => l.includes("Esc to close"))).toBe(true);
    expect(lines.filter((l) => l.includes("→ "))).toHaveLength(1);
  });

  test("at 120 columns the rows beside the 80-column box are blank, so no chat shows through (issue 36, point 10)", async () => {
    const s = await openSettings({}, [], 40, 120);
    const lines = strip(s.component.render(120));
    for (const line of lines) {
      expect(Bun.stringWidth(line)).toBe(120);
      expect(line.slice(0, 20)).toBe(" ".repeat(20));
      expect(line.slice(100)).toBe(" ".repeat(20));
    }
    expect(lines[0]!.slice(20, 100)).toStartWith("┌─ pruner settings ─");
  });

  test("from its fixed top row the box never reaches past a 24-row terminal while the selection moves", async () => {
    const s = await openSettings();
    const top = s.options.overlayOptions().row;
    for (let i = 0; i < 22; i++) {
      expect(top + s.component.render(80).length).toBeLessThanOrEqual(24);
      s.component.handleInput(DOWN);
    }
  });

  test("a tall terminal lists every setting without scrolling, a short one scrolls the list", () => {
    const items = buildSettingItems({} as any, { ...DEFAULT_CONFIG });
    expect(settingsLayout(items, 50, 160)).toMatchObject({ listRows: 24 });
    const short = settingsLayout(items, 24, 80);
    expect(short.listRows).toBeLessThan(24);
    expect(short.top + short.height).toBeLessThanOrEqual(24);
  });

  test("the hint says changes are saved instead of offering to cancel", async () => {
    const s = await openSettings();
    const text = strip(s.component.render(80)).join("\n");
    expect(text).toContain("Type to search · Enter/Space to change · Esc to close · changes are saved");
    expect(text).not.toContain("Esc to cancel");
  });

  test("typing filters the settings by label, like pi's own /settings", async () => {
    const s = await openSettings();
    for (const ch of "timeout") s.component.handleInput(ch);
    const labels = strip(s.component.render(80)).flatMap((l) => /^│ [→ ] (\S(?:\S| \S)*) {2,}[^\s│]/.exec(l)?.[1] ?? []);
    expect(labels.sort()).toEqual(["Summarizer idle timeout", "Summarizer max timeout"]);
    s.component.handleInput(ENTER);
    expect(s.box.value.summarizerMaxTimeoutMs === 300000 || s.box.value.summarizerIdleTimeoutMs === 45000).toBe(true);
  });

  test("lists the 24 settings in order with values in their units", () => {
    const items = buildSettingItems({} as any, { ...DEFAULT_CONFIG });
    expect(items.map((i) => i.id)).toEqual([
      "enabled", "showPruneStatusLine", "pruneOn", "summarizerModel", "summarizerThinking", "batchingMode", "summaries",
      "quietOversizedSkips", "minBatchChars", "recoveryGraceTurns", "summarizerIdleTimeoutMs", "summarizerMaxTimeoutMs",
      "autoBudgetThreshold", "dedupByContentHash", "cacheBreakpoint", "chainCompressionEnabled", "chainCompressionRollingWindow",
      "chainCompressionStripThinking", "chainCompressionFuseRange", "purgeErrorsEnabled", "purgeErrorsCooldown",
      "purgeErrorsMinArgChars", "protectedTools", "protectedPaths",
    ]);
    const byId = new Map(items.map((i) => [i.id, i]));
    expect(items.map((i) => i.label)).toEqual([
      "Enabled", "Prune status line", "Prune trigger", "Summarizer model", "Summarizer thinking", "Batching mode", "Summaries",
      "Quiet skip notifications", "Min batch size", "Recovery grace", "Summarizer idle timeout", "Summarizer max timeout",
      "Auto-flush at context %", "Dedup by content hash", "Spare cache breakpoint", "Chain compression", "Recent prompts kept whole", "Strip final thinking",
      "Fuse range summary", "Error purge", "Error purge cooldown", "Error purge min argument size", "Protected tools",
      "Protected paths",
    ]);
    expect(byId.get("autoBudgetThreshold")!.values).toEqual(["off", "60%", "70%", "80%", "90%"]);
    expect(byId.get("minBatchChars")!.values).toEqual(["off", "500 chars", "1000 chars", "2000 chars", "5000 chars"]);
    expect(byId.get("recoveryGraceTurns")!.values).toEqual(["off", "1 prompt", "3 prompts", "5 prompts", "8 prompts"]);
    expect(byId.get("summarizerIdleTimeoutMs")!.values).toEqual(["off", "10 s", "20 s", "45 s", "90 s"]);
    expect(byId.get("summarizerMaxTimeoutMs")!.values).toEqual(["off", "120 s", "180 s", "300 s", "600 s"]);
    expect(byId.get("chainCompressionRollingWindow")!.values).toEqual(["1 prompt", "2 prompts", "3 prompts", "5 prompts", "10 prompts"]);
    expect(byId.get("purgeErrorsCooldown")!.values).toEqual(["1 turn", "2 turns", "3 turns", "5 turns", "10 turns"]);
    expect(byId.get("purgeErrorsMinArgChars")!.values).toEqual(["100 chars", "500 chars", "1000 chars", "5000 chars"]);
    expect(byId.get("summarizerThinking")!.values).toEqual(["default", "off", "minimal", "low", "medium", "high", "xhigh"]);
    expect(byId.get("summaries")!.values).toEqual(["auto", "always", "never"]);
    expect(byId.get("enabled")!.description).toBe("Enable or disable context pruning");
    expect(byId.get("protectedPaths")!.currentValue).toBe("**/skills/**/*.md, **/gauntlet-overrides.md");
    expect(byId.get("protectedTools")!.currentValue).toBe("(none)");
    expect(typeof byId.get("summarizerModel")!.submenu).toBe("function");
  });

  test("values outside a cycle show the real value, not a preset (issue 45, point 3)", () => {
    const config = {
      ...DEFAULT_CONFIG,
      minBatchChars: 1234,
      recoveryGraceTurns: 2,
      summarizerIdleTimeoutMs: 15000,
      summarizerMaxTimeoutMs: 1,
      autoBudgetThreshold: 0.75,
      chainCompression: { ...DEFAULT_CONFIG.chainCompression, rollingWindow: 7 },
      purgeErrors: { enabled: true, cooldownTurns: 4, minArgChars: 50 },
    };
    const current = Object.fromEntries(buildSettingItems({} as any, config).map((i) => [i.id, i.currentValue]));
    expect(current).toMatchObject({
      minBatchChars: "1234 chars",
      recoveryGraceTurns: "2 prompts",
      summarizerIdleTimeoutMs: "15 s",
      summarizerMaxTimeoutMs: "0.001 s",
      autoBudgetThreshold: "75%",
      chainCompressionRollingWindow: "7 prompts",
      purgeErrorsCooldown: "4 turns",
      purgeErrorsMinArgChars: "50 chars",
    });
    const nullBudget = buildSettingItems({} as any, { ...DEFAULT_CONFIG, autoBudgetThreshold: null });
    expect(nullBudget.find((i) => i.id === "autoBudgetThreshold")!.currentValue).toBe("off");
  });

  test("a value that is not a whole number changes nothing, and an off budget stores null (#32, issue 45 point 2)", async () => {
    const s = await openSettings({ minBatchChars: 500, autoBudgetThreshold: 0.8 });
    s.list.onChange("minBatchChars", "abc");
    s.list.onChange("minBatchChars", "2.5 chars");
    expect(s.box.value.minBatchChars).toBe(500);
    s.list.onChange("autoBudgetThreshold", "off");
    expect(s.box.value.autoBudgetThreshold).toBeNull();
    s.list.onChange("autoBudgetThreshold", "70%");
    expect(s.box.value.autoBudgetThreshold).toBe(0.7);
    expect((await s.saved()).autoBudgetThreshold).toBe(0.7);
  });

  test("a min batch size set by command shows as itself, and Enter moves to the next preset above it (issue 45, point 3)", async () => {
    const s = await openSettings({ minBatchChars: 200 });
    s.component.handleInput("min batch");
    expect(strip(s.component.render(80)).join("\n")).toMatch(/→ Min batch size +200 chars/);
    s.component.handleInput(ENTER);
    expect(s.box.value.minBatchChars).toBe(500);
    expect(strip(s.component.render(80)).join("\n")).toMatch(/→ Min batch size +500 chars/);
  });

  test("cycling on comes round to the value set by command instead of losing it (issue 45, point 3)", async () => {
    const s = await openSettings({ minBatchChars: 200 });
    s.component.handleInput("min batch");
    const seen: number[] = [];
    for (let i = 0; i < 6; i++) {
      s.component.handleInput(ENTER);
      seen.push(s.box.value.minBatchChars);
    }
    expect(seen).toEqual([500, 1000, 2000, 5000, 0, 200]);
  });

  test("a shown value is saved as the stored number it stands for", async () => {
    const s = await openSettings();
    s.list.onChange("autoBudgetThreshold", "80%");
    s.list.onChange("summarizerIdleTimeoutMs", "45 s");
    s.list.onChange("summarizerMaxTimeoutMs", "off");
    s.list.onChange("minBatchChars", "2000 chars");
    s.list.onChange("recoveryGraceTurns", "8 prompts");
    s.list.onChange("chainCompressionRollingWindow", "10 prompts");
    s.list.onChange("purgeErrorsCooldown", "5 turns");
    s.list.onChange("purgeErrorsMinArgChars", "5000 chars");
    expect(s.box.value).toMatchObject({ autoBudgetThreshold: 0.8, summarizerIdleTimeoutMs: 45000, summarizerMaxTimeoutMs: 0, minBatchChars: 2000, recoveryGraceTurns: 8 });
    expect(s.box.value.chainCompression.rollingWindow).toBe(10);
    expect(s.box.value.purgeErrors).toMatchObject({ cooldownTurns: 5, minArgChars: 5000 });
    expect(await s.saved()).toMatchObject({ autoBudgetThreshold: 0.8, summarizerIdleTimeoutMs: 45000, summarizerMaxTimeoutMs: 0 });
  });

  test("Enter cycles the shown values of a setting", async () => {
    const s = await openSettings({ autoBudgetThreshold: 0.6 });
    for (let i = 0; i < 12; i++) s.component.handleInput(DOWN);
    s.component.handleInput(ENTER);
    expect(s.box.value.autoBudgetThreshold).toBe(0.7);
    expect(strip(s.component.render(80)).join("\n")).toMatch(/→ Auto-flush at context % +70%/);
  });

  test("Enter on the first row toggles enabled, saves and refreshes the footer", async () => {
    const s = await openSettings();
    s.component.handleInput(ENTER);
    expect(s.box.value.enabled).toBe(false);
    expect(s.status).toEqual(["│ prune: OFF"]);
    expect(await s.saved()).toEqual({}); // back at its default, so the written block leaves it out
  });

  test("turning pruning off on the Enabled row takes the start-up line away at once (issue 45, point 20)", async () => {
    const s = await openSettings();
    expect(s.widgets).toEqual([]);
    s.component.handleInput(ENTER);
    expect(s.widgets).toEqual([["pruner-boot", undefined]]);
  });

  test("typing budget finds the auto-flush budget, and the words /pruner status uses find their rows", async () => {
    const s = await openSettings();
    const shown = () => strip(s.component.render(80)).flatMap((l) => /^│ [→ ] (\S(?:\S| \S)*) {2,}[^\s│]/.exec(l)?.[1] ?? []);
    for (const ch of "budget") s.component.handleInput(ch);
    expect(shown()).toEqual(["Auto-flush at context %"]);
    for (let i = 0; i < 6; i++) s.component.handleInput("\x7f");
    for (const ch of "footer line") s.component.handleInput(ch);
    expect(shown()).toEqual(["Prune status line"]);
    for (let i = 0; i < 11; i++) s.component.handleInput("\x7f");
    for (const ch of "summarizes") s.component.handleInput(ch);
    expect(shown()).toEqual(["Prune trigger"]);
  });

  test("a protected list too long for its row ends in an ellipsis, and Enter shows it whole with how to edit it", async () => {
    const globs = ["**/skills/**/*.md", "**/gauntlet-overrides.md", "docs/very/long/path/one/**", "another/long/glob/**/*.ts"];
    const s = await openSettings({ protectedPaths: globs }, [], 60, 80);
    for (let i = 0; i < 23; i++) s.component.handleInput(DOWN);
    const row = strip(s.component.render(80)).find((l) => l.includes("→ Protected paths"))!;
    expect(row).toMatch(/…\s*│$/);
    s.component.handleInput(ENTER);
    const open = strip(s.component.render(80)).join("\n");
    for (const glob of globs) expect(open).toContain(`• ${glob}`);
    expect(open).toContain("Edit with /pruner protected-paths");
    s.component.handleInput(ENTER);
    expect(strip(s.component.render(80)).join("\n")).toContain("→ Protected paths");
    expect(s.box.value.protectedPaths).toEqual(globs);
  });

  test("read-only protected rows change nothing", async () => {
    const s = await openSettings({ protectedTools: ["todowrite"] });
    const before = s.box.value;
    s.list.onChange("protectedTools", "todowrite");
    s.list.onChange("protectedPaths", "(none)");
    expect(s.box.value).toBe(before);
    expect(await s.saved()).toBeUndefined();
    expect(s.status).toEqual([]);
  });

  test("nested settings are replaced by copies and validated", async () => {
    const s = await openSettings();
    const chain = s.box.value.chainCompression;
    s.list.onChange("chainCompressionRollingWindow", "x");
    expect(s.box.value.chainCompression.rollingWindow).toBe(3);
    s.list.onChange("chainCompressionRollingWindow", "5");
    s.list.onChange("chainCompressionStripThinking", "false");
    s.list.onChange("chainCompressionFuseRange", "false");
    s.list.onChange("chainCompressionEnabled", "false");
    expect(s.box.value.chainCompression).toEqual({ enabled: false, rollingWindow: 5, stripFinalAssistantThinking: false, fuseRangeSummary: false });
    expect(chain).toEqual(DEFAULT_CONFIG.chainCompression);
    s.list.onChange("purgeErrorsCooldown", "-1 turns");
    s.list.onChange("purgeErrorsMinArgChars", "-3");
    s.list.onChange("purgeErrorsEnabled", "false");
    expect(s.box.value.purgeErrors).toEqual({ enabled: false, cooldownTurns: 2, minArgChars: 500 });
    s.list.onChange("purgeErrorsMinArgChars", "1000");
    expect(s.box.value.purgeErrors.minArgChars).toBe(1000);
    expect(DEFAULT_CONFIG.purgeErrors).toEqual({ enabled: true, cooldownTurns: 2, minArgChars: 500 });
  });

  test("scalar settings parse their values with the listed fallbacks", async () => {
    const s = await openSettings();
    s.list.onChange("recoveryGraceTurns", "x");
    s.list.onChange("summarizerIdleTimeoutMs", "-1");
    s.list.onChange("summarizerMaxTimeoutMs", "600 s");
    s.list.onChange("pruneOn", "on-demand");
    s.list.onChange("summarizerThinking", "minimal");
    s.list.onChange("batchingMode", "agent-message");
    s.list.onChange("quietOversizedSkips", "true");
    s.list.onChange("dedupByContentHash", "false");
    s.list.onChange("cacheBreakpoint", "false");
    s.list.onChange("showPruneStatusLine", "false");
    expect(s.box.value).toMatchObject({
      recoveryGraceTurns: 3,
      summarizerIdleTimeoutMs: 20000,
      summarizerMaxTimeoutMs: 600000,
      pruneOn: "on-demand",
      summarizerThinking: "minimal",
      batchingMode: "agent-message",
      quietOversizedSkips: true,
      dedupByContentHash: false,
      cacheBreakpoint: false,
      showPruneStatusLine: false,
    });
    expect(s.status.at(-1)).toBeUndefined();
  });

  test("descriptions are recomputed from the changed config", async () => {
    const s = await openSettings();
    const item = s.list.items.find((i: any) => i.id === "minBatchChars");
    expect(item.description).toContain("Current value 1000");
    s.list.onChange("minBatchChars", "0");
    expect(item.description).toContain("guard is off");
    expect(item.currentValue).toBe("off");
  });

  test("Esc closes the overlay", async () => {
    const s = await openSettings();
    s.component.handleInput(ESC);
    expect(await s.closed).toBeUndefined();
    await s.done;
  });
});

describe("model browser", () => {
  const models = [
    { provider: "anthropic", id: "claude-haiku", name: "Haiku" },
    { provider: "openai", id: "gpt-5-mini", name: "" },
  ];

  test("lists the active-model default first, then every available model", () => {
    expect(modelBrowserItems({ modelRegistry: { getAvailable: () => models } } as any, "openai/gpt-5-mini")).toEqual([
      { id: "default", label: "default (active model)", values: ["default"], currentValue: "", description: "Use the currently active model for summarization" },
      { id: "anthropic/claude-haiku", label: "anthropic/claude-haiku", values: ["anthropic/claude-haiku"], currentValue: "", description: "Haiku" },
      { id: "openai/gpt-5-mini", label: "openai/gpt-5-mini", values: ["openai/gpt-5-mini"], currentValue: "current", description: "openai/gpt-5-mini" },
    ]);
  });

  test("a registry failure leaves only the default entry", () => {
    const ctx = {
      modelRegistry: {
        getAvailable: () => {
          throw new Error("no registry");
        },
      },
    } as any;
    const original = console.error;
    console.error = () => {};
    try {
      expect(modelBrowserItems(ctx, "default").map((i) => i.id)).toEqual(["default"]);
    } finally {
      console.error = original;
    }
  });

  /** Opens the settings with `summarizerModel` and Enter on its row: the browser as drawn, one string per row. */
  async function browser(summarizerModel: string) {
    const s = await openSettings({ summarizerModel }, models, 40, 80);
    s.component.handleInput("summarizer model");
    s.component.handleInput(ENTER);
    return { s, rows: () => strip(s.component.render(80)) };
  }

  test("the cursor starts on the model in use (issue 45, point 18)", async () => {
    const { rows } = await browser("openai/gpt-5-mini");
    expect(rows().find((row) => row.includes("→ "))).toContain("openai/gpt-5-mini");
  });

  test("the model in use is named once on its row, its value saying it is the current one (issue 45, point 18)", async () => {
    const { rows } = await browser("openai/gpt-5-mini");
    const row = rows().find((r) => r.includes("openai/gpt-5-mini"))!;
    expect(row.split("openai/gpt-5-mini")).toHaveLength(2);
    expect(row).toMatch(/openai\/gpt-5-mini +current/);
  });

  test("Enter on the model in use keeps it", async () => {
    const { s } = await browser("openai/gpt-5-mini");
    s.component.handleInput(ENTER);
    expect(s.box.value.summarizerModel).toBe("openai/gpt-5-mini");
  });

  test("a search that matches no model says models, and that only providers with credentials are listed (issue 45, point 18)", async () => {
    const { s, rows } = await browser("default");
    s.component.handleInput("sonnet");
    const text = rows().join(" ").replace(/│/g, "").replace(/\s+/g, " ");
    expect(text).not.toContain("No matching settings");
    expect(text).toContain("No matching models: only providers pi has credentials for are listed (/login adds one).");
    for (const row of rows()) expect(row.length).toBeLessThanOrEqual(80);
  });

  test("a search finds a model by its name as well as its id", async () => {
    const { s, rows } = await browser("default");
    s.component.handleInput("Haiku");
    expect(rows().find((row) => row.includes("→ "))).toContain("anthropic/claude-haiku");
  });

  test("picking a model in the submenu sets summarizerModel", async () => {
    const s = await openSettings({}, models);
    for (let i = 0; i < 3; i++) s.component.handleInput(DOWN);
    s.component.handleInput(ENTER);
    expect(s.component.render(80).join("\n")).toContain("anthropic/claude-haiku");
    s.component.handleInput(DOWN);
    s.component.handleInput(ENTER);
    expect(s.box.value.summarizerModel).toBe("anthropic/claude-haiku");
    expect((await s.saved()).summarizerModel).toBe("anthropic/claude-haiku");
  });
});

describe("setting descriptions", () => {
  const cfg = (patch: Record<string, unknown>) => ({ ...DEFAULT_CONFIG, ...patch }) as any;

  test("prune trigger names the mode, its guidance and the cycle hint", () => {
    const text = settingDescription("pruneOn", cfg({}));
    expect(text).toContain("On agent message (agent-message)");
    expect(text).toContain("Recommended default");
    expect(text).toContain("Enter/Space");
    expect(settingDescription("pruneOn", cfg({ pruneOn: "on-demand" }))).toContain("/pruner now");
    expect(settingDescription("pruneOn", cfg({ pruneOn: "weird" }))).toContain("take the place of raw tool results");
  });

  test("the protected-paths description says what each default glob is for (issue 45, point 20)", () => {
    const text = settingDescription("protectedPaths", cfg({}));
    expect(text).toContain("skill files (**/skills/**/*.md)");
    expect(text).toContain("pi-gauntlet's repository rules (**/gauntlet-overrides.md; matches nothing without that extension)");
  });

  test("timeouts and the auto budget describe their off and on states", () => {
    expect(settingDescription("summarizerIdleTimeoutMs", cfg({ summarizerIdleTimeoutMs: 0 }))).toContain("idle timeout is off");
    expect(settingDescription("summarizerIdleTimeoutMs", cfg({}))).toContain("20 s");
    expect(settingDescription("summarizerMaxTimeoutMs", cfg({ summarizerMaxTimeoutMs: 0 }))).toContain("max timeout is off");
    expect(settingDescription("summarizerMaxTimeoutMs", cfg({}))).toContain("180 s");
    expect(settingDescription("autoBudgetThreshold", cfg({}))).toContain("Currently off");
    const on = settingDescription("autoBudgetThreshold", cfg({ autoBudgetThreshold: 0.8 }));
    expect(on).toContain("80%");
    expect(on).toContain("300k");
  });

  test("state-dependent descriptions show ON/OFF and current values", () => {
    expect(settingDescription("chainCompressionEnabled", cfg({}))).toContain("once 3 later prompts have finished");
    expect(settingDescription("chainCompressionEnabled", cfg({}))).toContain("Currently ON");
    expect(settingDescription("quietOversizedSkips", cfg({}))).toContain("Currently OFF");
    expect(settingDescription("showPruneStatusLine", cfg({ showPruneStatusLine: false }))).toContain("OFF");
    expect(settingDescription("recoveryGraceTurns", cfg({ recoveryGraceTurns: 0 }))).toContain("stays whole only until your next prompt");
    expect(settingDescription("summarizerThinking", cfg({ summarizerThinking: "high" }))).toContain("high thinking");
    expect(settingDescription("protectedTools", cfg({ protectedTools: ["a", "b"] }))).toContain("Current: a, b.");
    expect(settingDescription("recoveryGraceTurns", cfg({ recoveryGraceTurns: 1 }))).toContain("stays whole for 1 prompt,");
  });

  test("recovery-grace 0 reads the same in the overlay, the help and the confirmation (issue 36, point 14)", async () => {
    const words = "stays whole only until your next prompt";
    expect(settingDescription("recoveryGraceTurns", cfg({ recoveryGraceTurns: 0 }))).toContain(words);
    expect(helpText().replace(/\s+/g, " ")).toContain(`0: a recovered output ${words}`);
  });

  test("the error purge minimum is described as the code applies it: the failed call's whole arguments (issue 36, point 14)", () => {
    const text = settingDescription("purgeErrorsMinArgChars", cfg({}));
    expect(text).toContain("whose arguments add up to at least this many characters");
    expect(text).toContain("each string over 200 characters");
  });

  test("the compression rows speak of prompts, not chains or ranges (issue 36, point 13)", () => {
    const items = buildSettingItems({} as any, { ...DEFAULT_CONFIG });
    const row = items.find((item) => item.id === "chainCompressionRollingWindow")!;
    expect([row.label, row.currentValue]).toEqual(["Recent prompts kept whole", "3 prompts"]);
    for (const id of ["chainCompressionEnabled", "chainCompressionRollingWindow", "chainCompressionStripThinking", "chainCompressionFuseRange"]) {
      expect(settingDescription(id, cfg({}))).not.toMatch(/\bchains?\b|\brange\b/);
    }
  });

  test("no description uses internal words", () => {
    const ids = buildSettingItems({} as any, { ...DEFAULT_CONFIG }).map((i) => i.id);
    const configs = [cfg({}), cfg({ quietOversizedSkips: true, recoveryGraceTurns: 0, minBatchChars: 0, dedupByContentHash: false })];
    for (const config of configs) {
      for (const id of ids) expect(settingDescription(id, config)).not.toMatch(/frontier|user-turn-group|resultText|turn index|occurrence|K=/);
    }
  });
});
