// The committed build (dist/pi-condense.js, the chunks under dist/chunks/ it loads when a session first needs
// them, and the report CLI dist/pi-condense-report.mjs) must be exactly what the sources build to today.
import { describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");
const BUILT = join(ROOT, "dist", "pi-condense.js");
const CLI = join(ROOT, "dist", "pi-condense-report.mjs");
const PACKAGE = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));

/** Every built file under `dir` (the extension, its chunks and the report CLI; the package.json beside them left out), by its path relative to `dir`. */
function builtFiles(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of readdirSync(dir, { recursive: true }) as string[]) {
    const path = entry.split("\\").join("/");
    if (path.endsWith(".js") || path.endsWith(".mjs")) files.set(path, readFileSync(join(dir, path), "utf8"));
  }
  return files;
}

function freshBuild(): Map<string, string> {
  const dir = mkdtempSync(join(tmpdir(), "pi-condense-build-"));
  try {
    execFileSync(process.execPath, [join(ROOT, "scripts", "build.mjs"), "--outdir", dir], { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] });
    return builtFiles(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The module specifiers a built file imports, statically or on demand. */
function importsOf(text: string): string[] {
  const fixed = [...text.matchAll(/^import\s[^;]*?from\s"([^"]+)";/gms)].map((m) => m[1]!);
  const onDemand = [...text.matchAll(/\bimport\("([^"]+)"\)/g)].map((m) => m[1]!);
  return [...fixed, ...onDemand];
}

describe("the build", () => {
  test("the pi manifest loads exactly dist/pi-condense.js", () => {
    expect(PACKAGE.pi.extensions).toEqual(["./dist/pi-condense.js"]);
    expect(existsSync(BUILT)).toBe(true);
  });

  test("the committed build matches the sources (run `npm run build` when this fails)", () => {
    const committed = builtFiles(join(ROOT, "dist"));
    const fresh = freshBuild();
    expect([...committed.keys()].sort()).toEqual([...fresh.keys()].sort());
    expect([...fresh].filter(([path, text]) => committed.get(path) !== text).map(([path]) => path)).toEqual([]);
  });

  test("the report CLI is the package's bin, one file node runs as a module", () => {
    expect(PACKAGE.bin).toEqual({ "pi-condense-report": "dist/pi-condense-report.mjs" });
    expect(PACKAGE.files).toContain("dist/pi-condense-report.mjs");
    expect(readFileSync(CLI, "utf8").startsWith("#!/usr/bin/env node\n")).toBe(true);
  });

  test("imports nothing but node built-ins, the packages pi provides and its own chunks", () => {
    const files = builtFiles(join(ROOT, "dist"));
    const foreign: string[] = [];
    for (const [path, text] of files) {
      for (const spec of importsOf(text)) {
        if (spec.startsWith("node:") || spec.startsWith("@earendil-works/") || spec === "typebox") continue;
        const chunk = join(dirname(path), spec).split("\\").join("/");
        if (!spec.startsWith("./") || !files.has(chunk)) foreign.push(`${path}: ${spec}`);
      }
    }
    expect(importsOf(readFileSync(BUILT, "utf8")).length).toBeGreaterThan(0);
    expect(foreign).toEqual([]);
  });

  test("the report and the tree browser load on demand, not at pi's start", () => {
    const eager = new Set<string>();
    const visit = (path: string, files: Map<string, string>) => {
      if (eager.has(path)) return;
      eager.add(path);
      for (const m of files.get(path)!.matchAll(/^import\s[^;]*?from\s"(\.\/[^"]+)";/gms)) visit(join(dirname(path), m[1]!).split("\\").join("/"), files);
    };
    const files = builtFiles(join(ROOT, "dist"));
    visit("pi-condense.js", files);
    const loadedAtStart = [...eager].map((path) => files.get(path)!).join("\n");
    for (const module of ["src/report/replay.ts", "src/ui/tree-browser.ts", "src/forgetting/miss-model.ts"]) {
      expect(loadedAtStart).not.toContain(`// ${module}`);
      expect([...files.values()].join("\n")).toContain(`// ${module}`);
    }
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
