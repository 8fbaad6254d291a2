import { afterAll, beforeAll, describe, expect, spyOn, test } from "bun:test";
import * as fsp from "node:fs/promises";
import { chmod, lstat, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_CONFIG } from "./config-shape.js";

let root = "";
let config: typeof import("./config.js");
const originalAgentDir = process.env.PI_CODING_AGENT_DIR;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "pi-condense-config-"));
  process.env.PI_CODING_AGENT_DIR = join(root, "initial");
  config = await import("./config.js");
});

afterAll(async () => {
  if (originalAgentDir === undefined) delete process.env.PI_CODING_AGENT_DIR;
  else process.env.PI_CODING_AGENT_DIR = originalAgentDir;
  await rm(root, { recursive: true, force: true });
});

let caseCounter = 0;

/** Points the agent dir at a fresh directory, optionally seeding settings.json (string = raw text). */
async function agentDir(content?: string | object): Promise<{ dir: string; file: string }> {
  const dir = join(root, `case-${++caseCounter}`);
  await mkdir(dir, { recursive: true });
  process.env.PI_CODING_AGENT_DIR = dir;
  const file = join(dir, "settings.json");
  if (content !== undefined) {
    await writeFile(file, typeof content === "string" ? content : JSON.stringify(content, null, 2));
  }
  return { dir, file };
}

async function loadBlock(block: unknown) {
  await agentDir({ contextPrune: block });
  return config.loadConfig();
}

async function readJson(file: string) {
  return JSON.parse(await readFile(file, "utf8"));
}

async function tmpLeftovers(dir: string) {
  return (await readdir(dir)).filter((name) => name.endsWith(".tmp"));
}

function silenceConsoleError() {
  return spyOn(console, "error").mockImplementation(() => {});
}

describe("loadConfig numeric keys", () => {
  test("recoveryGraceTurns 0 is kept (32)", async () => {
    expect((await loadBlock({ recoveryGraceTurns: 0 })).recoveryGraceTurns).toBe(0);
  });

  test("negative recoveryGraceTurns falls back to 3 (33)", async () => {
    expect((await loadBlock({ recoveryGraceTurns: -1 })).recoveryGraceTurns).toBe(3);
  });

  test("a NaN recoveryGraceTurns saved as null falls back to 3 (34)", async () => {
    expect((await loadBlock({ recoveryGraceTurns: Number.NaN })).recoveryGraceTurns).toBe(3);
  });

  test("fractional recoveryGraceTurns is floored (35)", async () => {
    expect((await loadBlock({ recoveryGraceTurns: 2.7 })).recoveryGraceTurns).toBe(2);
  });

  test("an empty block gives the default recoveryGraceTurns (36)", async () => {
    expect((await loadBlock({})).recoveryGraceTurns).toBe(3);
  });

  test("an empty block gives the default timeouts (37)", async () => {
    const loaded = await loadBlock({});
    expect(loaded.summarizerIdleTimeoutMs).toBe(20000);
    expect(loaded.summarizerMaxTimeoutMs).toBe(180000);
  });

  test("zero timeouts are kept (38)", async () => {
    const loaded = await loadBlock({ summarizerIdleTimeoutMs: 0, summarizerMaxTimeoutMs: 0 });
    expect(loaded.summarizerIdleTimeoutMs).toBe(0);
    expect(loaded.summarizerMaxTimeoutMs).toBe(0);
  });

  test("a negative idle timeout falls back to the default (39)", async () => {
    expect((await loadBlock({ summarizerIdleTimeoutMs: -5 })).summarizerIdleTimeoutMs).toBe(20000);
  });

  test("a NaN ceiling saved as null falls back to the default (40)", async () => {
    expect((await loadBlock({ summarizerMaxTimeoutMs: Number.NaN })).summarizerMaxTimeoutMs).toBe(180000);
  });

  test("a fractional idle timeout is floored (41)", async () => {
    expect((await loadBlock({ summarizerIdleTimeoutMs: 1234.9 })).summarizerIdleTimeoutMs).toBe(1234);
  });

  test("spill and batch sizes follow their own rules (46)", async () => {
    const loaded = await loadBlock({ spillThreshold: 0, spillPreviewBytes: 0, minBatchChars: "500" });
    expect(loaded.spillThreshold).toBe(65536);
    expect(loaded.spillPreviewBytes).toBe(0);
    expect(loaded.minBatchChars).toBe(1000);
  });

  test("a spillThreshold that floors to zero falls back to the default", async () => {
    expect((await loadBlock({ spillThreshold: 0.5 })).spillThreshold).toBe(65536);
    expect((await loadBlock({ spillThreshold: 4096.7 })).spillThreshold).toBe(4096);
  });

  test("budget shares must lie in (0, 1] and are not floored (45)", async () => {
    expect((await loadBlock({ autoBudgetThreshold: 0.85 })).autoBudgetThreshold).toBe(0.85);
    expect((await loadBlock({ autoBudgetThreshold: 80 })).autoBudgetThreshold).toBeNull();
    expect((await loadBlock({ autoBudgetThreshold: 0 })).autoBudgetThreshold).toBeNull();
    expect((await loadBlock({ budgetTurnDelta: 1 })).budgetTurnDelta).toBe(1);
    expect((await loadBlock({ budgetTurnDelta: -0.1 })).budgetTurnDelta).toBeNull();
  });

  test("maxImagesPerRequest defaults to null and keeps a whole number >= 1, floored", async () => {
    expect((await loadBlock({})).maxImagesPerRequest).toBeNull();
    expect((await loadBlock({ maxImagesPerRequest: 30 })).maxImagesPerRequest).toBe(30);
    expect((await loadBlock({ maxImagesPerRequest: 30.9 })).maxImagesPerRequest).toBe(30);
    expect((await loadBlock({ maxImagesPerRequest: 1 })).maxImagesPerRequest).toBe(1);
    expect((await loadBlock({ maxImagesPerRequest: null })).maxImagesPerRequest).toBeNull();
  });

  test("a maxImagesPerRequest of 0, -1, 0.5 or \"30\" becomes null", async () => {
    for (const maxImagesPerRequest of [0, -1, 0.5, "30", Number.NaN, true]) {
      expect((await loadBlock({ maxImagesPerRequest })).maxImagesPerRequest).toBeNull();
    }
  });
});

