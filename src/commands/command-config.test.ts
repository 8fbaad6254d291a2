import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { registerCommands } from "./commands.js";
import { modelCommand } from "./command-config.js";
import { DEFAULT_CONFIG } from "../settings/config-shape.js";
import { useTempAgentDirs } from "../../test/temp-agent-dir.js";

// Harness: `/pruner` is driven through registerCommands; saves land in a temp agent dir.

const agentDirs = useTempAgentDirs("pruner-config-cmds-");
const { settleSaves } = agentDirs;

/** Runs one subcommand in a fresh agent dir; returns what was notified and saved. */
async function run(
  args: string,
  config: Record<string, unknown> = {},
  ui: Record<string, unknown> = {},
  settingsText?: string,
  ctxFields: Record<string, unknown> = {},
  piFields: Record<string, unknown> = {},
) {
  const dir = await agentDirs.fresh();
  if (settingsText !== undefined) await writeFile(join(dir, "settings.json"), settingsText);
  let spec: any;
  const pi = { registerCommand: (_n: string, s: any) => (spec = s), registerMessageRenderer: () => {}, ...piFields } as any;
  const box = { value: { ...DEFAULT_CONFIG, enabled: true, ...config } as any };
  const original = box.value;
  registerCommands(pi, box, async () => ({ ok: false, reason: "empty" }), () => [], () => ({}) as any, () => undefined, {} as any, async () => ({ compressedEntries: [], kept: { alreadyCompressed: 0, underWay: 0, noToolCalls: 0, readBack: 0, nothingArchivable: 0 } }));
  const notes: Array<[string, string | undefined]> = [];
  const status: Array<string | undefined> = [];
  const fullUi = { notify: (m: string, t?: string) => notes.push([m, t]), setStatus: (_id: string, t?: string) => status.push(t), ...ui };
  const ctx = { ...ctxFields, ui: fullUi } as any;
  await spec.handler(args, ctx);
  await settleSaves();
  const file = join(dir, "settings.json");
  const saved = existsSync(file) && settingsText === undefined ? JSON.parse(await readFile(file, "utf8")).contextPrune : undefined;
  return { notes, status, config: box.value, original, saved };
}

function expectUnchanged(r: Awaited<ReturnType<typeof run>>): void {
  expect(r.config).toBe(r.original);
  expect(r.saved).toBeUndefined();
}

describe("model", () => {
  test("without an argument it prints the model and thinking level", async () => {
    const r = await run("model", { summarizerModel: "a/b", summarizerThinking: "xhigh" });
    expect(r.notes).toEqual([["Current summarizer model: a/b\nCurrent summarizer thinking: XHigh (xhigh)", "info"]]);
  });

  test("an id with a thinking suffix sets and saves both (#22)", async () => {
    const r = await run("model openai/gpt-4.1-mini:low");
    expect(r.notes).toEqual([["Summarizer model set to: openai/gpt-4.1-mini with thinking low", "info"]]);
    expect(r.config.summarizerModel).toBe("openai/gpt-4.1-mini");
    expect(r.config.summarizerThinking).toBe("low");
    expect(r.saved.summarizerModel).toBe("openai/gpt-4.1-mini");
    expect(r.saved.summarizerThinking).toBe("low");
  });

  test("a model change clears the start-up line that names the old model", async () => {
    const widgets: Array<[string, unknown]> = [];
    await run("model openai/gpt-4.1-mini", {}, { setWidget: (key: string, lines: unknown) => widgets.push([key, lines]) });
    expect(widgets).toEqual([["pruner-boot", undefined]]);
  });

  test("an unknown thinking suffix warns and saves nothing (#22)", async () => {
    const r = await run("model foo:bar");
    expect(r.notes).toEqual([
      ["Invalid model thinking suffix: bar. Use one of: default, off, minimal, low, medium, high, xhigh.", "warning"],
    ]);
    expectUnchanged(r);
  });

  test("a colon with nothing after it is named in words, not as an empty suffix (issue 36, point 14)", async () => {
    const r = await run("model fake/fake-model:");
    expect(r.notes).toEqual([
      ['Invalid model thinking suffix: nothing after the ":" in fake/fake-model:. Use one of: default, off, minimal, low, medium, high, xhigh.', "warning"],
    ]);
    expectUnchanged(r);
  });

  test("an empty model part before a valid suffix is rejected", async () => {
    const r = await run("model :low");
    expect(r.notes[0]![0]).toStartWith("Invalid model thinking suffix: low.");
    expectUnchanged(r);
  });

  test("a plain id without thinking keeps the thinking level and stays silent about it", async () => {
    const r = await run("model openrouter/qwen/qwen3-30b-a3b", { summarizerThinking: "high" });
    expect(r.notes).toEqual([["Summarizer model set to: openrouter/qwen/qwen3-30b-a3b", "info"]]);
    expect(r.config.summarizerThinking).toBe("high");
  });

  test("an id without a provider answers usage and changes nothing", async () => {
    const r = await run("model nope");
    expect(r.notes[0]![1]).toBe("warning");
    expect(r.notes[0]![0]).toContain("Usage: /pruner model <provider>/<model-id>");
    expectUnchanged(r);
  });

  test("default is accepted as a model", async () => {
    const r = await run("model default:off", { summarizerModel: "a/b" });
    expect(r.config.summarizerModel).toBe("default");
    expect(r.config.summarizerThinking).toBe("off");
  });

  test("extra tokens after the id are rejected", async () => {
    const r = await run("model a/b c/d");
    expect(r.notes[0]![1]).toBe("warning");
    expectUnchanged(r);
  });

  test("model changes do not refresh the footer", async () => {
    const r = await run("model a/b");
    expect(r.status).toEqual([]);
  });
});

