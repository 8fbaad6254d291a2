// The docs must stay true to the code: every config key, custom entry type, source module,
// subcommand and npm script they are expected to cover is checked against the real sources.
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { SUBCOMMANDS } from "../../src/commands/command-help.js";
import * as types from "../../src/types.js";
import { DEFAULT_CONFIG } from "../../src/types.js";

const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const read = (file: string): string => readFileSync(join(REPO, file), "utf8");

const README = read("README.md");
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
  test("name every custom entry type the code writes", () => {
    const all = customTypes();
    expect(all.length).toBe(11);
    expect(missing(README, all)).toEqual([]);
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