describe("frontierGapThresholdTokens (spec 70 §5.2)", () => {
  test("defaults to null (off)", async () => {
    expect(DEFAULT_CONFIG.frontierGapThresholdTokens).toBeNull();
    expect((await loadBlock({})).frontierGapThresholdTokens).toBeNull();
  });

  test("sits after budgetTurnDelta and before maxImagesPerRequest in DEFAULT_CONFIG", () => {
    const keys = Object.keys(DEFAULT_CONFIG);
    expect(keys.indexOf("frontierGapThresholdTokens")).toBe(keys.indexOf("budgetTurnDelta") + 1);
    expect(keys.indexOf("maxImagesPerRequest")).toBe(keys.indexOf("frontierGapThresholdTokens") + 1);
  });

  test("settings 0, -5, \"80000\" and true load as null", async () => {
    for (const frontierGapThresholdTokens of [0, -5, "80000", true]) {
      expect((await loadBlock({ frontierGapThresholdTokens })).frontierGapThresholdTokens).toBeNull();
    }
  });

  test("80000.7 loads as 80000", async () => {
    expect((await loadBlock({ frontierGapThresholdTokens: 80000.7 })).frontierGapThresholdTokens).toBe(80000);
  });

  test("a value whose floor is below 1 loads as null (0.5 would otherwise fire on every gated turn)", async () => {
    expect((await loadBlock({ frontierGapThresholdTokens: 0.5 })).frontierGapThresholdTokens).toBeNull();
    expect((await loadBlock({ frontierGapThresholdTokens: 1.5 })).frontierGapThresholdTokens).toBe(1);
  });

  test("non-finite numbers and null load as null", async () => {
    for (const frontierGapThresholdTokens of [Number.NaN, Number.POSITIVE_INFINITY, null]) {
      expect((await loadBlock({ frontierGapThresholdTokens })).frontierGapThresholdTokens).toBeNull();
    }
  });

  test("an unusable value warns once in the usual one-line style; null passes silently, 80000.7 is floored with a word", async () => {
    const warningsFor = async (block: unknown) => {
      await agentDir({ contextPrune: block });
      return config.loadConfigWithWarnings();
    };
    expect((await warningsFor({ frontierGapThresholdTokens: 0.5 })).warnings).toEqual([
      "pruner: settings.json contextPrune.frontierGapThresholdTokens should be a whole number from 1 to 1000000000 or null, found 0.5; using null",
    ]);
    expect((await warningsFor({ frontierGapThresholdTokens: "80000" })).warnings).toEqual([
      'pruner: settings.json contextPrune.frontierGapThresholdTokens should be a whole number from 1 to 1000000000 or null, found the string "80000"; using null',
    ]);
    expect((await warningsFor({ frontierGapThresholdTokens: null })).warnings).toEqual([]);
    expect((await warningsFor({ frontierGapThresholdTokens: 80000.7 })).warnings).toEqual([
      "pruner: settings.json contextPrune.frontierGapThresholdTokens should be a whole number from 1 to 1000000000 or null, found 80000.7; using 80000",
    ]);
  });
});

