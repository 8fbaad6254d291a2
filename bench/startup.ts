/**
 * Startup benchmark: the real pi CLI from start to the first prompt, with no extension, with
 * pi-condense from source (`-e index.ts`) and with the shipped layouts (`npm pack` unpacked, and the
 * clone `pi install <git url>` makes of the repository served over HTTP from this process), each
 * loaded as a directory, so pi resolves the `pi` manifest exactly as after an install. An empty
 * extension shows what pi's extension loader costs by itself (jiti and its module map load only
 * when there is an extension to load).
 *
 * Figures come from pi's own `PI_TIMING=1` report (the main TOTAL, and the extension's module import
 * plus factory) and the wall time of a one-prompt print run against the loopback fake provider.
 * Every run uses `-ne`, so pi's built-in extensions are left out of all three alike. One untimed
 * round first fills jiti's transform cache (a first start after an install or update pays the
 * transform once); then the layouts are timed round-robin and the medians reported.
 *
 * Run: npm run bench:startup (STARTUP_ROUNDS=n to change the number of timed rounds)
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { disposeSandbox, makeSandbox, REPO_ROOT, runPrint, type Sandbox } from "../test/e2e/harness.js";
import { gitInstallDir, piInstall, serveRepository, unpackShippedPackage } from "../test/e2e/shipped-package.js";
import { reportTargets } from "./targets.js";

const ROUNDS = Number(process.env.STARTUP_ROUNDS ?? 9);
const BUDGET_MS = 50;

interface Layout {
  name: string;
  extension?: string;
}

interface Sample {
  total: number;
  extension: number;
  wall: number;
}

/** The `TOTAL` of pi's main timing group and the summed import + factory lines of the extension at `path`. */
function parseTimings(stderr: string, path: string | undefined): { total: number; extension: number } {
  const main = stderr.split("Startup Timings: main")[1] ?? "";
  const total = Number(/TOTAL: (\d+)ms/.exec(main)?.[1] ?? Number.NaN);
  let extension = 0;
  if (path !== undefined) {
    for (const m of stderr.matchAll(/^\s+(.+) (?:module import|factory): (\d+)ms$/gm)) if (m[1]!.startsWith(path)) extension += Number(m[2]);
  }
  return { total, extension };
}

async function sample(sb: Sandbox, layout: Layout): Promise<Sample> {
  const extra = layout.extension === undefined ? [] : [layout.extension];
  const run = await runPrint(sb, ["hi"], [], { withExtension: false, extraExtensions: extra, env: { PI_TIMING: "1" }, timeoutMs: 60_000 });
  if (run.code !== 0 || run.stderr.includes("Failed to load extension")) throw new Error(`${layout.name}: pi failed (${run.code}): ${run.stderr.slice(-400)}`);
  return { ...parseTimings(run.stderr, layout.extension), wall: run.ms };
}

const signed = (ms: number) => `${ms >= 0 ? "+" : ""}${ms} ms`;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function main(): Promise<void> {
  const packDir = mkdtempSync(join(tmpdir(), "pi-condense-startup-"));
  const sb = await makeSandbox({ script: { main: [], exhausted: { text: "ok" } } });
  const served = serveRepository(packDir);
  try {
    await piInstall(sb, served.url);
    const empty = join(packDir, "empty-extension.js");
    writeFileSync(empty, "export default function () {}\n");
    const layouts: Layout[] = [
      { name: "no extension" },
      { name: "empty extension (loader)", extension: empty },
      { name: "source (-e index.ts)", extension: join(REPO_ROOT, "index.ts") },
      { name: "shipped (npm package dir)", extension: unpackShippedPackage(packDir) },
      { name: "shipped (git install)", extension: gitInstallDir(sb, served.url) },
    ];
    const samples = new Map<string, Sample[]>(layouts.map((l) => [l.name, []]));
    for (let round = 0; round <= ROUNDS; round++) {
      for (const layout of layouts) {
        const s = await sample(sb, layout);
        if (round > 0) samples.get(layout.name)!.push(s);
      }
    }
    const rows = layouts.map((layout) => {
      const runs = samples.get(layout.name)!;
      return { name: layout.name, total: median(runs.map((r) => r.total)), extension: median(runs.map((r) => r.extension)), wall: median(runs.map((r) => r.wall)) };
    });
    console.log(`pi start to first prompt, medians of ${ROUNDS} rounds after one untimed round (PI_TIMING=1 figures, ms)`);
    console.log("layout                      | main TOTAL | extension import+factory | wall (one prompt)");
    for (const r of rows) console.log(`${r.name.padEnd(27)} | ${String(r.total).padStart(10)} | ${String(r.extension).padStart(24)} | ${String(r.wall).padStart(17)}`);
    const [none, , source, shipped, git] = rows;
    const above = (r: (typeof rows)[number], key: "total" | "wall") => signed(r[key] - none![key]);
    console.log(
      `above no extension: source ${above(source!, "total")}, npm package ${above(shipped!, "total")}, git install ${above(git!, "total")} (main TOTAL); wall: source ${above(source!, "wall")}, npm package ${above(shipped!, "wall")}, git install ${above(git!, "wall")}`,
    );
    reportTargets([
      { name: `npm package layout starts within ${BUDGET_MS} ms of pi without extensions (PI_TIMING main TOTAL, median)`, met: shipped!.total - none!.total <= BUDGET_MS },
      { name: `git install starts within ${BUDGET_MS} ms of pi without extensions (PI_TIMING main TOTAL, median)`, met: git!.total - none!.total <= BUDGET_MS },
    ]);
  } finally {
    served.stop();
    await disposeSandbox(sb);
    rmSync(packDir, { recursive: true, force: true });
  }
}

await main();
