import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { unsummarizedStubText } from "../render/stub-replace.js";
import { digestBudget, outputDigest } from "./output-digest.js";

// Pieces real outputs are made of, so random texts hit the digest's paths (locations, frames, names, searches).
const FRAGMENTS = [
  "src/a.ts:12: x",
  'File "/repo/x.py", line 7, in run',
  "ValueError: bad",
  "def collect(self):",
  "export function f(",
  "Command exited with code 2",
  " 3 pass",
  "\u001b[31mFAIL\u001b[0m",
  "[Showing lines 1-9 of 99. Use offset=10 to continue.]",
  "./dir/file name.md",
  "\u0000\u0007\r\u2028",
  "naïve/ünï.py:3",
];
const text = fc.oneof(
  fc.string({ unit: "binary", maxLength: 400 }),
  fc.array(fc.oneof(fc.constantFrom(...FRAGMENTS), fc.string({ maxLength: 30 })), { maxLength: 40 }).map((parts) => parts.join("\n")),
);
const toolName = fc.oneof(fc.constantFrom("bash", "read", "grep", "find", "ls", "edit", "write", "web_fetch"), fc.string({ maxLength: 12 }));
const args = fc.oneof(
  fc.record({ command: fc.oneof(fc.constantFrom("grep -rn x .", "FOO=1 npm test", "cd a && find .", "ls -la"), fc.string({ maxLength: 40 })) }),
  fc.record({ path: fc.string({ maxLength: 40 }) }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 })),
);
const call = fc.record({ toolName, args, text, isError: fc.boolean() });

describe("outputDigest on arbitrary calls", () => {
  test("never throws, is the same every time, one line without control characters, within its budget", () => {
    fc.assert(
      fc.property(call, (c) => {
        const digest = outputDigest(c.toolName, c.args, c.text, c.isError);
        expect(outputDigest(c.toolName, c.args, c.text, c.isError)).toBe(digest);
        if (digest === undefined) return;
        expect(digest).not.toBe("");
        expect(digest).not.toMatch(/[\u0000-\u001f\u007f\u2028\u2029]/);
        expect(digest.length).toBeLessThanOrEqual(digestBudget(c.text.length));
      }),
      { numRuns: 500 },
    );
  });

  test("the stub it makes is one line of at most 400 characters", () => {
    fc.assert(
      fc.property(call, fc.integer({ min: 1, max: 99_999 }), (c, n) => {
        const stub = unsummarizedStubText(`t${n}`, undefined, outputDigest(c.toolName, c.args, c.text, c.isError));
        expect(stub).not.toMatch(/[\u0000-\u001f\u007f\u2028\u2029]/);
        expect(stub.length).toBeLessThanOrEqual(400);
      }),
      { numRuns: 300 },
    );
  });
});
