import { describe, expect, test } from "bun:test";
import { occKey } from "../capture/occurrence-key.js";
import { type ArchiveWrite, MAX_KEPT_CHARS, sightOfWrite, workingSet, type WorkingSetOptions } from "./working-set.js";

// A transcript is built turn by turn: each call gets the next timestamps, its result right after it.
class Transcript {
  readonly messages: unknown[] = [];
  private time = 1_000;

  prompt(text = "do it"): this {
    this.messages.push({ role: "user", content: text, timestamp: this.tick() });
    return this;
  }

  /** One tool turn; returns the occurrence keys of its results in call order. */
  turn(...calls: Array<{ name: string; args: Record<string, unknown>; output?: string; isError?: boolean }>): string[] {
    const ids = calls.map(() => `c${this.time}_${Math.random().toString(36).slice(2, 6)}`);
    this.messages.push({
      role: "assistant",
      content: calls.map((c, i) => ({ type: "toolCall", id: ids[i], name: c.name, arguments: c.args })),
      stopReason: "toolUse",
      timestamp: this.tick(),
    });
    return calls.map((c, i) => {
      const timestamp = this.tick();
      this.messages.push({ role: "toolResult", toolCallId: ids[i], toolName: c.name, content: [{ type: "text", text: c.output ?? "ok" }], isError: c.isError === true, timestamp });
      return occKey(ids[i]!, timestamp);
    });
  }

  reply(text = "done"): this {
    this.messages.push({ role: "assistant", content: [{ type: "text", text }], stopReason: "stop", timestamp: this.tick() });
    return this;
  }

  /** An archive write of `keys` now: its horizon is the newest message. */
  write(keys: string[]): ArchiveWrite {
    return { at: this.time - 1, keys };
  }

  private tick(): number {
    this.time += 1;
    return this.time - 1;
  }
}

const read = (path: string, output = `text of ${path}\n`.repeat(5)) => ({ name: "read", args: { path }, output });
const edit = (path: string, oldText: string, newText: string, output = `Successfully replaced text in ${path}.`) => ({ name: "edit", args: { path, edits: [{ oldText, newText }] }, output });
const bash = (command: string, output = "out\n") => ({ name: "bash", args: { command }, output });
const options = (writes: ArchiveWrite[], recentPrompts = 0): WorkingSetOptions => ({ writes, recentPrompts, maxChars: MAX_KEPT_CHARS });

