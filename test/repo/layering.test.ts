import { afterAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const DEPCRUISE = join(REPO, "node_modules", "dependency-cruiser", "bin", "dependency-cruise.mjs");
const CONFIG = join(REPO, ".dependency-cruiser.cjs");
const work = mkdtempSync(join(tmpdir(), "layering-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Runs the project's dependency check over a scratch tree of the given files. */
function checkTree(files: Record<string, string>): { status: number | null; out: string } {
  const root = mkdtempSync(join(work, "tree-"));
  writeFileSync(join(root, "tsconfig.json"), JSON.stringify({ compilerOptions: { module: "nodenext", moduleResolution: "nodenext", allowJs: true } }));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  const run = spawnSync("node", [DEPCRUISE, "--config", CONFIG, "src"], { cwd: root, encoding: "utf8" });
  return { status: run.status, out: `${run.stdout}${run.stderr}` };
}

// Each test spawns depcruise (about a second alone); a loaded machine takes several.
const SPAWN_TIMEOUT_MS = 60_000;

describe("the dependency check", () => {
  test("passes on a tree that follows the layers", () => {
    const run = checkTree({
      "src/names.ts": "export const A = 1;\n",
      "src/capture/low.ts": 'import { A } from "../names.js";\nexport const B = A;\n',
      "src/host/high.ts": 'import { B } from "../capture/low.js";\nexport const C = B;\n',
    });
    expect(run.out).toContain("no dependency violations");
    expect(run.status).toBe(0);
  }, SPAWN_TIMEOUT_MS);

  test("fails on an import circle between two files", () => {
    const run = checkTree({
      "src/render/a.ts": 'import { b } from "./b.js";\nexport const a = () => b;\n',
      "src/render/b.ts": 'import { a } from "./a.js";\nexport const b = () => a;\n',
    });
    expect(run.status).not.toBe(0);
    expect(run.out).toContain("no-circular");
  }, SPAWN_TIMEOUT_MS);

  test("fails when a lower folder imports a higher one", () => {
    const run = checkTree({
      "src/host/state.ts": "export const S = 1;\n",
      "src/capture/low.ts": 'import { S } from "../host/state.js";\nexport const L = S;\n',
    });
    expect(run.status).not.toBe(0);
    expect(run.out).toContain("layer-capture");
  }, SPAWN_TIMEOUT_MS);

  test("fails when the render path imports the summarize layer", () => {
    const run = checkTree({
      "src/summarize/flush.ts": "export const F = 1;\n",
      "src/render/pruner.ts": 'import { F } from "../summarize/flush.js";\nexport const P = F;\n',
    });
    expect(run.out).toContain("render-stays-pure");
  }, SPAWN_TIMEOUT_MS);

  test("fails on an import circle made only of type-only imports", () => {
    const run = checkTree({
      "src/render/a.ts": 'import type { B } from "./b.js";\nexport interface A { b?: B }\n',
      "src/render/b.ts": 'import type { A } from "./a.js";\nexport interface B { a?: A }\n',
    });
    expect(run.status).not.toBe(0);
    expect(run.out).toContain("no-circular");
  }, SPAWN_TIMEOUT_MS);

  test("fails on a type-only circle through the contract's face", () => {
    const run = checkTree({
      "src/types.ts": 'export type { R } from "./capture/records.js";\nexport const N = "n";\n',
      "src/capture/records.ts": 'import { N } from "../types.js";\nexport interface R { n: typeof N }\n',
    });
    expect(run.status).not.toBe(0);
    expect(run.out).toContain("no-circular");
  }, SPAWN_TIMEOUT_MS);

  test("fails when a module inside src/ imports src/types.ts, even type-only", () => {
    const run = checkTree({
      "src/types.ts": "export type T = number;\n",
      "src/render/user.ts": 'import type { T } from "../types.js";\nexport const u: T = 1;\n',
    });
    expect(run.status).not.toBe(0);
    expect(run.out).toContain("face-not-imported-inside");
  }, SPAWN_TIMEOUT_MS);

  test("fails when the ground floor imports a folder", () => {
    const run = checkTree({
      "src/capture/low.ts": "export const L = 1;\n",
      "src/names.ts": 'import { L } from "./capture/low.js";\nexport const N = L;\n',
    });
    expect(run.status).not.toBe(0);
    expect(run.out).toContain("ground-floor-imports-nothing");
  }, SPAWN_TIMEOUT_MS);
});