/** A registry holding exactly these `<provider>/<id>` keys. */
function registry(keys: string[]) {
  const models = keys.map((key) => ({ provider: key.slice(0, key.indexOf("/")), id: key.slice(key.indexOf("/") + 1) }));
  const find = (provider: string, id: string) => models.find((m) => m.provider === provider && m.id === id);
  return { find, getAll: () => models };
}

/** `run` with a ctx whose modelRegistry knows `keys`. */
function runWithModels(args: string, keys: string[], config: Record<string, unknown> = {}) {
  return run(args, config, {}, undefined, { modelRegistry: registry(keys) });
}

describe("model checked against pi's registry", () => {
  const KNOWN = ["fake/fake-model", "fake/fake-summarizer", "anthropic/claude-haiku-4-5", "openai/gpt-5-mini"];

  test("a model the registry knows is set and saved", async () => {
    const r = await runWithModels("model fake/fake-summarizer", KNOWN);
    expect(r.notes).toEqual([["Summarizer model set to: fake/fake-summarizer", "info"]]);
    expect(r.saved).toEqual({ enabled: true, summarizerModel: "fake/fake-summarizer" });
  });

  test("an unknown model is refused with the close matches and nothing is saved", async () => {
    const r = await runWithModels("model fake/doesnotexist", KNOWN);
    expect(r.notes).toEqual([
      [
        "pi does not know the model fake/doesnotexist, so the summarizer model was not changed. " +
          "Close matches: fake/fake-model, fake/fake-summarizer.",
        "warning",
      ],
    ]);
    expectUnchanged(r);
  });

  test("an unknown model with a thinking suffix is refused too and keeps the thinking level", async () => {
    const r = await runWithModels("model openai/gpt5-mini:low", KNOWN);
    expect(r.notes[0]![0]).toContain("pi does not know the model openai/gpt5-mini");
    expect(r.notes[0]![0]).toEndWith("Close matches: openai/gpt-5-mini.");
    expectUnchanged(r);
  });

  test("a provider typo still finds the model it meant", async () => {
    const r = await runWithModels("model antropic/claude-haiku-4-5", KNOWN);
    expect(r.notes[0]![0]).toEndWith("Close matches: anthropic/claude-haiku-4-5.");
  });

  test("with nothing close the warning points to the model list in /pruner settings", async () => {
    const r = await runWithModels("model acme/zzz", KNOWN);
    expect(r.notes).toEqual([
      [
        "pi does not know the model acme/zzz, so the summarizer model was not changed. " +
          "/pruner settings lists the models you can use.",
        "warning",
      ],
    ]);
    expectUnchanged(r);
  });

  test("a bare id pi knows under one provider answers did you mean, and saves nothing", async () => {
    const r = await runWithModels("model fake-summarizer", KNOWN);
    expect(r.notes).toEqual([
      ["Invalid summarizer model: fake-summarizer has no provider. Did you mean /pruner model fake/fake-summarizer?", "warning"],
    ]);
    expectUnchanged(r);
  });

  test("a bare id keeps its thinking suffix in the suggestion", async () => {
    const r = await runWithModels("model gpt-5-mini:low", KNOWN);
    expect(r.notes[0]![0]).toEndWith("Did you mean /pruner model openai/gpt-5-mini:low?");
  });

  test("the usage example is a model pi's catalog has", async () => {
    const r = await runWithModels("model nope", KNOWN);
    expect(r.notes[0]![0]).toContain("(e.g. anthropic/claude-haiku-4-5 or anthropic/claude-haiku-4-5:low)");
    expect(r.notes[0]![0]).not.toContain("claude-haiku-3-5");
  });

  test("a model pi has no credentials for is saved with a warning naming the fix", async () => {
    const lookup = { ...registry(KNOWN), hasConfiguredAuth: () => false };
    const r = await run("model anthropic/claude-haiku-4-5", {}, {}, undefined, { modelRegistry: lookup });
    expect(r.notes).toEqual([
      ["Summarizer model set to: anthropic/claude-haiku-4-5", "info"],
      [
        "pi has no credentials for anthropic, so summaries use the session model until it has: run /login anthropic in pi, " +
          "or set anthropic's API key environment variable (pi's docs/providers.md names it).",
        "warning",
      ],
    ]);
    expect(r.saved).toEqual({ enabled: true, summarizerModel: "anthropic/claude-haiku-4-5" });
  });

  test("a model with credentials gets no warning", async () => {
    const lookup = { ...registry(KNOWN), hasConfiguredAuth: () => true };
    const r = await run("model anthropic/claude-haiku-4-5", {}, {}, undefined, { modelRegistry: lookup });
    expect(r.notes).toEqual([["Summarizer model set to: anthropic/claude-haiku-4-5", "info"]]);
  });

  test("while the session model stands in, /pruner model says which model is in use and why", async () => {
    const notes: string[] = [];
    const deps = { currentConfig: { value: { ...DEFAULT_CONFIG, summarizerModel: "anthropic/claude-haiku-4-5" } }, getFallback: () => "session model Fake Model, the summarizer model is failing (401)" } as any;
    await modelCommand(deps, { ui: { notify: (m: string) => notes.push(m) } } as any, []);
    expect(notes[0]).toBe(
      "Current summarizer model: anthropic/claude-haiku-4-5\n" +
        "In use now: session model Fake Model, the summarizer model is failing (401)\n" +
        "Current summarizer thinking: Default (default): the model's own level; pi-condense asks for none",
    );
  });

  test("/pruner model says which model default is and what the default thinking level means (issue 45, point 12)", async () => {
    const notes: string[] = [];
    const deps = { currentConfig: { value: DEFAULT_CONFIG } } as any;
    await modelCommand(deps, { model: { provider: "anthropic", id: "claude-sonnet-4-5" }, ui: { notify: (m: string) => notes.push(m) } } as any, []);
    expect(notes[0]).toBe(
      "Current summarizer model: default (the session's model, now anthropic/claude-sonnet-4-5)\n" +
        "Current summarizer thinking: Default (default): the model's own level; pi-condense asks for none",
    );
  });

  test("default needs no registry entry", async () => {
    const r = await runWithModels("model default:low", KNOWN, { summarizerModel: "fake/fake-model" });
    expect(r.config.summarizerModel).toBe("default");
    expect(r.config.summarizerThinking).toBe("low");
  });
});

