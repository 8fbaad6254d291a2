// The per-request image cap through index.ts: it runs with pruning off, before the pruning render when
// it is on, stays request-local, and moves its omitted set only once every step.
import { afterAll, describe, expect, mock, spyOn, test } from "bun:test";
import * as actualCompat from "@earendil-works/pi-ai/compat";
import { makeAgentDir, makeFakeCtx, makeFakePi, msgEntry, streamReply } from "../../test/fake-host.js";
import { startSim, type Sim, type SimCall } from "../../test/session-sim.js";

mock.module("@earendil-works/pi-ai/compat", () => ({
  ...actualCompat,
  stream: (_model: any, context: any) => {
    const prompt: string = context.messages[0].content[0].text;
    const labels = [...new Set(prompt.match(/\[\[\d+:[^\]\s]+\]\]/g) ?? [])];
    return streamReply(labels.map((l) => `- ${l} looked at an image`).join("\n") || "- summary");
  },
}));

const { IMAGE_OMITTED_NOTE } = await import("../render/image-cap.js");
const { createExtensionState } = await import("./extension-state.js");
const { onContext } = await import("./turn-handlers.js");
const { DEFAULT_CONFIG } = await import("../settings/config-shape.js");

const cleanups: Array<() => void> = [];
afterAll(() => cleanups.forEach((fn) => fn()));

function useSettings(contextPrune: Record<string, unknown>): void {
  const agent = makeAgentDir(contextPrune);
  cleanups.push(agent.cleanup);
  process.env.PI_CODING_AGENT_DIR = agent.dir;
}

const png = (name: string) => ({ type: "image", data: Buffer.from(name).toString("base64"), mimeType: "image/png" });
const readCall = (name: string): SimCall => ({ id: `read_${name}`, name: "read", args: { path: `/w/${name}.png` }, content: [{ type: "text", text: "Read image file [image/png]" }, png(name)] });
const names = (from: number, count: number) => Array.from({ length: count }, (_, i) => `img${from + i}`);

/** One assistant turn reading `images` and its results, appended straight to the branch (no hooks). */
function appendReads(sim: Sim, images: string[]): void {
  const at = sim.now() + 1000;
  const assistant = { role: "assistant", content: images.map((n) => ({ type: "toolCall", id: `read_${n}`, name: "read", arguments: { path: `/w/${n}.png` } })), stopReason: "toolUse", timestamp: at };
  sim.fake.branch.push(msgEntry(assistant));
  images.forEach((n, i) => sim.fake.branch.push(msgEntry({ role: "toolResult", toolCallId: `read_${n}`, toolName: "read", content: readCall(n).content, isError: false, timestamp: at + i + 1 })));
}

async function session(settings: Record<string, unknown>, api: string | undefined, images: number): Promise<Sim> {
  useSettings(settings);
  const sim = await startSim();
  (sim.ctx as any).model = { ...(sim.ctx as any).model, api };
  sim.fake.branch.push(msgEntry({ role: "user", content: [{ type: "text", text: "look at these" }], timestamp: 10 }));
  appendReads(sim, names(0, images));
  return sim;
}

const blocks = (messages: any[]) => messages.flatMap((m) => (Array.isArray(m?.content) ? m.content : []));
const imagesIn = (messages: any[]) => blocks(messages).filter((b: any) => b?.type === "image");
const notesIn = (messages: any[]) => blocks(messages).filter((b: any) => b?.type === "text" && b.text === IMAGE_OMITTED_NOTE);

