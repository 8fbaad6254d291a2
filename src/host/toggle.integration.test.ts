// Turning pruning off and on mid-session: what the next request costs is said first, the figures follow the
// change, and a replay sends the off stretch unpruned as the session did (issue 36, points 2 and 4).
import { afterAll, describe, expect, mock, test } from "bun:test";
import * as actualCompat from "@earendil-works/pi-ai/compat";
import { labelledSummary, makeAgentDir } from "../../test/fake-host.js";
import { startSim, type Sim } from "../../test/session-sim.js";

mock.module("@earendil-works/pi-ai/compat", () => ({
  ...actualCompat,
  stream: (_model: any, context: any) => labelledSummary(context),
}));

const { replaySession } = await import("../report/replay.js");
const { costModelFor } = await import("../economics/cost-model.js");
const { DEFAULT_CONFIG } = await import("../settings/config-shape.js");

const { initTheme } = await import("@earendil-works/pi-coding-agent");

const cleanups: Array<() => void> = [];
afterAll(() => cleanups.forEach((fn) => fn()));

const SONNET = { id: "claude-sonnet-4-5", name: "Claude Sonnet 4.5", provider: "anthropic", api: "anthropic-messages", cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }, promptCache: { short: 300 }, contextWindow: 200_000 };
const WARM = { input: 10, cacheRead: 5000, cacheWrite: 100 };
const output = (tag: string) => `${tag}\n${Array.from({ length: 400 }, (_, i) => `line ${i + 1} of ${tag}`).join("\n")}`;
const pruner = (sim: Sim, args: string) => sim.host.commands.get("pruner")!.handler(args, sim.ctx);
const messages = (sim: Sim) => sim.fake.notices.map((n) => n.message);

async function prunedSession(): Promise<Sim> {
  const agent = makeAgentDir({ enabled: true, minBatchChars: 1, flushPolicy: "classic", chainCompression: { enabled: false } });
  cleanups.push(agent.cleanup);
  process.env.PI_CODING_AGENT_DIR = agent.dir;
  const sim = await startSim();
  (sim.ctx as any).model = SONNET;
  for (const tag of ["A", "B"]) await sim.prompt({ turns: [[{ id: tag, text: output(tag) }]], final: `${tag} done.`, usage: WARM });
  await sim.render();
  return sim;
}

