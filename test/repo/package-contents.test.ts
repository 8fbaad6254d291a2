// What `npm pack` ships: the sources a pi host loads and the docs a user reads, never tests.
import { describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");

function packedFiles(): string[] {
  const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  return (JSON.parse(out)[0].files as Array<{ path: string }>).map((f) => f.path);
}

function sourceModules(dir = join(ROOT, "src")): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceModules(join(dir, e.name)) : e.name.endsWith(".ts") && !e.name.endsWith(".test.ts") ? [relative(ROOT, join(dir, e.name))] : [],
  );
}

describe("the npm package", () => {
  const files = packedFiles();

  test("ships index.ts and every source module", () => {
    expect(files).toContain("index.ts");
    for (const module of sourceModules()) expect(files).toContain(module);
  });

  test("ships the user docs the README links: PRUNING.md, CHANGELOG.md and doc/configuration.md", () => {
    for (const doc of ["README.md", "PRUNING.md", "CHANGELOG.md", "doc/configuration.md", "LICENSE"]) expect(files).toContain(doc);
  });

  test("ships no test file and no test helper", () => {
    expect(files.filter((f) => f.includes(".test.") || f.startsWith("test/") || f.startsWith("bench/"))).toEqual([]);
  });
});
