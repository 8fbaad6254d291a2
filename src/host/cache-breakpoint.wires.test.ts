// The spare breakpoint on every breakpoint route, on request bodies built by pi-ai's own request code
// (test/pi-ai-request.ts): Anthropic's Messages API, Claude on Bedrock (a `cachePoint` block) and an
// OpenRouter Anthropic model on chat completions (`cache_control` on a content part). The same rules on
// each: one marker on an existing eligible block, never a fifth, never after thinking, copy-on-write,
// everything else as pi-ai built it.
import { describe, expect, setSystemTime, test } from "bun:test";
import type { Api, Message, Model } from "@earendil-works/pi-ai";
import { getModel } from "@earendil-works/pi-ai/compat";
import { piAiRequest, toolTurns, type TurnShape } from "../../test/pi-ai-request.js";
import { anthropicCodec } from "../economics/anthropic-payload.js";
import { bedrockCodec } from "../economics/bedrock-payload.js";
import { CacheTracker } from "../economics/cache-tracker.js";
import { openAiCodec } from "../economics/openai-payload.js";
import type { PayloadCodec } from "../economics/payload-scan.js";
import { MAX_BREAKPOINTS } from "../economics/prompt-cache.js";
import type { CapturedBatch } from "../capture/records.js";
import { DEFAULT_CONFIG } from "../settings/config-shape.js";
import { onBeforeProviderRequest, SpareBreakpoint } from "./cache-breakpoint.js";

const catalog = (provider: string, id: string): Model<Api> => getModel(provider as never, id as never) as Model<Api>;

interface Wire {
  name: string;
  model: Model<Api>;
  codec: PayloadCodec;
}

const WIRES: Wire[] = [
  { name: "Anthropic's Messages API", model: catalog("anthropic", "claude-sonnet-4-5"), codec: anthropicCodec },
  { name: "Claude on Bedrock", model: catalog("amazon-bedrock", "anthropic.claude-sonnet-4-5-20250929-v1:0"), codec: bedrockCodec },
  { name: "OpenRouter's Anthropic model on chat completions", model: catalog("openrouter", "anthropic/claude-sonnet-4.5:batch"), codec: openAiCodec },
];

const ident = (text: string) => text;
/** A system prompt over every model's minimum, so each prefix past it is cacheable. */
const SYSTEM = "You are a careful coding agent. ".repeat(700);

const request = (wire: Wire, messages: Message[]) => piAiRequest(wire.model, messages, {}, SYSTEM);
const marked = (wire: Wire, body: unknown) => wire.codec.scan(body, ident)!.blocks.flatMap((b, i) => (b.marked ? [i] : []));

function handler() {
  const state = { config: { value: { ...DEFAULT_CONFIG, enabled: true } }, cache: new CacheTracker(), breakpoint: new SpareBreakpoint(), pending: [] as CapturedBatch[] };
  state.cache.record({ at: Date.now(), input: 10, cacheRead: 100, cacheWrite: 100 });
  return state;
}
const ctxOf = (model: Model<Api>) => ({ model, sessionManager: { getSessionId: () => "s1" } }) as any;

/** A session grown one turn per request to `turns`, then the request whose early outputs are stubs. */
async function deepRewrite(wire: Wire, shape: TurnShape = {}) {
  const state = handler();
  for (let n = 1; n <= 30; n++) onBeforeProviderRequest(state, ctxOf(wire.model), { payload: await request(wire, toolTurns(wire.model, n, shape)) });
  const input = await request(wire, toolTurns(wire.model, 30, { ...shape, stubs: [4, 5, 6, 7, 8] }));
  const before = JSON.stringify(input);
  const out = onBeforeProviderRequest(state, ctxOf(wire.model), { payload: input });
  return { state, input, before, out };
}

/** The body without the one marker the spare breakpoint added, to compare with what pi-ai built. */
function withoutAdded(wire: Wire, input: any, out: any): unknown {
  const copy = structuredClone(out);
  if (wire.codec === bedrockCodec) {
    const strip = (list: any[], original: any[]) => (list.length === original.length ? list : list.filter((b, i) => !(b.cachePoint && !original.some((o, j) => j === i && o.cachePoint))));
    copy.messages = copy.messages.map((m: any, i: number) => ({ ...m, content: strip(m.content, input.messages[i].content) }));
    return copy;
  }
  copy.messages = copy.messages.map((m: any, i: number) => {
    const original = input.messages[i];
    if (typeof original.content === "string" && Array.isArray(m.content)) return { ...m, content: original.content };
    if (!Array.isArray(m.content)) return m;
    return { ...m, content: m.content.map((part: any, j: number) => (part.cache_control && !original.content[j]?.cache_control ? (({ cache_control: _c, ...rest }) => rest)(part) : part)) };
  });
  return copy;
}

