import { describe, expect, test } from "bun:test";
import { COOLDOWN_MS, FallbackController, fallbackInUse, summarizerInUse } from "./summarizer-fallback.js";

const HAIKU = { id: "claude-haiku", provider: "anthropic", name: "Haiku" };
const SONNET = { id: "claude-sonnet", provider: "anthropic", name: "Sonnet" };

function clocked(start = 0) {
  const clock = { now: start };
  const controller = new FallbackController(() => clock.now);
  return { clock, controller };
}

/** A controller that entered fallback through a rescued call at time `at`. */
function enteredAt(at: number) {
  const setup = clocked(at);
  expect(setup.controller.onPrimaryFailFallbackOk(false)).toBe("enter");
  return setup;
}

describe("FallbackController.hasDistinctFallback", () => {
  test("identical models have no distinct fallback (17)", () => {
    expect(FallbackController.hasDistinctFallback(HAIKU, { ...HAIKU })).toBe(false);
  });

  test("a missing model in either position has no distinct fallback (18)", () => {
    expect(FallbackController.hasDistinctFallback(undefined, SONNET)).toBe(false);
    expect(FallbackController.hasDistinctFallback(HAIKU, undefined)).toBe(false);
  });

  test("a different id on the same provider is distinct (19)", () => {
    expect(FallbackController.hasDistinctFallback(HAIKU, SONNET)).toBe(true);
  });

  test("the same id on a different provider is distinct (19)", () => {
    expect(FallbackController.hasDistinctFallback(HAIKU, { ...HAIKU, provider: "bedrock" })).toBe(true);
  });

  test("display names are ignored", () => {
    expect(FallbackController.hasDistinctFallback(HAIKU, { ...HAIKU, name: "Other" })).toBe(false);
  });
});

describe("FallbackController.chooseTarget", () => {
  test("a fresh controller targets the primary without probing (20)", () => {
    expect(clocked().controller.chooseTarget()).toEqual({ target: "primary", wasProbe: false });
  });

  test("one millisecond before the cooldown the fallback is chosen (21)", () => {
    const { clock, controller } = enteredAt(5_000);
    clock.now = 5_000 + COOLDOWN_MS - 1;
    expect(controller.chooseTarget()).toEqual({ target: "fallback", wasProbe: false });
  });

  test("at exactly the cooldown one probe is claimed and the next call falls back (22)", () => {
    const { clock, controller } = enteredAt(0);
    clock.now = COOLDOWN_MS;
    expect(controller.chooseTarget()).toEqual({ target: "primary", wasProbe: true });
    expect(controller.chooseTarget()).toEqual({ target: "fallback", wasProbe: false });
  });

  test("the cooldown constant is ten minutes", () => {
    expect(COOLDOWN_MS).toBe(600_000);
  });

  test("the default clock is the wall clock", () => {
    const controller = new FallbackController();
    controller.onPrimaryFailFallbackOk(false);
    expect(controller.chooseTarget()).toEqual({ target: "fallback", wasProbe: false });
  });
});

