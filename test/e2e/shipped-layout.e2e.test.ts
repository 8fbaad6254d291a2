// The shipped layout in the real pi CLI: the npm package (and the checkout itself) installed with
// `pi install <path>`, the way README.md's Install table says, loads dist/pi-condense.js through the
// `pi` manifest, and the extension works from it: a tool batch is summarized and archived.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { customEntries, disposeSandbox, mainRequests, makeSandbox, REPO_ROOT, runPrint, sessionEntries, summarizerRequests } from "./harness.js";
import { bash, problems, say } from "./scenario-kit.js";
import { piInstall, unpackShippedPackage } from "./shipped-package.js";
import { declaredToolNames } from "./wire-view.js";

let packDir: string;
let packageDir: string;

beforeAll(() => {
  packDir = mkdtempSync(join(tmpdir(), "pi-condense-pack-"));
  packageDir = unpackShippedPackage(packDir);
});

afterAll(() => rmSync(packDir, { recursive: true, force: true }));

for (const layout of ["npm package", "checkout"] as const) {
  describe(`pi install <${layout} directory>`, () => {
    test("loads dist/pi-condense.js, and the extension summarizes and archives a tool batch", async () => {
      const sb = await makeSandbox({ script: { main: [bash("seq 1 80"), say("Listed.")] } });
      try {
        const root = layout === "npm package" ? packageDir : REPO_ROOT;
        piInstall(sb, root);
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
        expect(declaredToolNames(mainRequests(sb)[0]!)).toContain("context_tree_query");
        expect(summarizerRequests(sb).length).toBeGreaterThan(0);
        expect(customEntries(sessionEntries(sb), "context-prune-index")).toHaveLength(1);
        expect(problems(sb)).toEqual([]);
      } finally {
        await disposeSandbox(sb);
      }
    });
  });
}
