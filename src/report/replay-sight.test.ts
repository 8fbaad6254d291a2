// `/pruner report` shows what the agent went back for as a recorded session ran (issue 42, point 3): the same
// count live sight keeps, read off the session file, in the text, the HTML page and the JSON.
import { describe, expect, test } from "bun:test";
import { getBuiltinModel } from "@earendil-works/pi-ai/providers/all";
import { costModelFor } from "../economics/cost-model.js";
import { DEFAULT_CONFIG } from "../settings/config-shape.js";
import { CUSTOM_TYPE_INDEX, QUERY_TOOL_NAME } from "../names.js";
import { recordedSession } from "../../test/recorded-session.js";
import { replaySession } from "./replay.js";
import { reportText } from "./text-report.js";
import { reportHtml } from "./html-report.js";
import { reportJson } from "../cli/report-json.js";

function catalog(provider: string | undefined, id: string | undefined) {
  const model = provider && id ? (getBuiltinModel as any)(provider, id) : undefined;
  return { cost: costModelFor(model), contextWindow: model?.contextWindow };
}

const usage = { input: 100, output: 20, cacheRead: 5_000, cacheWrite: 200, totalTokens: 5_320, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
const SOURCE = Array.from({ length: 50 }, (_, i) => `const v${i} = ${i};`).join("\n");

/** A read archived as t1 at its prompt's end; then, if `recover`, a query of t1 and a re-read of the file. */
function session(recover: boolean) {
  const { entries, add } = recordedSession();
  add({ role: "user", content: [{ type: "text", text: "read a" }] });
  add({ role: "assistant", content: [{ type: "toolCall", id: "r1", name: "read", arguments: { path: "src/a.ts" } }], stopReason: "toolUse", usage });
  add({ role: "toolResult", toolCallId: "r1", toolName: "read", content: [{ type: "text", text: SOURCE }], isError: false });
  add({ role: "assistant", content: [{ type: "text", text: "read it" }], stopReason: "stop", usage });
  const ts = (entries[2] as any).message.timestamp;
  entries.push({ type: "custom", id: "x1", parentId: entries.at(-1)!.id, timestamp: new Date().toISOString(), customType: CUSTOM_TYPE_INDEX, data: { toolCalls: [{ toolCallId: "r1", toolName: "read", args: { path: "src/a.ts" }, resultText: SOURCE, isError: false, turnIndex: 0, timestamp: ts, resultTimestamp: ts }], refs: [{ shortId: "t1", toolCallId: "r1", resultTimestamp: ts }] } } as any);
  add({ role: "user", content: [{ type: "text", text: "again" }] });
  if (recover) {
    add({ role: "assistant", content: [{ type: "toolCall", id: "q1", name: QUERY_TOOL_NAME, arguments: { toolCallIds: ["t1"] } }], stopReason: "toolUse", usage });
    add({ role: "toolResult", toolCallId: "q1", toolName: QUERY_TOOL_NAME, content: [{ type: "text", text: SOURCE }], isError: false });
    add({ role: "assistant", content: [{ type: "toolCall", id: "r2", name: "read", arguments: { path: "src/a.ts" } }], stopReason: "toolUse", usage });
    add({ role: "toolResult", toolCallId: "r2", toolName: "read", content: [{ type: "text", text: SOURCE }], isError: false });
  }
  add({ role: "assistant", content: [{ type: "text", text: "done" }], stopReason: "stop", usage });
  return entries;
}

const replay = (recover: boolean) =>
  replaySession({ sessionId: "s", branch: session(recover), problems: [], config: { ...DEFAULT_CONFIG, enabled: true }, overrides: [], costModelOf: catalog });

describe("live sight in the report of a recorded session", () => {
  test("counts a context_tree_query call and a re-read of an archived read, priced at the session model", async () => {
    const report = await replay(true);
    expect(report.sight).toMatchObject({ outputs: 2, refs: ["t1"], extraRequests: 2, byKind: { query: 1, "re-read": 1, "failed-edit": 0 } });
    expect(report.sight!.dollars).toBeGreaterThan(0);
  });

  test("the text says it beside the estimate, in the words /pruner stats uses", async () => {
    const text = reportText(await replay(true), "s.jsonl").replace(/\n\s+/g, " ");
    expect(text).toMatch(/as the session ran, the agent went back for 2 archived outputs in it \(t1\): about \$[\d.]+ and 2 extra requests \(1 context_tree_query call, 1 read of a file read before\)/);
  });

  test("a session where the agent went back for nothing says so", async () => {
    const text = reportText(await replay(false), "s.jsonl").replace(/\n\s+/g, " ");
    expect(text).toContain("as the session ran, the agent went back for no archived output in it");
  });

  test("the HTML page and the JSON carry the same count", async () => {
    const report = await replay(true);
    expect(reportHtml(report, "s.jsonl")).toContain('<p id="sight">as the session ran, the agent went back for 2 archived outputs in it (t1)');
    expect(reportJson(report, "s.jsonl", []).sight).toMatchObject({ outputs: 2, refs: ["t1"], extraRequests: 2, byKind: { query: 1, "re-read": 1, "failed-edit": 0 } });
  });

  test("a session pi-condense never ran in gets no such line", async () => {
    const { entries, add } = recordedSession();
    add({ role: "user", content: [{ type: "text", text: "hi" }] });
    add({ role: "assistant", content: [{ type: "text", text: "hello" }], stopReason: "stop", usage });
    const report = await replaySession({ sessionId: "s", branch: entries, problems: [], config: { ...DEFAULT_CONFIG, enabled: true }, overrides: [], costModelOf: catalog });
    expect(report.sight).toBeUndefined();
    expect(reportText(report, "s.jsonl")).not.toContain("went back");
  });
});
