import { describe, expect, spyOn, test } from "bun:test";
import { checkModel, closeModelMatches, exampleModel, keysForBareId } from "./model-check.js";

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

describe("keysForBareId", () => {
  test("an id pi knows under one provider gives that one key", () => {
    expect(keysForBareId(lookup(KNOWN), "gpt-5-mini")).toEqual(["openai/gpt-5-mini"]);
  });

  test("an id under several providers gives every key", () => {
    expect(keysForBareId(lookup([...KNOWN, "azure/gpt-5-mini"]), "gpt-5-mini")).toEqual(["openai/gpt-5-mini", "azure/gpt-5-mini"]);
  });

  test("an unknown id or a missing registry gives none", () => {
    expect(keysForBareId(lookup(KNOWN), "nope")).toEqual([]);
    expect(keysForBareId(undefined, "gpt-5-mini")).toEqual([]);
  });
});

describe("exampleModel", () => {
  test("names the cheap Anthropic model when pi's catalog has it", () => {
    expect(exampleModel(lookup(KNOWN))).toBe("anthropic/claude-haiku-4-5");
  });

  test("falls back to another candidate, then to any model pi knows", () => {
    expect(exampleModel(lookup(["openai/gpt-5-mini"]))).toBe("openai/gpt-5-mini");
    expect(exampleModel(lookup(["fake/fake-model"]))).toBe("fake/fake-model");
  });

  test("without a registry it names the first candidate", () => {
    expect(exampleModel(undefined)).toBe("anthropic/claude-haiku-4-5");
  });
});
