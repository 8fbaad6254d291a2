// The five session shapes of the session bench, scripted for the loopback provider. Every tool call is a
// real pi built-in (`read`, `bash`, `edit`) over real files of this repository and node_modules; the fake
// model only decides which. A shape is one pi session; a prompt may come after an idle pause.
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { ScriptedReply, ScriptedToolCall } from "../test/e2e/fake-llm.js";

export type ShapeId = "a" | "b" | "c" | "d" | "e";

export interface ShapePrompt {
  text: string;
  /** The user is away this long before sending it (to let the prompt cache expire). */
  pauseBeforeMs: number;
}

export interface Shape {
  id: ShapeId;
  title: string;
  prompts: ShapePrompt[];
  main: ScriptedReply[];
}

export interface ShapeOptions {
  repoRoot: string;
  /** A writable directory for shape e's edited copies. */
  workDir: string;
  /** Longer than the simulated cache lifetime: shape d's idle gap. */
  idleMs: number;
  quick: boolean;
}

const readCall = (path: string, limit?: number): ScriptedToolCall => ({ name: "read", args: limit ? { path, limit } : { path } });
const bashCall = (command: string): ScriptedToolCall => ({ name: "bash", args: { command } });
const editCall = (path: string, oldText: string, newText: string): ScriptedToolCall => ({ name: "edit", args: { path, edits: [{ oldText, newText }] } });
const turn = (...calls: ScriptedToolCall[]): ScriptedReply => ({ toolCalls: calls });
const reply = (text: string): ScriptedReply => ({ text });
const prompt = (text: string, pauseBeforeMs = 0): ShapePrompt => ({ text, pauseBeforeMs });