describe("loadConfig enumerations, booleans and blocks", () => {
  test("legacy and unknown enum values and string booleans fall back (44)", async () => {
    const loaded = await loadBlock({ pruneOn: "every-turn", summarizerThinking: "max", enabled: "true" });
    expect(loaded.pruneOn).toBe("agent-message");
    expect(loaded.summarizerThinking).toBe("default");
    expect(loaded.enabled).toBe(false);
  });

  test("cacheBreakpoint defaults to true, keeps false, and a string falls back to true", async () => {
    expect((await loadBlock({})).cacheBreakpoint).toBe(true);
    expect((await loadBlock({ cacheBreakpoint: false })).cacheBreakpoint).toBe(false);
    expect((await loadBlock({ cacheBreakpoint: "false" })).cacheBreakpoint).toBe(true);
  });

  test("every removed pruneOn mode normalizes to agent-message", async () => {
    for (const pruneOn of ["on-context-tag", "agentic-auto"]) {
      expect((await loadBlock({ pruneOn })).pruneOn).toBe("agent-message");
    }
    expect((await loadBlock({ pruneOn: "on-demand" })).pruneOn).toBe("on-demand");
  });

  test("a partial chainCompression block is kept exactly, without default sub-keys (47)", async () => {
    expect((await loadBlock({ chainCompression: { enabled: false } })).chainCompression).toEqual({ enabled: false } as any);
  });

  test("valid values of every key are kept", async () => {
    const block = {
      ...DEFAULT_CONFIG,
      enabled: true,
      showPruneStatusLine: false,
      summarizerModel: "openai/gpt-4.1-mini",
      summarizerThinking: "low",
      pruneOn: "on-demand",
      batchingMode: "agent-message",
      quietOversizedSkips: true,
      minBatchChars: 0,
      protectedTools: ["todowrite"],
      protectedPaths: [],
      dedupByContentHash: false,
      autoBudgetThreshold: 0.7,
      spillThreshold: 100,
      budgetTurnDelta: 0.2,
      maxImagesPerRequest: 40,
      cacheBreakpoint: false,
    };
    expect(await loadBlock(block)).toEqual(block as any);
  });

  test("wrong types fall back per key while good keys and unknown keys survive", async () => {
    const loaded: any = await loadBlock({
      enabled: true,
      summarizerModel: 5,
      batchingMode: 7,
      protectedTools: "todowrite",
      protectedPaths: ["docs/**", 3, null],
      chainCompression: null,
      purgeErrors: { enabled: "yes", cooldownTurns: 4, note: "mine" },
      futureKey: { x: 1 },
    });
    expect(loaded.enabled).toBe(true);
    expect(loaded.summarizerModel).toBe("default");
    expect(loaded.batchingMode).toBe("turn");
    expect(loaded.protectedTools).toEqual([]);
    expect(loaded.protectedPaths).toEqual(["docs/**"]);
    expect(loaded.chainCompression).toEqual(DEFAULT_CONFIG.chainCompression);
    expect(loaded.purgeErrors).toEqual({ enabled: true, cooldownTurns: 4, note: "mine" });
    expect(loaded.futureKey).toEqual({ x: 1 });
  });

  test("an array or string as a nested block falls back to the default block", async () => {
    const loaded = await loadBlock({ chainCompression: [1], purgeErrors: "off" });
    expect(loaded.chainCompression).toEqual(DEFAULT_CONFIG.chainCompression);
    expect(loaded.purgeErrors).toEqual(DEFAULT_CONFIG.purgeErrors);
  });

  test("loading never mutates DEFAULT_CONFIG", async () => {
    const before = JSON.stringify(DEFAULT_CONFIG);
    const loaded = await loadBlock({});
    loaded.enabled = true;
    expect(JSON.stringify(DEFAULT_CONFIG)).toBe(before);
  });
});

