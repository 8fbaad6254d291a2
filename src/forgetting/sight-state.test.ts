import { describe, expect, test } from "bun:test";
import { CUSTOM_TYPE_INDEX, CUSTOM_TYPE_SIGHT, QUERY_TOOL_NAME } from "../names.js";
import { SightState } from "./sight-state.js";

let clock = 1_000;
const msg = (message: Record<string, unknown>) => ({ type: "message", message });
const read = () => {
  const at = (clock += 10);
  return [
    msg({ role: "user", content: "go", timestamp: at - 5 }),
    msg({ role: "assistant", content: [{ type: "toolCall", id: "r1", name: "read", arguments: { path: "a.ts" } }], stopReason: "toolUse", timestamp: at }),
    msg({ role: "toolResult", toolCallId: "r1", toolName: "read", content: [{ type: "text", text: "x" }], isError: false, timestamp: at + 1 }),
    { type: "custom", customType: CUSTOM_TYPE_INDEX, data: { toolCalls: [], refs: [{ shortId: "t1", toolCallId: "r1", resultTimestamp: at + 1 }] } },
  ];
};
/** `n` requests, each a query of t1 when `recover`, else a plain bash call. */
function requests(n: number, recover: boolean): unknown[] {
  const out: unknown[] = [];
  for (let i = 0; i < n; i++) {
    const at = (clock += 10);
    const id = `c${clock}`;
    const [name, args] = recover ? [QUERY_TOOL_NAME, { toolCallIds: ["t1"] }] : ["bash", { command: "true" }];
    out.push(msg({ role: "assistant", content: [{ type: "toolCall", id, name, arguments: args }], stopReason: "toolUse", timestamp: at }));
    out.push(msg({ role: "toolResult", toolCallId: id, toolName: name, content: [{ type: "text", text: "ok" }], isError: false, timestamp: at + 1 }));
  }
  return out;
}

function stateAfter(branch: unknown[]): SightState {
  const state = new SightState();
  state.rebuild([], undefined);
  state.update(branch);
  return state;
}

describe("SightState", () => {
  test("widens at the fourth recovery in 40 requests, once, saying why", () => {
    const base = [...read(), ...requests(3, true)];
    const state = stateAfter(base);
    expect(state.judge([], () => 10)).toBeUndefined();
    state.update([...base, ...requests(1, true)]);
    const change = state.judge([], () => 11);
    expect(change?.entry).toEqual({ widened: true, recoveries: 4, window: 40 });
    expect(change?.notice).toBe("pruner: the agent went back for archived output in 4 requests of the last 40 (10.0 per 100): the latest 4 tool turns now stay raw instead of 2");
    expect(state.judge([], () => 12)).toBeUndefined();
  });

  test("widened, it keeps two more tool turns raw", () => {
    const state = stateAfter([...read(), ...requests(4, true)]);
    state.judge([], () => 10);
    expect(state.extraTurns()).toBe(2);
    expect(state.judge([], () => 11)).toBeUndefined();
  });

  test("once the rate falls it narrows when no waiting output is one only the widening keeps raw", () => {
    const branch = [...read(), ...requests(4, true)];
    const state = stateAfter(branch);
    state.judge([], () => 5);
    state.update([...branch, ...requests(40, false)]);
    expect(state.judge([100, 101, 102, 103], () => 103)).toBeUndefined();
    expect(state.narrowingDue()).toBe(true);
    const change = state.judge([103], () => 103);
    expect(change?.entry).toMatchObject({ widened: false });
    expect(state.extraTurns()).toBe(0);
  });

  test("an in-run rewrite made anyway narrows it while narrowing is due", () => {
    const branch = [...read(), ...requests(4, true)];
    const state = stateAfter(branch);
    state.judge([], () => 5);
    expect(state.narrowInRewrite()).toBeUndefined();
    state.update([...branch, ...requests(40, false)]);
    state.judge([100, 101], () => 103);
    expect(state.narrowInRewrite()?.notice).toContain("stay raw again instead of 4");
    expect(state.widened).toBe(false);
  });

  test("a rebuild reads the last persisted window back and skips entries it cannot read", () => {
    const state = new SightState();
    const entry = (data: unknown) => ({ type: "custom", customType: CUSTOM_TYPE_SIGHT, data });
    state.rebuild([entry({ widened: true }), entry({ widened: "yes" }), entry(null)], undefined);
    expect(state.widened).toBe(true);
    state.rebuild([entry({ widened: true }), entry({ widened: false })], undefined);
    expect(state.widened).toBe(false);
  });

  test("a session without any such entry (one written before live sight) starts narrow", () => {
    const state = new SightState();
    state.rebuild(read(), "/repo");
    expect(state.widened).toBe(false);
    expect(state.view(undefined).recoveries).toEqual([]);
  });
});
