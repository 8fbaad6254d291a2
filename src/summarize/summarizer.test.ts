import { describe, expect, test } from "bun:test";
import { isUsableSummary, resolveModel, summarizerThinkingOptions } from "./summarizer.js";
import { DEFAULT_CONFIG } from "../settings/config-shape.js";

const SESSION = { id: "session-model", provider: "provider-b", name: "Session" };
const QWEN = { id: "qwen/qwen3-30b-a3b", provider: "openrouter", name: "Qwen" };

function makeCtx() {
  const notes: Array<[string, string | undefined]> = [];
  const finds: Array<[string, string]> = [];
  const ctx: any = {
    model: SESSION,
    modelRegistry: {
      find: (provider: string, id: string) => {
        finds.push([provider, id]);
        return provider === QWEN.provider && id === QWEN.id ? QWEN : undefined;
      },
    },
    ui: { notify: (msg: string, level?: string) => notes.push([msg, level]) },
  };
  return { ctx, notes, finds };
}

const withModel = (summarizerModel: string): any => ({ ...DEFAULT_CONFIG, summarizerModel });
const withThinking = (summarizerThinking: string): any => ({ ...DEFAULT_CONFIG, summarizerThinking });

describe("isUsableSummary", () => {
  test("non-empty text that stopped normally is usable (1)", () => {
    expect(isUsableSummary("- did a thing", "stop")).toBe(true);
  });

  test("empty text is not usable (2)", () => {
    expect(isUsableSummary("", "stop")).toBe(false);
  });

  test("whitespace-only text is not usable (3)", () => {
    expect(isUsableSummary(" \n\t ", "stop")).toBe(false);
  });

  test("text cut off by the length limit is not usable (4)", () => {
    expect(isUsableSummary("- partial", "length")).toBe(false);
  });

  test("newer stop reasons with text are usable", () => {
    expect(isUsableSummary("- x", "toolUse")).toBe(true);
    expect(isUsableSummary("- x", "pending")).toBe(true);
  });
});

describe("summarizerThinkingOptions", () => {
  test("default adds no key at all", () => {
    expect(summarizerThinkingOptions(withThinking("default"))).toEqual({});
    expect("reasoningEffort" in summarizerThinkingOptions(withThinking("default"))).toBe(false);
  });

  test("off sets reasoningEffort to undefined with the key present", () => {
    const options = summarizerThinkingOptions(withThinking("off"));
    expect(Object.keys(options)).toEqual(["reasoningEffort"]);
    expect(options.reasoningEffort).toBeUndefined();
  });

  test("every explicit level is passed through as reasoningEffort", () => {
    for (const level of ["minimal", "low", "medium", "high", "xhigh"]) {
      expect(summarizerThinkingOptions(withThinking(level))).toEqual({ reasoningEffort: level });
    }
  });
});

describe("resolveModel", () => {
  test("default returns the session model without touching the registry", () => {
    const { ctx, notes, finds } = makeCtx();
    expect(resolveModel(withModel("default"), ctx)).toBe(SESSION);
    expect(finds).toEqual([]);
    expect(notes).toEqual([]);
  });

  test("the value is split at the first slash only", () => {
    const { ctx, notes, finds } = makeCtx();
    expect(resolveModel(withModel("openrouter/qwen/qwen3-30b-a3b"), ctx)).toBe(QWEN);
    expect(finds).toEqual([["openrouter", "qwen/qwen3-30b-a3b"]]);
    expect(notes).toEqual([]);
  });

  test("a value without a slash warns and returns the session model", () => {
    const { ctx, notes } = makeCtx();
    expect(resolveModel(withModel("gpt"), ctx)).toBe(SESSION);
    expect(notes).toEqual([
      [`pruner: the summarizer model "gpt" is not of the form provider/model-id; summarizing with the session's model instead.`, "warning"],
    ]);
  });

  test("a value the registry cannot find warns and returns the session model", () => {
    const { ctx, notes } = makeCtx();
    expect(resolveModel(withModel("x/y"), ctx)).toBe(SESSION);
    expect(notes).toEqual([[`pruner: pi does not know the summarizer model "x/y"; summarizing with the session's model instead.`, "warning"]]);
  });

  test("a bad value warns on every call", () => {
    const { ctx, notes } = makeCtx();
    resolveModel(withModel("gpt"), ctx);
    resolveModel(withModel("gpt"), ctx);
    expect(notes).toHaveLength(2);
  });

  test("a non-string value from a hand-edited file is treated as invalid, not thrown on", () => {
    const { ctx, notes } = makeCtx();
    expect(resolveModel(withModel(42 as any), ctx)).toBe(SESSION);
    expect(notes[0][0]).toContain('the summarizer model "42" is not of the form provider/model-id');
  });
});