describe("what the working set keeps raw", () => {
  test("the running prompt's read of a file stays raw once archived", () => {
    const t = new Transcript().prompt();
    const [r] = t.turn(read("src/a.ts"));
    t.turn(bash("ls"));
    const set = workingSet(t.messages, options([t.write([r!])]));
    expect([...set.outputs]).toEqual([r!]);
    expect([...set.files]).toEqual(["src/a.ts"]);
  });

  test("an output outside the working set is not kept", () => {
    const t = new Transcript().prompt();
    const [g] = t.turn(bash("grep -rn foo ."));
    expect(workingSet(t.messages, options([t.write([g!])])).outputs.size).toBe(0);
  });

  test("only what a write archived is kept: a read still waiting is not in the set's outputs", () => {
    const t = new Transcript().prompt();
    const [r1] = t.turn(read("a.ts"));
    t.turn(read("b.ts"));
    expect([...workingSet(t.messages, options([t.write([r1!])])).outputs]).toEqual([r1!]);
  });

  test("with no archive write nothing is kept", () => {
    const t = new Transcript().prompt();
    t.turn(read("a.ts"));
    expect(workingSet(t.messages, options([])).outputs.size).toBe(0);
  });

  test("the run's final reply ends it: the next write lets its reads go", () => {
    const t = new Transcript().prompt();
    const [r] = t.turn(read("a.ts"));
    const first = t.write([r!]);
    t.reply();
    const [g] = t.turn(bash("ls"));
    expect(workingSet(t.messages, options([first])).outputs.has(r!)).toBe(true);
    expect(workingSet(t.messages, options([first, t.write([g!])])).outputs.has(r!)).toBe(false);
  });

  test("a newer read of the whole file supersedes the older one", () => {
    const t = new Transcript().prompt();
    const [r1] = t.turn(read("a.ts"));
    const w1 = t.write([r1!]);
    const [r2] = t.turn(read("a.ts"));
    const set = workingSet(t.messages, options([w1, t.write([r2!])]));
    expect([...set.outputs]).toEqual([r2!]);
  });

  test("a read of other lines of the file is kept beside the newer one", () => {
    const t = new Transcript().prompt();
    const [r1] = t.turn(read("a.ts"));
    const [s1] = t.turn({ name: "read", args: { path: "a.ts", offset: 10, limit: 5 }, output: "lines" });
    const [s2] = t.turn({ name: "read", args: { path: "a.ts", offset: 40, limit: 5 }, output: "more lines" });
    const set = workingSet(t.messages, options([t.write([r1!, s1!, s2!])]));
    expect([...set.outputs].sort()).toEqual([r1!, s1!, s2!].sort());
  });

  test("an edit's arguments stay raw beside the read it was made from", () => {
    const t = new Transcript().prompt();
    const [r] = t.turn(read("a.ts"));
    const [e] = t.turn(edit("a.ts", "const x = 1;\nconst y = 2;", "const x = 10;\nconst y = 20;"));
    const set = workingSet(t.messages, options([t.write([r!, e!])]));
    expect([...set.outputs].sort()).toEqual([r!, e!].sort());
    expect([...set.arguments]).toEqual([e!]);
  });

  test("an edit whose new text a later edit took up as its old text is let go", () => {
    const t = new Transcript().prompt();
    const [e1] = t.turn(edit("a.ts", "function alpha() {}", "function alphaRenamed() {}"));
    const [e2] = t.turn(edit("a.ts", "function alphaRenamed() {}", "function alphaFinal() {}"));
    expect([...workingSet(t.messages, options([t.write([e1!, e2!])])).arguments]).toEqual([e2!]);
  });

  test("with workingSetPrompts 1 an edited file stays in the set until the next prompt begins", () => {
    const t = new Transcript().prompt();
    const [r] = t.turn(read("a.ts"));
    const [e] = t.turn(edit("a.ts", "const value = 1;", "const value = 2;"));
    t.reply();
    const atReply = t.write([r!, e!]);
    expect(workingSet(t.messages, options([atReply], 1)).outputs.has(e!)).toBe(true);
    expect(workingSet(t.messages, options([atReply], 0)).outputs.has(e!)).toBe(false);
    t.prompt("next");
    const [g] = t.turn(bash("ls"));
    expect(workingSet(t.messages, options([atReply, t.write([g!])], 1)).outputs.size).toBe(0);
  });

  test("nothing let go comes back: an edit after the file left the set keeps no older read raw", () => {
    const t = new Transcript().prompt();
    const [r] = t.turn(read("a.ts"));
    const w1 = t.write([r!]);
    t.reply().prompt("again");
    const [g] = t.turn(bash("ls"));
    const w2 = t.write([g!]);
    const [e] = t.turn(edit("a.ts", "text of a.ts", "new text of a.ts"));
    const set = workingSet(t.messages, options([w1, w2, t.write([e!])]));
    expect(set.outputs.has(r!)).toBe(false);
    expect(set.outputs.has(e!)).toBe(true);
  });

  test("what the next write lets go is named releasable once the run has ended", () => {
    const t = new Transcript().prompt();
    const [r] = t.turn(read("a.ts"));
    const w = t.write([r!]);
    expect(workingSet(t.messages, options([w])).releasable.size).toBe(0);
    t.reply();
    expect([...workingSet(t.messages, options([w])).releasable]).toEqual([r!]);
  });
});

