import { afterAll, describe, expect, mock, test } from "bun:test";
import * as actualCompat from "@earendil-works/pi-ai/compat";
import { makeAgentDir, streamReply } from "../../test/fake-host.js";
import { startSim, type Sim } from "../../test/session-sim.js";

let reply: (prompt: string) => any = (prompt) => streamReply(labelsOf(prompt));
mock.module("@earendil-works/pi-ai/compat", () => ({
  ...actualCompat,
  stream: (_model: any, context: any) => reply(context.messages[0].content[0].text),
}));

const { archiveChainMembers } = await import("./chain-archive.js");
const { ToolCallIndexer } = await import("../archive/indexer.js");
const T = await import("../names.js");

function labelsOf(prompt: string): string {
  const labels = [...new Set(prompt.match(/\[\[\d+:[^\]\s]+\]\]/g) ?? [])];
  return labels.map((l) => `- ${l} ran`).join("\n") || "- ran";
}

const cleanups: Array<() => void> = [];
afterAll(() => cleanups.forEach((fn) => fn()));

function settings(contextPrune: Record<string, unknown>): void {
  const agent = makeAgentDir(contextPrune);
  cleanups.push(agent.cleanup);
  process.env.PI_CODING_AGENT_DIR = agent.dir;
}

const seq = (n: number) => Array.from({ length: n }, (_, i) => `${i + 1}\n`).join("");
const tinyOf = (k: number) => `tiny-output-of-prompt-${k}\n`;

/** The reproduction: each prompt counts to 400, then echoes a tiny line, then answers. */
async function fourCountingPrompts(sim: Sim, count = 5): Promise<void> {
  for (let k = 1; k <= count; k++) {
    await sim.prompt({
      turns: [[{ id: `seq-${k}`, text: seq(400) }], [{ id: `tiny-${k}`, text: tinyOf(k) }]],
      final: `Prompt ${k} done.`,
    });
  }
}

const chainBlocks = (messages: any[]) =>
  messages.filter((m) => m.role === "user" && String(m.content?.[0]?.text ?? "").startsWith("<compressed-chain"));

describe("chain compression never drops an output it has not archived", () => {
  test("a trivial output inside a compressed chain is archived and named by the block", async () => {
    settings({ enabled: true });
    const sim = await startSim();
    await fourCountingPrompts(sim);
    const rendered = await sim.render();
    const [block] = chainBlocks(rendered);
    expect(block).toBeDefined();
    expect(rendered.some((m: any) => m.role === "toolResult" && m.toolCallId === "tiny-1")).toBe(false);
    const refs = /tools="([^"]*)"/.exec(block.content[0].text)![1]!.split(",");
    const answers = await Promise.all(refs.map((ref) => sim.query([ref])));
    expect(answers.some((a) => a.text.includes(tinyOf(1)))).toBe(true);
  });

  test("every output of the session is either in the request or named by a ref that recovers it", async () => {
    settings({ enabled: true });
    const sim = await startSim();
    await fourCountingPrompts(sim);
    const rendered = await sim.render();
    const visible = JSON.stringify(rendered);
    for (let k = 1; k <= 5; k++) {
      for (const [id, text] of [[`seq-${k}`, seq(400)], [`tiny-${k}`, tinyOf(k)]] as const) {
        if (visible.includes(JSON.stringify(text).slice(1, -1))) continue;
        const answer = await sim.query([id]);
        expect(answer.text).toContain(text);
      }
    }
  });

  test("a chain holding a batch whose summary failed is not compressed by that flush", async () => {
    settings({ enabled: true, minBatchChars: 1, chainCompression: { enabled: true, rollingWindow: 0, stripFinalAssistantThinking: true, fuseRangeSummary: false } });
    reply = (prompt) =>
      prompt.includes("seq-1")
        ? { async *[Symbol.asyncIterator]() {}, result: async () => ({ role: "assistant", stopReason: "error", errorMessage: "400", content: [] }) }
        : streamReply(labelsOf(prompt));
    try {
      const sim = await startSim();
      await sim.prompt({ turns: [[{ id: "seq-1", text: seq(400) }], [{ id: "tiny-1", text: tinyOf(1) }]], final: "one" });
      const entries = sim.host.entries.filter((e) => e.customType === T.CUSTOM_TYPE_CHAIN);
      expect(entries).toEqual([]);
      const rendered = await sim.render();
      expect(rendered.some((m: any) => m.role === "toolResult" && m.toolCallId === "seq-1" && m.content[0].text === seq(400))).toBe(true);
    } finally {
      reply = (prompt) => streamReply(labelsOf(prompt));
    }
  });
});

