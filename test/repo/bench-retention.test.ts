import { describe, expect, test } from "bun:test";
import { keptBy, learnedIdentifiers, type Trajectory } from "../../bench/retention-identifiers.js";
import { containsToken, identifierCandidates } from "../../src/forgetting/identifiers.js";
import { runOfSession } from "../../bench/retention-runs.js";

const texts = (text: string) => identifierCandidates(text).map((c) => `${c.kind}:${c.texts[0]}`);

describe("the identifiers an output holds", () => {
  test("paths, called symbols, exception names and line numbers", () => {
    const output = 'File "/repo/app/models.py", line 66, in save\n    self.full_clean()\ndjango.core.exceptions.FieldError: bad\nsee docs/a.md';
    expect(texts(output)).toEqual(["path:/repo/app/models.py", "path:docs/a.md", "symbol:full_clean", "exception:FieldError", "line:66"]);
  });

  test("a file:line reference gives its file and its line", () => {
    expect(texts("error at app.py:12:5")).toEqual(["path:app.py", "line:12"]);
  });

  test("a path stands for its shorter tails, longest first", () => {
    expect(identifierCandidates("/testbed/django/db/models.py")[0]!.texts).toEqual([
      "/testbed/django/db/models.py",
      "testbed/django/db/models.py",
      "django/db/models.py",
      "db/models.py",
      "models.py",
    ]);
  });

  test("names are whole tokens: a name inside a longer one is not it", () => {
    expect(containsToken("get_queryset()", "queryset", "symbol")).toBe(false);
    expect(containsToken("call get_queryset now", "get_queryset", "symbol")).toBe(true);
    expect(containsToken("sed -n 120,140p", "12", "line")).toBe(false);
  });

  test("a path is found inside a longer spelling of the same file, not inside another name", () => {
    expect(containsToken("cat /repo/django/db/models.py", "django/db/models.py", "path")).toBe(true);
    expect(containsToken("cat mydjango/db/models.py", "django/db/models.py", "path")).toBe(false);
  });
});

describe("the identifiers an agent learned from an output", () => {
  const trajectory: Trajectory = {
    task: "Fix the crash in save().",
    steps: [
      { command: "python run.py", output: 'File "/repo/app/models.py", line 66, in save\n    self.full_clean()\nKeyError: x' },
      { command: "sed -n 60,70p app/models.py && grep -n full_clean app/models.py", output: "def full_clean(self):" },
      { command: "python -c 'raise KeyError'", output: "" },
    ],
  };

  test("counts those a later command uses and neither the task nor an earlier command named", () => {
    expect(learnedIdentifiers(trajectory)[0]).toEqual([
      { kind: "path", text: "app/models.py" },
      { kind: "symbol", text: "full_clean" },
      { kind: "exception", text: "KeyError" },
    ]);
  });

  test("an identifier an earlier command already named is not learned again", () => {
    expect(learnedIdentifiers(trajectory)[1]).toEqual([]);
  });

  test("a stub keeps an identifier when it holds its text as a token", () => {
    const learned = learnedIdentifiers(trajectory)[0]!;
    expect(keptBy("[`t1` archived: exit 1; KeyError /repo/app/models.py:66]", learned)).toBe(2);
  });
});

describe("agent runs read from a pi session", () => {
  test("the task is the system prompt and the user messages before the first call; each call pairs with its result", () => {
    const jsonl = [
      { type: "session" },
      { type: "message", message: { role: "system", content: "", sections: { preamble: "You fix bugs." } } },
      { type: "message", message: { role: "user", content: "Fix save()." } },
      { type: "message", message: { role: "assistant", content: [{ type: "toolCall", id: "c1", name: "bash", arguments: { command: "ls" } }] } },
      { type: "message", message: { role: "toolResult", toolCallId: "c1", content: [{ type: "text", text: "a.py" }], isError: true } },
      { type: "message", message: { role: "user", content: "Please use one block." } },
    ]
      .map((e) => JSON.stringify(e))
      .join("\n");
    expect(runOfSession(`${jsonl}\nnot json`, "r")).toEqual({
      name: "r",
      task: "You fix bugs.\nFix save().",
      steps: [{ toolName: "bash", args: { command: "ls" }, command: "ls", output: "a.py", isError: true }],
    });
  });
});
