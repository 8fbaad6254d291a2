// Shape f of the session bench: a long session shaped like real pi work. Ten prompts, each a work item
// of 20 to 44 tool calls in turns of one to three: reads of source files and of pi's docs and types
// (pages and a few whole files), greps and test runs through `bash`, edits of copies in the work
// directory and re-reads of what was edited. Outputs run from about 1 KB to 50 KB (pi's read limit).
// Deterministic: the calls depend only on the repository's files. A test run is the test file's cases
// listed by grep in a runner's format, so its output does not change with timings.
import { statSync } from "node:fs";
import { join, relative } from "node:path";
import type { ScriptedReply, ScriptedToolCall } from "../test/e2e/fake-llm.js";
import { bashCall, dependencyFiles, editableCopies, editCall, EDIT_MARK, prompt, readCall, reply, sourceFiles, turn, walk, type Shape, type ShapeOptions } from "./session-shape-kit.js";

/** Tool calls per work item (ten items, 20 to 44 calls each); the quick run has three items of 20. */
const CALLS_PER_ITEM = [20, 28, 40, 20, 30, 22, 44, 20, 30, 22];
/** Calls per turn, cycled; an edit always has a turn of its own. */
const TURN_SIZES = [2, 1, 3, 1, 2, 2, 1, 3];
/** Every this many calls, a whole large file (20-50 KB) instead of a page; sized so that without pruning the session ends near 190k tokens. */
const LARGE_EVERY = 50;

interface WorkFiles {
  sources: string[];
  tests: string[];
  deps: string[];
  large: string[];
  copies: string[];
  /** Edits applied so far, per copy. */
  edits: number[];
}

const sizeOf = (root: string, file: string) => statSync(join(root, file)).size;

function workFiles(o: ShapeOptions): WorkFiles {
  const root = o.repoRoot;
  const sources = sourceFiles(root).filter((f) => sizeOf(root, f) >= 1500);
  const tests = walk(join(root, "src"), (f) => f.endsWith(".test.ts")).map((f) => relative(root, f));
  const deps = dependencyFiles(root).filter((f) => sizeOf(root, f) >= 1500);
  const large = [...sources, ...deps].filter((f) => sizeOf(root, f) >= 20_000 && sizeOf(root, f) <= 50_000);
  const copies = editableCopies(o, 20, 12);
  return { sources, tests, deps, large, copies, edits: copies.map(() => 0) };
}

const at = <T>(list: T[], i: number): T => list[i % list.length]!;

/** The `i`-th call of work item `item`: a cycle of twelve kinds of call, a large file every LARGE_EVERY calls. */
function workCall(item: number, i: number, w: WorkFiles, n: number): ScriptedToolCall {
  const k = item * 7 + i;
  if (n % LARGE_EVERY === LARGE_EVERY - 1) return readCall(at(w.large, n));
  const src = at(w.sources, k);
  const test = at(w.tests, k);
  const copy = item * 2 + Math.floor(i / 12);
  switch (i % 12) {
    case 0:
      return readCall(src, 70);
    case 1:
      return bashCall(`grep -n "export\\|function\\|interface\\|const\\|return" ${src} | head -n 45`);
    case 2:
      return readCall(at(w.deps, k), 60);
    case 3:
    case 8:
      return bashCall(`echo "bun test ${test}" && grep -n "test(\\|describe(" ${test} | head -n 80 | sed 's/^/(pass) /' && echo "$(grep -c "test(" ${test}) pass, 0 fail"`);
    case 4:
      return readCall(at(w.sources, k + 3), 80);
    case 5:
      return bashCall(`grep -rn "${["import", "export const", "return", "throw"][k % 4]}" ${src.slice(0, src.lastIndexOf("/"))} | head -n 35`);
    case 6: {
      const c = copy % w.copies.length;
      const path = w.copies[c]!;
      w.edits[c]! += 1;
      return editCall(path, EDIT_MARK(w.edits[c]! - 1), EDIT_MARK(w.edits[c]!));
    }
    case 7:
      return readCall(w.copies[copy % w.copies.length]!, 80);
    case 9:
      return readCall(at(w.deps, k + 11), 60);
    case 10:
      return bashCall(`sed -n '1,70p' ${at(w.sources, k + 5)}`);
    default:
      return bashCall(`wc -l ${src} ${test} && head -n 50 ${at(w.sources, k + 9)}`);
  }
}

/** One work item: its calls grouped into turns, then the reply. */
function workItem(item: number, calls: number, w: WorkFiles, first: number): ScriptedReply[] {
  const replies: ScriptedReply[] = [];
  let pending: ScriptedToolCall[] = [];
  let size = 0;
  const close = () => {
    if (pending.length > 0) replies.push(turn(...pending));
    pending = [];
    size++;
  };
  for (let i = 0; i < calls; i++) {
    const call = workCall(item, i, w, first + i);
    if (call.name === "edit") {
      close();
      replies.push(turn(call));
      continue;
    }
    pending.push(call);
    if (pending.length >= TURN_SIZES[size % TURN_SIZES.length]!) close();
  }
  close();
  replies.push(reply(`Work item ${item + 1} done: ${calls} tool calls.`));
  return replies;
}

export function realWork(o: ShapeOptions): Shape {
  const w = workFiles(o);
  const counts = o.quick ? [20, 20, 20] : CALLS_PER_ITEM;
  const main: ScriptedReply[] = [];
  let first = 0;
  const prompts = counts.map((calls, item) => {
    main.push(...workItem(item, calls, w, first));
    first += calls;
    return prompt(`Work item ${item + 1}: review ${at(w.sources, item * 7)} and its tests, adjust file-${20 + ((item * 2) % w.copies.length)}.ts, rerun the tests.`);
  });
  const total = counts.reduce((a, b) => a + b, 0);
  return { id: "f", title: `real work: ${counts.length} prompts, ${total} tool calls (reads, greps, test runs, edits)`, prompts, main };
}
