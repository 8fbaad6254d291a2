// One quantity, one estimate: the footer, /pruner status, /pruner stats, /pruner report, the flush line and the tree agree
// for the same state, right after a flush and right after a chain compression (issue 28 item 3).
import { afterAll, describe, expect, mock, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as actualCompat from "@earendil-works/pi-ai/compat";
import { makeAgentDir, labelledSummary } from "../../test/fake-host.js";
import { startSim, type Sim } from "../../test/session-sim.js";

mock.module("@earendil-works/pi-ai/compat", () => ({
  ...actualCompat,
  stream: (_model: any, context: any) => labelledSummary(context),
}));

const { ToolCallIndexer } = await import("../archive/indexer.js");
const { buildPruneTree } = await import("../ui/prune-tree.js");

const cleanups: Array<() => void> = [];
afterAll(() => cleanups.forEach((fn) => fn()));

const CHAINS = { enabled: true, rollingWindow: 0, stripFinalAssistantThinking: true, fuseRangeSummary: false };

function settings(chainCompression: Record<string, unknown>): void {
  const agent = makeAgentDir({ enabled: true, minBatchChars: 1, chainCompression });
  cleanups.push(agent.cleanup);
  process.env.PI_CODING_AGENT_DIR = agent.dir;
}

const output = (tag: string) => `${tag}\n${Array.from({ length: 400 }, (_, i) => `line ${i + 1} of ${tag}`).join("\n")}`;
const pruner = (sim: Sim, args: string) => sim.host.commands.get("pruner")!.handler(args, sim.ctx);
const lastNotice = (sim: Sim) => sim.fake.notices[sim.fake.notices.length - 1]!.message;

interface Reclaim {
  before: string;
  after: string;
  reduction: string;
}

function footerReclaim(sim: Sim): Reclaim {
  const [, before, after, reduction] = /prune: ON · (\S+)->(\S+) \(-(\d+)%\)/.exec(sim.fake.lastStatus() ?? "")!;
  return { before: before!, after: after!, reduction: reduction! };
}

function sentLine(report: string): Reclaim {
  const [, after, before, reduction] = /context sent: +(\S+) tokens? \((\S+) without pruning, -(\d+)%\)/.exec(report)!;
  return { before: before!, after: after!, reduction: reduction! };
}

/** Every surface's figures for the state the session is in now (`/pruner status` also lets a running flush finish). */
async function surfaces(sim: Sim) {
  await pruner(sim, "status");
  const status = lastNotice(sim);
  const footer = footerReclaim(sim);
  await pruner(sim, "stats");
  const stats = lastNotice(sim);
  const indexer = new ToolCallIndexer();
  indexer.reconstructFromSession(sim.ctx);
  const tree = buildPruneTree(sim.ctx as any, indexer);
  const flushLines = sim.fake.notices.map((n) => n.message).filter((m) => m.startsWith("pruner: summarized"));
  return { footer, status: sentLine(status), stats: sentLine(stats), tree, flushLines };
}

/** The simulated branch as a pi session file, so `/pruner report` can replay it. */
function sessionFileOf(sim: Sim): string {
  const dir = mkdtempSync(join(tmpdir(), "figures-agree-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const header = { type: "session", version: 3, id: "figures", timestamp: new Date(0).toISOString(), cwd: dir };
  const entries = sim.fake.branch.map((entry: any, i: number) => ({
    timestamp: new Date(1000 + i).toISOString(),
    ...entry,
    id: `e${i}`,
    parentId: i === 0 ? null : `e${i - 1}`,
  }));
  const file = join(dir, "session.jsonl");
  writeFileSync(file, [header, ...entries].map((line) => JSON.stringify(line)).join("\n") + "\n");
  return file;
}

const sizesOf = (text: string) => /([\d.]+[kM]?) → ([\d.]+[kM]? tokens?)/.exec(text)!.slice(1).join(" → ");

describe("every surface names the context the provider receives the same way", () => {
  test("right after a flush: footer, status and stats agree, and the tree repeats the flush line's sizes", async () => {
    settings({ enabled: false });
    const sim = await startSim();
    await sim.prompt({ turns: [[{ id: "a", text: output("A") }, { id: "b", text: output("B") }]], final: "Done." });
    const seen = await surfaces(sim);
    expect(seen.status).toEqual(seen.footer);
    expect(seen.stats).toEqual(seen.footer);
    expect(seen.flushLines).toHaveLength(1);
    expect(seen.tree).toHaveLength(1);
    expect(sizesOf(seen.tree[0]!.meta!)).toBe(sizesOf(seen.flushLines[0]!));
    expect(seen.tree[0]!.facts).toContain(`outputs ${sizesOf(seen.flushLines[0]!).replace(" → ", " tokens → summary ")}`);
    await sim.render();
    expect(footerReclaim(sim)).toEqual(seen.footer);
  });

  test("right after a chain compression: footer, status and stats agree with the request that follows", async () => {
    settings(CHAINS);
    const sim = await startSim();
    await sim.prompt({ turns: [[{ id: "a", text: output("A") }]], final: "First done." });
    await sim.prompt({ turns: [[{ id: "b", text: output("B") }]], final: "Second done." });
    const seen = await surfaces(sim);
    expect(sim.host.entries.some((e) => e.customType === "context-prune-chain")).toBe(true);
    expect(seen.flushLines.some((line) => line.includes("compressed"))).toBe(true);
    expect(seen.status).toEqual(seen.footer);
    expect(seen.stats).toEqual(seen.footer);
    await sim.render();
    expect(footerReclaim(sim)).toEqual(seen.footer);
  });

  test("after a response to a rewritten request, the footer shows the size the provider reported for it", async () => {
    settings({ enabled: false });
    const sim = await startSim({ systemPrompt: "You are a coding agent.\n".repeat(400) });
    await sim.prompt({ turns: [[{ id: "a", text: output("A") }, { id: "b", text: output("B") }]], final: "Done." });
    await pruner(sim, "status");
    await sim.prompt({ turns: [], final: "Nothing to add.", usage: { input: 1234, cacheRead: 5000, cacheWrite: 100 } });
    expect(footerReclaim(sim).after).toBe("6.3k");
    await pruner(sim, "status");
    expect(sentLine(lastNotice(sim))).toEqual(footerReclaim(sim));
  });

  test("this session's /pruner report names the context sent as the footer does", async () => {
    settings({ enabled: false });
    const sim = await startSim();
    await sim.prompt({ turns: [[{ id: "a", text: output("A") }, { id: "b", text: output("B") }]], final: "Done." });
    await pruner(sim, "status");
    const file = sessionFileOf(sim);
    (sim.ctx.sessionManager as any).getSessionFile = () => file;
    await pruner(sim, "report");
    const report = sim.fake.notices.map((n) => n.message).find((m) => m.startsWith("pruner report:"))!;
    expect(sentLine(report)).toEqual(footerReclaim(sim));
  });

  test("before any response, the system prompt counts in both figures", async () => {
    settings({ enabled: false });
    const plain = await startSim();
    await plain.prompt({ turns: [[{ id: "a", text: output("A") }]], final: "Done." });
    await pruner(plain, "status");
    const withPrompt = await startSim({ systemPrompt: "x".repeat(40_000) });
    await withPrompt.prompt({ turns: [[{ id: "a", text: output("A") }]], final: "Done." });
    await pruner(withPrompt, "status");
    const [a, b] = [footerReclaim(plain), footerReclaim(withPrompt)];
    const k = (figure: string) => Number.parseFloat(figure) * (figure.endsWith("k") ? 1000 : 1);
    expect(k(b.before) - k(a.before)).toBeCloseTo(10_000, -2);
    expect(k(b.after) - k(a.after)).toBeCloseTo(10_000, -2);
  });
});

const tokensOf = (figure: string) => Number.parseFloat(figure) * (figure.endsWith("k") ? 1000 : figure.endsWith("M") ? 1_000_000 : 1);
const WIDE_WINDOW = { enabled: true, rollingWindow: 10, stripFinalAssistantThinking: true, fuseRangeSummary: false };

describe("/pruner compact and the counts agree with the footer and the flush lines (issue 36)", () => {
  test("point 1: the tokens compact says it saved are the footer's own change of the next request", async () => {
    settings(WIDE_WINDOW);
    const sim = await startSim();
    for (const tag of ["A", "B", "C"]) await sim.prompt({ turns: [[{ id: tag, text: output(tag) }]], final: `${tag} done.` });
    await pruner(sim, "status");
    const before = footerReclaim(sim);
    await pruner(sim, "compact");
    const line = lastNotice(sim);
    const claimed = /the next request is about (\S+) tokens? smaller/.exec(line);
    expect(claimed).not.toBeNull();
    const after = footerReclaim(sim);
    expect(after.before).toBe(before.before);
    // The footer shows tenths of thousands: the claim matches its change within that rounding.
    expect(Math.abs(tokensOf(claimed![1]!) - (tokensOf(before.after) - tokensOf(after.after)))).toBeLessThanOrEqual(100);
    await sim.render();
    expect(footerReclaim(sim)).toEqual(after);
  });

  test("point 5: status counts as summarized what the flush lines summarized, and the small outputs compact archived apart", async () => {
    const agent = makeAgentDir({ enabled: true, minBatchChars: 1000, chainCompression: WIDE_WINDOW });
    cleanups.push(agent.cleanup);
    process.env.PI_CODING_AGENT_DIR = agent.dir;
    const sim = await startSim();
    for (const tag of ["A", "B"]) {
      await sim.prompt({ turns: [[{ id: tag, text: output(tag) }], [{ id: `${tag}-small`, text: "ok" }]], final: `${tag} done.` });
    }
    await pruner(sim, "compact");
    const compacted = /archiving (\d+) outputs? in (?:it|them) without a summary/.exec(lastNotice(sim));
    expect(compacted).not.toBeNull();
    const summarized = sim.fake.notices
      .map((n) => /^pruner: summarized (\d+) tool outputs?/.exec(n.message)?.[1])
      .reduce((sum, n) => sum + Number(n ?? 0), 0);
    await pruner(sim, "status");
    const counts = /outputs so far: (\d+) summarized, (\d+) archived without a summary/.exec(lastNotice(sim).replace(/\s+/g, " "));
    expect(counts).not.toBeNull();
    expect(Number(counts![1])).toBe(summarized);
    expect(Number(counts![2])).toBe(Number(compacted![1]));
  });
});
