// Real pi 1.6.0 + pi-condense: live sight (issue 42, point 3). A scripted agent reads a file, then in the next
// prompt asks context_tree_query for the archived read and reads the file again; `/pruner stats` says what it
// went back for, and `/pruner report` says the same of the session file (RPC mode: print mode shows no notices).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { disposeSandbox, makeSandbox, notifications, runPiRpc, sessionFile, type Sandbox } from "./harness.js";
import { problems, query, read, say } from "./scenario-kit.js";

const SOURCE = Array.from({ length: 80 }, (_, i) => `export const value${i} = ${i}; // ünïcode ✓`).join("\n");
const FILE = "src-ü/ledger.ts";
const prompt = (message: string) => ({ type: "prompt", message });

describe("live sight in a real session", () => {
  let sb: Sandbox;
  let said: string[] = [];
  beforeAll(async () => {
    sb = await makeSandbox({
      contextPrune: { enabled: true, minBatchChars: 0 },
      script: { main: [read(FILE), say("Read it."), query("t1"), read(FILE), say("Both again.")] },
    });
    mkdirSync(join(sb.projectDir, "src-ü"), { recursive: true });
    writeFileSync(join(sb.projectDir, FILE), SOURCE);
    const rpc = await runPiRpc(sb, [prompt("read the ledger"), prompt("show it again"), prompt("/pruner stats"), prompt("/pruner status")]);
    expect(rpc.code).toBe(0);
    said = notifications(rpc.records).map((n) => n.message);
  });
  afterAll(() => disposeSandbox(sb));

  test("/pruner stats says the agent went back twice for t1, in two extra requests", () => {
    const stats = said.find((m) => m.startsWith("pruner stats:"));
    expect(stats?.split("\n").at(-1)).toBe("  the agent went back for 2 archived outputs this session (t1): 2 extra requests (1 context_tree_query call, 1 read of a file read before)");
    expect(problems(sb)).toEqual([]);
  });

  test("/pruner status shows the same under live sight", () => {
    const status = said.find((m) => m.startsWith("pruner status:"));
    expect(status).toContain("--- live sight ---\n  the agent went back for 2 archived outputs this session (t1)");
  });

  test("/pruner report says the same of the session file", async () => {
    const rpc = await runPiRpc(sb, [prompt(`/pruner report ${sessionFile(sb)}`)]);
    expect(rpc.code).toBe(0);
    const report = notifications(rpc.records).map((n) => n.message).find((m) => m.startsWith("pruner report:"))!.replace(/\n\s+/g, " ");
    expect(report).toContain("as the session ran, the agent went back for 2 archived outputs in it (t1): 2 extra requests (1 context_tree_query call, 1 read of a file read before)");
  });
});
