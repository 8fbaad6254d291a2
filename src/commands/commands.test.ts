import { describe, expect, mock, test } from "bun:test";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { pruneStatusText, registerCommands, setPruneStatusWidget } from "./commands.js";
import { DEFAULT_CONFIG } from "../settings/config-shape.js";
import piCondense from "../../index.js";
import { makeFakeCtx, makeFakePi } from "../../test/fake-host.js";
import { useTempAgentDirs } from "../../test/temp-agent-dir.js";

// ---------------------------------------------------------------------------
// Harness
// ---------------------------------------------------------------------------

const ZERO_STATS = { callCount: 0, totalInputTokens: 0, totalOutputTokens: 0, totalCost: 0 };
const METRICS = { openCycleThinkingTokens: 12000, largestChainSharePct: 62, frontierGapTokens: 195000 };

const agentDirs = useTempAgentDirs("pruner-commands-");
const { settleSaves } = agentDirs;

const freshAgentDir = agentDirs.fresh;

async function savedConfig(dir: string): Promise<any> {
  await settleSaves();
  const file = join(dir, "settings.json");
  return existsSync(file) ? JSON.parse(await readFile(file, "utf8")).contextPrune : undefined;
}

function harness(options: any = {}) {
  const commands = new Map<string, any>();
  const renderers = new Map<string, any>();
  const pi = {
    registerCommand: (name: string, spec: any) => commands.set(name, spec),
    registerMessageRenderer: (type: string, renderer: any) => renderers.set(type, renderer),
  } as any;
  const box = { value: { ...DEFAULT_CONFIG, enabled: true, ...options.config } };
  const flushPending = mock(options.flush ?? (async () => ({ ok: false, reason: "empty" })));
  const capture = mock(options.capture ?? (() => []));
  const compact = mock(options.compact ?? (async () => ({ compressedEntries: [], kept: { alreadyCompressed: 0, underWay: 0, noToolCalls: 0, readBack: 0, nothingArchivable: 0 } })));
  registerCommands(
    pi,
    box,
    flushPending,
    capture,
    () => options.stats ?? ZERO_STATS,
    () => options.reclaim,
    options.indexer ?? ({} as any),
    compact,
    options.diagnostics,
    options.metrics,
    options.cachedMetrics,
    options.rearmed,
    options.policyView,
    options.fallback,
    { getSummarizerCache: options.summarizerCache, measureContext: options.measureContext, describeToggle: options.describeToggle },
  );
  const spec = commands.get("pruner");
  return { spec, commands, renderers, box, flushPending, capture, compact, run: (args: string, ctx: any) => spec.handler(args, ctx) };
}

function fakeCtx(ui: Record<string, unknown> = {}) {
  const notes: Array<{ message: string; type?: string; argCount: number }> = [];
  const notify = (...args: unknown[]) => notes.push({ message: String(args[0]), type: args[1] as string | undefined, argCount: args.length });
  return { ctx: { ui: { notify, ...ui } } as any, notes };
}

function statusRecorder() {
  const calls: Array<[string, string | undefined]> = [];
  return { calls, setStatus: (id: string, text?: string) => calls.push([id, text]) };
}

// ---------------------------------------------------------------------------
// Footer status line
// ---------------------------------------------------------------------------

