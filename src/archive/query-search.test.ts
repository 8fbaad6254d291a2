import { afterAll, describe, expect, spyOn, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ToolCallIndexer } from "./indexer.js";
import { compilePattern } from "./line-pattern.js";
import { registerQueryTool } from "./query-tool.js";
import { formatSearch, SEARCH_CHAR_CAP, searchOutputs, type SearchTarget } from "./query-search.js";
import { writeSidecar } from "../capture/spill.js";
import { CUSTOM_TYPE_INDEX } from "../names.js";
import type { ToolCallRecord } from "../capture/records.js";

const noop = () => {};
const rows = (n: number, line: (i: number) => string) => Array.from({ length: n }, (_, i) => line(i + 1)).join("\n");

/** An index holding each text as an archived output with ref t1, t2, … in order (timestamps 101, 102, …). */
function archive(...texts: string[]): ToolCallIndexer {
  const indexer = new ToolCallIndexer();
  texts.forEach((text, k) => {
    const ts = 101 + k;
    indexer.addBatch({ turnIndex: k, timestamp: ts, assistantText: "", toolCalls: [{ toolCallId: `c${k + 1}`, toolName: "read", args: { path: `f${k + 1}.ts` }, resultText: text, isError: false, resultTimestamp: ts }] }, noop);
    indexer.registerSummaryRefs([{ shortId: `t${k + 1}`, toolCallId: `c${k + 1}`, resultTimestamp: ts }]);
  });
  return indexer;
}

async function ask(indexer: ToolCallIndexer, params: Record<string, unknown>, ctx?: unknown) {
  const registered: any[] = [];
  registerQueryTool({ registerTool: (def: any) => registered.push(def) } as any, indexer);
  return registered[0].execute("q", params, undefined, undefined, ctx);
}
const textOf = (result: any): string => result.content[0].text;

