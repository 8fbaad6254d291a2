// The shipped layout in the real pi CLI: the npm package, the checkout itself and a git clone (the
// repository served over HTTP from this process) installed with `pi install <path or git url>`, the
// ways README.md's Install table names, load dist/pi-condense.js through the `pi` manifest, and the
// extension works from it: a tool batch is summarized and archived, and the subcommands whose code loads on
// demand (dist/chunks/) run: `/pruner stats` and `/pruner report` on the session just recorded.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { customEntries, disposeSandbox, mainRequests, makeSandbox, REPO_ROOT, runPrint, type Sandbox, sessionEntries, sessionFile, summarizerRequests } from "./harness.js";
import { bash, problems, say } from "./scenario-kit.js";
import { gitInstallDir, piInstall, serveRepository, type ServedRepository, unpackShippedPackage } from "./shipped-package.js";
import { declaredToolNames } from "./wire-view.js";

let packDir: string;
let packageDir: string;
let served: ServedRepository;

beforeAll(() => {
  packDir = mkdtempSync(join(tmpdir(), "pi-condense-pack-"));
  packageDir = unpackShippedPackage(packDir);
  served = serveRepository(packDir);
});

afterAll(() => {
  served.stop();
  rmSync(packDir, { recursive: true, force: true });
});

const LAYOUTS = {
  "npm package directory": { source: () => packageDir, root: () => packageDir },
  "checkout directory": { source: () => REPO_ROOT, root: () => REPO_ROOT },
  "git url": { source: () => served.url, root: (sb: Sandbox) => gitInstallDir(sb, served.url) },
};

for (const [layout, where] of Object.entries(LAYOUTS)) {
  describe(`pi install <${layout}>`, () => {
    test("loads dist/pi-condense.js, and the extension summarizes and archives a tool batch", async () => {
      const sb = await makeSandbox({ script: { main: [bash("seq 1 80"), say("Listed.")] } });
      try {
        await piInstall(sb, where.source());
        const root = where.root(sb);
        expect(JSON.parse(readFileSync(join(sb.agentDir, "settings.json"), "utf8")).packages).toHaveLength(1);
        const first = await runPrint(sb, ["list the numbers"], [], { installed: true, env: { PI_TIMING: "1", JITI_DEBUG: "1" }, timeoutMs: 60_000 });
        expect(first.code).toBe(0);
        // PI_TIMING writes to stderr, jiti's debug lines to stdout.
        const output = `${first.stdout}\n${first.stderr}`.replace(/\x1b\[[0-9;]*m/g, "");
        expect(output).not.toContain("Failed to load extension");
        const built = join(root, "dist", "pi-condense.js");
        expect(output).toContain(`${built} module import`);
        // Transformed by pi's loader, its imports bound to pi's own modules, never imported natively.
        expect(output).not.toContain(`[native] [import] ${built}`);
        expect(output).toContain("[virtual] @earendil-works/pi-coding-agent");
        // Nothing was archived before the run's requests, so none declares the recovery tool (issue 26).
        expect(mainRequests(sb).some((r) => declaredToolNames(r).includes("context_tree_query"))).toBe(false);
        expect(summarizerRequests(sb).length).toBeGreaterThan(0);
        expect(customEntries(sessionEntries(sb), "context-prune-index")).toHaveLength(1);
        expect(problems(sb)).toEqual([]);

        // The subcommands' code loads when they are asked for, from dist/chunks/ (jiti's debug lines name each file).
        const recorded = sessionFile(sb);
        const later = await runPrint(sb, ["/pruner stats", `/pruner report ${recorded}`], [], { installed: true, env: { JITI_DEBUG: "1" }, timeoutMs: 60_000 });
        expect(later.code).toBe(0);
        const loaded = `${later.stdout}\n${later.stderr}`.replace(/\x1b\[[0-9;]*m/g, "");
        expect(loaded).not.toContain("Failed to load extension");
        expect(loaded).not.toContain("command failed");
        const chunks = new Set([...loaded.matchAll(/dist\/chunks\/(command-[a-z]+)-\w+\.js/g)].map((m) => m[1]));
        expect(chunks).toEqual(new Set(["command-report", "command-replay"]));
      } finally {
        await disposeSandbox(sb);
      }
    });
  });
}
