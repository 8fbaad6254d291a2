// Real pi 1.6.0 + pi-condense, issue 27 finding 6: two pi processes on one session file (`pi -c` in two
// terminals). Both are started on a session holding one archived output, then prompt in turns (A, B, A, B),
// each with a spilled output and a small one under the same provider ids as the other's. pi appends each
// process's entries under its own leaf, so the file grows two branches. A third process continues the file
// (the last writer's branch), recovers every output its request stubs through the ref the stub names,
// moves to the other branch with /tree and does the same there.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { RecordedRequest, ScriptedReply } from "./fake-llm.js";
import { disposeSandbox, mainRequests, makeSandbox, openPiRpc, runPiRpc, runPrint, sessionEntries, type Sandbox } from "./harness.js";
import { bash, problems, say, seqOutput } from "./scenario-kit.js";
import { toolMessages } from "./wire-view.js";

// Each prompt's output: a spilled one (over spillThreshold) or a summarized one, and the command printing it.
const PROMPTS = {
  A1: { id: "big", from: 1, to: 1000 },
  B1: { id: "big", from: 2001, to: 3000 },
  A2: { id: "small", from: 5001, to: 5100 },
  B2: { id: "small", from: 7001, to: 7100 },
} as const;
const outputOf = (key: keyof typeof PROMPTS) => seqOutput(PROMPTS[key].to, PROMPTS[key].from);
// The same ids in both processes: only the branch tells the two outputs apart.
const turnOf = (key: keyof typeof PROMPTS): ScriptedReply[] => [
  bash(`seq ${PROMPTS[key].from} ${PROMPTS[key].to}`, PROMPTS[key].id),
  say(`${key} done.`),
];

/** Each stubbed tool message of the request: the ref its stub names, and its tool-call id. */
function stubs(req: RecordedRequest): Array<{ ref: string; toolCallId: string }> {
  return toolMessages(req).flatMap((m) => {
    const ref = /ref `(t\d+)`/.exec(m.text)?.[1];
    return ref && !m.text.startsWith("## toolRef") ? [{ ref, toolCallId: m.toolCallId }] : [];
  });
}

const recoverEveryStub = (req: RecordedRequest): ScriptedReply => ({
  toolCalls: [{ name: "context_tree_query", args: { toolCallIds: stubs(req).map((s) => s.ref) } }],
});

/** The answer's blocks by the label of their header: one block per ref asked, its body after the header. */
function answerBlocks(text: string): Map<string, string[]> {
  const blocks = new Map<string, string[]>();
  for (const block of text.split("\n\n---\n\n")) {
    const label = /^## toolRef: (\S+)/.exec(block)?.[1] ?? "?";
    blocks.set(label, [...(blocks.get(label) ?? []), block.slice(block.indexOf("\n\n") + 2)]);
  }
  return blocks;
}

/** The tool results on the branch ending at `leafId`, by tool-call id. */
function branchOutputs(entries: any[], leafId: string): Map<string, string> {
  const byId = new Map(entries.filter((e) => e.type !== "session").map((e) => [e.id, e]));
  const outputs = new Map<string, string>();
  for (let entry = byId.get(leafId); entry; entry = byId.get(entry.parentId)) {
    if (entry.type === "message" && entry.message.role === "toolResult") outputs.set(entry.message.toolCallId, entry.message.content[0].text);
  }
  return outputs;
}

