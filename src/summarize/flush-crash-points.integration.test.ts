import { afterAll, describe, expect, mock, test } from "bun:test";
import * as actualCompat from "@earendil-works/pi-ai/compat";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeFakePi, streamReply } from "../../test/fake-host.js";

mock.module("@earendil-works/pi-ai/compat", () => ({
  ...actualCompat,
  stream: (_model: any, context: any) => {
    const labels = [...new Set(String(context.messages[0].content[0].text).match(/\[\[\d+:[^\]\s]+\]\]/g) ?? [])];
    return streamReply(labels.map((l) => `- ${l} noted`).join("\n"));
  },
}));

const { createExtensionState } = await import("../host/extension-state.js");
const { flushPending } = await import("./flush.js");
const { pruneMessages } = await import("../render/pruner.js");
const T = { ...(await import("../names.js")), ...(await import("../settings/config-shape.js")) };

const root = mkdtempSync(join(tmpdir(), "crash-points-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const CONFIG = { ...T.DEFAULT_CONFIG, enabled: true, minBatchChars: 1, chainCompression: { ...T.DEFAULT_CONFIG.chainCompression, rollingWindow: 0 } };
const OUTPUTS: Record<string, string> = {
  a1: "alpha output\n".repeat(40),
  a2: "beta output\n".repeat(40),
  b1: "gamma output\n".repeat(40),
};

function ctxFor(sm: SessionManager): any {
  return {
    sessionManager: sm,
    getContextUsage: () => ({ tokens: 1000, contextWindow: 1_000_000, percent: 0.1 }),
    model: { id: "m", provider: "fake", name: "Fake" },
    modelRegistry: {
      find: () => undefined,
      getApiKeyAndHeaders: async () => ({ ok: true, apiKey: "k", headers: {} }),
      getProviderAuth: async () => undefined,
    },
    ui: { setStatus: () => {}, setWidget: () => {}, notify: () => {} },
  };
}

/** Two closed chains written by pi's own SessionManager; returns the file and the line count before any flush. */
function writeSession(): { file: string; sm: SessionManager } {
  const sm = SessionManager.create(root, join(root, `s-${Math.random().toString(36).slice(2)}`));
  let ts = 1000;
  const chain = (ids: string[]) => {
    sm.appendMessage({ role: "user", content: [{ type: "text", text: `go ${ts}` }], timestamp: (ts += 10) } as any);
    for (const id of ids) {
      sm.appendMessage({ role: "assistant", content: [{ type: "toolCall", id, name: "bash", arguments: { command: id } }], stopReason: "toolUse", timestamp: (ts += 10) } as any);
      sm.appendMessage({ role: "toolResult", toolCallId: id, toolName: "bash", content: [{ type: "text", text: OUTPUTS[id] }], isError: false, timestamp: (ts += 10) } as any);
    }
    sm.appendMessage({ role: "assistant", content: [{ type: "text", text: "done" }], stopReason: "stop", timestamp: (ts += 10) } as any);
  };
  chain(["a1", "a2"]);
  chain(["b1"]);
  return { file: sm.getSessionFile()!, sm };
}

async function flushWith(sm: SessionManager) {
  const state = createExtensionState(makeFakePi().pi as any);
  state.config.value = CONFIG as any;
  const ctx = ctxFor(sm);
  state.indexer.reconstructFromSession(ctx);
  state.blockRefs.rebuildFrom(state.indexer.getChainEntries().map((e) => e.blockId));
  state.stats.reconstructFromSession(ctx);
  state.frontier.reconstructFromSession(ctx);
  await flushPending(state, ctx, { delivery: "session", trigger: "message-end" });
  return { state, ctx };
}

/** Summary keys per output: how many summaries name it. */
function summaryCoverage(sm: SessionManager): Map<string, number> {
  const counts = new Map<string, number>();
  for (const entry of sm.getBranch() as any[]) {
    if (entry.type !== "custom_message" || entry.customType !== T.CUSTOM_TYPE_SUMMARY) continue;
    for (const ref of entry.details.toolCallRefs) counts.set(ref.toolCallId, (counts.get(ref.toolCallId) ?? 0) + 1);
  }
  return counts;
}

function requestOf(sm: SessionManager): any[] {
  return (sm.getBranch() as any[]).flatMap((e) =>
    e.type === "message" ? [e.message] : e.type === "custom_message" ? [{ role: "custom", customType: e.customType, content: e.content, details: e.details, timestamp: Date.parse(e.timestamp) }] : [],
  );
}

describe("a kill at any point of a flush's writes loses nothing and summarizes nothing twice", () => {
  test("every line boundary and every mid-line cut", async () => {
    const { file, sm } = writeSession();
    const before = readFileSync(file, "utf8").split("\n").filter(Boolean).length;
    await flushWith(sm);
    const lines = readFileSync(file, "utf8").split("\n").filter(Boolean);
    expect(lines.length).toBeGreaterThan(before + 4);
    const cuts: string[] = [];
    for (let n = before; n <= lines.length; n++) {
      cuts.push(`${lines.slice(0, n).join("\n")}\n`);
      if (n < lines.length) cuts.push(`${lines.slice(0, n).join("\n")}\n${lines[n]!.slice(0, Math.floor(lines[n]!.length / 2))}`);
    }
    for (const [i, content] of cuts.entries()) {
      const copy = join(root, `cut-${i}.jsonl`);
      writeFileSync(copy, content);
      const reopened = SessionManager.open(copy);
      const { state } = await flushWith(reopened);
      for (const [id, times] of summaryCoverage(reopened)) {
        expect({ cut: i, id, times }).toEqual({ cut: i, id, times: 1 });
      }
      const rendered = pruneMessages(requestOf(reopened), state.indexer, CONFIG.chainCompression).messages;
      const text = JSON.stringify(rendered);
      for (const [id, output] of Object.entries(OUTPUTS)) {
        if (text.includes(JSON.stringify(output))) continue;
        const record = state.indexer.getRecordsForId(id);
        expect({ cut: i, id, recovered: record.map((r) => r.resultText) }).toEqual({ cut: i, id, recovered: [output] });
      }
    }
  });
});
