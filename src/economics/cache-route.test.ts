// The cache route of real catalog models, and its agreement with the request pi-ai's own code builds:
// a route is billed by the breakpoint rule exactly when pi-ai puts markers on the wire.
import { describe, expect, test } from "bun:test";
import type { Api, Model } from "@earendil-works/pi-ai";
import { getModel, getModels, getProviders } from "@earendil-works/pi-ai/compat";
import { piAiRequest, toolTurns } from "../../test/pi-ai-request.js";
import { cacheRouteOf, cacheRuleWords, retentionWords } from "./cache-route.js";

const catalog = (provider: string, id: string): Model<Api> => {
  const model = getModel(provider as never, id as never) as Model<Api> | undefined;
  if (!model) throw new Error(`pi-ai's catalog has no ${provider}/${id}`);
  return model;
};
const LONG = { PI_CACHE_RETENTION: "long" };

const allModels = (apis: string[]): Model<Api>[] => getProviders().flatMap((p) => (getModels(p as never) as Model<Api>[]).filter((m) => apis.includes(m.api)));

/** Markers in a body as pi-ai wrote them: `cache_control` values and `cachePoint` blocks, anywhere. */
function markersIn(value: unknown): unknown[] {
  if (Array.isArray(value)) return value.flatMap(markersIn);
  if (typeof value !== "object" || value === null) return [];
  const found: unknown[] = [];
  for (const [key, inner] of Object.entries(value)) {
    if (key === "cache_control" || key === "cachePoint") found.push(inner);
    else found.push(...markersIn(inner));
  }
  return found;
}

describe("the rule of each route", () => {
  test("Anthropic's API is billed by breakpoints, its minimum by model", () => {
    expect(cacheRouteOf(catalog("anthropic", "claude-sonnet-4-5"))).toMatchObject({ rule: "anthropic-breakpoints", wire: "anthropic", minTokens: 1024, retention: "short" });
    expect(cacheRouteOf(catalog("anthropic", "claude-haiku-4-5")).minTokens).toBe(4096);
    expect(cacheRouteOf(catalog("anthropic", "claude-sonnet-4-6")).minTokens).toBe(2048);
  });

  test("Claude on Bedrock is billed by breakpoints placed as cachePoint blocks, its minimum read from the Bedrock id", () => {
    expect(cacheRouteOf(catalog("amazon-bedrock", "anthropic.claude-sonnet-4-5-20250929-v1:0"))).toMatchObject({ rule: "anthropic-breakpoints", wire: "bedrock", minTokens: 1024 });
    expect(cacheRouteOf(catalog("amazon-bedrock", "global.anthropic.claude-haiku-4-5-20251001-v1:0")).minTokens).toBe(4096);
    expect(cacheRouteOf(catalog("amazon-bedrock", "eu.anthropic.claude-sonnet-4-6")).minTokens).toBe(2048);
  });

  test("a Bedrock model that is not Claude takes Bedrock's automatic prefix cache, unless AWS_BEDROCK_FORCE_CACHE adds cache points", () => {
    const nova = catalog("amazon-bedrock", "amazon.nova-pro-v1:0");
    expect(cacheRouteOf(nova)).toMatchObject({ rule: "longest-prefix", minTokens: 1024 });
    expect(cacheRouteOf(nova).problem).toBeUndefined();
    expect(cacheRouteOf(nova, { AWS_BEDROCK_FORCE_CACHE: "1" })).toMatchObject({ rule: "anthropic-breakpoints", wire: "bedrock" });
  });

  test("a Claude model on Bedrock that pi-ai sends no cache points for is not cached, and says why", () => {
    const old = { ...catalog("amazon-bedrock", "anthropic.claude-sonnet-4-5-20250929-v1:0"), id: "anthropic.claude-3-5-sonnet-20241022-v2:0", name: "Claude 3.5 Sonnet v2" };
    const route = cacheRouteOf(old, { AWS_BEDROCK_FORCE_CACHE: "1" });
    expect(route.rule).toBe("uncached");
    expect(route.problem).toBe("pi-ai sends no cache points for anthropic.claude-3-5-sonnet-20241022-v2:0 on Bedrock, so nothing is cached");
  });

  test("OpenRouter's Anthropic models on chat completions are billed by breakpoints, detected as pi-ai detects them", () => {
    const batch = catalog("openrouter", "anthropic/claude-haiku-4.5:batch");
    expect(batch.api).toBe("openai-completions");
    expect(cacheRouteOf(batch)).toMatchObject({ rule: "anthropic-breakpoints", wire: "openai", minTokens: 4096 });
    const { compat: _declared, ...undeclared } = batch as Model<Api> & { compat?: unknown };
    expect(cacheRouteOf(undeclared).wire).toBe("openai");
  });

  test("any chat-completions model whose compat says cacheControlFormat anthropic is billed by breakpoints", () => {
    const custom = { api: "openai-completions", provider: "my-proxy", id: "claude-sonnet-4-5", baseUrl: "http://localhost:4000/v1", compat: { cacheControlFormat: "anthropic" } };
    expect(cacheRouteOf(custom)).toMatchObject({ rule: "anthropic-breakpoints", wire: "openai" });
    expect(cacheRouteOf({ ...custom, compat: {} }).rule).toBe("longest-prefix");
  });

  test("OpenAI and every other known API take the longest prefix, OpenAI's read in steps of 128", () => {
    expect(cacheRouteOf(catalog("openai", "gpt-5.1"))).toMatchObject({ rule: "longest-prefix", minTokens: 1024, increment: 128 });
    expect(cacheRouteOf(catalog("openai", "gpt-5.1")).problem).toBeUndefined();
    expect(cacheRouteOf(allModels(["google-generative-ai"])[0])).toMatchObject({ rule: "longest-prefix", increment: 1 });
  });

  test("an unknown API, or a model naming none, has no known rule and says so", () => {
    expect(cacheRouteOf({ api: "telepathy", provider: "x", id: "y" }).problem).toBe("the API telepathy is not one pi-condense knows the cache rule of");
    expect(cacheRouteOf({ provider: "x", id: "y" }).problem).toBe("the model names no API, so its cache rule is unknown");
    expect(cacheRouteOf(undefined).problem).toBe("the model names no API, so its cache rule is unknown");
    expect(cacheRouteOf({ api: 42 } as never).problem).toBe("the model names no API, so its cache rule is unknown");
  });
});

