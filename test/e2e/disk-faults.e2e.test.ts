// Real pi 1.6.0 + pi-condense, issue 27 finding 5: the disk refuses the archive. A session is started, then
// its blob directory is made unwritable (a read-only session directory) or full (a filled tmpfs), by the
// strongest mechanism the machine allows (test/e2e/disk-faults.ts; each run logs which). pi continues the
// session with two oversized outputs that would be spilled: the runs succeed, no request is rejected, the
// outputs stay raw in every later request of their run, the refusal is told once, the session file keeps
// every entry, and the outputs, archived inline by the final-reply flush, come back verbatim.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { RecordedRequest } from "./fake-llm.js";
import { customEntries, disposeSandbox, makeSandbox, mainRequests, notifications, runPiRpc, runPrint, sessionEntries, type Sandbox } from "./harness.js";
import { fullBlobDir, readOnlyBlobDir, type DiskFault } from "./disk-faults.js";
import { bash, problems, say, seqOutput } from "./scenario-kit.js";
import { toolMessages } from "./wire-view.js";

const FIRST = seqOutput(1000);
const SECOND = seqOutput(2000, 1001);
const ARCHIVE_NOTICE = "pruner: could not write to the archive";

/** The ref the stub of the request's first tool message names. */
function firstStubRef(req: RecordedRequest): string | undefined {
  return /ref `(t\d+)`/.exec(toolMessages(req)[0]?.text ?? "")?.[1];
}

interface Run {
  sb: Sandbox;
  fault: DiskFault;
  blobDir: string;
  notices: string[];
  codes: number[];
}

async function refusedArchiveRun(makeFault: (sb: Sandbox, blobDir: string) => DiskFault): Promise<Run> {
  const sb = await makeSandbox({
    contextPrune: { enabled: true, minBatchChars: 0, spillThreshold: 2000, flushPolicy: "classic" },
    script: { main: [say("Ready.")] },
  });
  const start = await runPrint(sb, ["hello"]);
  const blobDir = join(sb.sessionDir, `${sessionEntries(sb)[0].id}-blobs`);
  const fault = makeFault(sb, blobDir);
  console.log(`disk fault: ${fault.mechanism}`);
  sb.fake.setScript({ main: [bash("seq 1 1000"), bash("seq 1001 2000"), say("Counted.")] });
  const counted = await runPiRpc(sb, [{ type: "prompt", message: "count twice" }], { extraArgs: ["-c"] });
  sb.fake.setScript({
    main: [(req) => ({ toolCalls: [{ name: "context_tree_query", args: { toolCallIds: [firstStubRef(req) ?? "none"] } }] }), say("Recovered.")],
  });
  const recovered = await runPiRpc(sb, [{ type: "prompt", message: "show the first count again" }], { extraArgs: ["-c"] });
  const notices = notifications([...counted.records, ...recovered.records]).map((n) => n.message);
  return { sb, fault, blobDir, notices, codes: [start.code, counted.code, recovered.code] };
}

function scenario(name: string, makeFault: (sb: Sandbox, blobDir: string) => DiskFault): void {
  describe(name, () => {
    let run: Run;
    beforeAll(async () => {
      run = await refusedArchiveRun(makeFault);
    }, 120_000);
    afterAll(async () => {
      run?.fault.undo();
      if (run) await disposeSandbox(run.sb);
    });

    test("every pi run succeeds and no request is rejected", () => {
      expect(run.codes).toEqual([0, 0, 0]);
      expect(problems(run.sb)).toEqual([]);
    });

    test("the outputs whose sidecars were refused stay raw in every later request of their run", () => {
      const [, afterFirst, afterSecond] = mainRequests(run.sb).slice(1, 4);
      const texts = (req: RecordedRequest) => toolMessages(req).map((m) => m.text);
      expect(texts(afterFirst!)).toEqual([FIRST]);
      expect(texts(afterSecond!)).toEqual([FIRST, SECOND]);
    });

    test("the refusal is told once, though two outputs met it", () => {
      expect(run.notices.filter((n) => n.startsWith(ARCHIVE_NOTICE))).toHaveLength(1);
    });

    test("no partial sidecar is left in the blob directory", () => {
      let names: string[] = [];
      try {
        names = readdirSync(run.blobDir);
      } catch {
        // No blob directory at all (a read-only session directory, or a file in its place).
      }
      expect(names.filter((name) => name.endsWith(".txt"))).toEqual([]);
    });

    test("the session file keeps every entry: both results whole, every parent present, the outputs archived inline", () => {
      const entries = sessionEntries(run.sb);
      const ids = new Set(entries.map((e) => e.id));
      expect(entries.slice(1).every((e) => e.parentId === null || ids.has(e.parentId))).toBe(true);
      const results = entries.filter((e) => e.type === "message" && e.message.role === "toolResult").map((e) => e.message.content[0].text);
      expect(results.slice(0, 2)).toEqual([FIRST, SECOND]);
      const archived = customEntries(entries, "context-prune-index").flatMap((e) => e.data.toolCalls);
      expect(archived.map((r: any) => r.resultText)).toEqual([FIRST, SECOND]);
      expect(archived.some((r: any) => "spillPath" in r)).toBe(false);
    });

    test("the next session's stub names a ref that gives the first output back verbatim", () => {
      const answer = toolMessages(mainRequests(run.sb).at(-1)!).at(-1)!.text;
      expect(answer).toStartWith("## toolRef: t");
      expect(answer).toEndWith(`\n\n${FIRST}`);
    });
  });
}

scenario("a read-only session directory (issue 27, finding 5)", (sb, blobDir) => readOnlyBlobDir(sb.sessionDir, blobDir));
scenario("a full disk under the blob directory (issue 27, finding 5)", (_sb, blobDir) => fullBlobDir(blobDir));