describe("pruneStatusText", () => {
  test("a disabled config reads prune: OFF (#5)", () => {
    expect(pruneStatusText({ enabled: false } as any)).toBe("prune: OFF");
  });

  test("a disabled config ignores reclaim, diagnostics and metrics", () => {
    const text = pruneStatusText({ enabled: false } as any, { beforeChars: 400, afterChars: 40 }, { "unresolved-range": 2 } as any, METRICS);
    expect(text).toBe("prune: OFF");
  });

  test("outputs waiting follow the reclaim figure; without one the footer reads prune: <n> pending (issue 36, point 6)", () => {
    expect(pruneStatusText({ enabled: true } as any, { beforeChars: 4000, afterChars: 1000 }, undefined, undefined, 2)).toBe("prune: ON · 1.0k->250 (-75%) · 2 pending");
    expect(pruneStatusText({ enabled: true } as any, undefined, undefined, undefined, 1)).toBe("prune: 1 pending");
    expect(pruneStatusText({ enabled: false } as any, undefined, undefined, undefined, 1)).toBe("prune: OFF");
  });

  test("enabled with no reclaim or an explicit undefined reclaim reads prune: ON (#6)", () => {
    expect(pruneStatusText({ enabled: true } as any)).toBe("prune: ON");
    expect(pruneStatusText({ enabled: true } as any, undefined)).toBe("prune: ON");
  });

  test("a 0/0 reclaim reads prune: ON without dividing (#7)", () => {
    expect(pruneStatusText({ enabled: true } as any, { beforeChars: 0, afterChars: 0 })).toBe("prune: ON");
  });

  test("a 368000/56000 char reclaim shows the token estimate and reduction (#8)", () => {
    expect(pruneStatusText({ enabled: true } as any, { beforeChars: 368000, afterChars: 56000 })).toBe(
      "prune: ON · 92.0k->14.0k (-85%)",
    );
  });

  test("an unchanged size reads -0% (#9)", () => {
    expect(pruneStatusText({ enabled: true } as any, { beforeChars: 100, afterChars: 100 })).toBe("prune: ON · 25->25 (-0%)");
  });

  test("an expansion clamps to -0% (#10)", () => {
    expect(pruneStatusText({ enabled: true } as any, { beforeChars: 100, afterChars: 150 })).toEndWith("(-0%)");
  });

  test("a full strip reads -100%", () => {
    expect(pruneStatusText({ enabled: true } as any, { beforeChars: 400, afterChars: 0 })).toBe("prune: ON · 100->0 (-100%)");
  });

  test("a reclaim below one token never renders NaN", () => {
    expect(pruneStatusText({ enabled: true } as any, { beforeChars: 1, afterChars: 1 })).toBe("prune: ON · 0->0 (-0%)");
  });

  test("an overhead counts on both sides of the reclaim, so the reduction is of the whole request", () => {
    expect(pruneStatusText({ enabled: true } as any, { beforeChars: 368000, afterChars: 56000, overheadTokens: 6000 })).toBe(
      "prune: ON · 98.0k->20.0k (-80%)",
    );
  });

  test("a negative overhead larger than the messages shows zero tokens, never a negative figure", () => {
    expect(pruneStatusText({ enabled: true } as any, { beforeChars: 400, afterChars: 40, overheadTokens: -50 })).toBe("prune: ON · 50->0 (-100%)");
  });

  test("all-zero diagnostics add nothing (#14)", () => {
    const diag = { "unresolved-range": 0, "range-id-mismatch": 0, "orphan-sweep": 0 } as any;
    expect(pruneStatusText({ enabled: true } as any, undefined, diag)).toBe("prune: ON");
  });

  test("non-zero diagnostics render in u/m/o order skipping zeros (#15)", () => {
    const diag = { "unresolved-range": 2, "range-id-mismatch": 0, "orphan-sweep": 1 } as any;
    expect(pruneStatusText({ enabled: true } as any, undefined, diag)).toBe("prune: ON · diag u2/o1");
  });

  test("the diag suffix follows the reclaim segment (#16)", () => {
    const diag = { "unresolved-range": 2, "orphan-sweep": 1 } as any;
    expect(pruneStatusText({ enabled: true } as any, { beforeChars: 368000, afterChars: 56000 }, diag)).toBe(
      "prune: ON · 92.0k->14.0k (-85%) · diag u2/o1",
    );
  });

  test("backfill-empty diagnostics render as b last (#18)", () => {
    const diag = { "unresolved-range": 2, "range-id-mismatch": 0, "orphan-sweep": 1, "backfill-empty": 2 } as any;
    expect(pruneStatusText({ enabled: true } as any, undefined, diag)).toBe("prune: ON · diag u2/o1/b2");
  });

  test("range-id-mismatch renders as m", () => {
    expect(pruneStatusText({ enabled: true } as any, undefined, { "range-id-mismatch": 3 } as any)).toBe("prune: ON · diag m3");
  });

  test("metrics with a frontier gap add the think/gap/chain suffix (#19)", () => {
    expect(pruneStatusText({ enabled: true } as any, undefined, undefined, METRICS)).toContain(
      "· think 12.0k · gap 195.0k · chain 62%",
    );
  });

  test("metrics with a zero gap add nothing (#20)", () => {
    expect(pruneStatusText({ enabled: true } as any, undefined, undefined, { ...METRICS, frontierGapTokens: 0 })).toBe("prune: ON");
  });

  test("the metrics suffix follows the diag suffix (#21)", () => {
    const diag = { "unresolved-range": 2, "orphan-sweep": 1 } as any;
    expect(pruneStatusText({ enabled: true } as any, undefined, diag, METRICS)).toBe(
      "prune: ON · diag u2/o1 · think 12.0k · gap 195.0k · chain 62%",
    );
  });
});

