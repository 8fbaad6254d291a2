import { describe, expect, test } from "bun:test";
import { isProtected as isProtectedBy } from "../capture/protected.js";
import {
  applySupersede,
  createSupersedeState,
  earliestChainStart,
  earliestResultTimestamp,
  findSuperseded,
  lowerFloor,
  type SupersedeState,
  supersededStub,
} from "./supersede.js";

const SKILL = "/h/skills/x/SKILL.md";
const RULES = { protectedTools: [] as string[], protectedPaths: ["**/skills/**/*.md"] };
const isProtected = (toolName: string, args: unknown) => isProtectedBy(toolName, args, RULES);

const user = (ts: number) => ({ role: "user", content: [{ type: "text", text: "go" }], timestamp: ts });
const callTurn = (ts: number, id: string, args: Record<string, unknown> = { path: SKILL }, name = "read") => ({
  role: "assistant",
  content: [{ type: "toolCall", id, name, arguments: args }],
  timestamp: ts,
});
const resultOf = (ts: number | undefined, id: string, text = `content ${id}`, extra: Record<string, unknown> = {}) => ({
  role: "toolResult",
  toolCallId: id,
  toolName: "read",
  content: [{ type: "text", text }],
  isError: false,
  ...(ts === undefined ? {} : { timestamp: ts }),
  ...extra,
});
/** Call k: its assistant at ts, its result at ts + 1. */
const read = (id: string, ts: number, args: Record<string, unknown> = { path: SKILL }) => [callTurn(ts, id, args), resultOf(ts + 1, id)];
const stateWith = (floor: number | undefined, activated: string[] = []): SupersedeState => ({ floor, activated: new Set(activated) });
const textAt = (messages: any[], i: number): string => messages[i].content[0].text;

describe("findSuperseded: pairing and the last read", () => {
  test("of two reads of one protected path the earlier one is the candidate", () => {
    expect(findSuperseded([...read("a", 10), ...read("b", 20)], isProtected)).toEqual([
      { toolCallId: "a", path: SKILL, timestamp: 11, resultIndex: 1 },
    ]);
  });

  test("of three reads every read but the last is a candidate, in result order", () => {
    const found = findSuperseded([...read("a", 10), ...read("b", 20), ...read("c", 30)], isProtected);
    expect(found.map((c) => c.toolCallId)).toEqual(["a", "b"]);
  });

  test("offset and limit are ignored: the older slice is a candidate", () => {
    const messages = [...read("a", 10, { path: SKILL, offset: 1, limit: 400 }), ...read("b", 20, { path: SKILL, offset: 400, limit: 50 })];
    expect(findSuperseded(messages, isProtected).map((c) => c.toolCallId)).toEqual(["a"]);
  });

  test("a backslash spelling and a forward-slash spelling are one path", () => {
    const messages = [...read("a", 10, { path: "\\h\\skills\\x\\SKILL.md" }), ...read("b", 20)];
    expect(findSuperseded(messages, isProtected)).toEqual([{ toolCallId: "a", path: SKILL, timestamp: 11, resultIndex: 1 }]);
  });

  test("a newest call without a result cannot win: the read before it does, and the aborted call is not returned", () => {
    const messages = [...read("a", 10), ...read("b", 20), callTurn(30, "c"), user(40)];
    expect(findSuperseded(messages, isProtected).map((c) => c.toolCallId)).toEqual(["a"]);
  });

  test("a bash cat of the same file is no read of the path", () => {
    const messages = [...read("a", 10), callTurn(20, "b", { command: `cat ${SKILL}` }, "bash"), resultOf(21, "b")];
    expect(findSuperseded(messages, isProtected)).toEqual([]);
  });

  test("a result separated from its call by a user message pairs with nothing", () => {
    const messages = [callTurn(10, "a"), user(11), resultOf(12, "a"), ...read("b", 20)];
    expect(findSuperseded(messages, isProtected)).toEqual([]);
  });

  test("an assistant without array content closes the open calls", () => {
    const messages = [callTurn(10, "a"), { role: "assistant", content: "text", timestamp: 11 }, resultOf(12, "a"), ...read("b", 20)];
    expect(findSuperseded(messages, isProtected)).toEqual([]);
  });

  test("a result of a turn that stopped with an error opens nothing, so that read cannot win", () => {
    const failed = { ...callTurn(20, "b"), stopReason: "error" };
    const messages = [...read("a", 10), failed, resultOf(21, "b")];
    expect(findSuperseded(messages, isProtected)).toEqual([]);
  });

  test("a second result for the same call pairs with nothing", () => {
    const messages = [callTurn(10, "a"), resultOf(11, "a"), resultOf(12, "a")];
    expect(findSuperseded(messages, isProtected)).toEqual([]);
  });

  test("reads of different paths do not supersede each other", () => {
    const messages = [...read("a", 10), ...read("b", 20, { path: "/h/skills/y/SKILL.md" })];
    expect(findSuperseded(messages, isProtected)).toEqual([]);
  });

  test("unprotected paths never take part", () => {
    const messages = [...read("a", 10, { path: "/src/app.ts" }), ...read("b", 20, { path: "/src/app.ts" })];
    expect(findSuperseded(messages, isProtected)).toEqual([]);
  });

  test("a name-protected call takes part when it carries a string path", () => {
    const byName = (toolName: string) => toolName === "skill";
    const messages = [callTurn(10, "a", { path: "/any/file" }, "skill"), resultOf(11, "a"), callTurn(20, "b", { path: "/any/file" }, "skill"), resultOf(21, "b")];
    expect(findSuperseded(messages, byName).map((c) => c.toolCallId)).toEqual(["a"]);
  });

  test("a name-protected call without a string path does not take part", () => {
    const byName = (toolName: string) => toolName === "skill";
    const messages = [callTurn(10, "a", { name: "x" }, "skill"), resultOf(11, "a"), callTurn(20, "b", { path: 7 }, "skill"), resultOf(21, "b")];
    expect(findSuperseded(messages, byName)).toEqual([]);
  });

  test("arguments under input or args are read too", () => {
    const withKey = (ts: number, id: string, key: string) => ({
      role: "assistant",
      content: [{ type: "toolCall", id, name: "read", [key]: { path: SKILL } }],
      timestamp: ts,
    });
    const messages = [withKey(10, "a", "input"), resultOf(11, "a"), withKey(20, "b", "args"), resultOf(21, "b")];
    expect(findSuperseded(messages, isProtected).map((c) => c.toolCallId)).toEqual(["a"]);
  });

  test("hostile messages and blocks are skipped without throwing", () => {
    const messages: any[] = [null, 3, { role: "assistant", content: [null, { type: "toolCall", id: "a", arguments: "x" }] }, resultOf(1, "a"), resultOf(2, 5 as any), ...read("b", 20)];
    expect(findSuperseded(messages, isProtected)).toEqual([]);
  });
});

