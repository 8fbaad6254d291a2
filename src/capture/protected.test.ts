import { describe, expect, test } from "bun:test";
import { globToRegExp, isProtected, normalizePath } from "./protected.js";
import { makeAgentDir } from "../../test/fake-host.js";
import { loadConfig } from "../settings/config.js";
import { DEFAULT_CONFIG } from "../settings/config-shape.js";

const skillsConfig = { protectedTools: [] as string[], protectedPaths: ["**/skills/**/*.md"] };

describe("globToRegExp", () => {
  test("**/skills/**/*.md matches absolute and nested relative skill paths (38)", () => {
    const re = globToRegExp("**/skills/**/*.md");
    expect(re.test("/home/u/.agents/skills/release/SKILL.md")).toBe(true);
    expect(re.test("a/skills/b/c/notes.md")).toBe(true);
  });

  test("a leading **/ also matches zero directories (39)", () => {
    expect(globToRegExp("**/SKILL.md").test("SKILL.md")).toBe(true);
    expect(globToRegExp("**/skills/**/*.md").test("skills/foo.md")).toBe(true);
  });

  test("* and ? never cross a slash (40)", () => {
    expect(globToRegExp("skills/*.md").test("skills/a/b.md")).toBe(false);
    expect(globToRegExp("skills/?.md").test("skills/a.md")).toBe(true);
    expect(globToRegExp("skills/?.md").test("skills//x.md")).toBe(false);
  });

  test("regex metacharacters are literal (41)", () => {
    expect(globToRegExp("a+b/(c).md").test("a+b/(c).md")).toBe(true);
    expect(globToRegExp("a.md").test("aXmd")).toBe(false);
    expect(globToRegExp("x[1]{2}|^$\\.md").test("x[1]{2}|^$\\.md")).toBe(true);
  });

  test("matching is anchored at both ends (42)", () => {
    const re = globToRegExp("skills/a.md");
    expect(re.test("xskills/a.md")).toBe(false);
    expect(re.test("skills/a.md.bak")).toBe(false);
  });

  test("matching is case-sensitive (43)", () => {
    expect(globToRegExp("**/SKILL.md").test("a/skill.md")).toBe(false);
  });

  test("a trailing ** matches across slashes", () => {
    expect(globToRegExp("docs/**").test("docs/a/b/c.txt")).toBe(true);
  });

  test("compiled patterns are memoized per pattern string", () => {
    expect(globToRegExp("memo/*.md")).toBe(globToRegExp("memo/*.md"));
  });

  test("odd-looking globs still compile without throwing (P3)", () => {
    expect(() => globToRegExp("[unclosed(*")).not.toThrow();
    expect(globToRegExp("[unclosed(*").test("[unclosed(abc")).toBe(true);
  });
});

describe("isProtected", () => {
  test("a listed tool name is protected even with undefined args (44)", () => {
    expect(isProtected("todowrite", undefined, { protectedTools: ["todowrite"], protectedPaths: [] })).toBe(true);
  });

  test("tool names match case-sensitively", () => {
    expect(isProtected("TodoWrite", undefined, { protectedTools: ["todowrite"], protectedPaths: [] })).toBe(false);
  });

  test("a read of a skill file is protected while a source file is not (45)", () => {
    expect(isProtected("read", { path: "/h/skills/x/SKILL.md" }, skillsConfig)).toBe(true);
    expect(isProtected("read", { path: "/h/src/app.ts" }, skillsConfig)).toBe(false);
  });

  test("backslash paths are normalized to forward slashes (46)", () => {
    expect(isProtected("read", { path: "h\\skills\\x\\SKILL.md" }, skillsConfig)).toBe(true);
  });

  test("non-string paths and missing args are not path-protected (47)", () => {
    expect(isProtected("read", { path: 42 }, skillsConfig)).toBe(false);
    expect(isProtected("read", {}, skillsConfig)).toBe(false);
    expect(isProtected("read", undefined, skillsConfig)).toBe(false);
    expect(isProtected("read", null, skillsConfig)).toBe(false);
  });

  test("empty tool and path lists protect nothing (48)", () => {
    const empty = { protectedTools: [], protectedPaths: [] };
    expect(isProtected("todowrite", { path: "/h/skills/x/SKILL.md" }, empty)).toBe(false);
  });

  test("only the argument named path is consulted (P4)", () => {
    expect(isProtected("read", { file: "/h/skills/x/SKILL.md" }, skillsConfig)).toBe(false);
  });
});

describe("normalizePath", () => {
  test("every backslash becomes a forward slash and nothing else changes", () => {
    expect(normalizePath("C:\\h\\skills\\x\\SKILL.md")).toBe("C:/h/skills/x/SKILL.md");
    expect(normalizePath("/h/skills/x/SKILL.md")).toBe("/h/skills/x/SKILL.md");
  });
});

describe("isProtected with malformed settings", () => {
  test("non-array lists and non-string patterns protect nothing instead of throwing", () => {
    const broken = { protectedTools: "todowrite", protectedPaths: [42, null] } as any;
    expect(isProtected("todo", { path: "a" }, broken)).toBe(false);
    expect(isProtected("todowrite", undefined, { protectedTools: null, protectedPaths: undefined } as any)).toBe(false);
  });
});

describe("the default protected paths (spec 70 §7)", () => {
  test("gauntlet-overrides.md is protected in .pi/, in doc/ and bare", () => {
    for (const path of [".pi/gauntlet-overrides.md", "doc/gauntlet-overrides.md", "gauntlet-overrides.md", "/abs/repo/.pi/gauntlet-overrides.md"]) {
      expect(isProtected("read", { path }, DEFAULT_CONFIG)).toBe(true);
    }
  });

  test("gauntlet-overrides.txt is not", () => {
    expect(isProtected("read", { path: "gauntlet-overrides.txt" }, DEFAULT_CONFIG)).toBe(false);
  });

  test("stored protectedPaths replace the defaults instead of joining them", async () => {
    const agent = makeAgentDir({ protectedPaths: ["x/**"] });
    const previous = process.env.PI_CODING_AGENT_DIR;
    process.env.PI_CODING_AGENT_DIR = agent.dir;
    const loaded = await loadConfig().finally(() => {
      if (previous === undefined) delete process.env.PI_CODING_AGENT_DIR;
      else process.env.PI_CODING_AGENT_DIR = previous;
      agent.cleanup();
    });
    expect(isProtected("read", { path: ".pi/gauntlet-overrides.md" }, loaded)).toBe(false);
    expect(isProtected("read", { path: "x/y.md" }, loaded)).toBe(true);
  });
});
