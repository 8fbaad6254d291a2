// The shipped layouts as users get them: the npm package (`npm pack` of the repository, unpacked into a
// directory), and the repository served over HTTP for `pi install <git url>`; and `pi install <source>`
// into a sandbox's agent dir. Used by the shipped-layout e2e test and bench/startup.ts. No bun:test imports.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { join, normalize, sep } from "node:path";
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

export interface ServedRepository {
  /** An `http://127.0.0.1:<port>/...git` URL pi accepts as a git source. */
  url: string;
  stop(): void;
}

/**
 * The repository's committed HEAD as a bare clone under `destDir`, served over git's plain HTTP
 * protocol (static files) from this process: what `pi install <git url>` clones, without a network.
 * Only committed files are served, as a git install only gets those.
 */
export function serveRepository(destDir: string): ServedRepository {
  const root = join(destDir, "served");
  const bare = join(root, "pi-condense", "pi-condense.git");
  execFileSync("git", ["clone", "--quiet", "--bare", REPO_ROOT, bare], { stdio: "ignore" });
  execFileSync("git", ["update-server-info"], { cwd: bare, stdio: "ignore" });
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const file = normalize(join(root, decodeURIComponent(new URL(request.url).pathname)));
      if (!file.startsWith(root + sep) || !existsSync(file) || !statSync(file).isFile()) return new Response("not found", { status: 404 });
      return new Response(Bun.file(file));
    },
  });
  return { url: `http://127.0.0.1:${server.port}/pi-condense/pi-condense.git`, stop: () => server.stop(true) };
}

/**
 * `pi install <source>` with the sandbox's agent dir, the way a user installs a path or git source.
 * Asynchronous, so a repository this process serves can answer the clone.
 */
export function piInstall(sb: Sandbox, source: string): Promise<string> {
  const child = spawn(runtimeBinary(), [PI_CLI, "install", source], { cwd: sb.projectDir, env: childEnv(sb), stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(output);
      else reject(new Error(`pi install ${source} exited with ${code}: ${output.slice(-600)}`));
    });
  });
}

/** Where `pi install` put a git source's clone in the sandbox's agent dir. */
export function gitInstallDir(sb: Sandbox, url: string): string {
  const { hostname, pathname } = new URL(url);
  return join(sb.agentDir, "git", hostname, pathname.replace(/^\/+/, "").replace(/\.git$/, ""));
}
