import { describe, expect, test } from "bun:test";
import { argumentHorizon, behindHorizon, NO_HORIZON } from "./horizon.js";
import { CUSTOM_TYPE_CHAIN, CUSTOM_TYPE_DEDUP_ALIAS, CUSTOM_TYPE_INDEX } from "../names.js";

const message = (timestamp: unknown) => ({ type: "message", message: { role: "user", content: "x", timestamp } });
const custom = (customType: string) => ({ type: "custom", customType, data: {} });

describe("argumentHorizon", () => {
  test("is the newest message before the last index entry", () => {
    const branch = [message(1), custom(CUSTOM_TYPE_INDEX), message(2), message(3), custom(CUSTOM_TYPE_INDEX), message(4)];
    expect(argumentHorizon(branch)).toBe(3);
  });

  test("a dedup alias entry is an archive write too", () => {
    expect(argumentHorizon([message(1), message(2), custom(CUSTOM_TYPE_DEDUP_ALIAS), message(3)])).toBe(2);
  });

  test("entries that archive nothing leave it where it was", () => {
    expect(argumentHorizon([message(1), custom(CUSTOM_TYPE_INDEX), message(2), custom(CUSTOM_TYPE_CHAIN), message(3)])).toBe(1);
  });

  test("with nothing archived no message is behind it", () => {
    expect(argumentHorizon([message(1), message(2)])).toBe(NO_HORIZON);
    expect(argumentHorizon([])).toBe(NO_HORIZON);
  });

  test("reads only the branch before `end`, as a replay at that request would", () => {
    const branch = [message(1), custom(CUSTOM_TYPE_INDEX), message(2), custom(CUSTOM_TYPE_INDEX)];
    expect(argumentHorizon(branch, 3)).toBe(1);
  });

  test("a message without a usable timestamp is skipped, and entries that are no objects never throw", () => {
    expect(argumentHorizon([message(5), message("soon"), message(Number.NaN), null, 7, custom(CUSTOM_TYPE_INDEX)])).toBe(5);
  });
});

describe("behindHorizon", () => {
  test("without a horizon every message is behind it", () => {
    expect(behindHorizon({ timestamp: 99 }, undefined)).toBe(true);
    expect(behindHorizon({}, undefined)).toBe(true);
  });

  test("with one a message counts when its timestamp is at or before it", () => {
    expect(behindHorizon({ timestamp: 3 }, 3)).toBe(true);
    expect(behindHorizon({ timestamp: 4 }, 3)).toBe(false);
    expect(behindHorizon({}, 3)).toBe(false);
    expect(behindHorizon(null, 3)).toBe(false);
  });
});

describe("argumentStubsOn", () => {
  test("follows stubArguments under the cost policy and is off under classic, 2.9.1's policy", async () => {
    const { argumentStubsOn } = await import("./fields.js");
    expect(argumentStubsOn({ flushPolicy: "cost", stubArguments: true })).toBe(true);
    expect(argumentStubsOn({ flushPolicy: "cost", stubArguments: false })).toBe(false);
    expect(argumentStubsOn({ flushPolicy: "classic", stubArguments: true })).toBe(false);
  });
});
