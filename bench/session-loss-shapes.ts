// Shapes g, h and i of the session bench (issue 33): sessions built to make the cost policy lose to classic.
// g: prompts whose outputs are small next to what each run adds that no stub removes (edits carrying 8 KB
// blocks), so the final-reply flush waits ("won't pay"), then a run of 100 line counts that sends the waiting
// outputs, and the chains left uncompressed with them, at every request. h: prompts that paste whole files
// into the user message; the reads of the first three wait, and every later paste lies inside their rewrite,
// so they wait for good. i: runs that end in an aborted turn (an error stop carrying tool calls, so no
// final-reply flush), each followed by a run of reads long enough for in-run flushes.
// Every tool call is a real `read`, `bash` or `edit`.
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ScriptedReply } from "../test/e2e/fake-llm.js";
import { aborted, bashCall, editCall, EDIT_MARK, filesSized, prompt, readCall, reply, sourceFiles, turn, type Shape, type ShapeOptions, type ShapePrompt } from "./session-shape-kit.js";

const at = <T>(list: readonly T[], i: number): T => list[i % list.length]!;

/** The folders whose files the shapes read: this repository's sources and pi's docs and type declarations. */
const READ_DIRS = ["src", "node_modules/@earendil-works/pi-coding-agent/docs", "node_modules/@earendil-works/pi-coding-agent/dist", "node_modules/@earendil-works/pi-ai/dist"];
const textFile = (f: string) => (f.endsWith(".ts") || f.endsWith(".md")) && !f.includes("models.generated");

/** Files of 6 to 8 KB: one whole-file read each, the size of the reads that stayed raw in issue 33's session. */
export function mediumReads(repoRoot: string): string[] {
  return filesSized(repoRoot, READ_DIRS, 6000, 8000, textFile);
}

/** pi's docs and type declarations of 10 to 20 KB (dependencies, so the pasted text does not move with this repository). */
function pasteFiles(repoRoot: string): string[] {
  return filesSized(repoRoot, READ_DIRS.slice(1), 10_000, 20_000, textFile);
}

/** The characters of each edit's block, sent twice per edit (old and new text): large next to the edit's result. */
const EDIT_BLOCK = 8000;

/** Copies of the first `count` sources long enough for the block, each ending in an edit mark, with the block before it. */
function blockCopies(o: ShapeOptions, count: number): Array<{ path: string; block: string; edits: number }> {
  mkdirSync(o.workDir, { recursive: true });
  const long = sourceFiles(o.repoRoot).filter((f) => statSync(join(o.repoRoot, f)).size > EDIT_BLOCK + 500);
  return long.slice(0, count).map((f, i) => {
    const text = readFileSync(join(o.repoRoot, f), "utf8");
    const path = join(o.workDir, `block-${i}.ts`);
    writeFileSync(path, `${text}\n${EDIT_MARK(0)}\n`);
    return { path, block: `${text.slice(-EDIT_BLOCK)}\n`, edits: 0 };
  });
}

function wontPay(o: ShapeOptions): Shape {
  const sources = sourceFiles(o.repoRoot);
  const copies = blockCopies(o, 6);
  const [short, tail, after] = o.quick ? [5, 20, 3] : [16, 100, 5];
  const prompts: ShapePrompt[] = [];
  const main: ScriptedReply[] = [];
  for (let p = 0; p < short; p++) {
    const src = at(sources, p * 5);
    const c = at(copies, p);
    main.push(turn(readCall(src, 80)));
    main.push(turn(editCall(c.path, `${c.block}${EDIT_MARK(c.edits)}`, `${c.block}${EDIT_MARK(c.edits + 1)}`)));
    c.edits++;
    main.push(reply(`Bumped the mark of ${c.path.slice(c.path.lastIndexOf("/") + 1)} after reading ${src}.`));
    prompts.push(prompt(`Change ${p + 1}: read the head of ${src}, then bump the edit mark at the end of its copy.`));
  }
  for (let t = 0; t < tail; t++) main.push(turn(bashCall(`wc -l ${at(sources, t)}`)));
  main.push(reply(`Counted the lines of ${tail} files.`));
  prompts.push(prompt(`Count the lines of the first ${tail} source files, one at a time.`));
  for (let p = 0; p < after; p++) {
    main.push(turn(bashCall(`wc -c ${at(sources, p * 3)}`)), reply(`Measured ${at(sources, p * 3)}.`));
    prompts.push(prompt(`How big is ${at(sources, p * 3)}?`));
  }
  return { id: "g", title: `won't pay: ${short} prompts of a read and a ${EDIT_BLOCK / 1000} KB-block edit, a run of ${tail} line counts, ${after} short prompts`, prompts, main };
}

function wholeFiles(o: ShapeOptions): Shape {
  const pastes = pasteFiles(o.repoRoot);
  const reads = mediumReads(o.repoRoot);
  const [withReads, asked] = o.quick ? [3, 5] : [3, 20];
  const turns = 2;
  const main: ScriptedReply[] = [];
  const prompts: ShapePrompt[] = [];
  const paste = (p: number) => {
    const file = at(pastes, p);
    return { file, text: readFileSync(join(o.repoRoot, file), "utf8") };
  };
  for (let p = 0; p < withReads; p++) {
    const { file, text } = paste(p);
    for (let t = 0; t < turns; t++) main.push(turn(readCall(at(reads, p * turns + t))));
    main.push(reply(`Compared ${file} with ${turns} files.`));
    prompts.push(prompt(`Here is ${file}; compare it with the code it describes.\n\n${text}`));
  }
  for (let p = withReads; p < withReads + asked; p++) {
    const { file, text } = paste(p);
    main.push(reply(`${file} reads well; nothing to change.`));
    prompts.push(prompt(`And ${file}: anything unclear in it?\n\n${text}`));
  }
  return { id: "h", title: `whole-file user messages: ${withReads + asked} prompts pasting a 10-20 KB file, the first ${withReads} with ${turns} reads each`, prompts, main };
}

function abortedTurns(o: ShapeOptions): Shape {
  const reads = mediumReads(o.repoRoot);
  const [pairs, before, after] = o.quick ? [2, 4, 8] : [8, 4, 10];
  const prompts: ShapePrompt[] = [];
  const main: ScriptedReply[] = [];
  let r = 0;
  for (let p = 0; p < pairs; p++) {
    for (let t = 0; t < before; t++) main.push(turn(readCall(at(reads, r++))));
    main.push(aborted(readCall(at(reads, r)), readCall(at(reads, r + 1))));
    prompts.push(prompt(`Task ${p + 1}: read the next ${before} files.`));
    for (let t = 0; t < after; t++) main.push(turn(readCall(at(reads, r++))));
    main.push(reply(`Task ${p + 1} done after the interruption.`));
    prompts.push(prompt(`Task ${p + 1} was interrupted; carry on with ${after} more files.`));
  }
  return { id: "i", title: `aborted turns: ${pairs} runs of ${before} reads ending in an aborted turn, each followed by a run of ${after} reads`, prompts, main };
}

export const lossShapes = { g: wontPay, h: wholeFiles, i: abortedTurns };
