// The fake models priced like real ones, read from pi-ai's catalog at runtime, with a short prompt-cache
// lifetime so a test or the session bench can let the cache expire in seconds. On the Anthropic wire the
// main model is priced as claude-sonnet-4-5 and the summarizer as claude-haiku-4-5; on the OpenAI wire as
// gpt-5.1 and gpt-5-mini. The cache simulation takes each model's minimum cacheable prefix from the same ids.
import { getModel } from "@earendil-works/pi-ai/compat";
import type { ModelCost } from "@earendil-works/pi-ai";
import type { FakeApi } from "./fake-llm.js";
import { MAIN_MODEL, SUMMARIZER_MODEL } from "./sandbox.js";

export const MAIN_PRICE_MODEL = "claude-sonnet-4-5";
export const SUMMARIZER_PRICE_MODEL = "claude-haiku-4-5";

/** The catalog models each wire format's fake models stand for. */
export const PRICED_AS: Record<FakeApi, { provider: "anthropic" | "openai"; main: string; summarizer: string }> = {
  "anthropic-messages": { provider: "anthropic", main: MAIN_PRICE_MODEL, summarizer: SUMMARIZER_PRICE_MODEL },
  "openai-completions": { provider: "openai", main: "gpt-5.1", summarizer: "gpt-5-mini" },
};

export function catalogCost(id: string, provider: "anthropic" | "openai" = "anthropic"): ModelCost {
  const model = getModel(provider, id as never) as { cost?: ModelCost } | undefined;
  if (!model?.cost) throw new Error(`pi-ai's catalog has no ${provider}/${id}`);
  return model.cost;
}

/** A catalog model the main model is priced as instead of the wire's usual one (price tiers included). */
export interface MainPrice {
  provider: "anthropic" | "openai";
  id: string;
}

/** Prices per fake model id on one wire format (`main`: another catalog model for the main model). */
export function pricesFor(api: FakeApi, main?: MainPrice): Record<string, ModelCost> {
  const as = PRICED_AS[api];
  return { [MAIN_MODEL]: main ? catalogCost(main.id, main.provider) : catalogCost(as.main, as.provider), [SUMMARIZER_MODEL]: catalogCost(as.summarizer, as.provider) };
}

/** `modelIds` for PromptCacheSim: the catalog id each fake model stands for on one wire format. */
export function cacheModelIds(api: FakeApi = "anthropic-messages", main?: MainPrice): Record<string, string> {
  return { [MAIN_MODEL]: main?.id ?? PRICED_AS[api].main, [SUMMARIZER_MODEL]: PRICED_AS[api].summarizer };
}

/** `modelFields` for makeSandbox: catalog prices, a 200k window and a `ttlSeconds` short cache tier. */
export function pricedModelFields(ttlSeconds: number, api: FakeApi = "anthropic-messages", main?: MainPrice): { main: Record<string, unknown>; summarizer: Record<string, unknown> } {
  const promptCache = { short: ttlSeconds };
  const prices = pricesFor(api, main);
  return {
    main: { cost: prices[MAIN_MODEL], contextWindow: 200000, promptCache },
    summarizer: { cost: prices[SUMMARIZER_MODEL], contextWindow: 200000, promptCache },
  };
}