describe("thinking", () => {
  test("without an argument it prints the level", async () => {
    const r = await run("thinking");
    expect(r.notes).toEqual([["Current summarizer thinking: Default (default): the model's own level; pi-condense asks for none", "info"]]);
  });

  test("a valid level is set and saved", async () => {
    const r = await run("thinking medium");
    expect(r.notes).toEqual([["Summarizer thinking set to: medium", "info"]]);
    expect(r.saved.summarizerThinking).toBe("medium");
  });

  test("a bogus level warns and changes nothing", async () => {
    const r = await run("thinking bogus");
    expect(r.notes).toEqual([
      ["Invalid summarizer thinking level: bogus. Use one of: default, off, minimal, low, medium, high, xhigh.", "warning"],
    ]);
    expectUnchanged(r);
  });
});

describe("prune-on", () => {
  test("a valid mode is saved, confirmed and refreshes the footer", async () => {
    const r = await run("prune-on on-demand");
    expect(r.config.pruneOn).toBe("on-demand");
    expect(r.saved.pruneOn).toBe("on-demand");
    expect(r.notes).toEqual([["Prune-on set to on-demand: tool outputs are summarized only when you run /pruner now.", "info"]]);
    expect(r.status).toEqual(["│ prune: ON"]);
  });

  test("without an argument the picker opens on the current mode, marked, and confirms the choice", async () => {
    const seen: unknown[] = [];
    const select = async (title: string, options: string[]) => {
      seen.push(title, options);
      return options[1];
    };
    const r = await run("prune-on", { pruneOn: "on-demand" }, { select });
    expect(seen).toEqual([
      "pruner — choose when to trigger summarization",
      ["on-demand — On demand (current)", "agent-message — On agent message"],
    ]);
    expect(r.config.pruneOn).toBe("agent-message");
    expect(r.notes).toEqual([
      ["Prune-on set to agent-message: tool outputs are summarized after the agent's final reply.", "info"],
    ]);
  });

  test("Enter on the first option keeps the current mode and still confirms it", async () => {
    const r = await run("prune-on", {}, { select: async (_t: string, options: string[]) => options[0] });
    expect(r.config.pruneOn).toBe("agent-message");
    expect(r.notes[0]![0]).toStartWith("Prune-on set to agent-message:");
  });

  test("cancelling the picker changes nothing", async () => {
    const r = await run("prune-on", {}, { select: async () => undefined });
    expectUnchanged(r);
    expect(r.notes).toEqual([]);
  });

  test("an unknown mode answers usage and changes nothing", async () => {
    const r = await run("prune-on every-turn");
    expect(r.notes).toEqual([["Invalid prune-on mode: every-turn. Use one of: agent-message, on-demand.", "warning"]]);
    expectUnchanged(r);
  });
});

