// Real pi 1.6.0 + pi-condense: protected-path supersession (spec 70 §8). A skill file read three times
// reaches the provider verbatim once and as the superseded stub twice, and a stub only lands where the
// prompt cache is cold anyway (a model switch) or where a flush already rewrites the request.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { FakeApi, RecordedRequest, ReplySource } from "./fake-llm.js";
import { disposeSandbox, MAIN_MODEL, mainRequests, makeSandbox, runPiRpc, runPrint, SUMMARIZER_MODEL, type Sandbox } from "./harness.js";
import { measureRequests, promptItems } from "./metrics.js";
import { APIS, bash, problems, read, reportMetrics, say } from "./scenario-kit.js";
import { toolMessages } from "./wire-view.js";

const SKILL = "skills/demo/SKILL.md";
const BODY = "SKILL-BODY: how to release\n".repeat(40);
const STUB = `[Superseded: ${SKILL} was read again later in this conversation - see the newer read. Re-read the file if this earlier content is needed.]`;

async function skillSandbox(api: FakeApi, main: ReplySource[]): Promise<Sandbox> {
  const sb = await makeSandbox({ api, script: { main } });
  mkdirSync(join(sb.projectDir, "skills", "demo"), { recursive: true });
  writeFileSync(join(sb.projectDir, SKILL), BODY);
  return sb;
}

/** How the request shows each read of the skill: `verbatim`, `stub`, or `other`. */
function skillReads(req: RecordedRequest): string[] {
  return toolMessages(req)
    .filter((m) => m.text.includes("SKILL-BODY") || m.text.startsWith("[Superseded:"))
    .map((m) => (m.text === STUB ? "stub" : m.text.includes(BODY.trim()) ? "verbatim" : "other"));
}

/** Index of the first prompt item (system first) where `req` differs from `previous`. */
function firstChange(previous: RecordedRequest, req: RecordedRequest): number {
  const before = promptItems(previous);
  const after = promptItems(req);
  const at = before.findIndex((item, i) => item !== after[i]);
  return at < 0 ? before.length : at;
}

const prompt = (message: string) => ({ type: "prompt", message });

for (const api of APIS) {
  describe(`a skill read three times with model switches in between, over ${api}`, () => {
    let sb: Sandbox;
    let responses: any[] = [];
    beforeAll(async () => {
      sb = await skillSandbox(api, [read(SKILL), say("Read it."), read(SKILL), say("Read it again."), read(SKILL), say("And again."), say("Done.")]);
      const rpc = await runPiRpc(sb, [
        prompt("read the skill"),
        prompt("read it again"),
        { type: "set_model", provider: "fake", modelId: SUMMARIZER_MODEL },
        prompt("and once more"),
        { type: "set_model", provider: "fake", modelId: MAIN_MODEL },
        prompt("what now?"),
      ], { timeoutMs: 60_000 });
      expect(rpc.code).toBe(0);
      responses = rpc.responses;
    }, 90_000);
    afterAll(async () => {
      reportMetrics(`supersede/${api}`, sb);
      await disposeSandbox(sb);
    });

    test("both model switches are accepted and every request reaches the provider cleanly", () => {
      expect(responses.filter((r) => r.command === "set_model").map((r) => r.success)).toEqual([true, true]);
      expect(mainRequests(sb).map((r) => r.model)).toEqual([MAIN_MODEL, MAIN_MODEL, MAIN_MODEL, MAIN_MODEL, SUMMARIZER_MODEL, SUMMARIZER_MODEL, MAIN_MODEL]);
      expect(problems(sb)).toEqual([]);
    });

    test("a read becomes the stub at the first request after a model switch, and a fresh read stays verbatim until the next one", () => {
      expect(mainRequests(sb).map(skillReads)).toEqual([
        [],
        ["verbatim"],
        ["verbatim"],
        ["verbatim", "verbatim"],
        ["stub", "verbatim"],
        ["stub", "verbatim", "verbatim"],
        ["stub", "stub", "verbatim"],
      ]);
    });

    test("the last request sends the file verbatim once and as the superseded stub twice", () => {
      expect(skillReads(mainRequests(sb).at(-1)!)).toEqual(["stub", "stub", "verbatim"]);
    });

    test("cache-prefix breaks happen only at the first request after each model switch", () => {
      const measured = measureRequests(mainRequests(sb)).requests;
      expect(measured.map((m) => m.prefixBreak)).toEqual([false, false, false, false, true, false, true]);
    });
  });
}

describe("a superseded read behind a flush rewrite", () => {
  let sb: Sandbox;
  beforeAll(async () => {
    const twoReads = { toolCalls: [{ name: "read", args: { path: SKILL } }, { name: "read", args: { path: SKILL } }] };
    // The warm-up's flush is the session's first rewrite: it declares context_tree_query (issue 26), so the
    // rewrite measured here changes no tool list.
    sb = await skillSandbox("openai-completions", [bash("seq 1 100"), say("Warmed up."), bash("seq 1 300"), twoReads, say("Counted and read."), say("Next.")]);
    const run = await runPrint(sb, ["warm up", "count, then read the skill twice", "and next?"]);
    expect(run.code).toBe(0);
  }, 90_000);
  afterAll(async () => {
    reportMetrics("supersede/flush", sb);
    await disposeSandbox(sb);
  });

  test("before the flush both reads of the turn are verbatim, after it the earlier one is the stub", () => {
    const requests = mainRequests(sb);
    expect(requests.map(skillReads)).toEqual([[], [], [], [], ["verbatim", "verbatim"], ["stub", "verbatim"]]);
    expect(problems(sb)).toEqual([]);
  });

  test("the stub lands after the point where the flush's own stub already breaks the prefix", () => {
    const requests = mainRequests(sb);
    const last = requests.at(-1)!;
    const changedAt = firstChange(requests.at(-2)!, last);
    const items = promptItems(last);
    const bashStub = items.findIndex((item) => item.includes("Summarized in pruner summary") && item.includes("t2"));
    const superseded = items.findIndex((item) => item.includes("[Superseded:"));
    expect(bashStub).toBeGreaterThan(0);
    expect(changedAt).toBe(bashStub);
    expect(superseded).toBeGreaterThan(bashStub);
    // One break for the warm-up's rewrite, one for this flush.
    expect(measureRequests(requests).prefixBreaks).toBe(2);
  });
});
