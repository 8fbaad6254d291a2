// Real pi 1.6.0 + pi-condense on the OpenRouter shape: an Anthropic model behind an OpenAI chat-completions
// API, configured in models.json with `compat: { cacheControlFormat: "anthropic" }`, so pi-ai puts
// `cache_control` on content parts. The fake provider bills such requests by Anthropic's breakpoint rule
// (cache-sim.ts). The scenario of cache-breakpoint.e2e.test.ts: a chat, a 40-call run whose final reply
// flushes, then the next prompt, whose first request carries the stubs more than 20 blocks before its last
// marker. Without the spare breakpoint (the control) it reads only tools and system; with it, the prefix
// before its first stub, through a fourth `cache_control` that pi-condense put on a content part.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { scanOpenAiPayload } from "../../src/economics/openai-payload.js";
import { PromptCacheSim } from "./cache-sim.js";
import type { RecordedRequest } from "./fake-llm.js";
import { disposeSandbox, makeSandbox, mainRequests, runPrint, type Sandbox } from "./harness.js";
import { catalogCost } from "./priced-models.js";
import { bash, problems, say } from "./scenario-kit.js";
import { MAIN_MODEL, SUMMARIZER_MODEL } from "./sandbox.js";
import { STUB_RE } from "./wire-view.js";

const TTL_SECONDS = 300;
const CHAT = 10;
const CALLS = 40;
const COMPAT = { cacheControlFormat: "anthropic" };

const note = (i: number) => `Note ${i}: ${`the design keeps every original output recoverable; line ${i}. `.repeat(40)}`;
const chatPrompts = Array.from({ length: CHAT }, (_, i) => note(i));
const script = () => ({
  main: [bash("seq 1 300"), say("Warmed up."), ...chatPrompts.map((_, i) => say(`Noted ${i}.`)), ...Array.from({ length: CALLS }, (_, i) => bash(`seq ${i * 7} ${i * 7 + 260}`)), say("Run finished."), say("Next step noted.")],
});

async function play(cacheBreakpoint: boolean): Promise<Sandbox> {
  const promptCache = { short: TTL_SECONDS };
  const sb = await makeSandbox({
    api: "openai-completions",
    contextPrune: { enabled: true, minBatchChars: 0, flushPolicy: "classic", cacheBreakpoint },
    cache: new PromptCacheSim({ ttlMs: TTL_SECONDS * 1000, modelIds: { [MAIN_MODEL]: "anthropic/claude-sonnet-4.5", [SUMMARIZER_MODEL]: "anthropic/claude-haiku-4.5" } }),
    modelFields: {
      main: { cost: catalogCost("claude-sonnet-4-5"), contextWindow: 200000, promptCache, compat: COMPAT },
      summarizer: { cost: catalogCost("claude-haiku-4-5"), contextWindow: 200000, promptCache, compat: COMPAT },
    },
    script: script(),
  });
  const run = await runPrint(sb, ["Warm up.", ...chatPrompts, "Run the counts.", "What next?"], [], { timeoutMs: 110_000 });
  expect(run.code).toBe(0);
  expect(problems(sb)).toEqual([]);
  return sb;
}

const ident = (text: string) => text;
const textOf = (content: unknown): string => (typeof content === "string" ? content : Array.isArray(content) ? content.map((p: any) => p?.text ?? "").join("") : "");

/** The request's blocks as the Anthropic model hashes them, split at its first stubbed tool result after the warm-up's. */
function stubView(req: RecordedRequest): { firstStub: number; prefixTokens: number; toolsAndSystemTokens: number; markers: number } {
  const scan = scanOpenAiPayload(req.body, ident)!;
  const messages = req.body.messages as any[];
  const stubbedMessages = messages.flatMap((m, i) => (m.role === "tool" && STUB_RE.test(textOf(m.content)) ? [i] : []));
  const stubMessage = stubbedMessages.length > 1 ? stubbedMessages[1] : -1;
  const firstStub = scan.blocks.findIndex((b) => b.place.section === "messages" && b.place.message === stubMessage);
  const tokens = (from: number, to: number) => Math.round(scan.blocks.slice(from, to).reduce((n, b) => n + b.tokens, 0));
  const head = scan.blocks.findIndex((b) => b.place.section === "messages" && b.place.message > 0);
  return { firstStub, prefixTokens: tokens(0, firstStub), toolsAndSystemTokens: tokens(0, head), markers: scan.markers };
}

const firstStubbed = (sb: Sandbox) => mainRequests(sb).find((r) => stubView(r).firstStub >= 0);

describe("an OpenRouter-style Anthropic model on chat completions, billed by the breakpoint rule", () => {
  let off: Sandbox;
  let on: Sandbox;
  beforeAll(async () => {
    off = await play(false);
    on = await play(true);
  });
  afterAll(async () => {
    await disposeSandbox(off);
    await disposeSandbox(on);
  });

  test("pi-ai marks every main request with cache_control, and the fake bills each by the breakpoint rule", () => {
    for (const sb of [off, on]) {
      for (const req of mainRequests(sb)) {
        expect(stubView(req).markers).toBeGreaterThanOrEqual(2);
        expect(req.cache?.rule).toBe("anthropic-breakpoints");
      }
    }
  });

  test("with cacheBreakpoint off (the control) the first request after the flush reads only tools and system", () => {
    const req = firstStubbed(off)!;
    expect(req).toBeDefined();
    const view = stubView(req);
    expect(scanOpenAiPayload(req.body, ident)!.blocks.length - view.firstStub).toBeGreaterThan(20);
    expect(view.markers).toBe(3);
    expect(Math.abs(req.cache!.cacheReadTokens - view.toolsAndSystemTokens)).toBeLessThanOrEqual(1);
    expect(view.prefixTokens).toBeGreaterThan(2 * view.toolsAndSystemTokens);
  });

  test("with it on, the spare cache_control goes out as a fourth marker and the request reads the prefix before its first stub", () => {
    const req = firstStubbed(on)!;
    expect(req).toBeDefined();
    const view = stubView(req);
    expect(view.markers).toBe(4);
    expect(req.cache!.cacheReadTokens).toBeGreaterThanOrEqual(0.9 * view.prefixTokens);
    expect(req.cache!.cacheReadTokens).toBeGreaterThan(view.toolsAndSystemTokens);
  });

  test("no request of either session carries more than four markers", () => {
    for (const sb of [off, on]) for (const req of sb.fake.requests) expect(scanOpenAiPayload(req.body, ident)?.markers ?? 0).toBeLessThanOrEqual(4);
  });
});
