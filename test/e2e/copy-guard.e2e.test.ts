// Real pi 1.6.0 + pi-condense: after a finished edit's texts are sent as argument markers, a `write` whose
// content copies one of those markers is blocked by pi-condense's `tool_call` hook before pi's write tool runs:
// the file is never written, the agent reads why and how to recover the original, and the run goes on.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { RecordedRequest, ScriptedReply } from "./fake-llm.js";
import { disposeSandbox, mainRequests, makeSandbox, runPrint, sessionEntries, type Sandbox } from "./harness.js";
import { APIS, problems, say } from "./scenario-kit.js";

const MARKER = /⟦pi-condense: [^⟧\n]*⟧/;
const OLD = Array.from({ length: 20 }, (_, i) => `export const value${i} = ${i} * 2; // original line`).join("\n");
const NEW = OLD.replaceAll("original", "revised");

/** The first argument marker the request shows, from the raw body (both wires carry arguments as JSON). */
function markerIn(req: RecordedRequest): string | undefined {
  const found = MARKER.exec(JSON.stringify(req.body).replaceAll('\\"', '"'));
  return found?.[0];
}

/** Prompt 2's first reply: a write whose content is the marker the request shows, as a model imitating it would send. */
function copyTheMarker(req: RecordedRequest): ScriptedReply {
  const marker = markerIn(req) ?? "no marker in the request";
  return { toolCalls: [{ name: "write", args: { path: "copy.ts", content: `// restored\n${marker}\n` } }] };
}

const script = () => ({
  main: [
    { toolCalls: [{ name: "edit", args: { path: "values.ts", edits: [{ oldText: OLD, newText: NEW }] } }] } as ScriptedReply,
    say("Edited values.ts."),
    copyTheMarker,
    say("I will recover the original first."),
  ],
});

for (const api of APIS) {
  describe(`the copy guard through real pi (${api})`, () => {
    let sb: Sandbox;
    let code: number;
    beforeAll(async () => {
      sb = await makeSandbox({ api, contextPrune: { enabled: true, minBatchChars: 0 }, script: script() });
      writeFileSync(join(sb.projectDir, "values.ts"), `${OLD}\n`);
      code = (await runPrint(sb, ["revise values.ts", "now copy it"], [], { timeoutMs: 60_000 })).code;
    });
    afterAll(() => disposeSandbox(sb));

    const writeResult = () => sessionEntries(sb).find((e) => e.type === "message" && e.message.role === "toolResult" && e.message.toolName === "write")?.message;

    test("the edit really ran and the next prompt's request shows its texts as markers", () => {
      expect(code).toBe(0);
      expect(problems(sb)).toEqual([]);
      expect(readFileSync(join(sb.projectDir, "values.ts"), "utf8")).toBe(`${NEW}\n`);
      const third = mainRequests(sb)[2]!;
      expect(markerIn(third)).toMatch(/^⟦pi-condense: edits\[0\]\.(old|new)Text archived \(20 lines\) as t\d+/);
      expect(JSON.stringify(third.body)).not.toContain("original line");
    });

    test("the write copying the marker is blocked: no file, and the agent is told how to recover the original", () => {
      expect(existsSync(join(sb.projectDir, "copy.ts"))).toBe(false);
      const result = writeResult();
      expect(result?.isError).toBe(true);
      const text = JSON.stringify(result?.content);
      expect(text).toContain("pi-condense blocked this write");
      expect(text).toMatch(/context_tree_query\(\{ toolCallIds: \[\\"t\d+\\"\] \}\)/);
    });

    test("the run goes on after the blocked call", () => {
      const last = sessionEntries(sb).filter((e) => e.type === "message" && e.message.role === "assistant").at(-1);
      expect(last.message.stopReason).toBe("stop");
      expect(mainRequests(sb)).toHaveLength(4);
    });
  });
}
