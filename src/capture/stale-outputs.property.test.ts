import { describe, expect, test } from "bun:test";
import type { Message } from "@earendil-works/pi-ai";
import fc from "fast-check";
import { occKey } from "./occurrence-key.js";
import { findStaleOutputs } from "./stale-outputs.js";

const PATHS = ["a.ts", "./a.ts", "b.ts", "my file é.md"];
const COMMANDS = ["npm test", "FOO=1 npm test", "cat a.ts", "head -n 5 b.ts", "sed -n '2,4p' a.ts", "tail -n 3 a.ts", "cat a.ts | wc"];
const PROTECTED_PATH = "b.ts";

const step = fc.record({
  tool: fc.constantFrom("read", "edit", "write", "bash", "context_tree_query"),
  path: fc.constantFrom(...PATHS),
  command: fc.constantFrom(...COMMANDS),
  offset: fc.option(fc.integer({ min: 1, max: 6 }), { nil: undefined }),
  limit: fc.option(fc.integer({ min: 1, max: 6 }), { nil: undefined }),
  isError: fc.boolean(),
});
type Step = typeof step extends fc.Arbitrary<infer T> ? T : never;

function argsOf(s: Step): Record<string, unknown> {
  if (s.tool === "bash") return { command: s.command };
  if (s.tool === "context_tree_query") return { toolCallIds: ["t1"] };
  if (s.tool === "read") return { path: s.path, offset: s.offset, limit: s.limit };
  return { path: s.path };
}

function transcript(steps: Step[]): Message[] {
  return steps.flatMap((s, k) => [
    { role: "assistant", content: [{ type: "toolCall", id: `c${k}`, name: s.tool, arguments: argsOf(s) }], stopReason: "toolUse", timestamp: k } as unknown as Message,
    { role: "toolResult", toolCallId: `c${k}`, toolName: s.tool, content: [{ type: "text", text: "out" }], isError: s.isError, timestamp: k } as unknown as Message,
  ]);
}

const isProtected = (_name: string, args: unknown) => (args as { path?: unknown }).path === PROTECTED_PATH;
const indexOf = (key: string) => Number(key.split("@")[1]);

describe("findStaleOutputs on random transcripts", () => {
  test("every stale output is superseded by a later call of the transcript", () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        const stale = findStaleOutputs(transcript(steps), { isProtected });
        for (const [key, s] of stale) {
          expect(indexOf(s.byKey)).toBeGreaterThan(indexOf(key));
          expect(s.byKey).toBe(occKey(`c${indexOf(s.byKey)}`, indexOf(s.byKey)));
        }
      }),
    );
  });

  test("protected outputs, recoveries, failed reads and edits are never stale", () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        for (const key of findStaleOutputs(transcript(steps), { isProtected }).keys()) {
          const s = steps[indexOf(key)]!;
          expect(s.tool === "read" || s.tool === "bash").toBe(true);
          expect(s.tool === "read" && (s.isError || s.path === PROTECTED_PATH)).toBe(false);
        }
      }),
    );
  });

  test("what supersedes an output fits its rule", () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        for (const [key, s] of findStaleOutputs(transcript(steps), { isProtected })) {
          const by = steps[indexOf(s.byKey)]!;
          if (s.rule === "edited") expect((by.tool === "edit" || by.tool === "write") && !by.isError).toBe(true);
          if (s.rule === "reread") expect(!by.isError && (by.tool === "read" || by.tool === "bash")).toBe(true);
          if (s.rule === "rerun") expect(by.command.trim()).toBe(steps[indexOf(key)]!.command.trim());
        }
      }),
    );
  });

  test("the last run of each command is never stale by the rerun rule", () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        const stale = findStaleOutputs(transcript(steps), { isProtected });
        const lastRun = new Map<string, number>();
        steps.forEach((s, k) => s.tool === "bash" && lastRun.set(s.command, k));
        for (const k of lastRun.values()) expect(stale.get(occKey(`c${k}`, k))?.rule).not.toBe("rerun");
      }),
    );
  });
});
