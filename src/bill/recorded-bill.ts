/**
 * The bill pi recorded for a branch: the cost each reply's usage records, plus
 * pi's cache-warming refreshes (`usage` entries) and the usage compactions,
 * branch summaries and tool results record, summed as pi's `/session` sums
 * them. A usage without a cost is priced here as pi-ai would price it (the
 * reply's model from the catalog, its tier), a cost without tokens or one the
 * provider billed (`totalFromProvider`) is taken as recorded, anything else
 * unusable is left out; each named once in `notes`. Pure.
 */
import type { SessionEntry } from "@earendil-works/pi-coding-agent";
import { loose, type LooseMessage } from "../capture/message-shape.js";
import { type RateCard, usageDollars } from "../economics/price-tiers.js";

export interface RecordedBill {
  /** pi's own figure for the branch; undefined when no usage on it records a cost. */
  dollars: number | undefined;
  /** Replies (assistant messages) with a usage, and how many of them carry a cost. */
  replies: number;
  repliesWithCost: number;
  /** pi's cache-warming refreshes and what they recorded. */
  refreshes: number;
  refreshDollars: number;
  /** Compactions, branch summaries and tool results that recorded usage. */
  otherDollars: number;
  notes: string[];
}

/** The catalog's prices of a model, when the catalog has it. */
export type CatalogCardOf = (provider: string | undefined, model: string | undefined) => RateCard | undefined;

interface Counts {
  derived: number;
  unpriced: number;
  costOnly: number;
  billed: number;
  unusable: number;
  emptyRefresh: number;
}

