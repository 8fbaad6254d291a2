// Real pi 1.6.0 + pi-condense: a context_tree_query recovery is stored once (issue 16, item 7). Its
// session entry's details carry no copy of the text, no flush sends it to the summarizer, and once its
// grace window ends the request shows a stub naming the recovered ref instead.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { disposeSandbox, mainRequests, makeSandbox, runPrint, sessionEntries, summarizerRequests, type Sandbox } from "./harness.js";
import { bash, problems, query, say, seqOutput } from "./scenario-kit.js";
import { toolMessages } from "./wire-view.js";

const MARK = "BUILD-MARK";
const STUB = '[Recovered output of ref `t1`, shown here earlier. Call context_tree_query({ toolCallIds: ["t1"] }) to see it again.]';

describe("a recovery is stored once (issue 16, item 7)", () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await makeSandbox({
      contextPrune: { enabled: true, minBatchChars: 0, recoveryGraceTurns: 1 },
      script: {
        main: [bash(`echo ${MARK}; seq 1 150`), say("Built."), query("t1"), say("Here it is."), say("ok 1"), say("ok 2"), bash("echo SECOND; seq 1 60"), say("Second.")],
      },
    });
    const run = await runPrint(sb, ["build", "show me t1", "chat one", "chat two", "build again"]);
    expect(run.code).toBe(0);
  });
  afterAll(() => disposeSandbox(sb));

  const recoveryIn = (requestIndex: number) => toolMessages(mainRequests(sb)[requestIndex]!).find((m) => m.text.includes("## toolRef: t1") || m.text === STUB);

  test("the model gets the original back verbatim, and still sees it through its grace window", () => {
    expect(mainRequests(sb)).toHaveLength(8);
    for (const at of [3, 4]) {
      const answer = recoveryIn(at)!;
      expect(answer.text.startsWith("## toolRef: t1\n")).toBe(true);
      expect(answer.text).toContain(`${MARK}\n${seqOutput(150)}`.trimEnd());
    }
  });

  test("after the grace window every request shows the stub naming t1 instead", () => {
    for (const at of [5, 6, 7]) expect(recoveryIn(at)!.text).toBe(STUB);
  });

  test("no summarizer request holds the recovered text: only the two builds were summarized", () => {
    const requests = summarizerRequests(sb);
    expect(requests).toHaveLength(2);
    expect(JSON.stringify(requests[0]!.body)).toContain(MARK);
    expect(JSON.stringify(requests[1]!.body)).toContain("SECOND");
    expect(JSON.stringify(requests[1]!.body)).not.toContain(MARK);
    expect(JSON.stringify(requests[1]!.body)).not.toContain("context_tree_query");
  });

  test("the session file's recovery result carries the text once: its details hold facts only", () => {
    const result = sessionEntries(sb).find((e) => e.type === "message" && e.message.role === "toolResult" && e.message.toolName === "context_tree_query");
    expect(JSON.stringify(result.message.content)).toContain(MARK);
    expect(JSON.stringify(result.message.details)).not.toContain(MARK);
    expect(result.message.details.results.t1).toMatchObject({ shortRef: "t1", toolName: "bash", truncated: false, spilled: false });
  });

  test("the recovery was never archived as an original, and no request was rejected or orphaned", () => {
    const indexed = sessionEntries(sb)
      .filter((e) => e.type === "custom" && e.customType === "context-prune-index")
      .flatMap((e) => e.data.toolCalls.map((c: any) => c.toolName));
    expect(indexed).toEqual(["bash", "bash"]);
    expect(problems(sb)).toEqual([]);
  });
});