function walk(dir: string, keep: (file: string) => boolean): string[] {
  const entries = readdirSync(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile() && keep(e.name))
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

/** The repository's source modules (tests left out), as paths relative to the repository. */
export function sourceFiles(repoRoot: string): string[] {
  return walk(join(repoRoot, "src"), (f) => f.endsWith(".ts") && !f.endsWith(".test.ts")).map((f) => relative(repoRoot, f));
}

function dependencyFiles(repoRoot: string): string[] {
  const docs = walk(join(repoRoot, "node_modules/@earendil-works/pi-coding-agent/docs"), (f) => f.endsWith(".md"));
  const types = walk(join(repoRoot, "node_modules/@earendil-works/pi-ai/dist"), (f) => f.endsWith(".d.ts") && !f.includes("models.generated"));
  return [...docs, ...types].map((f) => relative(repoRoot, f));
}

/** `count` files, cycling when the list is shorter. */
const pick = (files: string[], from: number, count: number) => Array.from({ length: count }, (_, i) => files[(from + i) % files.length]!);

function multiTask(o: ShapeOptions): Shape {
  const files = sourceFiles(o.repoRoot);
  const tasks = o.quick ? 2 : 8;
  const prompts: ShapePrompt[] = [];
  const main: ScriptedReply[] = [];
  for (let t = 0; t < tasks; t++) {
    const group = pick(files, t * 6, 6);
    prompts.push(prompt(`Task ${t + 1}: review ${group.join(", ")}.`));
    main.push(turn(readCall(group[0]!), readCall(group[1]!)), turn(readCall(group[2]!), readCall(group[3]!)), turn(readCall(group[4]!), readCall(group[5]!)));
    main.push(reply(`Task ${t + 1} reviewed: ${group.length} files.`));
  }
  return { id: "a", title: `multi-task: ${tasks} prompts, 6 reads each`, prompts, main };
}

/**
 * One call of the long chain: a whole source file, a grep, a page of a dependency's docs or types, or a
 * listing. Sized so that without pruning the chain ends near 190k tokens, past pi's own compaction
 * threshold on a 200k window.
 */
function chainCall(i: number, sources: string[], deps: string[]): ScriptedToolCall {
  const src = sources[i % sources.length]!;
  switch (i % 4) {
    case 0:
      return readCall(src);
    case 1:
      return bashCall(`grep -n "function\\|export" ${src} | head -n 60`);
    case 2:
      return readCall(deps[i % deps.length]!, 260);
    default:
      return bashCall(`wc -l ${src} ${sources[(i + 1) % sources.length]} && head -n 200 ${sources[(i + 7) % sources.length]}`);
  }
}

function longChain(o: ShapeOptions): Shape {
  const calls = o.quick ? 30 : 200;
  const sources = sourceFiles(o.repoRoot);
  const deps = dependencyFiles(o.repoRoot);
  const main: ScriptedReply[] = Array.from({ length: calls }, (_, i) => turn(chainCall(i, sources, deps)));
  main.push(reply(`Audit finished after ${calls} tool calls.`));
  return { id: "b", title: `long chain: 1 prompt, ${calls} tool calls, one reply`, prompts: [prompt("Audit the whole code base, file by file.")], main };
}

function short(o: ShapeOptions): Shape {
  const files = sourceFiles(o.repoRoot);
  const main: ScriptedReply[] = [];
  const prompts = [0, 1].map((p) => {
    const group = pick(files, 50 + p * 3, 3);
    main.push(...group.map((f) => turn(readCall(f))), reply(`Read ${group.join(", ")}.`));
    return prompt(`Quick look ${p + 1}: ${group.join(", ")}.`);
  });
  return { id: "c", title: "short: 2 prompts, 3 reads each", prompts, main };
}

function idleGaps(o: ShapeOptions): Shape {
  const files = sourceFiles(o.repoRoot);
  const deps = dependencyFiles(o.repoRoot);
  const count = o.quick ? 2 : 6;
  const main: ScriptedReply[] = [];
  // The user steps away before every other prompt (3 and 5 of 6; 2 of 2 in the quick run).
  const prompts = Array.from({ length: count }, (_, p) => {
    const [f1, f2, f3] = pick(files, 20 + p * 3, 3);
    main.push(turn(readCall(f1!), readCall(f2!)), turn(readCall(f3!), readCall(deps[p % deps.length]!)), reply(`Step ${p + 1} done.`));
    const away = o.quick ? p === 1 : p === 2 || p === 4;
    return prompt(`Step ${p + 1}: look at ${f1}, ${f2} and ${f3}.`, away ? o.idleMs : 0);
  });
  const pauses = prompts.filter((p) => p.pauseBeforeMs > 0).length;
  return { id: "d", title: `idle gaps: ${count} prompts, ${pauses} pauses past the cache lifetime`, prompts, main };
}

const EDIT_MARK = (n: number) => `// bench-edit ${n} //`;

/** Copies of ten source files, each ending in an edit mark, in `workDir`. */
function editableCopies(o: ShapeOptions): string[] {
  mkdirSync(o.workDir, { recursive: true });
  return sourceFiles(o.repoRoot)
    .slice(0, 10)
    .map((f, i) => {
      const copy = join(o.workDir, `file-${i}.ts`);
      copyFileSync(join(o.repoRoot, f), copy);
      writeFileSync(copy, `${readFileSync(copy, "utf8")}\n${EDIT_MARK(0)}\n`);
      return copy;
    });
}

function reReads(o: ShapeOptions): Shape {
  const files = editableCopies(o);
  const count = o.quick ? 6 : 30;
  const main: ScriptedReply[] = [];
  const prompts = Array.from({ length: count }, (_, p) => {
    const k = p % files.length;
    const edits = Math.floor(p / files.length);
    const other = files[(k + 3) % files.length]!;
    main.push(turn(readCall(files[k]!)), turn(editCall(files[k]!, EDIT_MARK(edits), EDIT_MARK(edits + 1))), turn(readCall(other)), reply(`Edited file-${k}.ts.`));
    return prompt(`Change ${p + 1}: bump the edit mark of file-${k}.ts and compare it with ${other}.`);
  });
  return { id: "e", title: `re-reads: ${count} prompts re-reading and editing the same ${files.length} files`, prompts, main };
}

export function buildShape(id: ShapeId, o: ShapeOptions): Shape {
  const builders = { a: multiTask, b: longChain, c: short, d: idleGaps, e: reReads };
  return builders[id](o);
}

export const SHAPE_IDS: ShapeId[] = ["a", "b", "c", "d", "e"];