const tempDirs: string[] = [];
afterAll(async () => {
  await Promise.all(tempDirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe("searching named refs", () => {
  const file = rows(400, (i) => (i === 120 ? "export const NEEDLE = 42;" : `const line${i} = ${i};`));

  test("only the matching line comes back, numbered, with two lines of context each side", async () => {
    const text = textOf(await ask(archive(file), { toolCallIds: ["t1"], pattern: "NEEDLE" }));
    expect(text).toBe(
      [
        "## toolRef: t1",
        'Tool: read · Status: OK · Args: {"path":"f1.ts"}',
        '1 matching line of 400 for literal "NEEDLE"',
        "118- const line118 = 118;",
        "119- const line119 = 119;",
        "120: export const NEEDLE = 42;",
        "121- const line121 = 121;",
        "122- const line122 = 122;",
      ].join("\n"),
    );
    expect(text.length).toBeLessThan(file.length / 20);
  });

  test("an expression between slashes matches as a regular expression, i ignoring case", async () => {
    const text = textOf(await ask(archive(file), { toolCallIds: ["t1"], pattern: "/^export const [a-z]+ =/i" }));
    expect(text).toContain("120: export const NEEDLE = 42;");
    expect(text).toContain("for expression /^export const [a-z]+ =/i");
  });

  test("matches close together share one group; groups are separated by --", async () => {
    const text = textOf(await ask(archive(rows(50, (i) => (i === 10 || i === 12 || i === 40 ? `hit ${i}` : `row ${i}`))), { toolCallIds: ["t1"], pattern: "hit" }));
    expect(text).toContain("10: hit 10\n11- row 11\n12: hit 12\n13- row 13\n14- row 14\n--\n38- row 38");
  });

  test("lines narrows the search to a range, and tail:N to the last lines", async () => {
    const indexer = archive(rows(100, (i) => `hit ${i}`));
    expect(textOf(await ask(indexer, { toolCallIds: ["t1"], pattern: "hit", lines: "50-51" }))).toContain("2 matching lines (lines 50-51 of 100 searched)");
    expect(textOf(await ask(indexer, { toolCallIds: ["t1"], pattern: "hit 9", lines: "tail:5" }))).toContain("96: hit 96");
  });

  test("a line range past the end is a clear note", async () => {
    expect(textOf(await ask(archive("a\nb"), { toolCallIds: ["t1"], pattern: "a", lines: "10-" }))).toContain('[lines "10-" starts past the end: this output has 2 lines]');
  });

  test("a ref that does not exist is named as not found", async () => {
    const text = textOf(await ask(archive("a"), { toolCallIds: ["t1", "t9"], pattern: "a" }));
    expect(text).toContain("## toolRef: t9\n(not found in index — may not have been summarized yet)");
  });

  test("no match says so, and a literal that looks like an expression gets a hint", async () => {
    const text = textOf(await ask(archive("foo = 1"), { toolCallIds: ["t1"], pattern: "foo.*bar" }));
    expect(text).toContain('0 matching lines of 1 for literal "foo.*bar"');
    expect(text).toContain("(The pattern was searched as a literal string; write /foo.*bar/ for a regular expression.)");
  });

  test("a bad regular expression is a clear answer, not a throw", async () => {
    const result = await ask(archive("a"), { toolCallIds: ["t1"], pattern: "/(a/" });
    expect(textOf(result)).toBe('[pattern "/(a/" is not usable: a "(" is not closed]');
    expect(result.details).toEqual({ results: {} });
  });

  test("a catastrophic-backtracking expression over a long output answers (no backtracking engine)", async () => {
    const text = textOf(await ask(archive(rows(200, () => `${"a".repeat(2000)}!`)), { toolCallIds: ["t1"], pattern: "/(a+)+$/" }));
    expect(text).toContain("0 matching lines of 200");
  });

  test("a binary original is not searched, and says so", async () => {
    const text = textOf(await ask(archive("PNG\u0000\u0001\u0002 IHDR needle"), { toolCallIds: ["t1"], pattern: "needle" }));
    expect(text).toContain("(binary output, not searched)");
    expect(text).not.toContain("IHDR");
  });

  test("an image original is searched by its marker line and returns no image blocks", async () => {
    const result = await ask(archive("[image returned: image/png sha256:0123abcd]\nRead image file [image/png]"), { toolCallIds: ["t1"], pattern: "image/png" });
    expect(result.content).toHaveLength(1);
    expect(textOf(result)).toContain("1: [image returned: image/png sha256:0123abcd]");
  });

  test("details hold the match counts, never the text", async () => {
    const result = await ask(archive(file), { toolCallIds: ["t1"], pattern: "NEEDLE" });
    expect(result.details.results.t1).toMatchObject({ shortRef: "t1", matches: 1, shownMatches: 1, truncated: false, originalChars: file.length });
    expect(JSON.stringify(result.details)).not.toContain("NEEDLE");
  });
});

describe("searching the whole archive", () => {
  test("without refs every archived output is searched, most matches first", async () => {
    const indexer = archive("nothing here", "one hit", "hit\nhit\nhit", "hit hit");
    const text = textOf(await ask(indexer, { pattern: "hit" }));
    expect(text.startsWith('Search for literal "hit" over 4 archived outputs: 5 matching lines in 3 outputs, most matches first.')).toBe(true);
    const order = [...text.matchAll(/## toolRef: (t\d+)/g)].map((m) => m[1]);
    expect(order).toEqual(["t3", "t4", "t2"]);
  });

  test("an archived answer of context_tree_query itself is left out, so a search never echoes earlier searches", async () => {
    const indexer = archive("hit in a file");
    indexer.addBatch({ turnIndex: 9, timestamp: 900, assistantText: "", toolCalls: [{ toolCallId: "q1", toolName: "context_tree_query", args: { pattern: "hit" }, resultText: "1: hit in a file", isError: false, resultTimestamp: 900 }] }, noop);
    const text = textOf(await ask(indexer, { pattern: "hit" }));
    expect(text.startsWith('Search for literal "hit" over 1 archived output: 1 matching line in 1 output')).toBe(true);
    expect(text).not.toContain("q1");
  });

  test("no match anywhere says how many outputs were searched", async () => {
    expect(textOf(await ask(archive("a", "b"), { pattern: "zzz" }))).toBe('No archived output of this session matches literal "zzz" (2 archived outputs searched).');
  });

  test("a pattern that matches everything in a 60 MB archive comes back capped, saying what was cut", async () => {
    const big = rows(30_000, (i) => `line ${i} ${"x".repeat(90)}`);
    const indexer = archive(...Array.from({ length: 20 }, () => big));
    const result = await ask(indexer, { pattern: "x" });
    const text = textOf(result);
    expect(20 * big.length).toBeGreaterThan(60_000_000);
    expect(text.length).toBeLessThan(SEARCH_CHAR_CAP + 1_000);
    expect(text).toMatch(/\[\d+ more matches not shown, from line \d+; next: context_tree_query\(\{ toolCallIds: \["t\d+"\], pattern: "x", lines: "\d+-" \}\)\]/);
    expect(text).toMatch(/\[\d+ more outputs with \d+ more matches not shown \(answer capped at 8000 characters\); name refs or narrow the pattern\]/);
  });

  test("without refs or a pattern the answer says how to ask", async () => {
    expect(textOf(await ask(archive("a"), {}))).toContain("Pass toolCallIds");
  });

  test("spilled originals are read from this session's own archive only", async () => {
    const dir = await mkdtemp(join(tmpdir(), "query-search-"));
    tempDirs.push(dir);
    const own = await writeSidecar(dir, "sid", "big@5", "own secret line");
    const other = await writeSidecar(dir, "other", "far@6", "other session secret");
    const record = (id: string, ts: number, spillPath: string): ToolCallRecord => ({ toolCallId: id, toolName: "bash", args: {}, resultText: "", isError: false, turnIndex: 0, timestamp: ts, resultTimestamp: ts, spillPath, resultPreview: "preview only" });
    const indexer = new ToolCallIndexer();
    indexer.reconstructFromSession({ sessionManager: { getBranch: () => [{ type: "custom", customType: CUSTOM_TYPE_INDEX, data: { toolCalls: [record("big", 5, own), record("far", 6, other)] } }] } } as any);
    const ctx = { sessionManager: { getSessionDir: () => dir, getSessionId: () => "sid", getBranch: () => [] } };
    const errors = spyOn(console, "error").mockImplementation(() => {});
    try {
      const text = textOf(await ask(indexer, { pattern: "secret" }, ctx));
      expect(text).toContain("1: own secret line");
      expect(text).not.toContain("other session secret");
    } finally {
      errors.mockRestore();
    }
  });
});

describe("the time budget", () => {
  test("a search that runs out of time stops and says how much it did not search", () => {
    const compiled = compilePattern("x");
    if (!compiled.ok) throw new Error(compiled.error);
    const target = (label: string): SearchTarget => ({ label, toolName: "bash", args: {}, isError: false, time: 1, text: "x" });
    let now = 0;
    const clock = () => (now += 1_500);
    const run = searchOutputs([target("t1"), target("t2"), target("t3")], compiled.pattern, undefined, clock);
    expect(run.unsearched).toBeGreaterThan(0);
    expect(formatSearch(run, compiled.pattern, "x", false).text).toContain(`more outputs were not searched; name refs to search them]`);
  });
});
