import { afterAll, describe, expect, test } from "bun:test";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ToolCallIndexer } from "../archive/indexer.js";
import { pruneMessages } from "../render/pruner.js";
import { registerQueryTool } from "../archive/query-tool.js";
import { blobPathFor, spillOversizedBatch } from "./spill.js";
import { CUSTOM_TYPE_INDEX } from "../names.js";
import type { CapturedBatch } from "./records.js";

const tempDirs: string[] = [];
afterAll(async () => {
  await Promise.all(tempDirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe("oversized spill end to end (63)", () => {
  test("spill, index entry, spill stub and rebuild agree on one sidecar", async () => {
    const dir = await mkdtemp(join(tmpdir(), "oversized-spill-"));
    tempDirs.push(dir);
    const body = Array.from({ length: 100 }, (_, i) => `line ${String(i).padStart(3, "0")} ${"x".repeat(30)}`).join("\n").padEnd(4000, "y");
    expect(body.length).toBe(4000);
    const batch: CapturedBatch = {
      turnIndex: 0,
      timestamp: 1,
      assistantText: "",
      toolCalls: [{ toolCallId: "tc1", toolName: "fetch", args: { url: "u" }, resultText: body, isError: false }],
    };
    const appended: { customType: string; data: any }[] = [];
    const indexer = new ToolCallIndexer();
    await spillOversizedBatch({
      batch,
      indexer,
      config: { spillThreshold: 10, spillPreviewBytes: 16, dedupByContentHash: true },
      sessionDir: dir,
      sessionId: "sid",
      appendEntry: (customType, data) => void appended.push({ customType, data }),
    });

    const path = blobPathFor(dir, "sid", "tc1");
    expect(await readFile(path, "utf8")).toBe(body);
    expect(appended.map((e) => e.customType)).toEqual([CUSTOM_TYPE_INDEX]);
    const persisted = appended[0]!.data.toolCalls[0];
    expect(persisted.spillPath).toBe(path);
    expect(persisted.resultText).toBe("");
    expect(persisted.resultPreview).toBeTruthy();
    expect(persisted.contentHash).toBeTruthy();

    const messages = [
      { role: "user", content: [{ type: "text", text: "go" }], timestamp: 0 },
      { role: "assistant", content: [{ type: "toolCall", id: "tc1", name: "fetch", arguments: { url: "u" } }], timestamp: 0 },
      { role: "toolResult", toolCallId: "tc1", toolName: "fetch", content: [{ type: "text", text: body }], isError: false, timestamp: 1 },
    ];
    const rendered = pruneMessages(messages, indexer);
    expect(rendered.pruned).toBe(true);
    const stub = rendered.messages[2].content[0].text as string;
    expect(stub).not.toContain(path);
    expect(stub).toContain("context_tree_query with ref `t1`");
    expect(stub.toLowerCase()).toContain("spilled");
    expect(stub).not.toContain("Summarized in pruner summary");

    let tool: any;
    registerQueryTool({ registerTool: (def: any) => (tool = def) } as any, indexer);
    const ctx = { sessionManager: { getSessionDir: () => dir, getSessionId: () => "sid", getBranch: () => [] } };
    const recovered = await tool.execute("q", { toolCallIds: ["t1"] }, undefined, undefined, ctx);
    expect(recovered.content[0].text.endsWith(`\n\n${body}`)).toBe(true);

    const rebuilt = new ToolCallIndexer();
    rebuilt.reconstructFromSession({ sessionManager: { getBranch: () => appended.map((e) => ({ type: "custom", ...e })) } } as any);
    expect(rebuilt.getRecord("tc1")?.spillPath).toBe(path);
    expect(rebuilt.getShortRefForToolCallId("tc1")).toBe("t1");
    expect(rebuilt.lookupByContent("fetch", body)).toBe("tc1");
  });
});