describe("batching", () => {
  test("a valid mode is saved and confirmed by its label", async () => {
    const r = await run("batching agent-message");
    expect(r.notes).toEqual([["Batching mode set to: Per agent message", "info"]]);
    expect(r.saved.batchingMode).toBe("agent-message");
    expect(r.status).toEqual([]);
  });

  test("the picker offers both modes", async () => {
    const seen: unknown[] = [];
    const select = async (title: string, options: string[]) => {
      seen.push(title, options);
      return options[0];
    };
    const r = await run("batching", { batchingMode: "agent-message" }, { select });
    expect(seen).toEqual(["pruner — choose batching granularity", ["turn — Per turn", "agent-message — Per agent message"]]);
    expect(r.notes).toEqual([["Batching mode set to: Per turn", "info"]]);
  });

  test("an invalid mode warns and changes nothing", async () => {
    const r = await run("batching chunk");
    expect(r.notes).toEqual([["Invalid batching mode: chunk. Use one of: turn, agent-message.", "warning"]]);
    expectUnchanged(r);
  });
});

describe("protected-tools and protected-paths", () => {
  test("names given inline replace the list (#23)", async () => {
    const r = await run("protected-tools todowrite, todoread");
    expect(r.config.protectedTools).toEqual(["todowrite", "todoread"]);
    expect(r.notes).toEqual([["Protected tools: todowrite, todoread", "info"]]);
    expect(r.saved.protectedTools).toEqual(["todowrite", "todoread"]);
  });

  test("none clears the list (#23)", async () => {
    const r = await run("protected-tools none", { protectedTools: ["a"] });
    expect(r.config.protectedTools).toEqual([]);
    expect(r.notes).toEqual([["Protected tools: (none)", "info"]]);
  });

  test("the interactive prompt shows the current list in its title", async () => {
    const seen: unknown[] = [];
    const input = async (title: string, placeholder?: string) => {
      seen.push(title, placeholder);
      return "bash,  read grep";
    };
    const r = await run("protected-tools", { protectedTools: ["todowrite"] }, { input });
    expect(String(seen[0])).toStartWith("Protected tools");
    expect(String(seen[0])).toContain("current: todowrite");
    expect(seen[1]).toBe("todowrite");
    expect(r.config.protectedTools).toEqual(["bash", "read", "grep"]);
  });

  test("an empty interactive entry keeps the list instead of clearing it", async () => {
    const r = await run("protected-tools", { protectedTools: ["todowrite"] }, { input: async () => "   " });
    expectUnchanged(r);
    expect(r.notes).toEqual([["Protected tools unchanged: todowrite", "info"]]);
  });

  test("a cancelled prompt changes nothing silently", async () => {
    const r = await run("protected-tools", { protectedTools: ["todowrite"] }, { input: async () => undefined });
    expectUnchanged(r);
    expect(r.notes).toEqual([]);
  });

  test("clear words work interactively, case-insensitively", async () => {
    for (const word of ["NONE", "clear", "-"]) {
      const r = await run("protected-tools", { protectedTools: ["todowrite"] }, { input: async () => word });
      expect(r.config.protectedTools).toEqual([]);
    }
  });

  test("protected paths take globs and report them", async () => {
    const r = await run("protected-paths **/secrets/** docs/*.md");
    expect(r.config.protectedPaths).toEqual(["**/secrets/**", "docs/*.md"]);
    expect(r.notes).toEqual([["Protected paths: **/secrets/**, docs/*.md", "info"]]);
  });

  test("the protected-paths prompt names globs and the current value", async () => {
    let title = "";
    const input = async (t: string) => {
      title = t;
      return "clear";
    };
    const r = await run("protected-paths", {}, { input });
    expect(title).toStartWith("Protected paths (current: **/skills/**/*.md, **/gauntlet-overrides.md)");
    expect(title).toContain("globs");
    expect(r.notes).toEqual([["Protected paths: (none)", "info"]]);
  });
});