describe("setPruneStatusWidget", () => {
  test("with the status line on, every state gets the U+2502 prefix (#11)", () => {
    const rec = statusRecorder();
    setPruneStatusWidget({ ui: rec }, { enabled: false, showPruneStatusLine: true } as any);
    setPruneStatusWidget({ ui: rec }, { enabled: true, showPruneStatusLine: true } as any);
    setPruneStatusWidget({ ui: rec }, { enabled: true, showPruneStatusLine: true } as any, { beforeChars: 368000, afterChars: 56000 });
    expect(rec.calls).toEqual([
      ["context-prune", "│ prune: OFF"],
      ["context-prune", "│ prune: ON"],
      ["context-prune", "│ prune: ON · 92.0k->14.0k (-85%)"],
    ]);
  });

  test("a string value is shown verbatim (#12)", () => {
    const rec = statusRecorder();
    setPruneStatusWidget({ ui: rec }, { enabled: true, showPruneStatusLine: true } as any, "prune: 3 pending");
    expect(rec.calls).toEqual([["context-prune", "│ prune: 3 pending"]]);
  });

  test("an absent showPruneStatusLine clears the status (#13)", () => {
    const rec = statusRecorder();
    setPruneStatusWidget({ ui: rec }, { enabled: true } as any, "prune: 3 pending");
    expect(rec.calls).toEqual([["context-prune", undefined]]);
  });

  test("diagnostics reach the widget text (#17)", () => {
    const rec = statusRecorder();
    setPruneStatusWidget({ ui: rec }, { enabled: true, showPruneStatusLine: true } as any, undefined, { "unresolved-range": 1 } as any);
    expect(rec.calls).toEqual([["context-prune", "│ prune: ON · diag u1"]]);
  });
});

// ---------------------------------------------------------------------------
// Registration and dispatch
// ---------------------------------------------------------------------------

describe("registration", () => {
  test("registers only the pruner command and the summary renderer", () => {
    const h = harness();
    expect([...h.commands.keys()]).toEqual(["pruner"]);
    expect(h.spec.description).toBe("Context-prune settings and commands");
    expect([...h.renderers.keys()]).toEqual(["context-prune-summary"]);
  });

  test("an empty prefix completes every subcommand in catalogue order", () => {
    const items = harness().spec.getArgumentCompletions("");
    expect(items.map((i: any) => i.value)).toEqual([
      "settings", "on", "off", "status", "model", "thinking", "prune-on", "batching", "stats", "report", "tree",
      "now", "compact", "protected-tools", "protected-paths", "min-batch-chars", "recovery-grace", "dedup", "help",
    ]);
  });

  test("completion labels are the exact catalogue lines", () => {
    const items = harness().spec.getArgumentCompletions("");
    expect(items[0]).toEqual({ value: "settings", label: "settings         — open the settings overlay" });
    expect(items.find((i: any) => i.value === "protected-tools").label).toBe("protected-tools  — tools whose outputs are never summarized");
    expect(items.find((i: any) => i.value === "recovery-grace").label).toBe("recovery-grace   — how long a recovered output stays whole");
  });

  test("the picker's dashes share one column and every label fits an 80-column row (issue 36, point 11)", () => {
    const labels = harness().spec.getArgumentCompletions("").map((i: any) => i.label as string);
    expect(new Set(labels.map((label: string) => label.indexOf("—"))).size).toBe(1);
    // pi's selector draws each option after a two-column arrow, inside a one-column margin on each side.
    for (const label of labels) expect(label.length).toBeLessThanOrEqual(74);
  });

  test("a prefix filters completions and an unmatched prefix yields an empty list", () => {
    const spec = harness().spec;
    expect(spec.getArgumentCompletions("pro").map((i: any) => i.value)).toEqual(["protected-tools", "protected-paths"]);
    expect(spec.getArgumentCompletions("zzz")).toEqual([]);
  });

  test("a subcommand typed in full offers no completion, so the first Enter runs it", () => {
    const spec = harness().spec;
    for (const name of ["status", "stats", "on", "prune-on", "help"]) expect(spec.getArgumentCompletions(name)).toEqual([]);
  });

  test("a partial name still lists every subcommand it could become", () => {
    const spec = harness().spec;
    expect(spec.getArgumentCompletions("stat").map((i: any) => i.value)).toEqual(["status", "stats"]);
    expect(spec.getArgumentCompletions("o").map((i: any) => i.value)).toEqual(["on", "off"]);
  });
});