function finite(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

function tokens(usage: LooseMessage): number {
  let total = 0;
  for (const key of ["input", "output", "cacheRead", "cacheWrite"]) total += Math.max(0, finite(usage[key]) ?? 0);
  return total;
}

/** What one usage cost, or undefined when it says nothing usable. */
function costOf(value: unknown, provider: unknown, model: unknown, cardOf: CatalogCardOf, counts: Counts): number | undefined {
  const usage = loose(value);
  if (!usage) return undefined;
  const total = finite(loose(usage.cost)?.total);
  const used = tokens(usage);
  if (total !== undefined && total >= 0) {
    if (loose(usage.cost)?.totalFromProvider === true) counts.billed++;
    else if (used === 0 && total > 0) counts.costOnly++;
    return total;
  }
  if (used === 0) return undefined;
  if (total !== undefined) {
    counts.unusable++;
    return undefined;
  }
  const card = cardOf(typeof provider === "string" ? provider : undefined, typeof model === "string" ? model : undefined);
  if (!card) {
    counts.unpriced++;
    return undefined;
  }
  counts.derived++;
  const n = (key: string) => Math.max(0, finite(usage[key]) ?? 0);
  return usageDollars(card, { input: n("input"), output: n("output"), cacheRead: n("cacheRead"), cacheWrite: n("cacheWrite"), cacheWrite1h: n("cacheWrite1h") });
}

function notesOf(counts: Counts): string[] {
  const notes: string[] = [];
  const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  if (counts.derived > 0) notes.push(`recorded bill: ${plural(counts.derived, "usage records", "usages record")} tokens but no cost; priced at the catalog's prices of the reply's model and tier, as pi-ai prices a usage`);
  if (counts.unpriced > 0) notes.push(`recorded bill: ${plural(counts.unpriced, "usage records", "usages record")} tokens but no cost, of a model the catalog does not price; left out of it`);
  if (counts.costOnly > 0) notes.push(`recorded bill: ${plural(counts.costOnly, "usage records", "usages record")} a cost but no tokens; the cost is taken as recorded`);
  if (counts.billed > 0) notes.push(`recorded bill: ${plural(counts.billed, "reply carries", "replies carry")} the provider's billed cost, taken as recorded (the simulation prices at the catalog)`);
  if (counts.unusable > 0) notes.push(`recorded bill: ${plural(counts.unusable, "usage records", "usages record")} a negative cost; left out of it`);
  if (counts.emptyRefresh > 0) notes.push(`recorded bill: ${plural(counts.emptyRefresh, "cache-warming refresh records", "cache-warming refreshes record")} no usage; counted at $0`);
  return notes;
}

function assistantOf(entry: SessionEntry): LooseMessage | undefined {
  if (entry.type !== "message") return undefined;
  const message = loose((entry as { message?: unknown }).message);
  return message?.role === "assistant" ? message : undefined;
}

export function recordedBill(branch: readonly SessionEntry[], cardOf: CatalogCardOf): RecordedBill {
  const counts: Counts = { derived: 0, unpriced: 0, costOnly: 0, billed: 0, unusable: 0, emptyRefresh: 0 };
  const bill: RecordedBill = { dollars: undefined, replies: 0, repliesWithCost: 0, refreshes: 0, refreshDollars: 0, otherDollars: 0, notes: [] };
  const add = (dollars: number | undefined) => {
    if (dollars !== undefined) bill.dollars = (bill.dollars ?? 0) + dollars;
  };
  for (const entry of branch) {
    const raw = entry as unknown as Record<string, unknown>;
    const reply = assistantOf(entry);
    if (reply) {
      if (loose(reply.usage)) bill.replies++;
      const dollars = costOf(reply.usage, reply.provider, reply.responseModel ?? reply.model, cardOf, counts);
      if (dollars !== undefined) bill.repliesWithCost++;
      add(dollars);
    } else if (entry.type === "usage") {
      bill.refreshes += raw.kind === "cache_warm" ? 1 : 0;
      const dollars = costOf(raw.usage, raw.provider, raw.model, cardOf, counts);
      if (dollars === undefined && raw.kind === "cache_warm" && !loose(raw.usage)) counts.emptyRefresh++;
      if (raw.kind === "cache_warm") bill.refreshDollars += dollars ?? 0;
      else bill.otherDollars += dollars ?? 0;
      add(dollars);
    } else if (entry.type === "compaction" || entry.type === "branch_summary" || (entry.type === "message" && loose(raw.message)?.role === "toolResult")) {
      const usage = entry.type === "message" ? loose(raw.message)?.usage : raw.usage;
      if (usage === undefined) continue;
      const dollars = costOf(usage, undefined, undefined, cardOf, counts);
      bill.otherDollars += dollars ?? 0;
      add(dollars);
    }
  }
  bill.notes = notesOf(counts);
  return bill;
}

/**
 * The prices a model's recorded usage shows, in dollars per million tokens (`model.cost`'s unit): each
 * price is its cost over its tokens across the replies of `provider/model`; a session that sent no plain
 * input has its input price read off the cache-write price at Anthropic's 1.25x, else the read price at
 * 0.1x; undefined when no price can be read. For a model pi's catalog does not know (one from the user's models.json, the tests' fake).
 */
export function recordedPrices(branch: readonly SessionEntry[], provider: string | undefined, model: string | undefined): Record<"input" | "output" | "cacheRead" | "cacheWrite", number> | undefined {
  const keys = ["input", "output", "cacheRead", "cacheWrite"] as const;
  const tokenSum = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  const costSum = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  for (const entry of branch) {
    const reply = assistantOf(entry);
    if (!reply || reply.provider !== provider || reply.model !== model) continue;
    const usage = loose(reply.usage);
    const cost = loose(usage?.cost);
    if (!usage || !cost || cost.totalFromProvider === true) continue;
    for (const key of keys) {
      const n = finite(usage[key]);
      const c = finite(cost[key]);
      if (n === undefined || c === undefined || n <= 0 || c < 0) continue;
      tokenSum[key] += n;
      costSum[key] += c;
    }
  }
  const perMillion = (key: (typeof keys)[number]) => (tokenSum[key] > 0 ? (costSum[key] / tokenSum[key]) * 1_000_000 : 0);
  const rates = { input: perMillion("input"), output: perMillion("output"), cacheRead: perMillion("cacheRead"), cacheWrite: perMillion("cacheWrite") };
  // A cached Anthropic session sends no plain input: the input price is read off the write price (1.25x input), else the read price (0.1x).
  if (!(rates.input > 0)) rates.input = rates.cacheWrite > 0 ? rates.cacheWrite / 1.25 : rates.cacheRead / 0.1;
  return rates.input > 0 ? rates : undefined;
}
