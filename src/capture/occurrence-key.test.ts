import { describe, expect, test } from "bun:test";
import { bareToolCallId, occKey, parseOccKey, resultTimestampOf } from "./occurrence-key.js";

describe("occKey", () => {
  test("joins the id and the result timestamp with @", () => {
    // K1
    expect(occKey("bash_23", 1700)).toBe("bash_23@1700");
  });

  test("returns the bare id when the timestamp is undefined", () => {
    // K2
    expect(occKey("bash_23", undefined)).toBe("bash_23");
    expect(occKey("bash_23")).toBe("bash_23");
  });

  test("keeps a zero timestamp (only undefined means legacy)", () => {
    expect(occKey("bash_23", 0)).toBe("bash_23@0");
  });
});

describe("parseOccKey", () => {
  test("splits an occurrence key into id and numeric timestamp", () => {
    // K3
    expect(parseOccKey("bash_23@1700")).toEqual({ toolCallId: "bash_23", resultTimestamp: 1700 });
  });

  test("a bare id parses without any resultTimestamp property", () => {
    // K4
    const parsed = parseOccKey("bash_23");
    expect(parsed).toEqual({ toolCallId: "bash_23" });
    expect("resultTimestamp" in parsed).toBe(false);
  });

  test("a non-digit suffix after @ keeps the whole string as the bare id", () => {
    // K5
    const parsed = parseOccKey("call_abc@sha");
    expect(parsed).toEqual({ toolCallId: "call_abc@sha" });
    expect("resultTimestamp" in parsed).toBe(false);
  });

  test("splits at the last @ so ids may contain @ themselves", () => {
    // K6
    expect(parseOccKey("call@abc@1700")).toEqual({ toolCallId: "call@abc", resultTimestamp: 1700 });
  });

  test("an @ at position 0 does not split", () => {
    const parsed = parseOccKey("@1700");
    expect(parsed).toEqual({ toolCallId: "@1700" });
    expect("resultTimestamp" in parsed).toBe(false);
  });

  test("an empty or signed suffix is not a timestamp", () => {
    expect(parseOccKey("tc@")).toEqual({ toolCallId: "tc@" });
    expect(parseOccKey("tc@-5")).toEqual({ toolCallId: "tc@-5" });
    expect(parseOccKey("tc@1.5")).toEqual({ toolCallId: "tc@1.5" });
  });

  test("round-trips with occKey", () => {
    expect(parseOccKey(occKey("x@y", 42))).toEqual({ toolCallId: "x@y", resultTimestamp: 42 });
  });
});

describe("bareToolCallId", () => {
  test("strips the timestamp from an occurrence key and keeps a bare id", () => {
    // K7
    expect(bareToolCallId("bash_23@1700")).toBe("bash_23");
    expect(bareToolCallId("bash_23")).toBe("bash_23");
  });
});

describe("resultTimestampOf", () => {
  test("returns a number as-is", () => {
    // K8
    expect(resultTimestampOf(1700)).toBe(1700);
  });

  test("returns undefined for undefined", () => {
    // K9
    expect(resultTimestampOf(undefined)).toBeUndefined();
  });

  test("returns undefined for a numeric string", () => {
    // K10
    expect(resultTimestampOf("1700")).toBeUndefined();
  });

  test("returns undefined for null", () => {
    // K11
    expect(resultTimestampOf(null)).toBeUndefined();
  });

  test("returns NaN for NaN (it is a number)", () => {
    // K12
    expect(resultTimestampOf(Number.NaN)).toBeNaN();
  });

  test("returns undefined for objects", () => {
    expect(resultTimestampOf({ ts: 1 })).toBeUndefined();
  });
});

describe("occKey interning", () => {
  test("many ids sharing one timestamp each keep their own key", () => {
    const keys = Array.from({ length: 40 }, (_, i) => occKey(`call_${i}`, 5_000));
    expect(keys).toEqual(Array.from({ length: 40 }, (_, i) => `call_${i}@5000`));
    expect(occKey("call_39", 5_000)).toBe("call_39@5000");
  });

  test("the same id at different timestamps gives different keys", () => {
    expect(occKey("bash_1", 10)).toBe("bash_1@10");
    expect(occKey("bash_1", 11)).toBe("bash_1@11");
    expect(occKey("bash_1", 10)).toBe("bash_1@10");
  });

  test("NaN and negative zero timestamps key as their template text", () => {
    expect(occKey("x", Number.NaN)).toBe("x@NaN");
    expect(occKey("x", -0)).toBe(`x@${-0}`);
    expect(occKey("x", 0)).toBe("x@0");
  });

  test("keys stay correct past the interning limit", () => {
    for (let i = 0; i < (1 << 18) + 10; i++) occKey("bulk", i);
    expect(occKey("bulk", 3)).toBe("bulk@3");
    expect(occKey("other", 3)).toBe("other@3");
  });
});