describe("dispatch", () => {
  test("an unknown subcommand answers usage with no notify type (#25)", async () => {
    const h = harness();
    const { ctx, notes } = fakeCtx();
    await h.run("frob", ctx);
    expect(notes).toEqual([{ message: 'Unknown subcommand: "frob". Run /pruner help for usage.', type: undefined, argCount: 1 }]);
  });

  test("a subcommand in capitals, as the footer writes ON, is the same subcommand (issue 36, point 15)", async () => {
    const h = harness({ config: { enabled: false } });
    const { ctx } = fakeCtx({ setStatus: () => {} });
    await h.run("ON", ctx);
    expect(h.box.value.enabled).toBe(true);
  });

  test("OFF in capitals turns pruning off", async () => {
    const h = harness();
    const { ctx } = fakeCtx({ setStatus: () => {} });
    await h.run("OFF", ctx);
    expect(h.box.value.enabled).toBe(false);
  });

  test("extra words are refused and nothing runs: /pruner off now neither turns pruning off nor flushes (issue 36, point 15)", async () => {
    const h = harness();
    const { ctx, notes } = fakeCtx();
    await h.run("off now", ctx);
    expect(h.box.value.enabled).toBe(true);
    expect(h.flushPending).not.toHaveBeenCalled();
    expect(notes).toEqual([
      { message: 'pruner: /pruner off takes no arguments, so nothing was done ("now" is more than it reads). Run /pruner help for usage.', type: "warning", argCount: 2 },
    ]);
  });

  test("a one-argument subcommand refuses a second word", async () => {
    const h = harness();
    const { ctx, notes } = fakeCtx();
    await h.run("thinking low high", ctx);
    expect(h.box.value.summarizerThinking).toBe(DEFAULT_CONFIG.summarizerThinking);
    expect(notes[0]!.message).toBe('pruner: /pruner thinking takes one argument, so nothing was done ("high" is more than it reads). Run /pruner help for usage.');
  });

  test("a bare /pruner opens the picker and runs the chosen subcommand (#26)", async () => {
    const h = harness();
    const seen: any[] = [];
    const { ctx, notes } = fakeCtx({
      select: async (title: string, options: string[]) => {
        seen.push(title, options);
        return options.find((o) => o.startsWith("stats"));
      },
    });
    await h.run("", ctx);
    expect(seen[0]).toBe("pruner — choose a subcommand");
    expect(seen[1]).toHaveLength(19);
    expect(notes.map((n) => n.message)).toEqual(["pruner stats: no summarizer calls yet."]);
  });

  test("cancelling the bare picker does nothing", async () => {
    const h = harness();
    const { ctx, notes } = fakeCtx({ select: async () => undefined });
    await h.run("   ", ctx);
    expect(notes).toEqual([]);
  });

  test("a failing collaborator is reported as an error instead of throwing into pi", async () => {
    const h = harness({
      capture: () => {
        throw new Error("branch unreadable");
      },
    });
    const { ctx, notes } = fakeCtx();
    await h.run("now", ctx);
    expect(notes).toEqual([{ message: "pruner: command failed: branch unreadable", type: "error", argCount: 2 }]);
  });

  test("help lists every command part padded to 41 columns, in plain words", async () => {
    const { ctx, notes } = fakeCtx();
    await harness().run("help", ctx);
    const lines = notes[0]!.message.split("\n");
    expect(lines[0]).toBe("pruner — summarizes tool outputs the agent already used, and keeps every original recoverable.");
    expect(lines[1]).toBe("");
    expect(lines[2]).toBe("Usage:");
    expect(lines[3]).toStartWith(`  ${"/pruner settings".padEnd(41)}`);
    const usage = lines.filter((l) => l.startsWith("  /pruner "));
    expect(usage).toHaveLength(33);
    expect(usage.map((l) => l.slice(2, 43).trimEnd())).toContain("/pruner dedup on|off");
    expect(notes[0]!.message).toContain("contextPrune");
    expect(notes[0]!.message).toContain("PI_CODING_AGENT_DIR");
    expect(notes[0]!.message).not.toMatch(/frontier|user-turn|resultText|allowlist|never-pruned|flush/i);
  });
});

