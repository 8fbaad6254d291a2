// The committed single-file build (dist/pi-condense.js) is what pi loads from the `pi` manifest,
// so it must be exactly what the sources build to today.
import { describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");
const BUILT = join(ROOT, "dist", "pi-condense.js");
const CLI = join(ROOT, "dist", "pi-condense-report.mjs");
const PACKAGE = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));

function freshBuild(flag = "--outfile"): string {
  const dir = mkdtempSync(join(tmpdir(), "pi-condense-build-"));
  try {
    const outfile = join(dir, "pi-condense.js");
    execFileSync(process.execPath, [join(ROOT, "scripts", "build.mjs"), flag, outfile], { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] });
    return readFileSync(outfile, "utf8");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("the single-file build", () => {
  test("the pi manifest loads exactly dist/pi-condense.js", () => {
    expect(PACKAGE.pi.extensions).toEqual(["./dist/pi-condense.js"]);
    expect(existsSync(BUILT)).toBe(true);
  });

  test("the committed build matches the sources (run `npm run build` when this fails)", () => {
    expect(readFileSync(BUILT, "utf8") === freshBuild()).toBe(true);
  });

  test("the committed report CLI matches the sources and is the package's bin, a module node runs as one (run `npm run build` when this fails)", () => {
    expect(PACKAGE.bin).toEqual({ "pi-condense-report": "dist/pi-condense-report.mjs" });
    expect(PACKAGE.files).toContain("dist/pi-condense-report.mjs");
    expect(readFileSync(CLI, "utf8").startsWith("#!/usr/bin/env node\n")).toBe(true);
    expect(readFileSync(CLI, "utf8") === freshBuild("--cli-outfile")).toBe(true);
  });

  test("imports nothing but node built-ins and the packages pi provides", () => {
    const specifiers = [...readFileSync(BUILT, "utf8").matchAll(/^import\s[^;]*?from\s"([^"]+)";/gms)].map((m) => m[1]!);
    expect(specifiers.length).toBeGreaterThan(0);
    expect(specifiers.filter((s) => !s.startsWith("node:") && !s.startsWith("@earendil-works/") && s !== "typebox")).toEqual([]);
  });

  // Under the root's "type": "module", jiti imports a .js file natively: pi's packages then resolve
  // from the disk (a second copy of pi, or bun auto-installing them) instead of pi's own modules.
  test("dist/package.json makes jiti transform the build, so its imports resolve to pi's own modules", () => {
    expect(JSON.parse(readFileSync(join(ROOT, "dist", "package.json"), "utf8"))).toEqual({ type: "commonjs" });
  });

  test("npm install builds it (prepare) and npm pack rebuilds it (prepack)", () => {
    expect(PACKAGE.scripts.prepare).toBe("node scripts/build.mjs --optional");
    expect(PACKAGE.scripts.prepack).toBe("node scripts/build.mjs");
  });
});
