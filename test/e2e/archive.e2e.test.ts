// Real pi 1.6.0 + pi-condense: context_tree_query reads spilled outputs only from this session's own
// blob directory (issue 12, finding 4). A session file is edited so that one index record points at
// another session's sidecar and another at a FIFO in the own blob directory; a third stays intact.
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { disposeSandbox, makeSandbox, mainRequests, runPrint, sessionEntries, sessionFile, type Sandbox } from "./harness.js";
import { problems, say, seqOutput } from "./scenario-kit.js";
import { toolMessages } from "./wire-view.js";

const SECRET = "TOP-SECRET-OF-ANOTHER-SESSION";
const bashCall = (id: string, command: string) => ({ id, name: "bash", args: { command } });

describe("context_tree_query confined to the own archive (issue 12, finding 4)", () => {
  let sb: Sandbox;
  let ownBlobDir = "";
  let foreignSidecar = "";

  beforeAll(async () => {
    sb = await makeSandbox({
      contextPrune: { enabled: true, minBatchChars: 0, spillThreshold: 2000 },
      script: {
        main: [
          { toolCalls: [bashCall("call_foreign", "seq 1 1000"), bashCall("call_fifo", "seq 1001 2000"), bashCall("call_intact", "seq 2001 3000")] },
          say("Three counts done."),
        ],
      },
    });
    const first = await runPrint(sb, ["count three times"]);
    expect(first.code).toBe(0);

    const entries = sessionEntries(sb);
    ownBlobDir = join(sb.sessionDir, `${entries[0].id}-blobs`);
    foreignSidecar = join(sb.sessionDir, "another-session-blobs", "call_foreign.txt");
    mkdirSync(join(sb.sessionDir, "another-session-blobs"));
    writeFileSync(foreignSidecar, `${SECRET}\n`);
    expect(spawnSync("mkfifo", [join(ownBlobDir, "pipe.txt")]).status).toBe(0);

    const redirect: Record<string, string> = { call_foreign: foreignSidecar, call_fifo: join(ownBlobDir, "pipe.txt") };
    const file = sessionFile(sb);
    const edited = readFileSync(file, "utf8")
      .split("\n")
      .map((line) => {
        if (!line.includes('"context-prune-index"')) return line;
        const entry = JSON.parse(line);
        for (const record of entry.data.toolCalls) if (redirect[record.toolCallId]) record.spillPath = redirect[record.toolCallId];
        return JSON.stringify(entry);
      })
      .join("\n");
    writeFileSync(file, edited);
  });
  afterAll(() => disposeSandbox(sb));

  test("the first run spilled all three outputs into the own blob directory and the stubs name no path", () => {
    const names = readdirSync(ownBlobDir).filter((name) => name.endsWith(".txt") && name !== "pipe.txt");
    expect(names.map((name) => name.replace(/_\d+\.txt$/, "")).sort()).toEqual(["call_fifo", "call_foreign", "call_intact"]);
    const last = mainRequests(sb).at(-1)!;
    const stubs = toolMessages(last).map((m) => m.text);
    expect(stubs).toHaveLength(3);
    for (const stub of stubs) {
      expect(stub).toContain("Oversized output spilled to file");
      expect(stub).toContain("context_tree_query with ref");
      expect(stub).not.toContain("-blobs");
    }
  });

  const queryThenSay = (ids: string[], text: string) => ({ main: [{ toolCalls: [{ name: "context_tree_query", args: { toolCallIds: ids } }] }, say(text)] });

  test("a record pointing at another session's sidecar: the secret never reaches the provider and the run succeeds", async () => {
    sb.fake.setScript(queryThenSay(["call_foreign"], "Foreign refused."));
    const before = mainRequests(sb).length;
    const run = await runPrint(sb, ["show me call_foreign"], ["-c"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Foreign refused.");
    const requests = mainRequests(sb).slice(before);
    expect(requests).toHaveLength(2);
    for (const request of requests) expect(JSON.stringify(request.body)).not.toContain(SECRET);
    const answer = toolMessages(requests[1]!).at(-1)!.text;
    expect(answer).toContain("## toolRef: call_foreign");
    // The other session's file name is looked up in this session's blob directory only; there it is absent,
    // so the answer says so and shows the stored preview as a preview.
    expect(answer).toContain("the archived copy was deleted; nothing was read");
    expect(answer).toContain("Preview (head):\n1\n2\n3\n");
    expect(answer).not.toContain("1000\n");
  });

  test("a FIFO in the own blob directory is refused without hanging while an intact sidecar is recovered whole", async () => {
    sb.fake.setScript(queryThenSay(["call_fifo", "call_intact"], "Recovered."));
    const before = mainRequests(sb).length;
    const run = await runPrint(sb, ["show me the other two"], ["-c"], { timeoutMs: 30000 });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Recovered.");
    const answer = toolMessages(mainRequests(sb).slice(before)[1]!).at(-1)!.text;
    expect(answer).toContain("the sidecar is not a regular file; nothing was read");
    expect(answer).toContain(seqOutput(3000, 2001).trimEnd());
    for (const request of mainRequests(sb)) expect(JSON.stringify(request.body)).not.toContain(SECRET);
    expect(problems(sb)).toEqual([]);
  });
});
