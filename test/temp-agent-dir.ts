/**
 * A temp pi agent dir for suites whose commands save settings: points
 * `PI_CODING_AGENT_DIR` at it for the whole file and restores it afterwards.
 */
import { afterAll, beforeAll } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { saveConfig } from "../src/settings/config.js";
import { DEFAULT_CONFIG } from "../src/settings/config-shape.js";

export interface TempAgentDirs {
  /** A fresh agent dir under the suite root, made current. */
  fresh(): Promise<string>;
  /** Waits for every earlier fire-and-forget save (saveConfig serializes writes). */
  settleSaves(): Promise<void>;
}

export function useTempAgentDirs(prefix: string, setup?: () => void): TempAgentDirs {
  let root = "";
  const previous = process.env.PI_CODING_AGENT_DIR;

  const settleSaves = async () => {
    const current = process.env.PI_CODING_AGENT_DIR;
    process.env.PI_CODING_AGENT_DIR = join(root, "drain");
    await saveConfig({ ...DEFAULT_CONFIG });
    process.env.PI_CODING_AGENT_DIR = current;
  };

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), prefix));
    process.env.PI_CODING_AGENT_DIR = root;
    setup?.();
  });

  afterAll(async () => {
    await settleSaves();
    if (previous === undefined) delete process.env.PI_CODING_AGENT_DIR;
    else process.env.PI_CODING_AGENT_DIR = previous;
    await rm(root, { recursive: true, force: true });
  });

  return {
    fresh: async () => {
      const dir = await mkdtemp(join(root, "agent-"));
      process.env.PI_CODING_AGENT_DIR = dir;
      return dir;
    },
    settleSaves,
  };
}
