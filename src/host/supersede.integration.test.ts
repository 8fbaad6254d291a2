// Protected-path supersession through index.ts: cold-cache events activate every earlier read, between
// them a fresh duplicate stays verbatim (the request is left alone), and a flush lowers the floor to the
// first result it rewrites.
import { afterAll, describe, expect, mock, test } from "bun:test";
import * as actualCompat from "@earendil-works/pi-ai/compat";
import { makeAgentDir, msgEntry, streamReply } from "../../test/fake-host.js";
import { startSim, type Sim } from "../../test/session-sim.js";

mock.module("@earendil-works/pi-ai/compat", () => ({
  ...actualCompat,
  stream: (_model: any, context: any) => {
    const prompt: string = context.messages[0].content[0].text;
    const labels = [...new Set(prompt.match(/\[\[\d+:[^\]\s]+\]\]/g) ?? [])];
    return streamReply(labels.map((l) => `- ${l} ran`).join("\n") || "- summary");
  },
}));

const { supersededStub } = await import("../render/supersede.js");

const SKILL = "/h/skills/x/SKILL.md";
const STUB = supersededStub(SKILL);
const cleanups: Array<() => void> = [];
afterAll(() => cleanups.forEach((fn) => fn()));

function useSettings(contextPrune: Record<string, unknown>): void {
  const agent = makeAgentDir(contextPrune);
  cleanups.push(agent.cleanup);
  process.env.PI_CODING_AGENT_DIR = agent.dir;
}

const QUIET = { enabled: true, minBatchChars: 0, dedupByContentHash: false, chainCompression: { enabled: false, rollingWindow: 3, stripFinalAssistantThinking: true, fuseRangeSummary: false } };

/** A read of the skill file straight onto the branch (no hooks): its assistant at `at`, its result at `at + 1`. */
function readEntries(id: string, at: number): any[] {
  return [
    msgEntry({ role: "assistant", content: [{ type: "toolCall", id, name: "read", arguments: { path: SKILL } }], stopReason: "toolUse", timestamp: at }),
    msgEntry({ role: "toolResult", toolCallId: id, toolName: "read", content: [{ type: "text", text: `skill body (${id})` }], isError: false, timestamp: at + 1 }),
  ];
}

function appendRead(sim: Sim, id: string): void {
  sim.fake.branch.push(...readEntries(id, sim.now() + 1000 * sim.fake.branch.length));
}

const textOf = (messages: any[], id: string): string => messages.find((m) => m.role === "toolResult" && m.toolCallId === id).content[0].text;

async function started(branch: any[] = []): Promise<Sim> {
  useSettings(QUIET);
  const sim = await startSim({ branch });
  if (branch.length === 0) sim.fake.branch.push(msgEntry({ role: "user", content: [{ type: "text", text: "read the skill" }], timestamp: 10 }));
  return sim;
}

describe("cold-cache activation", () => {
  test("after session_start the first render stubs the earlier read of a path read twice", async () => {
    const branch = [msgEntry({ role: "user", content: [{ type: "text", text: "go" }], timestamp: 10 }), ...readEntries("a", 100), ...readEntries("b", 200)];
    const sim = await started(branch);
    const rendered = await sim.render();
    expect(textOf(rendered, "a")).toBe(STUB);
    expect(textOf(rendered, "b")).toBe("skill body (b)");
  });

  test("between cold events and without a flush a fresh duplicate stays verbatim and the request is left alone", async () => {
    const sim = await started();
    appendRead(sim, "a");
    await sim.render();
    appendRead(sim, "b");
    expect(await sim.fire("context", { messages: sim.projection() })).toBeUndefined();
  });

  for (const event of ["model_select", "session_compact", "thinking_level_select"]) {
    test(`${event} makes the next render stub the earlier read, and the stub stays after it`, async () => {
      const sim = await started();
      appendRead(sim, "a");
      await sim.render();
      appendRead(sim, "b");
      await sim.render();
      await sim.fire(event, {});
      expect(textOf(await sim.render(), "a")).toBe(STUB);
      appendRead(sim, "c");
      const later = await sim.render();
      expect(textOf(later, "a")).toBe(STUB);
      expect(textOf(later, "b")).toBe("skill body (b)");
    });
  }

  test("session_tree activates the earlier reads again", async () => {
    const sim = await started();
    appendRead(sim, "a");
    await sim.render();
    appendRead(sim, "b");
    await sim.render();
    await sim.fire("session_tree", {});
    expect(textOf(await sim.render(), "a")).toBe(STUB);
  });

  test("each event still has exactly one handler", async () => {
    const sim = await started();
    const counts = new Map<string, number>();
    for (const name of sim.host.onCalls) counts.set(name, (counts.get(name) ?? 0) + 1);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
  });
});

describe("a flush lowers the floor", () => {
  test("a mixed batch whose first unprotected result is at t: the next render stubs superseded reads at or after t, once", async () => {
    const sim = await started();
    appendRead(sim, "old");
    await sim.render();
    await sim.prompt({
      turns: [
        [
          { id: "p1", name: "read", args: { path: SKILL }, text: "skill body (p1)" },
          { id: "u", text: "bash output ".repeat(50) },
          { id: "p2", name: "read", args: { path: SKILL }, text: "skill body (p2)" },
        ],
      ],
      final: "done",
    });
    appendRead(sim, "q");
    const first = await sim.render();
    expect(textOf(first, "u")).toContain("context_tree_query");
    expect(textOf(first, "old")).toBe("skill body (old)");
    expect(textOf(first, "p1")).toBe("skill body (p1)");
    expect(textOf(first, "p2")).toBe(STUB);
    expect(textOf(first, "q")).toBe("skill body (q)");

    appendRead(sim, "r");
    const second = await sim.render();
    expect(textOf(second, "p2")).toBe(STUB);
    expect(textOf(second, "q")).toBe("skill body (q)");
  });
});

describe("a chain compression lowers the floor", () => {
  test("after /pruner compact the next render stubs superseded reads from the new chain's start on", async () => {
    useSettings({ ...QUIET, pruneOn: "on-demand" });
    const sim = await startSim();
    await sim.prompt({ turns: [[{ id: "u", text: "bash output ".repeat(50) }]], final: "done" });
    appendRead(sim, "a");
    await sim.render();
    appendRead(sim, "b");
    await sim.host.commands.get("pruner").handler("compact", sim.ctx);
    expect(sim.fake.notices.at(-1)?.message).toContain("compressed the work of 1 earlier prompt");
    expect(textOf(await sim.render(), "a")).toBe(STUB);
  });
});
