// The docs must stay true to the code: every config key, custom entry type, source module,
// subcommand and npm script they are expected to cover is checked against the real sources.
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { SUBCOMMANDS } from "../../src/commands/command-help.js";
import { reportPathFor } from "../../src/report/session-file.js";
import * as types from "../../src/types.js";
import { DEFAULT_CONFIG } from "../../src/types.js";

const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const read = (file: string): string => readFileSync(join(REPO, file), "utf8");

const README = read("README.md");
const HOW_IT_WORKS = read("doc/how-it-works.md");
const AGENTS = read("AGENTS.md");
const CONFIGURATION = read("doc/configuration.md");
const CHANGELOG = read("CHANGELOG.md");
const PACKAGE = JSON.parse(read("package.json"));

function configKeys(): string[] {
  const keys: string[] = [];
  for (const [key, value] of Object.entries(DEFAULT_CONFIG)) {
    keys.push(key);
    if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      for (const nested of Object.keys(value)) keys.push(`${key}.${nested}`);
    }
  }
  return keys;
}

function customTypes(): string[] {
  return Object.entries(types)
    .filter(([name, value]) => name.startsWith("CUSTOM_TYPE_") && typeof value === "string")
    .map(([, value]) => value as string);
}

function missing(doc: string, needles: string[]): string[] {
  return needles.filter((needle) => !doc.includes(needle));
}

describe("doc/configuration.md", () => {
  test("names every DEFAULT_CONFIG key, nested chainCompression.* and purgeErrors.* included", () => {
    const keys = configKeys();
    expect(keys).toContain("chainCompression.rollingWindow");
    expect(keys).toContain("purgeErrors.minArgChars");
    expect(missing(CONFIGURATION, keys.map((key) => `\`${key}\``))).toEqual([]);
  });

  test("documents every /pruner subcommand", () => {
    expect(missing(CONFIGURATION, SUBCOMMANDS.map((s) => `/pruner ${s.value}`))).toEqual([]);
  });

  test("lists every footer state", () => {
    const states = ["prune: OFF", "prune: ON", "pending", "prune: summarizing…", "prune: recovered pending (reload)", "diag ", "think "];
    expect(missing(CONFIGURATION, states)).toEqual([]);
  });
});

describe("README.md and AGENTS.md", () => {
  test("name every custom entry type the code writes (the README's table lives in doc/how-it-works.md)", () => {
    const all = customTypes();
    expect(all.length).toBe(12);
    expect(missing(HOW_IT_WORKS, all)).toEqual([]);
    expect(missing(AGENTS, all)).toEqual([]);
  });

  test("the README documents every /pruner subcommand", () => {
    expect(missing(README, SUBCOMMANDS.map((s) => `/pruner ${s.value}`))).toEqual([]);
  });

  test("every `npm run <script>` they mention exists in package.json", () => {
    const mentioned = new Set<string>();
    for (const doc of [README, AGENTS]) for (const m of doc.matchAll(/npm run ([a-z][\w:-]*)/g)) mentioned.add(m[1]!);
    expect(mentioned.size).toBeGreaterThan(0);
    expect([...mentioned].filter((name) => !(name in PACKAGE.scripts))).toEqual([]);
  });
});

describe("README.md as a first read (issue 36, point 18; issue 45, point 20)", () => {
  const lines = README.split("\n");
  const headingLine = (prefix: string) => lines.findIndex((line) => line.startsWith(prefix)) + 1;

  test("is at most 25,000 characters", () => {
    expect(README.length).toBeLessThanOrEqual(25_000);
  });

  test("has install, the quick start and the demo within its first 60 lines", () => {
    for (const heading of ["## Install", "## Quick start", "## See it work offline"]) {
      expect(headingLine(heading)).toBeGreaterThan(0);
      expect(headingLine(heading)).toBeLessThanOrEqual(60);
    }
  });

  test("names pi's Node requirement in the quick start and shows how to start pi with the bun npm install brings (point 17)", () => {
    const quick = README.slice(README.indexOf("## Quick start"), README.indexOf("## Install"));
    expect(quick).toContain("22.19");
    expect(quick).toContain("[Install](#install)");
    expect(README.indexOf("node_modules/.bin/bun node_modules/.bin/pi")).toBeGreaterThan(README.indexOf("## Install"));
  });
});

