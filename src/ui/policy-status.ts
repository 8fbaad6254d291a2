/**
 * The cost policy's block of `/pruner status`: the prompt cache's state, what
 * flushing the waiting outputs now would save, and the last decision, in
 * plain words.
 */
import { cacheRuleMeaning, cacheRuleWords, retentionWords } from "../economics/cache-route.js";
import type { CacheState } from "../economics/cache-tracker.js";
import { dollars, moreRequestsWords, type RewriteCacheRule } from "../economics/rewrite-economics.js";
import type { FlushDecisionRecord } from "../economics/flush-decision.js";
import type { FlushPolicy, SummariesMode } from "../settings/config-shape.js";

export interface PolicyView {
  policy: FlushPolicy;
  /** Why the policy has nothing to decide (pruning off, or on demand); undefined while it decides. */
  idleReason: string | undefined;
  cache: CacheState;
  /** The decision flushing the waiting outputs now would get; undefined when nothing waits. */
  pending: FlushDecisionRecord | undefined;
  last: FlushDecisionRecord | undefined;
  /** The rule the session's provider caches by, which prices every rewrite. */
  cacheRule: RewriteCacheRule;
  /** The `summaries` choice in effect ("always" under classic). */
  summaries: SummariesMode;
  /** Archived outputs by how they left the context. */
  archived: ArchivedCounts;
  /** What each rewrite the policy waits with has cost so far against what it owed (the bound on waiting). */
  waiting: WaitingAccount[];
  /** The model's price tiers and the one the context is billed at now; absent for a model priced flat. */
  tiers?: TierView;
  /** pi's cache-warming refreshes answered "stop" this session. */
  warmingStopped?: number;
}

export interface TierView {
  /** The thresholds, in tokens of input, and each tier's input price as a multiple of the base price. */
  thresholds: Array<{ above: number; multiple: number }>;
  /** The context as last counted, in tokens, when known. */
  contextTokens: number | undefined;
}

export interface WaitingAccount {
  kind: "reply" | "chains";
  /** Extra reads paid and what waiting made the rewrite dearer, in dollars. */
  regret: number;
  owed: number;
}

export interface ArchivedCounts {
  summarized: number;
  withoutSummary: number;
  stale: number;
}

/** What made an output stale, in the words of every surface that counts them. */
const STALE_MEANING = "a later read, edit or rerun of the same thing replaced them";

const SUMMARIES_MEANING: Record<SummariesMode, string> = {
  auto: "only for outputs that cannot be had again",
  always: "for every output",
  never: "none; stubs keep each output's facts",
};

export function archivedLine(summaries: SummariesMode, archived: ArchivedCounts): string {
  const counts = `${archived.summarized} summarized, ${archived.withoutSummary} archived without a summary, ${archived.stale} retired as out of date (${STALE_MEANING})`;
  return `  summaries: ${summaries} (${SUMMARIES_MEANING[summaries]}); outputs so far: ${counts}`;
}

function duration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${seconds % 60} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

function share(rate: number | undefined): string | undefined {
  return rate === undefined ? undefined : `${Math.round(rate * 100)}%`;
}

function cacheLine(cache: CacheState): string {
  const hits = [share(cache.lastHitRate) && `last request ${share(cache.lastHitRate)} from the cache`, share(cache.recentHitRate) && `recent requests ${share(cache.recentHitRate)}`]
    .filter(Boolean)
    .join(", ");
  const tail = hits ? `; ${hits}` : "";
  if (cache.temperature === "warm") return `  cache: warm, expires in ${duration(cache.expiresInMs ?? 0)}${tail}`;
  if (cache.temperature === "cold") return cache.requests === 0 ? "  cache: cold (no request yet)" : `  cache: cold (${cache.reason ?? "expired"})${tail}`;
  return `  cache: unknown (${cache.reason ?? "no figures"})${tail}`;
}

/**
 * The rule that prices every rewrite: the model's route, whether pi-condense's spare breakpoint helps it and
 * the retention it is billed at, or why the policy cannot price it.
 */
export function cacheRuleLine(cache: RewriteCacheRule): string {
  const rule = `  cache rule: ${cacheRuleWords(cache.rule, cache.wire)}`;
  const meaning = (spare?: boolean) => `\n    (${cacheRuleMeaning(cache.rule, spare)})`;
  if (cache.problem) return `${rule} (${cache.problem})`;
  if (cache.rule !== "anthropic-breakpoints") return `${rule}${meaning()}`;
  const retention = cache.ttlMs === undefined ? "" : `; ${retentionWords(cache.retention ?? "short", cache.ttlMs)}`;
  return `${rule}, spare breakpoint ${cache.breakpoint ? "on" : "off"}${retention}${meaning(cache.breakpoint === true)}`;
}

