import { describe, expect, test } from "bun:test";
import { recordsFromTranscript } from "./index-branch-walk.js";

const message = (m: Record<string, unknown>) => ({ type: "message", message: m });
const call = (id: string, ts: number) => message({ role: "assistant", content: [{ type: "toolCall", id, name: "bash", arguments: { command: id } }], timestamp: ts });
const result = (id: string, ts: number, text: string) => message({ role: "toolResult", toolCallId: id, toolName: "bash", content: [{ type: "text", text }], isError: false, timestamp: ts });

describe("records rebuilt from the transcript (a summary whose index line was lost)", () => {
  test("an output is rebuilt with its own text", () => {
    const [record] = recordsFromTranscript([call("c1", 10), result("c1", 11, "one")], new Set(["c1@11"]));
    expect(record).toMatchObject({ toolCallId: "c1", resultText: "one", resultTimestamp: 11 });
  });

  test("a key two results carry is not rebuilt: which one the summary named cannot be told", () => {
    const branch = [call("c1", 10), result("c1", 11, "one"), call("c1", 20), result("c1", 11, "two")];
    expect(recordsFromTranscript(branch, new Set(["c1@11"]))).toEqual([]);
  });
});
