/**
 * Recovery benchmark (issue 18): what finding one line in an archived output
 * costs the model. A session archive holds twenty outputs of 2-60 KB (real
 * files of this repository and of pi, read back as `read` results); for ten
 * "find X" questions it counts the characters `context_tree_query` returns
 *   - whole: recovering the output that holds the answer (the model is even
 *     assumed to know which ref it is), following Next pages until the answer
 *     line has come back;
 *   - search: one search over the whole archive with a pattern, no ref named.
 * Target: search returns at least 90% fewer characters, and every answer line
 * (numbered, as the search prints it) is in its answer.
 * Run: bun bench/recovery.ts
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ToolCallIndexer } from "../src/archive/indexer.js";
import { registerQueryTool } from "../src/archive/query-tool.js";
import { reportTargets } from "./targets.js";

const ROOT = join(import.meta.dir, "..");
const PI = "node_modules/@earendil-works/pi-coding-agent";
const MAX_CHARS = 60_000;
const MIN_CHARS = 2_000;

const FILES = [
  "PRUNING.md",
  "README.md",
  "CHANGELOG.md",
  "doc/configuration.md",
  "src/archive/indexer.ts",
  "src/render/stub-replace.ts",
  "src/capture/spill.ts",
  "src/capture/sidecar-read.ts",
  "src/summarize/summarizer.ts",
  "src/capture/persisted-entries.ts",
  "src/types.ts",
  "src/capture/batch-capture.ts",
  "src/chains/chain-compressor.ts",
  "package.json",
  `${PI}/dist/core/tools/bash.js`,
  `${PI}/dist/core/tools/read.js`,
  `${PI}/dist/core/tools/edit-diff.js`,
  `${PI}/dist/core/tools/truncate.js`,
  `${PI}/dist/core/session-manager.js`,
  "node_modules/@earendil-works/pi-ai/dist/types.d.ts",
];

/** Each question: what the model looks for, the pattern it searches with, and the file that answers it. */
const QUESTIONS: Array<{ question: string; pattern: string; file: string }> = [
  { question: "the sidecar read size limit", pattern: "MAX_SIDECAR_READ_BYTES =", file: "src/capture/sidecar-read.ts" },
  { question: "bash's non-zero exit status line", pattern: "Command exited with code", file: `${PI}/dist/core/tools/bash.js` },
  { question: "read's continuation hint", pattern: "more lines in file. Use offset=", file: `${PI}/dist/core/tools/read.js` },
  { question: "edit's no-match error", pattern: "Could not find the exact text in", file: `${PI}/dist/core/tools/edit-diff.js` },
  { question: "the default byte cap of truncation", pattern: "/^export const DEFAULT_MAX_BYTES/", file: `${PI}/dist/core/tools/truncate.js` },
  { question: "where blob directories are named", pattern: "/export function blobDirFor\\(/", file: "src/capture/spill.ts" },
  { question: "the typecheck script", pattern: '"typecheck":', file: "package.json" },
  { question: "the summarizer's hard ceiling", pattern: "SUMMARIZER_HARD_CEILING_MS =", file: "src/summarize/summarizer.ts" },
  { question: "the indexer class", pattern: "/^export class ToolCallIndexer/", file: "src/archive/indexer.ts" },
  { question: "how a custom entry is appended", pattern: "/^\\s+appendCustomEntry\\(/", file: `${PI}/dist/core/session-manager.js` },
];

/** The file as a `read` result: cut to MAX_CHARS at a line end. */
function outputOf(file: string): string {
  const text = readFileSync(join(ROOT, file), "utf8");
  if (text.length <= MAX_CHARS) return text;
  return text.slice(0, text.lastIndexOf("\n", MAX_CHARS) + 1);
}