/** Dollars as shown, with an amount that rounds to nothing shown as `$0.0000`, never `$-0.0000`. */
function money(amount: number): string {
  return dollars(Math.abs(amount) < 0.00005 ? 0 : amount);
}

function pendingLine(pending: FlushDecisionRecord | undefined): string {
  if (!pending) return "  waiting outputs: none";
  const f = pending.figures;
  if (!f) return `  waiting outputs: ${pending.verdict === "apply" ? "would be summarized now" : "wait"} (${pending.reason})`;
  const per = f.savingPerRequest < -0.00005 ? `${money(-f.savingPerRequest)} more per request` : `${money(f.savingPerRequest)} per request`;
  const net = f.netSaving >= 0 ? `net ${money(f.netSaving)} saved` : `net ${money(-f.netSaving)} lost`;
  const reread = f.rereadTokens ? `; the rewrite also re-sends ${Math.round(f.rereadTokens)} tokens before it` : "";
  return `  waiting outputs: about ${Math.round(f.removedTokens)} tokens removable, ${per}; over ${moreRequestsWords(f.expectedRequests)} ${net}${reread}`;
}

const WAITING_WORK: Record<WaitingAccount["kind"], string> = { reply: "waiting outputs", chains: "earlier prompts' work left uncompressed" };

/** Each open deferral: what waiting has cost so far, and the amount at which the rewrite is made whatever the forecast says. */
function waitingLines(waiting: WaitingAccount[]): string[] {
  return waiting.map((w) => `  bound on waiting (${WAITING_WORK[w.kind]}): ${money(w.regret)} paid of the ${money(w.owed)} the rewrite owed; it is made once that is reached`);
}

function lastLine(last: FlushDecisionRecord | undefined): string {
  if (!last) return "  last decision: none yet";
  // A flush of outputs all under the minimum batch size only records them: it summarizes nothing.
  const verb = last.verdict === "defer" ? "waited" : last.nothingRewritten ? "nothing rewritten" : "summarized";
  return `  last decision: ${verb}, because ${last.reason}`;
}

/** `price tiers: above 272k tokens 2x; the context (96k tokens) is billed at the base price`. */
export function tierLine(tiers: TierView): string {
  const list = tiers.thresholds.map((t) => `above ${tokensWords(t.above)} tokens ${Number(t.multiple.toFixed(2))}x`).join(", ");
  const context = tiers.contextTokens;
  if (context === undefined) return `  price tiers: ${list} (every token of a request at the tier its input falls in)`;
  const current = [...tiers.thresholds].reverse().find((t) => context > t.above);
  const at = current ? `the tier above ${tokensWords(current.above)} (${Number(current.multiple.toFixed(2))}x)` : "the base price";
  return `  price tiers: ${list}; the context (${tokensWords(context)} tokens) is billed at ${at}`;
}

function tokensWords(tokens: number): string {
  return tokens >= 1000 ? `${Math.round(tokens / 1000)}k` : String(Math.round(tokens));
}

export function policyStatusBlock(view: PolicyView): string {
  const header = "\n  --- prompt cache and flush policy ---";
  const archived = archivedLine(view.summaries, view.archived);
  const tiers = view.tiers ? [tierLine(view.tiers)] : [];
  if (view.policy === "classic") {
    return [header, "  policy: classic (summarize at every final reply of the agent)", archived, cacheLine(view.cache), cacheRuleLine(view.cacheRule), ...tiers].join("\n");
  }
  const policy = view.idleReason ? `  policy: cost (deciding nothing: ${view.idleReason})` : "  policy: cost (summarize when it pays)";
  const warming = view.warmingStopped ? [`  pi's cache warming: ${view.warmingStopped} ${view.warmingStopped === 1 ? "refresh" : "refreshes"} stopped (the next request rewrote the part it would keep warm)`] : [];
  return [header, policy, archived, cacheLine(view.cache), cacheRuleLine(view.cacheRule), ...tiers, ...warming, pendingLine(view.pending), ...waitingLines(view.waiting), lastLine(view.last)].join("\n");
}