describe("archiveChainMembers", () => {
  const backfill = (appended: any[]) => ({
    spillThreshold: 65536,
    spillPreviewBytes: 2048,
    sessionDir: "",
    sessionId: "s",
    appendEntry: (customType: string, data: unknown) => appended.push({ customType, data }),
  });
  const range = (results: any[]) => [
    { role: "user", content: [{ type: "text", text: "go" }], timestamp: 100 },
    { role: "assistant", content: results.map((r) => ({ type: "toolCall", id: r.toolCallId, name: "bash", arguments: {} })), timestamp: 200 },
    ...results,
    { role: "assistant", content: [{ type: "text", text: "done" }], timestamp: 900 },
  ];
  const result = (id: string, ts: unknown, text = "out") => ({ role: "toolResult", toolCallId: id, toolName: "bash", content: [{ type: "text", text }], isError: false, timestamp: ts });
  const chainOf = (messages: any[], keys: string[]) => ({
    startUserTimestamp: 100,
    finalAssistantTimestamp: 900,
    middleToolCallIds: keys.map((k) => k.split("@")[0]!),
    middleOccurrenceKeys: keys,
    protectedToolCallIds: [],
    messages,
  });

  test("an unindexed result is backfilled with a ref of its own", async () => {
    const messages = range([result("a", 210, "alpha")]);
    const indexer = new ToolCallIndexer();
    const appended: any[] = [];
    const held = await archiveChainMembers([chainOf(messages, ["a@210"])], { indexer, messages, backfill: backfill(appended) });
    expect(held.size).toBe(0);
    expect(indexer.getRecord("a@210")?.resultText).toBe("alpha");
    expect(indexer.getShortRefForToolCallId("a@210")).toBe("t1");
  });

  test("a result sharing its occurrence key with another holds the chain back", async () => {
    const later = range([result("a", 210, "second")]).map((m) => (m.role === "toolResult" ? m : { ...m, timestamp: m.timestamp + 5000 }));
    const messages = [...range([result("a", 210, "first")]), ...later];
    const indexer = new ToolCallIndexer();
    const held = await archiveChainMembers([chainOf(messages.slice(0, 4), ["a@210"])], { indexer, messages, backfill: backfill([]) });
    expect([...held]).toEqual(["a@210"]);
    expect(indexer.getIndex().size).toBe(0);
  });

  test("a result without a timestamp that is not archived holds the chain back", async () => {
    const messages = range([result("a", undefined)]);
    const held = await archiveChainMembers([chainOf(messages, ["a"])], { indexer: new ToolCallIndexer(), messages, backfill: backfill([]) });
    expect([...held]).toEqual(["a"]);
  });

  test("a failing backfill write holds the chain back", async () => {
    const messages = range([result("a", 210)]);
    const failing = { ...backfill([]), appendEntry: () => { throw new Error("disk full"); } };
    const errors = (await import("bun:test")).spyOn(console, "error").mockImplementation(() => {});
    try {
      const held = await archiveChainMembers([chainOf(messages, ["a@210"])], { indexer: new ToolCallIndexer(), messages, backfill: failing });
      expect([...held]).toEqual(["a@210"]);
    } finally {
      errors.mockRestore();
    }
  });

  test("an archived record without a ref gets one, persisted as a refs-only entry", async () => {
    const messages = range([result("a", 210, "alpha")]);
    const indexer = new ToolCallIndexer();
    indexer.addBatch({ turnIndex: 0, timestamp: 1, assistantText: "", toolCalls: [{ toolCallId: "a", toolName: "bash", args: {}, resultText: "alpha", isError: false, resultTimestamp: 210 }] }, () => {});
    const appended: any[] = [];
    await archiveChainMembers([chainOf(messages, ["a@210"])], { indexer, messages, backfill: backfill(appended) });
    expect(indexer.getShortRefForToolCallId("a@210")).toBe("t1");
    expect(appended).toEqual([{ customType: T.CUSTOM_TYPE_INDEX, data: { toolCalls: [], backfilled: true, refs: [{ shortId: "t1", toolCallId: "a", resultTimestamp: 210 }] } }]);
    const rebuilt = new ToolCallIndexer();
    rebuilt.reconstructFromSession({ sessionManager: { getBranch: () => [
      { type: "custom", customType: T.CUSTOM_TYPE_INDEX, data: { toolCalls: [indexer.getRecord("a@210")] } },
      { type: "custom", customType: T.CUSTOM_TYPE_INDEX, data: appended[0].data },
    ] } } as any);
    expect(rebuilt.getRecord("t1")?.resultText).toBe("alpha");
  });
});
