// The demo's script against the README's quote of its output (issue 28 item 1): the counts are exact, and
// every file the tour reads exists. test/e2e/demo.e2e.test.ts runs the demo for the measured figures.
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { readmeDemoOutput } from "../../demo/readme-quote.js";
import { flushWords } from "../../demo/flush-words.js";
import { buildDemoScript, sourceFiles } from "../../demo/script.js";

const ROOT = join(import.meta.dir, "../..");
const script = buildDemoScript(ROOT);

describe("the demo's code tour", () => {
  test("reads only files that exist, among them at least one per folder it tours", () => {
    expect(script.files.filter((f) => !existsSync(join(ROOT, f)))).toEqual([]);
    for (const folder of ["render", "capture", "archive", "summarize", "chains", "commands"]) {
      expect(script.files.some((f) => f.startsWith(`src/${folder}/`))).toBe(true);
    }
  });

  test("finds the sources in src/'s folders, not only at its top", () => {
    const files = sourceFiles(ROOT);
    expect(files.filter((f) => f.split("/").length > 2).length).toBeGreaterThan(50);
    expect(files.some((f) => f.endsWith(".test.ts"))).toBe(false);
  });
});

describe("the README's quote of the demo", () => {
  const quoted = readmeDemoOutput(ROOT);

  test("names the script's prompt and tool-call counts", () => {
    expect(quoted).toContain(`${script.prompts.length} prompts, ${script.toolCalls} scripted tool calls`);
  });

  test("lists the tool calls per tool as the script makes them", () => {
    const counts = new Map<string, number>();
    for (const call of script.main.flatMap((r) => r.toolCalls ?? [])) counts.set(call.name, (counts.get(call.name) ?? 0) + 1);
    const line = /tool calls executed by pi: (.*)/.exec(quoted)?.[1] ?? "";
    const quotedCounts = new Map(line.split(", ").map((part) => [part.split(" ")[0]!, Number(part.split(" ")[1])] as const));
    expect(quotedCounts).toEqual(counts);
  });
});

/** The deepest nesting of parentheses on any line of `text`. */
function parenDepth(text: string): number {
  let deepest = 0;
  for (const line of text.split("\n")) {
    let depth = 0;
    for (const ch of line) {
      if (ch === "(") deepest = Math.max(deepest, ++depth);
      else if (ch === ")") depth = Math.max(0, depth - 1);
    }
  }
  return deepest;
}

describe("the demo's flush line (issue 36, point 13)", () => {
  test("says when each flush ran and what it did in plain words, never 'summarized' for outputs archived with no summarizer call", () => {
    const line = flushWords([
      { trigger: "message-end", outcome: "deferred" },
      ...Array.from({ length: 6 }, () => ({ trigger: "message-end", outcome: "summarized" })),
      { trigger: "message-end", outcome: "empty" },
    ]);
    expect(line).toBe("8 at the agent's final reply (1 waited since it did not pay yet, 6 archived outputs, 1 found nothing waiting)");
    expect(line).not.toMatch(/summarized|message-end|\//);
  });

  test("the README's quote uses those words", () => {
    expect(readmeDemoOutput(ROOT)).toMatch(/flushes: \d+ at the agent's final reply \(/);
  });

  test("no flush wording nests parentheses, whatever each flush did (issue 45, point 19)", () => {
    const outcomes = ["summarized", "deferred", "empty", "skipped-trivial", "skipped-oversized", "skipped-deduped", "error"];
    const triggers = ["message-end", "manual", "in-run", "pressure", "cache-cold", "rearmed", "budget"];
    expect(parenDepth(flushWords(triggers.flatMap((trigger) => outcomes.map((outcome) => ({ trigger, outcome })))))).toBe(1);
  });
});

describe("the README's quote of the demo's ending (issue 45, point 19)", () => {
  const quoted = readmeDemoOutput(ROOT);

  test("nests no parentheses", () => {
    expect(parenDepth(quoted)).toBe(1);
  });

  test("says where the demo works, under the system temp dir", () => {
    expect(quoted).toMatch(/^ {2}working in \/tmp\/pi-condense-demo-\S+ \(the system temp dir; your ~\/\.pi is not touched\)$/m);
  });

  test("suggests a report on the session it kept, from the shell and in pi", () => {
    const kept = /session file \(pruning on\), kept: (\S+)/.exec(quoted)?.[1];
    expect(kept).toStartWith("/tmp/pi-condense-demo-");
    expect(quoted).toContain(`npm run report -- ${kept} --model anthropic/claude-sonnet-4-5`);
    expect(quoted).toContain("/pruner report <that file> --model anthropic/claude-sonnet-4-5");
  });
});
