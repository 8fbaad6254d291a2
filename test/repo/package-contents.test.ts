// What `npm pack` ships: the single-file build the pi manifest loads and the docs a user reads;
// no TypeScript source (pi would never load it) and no test.
import { describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");

function packedFiles(): string[] {
  const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  return (JSON.parse(out)[0].files as Array<{ path: string }>).map((f) => f.path);
}

describe("the npm package", () => {
  const files = packedFiles();

  test("ships every file the pi manifest names", () => {
    const manifest: string[] = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).pi.extensions;
    for (const entry of manifest) expect(files).toContain(entry.replace(/^\.\//, ""));
  });

  test("ships no TypeScript source: the build is the whole extension", () => {
    expect(files.filter((f) => f.endsWith(".ts"))).toEqual([]);
  });

  test("ships the user docs the README links: PRUNING.md, CHANGELOG.md and doc/*.md", () => {
    for (const doc of ["README.md", "PRUNING.md", "CHANGELOG.md", "doc/configuration.md", "doc/usage.md", "doc/how-it-works.md", "doc/development.md", "LICENSE"]) {
      expect(files).toContain(doc);
    }
  });

  test("ships no test file and no test helper", () => {
    expect(files.filter((f) => f.includes(".test.") || f.startsWith("test/") || f.startsWith("bench/"))).toEqual([]);
  });
});
