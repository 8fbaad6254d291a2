// Issue 44's session shapes, on price lists where the price itself is the point: l, a model priced by the
// size of the request (Haiku 5.5: every token five times dearer past 100k tokens of input) whose context
// crosses that tier without pruning; m, pauses longer than the cache lifetime with pi's cache warming on (a
// lifetime over pi-ai's 10 s minimum, and a price list dear enough that pi's idle rule warms a 35k-token prompt).
import type { ScriptedReply } from "../test/e2e/fake-llm.js";
import { filesSized, prompt, readCall, reply, turn, type Shape, type ShapeOptions, type ShapePrompt } from "./session-shape-kit.js";

/** Source files and pi's docs of 6 to 14 KB: a read of each is 1,500 to 3,500 tokens. */
function mediumFiles(repoRoot: string): string[] {
  return filesSized(repoRoot, ["src", "node_modules/@earendil-works/pi-coding-agent/docs"], 6_000, 14_000, (f) => f.endsWith(".md") || (f.endsWith(".ts") && !f.endsWith(".test.ts")));
}

const pick = (files: string[], from: number, count: number) => Array.from({ length: count }, (_, i) => files[(from + i) % files.length]!);

/** `count` prompts of `reads(p)` reads in pairs, then a reply; `pause(p)`: the idle time before prompt p. */
function reviews(o: ShapeOptions, count: number, reads: (p: number) => number, pause: (p: number) => number): { prompts: ShapePrompt[]; main: ScriptedReply[] } {
  const files = mediumFiles(o.repoRoot);
  const main: ScriptedReply[] = [];
  let next = 0;
  const prompts = Array.from({ length: count }, (_, p) => {
    const group = pick(files, next, reads(p));
    next += group.length;
    for (let i = 0; i < group.length; i += 2) main.push(turn(...group.slice(i, i + 2).map((f) => readCall(f))));
    main.push(reply(`Review ${p + 1} done: ${group.length} files.`));
    return prompt(`Review ${p + 1}: read ${group.join(", ")} and note what each exports.`, pause(p));
  });
  return { prompts, main };
}

export function tierCrossing(o: ShapeOptions): Shape {
  const count = o.quick ? 4 : 12;
  const { prompts, main } = reviews(o, count, () => (o.quick ? 16 : 6), () => 0);
  return {
    id: "l",
    title: `price tier: ${count} prompts of reads on Haiku 5.5's prices, whose context passes its 100k-token tier without pruning`,
    prompts,
    main,
    price: { "anthropic-messages": { provider: "anthropic", id: "claude-haiku-5-5" }, "openai-completions": { provider: "anthropic", id: "claude-haiku-5-5" } },
  };
}

/** The cache lifetime of shape m: over pi-ai's 10 s floor for warming, so pi refreshes every 2 s while idle. */
export const WARMING_TTL_SECONDS = 12;
/** Shape m's pauses: past the lifetime, so without warming the cache is cold after each. */
export const WARMING_PAUSE_MS = 20_000;

/**
 * The user steps away after the prompts that read the most (14 files, about 35k tokens): without pruning, pi's
 * idle rule warms the prompt through the pause at these prices; with it, whether the next request rewrites it.
 */
export function pausesWithWarming(o: ShapeOptions): Shape {
  const count = o.quick ? 3 : 6;
  const away = (p: number) => (o.quick ? p === 2 : p === 3 || p === 5);
  const { prompts, main } = reviews(o, count, (p) => (away(p + 1) ? 14 : 4), (p) => (away(p) ? WARMING_PAUSE_MS : 0));
  const pauses = prompts.filter((p) => p.pauseBeforeMs > 0).length;
  return {
    id: "m",
    title: `pauses and warming: ${count} prompts, ${pauses} pauses of ${WARMING_PAUSE_MS / 1000} s past the ${WARMING_TTL_SECONDS} s cache lifetime, pi's cache warming on`,
    prompts,
    main,
    ttlSeconds: WARMING_TTL_SECONDS,
    price: { "anthropic-messages": { provider: "anthropic", id: "claude-fable-5-1" }, "openai-completions": { provider: "openai", id: "gpt-6-cyber" } },
  };
}
