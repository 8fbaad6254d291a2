import { describe, expect, test } from "bun:test";
import { runFigures, type RunFigures } from "../../bench/session-figures.js";
import { formatShapeTable, sessionTargets, type RecoveryTally, type ShapeResult, type VariantId } from "../../bench/session-report.js";
import type { ShapeId } from "../../bench/session-shapes.js";
import type { RecordedRequest } from "../../test/e2e/fake-llm.js";

function figures(costUsd: number, prefixBreaks = 0): RunFigures {
  return { mainRequests: 4, inputTokens: 0, cacheReadTokens: 1000, cacheWriteTokens: 200, outputTokens: 80, summarizerRequests: 1, summarizerInputTokens: 300, summarizerOutputTokens: 20, prefixBreaks, coldRequests: 0, costUsd, strictCostUsd: costUsd * 1.5 };
}

/** A shape where the cost policy costs `policy` against classic 1.0 and no extension 2.0. */
function shape(id: ShapeId, policy: number, breaks: { cost?: number; classic?: number } = {}): ShapeResult {
  const f: Record<VariantId, RunFigures> = { none: figures(2), compaction: figures(1.8), classic: figures(1, breaks.classic ?? 1), cost: figures(policy, breaks.cost ?? 1) };
  return { id, title: `shape ${id}`, figures: f };
}

const allMet = () => [shape("a", 0.8), shape("b", 0.5), shape("c", 1), shape("d", 0.99), shape("e", 1)];
const clean: RecoveryTally = { checked: 10, failures: [] };
const failed = (results: ShapeResult[], recovery = clean) => sessionTargets(results, recovery).filter((t) => !t.met).map((t) => t.name);

describe("the session bench's targets", () => {
  test("with every figure inside its bound all sixteen targets hold", () => {
    const targets = sessionTargets(allMet(), clean);
    expect(targets).toHaveLength(16);
    expect(targets.every((t) => t.met)).toBe(true);
  });

  test("shape a misses its target at 0.9x the classic policy", () => {
    const results = allMet();
    results[0] = shape("a", 0.9);
    expect(failed(results)).toEqual(["a: cost policy <= 0.85x classic (0.900x)"]);
  });

  test("shape b needs half the classic cost or less", () => {
    const results = allMet();
    results[1] = shape("b", 0.51);
    expect(failed(results)).toEqual(["b: cost policy <= 0.5x classic (0.510x)"]);
  });

  test("shape d must be strictly cheaper than classic", () => {
    const results = allMet();
    results[3] = shape("d", 1);
    expect(failed(results)).toEqual(["d: cost policy < classic (1.000x)"]);
  });

  test("a policy dearer than no extension fails that shape's first target", () => {
    const results = allMet();
    results[2] = shape("c", 2.5);
    expect(failed(results)).toContain("c: cost policy $2.5000 <= no extension $2.0000");
  });

  test("more prefix breaks than classic fails the shape's break target", () => {
    const results = allMet();
    results[4] = shape("e", 1, { cost: 3, classic: 2 });
    expect(failed(results)).toEqual(["e: cost policy prefix breaks 3 <= classic 2"]);
  });

  test("one lost original fails the recoverability target", () => {
    expect(failed(allMet(), { checked: 10, failures: ["a/cost: x: no archive record"] })).toEqual(["every stubbed original recoverable verbatim (10 checked, 1 lost)"]);
  });

  test("a table names the shape and has one row per variant with the dollars", () => {
    const lines = formatShapeTable(shape("a", 0.8));
    expect(lines[0]).toBe("shape a: shape a");
    expect(lines).toHaveLength(6);
    expect(lines[5]).toContain("pi-condense cost policy");
    expect(lines[5]!.trimEnd().endsWith("0.8000      1.2000")).toBe(true);
  });
});

describe("the session bench's figures", () => {
  const price = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
  const cheap = { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 };
  const main = (seq: number, read: number, write: number, prefixBreak = false): RecordedRequest => ({
    seq,
    kind: "main",
    path: "/v1/messages",
    headers: {},
    body: {},
    api: "anthropic-messages",
    model: "m",
    status: 200,
    cache: { inputTokens: 0, cacheReadTokens: read, cacheWriteTokens: write, prefixBreak, expired: false, strict: { cacheReadTokens: 0, cacheWriteTokens: read + write } },
  });
  const summarizer: RecordedRequest = {
    ...main(3, 1_000_000, 1_000_000, true),
    kind: "summarizer",
    model: "s",
    cache: { inputTokens: 1_000_000, cacheReadTokens: 1_000_000, cacheWriteTokens: 1_000_000, prefixBreak: true, expired: false, strict: { cacheReadTokens: 0, cacheWriteTokens: 2_000_000 } },
  };

  test("main requests and summarizer calls are priced from their cache figures at their own model's price", () => {
    const f = runFigures([main(1, 0, 1_000_000), main(2, 1_000_000, 0, true), summarizer], { m: price, s: cheap });
    expect(f).toMatchObject({ mainRequests: 2, cacheReadTokens: 1_000_000, cacheWriteTokens: 1_000_000, prefixBreaks: 1, summarizerRequests: 1, summarizerInputTokens: 3_000_000 });
    const expected = 3.75 + 0.3 + (2 * 20 * 15) / 1e6 + (1 + 0.1 + 1.25) + (20 * 5) / 1e6;
    expect(f.costUsd).toBeCloseTo(expected, 10);
  });

  test("the strict cost prices the same requests with the strict cache figures", () => {
    const f = runFigures([main(1, 0, 1_000_000), main(2, 1_000_000, 0, true)], { m: price });
    expect(f.strictCostUsd).toBeCloseTo(2 * 3.75 + (2 * 20 * 15) / 1e6, 10);
  });

  test("a request the cache simulation did not bill is an error, not a free request", () => {
    const { cache: _omit, ...unbilled } = main(1, 0, 0);
    expect(() => runFigures([unbilled], { m: price })).toThrow("request 1 was not billed by the cache simulation");
  });

  test("a rejected request costs nothing, and a model without a price is an error", () => {
    expect(runFigures([{ ...main(1, 5, 5), status: 400 }], { m: price }).mainRequests).toBe(0);
    expect(() => runFigures([main(1, 5, 5)], {})).toThrow("no price for model m");
  });
});
