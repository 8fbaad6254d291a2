// Argument stubs through index.ts: a finished edit's texts leave the request once its output is archived and
// the next prompt came, as the session file rebuilds them after a reload; `flushPolicy: "classic"` keeps them.
import { afterAll, describe, expect, mock, test } from "bun:test";
import * as actualCompat from "@earendil-works/pi-ai/compat";
import { labelledSummary, makeAgentDir } from "../../test/fake-host.js";
import { startSim, type Sim } from "../../test/session-sim.js";

mock.module("@earendil-works/pi-ai/compat", () => ({ ...actualCompat, stream: (_model: any, context: any) => labelledSummary(context, "edited") }));

const cleanups: Array<() => void> = [];
afterAll(() => cleanups.forEach((fn) => fn()));

const body = (word: string) => Array.from({ length: 30 }, (_, i) => `  const ${word}${i} = compute(${i}); // padding`).join("\n") + "\n";
const OLD = `function parseOld() {\n${body("a")}}\n`;
const NEW = `function parseNew() {\n${body("b")}}\n`;

async function afterOneEdit(contextPrune: Record<string, unknown> = {}): Promise<Sim> {
  const agent = makeAgentDir({ enabled: true, minBatchChars: 0, chainCompression: { enabled: false }, ...contextPrune });
  cleanups.push(agent.cleanup);
  process.env.PI_CODING_AGENT_DIR = agent.dir;
  const sim = await startSim();
  await sim.prompt({ turns: [[{ id: "e1", name: "edit", args: { path: "src/a.ts", edits: [{ oldText: OLD, newText: NEW }] }, text: "Successfully replaced 1 block in src/a.ts." }]] });
  await sim.prompt({ turns: [[{ id: "b1", text: "ok" }]] });
  return sim;
}

const editArgs = (messages: any[]) => messages.find((m) => m.role === "assistant" && m.content[0]?.id === "e1").content[0].arguments;

describe("argument stubs through the extension", () => {
  test("a finished edit's old and new text are sent as markers naming its ref", async () => {
    const sim = await afterOneEdit();
    const args = editArgs(await sim.render());
    expect(args.path).toBe("src/a.ts");
    expect(args.edits[0].oldText).toMatch(/^⟦pi-condense: edits\[0\]\.oldText archived \(32 lines\) as t\d+⟧$/);
    expect(args.edits[0].newText).toMatch(/^⟦pi-condense: edits\[0\]\.newText archived \(32 lines\) as t\d+, -32 \+32 lines/);
  });

  test("the ref in the marker gives the arguments back verbatim", async () => {
    const sim = await afterOneEdit();
    const ref = /as (t\d+)/.exec(editArgs(await sim.render()).edits[0].oldText)![1]!;
    const { text } = await sim.query([ref]);
    expect(text).toContain(JSON.stringify(OLD).slice(1, 60));
  });

  test("a reload renders the same arguments", async () => {
    const sim = await afterOneEdit();
    const before = JSON.stringify(editArgs(await sim.render()));
    const reloaded = await sim.reload();
    expect(JSON.stringify(editArgs(await reloaded.render()))).toBe(before);
  });

  test('flushPolicy "classic" sends the arguments as written, as 2.9.1 did', async () => {
    const sim = await afterOneEdit({ flushPolicy: "classic" });
    expect(editArgs(await sim.render()).edits[0]).toEqual({ oldText: OLD, newText: NEW });
  });

  test("stubArguments false sends them as written", async () => {
    const sim = await afterOneEdit({ stubArguments: false });
    expect(editArgs(await sim.render()).edits[0]).toEqual({ oldText: OLD, newText: NEW });
  });
});

describe("the copy guard through the extension", () => {
  test("a write copying a marker is blocked and the user is told in a warning that nothing was written", async () => {
    const sim = await afterOneEdit();
    const marker = editArgs(await sim.render()).edits[0].oldText as string;
    const verdict = await sim.fire("tool_call", { toolName: "write", input: { path: "copy.ts", content: `// restored\n${marker}\n` } });
    expect(verdict?.block).toBe(true);
    expect(verdict.reason).toStartWith("pi-condense blocked this write");
    const warnings = sim.fake.notices.filter((n) => n.type === "warning").map((n) => n.message);
    expect(warnings.filter((w) => w.startsWith("pi-condense blocked the agent's write to copy.ts: nothing was written"))).toHaveLength(1);
  });
});