describe("two pi processes on one session file (issue 27, finding 6)", () => {
  let sb: Sandbox;
  let entries: any[];
  let codes: number[];
  let leafOf: { A: string; B: string };
  let requests: { B: RecordedRequest[]; A: RecordedRequest[] };

  beforeAll(async () => {
    sb = await makeSandbox({
      contextPrune: { enabled: true, minBatchChars: 0, spillThreshold: 2000, flushPolicy: "classic" },
      script: { main: [bash("seq 9001 9100", "base"), say("Base done.")] },
    });
    const base = await runPrint(sb, ["start"]);
    sb.fake.setScript({ main: [...turnOf("A1"), ...turnOf("B1"), ...turnOf("A2"), ...turnOf("B2")] });
    const a = openPiRpc(sb, { extraArgs: ["-c"] });
    const b = openPiRpc(sb, { extraArgs: ["-c"] });
    await Promise.all([a.step({ type: "get_state" }), b.step({ type: "get_state" })]);
    for (const [pi, message] of [[a, "a1"], [b, "b1"], [a, "a2"], [b, "b2"]] as const) await pi.step({ type: "prompt", message });
    const [ra, rb] = await Promise.all([a.close(), b.close()]);
    entries = sessionEntries(sb);
    const lastOf = (text: string) => entries.findLast((e) => e.type === "message" && e.message.content?.[0]?.text === text)!;
    // A process's last reply is a leaf of its branch: everything it wrote after it hangs below it.
    leafOf = { A: lastWrittenBelow(entries, lastOf("A2 done.").id), B: lastWrittenBelow(entries, lastOf("B2 done.").id) };

    const before = mainRequests(sb).length;
    sb.fake.setScript({ main: [recoverEveryStub, say("Recovered on B's branch."), recoverEveryStub, say("Recovered on A's branch.")] });
    const third = await runPiRpc(
      sb,
      [
        { type: "prompt", message: "recover what you see" },
        { type: "prompt", message: `/test-tree ${leafOf.A}` },
        { type: "prompt", message: "recover what you see here" },
      ],
      { extraArgs: ["-c"], extraExtensions: ["test-tree.ts"] },
    );
    const thirds = mainRequests(sb).slice(before);
    requests = { B: thirds.slice(0, 2), A: thirds.slice(2, 4) };
    codes = [base.code, ra.code, rb.code, third.code];
  }, 120_000);
  afterAll(() => disposeSandbox(sb));

  test("every run succeeds and no request is rejected", () => {
    expect(codes).toEqual([0, 0, 0, 0]);
    expect(problems(sb)).toEqual([]);
  });

  test("the file keeps both processes' entries, on two branches from the base", () => {
    const branchA = branchOutputs(entries, leafOf.A);
    const branchB = branchOutputs(entries, leafOf.B);
    expect([branchA.get("big"), branchA.get("small")]).toEqual([outputOf("A1"), outputOf("A2")]);
    expect([branchB.get("big"), branchB.get("small")]).toEqual([outputOf("B1"), outputOf("B2")]);
    expect(branchA.get("base")).toBe(branchB.get("base"));
  });

  for (const branch of ["B", "A"] as const) {
    test(`on ${branch}'s branch every output the request stubs comes back verbatim through the ref its stub names, and only it`, () => {
      const [ask, answered] = requests[branch];
      const stubbed = stubs(ask!);
      expect(stubbed.map((s) => s.toolCallId).sort()).toEqual(["base", "big", "small"]);
      const originals = branchOutputs(entries, leafOf[branch]);
      const blocks = answerBlocks(toolMessages(answered!).at(-1)!.text);
      for (const { ref, toolCallId } of stubbed) expect(blocks.get(ref)).toEqual([originals.get(toolCallId)!]);
    });
  }

  test("refs are the branch's own: the ref that names A's spilled output on A's branch names B's on B's", () => {
    const refOfBig = (branch: "A" | "B") => stubs(requests[branch][0]!).find((s) => s.toolCallId === "big")!.ref;
    expect(refOfBig("A")).toBe(refOfBig("B"));
    const answerFor = (branch: "A" | "B") => answerBlocks(toolMessages(requests[branch][1]!).at(-1)!.text).get(refOfBig(branch));
    expect([answerFor("A"), answerFor("B")]).toEqual([[outputOf("A1")], [outputOf("B1")]]);
  });
});

/** The last entry of the file below `id` (the deepest descendant written last). */
function lastWrittenBelow(entries: any[], id: string): string {
  let leaf = id;
  for (const entry of entries) if (entry.parentId === leaf) leaf = entry.id;
  return leaf;
}
