#!/usr/bin/env node
// Bundles index.ts and every module it imports into dist/: dist/pi-condense.js, the file the `pi`
// manifest points to, and dist/chunks/, the code a session loads only when it first needs it (the
// `/pruner` subcommands that pull in the report and the tree browser), so pi starts without parsing
// it. pi loads an extension's TypeScript module by module (each one resolved and transformed on every
// start); a bundle loads in a few milliseconds.
//
// dist/package.json says "type": "commonjs" on purpose: under the root's "type": "module", jiti
// would import the .js natively, and its imports of pi's packages would then resolve from the disk
// (a second copy of pi, or bun auto-installing them) instead of to the modules pi provides. The
// chunks sit under it too, and pi's loader transforms the dynamic imports that reach them.
//
// It also bundles bin/pi-condense-report.ts into dist/pi-condense-report.mjs, the package's `bin`
// (`/pruner report` outside pi), in one file; .mjs, so node runs it as a module whatever
// dist/package.json says.
//
// The files are committed, so `pi install git:...` (which runs `npm install --omit=dev`, without the
// bun devDependency) and a plain checkout load them as they are. `test/repo/build.test.ts` fails when
// they no longer match the sources.
//
//   node scripts/build.mjs             build (fails without the bun devDependency)
//   node scripts/build.mjs --optional  build when the devDependency is installed, else keep the files
//   node scripts/build.mjs --outdir <dir>  build into another directory (the staleness test)
import { spawnSync } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const BUILT_FILE = "pi-condense.js";
const CLI_FILE = "pi-condense-report.mjs";
const CHUNKS = "chunks";
// pi provides its own packages and typebox at load time; the CLI imports the same ones from the install.
const EXTERNALS = ["--external", "@earendil-works/*", "--external", "typebox"];

function localBun() {
  // The bun package's binary is bin/bun.exe on every platform (.bin/bun is a link or a .cmd shim to it).
  const bin = join(ROOT, "node_modules", "bun", "bin", "bun.exe");
  if (existsSync(bin)) return bin;
  return process.versions.bun ? process.execPath : undefined;
}

function bunBuild(bun, args) {
  // Paths in the bundle's comments are relative to the working directory: build from the root so
  // every checkout produces the same bytes.
  const run = spawnSync(bun, ["build", ...args, "--target=node", "--format=esm", ...EXTERNALS], { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] });
  if (run.status !== 0) console.error(`scripts/build.mjs: bun build of ${args[0]} failed (${run.error?.message ?? `exit ${run.status}`})`);
  return run.status ?? 1;
}

function main(argv) {
  const optional = argv.includes("--optional");
  const at = argv.indexOf("--outdir");
  const outdir = at >= 0 ? resolve(argv[at + 1]) : join(ROOT, "dist");
  const bun = localBun();
  if (bun === undefined) {
    if (optional && existsSync(join(ROOT, "dist", BUILT_FILE)) && existsSync(join(ROOT, "dist", CLI_FILE))) return 0;
    console.error(`scripts/build.mjs: the bun devDependency is not installed (run npm install); dist/${BUILT_FILE} and dist/${CLI_FILE} were not built`);
    return optional ? 0 : 1;
  }
  // Chunk names carry a hash of their content: last build's chunks would linger beside the new ones.
  rmSync(join(outdir, CHUNKS), { recursive: true, force: true });
  const extension = bunBuild(bun, ["index.ts", "--splitting", "--entry-naming", BUILT_FILE, "--chunk-naming", `${CHUNKS}/[name]-[hash].[ext]`, "--outdir", outdir]);
  if (extension !== 0) return extension;
  return bunBuild(bun, ["bin/pi-condense-report.ts", "--outfile", join(outdir, CLI_FILE)]);
}

process.exitCode = main(process.argv.slice(2));
