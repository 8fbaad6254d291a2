import { describe, expect, test } from "bun:test";
import type { SessionEntry } from "@earendil-works/pi-coding-agent";
import { getBuiltinModel } from "@earendil-works/pi-ai/providers/all";
import { calculateCost, type Usage } from "@earendil-works/pi-ai";
import { costModelFor } from "../economics/cost-model.js";
import { recordedBill, recordedPrices } from "./recorded-bill.js";

const haiku55 = getBuiltinModel("anthropic", "claude-haiku-5-5" as never);
const cardOf = (provider: string | undefined, model: string | undefined) => (provider === "anthropic" && model === "claude-haiku-5-5" ? costModelFor(haiku55).catalog : undefined);

let n = 0;
const entry = (fields: Record<string, unknown>): SessionEntry => ({ id: `e${++n}`, parentId: null, timestamp: new Date(1_000_000 + n * 1000).toISOString(), ...fields }) as unknown as SessionEntry;
const usage = (tokens: Partial<Usage>, total?: number, extra: Record<string, unknown> = {}) => ({
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 0,
  ...tokens,
  ...(total === undefined ? {} : { cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total, ...extra } }),
});
const reply = (u: unknown, model = "claude-haiku-5-5") => entry({ type: "message", message: { role: "assistant", content: [], provider: "anthropic", model, usage: u } });

describe("recordedBill", () => {
  test("sums what each reply, pi's warming refreshes and a compaction recorded, as pi's /session sums them", () => {
    const bill = recordedBill(
      [
        reply(usage({ input: 10, output: 5 }, 0.5)),
        entry({ type: "usage", kind: "cache_warm", provider: "anthropic", model: "claude-haiku-5-5", usage: usage({ cacheRead: 1000, output: 1 }, 0.01) }),
        entry({ type: "compaction", summary: "s", firstKeptEntryId: "e1", tokensBefore: 10, usage: usage({ input: 100 }, 0.2) }),
        reply(usage({ input: 3 }, 0.25)),
      ],
      cardOf,
    );
    expect(bill.dollars).toBeCloseTo(0.96, 9);
    expect(bill.replies).toBe(2);
    expect(bill.refreshes).toBe(1);
    expect(bill.refreshDollars).toBeCloseTo(0.01, 9);
    expect(bill.otherDollars).toBeCloseTo(0.2, 9);
    expect(bill.notes).toEqual([]);
  });

  test("a usage without a cost is priced as pi-ai prices it, at the reply's model and tier, with a note", () => {
    const tokens = { input: 20_000, cacheRead: 90_000, cacheWrite: 5_000, output: 800 };
    const bill = recordedBill([reply(usage(tokens))], cardOf);
    const theirs = calculateCost(haiku55, { ...usage(tokens, 0), totalTokens: 0 } as Usage).total;
    expect(bill.dollars).toBeCloseTo(theirs, 12);
    // Past the 100k tier: five times the base rates.
    expect(theirs).toBeCloseTo((20_000 * 0.5 + 90_000 * 0.05 + 5_000 * 0.625 + 800 * 2.5) / 1e6, 12);
    expect(bill.notes[0]).toContain("1 usage records tokens but no cost; priced at the catalog's prices of the reply's model and tier");
  });

  test("a cost without tokens and a provider's billed cost are taken as recorded; a negative cost and an unknown model's costless usage are left out", () => {
    const bill = recordedBill(
      [
        reply(usage({}, 0.3)),
        reply(usage({ input: 10 }, 0.07, { totalFromProvider: true })),
        reply(usage({ input: 10 }, -1)),
        reply(usage({ input: 10 }), "gone-model"),
      ],
      cardOf,
    );
    expect(bill.dollars).toBeCloseTo(0.37, 9);
    expect(bill.notes.join("\n")).toContain("1 usage records a cost but no tokens; the cost is taken as recorded");
    expect(bill.notes.join("\n")).toContain("1 reply carries the provider's billed cost, taken as recorded");
    expect(bill.notes.join("\n")).toContain("1 usage records a negative cost; left out of it");
    expect(bill.notes.join("\n")).toContain("of a model the catalog does not price; left out of it");
  });

  test("a warming refresh with no usage counts $0 and is named; a branch without any cost has no recorded bill", () => {
    const refresh = entry({ type: "usage", kind: "cache_warm", provider: "anthropic", model: "claude-haiku-5-5" });
    expect(recordedBill([reply(usage({ input: 5 }, 0.1)), refresh], cardOf).notes).toEqual(["recorded bill: 1 cache-warming refresh records no usage; counted at $0"]);
    expect(recordedBill([reply(undefined), entry({ type: "message", message: { role: "user", content: "hi" } })], cardOf).dollars).toBeUndefined();
  });
});

describe("recordedPrices", () => {
  test("reads a model's prices per million tokens off its recorded usage", () => {
    const branch = [reply(usage({ input: 1_000, output: 100, cacheRead: 10_000 }, 0, {}), "custom")].map((e) => {
      const message = (e as any).message;
      message.usage.cost = { input: 0.003, output: 0.0015, cacheRead: 0.003, cacheWrite: 0, total: 0.0075 };
      return e;
    });
    expect(recordedPrices(branch, "anthropic", "custom")).toEqual({ input: 3, output: 15, cacheRead: 0.3, cacheWrite: 0 });
    expect(recordedPrices(branch, "anthropic", "other")).toBeUndefined();
  });

  test("a cached session that sent no plain input has its input price read off the write price (Anthropic's 1.25x)", () => {
    const branch = [reply(usage({ input: 0, output: 10, cacheRead: 1_000, cacheWrite: 2_000 }), "custom")].map((e) => {
      (e as any).message.usage.cost = { input: 0, output: 0.00015, cacheRead: 0.0003, cacheWrite: 0.0075, total: 0.00795 };
      return e;
    });
    const prices = recordedPrices(branch, "anthropic", "custom")!;
    expect(prices.input).toBeCloseTo(3, 9);
    expect(prices.cacheWrite).toBeCloseTo(3.75, 9);
  });
});