for (const wire of WIRES) {
  describe(`the spare breakpoint on ${wire.name}`, () => {
    test("pi-ai's own request carries fewer than four markers, all with one value", async () => {
      const scan = wire.codec.scan(await request(wire, toolTurns(wire.model, 3)), ident)!;
      expect(scan.markers).toBeGreaterThanOrEqual(2);
      expect(scan.markers).toBeLessThan(MAX_BREAKPOINTS);
      expect(scan.cacheControl).toBeDefined();
    });

    test("after a deep rewrite one marker goes on the last eligible block before the first stub", async () => {
      const { input, out } = await deepRewrite(wire);
      expect(out).toBeDefined();
      const blocks = wire.codec.scan(input, ident)!.blocks;
      const firstStub = blocks.findIndex((b) => b.toolUseId === wire.codec.toolUseId("call_4"));
      const expected = blocks.slice(0, firstStub).findLastIndex((b) => b.eligible);
      const added = marked(wire, out).filter((i) => !marked(wire, input).includes(i));
      expect(added).toEqual([expected]);
      expect(firstStub - expected).toBeLessThanOrEqual(2);
    });

    test("nothing else changes: the input is untouched and the body minus the marker is pi-ai's, byte for byte", async () => {
      const { input, before, out } = await deepRewrite(wire);
      expect(JSON.stringify(input)).toBe(before);
      expect(JSON.stringify(withoutAdded(wire, input, out))).toBe(before);
      const scan = wire.codec.scan(out, ident)!;
      expect(scan.markers).toBe(wire.codec.scan(input, ident)!.markers + 1);
      expect(scan.markers).toBeLessThanOrEqual(MAX_BREAKPOINTS);
      expect(scan.cacheControl).toEqual(wire.codec.scan(input, ident)!.cacheControl);
    });

    test("the messages before and after the marked one are the input's own objects (copy-on-write)", async () => {
      const { input, out } = await deepRewrite(wire);
      const changed = (out as any).messages.flatMap((m: unknown, i: number) => (m === input.messages[i] ? [] : [i]));
      expect(changed).toHaveLength(1);
    });

    test("with thinking in every turn, the marker never follows a thinking or reasoning block", async () => {
      const { input, out } = await deepRewrite(wire, { thinking: true });
      const scan = wire.codec.scan(out, ident)!;
      expect(scan.markedThinking).toBe(false);
      expect(scan.markers).toBeLessThanOrEqual(MAX_BREAKPOINTS);
      expect(marked(wire, out).length).toBeGreaterThanOrEqual(marked(wire, input).length);
    });

    test("a clock that went backwards finds no live entry: the body goes out as built, nothing thrown", async () => {
      const state = handler();
      for (let n = 1; n <= 30; n++) onBeforeProviderRequest(state, ctxOf(wire.model), { payload: await request(wire, toolTurns(wire.model, n)) });
      setSystemTime(new Date(Date.now() - 3_600_000));
      try {
        expect(onBeforeProviderRequest(state, ctxOf(wire.model), { payload: await request(wire, toolTurns(wire.model, 30, { stubs: [4, 5, 6] })) })).toBeUndefined();
      } finally {
        setSystemTime();
      }
    });

    test("a body that already carries four markers is sent as it is", async () => {
      const state = handler();
      for (let n = 1; n <= 30; n++) onBeforeProviderRequest(state, ctxOf(wire.model), { payload: await request(wire, toolTurns(wire.model, n)) });
      let full: any = await request(wire, toolTurns(wire.model, 30, { stubs: [4, 5, 6] }));
      const scan = wire.codec.scan(full, ident)!;
      const spare = scan.blocks.filter((b) => b.eligible).slice(0, MAX_BREAKPOINTS - scan.markers);
      for (const block of spare.reverse()) full = wire.codec.withMarker(full, block.place, scan.cacheControl);
      expect(wire.codec.scan(full, ident)!.markers).toBe(MAX_BREAKPOINTS);
      expect(onBeforeProviderRequest(state, ctxOf(wire.model), { payload: full })).toBeUndefined();
    });
  });
}

describe("the routes the spare breakpoint leaves alone", () => {
  test("a Bedrock model that is not Claude, and OpenAI's own chat completions, get no marker", async () => {
    for (const model of [catalog("amazon-bedrock", "amazon.nova-pro-v1:0"), catalog("openrouter", "openai/gpt-5.1")]) {
      const state = handler();
      for (let n = 1; n <= 30; n++) expect(onBeforeProviderRequest(state, ctxOf(model), { payload: await piAiRequest(model, toolTurns(model, n)) })).toBeUndefined();
      expect(onBeforeProviderRequest(state, ctxOf(model), { payload: await piAiRequest(model, toolTurns(model, 30, { stubs: [4] })) })).toBeUndefined();
    }
  });
});
