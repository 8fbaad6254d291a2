// A closed chain's dropped range through index.ts: every argument it drops is kept in the block or given back by a
// ref the block names, live and after a reload. Before issue 43 the calls no archive record held left with nothing.
import { afterAll, describe, expect, mock, test } from "bun:test";
import * as actualCompat from "@earendil-works/pi-ai/compat";
import { labelledSummary, makeAgentDir } from "../../test/fake-host.js";
import { type SimCall, startSim, type Sim } from "../../test/session-sim.js";

mock.module("@earendil-works/pi-ai/compat", () => ({ ...actualCompat, stream: (_model: any, context: any) => labelledSummary(context) }));

const cleanups: Array<() => void> = [];
afterAll(() => cleanups.forEach((fn) => fn()));

const output = (n: number) => Array.from({ length: 40 }, (_, i) => `output ${n} line ${i}`).join("\n");

/** One prompt with `calls` in one turn, two more prompts, then `/pruner compact` with no rolling window. */
async function compressed(calls: SimCall[], contextPrune: Record<string, unknown> = {}): Promise<Sim> {
  const agent = makeAgentDir({ enabled: true, minBatchChars: 0, chainCompression: { enabled: true, rollingWindow: 0, fuseRangeSummary: false }, ...contextPrune });
  cleanups.push(agent.cleanup);
  process.env.PI_CODING_AGENT_DIR = agent.dir;
  const sim = await startSim();
  await sim.prompt({ turns: [calls, [{ id: "after", text: output(9) }]] });
  await sim.prompt({ turns: [[{ id: "next", text: output(10) }]] });
  await sim.host.commands.get("pruner").handler("compact", sim.ctx);
  return sim;
}

const blockOf = (messages: any[]): string => {
  const block = messages.find((m) => m.role === "user" && String(m.content?.[0]?.text).startsWith("<compressed-chain"));
  expect(block).toBeDefined();
  return block.content[0].text;
};
const keptCalls = (block: string) => [...block.matchAll(/<kept-call tool="([^"]*)">\n(.*)\n<\/kept-call>/g)].map((m) => [m[1], JSON.parse(m[2]!)]);
const headerRefs = (block: string) => /tools="([^"]*)"/.exec(block)![1]!.split(",").filter(Boolean);

describe("a chain keeps the arguments no ref gives back", () => {
  test("a protected read keeps the call that says what it is, before its relocated output", async () => {
    const sim = await compressed([{ id: "p1", name: "read", args: { path: "/h/skills/x/SKILL.md" }, text: "SKILL TEXT" }, { id: "b1", text: output(1) }]);
    const block = blockOf(await sim.render());
    expect(keptCalls(block)).toEqual([["read", { path: "/h/skills/x/SKILL.md" }]]);
    expect(block.indexOf("<kept-call")).toBeLessThan(block.indexOf('<protected-output tool="read">\nSKILL TEXT\n</protected-output>'));
  });

  test("a call whose result never came keeps its arguments", async () => {
    const sim = await compressed([{ id: "b1", text: output(1) }, { id: "lost", args: { command: "make deploy" }, noResult: true }]);
    expect(keptCalls(blockOf(await sim.render()))).toEqual([["bash", { command: "make deploy" }]]);
  });

  test("two calls sharing an id in one message keep both their arguments", async () => {
    const sim = await compressed([
      { id: "0", args: { command: "first" }, text: output(1) },
      { id: "0", args: { command: "second" }, text: output(2) },
    ]);
    expect(keptCalls(blockOf(await sim.render()))).toEqual([
      ["bash", { command: "first" }],
      ["bash", { command: "second" }],
    ]);
  });

  test("an archived call leaves with nothing kept: its ref in the header gives its arguments back", async () => {
    const sim = await compressed([{ id: "b1", args: { command: "npm test -- --grep parser" }, text: output(1) }]);
    const block = blockOf(await sim.render());
    expect(block).not.toContain("<kept-call");
    const answers = await Promise.all(headerRefs(block).map((ref) => sim.query([ref])));
    expect(answers.some((a) => a.text.includes('"command": "npm test -- --grep parser"'))).toBe(true);
  });

  test("a reload renders the same block", async () => {
    const sim = await compressed([{ id: "p1", name: "read", args: { path: "/h/skills/x/SKILL.md" }, text: "SKILL TEXT" }, { id: "lost", noResult: true }]);
    const live = JSON.stringify(await sim.render());
    expect(JSON.stringify(await (await sim.reload()).render())).toBe(live);
  });
});