describe("README.md for a newcomer (issue 45, point 20)", () => {
  const lines = README.split("\n");

  test("shows the two commands a user needs on the first screen, before the install table", () => {
    const firstScreen = lines.slice(0, 24).join("\n");
    expect(firstScreen).toContain("pi install git:github.com/pi-condense/pi-condense");
    expect(firstScreen).toContain("/pruner on");
    expect(README.indexOf("## Quick start")).toBeLessThan(README.indexOf("| What | Command |"));
  });

  test("keeps the install table's cells short", () => {
    const table = lines.slice(lines.indexOf("| What | Command |") + 2).filter((line, i, all) => all.slice(0, i + 1).every((l) => l.startsWith("|")));
    expect(table.length).toBeGreaterThan(3);
    for (const row of table) for (const cell of row.split("|").slice(1, -1)) expect(cell.trim().length).toBeLessThanOrEqual(70);
  });

  test("is shorter than the 354 lines the issue found", () => {
    expect(lines.length).toBeLessThanOrEqual(320);
  });

  test("no longer says the tree browser shows only previews: only a spilled output is shown by its first lines", () => {
    expect(README).not.toContain("does not show full outputs");
    expect(README).toMatch(/tree browser shows an output kept in a file beside the session\*\* \(65,536 characters or more\) by its\s+first lines only/);
  });

  test("names the HTML report's file for a session pi named and for any other file, as the code makes them", () => {
    expect(reportPathFor("/s/2026-01-01T00-00-00-000Z_01a252cd-544d-73c1-9c01-34761a075237.jsonl")).toBe("/s/report-34761a075237.html");
    expect(README).toContain("`report-<the last 12 hex digits of the session id>.html` for a");
    expect(reportPathFor("/s/x.jsonl")).toBe("/s/x.report.html");
    expect(README).toContain("`<name>.report.html` for any other (`x.jsonl` gives `x.report.html`)");
  });

  test("explains in its glossary every term its sections and the report use", () => {
    const glossary = README.slice(README.indexOf("## Glossary"), README.indexOf("\n## ", README.indexOf("## Glossary") + 1));
    for (const term of ["| flush |", "| chain block", "| prefix break", "| breakpoint route |", "| spare breakpoint |", "| bound on waiting |", "| stub, ref |"]) {
      expect(glossary).toContain(term);
    }
  });

  test("says why gauntlet-overrides.md is protected by default", () => {
    expect(README).toMatch(/pi-gauntlet's per-repository rules file is why\s+`\*\*\/gauntlet-overrides\.md` is protected by default/);
  });
});

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  const text = markdown.replace(/^```[\s\S]*?^```/gm, "");
  for (const match of text.matchAll(/^#{1,6} +(.+?) *$/gm)) {
    const base = match[1]!.toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, "").replace(/ /g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Relative links `[text](target)` outside code, as [file the link is in, target]. */
function relativeLinks(file: string): Array<[string, string]> {
  const text = read(file).replace(/^```[\s\S]*?^```/gm, "").replace(/`[^`\n]*`/g, "");
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!)
    .filter((target) => !/^[a-z]+:/i.test(target))
    .map((target) => [file, target]);
}

describe("links between the docs", () => {
  const docs = ["README.md", ...readdirSync(join(REPO, "doc")).filter((f) => f.endsWith(".md")).map((f) => `doc/${f}`)];

  test("every relative link in README.md and doc/*.md names a file that exists and, for a heading, one it has", () => {
    const broken: string[] = [];
    const links = docs.flatMap(relativeLinks);
    expect(links.length).toBeGreaterThan(20);
    for (const [file, target] of links) {
      const [path, hash] = target.split("#") as [string, string | undefined];
      const resolved = path === "" ? file : join(dirname(file), path).split("\\").join("/");
      if (!existsSync(join(REPO, resolved))) broken.push(`${file}: ${target}`);
      else if (hash !== undefined && resolved.endsWith(".md") && !anchors(read(resolved)).has(hash)) broken.push(`${file}: ${target}`);
    }
    expect(broken).toEqual([]);
  });

  test("the anchor reader finds the headings as GitHub names them", () => {
    const found = anchors("# A\n## See it work offline: `npm run demo`\n## A\n```\n# not a heading\n```\n");
    expect([...found]).toEqual(["a", "see-it-work-offline-npm-run-demo", "a-1"]);
  });
});