// ---------------------------------------------------------------------------
// on / off and persistence
// ---------------------------------------------------------------------------

describe("on and off", () => {
  test("on enables, saves, confirms and refreshes the footer", async () => {
    const dir = await freshAgentDir();
    const h = harness({ config: { enabled: false } });
    const rec = statusRecorder();
    const { ctx, notes } = fakeCtx({ setStatus: rec.setStatus });
    await h.run("on", ctx);
    expect(h.box.value.enabled).toBe(true);
    expect(notes.map((n) => [n.message, n.type])).toEqual([["Context pruning enabled.", "info"]]);
    expect(rec.calls).toEqual([["context-prune", "│ prune: ON"]]);
    expect((await savedConfig(dir)).enabled).toBe(true);
  });

  test("the first /pruner on after a fresh start writes only enabled to settings.json", async () => {
    const dir = await freshAgentDir();
    const host = makeFakePi();
    piCondense(host.pi as any);
    const fake = makeFakeCtx(host);
    await host.handlers.get("session_start")!({}, fake.ctx);
    await host.commands.get("pruner")!.handler("on", fake.ctx);
    await settleSaves();
    const text = await readFile(join(dir, "settings.json"), "utf8");
    expect(text).toBe(`${JSON.stringify({ contextPrune: { enabled: true } }, null, 2)}\n`);
  });

  test("off disables with a new config object and shows prune: OFF", async () => {
    const h = harness();
    const before = h.box.value;
    const rec = statusRecorder();
    const { ctx, notes } = fakeCtx({ setStatus: rec.setStatus });
    await h.run("off", ctx);
    expect(h.box.value).not.toBe(before);
    expect(before.enabled).toBe(true);
    expect(h.box.value.enabled).toBe(false);
    expect(notes[0]!.message).toBe("Context pruning disabled.");
    expect(rec.calls).toEqual([["context-prune", "│ prune: OFF"]]);
  });

  test("a failed save is reported once as an error naming the settings file, and the change stays", async () => {
    const dir = await freshAgentDir();
    const blocker = join(dir, "not-a-dir");
    await Bun.write(blocker, "x");
    process.env.PI_CODING_AGENT_DIR = join(blocker, "agent");
    const h = harness({ config: { enabled: false } });
    const { ctx, notes } = fakeCtx({ setStatus: () => {} });
    await h.run("on", ctx);
    await settleSaves();
    expect(h.box.value.enabled).toBe(true);
    const errors = notes.filter((n) => n.type === "error");
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toContain(join(blocker, "agent", "settings.json"));
  });
});

// ---------------------------------------------------------------------------
// status / stats
// ---------------------------------------------------------------------------

