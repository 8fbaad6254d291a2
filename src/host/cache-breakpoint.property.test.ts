// The spare breakpoint on random Anthropic request bodies after random earlier requests: it only ever adds
// one marker, never a fifth, never on a thinking block, and never changes its input.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { anthropicCodec } from "../economics/anthropic-payload.js";
import { SpareBreakpoint } from "./cache-breakpoint.js";

const CC = { type: "ephemeral" };
const OTHER_CC = { type: "ephemeral", ttl: "1h" };
const SYSTEM = "Be brief. ".repeat(600);
const THINKING = new Set(["thinking", "redacted_thinking"]);

const words = fc.constantFrom("alpha", "beta", "gamma", "delta", "a much longer output line ".repeat(40));
const marker = fc.oneof({ weight: 12, arbitrary: fc.constant(undefined) }, { weight: 2, arbitrary: fc.constant(CC) }, { weight: 1, arbitrary: fc.constant(OTHER_CC) });

const block = fc.oneof(
  fc.record({ type: fc.constant("text"), text: words }),
  fc.record({ type: fc.constant("image"), source: fc.record({ type: fc.constant("base64"), media_type: fc.constant("image/png"), data: fc.constantFrom("AAAA", "BBBB") }) }),
  fc.record({ type: fc.constant("thinking"), thinking: words, signature: fc.constant("sig") }),
  fc.record({ type: fc.constant("redacted_thinking"), data: fc.constantFrom("x", "y") }),
  fc.record({ type: fc.constant("tool_use"), id: fc.constantFrom("t1", "t2"), name: fc.constant("read"), input: fc.record({ path: words }) }),
  fc.record({ type: fc.constant("tool_result"), tool_use_id: fc.constantFrom("t1", "t2"), content: fc.array(fc.record({ type: fc.constant("text"), text: words }), { minLength: 1, maxLength: 2 }) }),
  fc.record({ type: fc.constant("server_tool_use"), id: fc.constant("s1") }),
);
const markedBlock = fc.tuple(block, marker).map(([b, m]) => (m ? { ...b, cache_control: m } : b));
const message = fc.record({
  role: fc.constantFrom("user", "assistant", "system"),
  content: fc.oneof({ weight: 1, arbitrary: words }, { weight: 5, arbitrary: fc.array(markedBlock, { minLength: 1, maxLength: 3 }) }),
});

/** Message count of each earlier request, the clock step before each request, and the final request's edits. */
const session = fc.record({
  messages: fc.array(message, { minLength: 2, maxLength: 40 }),
  cuts: fc.array(fc.nat(40), { minLength: 1, maxLength: 6 }),
  steps: fc.array(fc.integer({ min: -2_000, max: 400_000 }), { minLength: 7, maxLength: 7 }),
  edits: fc.array(fc.tuple(fc.nat(39), words), { maxLength: 3 }),
  oauth: fc.boolean(),
  tools: fc.nat(3),
});

/** What pi-ai would send for these messages: markers on the last tool, the system block(s) and the last block. */
function bodyOf(messages: any[], oauth: boolean, tools: number): any {
  const copy = structuredClone(messages);
  const lastBlock = copy.at(-1)?.content;
  if (Array.isArray(lastBlock) && ["text", "image", "tool_result"].includes(lastBlock.at(-1)?.type)) lastBlock.at(-1).cache_control = CC;
  const system = [{ type: "text", text: SYSTEM, cache_control: CC }];
  if (oauth) system.unshift({ type: "text", text: "identity", cache_control: CC });
  const toolList = Array.from({ length: tools }, (_, i) => ({ name: `tool${i}`, input_schema: { type: "object" }, ...(i === tools - 1 ? { cache_control: CC } : {}) }));
  return { model: "claude-sonnet-4-5", max_tokens: 100, system, ...(tools > 0 ? { tools: toolList } : {}), messages: copy };
}

const stripped = (value: unknown) => JSON.parse(JSON.stringify(value, (key, v) => (key === "cache_control" ? undefined : v)));

/** Every object carrying a marker, with its path, in a body. */
function markedObjects(value: unknown, path = "", out: Array<{ path: string; type: unknown }> = []) {
  if (Array.isArray(value)) value.forEach((v, i) => markedObjects(v, `${path}/${i}`, out));
  else if (typeof value === "object" && value !== null) {
    const obj = value as Record<string, unknown>;
    if (obj.cache_control !== undefined) out.push({ path, type: obj.type });
    for (const [k, v] of Object.entries(obj)) if (k !== "cache_control") markedObjects(v, `${path}/${k}`, out);
  }
  return out;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

describe("the spare breakpoint on random bodies", () => {
  test("adds at most one marker, never a fifth, never on thinking, changes nothing else and never its input", () => {
    let markersAdded = 0;
    fc.assert(
      fc.property(session, (s) => {
        let t = 10_000_000;
        const sb = new SpareBreakpoint(() => t);
        const final: any[] = s.messages.map((m) => structuredClone(m));
        for (const [i, text] of s.edits) {
          const m = final[i % final.length];
          if (typeof m.content === "string") m.content = text;
          else m.content[0] = { ...m.content[0], text };
        }
        const requests = [...s.cuts.map((c) => s.messages.slice(0, 1 + (c % s.messages.length))), final];
        requests.forEach((messages, k) => {
          t += s.steps[k]!;
          const input = deepFreeze(bodyOf(messages, s.oauth, s.tools));
          const snapshot = structuredClone(input);
          const out = sb.place(input, { sessionId: "s", codec: anthropicCodec, minTokens: 1024, ttlMs: 300_000, cacheUnused: false });
          expect(input).toEqual(snapshot);
          if (out === undefined) return;
          const before = markedObjects(input);
          const after = markedObjects(out);
          expect(stripped(out)).toEqual(stripped(input));
          expect(after.length).toBe(before.length + 1);
          expect(after.length).toBeLessThanOrEqual(4);
          const fresh = after.filter((a) => !before.some((b) => b.path === a.path));
          expect(fresh).toHaveLength(1);
          expect(THINKING.has(fresh[0]!.type as string)).toBe(false);
          markersAdded++;
        });
      }),
      { numRuns: 400 },
    );
    expect(markersAdded).toBeGreaterThan(5);
  });
});