const footer = (sim: Sim) => /prune: ON · (\S+)->(\S+) \(/.exec(sim.fake.lastStatus() ?? "")!.slice(1);

describe("/pruner off mid-session (point 2)", () => {
  test("says what the next request sends and costs before it is sent, in the footer's figures and the model's prices", async () => {
    const sim = await prunedSession();
    const [raw, pruned] = footer(sim);
    await pruner(sim, "off");
    const said = messages(sim);
    expect(said).toContain("Context pruning disabled.");
    const cost = said.find((m) => m.includes("The next request sends the history unpruned"))!;
    expect(cost).toContain(`about ${raw} tokens instead of ${pruned}`);
    expect(cost).toMatch(/At anthropic\/claude-sonnet-4-5's prices that request costs about \$[\d.]+ more than with pruning on, and each later one about \$[\d.]+ more\. \/pruner on goes back\.$/);
    expect(sim.host.entries.filter((e) => e.customType === "context-prune-toggle").map((e) => e.data)).toEqual([{ enabled: false }]);
  });

  test("after a prompt with pruning off, stats and status show the unpruned request, not the last pruned figure", async () => {
    const sim = await prunedSession();
    const [, pruned] = footer(sim);
    await pruner(sim, "off");
    await sim.prompt({ turns: [[{ id: "C", text: output("C") }]], final: "C done.", usage: WARM });
    await pruner(sim, "stats");
    const stats = messages(sim).at(-1)!;
    const sent = /context sent: (\S+) tokens \(pruning is off; (\S+) with it\)/.exec(stats);
    expect(sent).not.toBeNull();
    expect(Number.parseFloat(sent![1]!)).toBeGreaterThan(Number.parseFloat(pruned!));
    await pruner(sim, "status");
    expect(messages(sim).at(-1)).toContain(`context sent:                     ${sent![1]} tokens (pruning is off; ${sent![2]} with it)`);
  });

  test("/pruner on says what its first request rewrites, and the footer shows the pruned figure at once", async () => {
    const sim = await prunedSession();
    await pruner(sim, "off");
    await sim.prompt({ turns: [[{ id: "C", text: output("C") }]], final: "C done.", usage: WARM });
    await pruner(sim, "on");
    expect(messages(sim).some((m) => m.includes("The next request sends the history pruned"))).toBe(true);
    expect(sim.fake.lastStatus()).toMatch(/prune: ON · \S+->\S+/);
    expect(sim.host.entries.filter((e) => e.customType === "context-prune-toggle").map((e) => e.data)).toEqual([{ enabled: false }, { enabled: true }]);
  });
});

/** Opens `/pruner settings` and returns the overlay's list (pi's SettingsList), to change a row as Enter does. */
async function openOverlay(sim: Sim): Promise<any> {
  initTheme("dark");
  let overlay: any;
  (sim.ctx.ui as any).custom = (factory: any) => {
    overlay = factory({ terminal: { rows: 40, columns: 120 } }, { fg: (_c: string, t: string) => t }, {}, () => {});
    return new Promise(() => {});
  };
  void pruner(sim, "settings");
  for (let i = 0; i < 50 && !overlay; i++) await new Promise((resolve) => setTimeout(resolve, 0));
  if (!overlay) throw new Error(`the overlay did not open: ${messages(sim).join(" | ")}`);
  return overlay.list;
}

describe("the cost of switching, wherever it is switched (issue 45, point 16)", () => {
  test("turning pruning off in the settings overlay gives the same cost warning as /pruner off", async () => {
    const sim = await prunedSession();
    const [raw, pruned] = footer(sim);
    const list = await openOverlay(sim);
    list.onChange("enabled", "false");
    expect(sim.host.entries.filter((e) => e.customType === "context-prune-toggle").map((e) => e.data)).toEqual([{ enabled: false }]);
    const cost = sim.fake.notices.find((n) => n.message.includes("The next request sends the history unpruned"));
    expect(cost?.type).toBe("warning");
    expect(cost?.message).toContain(`about ${raw} tokens instead of ${pruned}`);
    expect(cost?.message).toMatch(/\/pruner on goes back\.$/);
  });

  test("/pruner off then /pruner on with no request between says nothing of a rewrite: nothing was sent", async () => {
    const sim = await prunedSession();
    await pruner(sim, "off");
    await pruner(sim, "on");
    expect(messages(sim).filter((m) => m.includes("The next request sends the history"))).toHaveLength(1);
    expect(messages(sim).at(-1)).toBe("Context pruning enabled.");
  });

  test("a third switch with no request between warns again: it leaves the form the last request was sent in", async () => {
    const sim = await prunedSession();
    await pruner(sim, "off");
    await pruner(sim, "on");
    await pruner(sim, "off");
    expect(messages(sim).filter((m) => m.includes("The next request sends the history unpruned"))).toHaveLength(2);
  });
});

describe("the report's as-recorded run with an off stretch (point 4)", () => {
  test("requests sent while pruning was off are replayed unpruned, never smaller than with no pruning at all", async () => {
    const sim = await prunedSession();
    await pruner(sim, "off");
    for (const tag of ["C", "D"]) await sim.prompt({ turns: [[{ id: tag, text: output(tag) }]], final: `${tag} done.`, usage: WARM });
    const branch = sim.fake.branch.map((entry: any, i: number) => ({ timestamp: new Date(1000 + i).toISOString(), ...entry, id: `e${i}`, parentId: i === 0 ? null : `e${i - 1}` }));
    const report = await replaySession({
      sessionId: "toggle",
      branch,
      problems: [],
      config: { ...DEFAULT_CONFIG, enabled: true },
      overrides: [],
      costModelOf: () => ({ cost: costModelFor(undefined), contextWindow: 200_000 }),
    });
    const none = report.scenarios.find((s) => s.name === "none")!;
    const recorded = report.scenarios.find((s) => s.name === "actual")!;
    const n = none.context.length;
    // The last four requests (two prompts, a tool turn and a reply each) went out while pruning was off.
    for (let i = n - 4; i < n; i++) expect(recorded.context[i]!).toBeGreaterThanOrEqual(none.context[i]!);
    // Before the switch the session was pruned.
    expect(recorded.context[n - 5]!).toBeLessThan(none.context[n - 5]!);
  });
});
