// The session shapes of the session bench, scripted for the loopback provider. Every tool call is a
// real pi built-in (`read`, `bash`, `edit`) over real files of this repository and node_modules; the fake
// model only decides which. A shape is one pi session; a prompt may come after an idle pause.
import type { ScriptedReply, ScriptedToolCall } from "../test/e2e/fake-llm.js";
import { bashCall, dependencyFiles, editableCopies, editCall, EDIT_MARK, prompt, readCall, reply, sourceFiles, turn, type Shape, type ShapeId, type ShapeOptions, type ShapePrompt } from "./session-shape-kit.js";
import { realWork } from "./session-work-shape.js";
import { lossShapes } from "./session-loss-shapes.js";
import { abortedWork } from "./session-aborted-work-shape.js";
import { editsAndRewrites } from "./session-edit-shape.js";
import { pausesWithWarming, tierCrossing } from "./session-price-shapes.js";

export type { Shape, ShapeId, ShapeOptions, ShapePrompt } from "./session-shape-kit.js";
export { sourceFiles } from "./session-shape-kit.js";

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
  const builders = { a: multiTask, b: longChain, c: short, d: idleGaps, e: reReads, f: realWork, ...lossShapes, j: abortedWork, k: editsAndRewrites, l: tierCrossing, m: pausesWithWarming };
  return builders[id](o);
}

export const SHAPE_IDS: ShapeId[] = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m"];
