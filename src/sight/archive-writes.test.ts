import { describe, expect, test } from "bun:test";
import { CUSTOM_TYPE_DEDUP_ALIAS, CUSTOM_TYPE_INDEX, CUSTOM_TYPE_STATS } from "../names.js";
import { archiveWrites } from "./archive-writes.js";

const message = (role: string, timestamp: number, content: unknown = "x") => ({ type: "message", message: { role, content, timestamp } });
const index = (...calls: Array<[string, number]>) => ({ type: "custom", customType: CUSTOM_TYPE_INDEX, data: { toolCalls: calls.map(([toolCallId, resultTimestamp]) => ({ toolCallId, resultTimestamp })) } });
const alias = (id: string, ts: number) => ({ type: "custom", customType: CUSTOM_TYPE_DEDUP_ALIAS, data: { newToolCallId: id, newResultTimestamp: ts, originalToolCallId: "o" } });
const toolTurn = [{ type: "toolCall", id: "a", name: "read", arguments: {} }];

describe("the archive writes of a branch", () => {
  test("entries that follow one another are one write at the newest message before them", () => {
    const writes = archiveWrites([message("user", 1), message("toolResult", 3), index(["a", 3]), alias("b", 3), { type: "custom", customType: CUSTOM_TYPE_STATS, data: {} }, message("assistant", 5, toolTurn), index(["c", 6])]);
    expect(writes).toEqual([
      { at: 3, keys: ["a@3", "b@3"] },
      { at: 5, keys: ["c@6"] },
    ]);
  });

  test("a write followed by the final text reply is read at the reply, the end of the run it archived", () => {
    const writes = archiveWrites([message("user", 1), message("toolResult", 3), index(["a", 3]), message("assistant", 9, [{ type: "text", text: "done" }])]);
    expect(writes).toEqual([{ at: 9, keys: ["a@3"] }]);
  });

  test("a write followed by another tool turn keeps its own horizon", () => {
    const writes = archiveWrites([message("user", 1), message("toolResult", 3), index(["a", 3]), message("assistant", 9, toolTurn)]);
    expect(writes[0]!.at).toBe(3);
  });

  test("entries of the wrong shape are passed over", () => {
    expect(archiveWrites([message("user", 1), { type: "custom", customType: CUSTOM_TYPE_INDEX, data: { toolCalls: "no" } }, null, 7, index([5 as unknown as string, 1])])).toEqual([
      { at: 1, keys: [] },
    ]);
  });

  test("only the entries before `end` count", () => {
    expect(archiveWrites([message("user", 1), index(["a", 1]), message("user", 2), index(["b", 2])], 2)).toEqual([{ at: 1, keys: ["a@1"] }]);
  });
});
