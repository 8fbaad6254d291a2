// Issue 27, finding 6, through index.ts: two pi processes on one session file (`pi -c` in two terminals).
// pi appends each process's entries under its own leaf, so each process grows a branch of its own; what
// the two share is the blob directory. Two instances of the extension on one session directory and id,
// each on its own branch, stand for the two processes; a third instance reloads one branch.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeAgentDir } from "../../test/fake-host.js";
import { startSim, type Sim } from "../../test/session-sim.js";

const cleanups: Array<() => void> = [];
afterAll(() => cleanups.forEach((fn) => fn()));

const NO_CHAINS = { enabled: false, rollingWindow: 0, stripFinalAssistantThinking: true, fuseRangeSummary: false };
const agent = makeAgentDir({ enabled: true, pruneOn: "on-demand", minBatchChars: 0, spillThreshold: 200, dedupByContentHash: false, chainCompression: NO_CHAINS });
cleanups.push(agent.cleanup);
process.env.PI_CODING_AGENT_DIR = agent.dir;

const countTo = (n: number, label: string) => Array.from({ length: n }, (_, i) => `${label} ${i + 1}`).join("\n");
const OUTPUT_A = countTo(60, "process A line");
const OUTPUT_B = countTo(60, "process B line");
const stubRef = (messages: any[], id: string): string | undefined => {
  const text = messages.find((m) => m.role === "toolResult" && m.toolCallId === id)?.content?.[0]?.text;
  return /ref `(t\d+)`/.exec(String(text))?.[1];
};

/** Two processes that each spill an output under the same occurrence key (a reused provider id, the same millisecond). */
async function twoProcesses(): Promise<{ a: Sim; b: Sim }> {
  const sessionDir = mkdtempSync(join(tmpdir(), "shared-session-"));
  cleanups.push(() => rmSync(sessionDir, { recursive: true, force: true }));
  const a = await startSim({ sessionDir });
  const b = await startSim({ sessionDir });
  await a.prompt({ turns: [[{ id: "call_1", text: OUTPUT_A, resultTs: 5000 }]] });
  await b.prompt({ turns: [[{ id: "call_1", text: OUTPUT_B, resultTs: 5000 }]] });
  return { a, b };
}

describe("two processes on one session file (issue 27, finding 6)", () => {
  test("each process's stub names a ref that gives back its own output, not the other process's", async () => {
    const { a, b } = await twoProcesses();
    const [refA, refB] = [stubRef(await a.render(), "call_1"), stubRef(await b.render(), "call_1")];
    expect((await a.query([refA!])).text).toEndWith(`\n\n${OUTPUT_A}`);
    expect((await b.query([refB!])).text).toEndWith(`\n\n${OUTPUT_B}`);
  });

  test("a third process that reloads either branch recovers that branch's output verbatim through the ref its stub names", async () => {
    const { a, b } = await twoProcesses();
    for (const [writer, output] of [[a, OUTPUT_A], [b, OUTPUT_B]] as const) {
      const third = await writer.reload();
      const ref = stubRef(await third.render(), "call_1");
      expect(ref).toBeDefined();
      expect((await third.query([ref!])).text).toEndWith(`\n\n${output}`);
    }
  });
});
