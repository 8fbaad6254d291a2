import { describe, expect, test } from "bun:test";
import { parseSession } from "./session-parse.js";

const header = (version = 3) => JSON.stringify({ type: "session", version, id: "s-1", timestamp: "2025-01-01T00:00:00.000Z", cwd: "/p" });
let counter = 0;
function entry(parentId: string | null, message: Record<string, unknown>, id = `e${++counter}`) {
  return JSON.stringify({ type: "message", id, parentId, timestamp: "2025-01-01T00:00:01.000Z", message: { timestamp: 1, ...message } });
}
const user = (id: string, parent: string | null) => entry(parent, { role: "user", content: "hi" }, id);
const reply = (id: string, parent: string | null) => entry(parent, { role: "assistant", content: [{ type: "text", text: "ok" }] }, id);

describe("parseSession", () => {
  test("a well-formed session gives its branch root first and no problems", () => {
    const parsed = parseSession([header(), user("a", null), reply("b", "a")].join("\n"));
    expect(parsed.problems).toEqual([]);
    expect(parsed.id).toBe("s-1");
    expect(parsed.branch.map((e) => e.id)).toEqual(["a", "b"]);
  });

  test("a corrupt line in the middle is named by its line number and the rest is kept", () => {
    const parsed = parseSession([header(), user("a", null), '{"type":"message", broken', reply("b", "a")].join("\n"));
    expect(parsed.problems.map((p) => p.line)).toEqual([3]);
    expect(parsed.problems[0]!.message).toStartWith("line 3: corrupt JSON");
    expect(parsed.branch.map((e) => e.id)).toEqual(["a", "b"]);
  });

  test("a truncated last line is called truncated, and the entries before it replay", () => {
    const last = reply("b", "a");
    const parsed = parseSession([header(), user("a", null), last.slice(0, last.length - 9)].join("\n"));
    expect(parsed.problems[0]!.message).toStartWith("line 3: truncated or corrupt JSON (the last line");
    expect(parsed.branch.map((e) => e.id)).toEqual(["a"]);
  });

  test("a file that is not a session says so on its first line and yields no branch", () => {
    const parsed = parseSession('{"name":"my-package","version":"1.0.0"}\n');
    expect(parsed.notASession).toBe(true);
    expect(parsed.problems[0]!.message).toContain("this file is not a pi session");
    expect(parsed.branch).toEqual([]);
  });

  test("plain text is not a session either", () => {
    expect(parseSession("hello\nworld\n").notASession).toBe(true);
  });

  test("a session of a newer pi version is replayed with a line-1 warning", () => {
    const parsed = parseSession([header(9), user("a", null), reply("b", "a")].join("\n"));
    expect(parsed.problems[0]!.message).toStartWith("line 1: session version 9 is newer");
    expect(parsed.branch).toHaveLength(2);
  });

  test("a version 1 session (no ids) is migrated in memory and replayed", () => {
    const v1 = [
      JSON.stringify({ type: "session", id: "old", timestamp: "2024-01-01T00:00:00.000Z", cwd: "/p" }),
      JSON.stringify({ type: "message", timestamp: "2024-01-01T00:00:01.000Z", message: { role: "user", content: "hi", timestamp: 1 } }),
      JSON.stringify({ type: "message", timestamp: "2024-01-01T00:00:02.000Z", message: { role: "assistant", content: [], timestamp: 2 } }),
    ].join("\n");
    const parsed = parseSession(v1);
    expect(parsed.problems[0]!.message).toContain("session version 1, migrated in memory");
    expect(parsed.branch.map((e) => (e as any).message.role)).toEqual(["user", "assistant"]);
  });

  test("an entry whose parent is missing starts the branch and is named", () => {
    const parsed = parseSession([header(), user("a", "gone"), reply("b", "a")].join("\n"));
    expect(parsed.branch.map((e) => e.id)).toEqual(["a", "b"]);
    expect(parsed.problems[0]!.message).toBe("line 2: parent entry gone is missing; the branch starts here");
  });

  test("a message entry without a message is named and skipped, and the branch goes on through it", () => {
    const broken = JSON.stringify({ type: "message", id: "x", parentId: "a", timestamp: "2025-01-01T00:00:01.000Z", message: null });
    const parsed = parseSession([header(), user("a", null), broken, reply("b", "x")].join("\n"));
    expect(parsed.problems.map((p) => p.message)).toEqual(["line 3: a message entry without a message (no role), skipped"]);
    expect(parsed.branch.map((e) => e.id)).toEqual(["a", "b"]);
  });

  test("the active branch is the last entry's path, not every entry", () => {
    const parsed = parseSession([header(), user("a", null), reply("b", "a"), user("c", "a"), reply("d", "c")].join("\n"));
    expect(parsed.branch.map((e) => e.id)).toEqual(["a", "c", "d"]);
  });
});
