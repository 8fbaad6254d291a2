// What pi's cache warming did in one bench run, from the loopback provider's request log: the refreshes it
// sent, and the pauses where the cache was let expire although pi's own rule (pi-ai's `evaluateCacheWarming`,
// idle, at the run's prices) warms a prompt of that size, i.e. a refresh was answered "stop"; and of those,
// the ones after which the next request rewrote the conversation (it does not extend the last one sent).
import { evaluateCacheWarming, type Api, type Model, type ModelCost } from "@earendil-works/pi-ai";
import type { RecordedRequest } from "../test/e2e/fake-llm.js";
import { cacheBlocks, openAiCacheBlocks } from "../test/e2e/cache-sim.js";

export interface RunWarming {
  refreshes: number;
  /** Pauses past the cache lifetime in which warming stopped though pi's rule warms the prompt. */
  stopped: number;
  /** Of those, the pauses after which the next request rewrote the conversation. */
  stoppedThenRewritten: number;
}

function blocksOf(request: RecordedRequest): string[] {
  return request.api === "anthropic-messages" ? cacheBlocks(request.body).blocks : openAiCacheBlocks(request.body);
}

/** The next request sends the last one's blocks unchanged at its start, or it rewrote something before its end. */
function rewrote(before: RecordedRequest, after: RecordedRequest): boolean {
  const a = blocksOf(before);
  const b = blocksOf(after);
  return a.length > b.length || a.some((block, i) => block !== b[i]);
}

function promptTokens(request: RecordedRequest): number {
  const c = request.cache;
  return c ? c.inputTokens + c.cacheReadTokens + c.cacheWriteTokens : 0;
}

/** `main`: the main model's prices; `ttlMs`: the simulated cache lifetime. */
export function warmingOf(requests: RecordedRequest[], main: ModelCost, ttlMs: number): RunWarming {
  const model = { id: "bench", provider: "bench", api: "anthropic-messages", cost: main } as unknown as Model<Api>;
  const served = requests.filter((r) => r.status === 200);
  const warming: RunWarming = { refreshes: served.filter((r) => r.kind === "warm").length, stopped: 0, stoppedThenRewritten: 0 };
  const mains = served.filter((r) => r.kind === "main");
  for (let i = 1; i < mains.length; i++) {
    const before = mains[i - 1]!;
    const after = mains[i]!;
    if (after.at - before.at <= ttlMs) continue;
    const touches = served.filter((r) => r.kind === "warm" && r.seq > before.seq && r.seq < after.seq);
    const lastTouch = touches.at(-1)?.at ?? before.at;
    if (after.at - lastTouch <= ttlMs) continue;
    if (evaluateCacheWarming(model, promptTokens(before), "idle").action !== "warm") continue;
    warming.stopped++;
    if (rewrote(before, after)) warming.stoppedThenRewritten++;
  }
  return warming;
}