describe("applySupersede: activation by the floor", () => {
  const twoReads = () => [...read("a", 10), ...read("b", 20)];

  test("with no floor and nothing activated the input itself comes back", () => {
    const state = createSupersedeState();
    const messages = twoReads();
    expect(applySupersede(messages, state, isProtected)).toBe(messages);
    expect(state.activated.size).toBe(0);
  });

  test("floor 0 stubs the earlier read, carries the rest by reference, consumes the floor and activates a@11", () => {
    const state = stateWith(0);
    const messages = twoReads();
    const before = structuredClone(messages);
    const out = applySupersede(messages, state, isProtected);
    expect(textAt(out, 1)).toBe(supersededStub(SKILL));
    expect(out[3]).toBe(messages[3]);
    expect(out[0]).toBe(messages[0]);
    expect(messages).toEqual(before);
    expect(state.floor).toBeUndefined();
    expect([...state.activated]).toEqual(["a@11"]);
  });

  test("a floor after the read leaves it verbatim; a lower floor stubs it; then it stays stubbed without a floor", () => {
    const state = stateWith(15);
    const messages = twoReads();
    expect(applySupersede(messages, state, isProtected)).toBe(messages);
    lowerFloor(state, 5);
    expect(textAt(applySupersede(messages, state, isProtected), 1)).toBe(supersededStub(SKILL));
    expect(state.floor).toBeUndefined();
    expect(textAt(applySupersede(messages, state, isProtected), 1)).toBe(supersededStub(SKILL));
  });

  test("a floor exactly at the result timestamp activates it", () => {
    const state = stateWith(11);
    expect(textAt(applySupersede(twoReads(), state, isProtected), 1)).toBe(supersededStub(SKILL));
  });

  test("a result without a timestamp is activated only by floor 0, under its bare id", () => {
    const messages = [callTurn(10, "a"), resultOf(undefined, "a"), ...read("b", 20)];
    const state = stateWith(5);
    expect(applySupersede(messages, state, isProtected)).toBe(messages);
    expect(state.activated.size).toBe(0);
    lowerFloor(state, 0);
    expect(textAt(applySupersede(messages, state, isProtected), 1)).toBe(supersededStub(SKILL));
    expect([...state.activated]).toEqual(["a"]);
  });

  test("a reused id is activated per occurrence: only the one at or after the floor", () => {
    const messages = [...read("dup", 10), ...read("dup", 20), ...read("dup", 30)];
    const state = stateWith(21);
    const out = applySupersede(messages, state, isProtected);
    expect(out[1]).toBe(messages[1]);
    expect(textAt(out, 3)).toBe(supersededStub(SKILL));
    expect(out[5]).toBe(messages[5]);
    expect([...state.activated]).toEqual(["dup@21"]);
  });

  test("the floor is consumed even when there is no candidate", () => {
    const state = stateWith(0);
    const messages = read("a", 10);
    expect(applySupersede(messages, state, isProtected)).toBe(messages);
    expect(state.floor).toBeUndefined();
  });

  test("an activated key that is no candidate any more is inert", () => {
    const state = stateWith(undefined, ["a@11", "zzz@99"]);
    const messages = read("a", 10);
    expect(applySupersede(messages, state, isProtected)).toBe(messages);
  });

  test("when the newer read disappears the older one renders verbatim again", () => {
    const state = stateWith(0);
    applySupersede(twoReads(), state, isProtected);
    const onlyOld = read("a", 10);
    expect(applySupersede(onlyOld, state, isProtected)).toBe(onlyOld);
  });

  test("a path that stops being protected rejoins the normal pipeline at the next render", () => {
    const state = stateWith(0);
    const messages = twoReads();
    applySupersede(messages, state, isProtected);
    expect(applySupersede(messages, state, () => false)).toBe(messages);
  });
});