describe("status", () => {
  test("prints the exact settings layout and the no-calls line", async () => {
    const { ctx, notes } = fakeCtx();
    await harness().run("status", ctx);
    expect(notes).toEqual([
      {
        message: [
          "pruner status:",
          "  Enabled:                  true",
          "  Summarizer model:         default (the session's model)",
          "  Summarizer thinking:      default (the model's own level; pi-condense asks for none)",
          "  Summarizer idle timeout:  20 s",
          "  Summarizer max timeout:   180 s",
          "  Prune trigger:            agent-message (after the agent's final reply)",
          "  Batching mode:            turn (one summary per tool turn)",
          "  Summaries:                auto (only for outputs that cannot be had again)",
          "  Dedup by content hash:    true (repeated outputs point at their earlier copy)",
          "  Prune status line:        true (the footer line is shown)",
          "  (no summarizer calls yet)",
        ].join("\n"),
        type: "info",
        argCount: 2,
      },
    ]);
  });

  test("the default summarizer model is named: the session's model, which one (issue 45, point 12)", async () => {
    const { ctx, notes } = fakeCtx();
    ctx.model = { provider: "anthropic", id: "claude-sonnet-4-5" };
    await harness().run("status", ctx);
    expect(notes[0]!.message).toContain("\n  Summarizer model:         default (the session's model, now anthropic/claude-sonnet-4-5)\n");
  });

  test("under the classic policy the summaries row says always is in effect", async () => {
    const { ctx, notes } = fakeCtx();
    await harness({ config: { flushPolicy: "classic", summaries: "auto" } }).run("status", ctx);
    expect(notes[0]!.message).toContain("  Summaries:                auto (always in effect: flushPolicy classic implies it)\n");
  });

  test("zero timeouts read off and an unknown trigger shows its raw value", async () => {
    const h = harness({ config: { summarizerIdleTimeoutMs: 0, summarizerMaxTimeoutMs: 0, pruneOn: "every-turn" } });
    const { ctx, notes } = fakeCtx();
    await h.run("status", ctx);
    expect(notes[0]!.message).toContain("  Summarizer idle timeout:  off\n  Summarizer max timeout:   off\n  Prune trigger:            every-turn\n");
  });

  test("summarizer usage is listed once calls exist", async () => {
    const stats = { callCount: 3, totalInputTokens: 12345, totalOutputTokens: 678, totalCost: 0.0123 };
    const { ctx, notes } = fakeCtx();
    await harness({ stats }).run("status", ctx);
    expect(notes[0]!.message).toEndWith(
      "\n  --- summarizer use ---\n  calls:       3\n  input:       12.3k tokens\n  output:      678 tokens\n  cost:        $0.012",
    );
  });

  test("wired metrics add the context block (#2)", async () => {
    const { ctx, notes } = fakeCtx();
    await harness({ metrics: () => METRICS, rearmed: () => false }).run("status", ctx);
    const text = notes[0]!.message;
    expect(text).toContain("--- context now (what the provider receives) ---");
    expect(text).toContain("thinking since the last reply:    12.0k tokens");
    expect(text).toContain("largest prompt's work:            62% of the context");
    expect(text).toContain("tool output not yet summarized:   195.0k tokens");
  });

  test("the rearmed line appears only while rearmed (#3)", async () => {
    const armed = fakeCtx();
    await harness({ metrics: () => METRICS, rearmed: () => true }).run("status", armed.ctx);
    expect(armed.notes[0]!.message).toEndWith("\n  found after reload:               earlier tool output waiting to be summarized");
    const idle = fakeCtx();
    await harness({ metrics: () => METRICS, rearmed: () => false }).run("status", idle.ctx);
    expect(idle.notes[0]!.message).not.toContain("found after reload");
  });

  test("without a metrics callback there is no context block (#4)", async () => {
    const { ctx, notes } = fakeCtx();
    await harness().run("status", ctx);
    expect(notes[0]!.message).not.toContain("--- context now");
  });

  test("the context block renders while pruning is disabled, from a fresh computation", async () => {
    const metrics = mock((_ctx: unknown) => METRICS);
    const { ctx, notes } = fakeCtx();
    await harness({ config: { enabled: false }, metrics }).run("status", ctx);
    expect(metrics).toHaveBeenCalledTimes(1);
    expect(metrics.mock.calls[0]).toEqual([ctx]);
    expect(notes[0]!.message).toContain("--- context now");
  });
});

