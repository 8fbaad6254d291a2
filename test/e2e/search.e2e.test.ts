// Real pi 1.6.0 + pi-condense: searching the archive (issue 18). A file read early in the session is
// pruned to a stub that keeps its digest (file name, line count, the first names it declares); later the scripted model searches every
// archived output for a string from that read and gets back the numbered line with a little context, not
// the file.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { disposeSandbox, mainRequests, makeSandbox, runPrint, sessionEntries, type Sandbox } from "./harness.js";
import { problems, read, say } from "./scenario-kit.js";
import { toolMessages } from "./wire-view.js";

const FILE = "src/config.ts";
const NEEDLE = "export const RETRY_LIMIT = 7; // needle-42";
const LINES = Array.from({ length: 400 }, (_, i) => (i === 299 ? NEEDLE : `export const setting${i + 1} = ${i + 1};`));
const STUB = `[\`t1\` archived: config.ts: 400 lines; setting1 setting2 setting3 setting4 setting5 setting6 setting7]`;

describe("the model searches the archive for a line of an early, pruned read (issue 18)", () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await makeSandbox({
      contextPrune: { enabled: true, minBatchChars: 0 },
      script: {
        main: [read(FILE), say("Read it."), { toolCalls: [{ name: "context_tree_query", args: { pattern: "needle-42" } }] }, say("RETRY_LIMIT is 7.")],
      },
    });
    mkdirSync(join(sb.projectDir, "src"), { recursive: true });
    writeFileSync(join(sb.projectDir, FILE), `${LINES.join("\n")}\n`);
    const run = await runPrint(sb, ["read the config", "what is the retry limit?"]);
    expect(run.code).toBe(0);
  });
  afterAll(() => disposeSandbox(sb));

  test("the early read reaches the model as a stub that keeps its file name, line count and first declared names", () => {
    const requests = mainRequests(sb);
    expect(requests).toHaveLength(4);
    expect(toolMessages(requests[2]!)[0]!.text).toBe(STUB);
  });

  test("the search answer holds the numbered line and its context, not the file", () => {
    const answer = toolMessages(mainRequests(sb)[3]!).at(-1)!.text;
    expect(answer).toContain(`300: ${NEEDLE}`);
    expect(answer).toContain("298- export const setting298 = 298;");
    expect(answer).not.toContain("setting10 = 10;");
    expect(answer.length).toBeLessThan(1_000);
    expect(answer.startsWith('Search for literal "needle-42" over 1 archived output: 1 matching line in 1 output')).toBe(true);
  });

  test("the search is recorded with its facts only, and no request was rejected or orphaned", () => {
    const result = sessionEntries(sb).find((e) => e.type === "message" && e.message.role === "toolResult" && e.message.toolName === "context_tree_query");
    expect(result.message.details.results.t1).toMatchObject({ shortRef: "t1", toolName: "read", matches: 1, shownMatches: 1 });
    expect(JSON.stringify(result.message.details)).not.toContain("needle-42");
    expect(problems(sb)).toEqual([]);
  });
});