describe("applySupersede: the stub", () => {
  test("an errored older read is stubbed with isError false, and an errored newest read still wins", () => {
    const messages = [callTurn(10, "a"), resultOf(11, "a", "boom", { isError: true }), callTurn(20, "b"), resultOf(21, "b", "boom", { isError: true })];
    const out = applySupersede(messages, stateWith(0), isProtected);
    expect(out[1].isError).toBe(false);
    expect(textAt(out, 1)).toBe(supersededStub(SKILL));
    expect(out[3]).toBe(messages[3]);
  });

  test("the stub keeps ids, tool name, timestamp and other fields, replaces the content, and leaves the call alone", () => {
    const messages = [callTurn(10, "a"), resultOf(11, "a", "old", { details: { lines: 3 } }), ...read("b", 20)];
    const out = applySupersede(messages, stateWith(0), isProtected);
    expect(out[1]).toEqual({
      role: "toolResult",
      toolCallId: "a",
      toolName: "read",
      content: [{ type: "text", text: supersededStub(SKILL) }],
      isError: false,
      timestamp: 11,
      details: { lines: 3 },
    });
    expect(out[0]).toBe(messages[0]);
  });

  test("the stub of a backslash read names the normalized path", () => {
    const messages = [...read("a", 10, { path: "\\h\\skills\\x\\SKILL.md" }), ...read("b", 20)];
    expect(textAt(applySupersede(messages, stateWith(0), isProtected), 1)).toContain(`[Superseded: ${SKILL} `);
  });

  test("images of a superseded read go with its text", () => {
    const withImage = { ...resultOf(11, "a"), content: [{ type: "text", text: "x" }, { type: "image", data: "AAAA", mimeType: "image/png" }] };
    const out = applySupersede([callTurn(10, "a"), withImage, ...read("b", 20)], stateWith(0), isProtected);
    expect(out[1].content).toEqual([{ type: "text", text: supersededStub(SKILL) }]);
  });

  test("the stub text is exact, with an ASCII hyphen", () => {
    expect(supersededStub("/p/SKILL.md")).toBe(
      "[Superseded: /p/SKILL.md was read again later in this conversation - see the newer read. Re-read the file if this earlier content is needed.]",
    );
  });
});

describe("the floor helpers", () => {
  test("a fresh state has no floor and nothing activated", () => {
    const state = createSupersedeState();
    expect(state.floor).toBeUndefined();
    expect(state.activated.size).toBe(0);
  });

  test("lowerFloor ignores undefined, sets an unset floor and otherwise keeps the minimum", () => {
    const state = createSupersedeState();
    lowerFloor(state, undefined);
    expect(state.floor).toBeUndefined();
    lowerFloor(state, 30);
    expect(state.floor).toBe(30);
    lowerFloor(state, 40);
    expect(state.floor).toBe(30);
    lowerFloor(state, 0);
    expect(state.floor).toBe(0);
  });

  test("earliestResultTimestamp is the minimum over the defined values", () => {
    expect(earliestResultTimestamp([{ resultTimestamp: 20 }, {}, { resultTimestamp: 7 }])).toBe(7);
    expect(earliestResultTimestamp([{}, {}])).toBeUndefined();
    expect(earliestResultTimestamp([])).toBeUndefined();
  });

  test("earliestChainStart is the minimum start", () => {
    expect(earliestChainStart([{ startUserTimestamp: 300 }, { startUserTimestamp: 100 }])).toBe(100);
    expect(earliestChainStart([])).toBeUndefined();
  });
});