function archive(): { indexer: ToolCallIndexer; refOf: Map<string, string>; outputs: Map<string, string> } {
  const indexer = new ToolCallIndexer();
  const refOf = new Map<string, string>();
  const outputs = new Map<string, string>();
  FILES.forEach((file, k) => {
    const text = outputOf(file);
    if (text.length < MIN_CHARS) throw new Error(`${file} is under ${MIN_CHARS} characters`);
    const ts = 1_000 + k;
    const id = `read_${k + 1}`;
    indexer.addBatch({ turnIndex: k, timestamp: ts, assistantText: "", toolCalls: [{ toolCallId: id, toolName: "read", args: { path: file }, resultText: text, isError: false, resultTimestamp: ts }] }, () => {});
    indexer.registerSummaryRefs([{ shortId: `t${k + 1}`, toolCallId: id, resultTimestamp: ts }]);
    refOf.set(file, `t${k + 1}`);
    outputs.set(file, text);
  });
  return { indexer, refOf, outputs };
}

function queryTool(indexer: ToolCallIndexer): (params: Record<string, unknown>) => Promise<string> {
  const registered: any[] = [];
  registerQueryTool({ registerTool: (def: any) => registered.push(def) } as any, indexer);
  return async (params) => (await registered[0].execute("bench", params, undefined, undefined, undefined)).content[0].text;
}

/** The answer line the way the search numbers it: the first line of the output the pattern matches. */
function answerLine(output: string, pattern: string): string {
  const expression = /^\/(.+)\/(i?)$/.exec(pattern);
  const matches = expression ? (line: string) => new RegExp(expression[1]!, expression[2]).test(line) : (line: string) => line.includes(pattern);
  const lines = output.split("\n");
  const at = lines.findIndex(matches);
  if (at < 0) throw new Error(`pattern ${pattern} is not in the output`);
  return `${at + 1}: ${lines[at]}`;
}

const NEXT = /Next: context_tree_query\(\{ toolCallIds: \["([^"]+)"\], lines: "([^"]+)" \}\)/;

/** Whole-output recovery: the first page, then Next pages until the answer line's text has come back. */
async function wholeChars(ask: (params: Record<string, unknown>) => Promise<string>, ref: string, lineText: string): Promise<number> {
  let chars = 0;
  let params: Record<string, unknown> = { toolCallIds: [ref] };
  for (;;) {
    const text = await ask(params);
    chars += text.length;
    const next = NEXT.exec(text);
    if (text.includes(lineText) || next === null) return chars;
    params = { toolCallIds: [next[1]], lines: next[2] };
  }
}

const pad = (value: string | number, width: number) => String(value).padStart(width);

async function main(): Promise<void> {
  const { indexer, refOf, outputs } = archive();
  const ask = queryTool(indexer);
  const sizes = [...outputs.values()].map((text) => text.length);
  console.log(`archive: ${FILES.length} outputs, ${Math.min(...sizes)}-${Math.max(...sizes)} chars each, ${sizes.reduce((a, b) => a + b, 0)} chars in all`);
  console.log(`${"question".padEnd(38)} ${"ref".padStart(4)} ${"whole".padStart(8)} ${"search".padStart(8)} ${"saved".padStart(7)}  answer line`);
  let whole = 0;
  let search = 0;
  let included = 0;
  for (const q of QUESTIONS) {
    const ref = refOf.get(q.file)!;
    const line = answerLine(outputs.get(q.file)!, q.pattern);
    const wholeCount = await wholeChars(ask, ref, line.slice(line.indexOf(": ") + 2));
    const answer = await ask({ pattern: q.pattern });
    const found = answer.includes(`## toolRef: ${ref}`) && answer.includes(line);
    whole += wholeCount;
    search += answer.length;
    if (found) included += 1;
    const saved = `${((1 - answer.length / wholeCount) * 100).toFixed(1)}%`;
    console.log(`${q.question.padEnd(38)} ${pad(ref, 4)} ${pad(wholeCount, 8)} ${pad(answer.length, 8)} ${pad(saved, 7)}  ${found ? "included" : "MISSING"}`);
  }
  const fewer = (1 - search / whole) * 100;
  console.log(`${"total".padEnd(38)} ${pad("", 4)} ${pad(whole, 8)} ${pad(search, 8)} ${pad(`${fewer.toFixed(1)}%`, 7)}  ${included}/${QUESTIONS.length} included`);
  reportTargets([
    { name: `search returns at least 90% fewer characters than whole-output recovery (${fewer.toFixed(1)}% fewer)`, met: fewer >= 90 },
    { name: `every answer line is in its search answer (${included}/${QUESTIONS.length})`, met: included === QUESTIONS.length },
  ]);
}

await main();
