// Shape j of the session bench: a session like the third real one of issue 33, where the cost policy cost
// 1.17x classic. Fifty-one prompts and about 440 main requests; every third run ends in an aborted turn (an error
// stop carrying tool calls: no final reply, so no final-reply flush); the second prompt reads a document of
// about 50k characters at its start; most calls are whole-file reads of 6 to 8 KB, with greps, ranges
// printed by sed, and edits of copies in the work directory re-read after. Deterministic: the calls depend
// only on the repository's files.
import type { ScriptedReply, ScriptedToolCall } from "../test/e2e/fake-llm.js";
import { mediumReads } from "./session-loss-shapes.js";
import { aborted, bashCall, editableCopies, editCall, EDIT_MARK, prompt, readCall, reply, sourceFiles, turn, type Shape, type ShapeOptions } from "./session-shape-kit.js";

/** Tool turns per run, cycled over the prompts (about 7.6 a run). */
const RUN_TURNS = [5, 11, 7, 3, 13, 8, 6, 10, 4, 9];
/** A big markdown file of pi-ai (about 110k characters): pi's read returns its first 50 KB. */
const BIG_DOCUMENT = "node_modules/@earendil-works/pi-ai/README.md";
/** Which runs end in an aborted turn: every third, from the second. */
const abortedRun = (p: number) => p % 3 === 1;

interface Files {
  reads: string[];
  sources: string[];
  copies: string[];
  edits: number[];
}

const at = <T>(list: readonly T[], i: number): T => list[i % list.length]!;

/** The `k`-th call of the session: a cycle of ten kinds, six of them 6-8 KB reads. */
function call(k: number, f: Files): ScriptedToolCall {
  const src = at(f.sources, k * 7);
  const copy = Math.floor(k / 10) % f.copies.length;
  switch (k % 10) {
    case 2:
      return bashCall(`grep -n "function\\|const\\|return" ${src} | head -n 30`);
    case 5:
      f.edits[copy]! += 1;
      return editCall(f.copies[copy]!, EDIT_MARK(f.edits[copy]! - 1), EDIT_MARK(f.edits[copy]!));
    case 7:
      return bashCall(`sed -n '1,60p' ${src}`);
    case 9:
      return readCall(f.copies[copy]!, 60);
    default:
      return readCall(at(f.reads, k * 3));
  }
}

/** One run: its tool turns (two calls in every fourth; an edit alone), then the reply or the aborted turn. */
function run(p: number, turns: number, f: Files, next: () => number): ScriptedReply[] {
  const replies: ScriptedReply[] = [];
  if (p === 1) replies.push(turn(readCall(BIG_DOCUMENT)));
  for (let t = replies.length; t < turns; t++) {
    const first = call(next(), f);
    if (t % 4 !== 3 || first.name === "edit") replies.push(turn(first));
    else replies.push(turn(first, call(next(), f)));
  }
  const k = next();
  replies.push(abortedRun(p) ? aborted(readCall(at(f.reads, k * 3)), bashCall(`wc -l ${at(f.sources, k)}`)) : reply(`Step ${p + 1} done.`));
  return replies;
}

export function abortedWork(o: ShapeOptions): Shape {
  const copies = editableCopies(o, 30, 8);
  const f: Files = { reads: mediumReads(o.repoRoot), sources: sourceFiles(o.repoRoot), copies, edits: copies.map(() => 0) };
  const count = o.quick ? 12 : 51;
  let k = 0;
  const next = () => k++;
  const main: ScriptedReply[] = [];
  const prompts = Array.from({ length: count }, (_, p) => {
    const turns = o.quick ? Math.ceil(at(RUN_TURNS, p) / 2) : at(RUN_TURNS, p);
    main.push(...run(p, turns, f, next));
    return prompt(p === 1 ? `Step 2: read the plan in ${BIG_DOCUMENT}, then start on it.` : `Step ${p + 1}: continue with the plan.`);
  });
  const stops = prompts.filter((_, p) => abortedRun(p)).length;
  return { id: "j", title: `aborted work: ${count} prompts, ${main.length} main replies, ${stops} runs ending in an aborted turn, a 50 KB read, 6-8 KB reads`, prompts, main };
}
