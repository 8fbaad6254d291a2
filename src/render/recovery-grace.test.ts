import { describe, expect, test } from "bun:test";
import { inGraceRecoveryToolCallIds, lazyInGraceRecoveryToolCallIds } from "./recovery-grace.js";

const user = () => ({ role: "user", content: [{ type: "text", text: "hi" }] });
const recovery = (id: string, timestamp?: number) => ({
  role: "toolResult",
  toolCallId: id,
  toolName: "context_tree_query",
  content: [{ type: "text", text: "recovered" }],
  ...(timestamp === undefined ? {} : { timestamp }),
});
const users = (n: number) => Array.from({ length: n }, user);

describe("inGraceRecoveryToolCallIds", () => {
  test("a recovery in the current user turn is in grace (28)", () => {
    expect([...inGraceRecoveryToolCallIds([user(), recovery("t1")], 3)]).toEqual(["t1"]);
  });

  test("a recovery exactly K user turns old is still in grace (29)", () => {
    expect(inGraceRecoveryToolCallIds([user(), recovery("t1"), ...users(3)], 3).has("t1")).toBe(true);
  });

  test("a recovery K+1 user turns old has aged out (30)", () => {
    expect(inGraceRecoveryToolCallIds([user(), recovery("t1"), ...users(4)], 3).has("t1")).toBe(false);
  });

  test("K=0 disables the window (31)", () => {
    expect(inGraceRecoveryToolCallIds([user(), recovery("t1")], 0).size).toBe(0);
  });

  test("negative and NaN grace also disable the window (G1)", () => {
    expect(inGraceRecoveryToolCallIds([user(), recovery("t1")], -1).size).toBe(0);
    expect(inGraceRecoveryToolCallIds([user(), recovery("t1")], Number.NaN).size).toBe(0);
  });

  test("only context_tree_query results count (32)", () => {
    const bash = { role: "toolResult", toolCallId: "t1", toolName: "bash", content: [] };
    expect([...inGraceRecoveryToolCallIds([user(), bash, recovery("t2")], 3)]).toEqual(["t2"]);
  });

  test("an old recovery ages out while a fresh one is in grace (33)", () => {
    const set = inGraceRecoveryToolCallIds([user(), recovery("t1"), ...users(4), recovery("t2")], 3);
    expect(set.has("t1")).toBe(false);
    expect(set.has("t2")).toBe(true);
  });

  test("a timestamped recovery is keyed by occurrence (34)", () => {
    const set = inGraceRecoveryToolCallIds([user(), recovery("reused", 100)], 3);
    expect(set.has("reused@100")).toBe(true);
    expect(set.has("reused")).toBe(false);
  });

  test("a reused id is judged per occurrence (35)", () => {
    const set = inGraceRecoveryToolCallIds([user(), recovery("reused", 100), ...users(4), recovery("reused", 200)], 3);
    expect(set.has("reused@100")).toBe(false);
    expect(set.has("reused@200")).toBe(true);
  });

  test("roles other than user do not count as user turns (G2)", () => {
    const other = [{ role: "custom" }, { role: "system" }, { role: "assistant", content: [] }];
    const set = inGraceRecoveryToolCallIds([user(), recovery("t1"), ...other, ...other, ...other, ...other, user()], 1);
    expect(set.has("t1")).toBe(true);
  });

  test("a recovery result without a string toolCallId is ignored", () => {
    const broken = { role: "toolResult", toolName: "context_tree_query", toolCallId: 7 };
    expect(inGraceRecoveryToolCallIds([user(), broken], 3).size).toBe(0);
  });
});

describe("lazyInGraceRecoveryToolCallIds", () => {
  test("answers like the eager set", () => {
    const messages = [user(), recovery("t1"), ...users(4), recovery("t2")];
    const lazy = lazyInGraceRecoveryToolCallIds(messages, 3);
    const eager = inGraceRecoveryToolCallIds(messages, 3);
    expect([lazy.size, lazy.has("t1"), lazy.has("t2"), [...lazy]]).toEqual([eager.size, eager.has("t1"), eager.has("t2"), [...eager]]);
  });

  test("reads no message until it is asked", () => {
    let reads = 0;
    const watched = new Proxy([user(), recovery("t1")], { get: (target, key, receiver) => (typeof key === "string" && /^\d+$/.test(key) && reads++, Reflect.get(target, key, receiver)) });
    const lazy = lazyInGraceRecoveryToolCallIds(watched, 3);
    expect(reads).toBe(0);
    expect(lazy.has("t1")).toBe(true);
    expect(reads).toBeGreaterThan(0);
  });
});
