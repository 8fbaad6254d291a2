// The demo's scripted session: a code tour of this repository. Every tool call is a real pi
// built-in (`read`, `bash`) over the repository's own files; the fake model only decides which.
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import type { ScriptedReply, ScriptedToolCall } from "../test/e2e/fake-llm.js";

export interface DemoScript {
  prompts: string[];
  main: ScriptedReply[];
  toolCalls: number;
  /** The source files the tour reads, repository-relative. */
  files: string[];
}

/** Each prompt of the tour: a topic and the folder of src/ it lives in. */
const TOPICS: ReadonlyArray<[string, string]> = [
  ["render pipeline", "src/render/"],
  ["capture of tool outputs", "src/capture/"],
  ["archive and recovery", "src/archive/"],
  ["summarizer and flush", "src/summarize/"],
  ["chain compression", "src/chains/"],
  ["commands", "src/commands/"],
];

/** Every non-test TypeScript file under src/, at any depth, in path order. */
export function sourceFiles(repoRoot: string): string[] {
  const src = join(repoRoot, "src");
  return readdirSync(src, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"))
    .map((f) => relative(repoRoot, join(src, f)).split("\\").join("/"))
    .sort();
}

const readCall = (path: string): ScriptedToolCall => ({ name: "read", args: { path } });
const bashCall = (command: string): ScriptedToolCall => ({ name: "bash", args: { command } });

/** One prompt: a read turn and an inspect turn over three files, then a short answer. */
function tourStep(topic: string, files: string[]): ScriptedReply[] {
  const list = files.join(" ");
  return [
    { toolCalls: files.map(readCall) },
    { toolCalls: [bashCall(`wc -l ${list}`), bashCall(`grep -n "^export" ${list}`), bashCall(`grep -c "function" ${list}`)] },
    { text: `Reviewed the ${topic}: ${files.join(", ")}.` },
  ];
}

export function buildDemoScript(repoRoot: string): DemoScript {
  const files = sourceFiles(repoRoot);
  const prompts: string[] = ["Survey the repository layout."];
  const main: ScriptedReply[] = [
    { toolCalls: [bashCall("ls -la"), readCall("package.json"), bashCall("ls -R src | head -n 80")] },
    { toolCalls: [bashCall("find src -name '*.ts' ! -name '*.test.ts' | xargs wc -l | tail -n 1"), bashCall("grep -rn \"customType\" index.ts | head -n 20"), readCall("tsconfig.json")] },
    { text: "The repository is a pi extension with its sources under src/." },
  ];
  for (const [topic, folder] of TOPICS) {
    const group = files.filter((f) => f.startsWith(folder)).slice(0, 3);
    if (group.length === 0) continue;
    prompts.push(`Walk me through the ${topic}.`);
    main.push(...tourStep(topic, group));
  }
  prompts.push("Show me again exactly what `ls -la` printed at the start.");
  main.push({ toolCalls: [{ name: "context_tree_query", args: { toolCallIds: ["t1"] } }] }, { text: "That is the original listing, recovered from the index." });
  const toolCalls = main.reduce((n, r) => n + (r.toolCalls?.length ?? 0), 0);
  return { prompts, main, toolCalls, files: main.flatMap((r) => r.toolCalls ?? []).filter((c) => c.name === "read").map((c) => String(c.args.path)) };
}
