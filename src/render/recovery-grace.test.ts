import { describe, expect, test } from "bun:test";
import { inGraceRecoveryToolCallIds } from "./recovery-grace.js";

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
