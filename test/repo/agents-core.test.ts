// scripts/check-agents-core.mjs keeps the shared core region of AGENTS.md equal to AGENTS.core.md
// (overview §11 scenario 13). Drift cases run on a temp copy, never on the repository.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const SCRIPT = join("scripts", "check-agents-core.mjs");

let root = "";
let copies = 0;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "pi-condense-agents-core-"));
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

function run(cwdRoot: string, ...args: string[]) {
  const result = spawnSync("node", [join(cwdRoot, SCRIPT), ...args], { encoding: "utf8" });
  return { code: result.status, out: `${result.stdout}${result.stderr}` };
}

/** A temp copy of the three files the script reads, laid out like the repository. */
function copyRepo(): string {
  const dir = join(root, `copy-${++copies}`);
  mkdirSync(join(dir, "scripts"), { recursive: true });
  for (const file of ["AGENTS.md", "AGENTS.core.md", SCRIPT]) copyFileSync(join(REPO, file), join(dir, file));
  return dir;
}

function agents(dir: string): string {
  return readFileSync(join(dir, "AGENTS.md"), "utf8");
}

describe("check-agents-core", () => {
  // 13
  test("the repository's AGENTS.md core region matches AGENTS.core.md", () => {
    const result = run(REPO);
    expect(result.out).toContain("matches");
    expect(result.code).toBe(0);
  });

  // 13
  test("an edit inside the region is reported as drift with exit code 1", () => {
    const dir = copyRepo();
    writeFileSync(join(dir, "AGENTS.md"), agents(dir).replace("### Ticket convention", "### Ticket rules"));
    const result = run(dir);
    expect(result.code).toBe(1);
    expect(result.out).toContain("drifted");
    expect(result.out).toContain("Ticket rules");
  });

  test("an edit outside the region is not drift", () => {
    const dir = copyRepo();
    writeFileSync(join(dir, "AGENTS.md"), `${agents(dir)}\nAn extra closing line.\n`);
    expect(run(dir).code).toBe(0);
  });

  test("CRLF line endings and extra blank lines around the region still match", () => {
    const dir = copyRepo();
    const crlf = agents(dir)
      .replace("<!-- agents-core:begin v2 -->", "<!-- agents-core:begin v2 -->\n\n")
      .replace(/\n/g, "\r\n");
    writeFileSync(join(dir, "AGENTS.md"), crlf);
    expect(run(dir).code).toBe(0);
  });

  test("a missing end marker fails even with --fix and leaves the file untouched", () => {
    const dir = copyRepo();
    const broken = agents(dir).replace("<!-- agents-core:end v2 -->", "");
    writeFileSync(join(dir, "AGENTS.md"), broken);
    expect(run(dir, "--fix").code).toBe(1);
    expect(agents(dir)).toBe(broken);
  });

  // 13
  test("--fix rewrites a drifted region from AGENTS.core.md and keeps the rest of the file", () => {
    const dir = copyRepo();
    const original = agents(dir);
    writeFileSync(join(dir, "AGENTS.md"), original.replace("### Communication style", "### Talking"));
    const fixed = run(dir, "--fix");
    expect(fixed.code).toBe(0);
    expect(run(dir).code).toBe(0);
    expect(agents(dir)).toBe(original);
  });

  test("--fix follows an edit of AGENTS.core.md into AGENTS.md", () => {
    const dir = copyRepo();
    const core = join(dir, "AGENTS.core.md");
    writeFileSync(core, `${readFileSync(core, "utf8")}\n- A new shared rule.\n`);
    expect(run(dir).code).toBe(1);
    expect(run(dir, "--fix").code).toBe(0);
    expect(agents(dir)).toContain("- A new shared rule.\n<!-- agents-core:end v2 -->");
  });
});
