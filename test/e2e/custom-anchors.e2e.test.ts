// Real pi 1.6.0 + pi-condense: an orchestrator that starts tasks with a custom message (spec 70 §5.1,
// issue 15 e2e scenario 1). The chain such a message opens is compressed like a user-anchored one, and
// the block lands right after the custom message in the request.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { customEntries, disposeSandbox, mainRequests, makeSandbox, runPrint, sessionEntries, type Sandbox } from "./harness.js";
import { APIS, bash, problems, reportMetrics, say } from "./scenario-kit.js";
import { compressedChainIds, stubRefs, toolMessages, wireMessages } from "./wire-view.js";

const STEER_TYPE = "pi-gauntlet-transition-recovery";
const TASK_TWO = "Continue with task two.";
const task = (k: number) => [bash(`echo task-${k}; seq 1 150`), say(`Task ${k} done.`)];

for (const api of APIS) {
  describe(`a task started by another extension's custom message over ${api}`, () => {
    let sb: Sandbox;
    beforeAll(async () => {
      sb = await makeSandbox({
        api,
        contextPrune: {
          enabled: true,
          minBatchChars: 0,
          chainCompression: { enabled: true, rollingWindow: 1, stripFinalAssistantThinking: true, fuseRangeSummary: false },
        },
        script: { main: [...task(1), ...task(2), ...task(3), say("All tasks done.")] },
      });
    });
    afterAll(async () => {
      reportMetrics(`custom-anchors/${api}`, sb);
      await disposeSandbox(sb);
    });

    test("the custom-anchored chain gets a context-prune-chain entry starting at the custom entry's ms timestamp", async () => {
      const run = await runPrint(sb, ["task one", `/test-steer ${TASK_TWO}`, "/test-steer Continue with task three.", "wrap up"], [], {
        extraExtensions: ["custom-steer.ts"],
      });
      expect(run.code).toBe(0);
      const entries = sessionEntries(sb);
      const steer = customEntries(entries, STEER_TYPE).find((e) => e.content === TASK_TWO);
      expect(steer?.type).toBe("custom_message");
      const chains = customEntries(entries, "context-prune-chain").map((e) => e.data);
      expect(chains.map((c) => c.blockId)).toEqual(["b1", "b2"]);
      expect(chains[1].startUserTimestamp).toBe(Date.parse(steer.timestamp));
    });

    test("the last request carries the b2 block right after the custom message, and task 2's output is gone", () => {
      const last = mainRequests(sb).at(-1)!;
      expect(compressedChainIds(last)).toEqual(["b1", "b2"]);
      const wire = wireMessages(last);
      const at = wire.findIndex((m) => m.role === "user" && m.text.includes(TASK_TWO));
      expect(at).toBeGreaterThan(0);
      // Consecutive user messages may reach the wire as one (Anthropic) or as two (OpenAI).
      const after = `${wire[at]!.text.slice(wire[at]!.text.indexOf(TASK_TWO) + TASK_TWO.length)}\n${wire[at + 1]?.role === "user" ? wire[at + 1]!.text : ""}`;
      expect(after.trimStart().startsWith('<compressed-chain id="b2"')).toBe(true);
      expect(toolMessages(last).some((m) => m.text.includes("task-2"))).toBe(false);
      // Task 3 is inside the rolling window: still its own turns, with its output stubbed.
      expect(stubRefs(last)).toEqual(["t3"]);
      expect(problems(sb)).toEqual([]);
    });
  });
}
