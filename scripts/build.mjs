#!/usr/bin/env node
// Bundles index.ts and every module it imports into dist/pi-condense.js, the one file the `pi`
// manifest points to. pi loads an extension's TypeScript module by module (each one resolved and
// transformed on every start); one file loads in a few milliseconds.
//
// dist/package.json says "type": "commonjs" on purpose: under the root's "type": "module", jiti
// would import the .js natively, and its imports of pi's packages would then resolve from the disk
// (a second copy of pi, or bun auto-installing them) instead of to the modules pi provides.
//
// The file is committed, so `pi install git:...` (which runs `npm install --omit=dev`, without the
// bun devDependency) and a plain checkout load it as is. `test/repo/build.test.ts` fails when it
// no longer matches the sources.
//
//   node scripts/build.mjs             build (fails without the bun devDependency)
//   node scripts/build.mjs --optional  build when the devDependency is installed, else keep the file
//   node scripts/build.mjs --outfile <path>  build the extension elsewhere (the staleness test)
//   node scripts/build.mjs --cli-outfile <path>  build the report CLI elsewhere (the staleness test)
//
// It also bundles bin/pi-condense-report.ts into dist/pi-condense-report.mjs, the package's `bin`
// (`/pruner report` outside pi); .mjs, so node runs it as a module whatever dist/package.json says.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const BUILT_FILE = "dist/pi-condense.js";
const CLI_FILE = "dist/pi-condense-report.mjs";

function localBun() {
  // The bun package's binary is bin/bun.exe on every platform (.bin/bun is a link or a .cmd shim to it).
  const bin = join(ROOT, "node_modules", "bun", "bin", "bun.exe");
  if (existsSync(bin)) return bin;
  return process.versions.bun ? process.execPath : undefined;
}

function bundle(bun, entry, outfile) {
  // Paths in the bundle's comments are relative to the working directory: build from the root so
  // every checkout produces the same bytes. pi provides its own packages and typebox at load time.
  const args = ["build", entry, "--target=node", "--format=esm", "--external", "@earendil-works/*", "--external", "typebox", "--outfile", outfile];
  const run = spawnSync(bun, args, { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] });
  if (run.status !== 0) console.error(`scripts/build.mjs: bun build of ${entry} failed (${run.error?.message ?? `exit ${run.status}`})`);
  return run.status ?? 1;
}

function main(argv) {
  const optional = argv.includes("--optional");
  const at = argv.indexOf("--outfile");
  const cliAt = argv.indexOf("--cli-outfile");
  const builds = [];
  if (at >= 0) builds.push(["index.ts", resolve(argv[at + 1])]);
  if (cliAt >= 0) builds.push(["bin/pi-condense-report.ts", resolve(argv[cliAt + 1])]);
  if (builds.length === 0) builds.push(["index.ts", join(ROOT, BUILT_FILE)], ["bin/pi-condense-report.ts", join(ROOT, CLI_FILE)]);
  const bun = localBun();
  if (bun === undefined) {
    if (optional && existsSync(join(ROOT, BUILT_FILE)) && existsSync(join(ROOT, CLI_FILE))) return 0;
    console.error(`scripts/build.mjs: the bun devDependency is not installed (run npm install); ${BUILT_FILE} and ${CLI_FILE} were not built`);
    return optional ? 0 : 1;
  }
  for (const [entry, outfile] of builds) {
    const status = bundle(bun, entry, outfile);
    if (status !== 0) return status;
  }
  return 0;
}

process.exitCode = main(process.argv.slice(2));