/** Every non-test `.ts` file under src/, as a path relative to src/ with forward slashes. */
function sourceModules(): string[] {
  return (readdirSync(join(REPO, "src"), { recursive: true }) as string[])
    .map((f) => f.split("\\").join("/"))
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"))
    .sort();
}

describe("AGENTS.md", () => {
  test("the layout table lists index.ts and every source module in src/", () => {
    const modules = sourceModules().map((f) => `\`src/${f}\``);
    expect(modules.length).toBeGreaterThan(40);
    expect(missing(AGENTS, ["`index.ts`", ...modules])).toEqual([]);
  });

  test("every folder of src/ is described, holds at most 15 modules, and few modules sit at the top", () => {
    const folders = new Map<string, number>();
    for (const file of sourceModules()) {
      const folder = file.includes("/") ? file.slice(0, file.indexOf("/")) : "";
      folders.set(folder, (folders.get(folder) ?? 0) + 1);
    }
    expect(folders.get("") ?? 0).toBeLessThanOrEqual(5);
    expect([...folders].filter(([, n]) => n > 15)).toEqual([]);
    expect(missing(AGENTS, [...folders.keys()].filter(Boolean).map((f) => `\`src/${f}/\``))).toEqual([]);
  });

  test("every ground-truth pointer names a file that exists in the installed pi packages", () => {
    const pointers = [...AGENTS.matchAll(/`(pi-(?:coding-agent|ai|tui)\/(?:dist|docs)\/[^`\s]+)`/g)].map((m) => m[1]!);
    expect(pointers.length).toBeGreaterThanOrEqual(6);
    const absent = pointers.filter((p) => !existsSync(join(REPO, "node_modules", "@earendil-works", p)));
    expect(absent).toEqual([]);
  });
});

describe("CHANGELOG.md and package metadata", () => {
  test("the CHANGELOG has a dated section for the package version", () => {
    const heading = new RegExp(`^## \\[${PACKAGE.version.replace(/\./g, "\\.")}\\] - \\d{4}-\\d{2}-\\d{2}$`, "m");
    expect(CHANGELOG).toMatch(heading);
  });

  test("released sections are listed newest first, below [Unreleased]", () => {
    const versions = [...CHANGELOG.matchAll(/^## \[([^\]]+)\]/gm)].map((m) => m[1]!);
    expect(versions[0]).toBe("Unreleased");
    const released = versions.slice(1).map((v) => v.split(".").map(Number));
    const sorted = [...released].sort((a, b) => b[0]! - a[0]! || b[1]! - a[1]! || b[2]! - a[2]!);
    expect(released).toEqual(sorted);
  });

  test("pi.image points at the repo-root logo, which exists", () => {
    expect(PACKAGE.pi.image).toBe("https://raw.githubusercontent.com/pi-condense/pi-condense/main/pi-condense.png");
    expect(existsSync(join(REPO, "pi-condense.png"))).toBe(true);
    expect(README).toContain("pi-condense.png");
  });
});
