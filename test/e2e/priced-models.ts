// The fake models priced like real ones: the main model at claude-sonnet-4-5's catalog prices, the
// summarizer at claude-haiku-4-5's, both read from pi-ai's catalog at runtime, with a short
// prompt-cache lifetime so a test or the session bench can let the cache expire in seconds.
import { getModel } from "@earendil-works/pi-ai/compat";
import type { ModelCost } from "@earendil-works/pi-ai";

export const MAIN_PRICE_MODEL = "claude-sonnet-4-5";
export const SUMMARIZER_PRICE_MODEL = "claude-haiku-4-5";

export function catalogCost(id: string): ModelCost {
  const model = getModel("anthropic", id as never) as { cost?: ModelCost } | undefined;
  if (!model?.cost) throw new Error(`pi-ai's catalog has no anthropic/${id}`);
  return model.cost;
}

/** `modelFields` for makeSandbox: catalog prices, a 200k window and a `ttlSeconds` short cache tier. */
export function pricedModelFields(ttlSeconds: number): { main: Record<string, unknown>; summarizer: Record<string, unknown> } {
  const promptCache = { short: ttlSeconds };
  return {
    main: { cost: catalogCost(MAIN_PRICE_MODEL), contextWindow: 200000, promptCache },
    summarizer: { cost: catalogCost(SUMMARIZER_PRICE_MODEL), contextWindow: 200000, promptCache },
  };
}