describe("protected lists: defaults and checks (issue 36, point 15)", () => {
  test("default restores the default globs after none cleared them, instead of storing a glob named default", async () => {
    const r = await run("protected-paths default", { protectedPaths: [] });
    expect(r.config.protectedPaths).toEqual(DEFAULT_CONFIG.protectedPaths);
    expect(r.notes).toEqual([["Protected paths: **/skills/**/*.md, **/gauntlet-overrides.md", "info"]]);
  });

  test("default works interactively and for tools too", async () => {
    const r = await run("protected-tools", { protectedTools: ["bash"] }, { input: async () => "Default" });
    expect(r.config.protectedTools).toEqual(DEFAULT_CONFIG.protectedTools);
  });

  test("a glob with a bracket is saved with a warning that brackets match themselves", async () => {
    const r = await run("protected-paths [unclosed docs/*.md");
    expect(r.config.protectedPaths).toEqual(["[unclosed", "docs/*.md"]);
    expect(r.notes[1]).toEqual([
      "[unclosed: only *, ** and ? are wildcards in these globs, so [ ] { } match those characters themselves. Saved as given; /pruner protected-paths <globs> changes it.",
      "warning",
    ]);
  });

  test("a tool name pi does not have is saved with a warning naming the tools it has", async () => {
    const tools = { getAllTools: () => [{ name: "bash" }, { name: "read" }] };
    const r = await run("protected-tools read nosuchtool", {}, {}, undefined, {}, tools);
    expect(r.config.protectedTools).toEqual(["read", "nosuchtool"]);
    expect(r.notes[1]).toEqual([
      "pi has no tool named nosuchtool (its tools: bash, read). Saved anyway, in case an extension adds it later; /pruner protected-tools <names> changes it.",
      "warning",
    ]);
  });

  test("tool names pi has get no warning", async () => {
    const r = await run("protected-tools read", {}, {}, undefined, {}, { getAllTools: () => [{ name: "read" }] });
    expect(r.notes).toEqual([["Protected tools: read", "info"]]);
  });
});