describe("loadConfigWithWarnings: one warning per wrong-typed setting", () => {
  async function warningsFor(block: unknown) {
    await agentDir({ theme: "dark", contextPrune: block });
    return config.loadConfigWithWarnings();
  }

  test('"enabled": "true" warns once, naming the key, what was expected, found and used', async () => {
    const { config: loaded, warnings } = await warningsFor({ enabled: "true" });
    expect(loaded.enabled).toBe(false);
    expect(warnings).toEqual([
      'pruner: settings.json contextPrune.enabled should be true or false, found the string "true"; using false',
    ]);
  });

  test("a list as the contextPrune block is one warning and gives the defaults", async () => {
    const { config: loaded, warnings } = await warningsFor([]);
    expect(loaded).toEqual({ ...DEFAULT_CONFIG });
    expect(warnings).toEqual(["pruner: settings.json contextPrune should be an object, found a list; using the default settings"]);
  });

  test("a chainCompression block without enabled warns that chain compression stays off", async () => {
    const { config: loaded, warnings } = await warningsFor({ enabled: true, chainCompression: {} });
    expect(loaded.chainCompression).toEqual({} as any);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toStartWith('pruner: settings.json contextPrune.chainCompression has no "enabled" field, so chain compression stays off');
  });

  test("a purgeErrors block without enabled warns that error purge stays off", async () => {
    const { warnings } = await warningsFor({ purgeErrors: { cooldownTurns: 3 } });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("contextPrune.purgeErrors has no \"enabled\" field, so error purge stays off");
  });

  test("a wrong-typed field inside a nested block is named with its block", async () => {
    const { warnings } = await warningsFor({ chainCompression: { enabled: true, rollingWindow: "3" } });
    expect(warnings).toEqual([
      'pruner: settings.json contextPrune.chainCompression.rollingWindow should be a whole number from 0 to 1000000000, found the string "3"; using 3',
    ]);
  });

  test("every other kind of key names what it expects and what it uses instead", async () => {
    const { warnings } = await warningsFor({
      minBatchChars: "500",
      spillThreshold: 0,
      pruneOn: "every-turn",
      autoBudgetThreshold: 80,
      protectedPaths: ["docs/**", 3],
      chainCompression: null,
    });
    expect(warnings).toEqual([
      'pruner: settings.json contextPrune.pruneOn should be one of "agent-message", "on-demand", found the string "every-turn"; using "agent-message"',
      'pruner: settings.json contextPrune.minBatchChars should be a whole number from 0 to 1000000000, found the string "500"; using 1000',
      'pruner: settings.json contextPrune.protectedPaths should be a list of strings, found 1 entry that is not a string; using ["docs/**"]',
      `pruner: settings.json contextPrune.chainCompression should be an object with enabled, rollingWindow, stripFinalAssistantThinking, fuseRangeSummary, found null; using ${JSON.stringify(DEFAULT_CONFIG.chainCompression)}`,
      "pruner: settings.json contextPrune.autoBudgetThreshold should be a number above 0 and at most 1 (a share: 0.6 is 60%), or null, found 80; using null",
      "pruner: settings.json contextPrune.spillThreshold should be a whole number from 1 to 1000000000, found 0; using 65536",
    ]);
  });

  test("the free-text settings name the values they take (issue 45, point 10)", async () => {
    const { warnings } = await warningsFor({ summarizerModel: 5, batchingMode: 7 });
    expect(warnings).toEqual([
      `pruner: settings.json contextPrune.summarizerModel should be "default" (the session's model) or a model as "provider/id", found 5; using "default"`,
      'pruner: settings.json contextPrune.batchingMode should be "turn" or "agent-message", found 7; using "turn"',
    ]);
  });

  test("every refusal of the settings file names the values the setting takes", async () => {
    const wrong = Object.fromEntries(Object.entries(DEFAULT_CONFIG).map(([key, value]) => [key, typeof value === "number" || value === null ? "x" : 7]));
    const { warnings } = await warningsFor(wrong);
    expect(warnings).toHaveLength(Object.keys(DEFAULT_CONFIG).length);
    for (const warning of warnings) expect(warning).not.toMatch(/should be (a string|an object),/);
  });

  test("an unusable maxImagesPerRequest warns once and uses null; 30.9 is floored and said", async () => {
    const zero = await warningsFor({ maxImagesPerRequest: 0 });
    expect(zero.warnings).toEqual([
      "pruner: settings.json contextPrune.maxImagesPerRequest should be a whole number from 1 to 1000000000 or null, found 0; using null",
    ]);
    const half = await warningsFor({ maxImagesPerRequest: 0.5 });
    expect(half.warnings).toEqual([
      "pruner: settings.json contextPrune.maxImagesPerRequest should be a whole number from 1 to 1000000000 or null, found 0.5; using null",
    ]);
    const text = await warningsFor({ maxImagesPerRequest: "30" });
    expect(text.warnings).toEqual([
      'pruner: settings.json contextPrune.maxImagesPerRequest should be a whole number from 1 to 1000000000 or null, found the string "30"; using null',
    ]);
    const floored = await warningsFor({ maxImagesPerRequest: 30.9 });
    expect(floored.warnings).toEqual([
      "pruner: settings.json contextPrune.maxImagesPerRequest should be a whole number from 1 to 1000000000 or null, found 30.9; using 30",
    ]);
    expect(floored.config.maxImagesPerRequest).toBe(30);
  });

  test("a whole-number setting read as another number is said, naming the range (issue 45, point 2)", async () => {
    const { config: loaded, warnings } = await warningsFor({ minBatchChars: 2.5, recoveryGraceTurns: 1e10, purgeErrors: { enabled: true, cooldownTurns: 0.5, minArgChars: 12.9 } });
    expect(warnings).toEqual([
      "pruner: settings.json contextPrune.minBatchChars should be a whole number from 0 to 1000000000, found 2.5; using 2",
      "pruner: settings.json contextPrune.recoveryGraceTurns should be a whole number from 0 to 1000000000, found 10000000000; using 3",
      "pruner: settings.json contextPrune.purgeErrors.cooldownTurns should be a whole number from 0 to 1000000000, found 0.5; using 0",
      "pruner: settings.json contextPrune.purgeErrors.minArgChars should be a whole number from 0 to 1000000000, found 12.9; using 12",
    ]);
    expect(loaded).toMatchObject({ minBatchChars: 2, recoveryGraceTurns: 3, purgeErrors: { enabled: true, cooldownTurns: 0, minArgChars: 12 } });
  });

  test("a nested window out of its range falls back to the default with the range named; 0 is in range (issue 45, point 2)", async () => {
    const { config: loaded, warnings } = await warningsFor({ chainCompression: { enabled: true, rollingWindow: -1 } });
    expect(warnings).toEqual([
      "pruner: settings.json contextPrune.chainCompression.rollingWindow should be a whole number from 0 to 1000000000, found -1; using 3",
    ]);
    expect(loaded.chainCompression.rollingWindow).toBe(3);
    expect((await warningsFor({ chainCompression: { enabled: true, rollingWindow: 0 } })).config.chainCompression.rollingWindow).toBe(0);
  });

  test("our words in the file are read in any letter case, as /pruner reads them (issue 45, point 11)", async () => {
    const { config: loaded, warnings } = await warningsFor({ summarizerThinking: "LOW", pruneOn: "On-Demand", flushPolicy: "CLASSIC" });
    expect(warnings).toEqual([]);
    expect(loaded).toMatchObject({ summarizerThinking: "low", pruneOn: "on-demand", flushPolicy: "classic" });
  });

  test("a valid file with 2.9.1's retired blocks gives no warning", async () => {
    const { config: loaded, warnings } = await warningsFor({
      ...DEFAULT_CONFIG,
      enabled: true,
      recoveryGraceTurns: 2,
      chainCompression: { enabled: false },
      thinkingStrip: { enabled: true, keepLastTurns: 16 },
      remindUnprunedCount: 3,
    });
    expect(warnings).toEqual([]);
    expect((loaded as any).thinkingStrip).toEqual({ enabled: true, keepLastTurns: 16 });
  });

  test("an unknown key warns, naming it, and stays in the loaded settings", async () => {
    const { config: loaded, warnings } = await warningsFor({ enabled: true, madeUpKey: 1 });
    expect(warnings).toEqual(["pruner: settings.json contextPrune.madeUpKey is not a pi-condense setting; it is left in the file and ignored"]);
    expect((loaded as any).madeUpKey).toBe(1);
  });

  test("an unknown key that differs from a setting only in letter case names the setting it was meant to be", async () => {
    const { warnings } = await warningsFor({ minbatchchars: 200 });
    expect(warnings).toEqual([
      "pruner: settings.json contextPrune.minbatchchars is not a pi-condense setting (did you mean contextPrune.minBatchChars?); it is left in the file and ignored",
    ]);
  });

  test("an unknown key inside a nested block is named with its block, even one named like an object method", async () => {
    const { config: loaded, warnings } = await warningsFor({ chainCompression: { enabled: true, toString: 5 }, purgeErrors: { enabled: true, note: "mine" } });
    expect(warnings).toEqual([
      "pruner: settings.json contextPrune.chainCompression.toString is not a pi-condense setting; it is left in the file and ignored",
      "pruner: settings.json contextPrune.purgeErrors.note is not a pi-condense setting; it is left in the file and ignored",
    ]);
    expect((loaded.chainCompression as any).toString).toBe(5);
  });

  test("no block and an empty file give no warning", async () => {
    expect((await warningsFor(undefined)).warnings).toEqual([]);
    await agentDir("");
    expect((await config.loadConfigWithWarnings()).warnings).toEqual([]);
  });

  test("an enabled that is not true or false says why pruning is off", async () => {
    const { offReason } = await warningsFor({ enabled: "true" });
    expect(offReason).toEqual({ footer: "settings.json: enabled is not true or false", detail: 'settings.json contextPrune.enabled should be true or false, found the string "true"' });
  });

  test("a boolean or absent enabled gives no off reason: the user chose, or the default holds", async () => {
    expect((await warningsFor({ enabled: false })).offReason).toBeUndefined();
    expect((await warningsFor({ minBatchChars: 5 })).offReason).toBeUndefined();
    expect((await warningsFor(undefined)).offReason).toBeUndefined();
  });

  test("a contextPrune that is not an object says why pruning is off", async () => {
    expect((await warningsFor(7)).offReason).toEqual({ footer: "settings.json: contextPrune is not an object", detail: "settings.json contextPrune should be an object, found 7" });
  });

  test("a file that is not valid JSON warns, keeps the defaults, and says why pruning is off", async () => {
    const spy = silenceConsoleError();
    try {
      const { file } = await agentDir('{ "contextPrune": ');
      const { config: loaded, warnings, offReason } = await config.loadConfigWithWarnings();
      expect(loaded).toEqual({ ...DEFAULT_CONFIG });
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toStartWith(`pruner: settings file ${file} is not valid JSON (`);
      expect(warnings[0]).toEndWith("; using the default settings (pruning off) and leaving the file untouched until it is fixed");
      expect(offReason?.footer).toBe("settings.json is not valid JSON");
    } finally {
      spy.mockRestore();
    }
  });

  test("loadConfig returns the same settings without the warnings", async () => {
    await agentDir({ contextPrune: { enabled: "true", minBatchChars: 200 } });
    expect(await config.loadConfig()).toEqual((await config.loadConfigWithWarnings()).config);
  });
});

