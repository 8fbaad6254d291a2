// Real pi 1.6.0 + pi-condense, issue 12: a chain compressed under default settings keeps its trivial outputs
// recoverable (finding 1), and a kill -9 while the final-reply summarizer call is in flight loses nothing
// of the transcript (finding 2).
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { RecordedRequest } from "./fake-llm.js";
import { BATCH_MARKER, echoBatchSummary } from "./fake-llm.js";
import { baseArgs, childEnv, disposeSandbox, makeSandbox, mainRequests, parseJsonl, runPrint, runtimeBinary, sessionFile, summarizerRequests, type Sandbox } from "./harness.js";
import { bash, problems, say } from "./scenario-kit.js";
import { toolMessages, userMessages } from "./wire-view.js";

const tiny = (k: number) => `tiny-output-of-prompt-${k}`;
const countingPrompt = (k: number) => [bash("seq 1 400"), bash(`echo ${tiny(k)}`), say(`Prompt ${k} done.`)];

/** The refs a `<compressed-chain>` block of the request names. */
function chainRefs(req: RecordedRequest): string[] {
  return userMessages(req).flatMap((text) => {
    const tools = /^<compressed-chain id="[^"]*" tools="([^"]*)"/.exec(text)?.[1];
    return tools ? tools.split(",") : [];
  });
}

describe("a compressed chain keeps its trivial outputs recoverable under default settings (finding 1)", () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await makeSandbox({
      contextPrune: { enabled: true },
      script: {
        main: [
          ...[1, 2, 3, 4].flatMap(countingPrompt),
          (req) => ({ toolCalls: [{ name: "context_tree_query", args: { toolCallIds: chainRefs(req) } }] }),
          say("Found the first tiny output."),
        ],
      },
    });
    const run = await runPrint(sb, ["p1", "p2", "p3", "p4", "what did the first prompt echo?"]);
    expect(run.code).toBe(0);
  });
  afterAll(() => disposeSandbox(sb));

  test("on the fifth prompt the first chain is compressed and its tiny output is out of the request", () => {
    const fifth = mainRequests(sb).at(-2)!;
    expect(chainRefs(fifth).length).toBeGreaterThan(0);
    expect(toolMessages(fifth).some((m) => m.text.includes(tiny(1)))).toBe(false);
  });

  test("the block's refs recover the tiny output verbatim through context_tree_query", () => {
    const answer = toolMessages(mainRequests(sb).at(-1)!).at(-1)!;
    expect(answer.text).toContain(`\n\n${tiny(1)}\n`);
    expect(answer.text).not.toContain("not found in index");
    expect(problems(sb)).toEqual([]);
  });
});

describe("kill -9 while the final-reply summarizer call is in flight (finding 2)", () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await makeSandbox({
      contextPrune: { enabled: true, minBatchChars: 0 },
      script: {
        main: [bash("seq 1 300"), say("THE-FINAL-REPLY")],
        summarizers: [{ marker: BATCH_MARKER, reply: { text: "- never sent", stallMs: 60_000 } }],
      },
    });
  });
  afterAll(() => disposeSandbox(sb));

  test("the final reply is in the session file after the kill, and a restart keeps and summarizes it", async () => {
    const child = spawn(runtimeBinary(), [...baseArgs(sb, {}), "-p", "count"], { cwd: sb.projectDir, env: childEnv(sb), stdio: ["ignore", "pipe", "pipe"] });
    const exited = new Promise<void>((resolve) => child.on("close", () => resolve()));
    const deadline = Date.now() + 30_000;
    while (summarizerRequests(sb).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(summarizerRequests(sb)).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 300));
    child.kill("SIGKILL");
    await exited;

    const replies = () =>
      parseJsonl(readFileSync(sessionFile(sb), "utf8")).filter(
        (e) => e.type === "message" && e.message.role === "assistant" && JSON.stringify(e.message.content).includes("THE-FINAL-REPLY"),
      );
    expect(replies()).toHaveLength(1);

    sb.fake.setScript({ main: [say("Resumed.")], summarizers: [{ marker: BATCH_MARKER, reply: echoBatchSummary }] });
    const resumed = await runPrint(sb, ["and now?"], ["-c"]);
    expect(resumed.code).toBe(0);
    expect(replies()).toHaveLength(1);
    const lastRequest = mainRequests(sb).at(-1)!;
    expect(JSON.stringify(lastRequest.body)).toContain("THE-FINAL-REPLY");
    expect(problems(sb)).toEqual([]);
  });
});