describe("with pruning off", () => {
  test("an anthropic-messages request with 120 images loses its 50 oldest and nothing else happens", async () => {
    const sim = await session({ enabled: false }, "anthropic-messages", 120);
    const statuses = sim.fake.statuses.length;
    const projection = sim.projection();
    const result = await sim.fire("context", { messages: projection });
    expect(notesIn(result.messages)).toHaveLength(50);
    expect(imagesIn(result.messages).map((b: any) => b.data)).toEqual(names(50, 70).map((n) => png(n).data));
    expect(sim.fake.statuses.length).toBe(statuses);
    expect(sim.host.entries).toEqual([]);
    expect(imagesIn(sim.projection())).toHaveLength(120);
  });

  test("an API without a built-in limit and no configured cap is left alone", async () => {
    const sim = await session({ enabled: false }, "openai-completions", 120);
    expect(await sim.fire("context", { messages: sim.projection() })).toBeUndefined();
  });

  test("a model without an api is left alone", async () => {
    const sim = await session({ enabled: false }, undefined, 120);
    expect(await sim.fire("context", { messages: sim.projection() })).toBeUndefined();
  });

  test("a configured maxImagesPerRequest applies to any API", async () => {
    const sim = await session({ enabled: false, maxImagesPerRequest: 30 }, "openai-completions", 31);
    const result = await sim.fire("context", { messages: sim.projection() });
    expect(notesIn(result.messages)).toHaveLength(15);
    expect(imagesIn(result.messages)).toHaveLength(16);
  });

  test("a request under the cap is returned unchanged", async () => {
    const sim = await session({ enabled: false }, "anthropic-messages", 100);
    expect(await sim.fire("context", { messages: sim.projection() })).toBeUndefined();
  });

  test("one more image below the next step keeps the same omitted set, so the cached prefix holds", async () => {
    const sim = await session({ enabled: false }, "anthropic-messages", 120);
    const first = (await sim.fire("context", { messages: sim.projection() })).messages;
    appendReads(sim, ["img120"]);
    const second = (await sim.fire("context", { messages: sim.projection() })).messages;
    expect(notesIn(second)).toHaveLength(50);
    expect(second.slice(0, first.length)).toEqual(first);
  });
});

describe("with pruning on", () => {
  test("under the cap, a render that changes nothing returns undefined", async () => {
    const sim = await session({ enabled: true, minBatchChars: 1 }, "anthropic-messages", 5);
    expect(await sim.fire("context", { messages: sim.projection() })).toBeUndefined();
  });

  test("over the cap with nothing to prune, the capped request is sent", async () => {
    const sim = await session({ enabled: true, minBatchChars: 1 }, "anthropic-messages", 120);
    const result = await sim.fire("context", { messages: sim.projection() });
    expect(notesIn(result.messages)).toHaveLength(50);
    expect(imagesIn(result.messages)).toHaveLength(70);
  });

  test("the cap counts the transcript before pruning, then the summarized results become stubs", async () => {
    useSettings({ enabled: true, minBatchChars: 1, chainCompression: { enabled: false } });
    const sim = await startSim();
    (sim.ctx as any).model = { ...(sim.ctx as any).model, api: "anthropic-messages" };
    await sim.prompt({ turns: [names(0, 60).map(readCall)], final: "Looked." });
    appendReads(sim, names(60, 110));
    const result = await sim.fire("context", { messages: sim.projection() });
    // 170 images: the 100 oldest are omitted (step 50); the 60 summarized ones are stubs anyway.
    const stubs = result.messages.filter((m: any) => m.role === "toolResult" && /^\[`t\d+` archived: /.test(String(m.content?.[0]?.text)));
    expect(stubs).toHaveLength(60);
    expect(notesIn(result.messages)).toHaveLength(40);
    expect(imagesIn(result.messages).map((b: any) => b.data)).toEqual(names(100, 70).map((n) => png(n).data));
    expect(imagesIn(sim.projection())).toHaveLength(170);
  });
});

describe("a failing render", () => {
  test("still sends the capped request", async () => {
    const state = createExtensionState(makeFakePi().pi as any);
    state.config.value = { ...DEFAULT_CONFIG, enabled: true };
    state.indexer.isSummarized = () => {
      throw new Error("index broken");
    };
    const fake = makeFakeCtx(makeFakePi());
    (fake.ctx as any).model = { id: "m", provider: "p", api: "anthropic-messages" };
    const messages = [
      { role: "assistant", content: names(0, 101).map((n) => ({ type: "toolCall", id: n, name: "read", arguments: {} })), stopReason: "toolUse", timestamp: 1 },
      ...names(0, 101).map((n, i) => ({ role: "toolResult", toolCallId: n, toolName: "read", content: [png(n)], isError: false, timestamp: 2 + i })),
    ];
    const silence = spyOn(console, "error").mockImplementation(() => {});
    try {
      const result = await onContext(state, fake.ctx, { messages });
      expect(notesIn(result!.messages)).toHaveLength(50);
      expect(silence).toHaveBeenCalledTimes(1);
    } finally {
      silence.mockRestore();
    }
  });
});
