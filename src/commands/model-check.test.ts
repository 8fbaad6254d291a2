import { describe, expect, spyOn, test } from "bun:test";
import { checkModel, closeModelMatches } from "./model-check.js";

const KNOWN = [
  "anthropic/claude-haiku-4-5",
  "anthropic/claude-sonnet-4-5",
  "openai/gpt-5-mini",
  "openai/gpt-5",
  "openrouter/qwen/qwen3-30b-a3b",
  "google/gemini-2.5-flash",
];

function lookup(keys: string[]) {
  const models = keys.map((key) => ({ provider: key.slice(0, key.indexOf("/")), id: key.slice(key.indexOf("/") + 1) }));
  return {
    find: (provider: string, id: string) => models.find((m) => m.provider === provider && m.id === id),
    getAll: () => models,
  };
}

describe("closeModelMatches", () => {
  test("models of the same provider come first, closest first", () => {
    expect(closeModelMatches("openai/gpt5-mini", KNOWN)).toEqual(["openai/gpt-5-mini", "openai/gpt-5"]);
  });

  test("a typed fragment of a model id finds it under any provider", () => {
    expect(closeModelMatches("acme/qwen3", KNOWN)).toEqual(["openrouter/qwen/qwen3-30b-a3b"]);
  });

  test("a fragment shorter than three characters matches no id", () => {
    expect(closeModelMatches("acme/5", KNOWN)).toEqual([]);
  });

  test("a typo in the provider is forgiven by edit distance", () => {
    expect(closeModelMatches("antropic/claude-haiku-4-5", KNOWN)[0]).toBe("anthropic/claude-haiku-4-5");
  });

  test("matching ignores case", () => {
    expect(closeModelMatches("OpenAI/GPT-5", KNOWN)[0]).toBe("openai/gpt-5");
  });

  test("at most five matches are listed", () => {
    const many = Array.from({ length: 9 }, (_, i) => `fake/model-${i}`);
    expect(closeModelMatches("fake/nope", many)).toHaveLength(5);
  });

  test("nothing related gives an empty list", () => {
    expect(closeModelMatches("acme/zzz", KNOWN)).toEqual([]);
  });
});

describe("checkModel", () => {
  test("a model the registry finds is known", () => {
    expect(checkModel(lookup(KNOWN), "openrouter/qwen/qwen3-30b-a3b")).toEqual({ known: true });
  });

  test("a model it does not find is unknown, with its close matches", () => {
    expect(checkModel(lookup(KNOWN), "google/gemini-flash")).toEqual({ known: false, matches: ["google/gemini-2.5-flash"] });
  });

  test("without a registry nothing can be refused", () => {
    expect(checkModel(undefined, "a/b")).toEqual({ known: true });
    expect(checkModel({}, "a/b")).toEqual({ known: true });
  });

  test("a registry that throws refuses nothing and logs once", () => {
    const spy = spyOn(console, "error").mockImplementation(() => {});
    try {
      const broken = { find: () => { throw new Error("boom"); }, getAll: () => [] };
      expect(checkModel(broken, "a/b")).toEqual({ known: true });
      expect(spy).toHaveBeenCalledTimes(1);
    } finally {
      spy.mockRestore();
    }
  });
});