describe("the working set on bad input", () => {
  test("the same file as ./a.ts, a.ts and an absolute path is one file", () => {
    const t = new Transcript().prompt();
    const keys = [...t.turn(read("/home/me/proj/a.ts")), ...t.turn(edit("./a.ts", "first line of a", "first line of b")), ...t.turn(read("a.ts"))];
    const set = workingSet(t.messages, options([t.write(keys)]));
    expect([...set.files]).toEqual(["/home/me/proj/a.ts"]);
  });

  test("a unicode path typed composed and decomposed is one file", () => {
    const t = new Transcript().prompt();
    const keys = [...t.turn(read("docs/caf\u00e9.md")), ...t.turn(read("docs/cafe\u0301.md"))];
    const set = workingSet(t.messages, options([t.write(keys)]));
    expect(set.files.size).toBe(1);
    expect([...set.outputs]).toEqual([keys[1]!]);
  });

  test("a renamed, moved or deleted file throws nothing and keeps only archived outputs", () => {
    const t = new Transcript().prompt();
    const keys = [...t.turn(read("a.ts")), ...t.turn(bash("mv a.ts lib/b.ts")), ...t.turn(read("lib/b.ts")), ...t.turn(bash("rm lib/b.ts")), ...t.turn(read("lib/b.ts", "ENOENT: no such file"))];
    const set = workingSet(t.messages, options([t.write(keys)]));
    for (const key of set.outputs) expect(keys).toContain(key);
  });

  test("a read of a directory that failed touches the folder and keeps nothing", () => {
    const t = new Transcript().prompt();
    const [d] = t.turn({ name: "read", args: { path: "src/" }, output: "EISDIR: illegal operation on a directory", isError: true });
    const set = workingSet(t.messages, options([t.write([d!])]));
    expect(set.outputs.size).toBe(0);
    expect([...set.files]).toEqual(["src"]);
  });

  test("a 10 MB read is never kept raw: the write hides it, and says so", () => {
    const t = new Transcript().prompt();
    const [big] = t.turn(read("data.bin", "\u0000\u0001binary".repeat(1_300_000)));
    const set = workingSet(t.messages, options([t.write([big!])]));
    expect(set.outputs.size).toBe(0);
    expect(set.hidden.map((h) => h.key)).toEqual([big!]);
  });

  test("a bash command reading several files keeps its output for each of them", () => {
    const t = new Transcript().prompt();
    const [c] = t.turn(bash("cat a.ts b.ts", "both files"));
    const set = workingSet(t.messages, options([t.write([c!])]));
    expect([...set.files].sort()).toEqual(["a.ts", "b.ts"]);
    expect([...set.outputs]).toEqual([c!]);
  });

  test("a bash command that cannot be parsed touches nothing and throws nothing", () => {
    const t = new Transcript().prompt();
    const [c] = t.turn(bash("cat 'unterminated $(( <<"));
    expect(workingSet(t.messages, options([t.write([c!])])).files.size).toBe(0);
  });

  test("a failed edit keeps its file in the set but not its arguments", () => {
    const t = new Transcript().prompt();
    const [r] = t.turn(read("a.ts"));
    const [e] = t.turn({ ...edit("a.ts", "missing text here", "new text here"), output: "Could not find the exact text in a.ts", isError: true });
    const set = workingSet(t.messages, options([t.write([r!, e!])]));
    expect(set.outputs.has(r!)).toBe(true);
    expect(set.arguments.size).toBe(0);
  });

  test("two edits of the same lines in one turn keep only the later one's arguments", () => {
    const t = new Transcript().prompt();
    const keys = t.turn(edit("a.ts", "let total = 0;", "let total = 1;"), edit("a.ts", "let total = 1;", "let total = 2;"));
    expect([...workingSet(t.messages, options([t.write(keys)])).arguments]).toEqual([keys[1]!]);
  });

  test("messages that are not a transcript give an empty set", () => {
    const writes = [{ at: 5, keys: ["x@1"] }];
    expect(workingSet(null as unknown as unknown[], options(writes)).outputs.size).toBe(0);
    expect(workingSet([1, "a", null, { role: "toolResult" }, { role: "assistant", content: "x", timestamp: 2 }], options(writes)).outputs.size).toBe(0);
  });
});

describe("what one more write would do (the policy's view)", () => {
  test("says what it keeps raw, what it lets go and what it hides", () => {
    const t = new Transcript().prompt();
    const [old] = t.turn(read("a.ts"));
    const w1 = t.write([old!]);
    t.reply().prompt("next");
    const [r] = t.turn(read("b.ts"));
    const [big] = t.turn(read("c.ts", "x".repeat(MAX_KEPT_CHARS + 1)));
    const sight = sightOfWrite(t.messages, options([w1]), t.write([]).at, [r!, big!]);
    expect([...sight.kept]).toEqual([r!]);
    expect([...sight.released]).toEqual([old!]);
    expect(sight.hidden).toEqual([{ key: big!, chars: MAX_KEPT_CHARS + 1, edited: false }]);
  });
});
