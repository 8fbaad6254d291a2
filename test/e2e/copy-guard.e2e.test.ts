// Real pi 1.6.0 + pi-condense: after a finished edit's texts are sent as argument markers, a `write` whose
// content copies one of those markers is blocked by pi-condense's `tool_call` hook before pi's write tool runs:
// the file is never written, the agent reads why and how to recover the original, and the run goes on.
// The alias case: pi answers two edits of one file alike, so the second (same new text, another old text) is
// archived as a dedup alias of the first; its call is never shown the first edit's marker, and the marker the
// request shows is blocked when copied.
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

// ---------------------------------------------------------------------------
// Two edits of one file with the same new text: the second is a dedup alias of the first.
// ---------------------------------------------------------------------------

const DRAFT_A = Array.from({ length: 20 }, (_, i) => `// draft A, line ${i}`).join("\n");
const DRAFT_B = Array.from({ length: 10 }, (_, i) => `// draft B, line ${i}`).join("\n");
const FINAL = Array.from({ length: 20 }, (_, i) => `export const value${i} = ${i} * 3; // final line`).join("\n");

/** The arguments of every `edit` call the request carries, in order, on either wire. */
function editCallsIn(req: RecordedRequest): any[] {
  return (req.body.messages ?? []).flatMap((m: any) => [
    ...(m.tool_calls ?? []).filter((c: any) => c.function?.name === "edit").map((c: any) => JSON.parse(c.function.arguments)),
    ...(Array.isArray(m.content) ? m.content : []).filter((b: any) => b?.type === "tool_use" && b.name === "edit").map((b: any) => b.input),
  ]);
}

/** Prompt 3's first reply: a write copying the marker the second edit's call shows, else the first edit's new-text marker. */
function copyTheAliasMarker(req: RecordedRequest): ScriptedReply {
  const [first, second] = editCallsIn(req).map((args) => args.edits?.[0]?.newText as string);
  const marker = [second, first].find((text) => text !== undefined && MARKER.test(text)) ?? "no marker in the request";
  return { toolCalls: [{ name: "write", args: { path: "copy.ts", content: `// restored\n${marker}\n` } }] };
}

const aliasScript = () => ({
  main: [
    { toolCalls: [{ name: "edit", args: { path: "values.ts", edits: [{ oldText: DRAFT_A, newText: FINAL }] } }] } as ScriptedReply,
    say("Replaced draft A."),
    { toolCalls: [{ name: "edit", args: { path: "values.ts", edits: [{ oldText: DRAFT_B, newText: FINAL }] } }] } as ScriptedReply,
    say("Replaced draft B."),
    copyTheAliasMarker,
    say("I will recover the original first."),
  ],
});

for (const api of APIS) {
  describe(`the copy guard and a dedup alias of an edit, through real pi (${api})`, () => {
    let sb: Sandbox;
    let code: number;
    beforeAll(async () => {
      sb = await makeSandbox({ api, contextPrune: { enabled: true, minBatchChars: 0 }, script: aliasScript() });
      writeFileSync(join(sb.projectDir, "values.ts"), `${DRAFT_A}\n${DRAFT_B}\n`);
      code = (await runPrint(sb, ["replace draft A", "replace draft B", "now copy it"], [], { timeoutMs: 60_000 })).code;
    });
    afterAll(() => disposeSandbox(sb));

    test("both edits ran, and the second was archived as a dedup alias of the first", () => {
      expect(code).toBe(0);
      expect(problems(sb)).toEqual([]);
      expect(readFileSync(join(sb.projectDir, "values.ts"), "utf8")).toBe(`${FINAL}\n${FINAL}\n`);
      expect(sessionEntries(sb).filter((e) => e.type === "custom" && e.customType === "context-prune-dedup-alias")).toHaveLength(1);
    });

    test("each edit's new text is sent as written or as a marker describing that very edit", () => {
      const [first, second] = editCallsIn(mainRequests(sb)[4]!).map((args) => args.edits[0]);
      expect(first.newText).toMatch(/^⟦pi-condense: edits\[0\]\.newText archived \(20 lines\) as t\d+, -20 \+20 lines/);
      expect(second.oldText).toBe(DRAFT_B);
      if (MARKER.test(second.newText)) expect(second.newText).toContain("-10 +20 lines");
      else expect(second.newText).toBe(FINAL);
    });

    test("the write copying a marker the request shows is blocked, and the run goes on", () => {
      expect(existsSync(join(sb.projectDir, "copy.ts"))).toBe(false);
      const result = sessionEntries(sb).find((e) => e.type === "message" && e.message.role === "toolResult" && e.message.toolName === "write")?.message;
      expect(result?.isError).toBe(true);
      expect(JSON.stringify(result?.content)).toContain("pi-condense blocked this write");
      const last = sessionEntries(sb).filter((e) => e.type === "message" && e.message.role === "assistant").at(-1);
      expect(last.message.stopReason).toBe("stop");
    });
  });
}
