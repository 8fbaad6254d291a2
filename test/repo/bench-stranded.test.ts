import { describe, expect, test } from "bun:test";
import { formatFates, outputFates, strandedAgainst, strandedTargets, type RunFates } from "../../bench/session-stranded.js";
import type { RecordedRequest } from "../../test/e2e/fake-llm.js";

const T0 = Date.UTC(2026, 11, 1);
const text = (id: string) => `output of ${id} `.repeat(20);

/** A branch of one prompt: one tool turn per id (turn indexes 0, 1, ...), then the reply, then `extra` entries. */
function branch(ids: string[], extra: any[] = []): any[] {
  const entries: any[] = [{ type: "message", timestamp: new Date(T0).toISOString(), message: { role: "user", content: "go", timestamp: T0 } }];
  ids.forEach((id, i) => {
    const at = T0 + 10 * (i + 1);
    entries.push({ type: "message", timestamp: new Date(at).toISOString(), message: { role: "assistant", content: [{ type: "toolCall", id, name: "read", arguments: { path: `${id}.ts` } }], timestamp: at } });
    entries.push({ type: "message", timestamp: new Date(at + 1).toISOString(), message: { role: "toolResult", toolCallId: id, toolName: "read", content: [{ type: "text", text: text(id) }], isError: false, timestamp: at + 1 } });
  });
  entries.push({ type: "message", timestamp: new Date(T0 + 999).toISOString(), message: { role: "assistant", content: [{ type: "text", text: "done" }], timestamp: T0 + 999 } });
  return [...entries, ...extra];
}

const record = (ids: string[], id: string) => {
  const i = ids.indexOf(id);
  return { toolCallId: id, toolName: "read", resultText: text(id), turnIndex: i, timestamp: T0 + 10 * (i + 1), resultTimestamp: T0 + 10 * (i + 1) + 1 };
};
const custom = (customType: string, data: unknown) => ({ type: "custom", customType, data });
const indexed = (ids: string[], which: string[], backfilled = false) => custom("context-prune-index", { toolCalls: which.map((id) => record(ids, id)), ...(backfilled ? { backfilled: true } : {}) });
const frontierAt = (ids: string[], id: string) => custom("context-prune-frontier", { lastAttemptedToolCallId: id, lastAttemptedToolName: "read", lastAttemptedTurnIndex: ids.indexOf(id), outcome: "summarized" });
const metrics = (trigger: string, outcome: string) => custom("context-prune-flush-metrics", { trigger, outcome });

/** A main Anthropic request that carries the given outputs as tool results. */
function requestCarrying(outputs: Array<[string, string]>): RecordedRequest {
  const content = outputs.map(([id, t]) => ({ type: "tool_result", tool_use_id: id, content: [{ type: "text", text: t }] }));
  return { seq: 1, kind: "main", path: "/v1/messages", headers: {}, body: { messages: [{ role: "user", content }] }, api: "anthropic-messages", model: "m", status: 200, at: 0 };
}

const ids = ["a", "b", "c", "d"];
const fatesOf = (extra: any[], requests: RecordedRequest[] = []) => outputFates(branch(ids, extra), requests).outputs.map((o) => o.fate);

describe("what became of each output after the session", () => {
  test("an output with a flush's index record is archived, one past the frontier pending, one at or before it behind", () => {
    expect(fatesOf([indexed(ids, ["a"]), frontierAt(ids, "b")])).toEqual(["archived", "behind", "pending", "pending"]);
  });

  test("with no frontier every output that is not archived is pending", () => {
    expect(fatesOf([])).toEqual(["pending", "pending", "pending", "pending"]);
  });

  test("an output archived only by a chain's backfill is told apart from one a flush archived", () => {
    expect(fatesOf([indexed(ids, ["a"]), indexed(ids, ["b"], true), frontierAt(ids, "d")])).toEqual(["archived", "chained", "behind", "behind"]);
  });

  test("an output a flush made an alias of an earlier copy stays archived by a flush when a chain's backfill indexes it again", () => {
    const r = record(ids, "b");
    const alias = custom("context-prune-dedup-alias", { newToolCallId: "b", newResultTimestamp: r.resultTimestamp, originalToolCallId: "a", originalResultTimestamp: record(ids, "a").resultTimestamp });
    expect(fatesOf([indexed(ids, ["a"]), alias, indexed(ids, ["b"], true), frontierAt(ids, "d")]).slice(0, 2)).toEqual(["archived", "archived"]);
  });

  test("each output counts the main requests that carried it verbatim, not those that carried a stub", () => {
    const requests = [requestCarrying([["a", text("a")]]), requestCarrying([["a", text("a")], ["b", text("b")]]), requestCarrying([["a", "[stub]"]])];
    expect(outputFates(branch(ids), requests).outputs.map((o) => o.rawRequests)).toEqual([2, 1, 0, 0]);
  });

  test("deferred final-reply flushes and in-run flushes are counted from the flush metrics", () => {
    const f = outputFates(branch(ids, [metrics("message-end", "deferred"), metrics("message-end", "deferred"), metrics("in-run", "summarized"), metrics("message-end", "summarized")]), []);
    expect({ deferred: f.deferred, inRun: f.inRun }).toEqual({ deferred: 2, inRun: 1 });
  });
});

