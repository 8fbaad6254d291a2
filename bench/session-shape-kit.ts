// What every session shape is made of: the shape types, the scripted calls (real pi built-ins: `read`,
// `bash`, `edit`), the repository's source files, and edited copies in the work directory.
import { copyFileSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { ScriptedReply, ScriptedToolCall } from "../test/e2e/fake-llm.js";

export type ShapeId = "a" | "b" | "c" | "d" | "e" | "f" | "g" | "h" | "i" | "j" | "k" | "l" | "m";

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
  /** The catalog model the main model is priced as, per wire, when not the wire's usual one. */
  price?: Partial<Record<"anthropic-messages" | "openai-completions", { provider: "anthropic" | "openai"; id: string }>>;
  /** The simulated cache lifetime when not the bench's usual one (shape m: long enough for pi's warming). */
  ttlSeconds?: number;
}

export interface ShapeOptions {
  repoRoot: string;
  /** A writable directory for the edited copies of shapes e and f. */
  workDir: string;
  /** Longer than the simulated cache lifetime: shape d's idle gap. */
  idleMs: number;
  quick: boolean;
}

export const readCall = (path: string, limit?: number): ScriptedToolCall => ({ name: "read", args: limit ? { path, limit } : { path } });
export const bashCall = (command: string): ScriptedToolCall => ({ name: "bash", args: { command } });
export const editCall = (path: string, oldText: string, newText: string): ScriptedToolCall => ({ name: "edit", args: { path, edits: [{ oldText, newText }] } });
export const turn = (...calls: ScriptedToolCall[]): ScriptedReply => ({ toolCalls: calls });
export const reply = (text: string): ScriptedReply => ({ text });
/** A turn that ends the run as an aborted one: pi-ai records an error stop and its tool calls stay unanswered. */
export const aborted = (...calls: ScriptedToolCall[]): ScriptedReply => ({ stopped: true, toolCalls: calls });
export const prompt = (text: string, pauseBeforeMs = 0): ShapePrompt => ({ text, pauseBeforeMs });

export function walk(dir: string, keep: (file: string) => boolean): string[] {
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

/** Pages of pi's docs and pi-ai's type declarations, as paths relative to the repository. */
export function dependencyFiles(repoRoot: string): string[] {
  const docs = walk(join(repoRoot, "node_modules/@earendil-works/pi-coding-agent/docs"), (f) => f.endsWith(".md"));
  const types = walk(join(repoRoot, "node_modules/@earendil-works/pi-ai/dist"), (f) => f.endsWith(".d.ts") && !f.includes("models.generated"));
  return [...docs, ...types].map((f) => relative(repoRoot, f));
}

/** Files under `dirs` (relative to the repository) of `min` to `max` bytes, relative paths, sorted. */
export function filesSized(repoRoot: string, dirs: string[], min: number, max: number, keep: (file: string) => boolean): string[] {
  return dirs
    .flatMap((dir) => walk(join(repoRoot, dir), keep))
    .filter((f) => {
      const size = statSync(f).size;
      return size >= min && size <= max;
    })
    .map((f) => relative(repoRoot, f));
}

export const EDIT_MARK = (n: number) => `// bench-edit ${n} //`;

/** Copies of `count` source files from `from` on, each ending in an edit mark, in `workDir`. */
export function editableCopies(o: ShapeOptions, from = 0, count = 10): string[] {
  mkdirSync(o.workDir, { recursive: true });
  return sourceFiles(o.repoRoot)
    .slice(from, from + count)
    .map((f, i) => {
      const copy = join(o.workDir, `file-${from + i}.ts`);
      copyFileSync(join(o.repoRoot, f), copy);
      writeFileSync(copy, `${readFileSync(copy, "utf8")}\n${EDIT_MARK(0)}\n`);
      return copy;
    });
}
