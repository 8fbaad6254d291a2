// Real pi 1.6.0 + pi-condense against the fake Anthropic provider billing Anthropic's breakpoint rule
// (issue 25): a chat, then a 40-call run whose final reply flushes, then the next prompt, whose first
// request carries the stubs. Its rewrite point lies far more than 20 blocks before its last breakpoint,
// so without the spare breakpoint (`cacheBreakpoint: false`, the control) it reads only what pi-ai's own
// markers reach (tools and system); with it, the entry the run's first request wrote is read. A warm-up
// prompt is flushed first: the first rewrite of a session also declares context_tree_query (issue 26),
// which changes the tool list, so the rewrite measured here is the session's second.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cacheBlocks, PromptCacheSim } from "./cache-sim.js";
import type { RecordedRequest } from "./fake-llm.js";
import { disposeSandbox, makeSandbox, mainRequests, runPrint, type Sandbox } from "./harness.js";
import { cacheModelIds, pricedModelFields } from "./priced-models.js";
import { bash, problems, say } from "./scenario-kit.js";
import { STUB_RE } from "./wire-view.js";

/** Long enough that nothing expires during the run: this test is about the lookback, not the lifetime. */
const TTL_SECONDS = 300;
const CHAT = 10;
const CALLS = 40;

const note = (i: number) => `Note ${i}: ${`the design keeps every original output recoverable; line ${i}. `.repeat(40)}`;
const chatPrompts = Array.from({ length: CHAT }, (_, i) => note(i));
const script = () => ({
  main: [bash("seq 1 300"), say("Warmed up."), ...chatPrompts.map((_, i) => say(`Noted ${i}.`)), ...Array.from({ length: CALLS }, (_, i) => bash(`seq ${i * 7} ${i * 7 + 260}`)), say("Run finished."), say("Next step noted.")],
});

async function play(cacheBreakpoint: boolean): Promise<Sandbox> {
  const sb = await makeSandbox({
    api: "anthropic-messages",
    // Classic flushes at the final reply whatever the cache says; the spare breakpoint does not depend on the policy.
    contextPrune: { enabled: true, minBatchChars: 0, flushPolicy: "classic", cacheBreakpoint },
    cache: new PromptCacheSim({ ttlMs: TTL_SECONDS * 1000, modelIds: cacheModelIds() }),
    modelFields: pricedModelFields(TTL_SECONDS),
    script: script(),
  });
  const run = await runPrint(sb, ["Warm up.", ...chatPrompts, "Run the counts.", "What next?"], [], { timeoutMs: 110_000 });
  expect(run.code).toBe(0);
  expect(problems(sb)).toEqual([]);
  return sb;
}

const hasStub = (block: string) => {
  const parsed = JSON.parse(block.slice(block.indexOf("{")));
  if (parsed?.type !== "tool_result") return false;
  const content = typeof parsed.content === "string" ? [{ type: "text", text: parsed.content }] : (parsed.content ?? []);
  return content.some((c: any) => c?.type === "text" && STUB_RE.test(c.text));
};

/** The request's blocks as the cache sees them, split at its first stubbed tool result after the warm-up's. */
function stubView(req: RecordedRequest): { firstStub: number; prefixTokens: number; toolsAndSystemTokens: number } {
  const { blocks } = cacheBlocks(req.body);
  const stubs = blocks.flatMap((b, i) => (/^\d+:user:/.test(b) && hasStub(b) ? [i] : []));
  const firstStub = stubs.length > 1 ? stubs[1] : -1;
  const chars = (list: string[]) => list.reduce((n, b) => n + b.length, 0);
  const head = blocks.filter((b) => b.startsWith("tool:") || b.startsWith("system:"));
  return { firstStub, prefixTokens: Math.round(chars(blocks.slice(0, firstStub)) / 4), toolsAndSystemTokens: Math.round(chars(head) / 4) };
}

/** The first main request whose payload carries a run output's stub (the next prompt's first request). */
const firstStubbed = (sb: Sandbox) => mainRequests(sb).find((r) => stubView(r).firstStub >= 0);

describe("the first request after a final-reply flush, under Anthropic's breakpoint rule", () => {
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

  test("with cacheBreakpoint off (the control) it reads only tools and system", () => {
    const req = firstStubbed(off)!;
    expect(req).toBeDefined();
    const view = stubView(req);
    // The run's outputs are stubbed: the rewrite point lies more than 20 blocks before the last breakpoint.
    expect(cacheBlocks(req.body).blocks.length - view.firstStub).toBeGreaterThan(20);
    expect(req.cache?.cacheReadTokens).toBe(view.toolsAndSystemTokens);
    expect(view.prefixTokens).toBeGreaterThan(2 * view.toolsAndSystemTokens);
  });

  test("with cacheBreakpoint on it reads at least 90% of the prefix before its first stub", () => {
    const req = firstStubbed(on)!;
    expect(req).toBeDefined();
    const view = stubView(req);
    expect(req.cache!.cacheReadTokens).toBeGreaterThanOrEqual(0.9 * view.prefixTokens);
    expect(req.cache!.cacheReadTokens).toBeGreaterThan(view.toolsAndSystemTokens);
  });
});