describe("loadConfig on missing or broken files", () => {
  test("a missing file, invalid JSON, a top-level array or a non-object block give full defaults (43)", async () => {
    const spy = silenceConsoleError();
    try {
      await agentDir();
      expect(await config.loadConfig()).toEqual(DEFAULT_CONFIG);
      await agentDir("{ not json");
      expect(await config.loadConfig()).toEqual(DEFAULT_CONFIG);
      await agentDir("[1, 2]");
      expect(await config.loadConfig()).toEqual(DEFAULT_CONFIG);
      await agentDir({ contextPrune: [{ enabled: true }] });
      expect(await config.loadConfig()).toEqual(DEFAULT_CONFIG);
      await agentDir({ contextPrune: "enabled" });
      expect(await config.loadConfig()).toEqual(DEFAULT_CONFIG);
      await agentDir({ contextPrune: null });
      expect(await config.loadConfig()).toEqual(DEFAULT_CONFIG);
    } finally {
      spy.mockRestore();
    }
  });

  test("an empty or whitespace-only file gives defaults without a warning", async () => {
    const spy = silenceConsoleError();
    try {
      await agentDir("");
      expect(await config.loadConfig()).toEqual(DEFAULT_CONFIG);
      await agentDir(" \n");
      expect(await config.loadConfig()).toEqual(DEFAULT_CONFIG);
      expect(spy).not.toHaveBeenCalled();
    } finally {
      spy.mockRestore();
    }
  });

  test("invalid JSON warns once per file path", async () => {
    const spy = silenceConsoleError();
    try {
      const first = await agentDir('{ "theme": "dark", ');
      await config.loadConfig();
      await config.loadConfig();
      expect(spy).toHaveBeenCalledTimes(1);
      expect(String(spy.mock.calls[0][0])).toContain(first.file);
      await agentDir("{ also broken");
      await config.loadConfig();
      expect(spy).toHaveBeenCalledTimes(2);
    } finally {
      spy.mockRestore();
    }
  });

  test("a leading UTF-8 byte order mark is tolerated", async () => {
    await agentDir(`\uFEFF${JSON.stringify({ contextPrune: { enabled: true, minBatchChars: 5 } })}`);
    const loaded = await config.loadConfig();
    expect(loaded.enabled).toBe(true);
    expect(loaded.minBatchChars).toBe(5);
  });
});

