import { describe, expect, test } from "bun:test";
import { shellTouches } from "./shell-touches.js";

const views = (command: string) => shellTouches(command).filter((t) => t.kind === "view").map((t) => t.path);
const changes = (command: string) => shellTouches(command).filter((t) => t.kind !== "view").map((t) => `${t.kind}:${t.path}`);

describe("the files a bash command reads", () => {
  test("cat of one file shows that file", () => {
    expect(views("cat src/a.ts")).toEqual(["src/a.ts"]);
  });

  test("cat of several files shows each of them", () => {
    expect(views("cat a.ts b.ts c.ts")).toEqual(["a.ts", "b.ts", "c.ts"]);
  });

  test("sed -n with a line range shows the file after the script", () => {
    expect(views("sed -n '10,40p' lib/x.py")).toEqual(["lib/x.py"]);
  });

  test("head and tail with a line count show the file", () => {
    expect(views("head -n 20 a.txt")).toEqual(["a.txt"]);
    expect(views("tail -50 b.txt")).toEqual(["b.txt"]);
  });

  test("nl piped into sed -n shows the numbered file", () => {
    expect(views("nl -ba django/db/models/deletion.py | sed -n '231,245p'")).toEqual(["django/db/models/deletion.py"]);
  });

  test("a cat piped into grep shows only matches, so it is not a view", () => {
    expect(views("cat a.ts | grep foo")).toEqual([]);
  });

  test("a cd before the read is joined to the relative path", () => {
    expect(views("cd /testbed && sed -n '1,5p' pkg/mod.py")).toEqual(["/testbed/pkg/mod.py"]);
  });

  test("each segment of && and ; is read on its own", () => {
    expect(views("cat a.ts && head b.ts; tail c.ts")).toEqual(["a.ts", "b.ts", "c.ts"]);
  });

  test("grep and sed without -n are not views", () => {
    expect(views("grep -n foo a.ts")).toEqual([]);
    expect(views("sed 's/a/b/' a.ts")).toEqual([]);
  });
});

describe("the files a bash command writes", () => {
  test("a redirect replaces its target", () => {
    expect(changes("echo hi > out.txt")).toEqual(["write:out.txt"]);
  });

  test("an append redirect changes its target", () => {
    expect(changes("echo hi >> out.txt")).toEqual(["edit:out.txt"]);
  });

  test("a here-document written to a file is a write, and its body is not read as commands", () => {
    expect(shellTouches("cat <<'EOF' > fix.py\nimport os\ncat secret.txt > other.txt\nEOF")).toEqual([{ path: "fix.py", kind: "write" }]);
  });

  test("sed -i edits its files in place", () => {
    expect(changes("sed -i 's/a/b/' x.py y.py")).toEqual(["edit:x.py", "edit:y.py"]);
  });

  test("tee writes its file", () => {
    expect(changes("echo x | tee log.txt")).toEqual(["write:log.txt"]);
  });

  test("redirects to /dev/null and to a descriptor name no file", () => {
    expect(changes("make 2>&1 > /dev/null")).toEqual([]);
    expect(changes("make 2> err.log")).toEqual([]);
  });
});

describe("commands that cannot be read", () => {
  test("an open quote touches nothing and does not throw", () => {
    expect(shellTouches("cat 'a.ts")).toEqual([]);
  });

  test("expansions and globs are not taken for files", () => {
    expect(views("cat $FILE *.ts")).toEqual([]);
    expect(views("cat $(ls)")).toEqual([]);
  });

  test("anything that is not a string touches nothing", () => {
    expect(shellTouches(undefined as unknown as string)).toEqual([]);
    expect(shellTouches("")).toEqual([]);
  });

  test("a unicode path is read as written", () => {
    expect(views("cat 'docs/über café.md'")).toEqual([]);
    expect(views("cat docs/über-café.md")).toEqual(["docs/über-café.md"]);
  });
});