describe("min-batch-chars", () => {
  test("a number too big to hold exactly is refused, not saved rounded (issue 36, point 15)", async () => {
    const r = await run("min-batch-chars 99999999999999999999");
    expectUnchanged(r);
    expect(r.notes).toEqual([['Invalid min-batch-chars: "99999999999999999999". Expected a whole number of characters from 0 to 1000000000 (0 summarizes everything); it stays 1000.', "warning"]]);
  });

  test("the largest number it takes is saved, one more is refused with the range", async () => {
    expect((await run("min-batch-chars 1000000000")).config.minBatchChars).toBe(1_000_000_000);
    const r = await run("min-batch-chars 1000000001");
    expectUnchanged(r);
    expect(r.notes[0]![0]).toContain("from 0 to 1000000000");
  });

  test("without an argument it prints the threshold", async () => {
    expect((await run("min-batch-chars")).notes).toEqual([["Tool turns whose outputs add up to fewer than 1000 characters are left as they are.", "info"]]);
    expect((await run("min-batch-chars", { minBatchChars: 0 })).notes).toEqual([["Every tool turn's outputs are summarized, however small (min-batch-chars 0).", "info"]]);
  });

  test("a negative value warns and leaves the config unchanged (#24)", async () => {
    const r = await run("min-batch-chars -5");
    expect(r.notes).toEqual([['Invalid min-batch-chars: "-5". Expected a whole number of characters from 0 to 1000000000 (0 summarizes everything); it stays 1000.', "warning"]]);
    expectUnchanged(r);
  });

  test("a non-number warns and changes nothing", async () => {
    const r = await run("min-batch-chars abc");
    expect(r.notes[0]![1]).toBe("warning");
    expectUnchanged(r);
  });

  test("zero disables the guard", async () => {
    const r = await run("min-batch-chars 0");
    expect(r.notes).toEqual([["min-batch-chars set to 0: every tool turn's outputs are summarized, however small.", "info"]]);
    expect(r.saved.minBatchChars).toBe(0);
  });

  for (const arg of ["0x10", "1e3", "12abc", "2.5", "3x", "+5", "٣"]) {
    test(`"${arg}" is not read as some other number: it is refused with the range and changes nothing (issue 45, point 2)`, async () => {
      const r = await run(`min-batch-chars ${arg}`);
      expectUnchanged(r);
      expect(r.notes).toEqual([[`Invalid min-batch-chars: "${arg}". Expected a whole number of characters from 0 to 1000000000 (0 summarizes everything); it stays 1000.`, "warning"]]);
    });
  }
});

describe("recovery-grace", () => {
  test("without an argument it prints the window", async () => {
    expect((await run("recovery-grace")).notes).toEqual([["A recovered output stays whole for your next 3 prompts.", "info"]]);
    expect((await run("recovery-grace", { recoveryGraceTurns: 0 })).notes).toEqual([["A recovered output stays whole only until your next prompt, then goes back to its stub (recovery-grace 0).", "info"]]);
  });

  for (const arg of ["2.5", "3x", "1e1", "0x3"]) {
    test(`"${arg}" is refused with the range and changes nothing (issue 45, point 2)`, async () => {
      const r = await run(`recovery-grace ${arg}`, { recoveryGraceTurns: 5 });
      expectUnchanged(r);
      expect(r.notes).toEqual([[`Invalid recovery-grace: "${arg}". Expected a whole number from 0 to 1000000000 (0 turns it off); it stays 5.`, "warning"]]);
    });
  }

  test("a negative value warns and changes nothing", async () => {
    const r = await run("recovery-grace -1");
    expect(r.notes).toEqual([['Invalid recovery-grace: "-1". Expected a whole number from 0 to 1000000000 (0 turns it off); it stays 3.', "warning"]]);
    expectUnchanged(r);
  });

  test("zero and positive values are saved with their own notices", async () => {
    const zero = await run("recovery-grace 0");
    expect(zero.notes).toEqual([["recovery-grace set to 0: a recovered output stays whole only until your next prompt, then goes back to its stub.", "info"]]);
    const five = await run("recovery-grace 5");
    expect(five.notes).toEqual([["recovery-grace set to 5: a recovered output stays whole for your next 5 prompts.", "info"]]);
    expect(five.saved.recoveryGraceTurns).toBe(5);
  });
});