describe("saveConfig", () => {
  test("legacy unknown blocks survive a load and save round-trip (42)", async () => {
    const thinkingStrip = { enabled: true, keepLastTurns: 16 };
    const { file } = await agentDir({ contextPrune: { thinkingStrip } });
    const loaded: any = await config.loadConfig();
    expect("thinkingStrip" in DEFAULT_CONFIG).toBe(false);
    expect(loaded.thinkingStrip).toEqual(thinkingStrip);
    await config.saveConfig(loaded);
    expect((await readJson(file)).contextPrune.thinkingStrip).toEqual(thinkingStrip);
  });

  test("other top-level keys are kept and the block is written pretty with a newline (48)", async () => {
    const original = {
      $schema: "https://example.com/pi-settings.schema.json",
      theme: "dark",
      otherExtension: { level: 2 },
      contextPrune: { enabled: false, stale: true },
    };
    const { dir, file } = await agentDir(original);
    await config.saveConfig({ ...DEFAULT_CONFIG, enabled: true });
    const written = await readFile(file, "utf8");
    expect(written).toBe(`${JSON.stringify({ ...original, contextPrune: { enabled: true, stale: true } }, null, 2)}\n`);
    expect(await tmpLeftovers(dir)).toEqual([]);
  });

  test("a missing agent directory is created (49)", async () => {
    const dir = join(root, `missing-${++caseCounter}`, "nested");
    process.env.PI_CODING_AGENT_DIR = dir;
    await config.saveConfig({ ...DEFAULT_CONFIG, enabled: true });
    expect((await readJson(join(dir, "settings.json"))).contextPrune.enabled).toBe(true);
  });

  test("an empty file is written over", async () => {
    const { file } = await agentDir("");
    await config.saveConfig(DEFAULT_CONFIG);
    expect(await readJson(file)).toEqual({ contextPrune: {} });
  });

  test("a file with a byte order mark keeps its other keys on save", async () => {
    const { file } = await agentDir(`\uFEFF${JSON.stringify({ theme: "light" })}`);
    await config.saveConfig(DEFAULT_CONFIG);
    expect(await readJson(file)).toEqual({ theme: "light", contextPrune: {} });
  });

  test("a file that is not valid JSON is never overwritten and the save names it", async () => {
    const spy = silenceConsoleError();
    try {
      const broken = '{ "theme": "dark", "defaultModel": ';
      const { dir, file } = await agentDir(broken);
      await expect(config.saveConfig(DEFAULT_CONFIG)).rejects.toThrow(file);
      expect(await readFile(file, "utf8")).toBe(broken);
      expect(await tmpLeftovers(dir)).toEqual([]);
    } finally {
      spy.mockRestore();
    }
  });

  test("a top-level array is never overwritten", async () => {
    const { file } = await agentDir("[1]");
    await expect(config.saveConfig(DEFAULT_CONFIG)).rejects.toThrow(file);
    expect(await readFile(file, "utf8")).toBe("[1]");
  });

  test("a failed write keeps the old file, removes the temp file and rejects with the path", async () => {
    const original = JSON.stringify({ theme: "dark" });
    const { dir, file } = await agentDir(original);
    const spy = spyOn(fsp, "rename").mockImplementation(async () => {
      throw new Error("disk full");
    });
    try {
      const failure = config.saveConfig(DEFAULT_CONFIG);
      await expect(failure).rejects.toThrow(`pi-condense: failed to save settings to ${file}: disk full`);
    } finally {
      spy.mockRestore();
    }
    expect(await readFile(file, "utf8")).toBe(original);
    expect(await tmpLeftovers(dir)).toEqual([]);
  });

  test("a failed save does not block the next one", async () => {
    const { file } = await agentDir({ theme: "dark" });
    const unserializable: any = { ...DEFAULT_CONFIG, minBatchChars: BigInt(1) };
    await expect(config.saveConfig(unserializable)).rejects.toThrow(file);
    await config.saveConfig({ ...DEFAULT_CONFIG, enabled: true });
    expect((await readJson(file)).contextPrune.enabled).toBe(true);
  });

  test("saves started back to back land in call order", async () => {
    const { file } = await agentDir({ theme: "dark" });
    const first = config.saveConfig({ ...DEFAULT_CONFIG, minBatchChars: 1 });
    const second = config.saveConfig({ ...DEFAULT_CONFIG, minBatchChars: 2 });
    await Promise.all([first, second]);
    expect((await readJson(file)).contextPrune.minBatchChars).toBe(2);
  });

  test("a symlinked settings file stays a symlink and its target is updated", async () => {
    if (process.platform === "win32") return;
    const { dir, file } = await agentDir();
    const real = join(dir, "real-settings.json");
    await writeFile(real, JSON.stringify({ theme: "dark" }));
    await symlink(real, file);
    await config.saveConfig(DEFAULT_CONFIG);
    expect((await lstat(file)).isSymbolicLink()).toBe(true);
    expect(await readJson(real)).toEqual({ theme: "dark", contextPrune: {} });
  });

  test("the file keeps its permission bits", async () => {
    if (process.platform === "win32") return;
    const { file } = await agentDir({ theme: "dark" });
    await chmod(file, 0o600);
    await config.saveConfig(DEFAULT_CONFIG);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });
});

