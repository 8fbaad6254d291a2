// Shape k of the session bench (issue 35): prompts that edit and rewrite files, so most of what the session
// sends is what the agent wrote. Each prompt reads the head of a copy of one of this repository's modules,
// replaces a block of 40 of its lines (old and new text of real size), then either writes a new module (the
// text of another source file) or rewrites the copy whole, and counts the lines. The builder tracks each
// copy's text, so every edit's old text is what the file holds at that moment, as pi's `edit` requires.
import { copyFileSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { ScriptedReply } from "../test/e2e/fake-llm.js";
import { bashCall, editCall, prompt, readCall, reply, sourceFiles, turn, type Shape, type ShapeOptions } from "./session-shape-kit.js";

const BLOCK_LINES = 40;
const MIN_BYTES = 6_000;
const MAX_BYTES = 14_000;

const writeCall = (path: string, content: string) => ({ name: "write", args: { path, content } });

/** Each line of `text` marked as revised by prompt `p`, so old and new text differ on every line. */
const revised = (text: string, p: number) => text.split("\n").map((line) => (line === "" ? line : `${line} // rev ${p}`)).join("\n");

export function editsAndRewrites(o: ShapeOptions): Shape {
  const sized = sourceFiles(o.repoRoot).filter((f) => {
    const size = statSync(join(o.repoRoot, f)).size;
    return size >= MIN_BYTES && size <= MAX_BYTES;
  });
  const copies = 4;
  const count = o.quick ? 3 : 12;
  mkdirSync(o.workDir, { recursive: true });
  const paths = sized.slice(0, copies).map((f, i) => {
    const copy = join(o.workDir, `module-${i}.ts`);
    copyFileSync(join(o.repoRoot, f), copy);
    return copy;
  });
  const texts = paths.map((p) => readFileSync(p, "utf8"));
  const main: ScriptedReply[] = [];
  const prompts = Array.from({ length: count }, (_, p) => {
    const k = p % copies;
    const path = paths[k]!;
    const lines = texts[k]!.split("\n");
    const start = (p * 13) % Math.max(1, lines.length - BLOCK_LINES);
    const oldText = lines.slice(start, start + BLOCK_LINES).join("\n");
    const newText = revised(oldText, p);
    texts[k] = texts[k]!.replace(oldText, () => newText);
    const rewrite = p % 2 === 1;
    const target = rewrite ? path : join(o.workDir, `new-${p}.ts`);
    const content = rewrite ? revised(texts[k]!, p) : `// written for prompt ${p + 1}\n${readFileSync(join(o.repoRoot, sized[(copies + p) % sized.length]!), "utf8")}`;
    if (rewrite) texts[k] = content;
    main.push(turn(readCall(path, 30)), turn(editCall(path, oldText, newText)), turn(writeCall(target, content)), turn(bashCall(`wc -l ${path} ${target}`)), reply(`Change ${p + 1} made.`));
    return prompt(`Change ${p + 1}: revise lines ${start + 1}-${start + BLOCK_LINES} of module-${k}.ts, then ${rewrite ? "rewrite it whole" : `write new-${p}.ts`}.`);
  });
  return { id: "k", title: `edits and rewrites: ${count} prompts, each a 40-line edit and a whole-file write`, prompts, main };
}