describe("dedup", () => {
  test("no argument or status names the state once, then what it means", async () => {
    const r = await run("dedup");
    expect(r.notes[0]![0]).toStartWith("Content-hash dedup is ON. Content-hash dedup runs before a flush");
    const off = await run("dedup STATUS", { dedupByContentHash: false });
    expect(off.notes[0]![0]).toStartWith("Content-hash dedup is OFF. ");
    expect(r.notes[0]![0].match(/\bON\b/g)).toHaveLength(1);
    expect(off.notes[0]![0]).toBe("Content-hash dedup is OFF. Identical tool outputs go to the summarizer like any other.");
  });

  test("on/off/true/false toggle it, case-insensitively", async () => {
    const r = await run("dedup OFF");
    expect(r.notes).toEqual([["Content-hash dedup turned OFF.", "info"]]);
    expect(r.saved.dedupByContentHash).toBe(false);
    expect((await run("dedup true", { dedupByContentHash: false })).config.dedupByContentHash).toBe(true);
  });

  test("anything else warns with the lower-cased value and changes nothing", async () => {
    const r = await run("dedup Maybe");
    expect(r.notes).toEqual([['Invalid dedup value: "maybe". Expected on, off, status, true, or false.', "warning"]]);
    expectUnchanged(r);
  });

  test("prototype property names are not accepted as values", async () => {
    const r = await run("dedup constructor");
    expect(r.notes[0]![1]).toBe("warning");
    expectUnchanged(r);
  });
});

describe("a save that cannot land", () => {
  test("a truncated settings.json is left byte-identical and one error names the file once", async () => {
    const r = await run("on", { enabled: false }, {}, '{"a":1');
    const file = join(process.env.PI_CODING_AGENT_DIR!, "settings.json");
    expect(await readFile(file, "utf8")).toBe('{"a":1');
    const errors = r.notes.filter(([, level]) => level === "error").map(([text]) => text);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.split(file)).toHaveLength(2);
    expect(errors[0]).not.toContain("..");
    expect(errors[0]).toEndWith("was left untouched (fix it by hand and try again). The change applies to this session only.");
    expect(r.config.enabled).toBe(true);
  });

  test("a settings.json holding an array is refused with the reason", async () => {
    const r = await run("on", { enabled: false }, {}, "[1,2]");
    const error = r.notes.find(([, level]) => level === "error")![0];
    expect(error).toContain("does not contain a JSON object");
    expect(r.config.enabled).toBe(true);
  });
});

describe("our words in any letter case (issue 45, point 11)", () => {
  test("a thinking level in capitals is set as the level", async () => {
    const r = await run("thinking LOW");
    expect(r.notes).toEqual([["Summarizer thinking set to: low", "info"]]);
    expect(r.saved.summarizerThinking).toBe("low");
  });

  test("DEFAULT as the model is the default, and a thinking suffix in capitals is the level", async () => {
    const r = await run("model DEFAULT:HIGH", { summarizerModel: "a/b" });
    expect(r.notes).toEqual([["Summarizer model set to: default with thinking high", "info"]]);
    expect(r.config).toMatchObject({ summarizerModel: "default", summarizerThinking: "high" });
  });

  test("a model id keeps its case: providers may tell ids apart by it", async () => {
    const r = await runWithModels("model fake/Fake-Summarizer", ["fake/Fake-Summarizer", "fake/fake-summarizer"]);
    expect(r.config.summarizerModel).toBe("fake/Fake-Summarizer");
  });

  test("batching and prune-on modes in capitals are the modes", async () => {
    expect((await run("batching AGENT-MESSAGE")).config.batchingMode).toBe("agent-message");
    expect((await run("prune-on On-Demand")).config.pruneOn).toBe("on-demand");
  });

  test("a word that is not ours in any case is still refused as typed", async () => {
    const r = await run("thinking LOUD");
    expectUnchanged(r);
    expect(r.notes[0]![0]).toBe("Invalid summarizer thinking level: LOUD. Use one of: default, off, minimal, low, medium, high, xhigh.");
  });

  test("NONE clears a protected list and DEFAULT restores it", async () => {
    expect((await run("protected-paths NONE")).config.protectedPaths).toEqual([]);
    expect((await run("protected-paths DEFAULT", { protectedPaths: [] })).config.protectedPaths).toEqual(DEFAULT_CONFIG.protectedPaths);
  });
});