describe("saveConfig writes only what the user changed", () => {
  test("the first save of a fresh dir that turns pruning on writes exactly enabled", async () => {
    const { file } = await agentDir();
    const loaded = await config.loadConfig();
    await config.saveConfig({ ...loaded, enabled: true });
    expect(await readFile(file, "utf8")).toBe(`${JSON.stringify({ contextPrune: { enabled: true } }, null, 2)}\n`);
  });

  test("a setting left at its default is read from the defaults at the next load", async () => {
    await agentDir();
    await config.saveConfig({ ...DEFAULT_CONFIG, minBatchChars: 0 });
    expect(await config.loadConfig()).toEqual({ ...DEFAULT_CONFIG, minBatchChars: 0 });
  });

  test("a key already in the file stays when its value equals the default", async () => {
    const { file } = await agentDir({ contextPrune: { enabled: true, minBatchChars: 500 } });
    await config.saveConfig({ ...(await config.loadConfig()), minBatchChars: DEFAULT_CONFIG.minBatchChars });
    expect((await readJson(file)).contextPrune).toEqual({ enabled: true, minBatchChars: 1000 });
  });

  test("lists count as changed only when their entries differ", async () => {
    const { file } = await agentDir();
    await config.saveConfig({ ...DEFAULT_CONFIG, protectedPaths: [...DEFAULT_CONFIG.protectedPaths] });
    expect((await readJson(file)).contextPrune).toEqual({});
    await config.saveConfig({ ...DEFAULT_CONFIG, protectedTools: ["todowrite"] });
    expect((await readJson(file)).contextPrune).toEqual({ protectedTools: ["todowrite"] });
  });

  test("a changed nested setting writes its whole block, so a reload sees every sub-key", async () => {
    const { file } = await agentDir();
    const chainCompression = { ...DEFAULT_CONFIG.chainCompression, rollingWindow: 5 };
    await config.saveConfig({ ...DEFAULT_CONFIG, chainCompression });
    expect((await readJson(file)).contextPrune).toEqual({ chainCompression });
    expect((await config.loadConfig()).chainCompression).toEqual(chainCompression);
  });

  test("a nested block equal to the default, in any key order, is left out", async () => {
    const { file } = await agentDir();
    const { fuseRangeSummary, ...rest } = DEFAULT_CONFIG.chainCompression;
    await config.saveConfig({ ...DEFAULT_CONFIG, chainCompression: { fuseRangeSummary, ...rest } });
    expect((await readJson(file)).contextPrune).toEqual({});
  });

  test("unknown keys in the file are kept as they are and other top-level keys survive", async () => {
    const { file } = await agentDir({ theme: "dark", contextPrune: { remindUnprunedCount: 4, thinkingStrip: { enabled: true } } });
    await config.saveConfig({ ...DEFAULT_CONFIG, enabled: true, remindUnprunedCount: 9 } as any);
    expect(await readJson(file)).toEqual({
      theme: "dark",
      contextPrune: { remindUnprunedCount: 4, thinkingStrip: { enabled: true }, enabled: true },
    });
  });

  test("a carried-over __proto__ key is written as a plain key, never as a prototype", async () => {
    const { file } = await agentDir();
    const carried = JSON.parse('{"__proto__": {"enabled": true}}');
    await config.saveConfig({ ...DEFAULT_CONFIG, ...carried });
    const text = await readFile(file, "utf8");
    expect(JSON.parse(text).contextPrune).toEqual(JSON.parse('{"__proto__": {"enabled": true}}'));
    expect(Object.getPrototypeOf(JSON.parse(text).contextPrune)).toBe(Object.prototype);
  });

  test("a contextPrune that is not an object is replaced by the changed settings", async () => {
    const { file } = await agentDir({ contextPrune: "on", theme: "dark" });
    await config.saveConfig({ ...DEFAULT_CONFIG, enabled: true });
    expect(await readJson(file)).toEqual({ contextPrune: { enabled: true }, theme: "dark" });
  });

  test("back-to-back saves land in call order, each against the file the previous one wrote", async () => {
    const { file } = await agentDir({ contextPrune: { enabled: true } });
    const saves = [
      config.saveConfig({ ...DEFAULT_CONFIG, enabled: true, minBatchChars: 1 }),
      config.saveConfig({ ...DEFAULT_CONFIG, enabled: true, minBatchChars: 1000 }),
      config.saveConfig({ ...DEFAULT_CONFIG, enabled: false, minBatchChars: 1000 }),
    ];
    await Promise.all(saves);
    expect((await readJson(file)).contextPrune).toEqual({ enabled: false, minBatchChars: 1000 });
  });
});

describe("settingsPath", () => {
  test("follows PI_CODING_AGENT_DIR changes between calls (50)", async () => {
    const a = await agentDir();
    expect(config.settingsPath()).toBe(a.file);
    const b = await agentDir();
    expect(config.settingsPath()).toBe(b.file);
  });

  test("the settings key is contextPrune", () => {
    expect(config.SETTINGS_KEY).toBe("contextPrune");
  });
});

describe("workingSetPrompts (issue 42)", () => {
  test("defaults to 0: an edited file stays in the working set for its run only", async () => {
    expect((await loadBlock({})).workingSetPrompts).toBe(0);
  });

  test("keeps a whole number >= 0, floored, or null for no working set", async () => {
    expect((await loadBlock({ workingSetPrompts: 2 })).workingSetPrompts).toBe(2);
    expect((await loadBlock({ workingSetPrompts: 1.7 })).workingSetPrompts).toBe(1);
    expect((await loadBlock({ workingSetPrompts: null })).workingSetPrompts).toBeNull();
  });

  test("a negative number, a string or a boolean falls back to 0", async () => {
    for (const workingSetPrompts of [-1, "1", true]) expect((await loadBlock({ workingSetPrompts })).workingSetPrompts).toBe(0);
  });
});
