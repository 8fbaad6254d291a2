// No output stranded behind the frontier, in the real pi 1.6.0 CLI (issue 33 item 0): a first run reads a
// few files and ends in a stopped turn (the provider stops with a tool call pending, pi records an error
// stop and ends the run: no final reply, so no final-reply flush); the next run reads many large files, so
// the cost policy summarizes its older outputs within the run. The first run's outputs must stay waiting
// (or be archived) on the session file, never be passed by the frontier that in-run flush writes.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { strandedOutputs } from "../stranded-outputs.js";
import { PromptCacheSim } from "./cache-sim.js";
import type { ScriptedReply } from "./fake-llm.js";
import { customEntries, disposeSandbox, makeSandbox, REPO_ROOT, runPrint, sessionEntries, type Sandbox } from "./harness.js";
import { pricedModelFields } from "./priced-models.js";
import { problems, read, say } from "./scenario-kit.js";

const TTL_SECONDS = 600;
const FIRST_RUN = ["src/capture/spill.ts", "src/report/what-if.ts", "src/host/turn-handlers.ts", "src/summarize/flush.ts"];
const SECOND_RUN = [
  "src/archive/indexer.ts",
  "src/capture/persisted-entries.ts",
  "src/render/stub-replace.ts",
  "src/capture/stale-outputs.ts",
  "src/commands/command-settings.ts",
  "src/summarize/summarizer.ts",
  "src/render/chain-range-prune.ts",
  "src/report/replay.ts",
  "src/archive/query-tool.ts",
  "src/settings/config.ts",
  "src/chains/chain-compressor.ts",
  "src/archive/line-pattern.ts",
  "src/host/flush-policy.ts",
  "src/commands/command-config.ts",
];
const stopped: ScriptedReply = { stopped: true, toolCalls: [{ name: "read", args: { path: "src/capture/batch-capture.ts" } }] };

describe("a run that ends in a stopped turn, then a run with an in-run flush", () => {
  let sb: Sandbox;
  let entries: any[];
  beforeAll(async () => {
    sb = await makeSandbox({
      api: "anthropic-messages",
      projectDir: REPO_ROOT,
      cache: new PromptCacheSim({ ttlMs: TTL_SECONDS * 1000 }),
      modelFields: pricedModelFields(TTL_SECONDS),
      // Reads of the running prompt's files are the working set's to keep raw; this test needs an in-run flush of them.
      contextPrune: { enabled: true, workingSetPrompts: null },
      script: { main: [...FIRST_RUN.map((p) => read(p)), stopped, ...SECOND_RUN.map((p) => read(p)), say("All read.")] },
    });
    await runPrint(sb, ["read the first files", "read the rest"]);
    entries = sessionEntries(sb);
  }, 120_000);
  afterAll(() => disposeSandbox(sb));

  test("the first run ended in an error stop carrying its tool call", () => {
    const stops = entries.filter((e) => e.type === "message" && e.message.role === "assistant" && e.message.stopReason === "error");
    expect(stops).toHaveLength(1);
    expect(stops[0].message.content.some((b: any) => b.type === "toolCall")).toBe(true);
  });

  test("the second run summarized its older outputs within the run", () => {
    const inRun = customEntries(entries, "context-prune-flush-metrics").filter((e) => e.data.trigger === "in-run" && e.data.outcome === "summarized");
    expect(inRun.length).toBeGreaterThan(0);
  });

  test("no output is stranded: the first run's outputs are archived or still waiting", () => {
    expect(strandedOutputs(entries, { minBatchChars: 1000, batchingMode: "turn" })).toEqual([]);
  });

  test("no request was rejected and none carried an orphan tool result", () => {
    expect(problems(sb)).toEqual([]);
  });
});
