// The demo's scripted session: a code tour of this repository. Every tool call is a real pi
// built-in (`read`, `bash`) over the repository's own files; the fake model only decides which.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import type { ScriptedReply, ScriptedToolCall } from "../test/e2e/fake-llm.js";

export interface DemoScript {
  prompts: string[];
  main: ScriptedReply[];
  toolCalls: number;
}

const TOPICS = ["render pipeline", "capture and index", "summarizer and budget", "chains and metrics", "commands and status", "flush orchestration"];

function sourceFiles(repoRoot: string): string[] {
  return readdirSync(join(repoRoot, "src"))
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"))
    .sort()
    .map((f) => `src/${f}`);
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
    { toolCalls: [bashCall("ls -la"), readCall("package.json"), bashCall("ls src | head -n 80")] },
    { toolCalls: [bashCall("wc -l index.ts src/*.ts | tail -n 1"), bashCall("grep -rn \"customType\" index.ts | head -n 20"), readCall("tsconfig.json")] },
    { text: "The repository is a pi extension with its sources under src/." },
  ];
  TOPICS.forEach((topic, i) => {
    const group = files.slice(i * 3, i * 3 + 3);
    if (group.length === 0) return;
    prompts.push(`Walk me through the ${topic}.`);
    main.push(...tourStep(topic, group));
  });
  prompts.push("Show me again exactly what `ls -la` printed at the start.");
  main.push({ toolCalls: [{ name: "context_tree_query", args: { toolCallIds: ["t1"] } }] }, { text: "That is the original listing, recovered from the index." });
  const toolCalls = main.reduce((n, r) => n + (r.toolCalls?.length ?? 0), 0);
  return { prompts, main, toolCalls };
}
