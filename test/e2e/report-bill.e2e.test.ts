// `pi-condense-report` (npm run report) on sessions the real pi CLI recorded with pi-condense, on both wires,
// against the loopback provider's simulated cache at catalog prices (issue 44): "as recorded" is pi's own
// total for the session file (what /session sums: each reply's usage cost, warming refreshes, compactions)
// plus the summarizer's recorded spend, and the simulated check of that run lands within 5% of it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { reportMain } from "../../src/cli/report-main.js";
import { buildDemoScript } from "../../demo/script.js";
import { PromptCacheSim } from "./cache-sim.js";
import { disposeSandbox, makeSandbox, REPO_ROOT, runPrint, sessionFile, type Sandbox } from "./harness.js";
import { cacheModelIds, pricedModelFields } from "./priced-models.js";
import type { FakeApi } from "./fake-llm.js";

/** What pi's /session sums over a session file (core/agent-session.js `getSessionStats`). */
function piTotal(file: string): number {
  let total = 0;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (!line.trim()) continue;
    const entry = JSON.parse(line);
    const usage = entry.type === "usage" || entry.type === "compaction" || entry.type === "branch_summary" ? entry.usage : entry.type === "message" ? entry.message?.usage : undefined;
    total += usage?.cost?.total ?? 0;
  }
  return total;
}

async function json(file: string): Promise<any> {
  let out = "";
  const code = await reportMain([file, "--json"], { out: (t) => (out += t), err: () => {}, cwd: REPO_ROOT });
  expect(code).toBe(0);
  return JSON.parse(out);
}

for (const api of ["anthropic-messages", "openai-completions"] as FakeApi[]) {
  describe(`npm run report on a session pi recorded with pruning on (${api})`, () => {
    let sb: Sandbox;
    let file: string;
    beforeAll(async () => {
      const script = buildDemoScript(REPO_ROOT);
      sb = await makeSandbox({
        api,
        projectDir: REPO_ROOT,
        contextPrune: { enabled: true },
        script: { main: script.main },
        cache: new PromptCacheSim({ ttlMs: 300_000, modelIds: cacheModelIds(api) }),
        modelFields: pricedModelFields(300, api),
      });
      const run = await runPrint(sb, script.prompts, [], { timeoutMs: 120_000 });
      expect(run.code).toBe(0);
      file = sessionFile(sb);
    }, 180_000);
    afterAll(() => disposeSandbox(sb));

    test("as recorded is pi's own total plus the summarizer's recorded spend; the simulation of that run is within 5% of it", async () => {
      const report = await json(file);
      expect(report.recorded.dollars).toBeCloseTo(piTotal(file), 5);
      expect(report.asRecorded.source).toBe("recorded");
      expect(report.asRecorded.dollars).toBeCloseTo(report.recorded.dollars + (report.recorded.summarizerDollars ?? 0), 5);
      const check = report.asRecorded.simulatedDollars / report.asRecorded.dollars - 1;
      expect(Math.abs(check)).toBeLessThan(0.05);
      expect(report.noPruning.dollars).toBeGreaterThan(report.asRecorded.simulatedDollars);
    });
  });
}
