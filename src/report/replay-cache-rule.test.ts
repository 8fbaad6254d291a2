import { describe, expect, test } from "bun:test";
import type { SessionEntry } from "@earendil-works/pi-coding-agent";
import { getBuiltinModel } from "@earendil-works/pi-ai/providers/all";
import { costModelFor } from "../economics/cost-model.js";
import { DEFAULT_CONFIG, type ContextPruneConfig } from "../settings/config-shape.js";
import { replaySession, type ReplayReport } from "./replay.js";
import { cacheLines, reportText } from "./text-report.js";
import { reportHtml } from "./html-report.js";
import { recordedSession } from "../../test/recorded-session.js";

const sonnet = getBuiltinModel("anthropic", "claude-sonnet-4-5");
const catalog = () => ({ cost: costModelFor(sonnet), contextWindow: sonnet.contextWindow });

/**
 * Two prompts, messages 5 s apart: the first (6,000 chars) runs `turns` tool turns (4,000-char outputs) and replies, the
 * second one tool turn. The what-if flushes at the first reply, so the second prompt's first request rewrites
 * the first prompt's results: with 12 turns the rewrite point lies 36 blocks before the end, past the lookback.
 */
function session(api: string, turns = 12): SessionEntry[] {
  const { entries, add } = recordedSession(api);
  const prompt = (p: number, count: number) => {
    // A long first prompt: its request's entry is over the 1,024-token minimum.
    add({ role: "user", content: `task ${p}: `.padEnd(p === 0 ? 6000 : 20, "y") });
    for (let t = 0; t < count; t++) {
      const id = `c${p}_${t}`;
      add({ role: "assistant", content: [{ type: "toolCall", id, name: "bash", arguments: { command: `run ${p} ${t}` } }] });
      add({ role: "toolResult", toolCallId: id, toolName: "bash", content: [{ type: "text", text: `${id}:`.padEnd(4000, "x") }], isError: false });
    }
    add({ role: "assistant", content: [{ type: "text", text: `done ${p}` }] });
  };
  prompt(0, turns);
  prompt(1, 1);
  return entries;
}

const CONFIG: Partial<ContextPruneConfig> = { flushPolicy: "classic", minBatchChars: 0, chainCompression: { ...DEFAULT_CONFIG.chainCompression, enabled: false } };

function replay(branch: SessionEntry[], config: Record<string, unknown> = {}): Promise<ReplayReport> {
  return replaySession({ sessionId: "s", branch, problems: [], config: { ...DEFAULT_CONFIG, enabled: true, ...CONFIG, ...config } as ContextPruneConfig, overrides: [], costModelOf: catalog });
}

const scenario = (report: ReplayReport, name: string) => report.scenarios.find((s) => s.name === name)!;

