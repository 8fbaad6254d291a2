// The npm package as users get it: `npm pack` of the repository, unpacked into a directory, and
// `pi install <dir>` into a sandbox's agent dir. Used by the shipped-layout e2e test and
// bench/startup.ts. No bun:test imports.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { childEnv, PI_CLI, REPO_ROOT, runtimeBinary, type Sandbox } from "./sandbox.js";

/**
 * Packs the repository into `destDir` and unpacks it there; returns the package directory.
 * Scripts are skipped: prepack would rebuild dist/pi-condense.js in the checkout, and
 * test/repo/build.test.ts already proves the committed build is what the sources build to.
 */
export function unpackShippedPackage(destDir: string): string {
  const out = execFileSync("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", destDir], { cwd: REPO_ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  const tarball = JSON.parse(out)[0].filename as string;
  execFileSync("tar", ["-xzf", tarball], { cwd: destDir, stdio: "ignore" });
  return join(destDir, "package");
}

/** `pi install <source>` with the sandbox's agent dir, the way a user installs a path or git source. */
export function piInstall(sb: Sandbox, source: string): string {
  return execFileSync(runtimeBinary(), [PI_CLI, "install", source], { cwd: sb.projectDir, env: childEnv(sb), encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}