describe("stats", () => {
  test("no calls and no chains reads the empty line", async () => {
    const { ctx, notes } = fakeCtx();
    await harness().run("stats", ctx);
    expect(notes[0]!.message).toBe("pruner stats: no summarizer calls yet.");
  });

  test("the summarizer's use is named as its own, next to the context pruning saved and the prompts compressed", async () => {
    const stats = { callCount: 2, totalInputTokens: 1500, totalOutputTokens: 300, totalCost: 0.0004, chainsCompressed: 4 };
    const { ctx, notes } = fakeCtx();
    await harness({ stats, reclaim: { beforeChars: 41_200, afterChars: 10_800 } }).run("stats", ctx);
    expect(notes[0]!.message).toBe(
      "pruner stats:\n  calls:       2\n  input:       1.5k tokens\n  output:      300 tokens\n  cost:        <$0.001" +
        "\n  (calls, tokens and cost are the summarizer's own)" +
        "\n  context sent: 2.7k tokens (10.3k without pruning, -74%)" +
        "\n  earlier prompts compressed: 4",
    );
  });

  test("the summarizer's input counts what it wrote to and read from its cache (issue 36, point 3)", async () => {
    const stats = { ...ZERO_STATS, callCount: 1, totalInputTokens: 0, totalOutputTokens: 120, totalCost: 0.016 };
    const { ctx, notes } = fakeCtx();
    await harness({ stats, summarizerCache: () => ({ cacheReadTokens: 0, cacheWriteTokens: 4262 }) }).run("stats", ctx);
    expect(notes[0]!.message).toContain("\n  input:       4.3k tokens (4.3k written to its cache, 0 read from it)\n");
  });

  test("status shows the summarizer's input with its cache tokens too", async () => {
    const stats = { ...ZERO_STATS, callCount: 2, totalInputTokens: 500 };
    const { ctx, notes } = fakeCtx();
    await harness({ stats, summarizerCache: () => ({ cacheReadTokens: 1000, cacheWriteTokens: 2000 }) }).run("status", ctx);
    expect(notes[0]!.message).toContain("\n  input:       3.5k tokens (2.0k written to its cache, 1.0k read from it)\n");
  });

  test("before any request was pruned it says nothing was saved yet", async () => {
    const stats = { ...ZERO_STATS, callCount: 1 };
    const { ctx, notes } = fakeCtx();
    await harness({ stats }).run("stats", ctx);
    expect(notes[0]!.message).toContain("\n  context sent: no pruned request yet");
  });

  test("compressed prompts alone are enough to print the block", async () => {
    const stats = { ...ZERO_STATS, chainsCompressed: 1 };
    const { ctx, notes } = fakeCtx();
    await harness({ stats }).run("stats", ctx);
    expect(notes[0]!.message).toEndWith("\n  earlier prompts compressed: 1");
  });

  test("savings without a summarizer call are still shown", async () => {
    const { ctx, notes } = fakeCtx();
    await harness({ reclaim: { beforeChars: 8_000, afterChars: 4_000 } }).run("stats", ctx);
    expect(notes[0]!.message).toBe("pruner stats: no summarizer calls yet.\n  context sent: 1.0k tokens (2.0k without pruning, -50%)");
  });
});

// ---------------------------------------------------------------------------
// Message renderer
// ---------------------------------------------------------------------------

describe("summary message renderer", () => {
  const theme = { fg: (_color: string, text: string) => `<${text}>` } as any;
  const message = {
    role: "custom",
    customType: "context-prune-summary",
    content: "body line",
    details: { toolCallRefs: [{ shortId: "t1", toolCallId: "a" }, { shortId: "t2", toolCallId: "b" }], turnIndex: 7 },
  };

  test("collapsed shows only the accent header", () => {
    const render = harness().renderers.get("context-prune-summary");
    expect(render(message, { expanded: false }, theme).render(80).map((l: string) => l.trimEnd())).toEqual(["<[pruner] summary of 2 tool outputs>"]);
  });

  test("expanded adds the summary body", () => {
    const render = harness().renderers.get("context-prune-summary");
    const lines = render(message, { expanded: true }, theme).render(80).map((l: string) => l.trimEnd());
    expect(lines).toEqual(["<[pruner] summary of 2 tool outputs>", "body line"]);
  });

  test("legacy ids count and a missing turn index reads ?", () => {
    const render = harness().renderers.get("context-prune-summary");
    const legacy = { ...message, details: { toolCallIds: ["x"] } };
    expect(render(legacy, { expanded: false }, theme).render(80).map((l: string) => l.trimEnd())).toEqual(["<[pruner] summary of 1 tool output>"]);
  });
});