describe("the replay under the cache rule of the session's API", () => {
  test("a deep rewrite costs more under Anthropic's rule without the spare breakpoint than with it, and with it about what the prefix rule costs", async () => {
    const anthropic = await replay(session("anthropic-messages"));
    const prefix = await replay(session("google-generative-ai"));
    expect(anthropic.cache.rule).toBe("anthropic-breakpoints");
    expect(prefix.cache.rule).toBe("longest-prefix");
    const withIt = scenario(anthropic, "whatif").totals;
    const without = anthropic.cache.whatIfOther!;
    expect(without.spareBreakpoint).toBe(false);
    // Without it the rewrite writes the whole conversation again, the 1,500-token first prompt included.
    expect(without.totals.cacheWrite - withIt.cacheWrite).toBeGreaterThan(1400);
    expect(without.totals.dollars!).toBeGreaterThan(withIt.dollars! * 1.03);
    // Not exactly equal: the prefix rule also reads the unchanged tool call between the last entry and the rewrite.
    const prefixDollars = scenario(prefix, "whatif").totals.dollars!;
    expect(Math.abs(withIt.dollars! - prefixDollars) / prefixDollars).toBeLessThan(0.005);
  });

  test("with cacheBreakpoint off the what-if goes without the spare breakpoint, and the other bill is the one with it", async () => {
    const on = await replay(session("anthropic-messages"));
    const off = await replay(session("anthropic-messages"), { cacheBreakpoint: false });
    expect(off.cache.spareBreakpoint).toBe(false);
    expect(off.cache.whatIfOther!.spareBreakpoint).toBe(true);
    expect(scenario(off, "whatif").totals.dollars).toBeCloseTo(on.cache.whatIfOther!.totals.dollars!, 9);
    expect(off.cache.whatIfOther!.totals.dollars).toBeCloseTo(scenario(on, "whatif").totals.dollars!, 9);
  });

  test("pi alone never has the spare breakpoint: a turn of more than 20 blocks misses its cache, the what-if's does not", async () => {
    // One assistant message with 11 tool calls and their 11 results: the next request adds 22 blocks.
    const { entries, add } = recordedSession();
    const ids = Array.from({ length: 11 }, (_, i) => `c${i}`);
    add({ role: "user", content: "task".padEnd(6000, "y") });
    add({ role: "assistant", content: ids.map((id) => ({ type: "toolCall", id, name: "bash", arguments: { command: id } })) });
    for (const id of ids) add({ role: "toolResult", toolCallId: id, toolName: "bash", content: [{ type: "text", text: id.padEnd(500, "x") }], isError: false });
    add({ role: "assistant", content: [{ type: "text", text: "done" }] });
    const report = await replay(entries as SessionEntry[]);
    const none = scenario(report, "none");
    expect(none.totals.lookbackMisses).toBe(1);
    expect(none.totals.prefixBreaks).toBe(0);
    expect(none.cacheRead[1]).toBe(0);
    const whatIf = scenario(report, "whatif");
    expect(whatIf.totals.lookbackMisses).toBe(0);
    expect(whatIf.cacheRead[1]).toBe(none.context[0]);
    expect(report.cache.whatIfOther!.totals.lookbackMisses).toBe(1);
  });

  test("an OpenAI session is priced by the longest shared prefix, read in steps of 128 tokens", async () => {
    const report = await replay(session("openai-responses"));
    expect(report.cache).toMatchObject({ rule: "longest-prefix", api: "openai-responses", spareBreakpoint: false });
    const none = scenario(report, "none");
    let checked = 0;
    for (let i = 1; i < none.context.length; i++) {
      const before = none.context[i - 1]!;
      if (before < 1024) continue;
      expect(none.cacheRead[i]).toBe(Math.floor(before / 128) * 128);
      checked++;
    }
    expect(checked).toBeGreaterThan(5);
    expect(none.totals.uncached).toBe(0);
  });

  test("--model prices by the rule of the catalog model's API", async () => {
    const report = await replaySession({
      sessionId: "s",
      branch: session("anthropic-messages"),
      problems: [],
      config: { ...DEFAULT_CONFIG, enabled: true, ...CONFIG } as ContextPruneConfig,
      overrides: [],
      priceAs: { provider: "openai", id: "gpt-5" },
      costModelOf: (provider) => ({ ...catalog(), api: provider === "openai" ? "openai-responses" : "anthropic-messages" }),
    });
    expect(report.cache.rule).toBe("longest-prefix");
    expect(report.cache.api).toBe("openai-responses");
    expect(report.cache.whatIfOther).toBeUndefined();
  });

  test("the report names the rule in one line and gives the what-if with and without the spare breakpoint", async () => {
    const anthropic = await replay(session("anthropic-messages"));
    const lines = cacheLines(anthropic);
    expect(lines[0]).toBe("cache rule: Anthropic breakpoints (20-block lookback), with pi-condense's spare breakpoint; short retention: entries live 5 min");
    expect(lines[1]).toBe(
      "  (the provider reads from its cache the start of a request up to a point pi marks in it, looking back at most 20 blocks, messages or parts of them, from each mark; " +
        "pi leaves one of the four marks unused: the spare breakpoint puts it just before the first block pi-condense rewrites, so what comes before stays a cache read)",
    );
    expect(lines[2]).toMatch(
      /^what-if with the spare breakpoint: \$[\d.]+; without it: \$[\d.]+; under the longest-prefix rule, had the provider read the longest start shared with any earlier request: \$[\d.]+$/,
    );
    const text = reportText(anthropic, "s.jsonl");
    // The TUI wraps the rule at 78 columns.
    expect(text).toContain("cache rule: Anthropic breakpoints (20-block lookback), with pi-condense's");
    expect(text).toContain("out of lookback");
    expect(reportHtml(anthropic, "s.jsonl")).toContain("without it: $");
    // This session rewrites deep: the longest-prefix rule reads more than Anthropic's, so it is the cheaper bill.
    expect(anthropic.cache.whatIfPrefix!.dollars!).toBeLessThanOrEqual(anthropic.scenarios.at(-1)!.totals.dollars! + 1e-9);
    const openai = await replay(session("openai-responses"));
    expect(cacheLines(openai)[0]).toBe("cache rule: longest shared prefix (openai-responses)");
    expect(reportText(openai, "s.jsonl")).not.toContain("out of lookback");
  });
});