describe("the route agrees with the request pi-ai builds", () => {
  const apis = ["anthropic-messages", "bedrock-converse-stream", "openai-completions"];

  test("over every catalog model of the three marker APIs: breakpoints exactly when pi-ai puts markers on the request", async () => {
    const disagree: string[] = [];
    for (const model of allModels(apis)) {
      for (const env of [{}, { AWS_BEDROCK_FORCE_CACHE: "1" }] as Record<string, string>[]) {
        const body = await piAiRequest(model, toolTurns(model, 1), { env });
        const marked = markersIn(body).length > 0;
        if (marked !== (cacheRouteOf(model, env).rule === "anthropic-breakpoints")) disagree.push(`${model.provider}/${model.id} ${JSON.stringify(env)}`);
      }
    }
    expect(disagree).toEqual([]);
  });

  test("with PI_CACHE_RETENTION=long, pi-ai's markers ask for one hour exactly where the route says long retention", async () => {
    const disagree: string[] = [];
    const marked = allModels(apis).filter((m) => cacheRouteOf(m).rule === "anthropic-breakpoints");
    expect(marked.length).toBeGreaterThan(100);
    for (const model of marked) {
      const body = await piAiRequest(model, toolTurns(model, 1), { env: LONG });
      const hour = markersIn(body).every((m) => (m as { ttl?: unknown }).ttl === "1h");
      if (hour !== (cacheRouteOf(model, LONG).retention === "long")) disagree.push(`${model.provider}/${model.id}`);
    }
    expect(disagree).toEqual([]);
  });

  test("a model whose compat refuses long retention keeps short markers, and the route says short", async () => {
    const sonnet = { ...catalog("anthropic", "claude-sonnet-4-5"), compat: { supportsLongCacheRetention: false } } as Model<Api>;
    expect(markersIn(await piAiRequest(sonnet, toolTurns(sonnet, 1), { env: LONG })).some((m) => (m as { ttl?: unknown }).ttl === "1h")).toBe(false);
    expect(cacheRouteOf(sonnet, LONG).retention).toBe("short");
    const together = { ...catalog("openrouter", "anthropic/claude-sonnet-4.5:batch"), provider: "together", baseUrl: "https://api.together.xyz/v1" } as Model<Api>;
    expect(markersIn(await piAiRequest(together, toolTurns(together, 1), { env: LONG })).some((m) => (m as { ttl?: unknown }).ttl === "1h")).toBe(false);
    expect(cacheRouteOf(together, LONG).retention).toBe("short");
  });
});

describe("the route in words", () => {
  test("names where the markers go", () => {
    expect(cacheRuleWords("anthropic-breakpoints", "anthropic")).toBe("Anthropic breakpoints (20-block lookback)");
    expect(cacheRuleWords("anthropic-breakpoints", "bedrock")).toBe("Anthropic breakpoints on Bedrock (cachePoint blocks, 20-block lookback)");
    expect(cacheRuleWords("anthropic-breakpoints", "openai")).toBe("Anthropic breakpoints through chat completions (cache_control on content parts, 20-block lookback)");
    expect(cacheRuleWords("longest-prefix", undefined)).toBe("longest shared prefix");
    expect(cacheRuleWords("uncached", undefined)).toBe("none");
  });

  test("gives the lifetime, and the write price when long", () => {
    expect(retentionWords("short", 300_000)).toBe("short retention: entries live 5 min");
    expect(retentionWords("long", 3_600_000)).toBe("long retention: entries live 1 h, a write costs 2x the input price");
  });
});