const fates = (...list: Array<[RunFates["outputs"][number]["fate"], number?]>): RunFates => ({
  outputs: list.map(([fate, rawRequests = 1]) => ({ toolName: "read", chars: 4000, fate, rawRequests })),
  deferred: 0,
  inRun: 0,
});

describe("stranded outputs against classic", () => {
  test("an output classic archived and the run left behind its frontier is stranded, with the raw sends beyond classic's", () => {
    expect(strandedAgainst(fates(["archived", 3], ["archived", 3]), fates(["behind", 10], ["archived", 3]))).toEqual({ count: 1, chars: 4000, extraRawTokens: 7000, unchained: 0, mismatched: 0, small: 0 });
  });

  test("an output under minBatchChars left behind the frontier is counted as left small, not stranded", () => {
    const small: RunFates = { ...fates(["behind"]), outputs: [{ toolName: "read", chars: 696, fate: "behind", rawRequests: 9 }] };
    expect(strandedAgainst(fates(["archived"]), small)).toMatchObject({ count: 0, small: 1 });
  });

  test("a pending output is not stranded: a later flush still takes it", () => {
    expect(strandedAgainst(fates(["archived"]), fates(["pending"])).count).toBe(0);
  });

  test("an output classic archived only in a chain is counted apart", () => {
    expect(strandedAgainst(fates(["chained"]), fates(["behind"]))).toMatchObject({ count: 0, unchained: 1 });
  });

  test("outputs of another tool at the same place, or a different count, are mismatches", () => {
    const other: RunFates = { ...fates(["behind"]), outputs: [{ toolName: "bash", chars: 1, fate: "behind", rawRequests: 0 }] };
    expect(strandedAgainst(fates(["archived"]), other)).toMatchObject({ count: 0, mismatched: 1 });
    expect(strandedAgainst(fates(["archived"], ["archived"]), fates(["archived"])).mismatched).toBe(1);
  });

  test("the target holds with nothing stranded and fails naming the count and characters", () => {
    const classic = fates(["archived"], ["archived"]);
    const runs = [
      { where: "i (Anthropic wire)", label: "pi-condense classic (2.9.1)", fates: classic },
      { where: "i (Anthropic wire)", label: "pi-condense cost policy", fates: fates(["behind"], ["pending"]) },
    ];
    expect(strandedTargets(runs, classic)).toEqual([{ name: "i (Anthropic wire): pi-condense cost policy strands no output classic archived (1 stranded, 4,000 chars)", met: false }]);
    expect(strandedTargets([{ ...runs[1]!, fates: fates(["archived"], ["pending"]) }], classic).map((t) => t.met)).toEqual([true]);
    expect(strandedTargets(runs, undefined)).toEqual([]);
  });

  test("the lines give each run's tally and, against classic, what it stranded", () => {
    const classic = fates(["archived"], ["chained"]);
    const lines = formatFates([{ label: "classic", fates: classic }, { label: "cost", fates: { ...fates(["behind", 4], ["pending"]), deferred: 3, inRun: 2 } }], classic);
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain("2 outputs: 1 archived, 1 only in a chain, 0 pending, 0 behind the frontier unarchived; final replies deferred 0");
    expect(lines[2]).toContain("stranded 1 (4,000 chars, 3,000 tokens sent raw beyond classic), 0 left out of classic's chains; final replies deferred 3, in-run flushes 2");
  });
});
