// The worst case against the classic policy that the bound on waiting guarantees (PRUNING.md "The bound
// on waiting"), over generated sessions replayed by the report: the cost policy's simulated dollars never
// exceed classic's by more than what each deferral owed plus its largest step, plus the one-time cost of
// each rewrite made before classic would make one (test/bound-sessions.ts). bench:session runs 10,000.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { boundCases, type BoundCase, checkBound, ESTIMATE_SLACK } from "../../test/bound-sessions.js";

const runs = Number(process.env.BOUND_RUNS ?? 300);
const seed = process.env.BOUND_SEED ? Number(process.env.BOUND_SEED) : undefined;

describe("the bound on waiting", () => {
  test(`over ${runs} generated sessions the cost policy costs at most classic plus its bets' bound`, async () => {
    await fc.assert(
      fc.asyncProperty(boundCases, async (gen) => {
        const r = await checkBound(gen);
        if (!r.accountsHeld) throw new Error("a deferral's regret went past what it owed plus one step");
        if (!r.held) throw new Error(`cost policy $${r.cost} over classic $${r.classic} by more than the bound $${r.bound} (and ${ESTIMATE_SLACK * 100}% of classic)`);
      }),
      // A failure ends the run at once: shrinking sessions this long can take many minutes.
      { numRuns: runs, seed, endOnFailure: true },
    );
  }, 600_000);

  /** Every prompt's outputs are small next to what the next prompt adds: each final reply waits, then the bound makes the rewrite. */
  const waitingSession: BoundCase = {
    prompts: Array.from({ length: 8 }, () => ({ userChars: 30_000, pauseMs: 10_000, turns: [{ outputs: [1_500] }], end: "reply" as const })),
    systemChars: 10_000,
    model: 0,
    chains: false,
    minBatchChars: 0,
  };

  test("a session whose replies wait makes deferrals the bound closes, and still stays within it", async () => {
    const r = await checkBound(waitingSession);
    expect(r.deferrals).toBeGreaterThan(0);
    expect(r.boundRewrites).toBeGreaterThan(0);
    expect(r.held).toBe(true);
  });

  test("on that session waiting does cost more than classic, and by no more than the bound", async () => {
    const r = await checkBound(waitingSession);
    expect(r.cost).toBeGreaterThan(r.classic);
    expect(r.cost - r.classic).toBeLessThanOrEqual(r.bound + ESTIMATE_SLACK * r.classic);
  });
});
