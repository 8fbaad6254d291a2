import { afterAll, describe, expect, spyOn, test } from "bun:test";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeAgentDir, makeFakePi } from "../../test/fake-host.js";
import { blobDirFor, writeSidecar } from "../capture/spill.js";
import { CUSTOM_TYPE_INDEX } from "../names.js";

const { default: piCondense } = await import("../../index.js");

const root = mkdtempSync(join(tmpdir(), "sidecar-inherit-"));
const agent = makeAgentDir({ enabled: true });
process.env.PI_CODING_AGENT_DIR = agent.dir;
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  agent.cleanup();
});

const BODY = "the full body of a huge output\n".repeat(50);

/** A parent session written by pi's own SessionManager with one spilled output, then forked at its leaf. */
async function forkedSession() {
  const sessionDir = join(root, `s-${Math.random().toString(36).slice(2)}`);
  const parent = SessionManager.create(root, sessionDir);
  parent.appendMessage({ role: "user", content: [{ type: "text", text: "go" }], timestamp: 1 } as any);
  parent.appendMessage({ role: "assistant", content: [{ type: "toolCall", id: "big", name: "bash", arguments: {} }], stopReason: "toolUse", timestamp: 2 } as any);
  parent.appendMessage({ role: "toolResult", toolCallId: "big", toolName: "bash", content: [{ type: "text", text: BODY }], isError: false, timestamp: 3 } as any);
  const spillPath = await writeSidecar(sessionDir, parent.getSessionId(), "big@3", BODY);
  const record = { toolCallId: "big", toolName: "bash", args: {}, resultText: "", isError: false, turnIndex: 0, timestamp: 2, resultTimestamp: 3, spillPath, spillBytes: BODY.length, resultPreview: "the full body", contentHash: "h" };
  parent.appendCustomEntry(CUSTOM_TYPE_INDEX, { toolCalls: [record], refs: [{ shortId: "t1", toolCallId: "big", resultTimestamp: 3 }] });
  const parentFile = parent.getSessionFile()!;
  const fork = SessionManager.open(parentFile, sessionDir);
  fork.createBranchedSession(fork.getLeafId()!);
  return { fork, parentFile, parentId: parent.getSessionId(), sessionDir };
}

async function startExtension(sessionManager: SessionManager, event: Record<string, unknown>) {
  const host = makeFakePi();
  piCondense(host.pi as any);
  const ctx = { sessionManager, ui: { setStatus: () => {}, setWidget: () => {}, notify: () => {} }, getContextUsage: () => undefined } as any;
  await host.handlers.get("session_start")!(event, ctx);
  const tool = host.tools.find((t) => t.name === "context_tree_query");
  const ask = async (ids: string[]) => (await tool.execute("q", { toolCallIds: ids }, undefined, undefined, ctx)).content[0].text as string;
  return { ask };
}

describe("a forked session keeps its spilled outputs", () => {
  test("the fork copies the parent's sidecars into its own blob directory and recovers them whole", async () => {
    const { fork, parentFile, parentId, sessionDir } = await forkedSession();
    expect(fork.getSessionId()).not.toBe(parentId);
    const { ask } = await startExtension(fork, { reason: "fork", previousSessionFile: parentFile });
    expect(readFileSync(join(blobDirFor(sessionDir, fork.getSessionId()), "big_3.txt"), "utf8")).toBe(BODY);
    expect(await ask(["t1"])).toContain(BODY);
  });

  test("a later start of the fork reads its own copy", async () => {
    const { fork, parentFile } = await forkedSession();
    await startExtension(fork, { reason: "fork", previousSessionFile: parentFile });
    const { ask } = await startExtension(SessionManager.open(fork.getSessionFile()!), { reason: "resume" });
    expect(await ask(["t1"])).toContain(BODY);
  });

  test("without the fork's copy only the preview comes back, with one logged read failure", async () => {
    const { fork } = await forkedSession();
    const { ask } = await startExtension(fork, { reason: "resume" });
    const logged: unknown[] = [];
    const errors = spyOn(console, "error").mockImplementation((line: unknown) => logged.push(line));
    let text: string;
    try {
      text = await ask(["t1"]);
    } finally {
      errors.mockRestore();
    }
    expect(text).not.toContain(BODY);
    expect(text).toContain("the full body");
    expect(logged).toHaveLength(1);
    expect(String(logged[0])).toStartWith("context_tree_query: failed to read spilled output at ");
  });
});