describe("FallbackController transitions", () => {
  test("the first rescued call enters and later ones are silent (23)", () => {
    const { controller } = clocked();
    expect(controller.onPrimaryFailFallbackOk(false)).toBe("enter");
    expect(controller.inFallback).toBe(true);
    expect(controller.onPrimaryFailFallbackOk(false)).toBe("none");
    expect(controller.onPrimaryFailFallbackOk(false)).toBe("none");
  });

  test("a successful probe recovers (24)", () => {
    const { controller } = enteredAt(0);
    expect(controller.onPrimarySuccess(true)).toBe("recover");
    expect(controller.inFallback).toBe(false);
  });

  test("a primary success outside fallback is not a recovery (25)", () => {
    const { controller } = clocked();
    expect(controller.onPrimarySuccess(false)).toBe("none");
    expect(controller.inFallback).toBe(false);
  });

  test("a non-probe primary success while in fallback does not recover", () => {
    const { controller } = enteredAt(0);
    expect(controller.onPrimarySuccess(false)).toBe("none");
    expect(controller.inFallback).toBe(true);
  });

  test("a failed probe rescued by the fallback stays in fallback silently (26)", () => {
    const { clock, controller } = enteredAt(0);
    clock.now = COOLDOWN_MS;
    expect(controller.chooseTarget().wasProbe).toBe(true);
    clock.now = COOLDOWN_MS + 50;
    expect(controller.onPrimaryFailFallbackOk(true)).toBe("none");
    expect(controller.inFallback).toBe(true);
  });

  test("a failed probe restarts the cooldown", () => {
    const { clock, controller } = enteredAt(0);
    clock.now = COOLDOWN_MS;
    controller.chooseTarget();
    clock.now = COOLDOWN_MS + 50;
    controller.onPrimaryFailFallbackOk(true);
    clock.now = 2 * COOLDOWN_MS + 49;
    expect(controller.chooseTarget()).toEqual({ target: "fallback", wasProbe: false });
    clock.now = 2 * COOLDOWN_MS + 50;
    expect(controller.chooseTarget()).toEqual({ target: "primary", wasProbe: true });
  });

  test("both models down enters silently and owes one enter warning (27)", () => {
    const { controller } = clocked();
    controller.onBothDown();
    expect(controller.inFallback).toBe(true);
    expect(controller.onFallbackSuccess()).toBe("enter");
    expect(controller.onFallbackSuccess()).toBe("none");
  });

  test("the owed warning is paid by the first rescued call instead", () => {
    const { controller } = clocked();
    controller.onBothDown();
    expect(controller.onPrimaryFailFallbackOk(false)).toBe("enter");
    expect(controller.onFallbackSuccess()).toBe("none");
  });

  test("both down after an announced enter owes nothing (28)", () => {
    const { controller } = enteredAt(0);
    controller.onBothDown();
    expect(controller.onFallbackSuccess()).toBe("none");
  });

  test("a recovery clears an owed warning (29)", () => {
    const { clock, controller } = clocked();
    controller.onBothDown();
    clock.now = COOLDOWN_MS;
    expect(controller.chooseTarget()).toEqual({ target: "primary", wasProbe: true });
    expect(controller.onPrimarySuccess(true)).toBe("recover");
    expect(controller.inFallback).toBe(false);
    expect(controller.onFallbackSuccess()).toBe("none");
  });

  test("an unreported probe leaves the controller in fallback (30)", () => {
    const { clock, controller } = enteredAt(0);
    clock.now = COOLDOWN_MS;
    expect(controller.chooseTarget().wasProbe).toBe(true);
    expect(controller.inFallback).toBe(true);
  });

  test("fallback-only failures never push the probe back (31)", () => {
    const { clock, controller } = enteredAt(0);
    for (let minute = 1; minute <= 9; minute++) {
      clock.now = minute * 60_000;
      expect(controller.chooseTarget().target).toBe("fallback");
      controller.onFallbackOnlyFail();
    }
    clock.now = COOLDOWN_MS;
    expect(controller.chooseTarget()).toEqual({ target: "primary", wasProbe: true });
  });

  test("both down restarts the probe cooldown", () => {
    const { clock, controller } = enteredAt(0);
    clock.now = 120_000;
    controller.onBothDown();
    clock.now = COOLDOWN_MS;
    expect(controller.chooseTarget()).toEqual({ target: "fallback", wasProbe: false });
    clock.now = 120_000 + COOLDOWN_MS;
    expect(controller.chooseTarget()).toEqual({ target: "primary", wasProbe: true });
  });

  test("reset returns to a fresh state (32)", () => {
    const { controller } = clocked(1_000);
    controller.onBothDown();
    controller.reset();
    expect(controller.inFallback).toBe(false);
    expect(controller.onFallbackSuccess()).toBe("none");
    expect(controller.chooseTarget()).toEqual({ target: "primary", wasProbe: false });
  });
});

describe("fallbackInUse", () => {
  const SESSION = { id: "fake-model", provider: "fake", name: "Fake Model" };

  test("says nothing while the summarizer model is in use", () => {
    expect(fallbackInUse(new FallbackController(), SESSION)).toBeUndefined();
  });

  test("names the session model and the primary's error while it stands in", () => {
    const controller = new FallbackController();
    controller.recordPrimaryFailure("401 invalid x-api-key");
    controller.onPrimaryFailFallbackOk(false);
    expect(fallbackInUse(controller, SESSION)).toBe("session model Fake Model, the summarizer model is failing (401 invalid x-api-key)");
  });

  test("reset forgets the cause", () => {
    const controller = new FallbackController();
    controller.recordPrimaryFailure("boom");
    controller.reset();
    expect(controller.cause).toBeUndefined();
  });
});

describe("summarizerInUse (issue 36, point 7)", () => {
  const session = { id: "fake-model", provider: "fake", name: "Fake Model" };
  const haiku = { id: "claude-haiku-4-5", provider: "anthropic" };
  const registry = (authed: boolean) => ({ find: (p: string, id: string) => (p === "anthropic" && id === haiku.id ? haiku : undefined), hasConfiguredAuth: () => authed });

  test("a configured model pi has no credentials for names the session model and the fix before any call fails", () => {
    const text = summarizerInUse(new FallbackController(), { model: session, modelRegistry: registry(false) }, "anthropic/claude-haiku-4-5");
    expect(text).toBe(
      "session model Fake Model, pi has no credentials for anthropic (run /login anthropic in pi, or set anthropic's API key environment variable (pi's docs/providers.md names it))",
    );
  });

  test("a configured model with credentials, the default model and an unknown model are in use as configured", () => {
    const controller = new FallbackController();
    expect(summarizerInUse(controller, { model: session, modelRegistry: registry(true) }, "anthropic/claude-haiku-4-5")).toBeUndefined();
    expect(summarizerInUse(controller, { model: session, modelRegistry: registry(false) }, "default")).toBeUndefined();
    expect(summarizerInUse(controller, { model: session, modelRegistry: registry(false) }, "anthropic/nope")).toBeUndefined();
  });

  test("a fallback in force is named first", () => {
    const controller = new FallbackController();
    controller.onPrimaryFailFallbackOk(false);
    controller.recordPrimaryFailure("boom");
    expect(summarizerInUse(controller, { model: session, modelRegistry: registry(false) }, "anthropic/claude-haiku-4-5")).toBe(
      "session model Fake Model, the summarizer model is failing (boom)",
    );
  });
});
