import {
  formatCompactCount,
  formatTokens,
  formatCost,
  showReport,
  contextSentText,
  settingShown,
  cacheRuleWords,
  retentionWords,
  dollars
} from "./index-5b4k7r29.js";

// src/ui/policy-status.ts
var SUMMARIES_MEANING = {
  auto: "only for outputs that cannot be had again",
  always: "for every output",
  never: "none; stubs keep each output's facts"
};
function archivedLine(summaries, archived) {
  const counts = `${archived.summarized} summarized, ${archived.withoutSummary} archived without a summary, ${archived.stale} stale retired`;
  return `  summaries: ${summaries} (${SUMMARIES_MEANING[summaries]}); outputs so far: ${counts}`;
}
function duration(ms) {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60)
    return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60)
    return `${minutes} min ${seconds % 60} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}
function share(rate) {
  return rate === undefined ? undefined : `${Math.round(rate * 100)}%`;
}
function cacheLine(cache) {
  const hits = [share(cache.lastHitRate) && `last request ${share(cache.lastHitRate)} from the cache`, share(cache.recentHitRate) && `recent requests ${share(cache.recentHitRate)}`].filter(Boolean).join(", ");
  const tail = hits ? `; ${hits}` : "";
  if (cache.temperature === "warm")
    return `  cache: warm, expires in ${duration(cache.expiresInMs ?? 0)}${tail}`;
  if (cache.temperature === "cold")
    return cache.requests === 0 ? "  cache: cold (no request yet)" : `  cache: cold (${cache.reason ?? "expired"})${tail}`;
  return `  cache: unknown (${cache.reason ?? "no figures"})${tail}`;
}
function cacheRuleLine(cache) {
  const rule = `  cache rule: ${cacheRuleWords(cache.rule, cache.wire)}`;
  if (cache.problem)
    return `${rule} (${cache.problem})`;
  if (cache.rule !== "anthropic-breakpoints")
    return rule;
  const retention = cache.ttlMs === undefined ? "" : `; ${retentionWords(cache.retention ?? "short", cache.ttlMs)}`;
  return `${rule}, spare breakpoint ${cache.breakpoint ? "on" : "off"}${retention}`;
}
function money(amount) {
  return dollars(Math.abs(amount) < 0.00005 ? 0 : amount);
}
function pendingLine(pending) {
  if (!pending)
    return "  waiting outputs: none";
  const f = pending.figures;
  if (!f)
    return `  waiting outputs: ${pending.verdict === "apply" ? "would be summarized now" : "wait"} (${pending.reason})`;
  const per = f.savingPerRequest < -0.00005 ? `${money(-f.savingPerRequest)} more per request` : `${money(f.savingPerRequest)} per request`;
  const net = f.netSaving >= 0 ? `net ${money(f.netSaving)} saved` : `net ${money(-f.netSaving)} lost`;
  const reread = f.rereadTokens ? `; the rewrite also re-sends ${Math.round(f.rereadTokens)} tokens before it` : "";
  return `  waiting outputs: about ${Math.round(f.removedTokens)} tokens removable, ${per}; over ${f.expectedRequests.toFixed(1)} more requests ${net}${reread}`;
}
var WAITING_WORK = { reply: "waiting outputs", chains: "earlier prompts' work left uncompressed" };
function waitingLines(waiting) {
  return waiting.map((w) => `  bound on waiting (${WAITING_WORK[w.kind]}): ${money(w.regret)} paid of the ${money(w.owed)} the rewrite owed; it is made once that is reached`);
}
function lastLine(last) {
  if (!last)
    return "  last decision: none yet";
  const verb = last.verdict === "apply" ? "summarized" : "waited";
  return `  last decision: ${verb}, because ${last.reason}`;
}
function tierLine(tiers) {
  const list = tiers.thresholds.map((t) => `above ${tokensWords(t.above)} tokens ${Number(t.multiple.toFixed(2))}x`).join(", ");
  const context = tiers.contextTokens;
  if (context === undefined)
    return `  price tiers: ${list} (every token of a request at the tier its input falls in)`;
  const current = [...tiers.thresholds].reverse().find((t) => context > t.above);
  const at = current ? `the tier above ${tokensWords(current.above)} (${Number(current.multiple.toFixed(2))}x)` : "the base price";
  return `  price tiers: ${list}; the context (${tokensWords(context)} tokens) is billed at ${at}`;
}
function tokensWords(tokens) {
  return tokens >= 1000 ? `${Math.round(tokens / 1000)}k` : String(Math.round(tokens));
}
function policyStatusBlock(view) {
  const header = `
  --- prompt cache and flush policy ---`;
  const archived = archivedLine(view.summaries, view.archived);
  const tiers = view.tiers ? [tierLine(view.tiers)] : [];
  if (view.policy === "classic") {
    return [header, "  policy: classic (summarize at every final reply of the agent)", archived, cacheLine(view.cache), cacheRuleLine(view.cacheRule), ...tiers].join(`
`);
  }
  const policy = view.idleReason ? `  policy: cost (deciding nothing: ${view.idleReason})` : "  policy: cost (summarize when it pays)";
  const warming = view.warmingStopped ? [`  pi's cache warming: ${view.warmingStopped} ${view.warmingStopped === 1 ? "refresh" : "refreshes"} stopped (the next request rewrote the part it would keep warm)`] : [];
  return [header, policy, archived, cacheLine(view.cache), cacheRuleLine(view.cacheRule), ...tiers, ...warming, pendingLine(view.pending), ...waitingLines(view.waiting), lastLine(view.last)].join(`
`);
}

// src/commands/command-report.ts
var MEANING = {
  pruneOn: { "agent-message": "after the agent's final reply", "on-demand": "only on /pruner now" },
  batchingMode: { turn: "one summary per tool turn", "agent-message": "one summary per agent reply" },
  summaries: {
    auto: "only for outputs that cannot be had again",
    always: "for every batch",
    never: "no summarizer calls"
  },
  dedupByContentHash: { true: "repeated outputs point at their earlier copy", false: "repeated outputs are handled like any other" },
  showPruneStatusLine: { true: "the footer line is shown", false: "the footer line is hidden" }
};
var STATUS_SETTINGS = [
  "enabled",
  "summarizerModel",
  "summarizerThinking",
  "summarizerIdleTimeoutMs",
  "summarizerMaxTimeoutMs",
  "pruneOn",
  "batchingMode",
  "summaries",
  "dedupByContentHash",
  "showPruneStatusLine"
];
var STATUS_LABEL_WIDTH = 26;
function meaningOf(id, value, config) {
  if (id === "summaries" && config.flushPolicy === "classic" && value !== "always")
    return "always in effect: flushPolicy classic implies it";
  return MEANING[id]?.[value];
}
function settingsBlock(config) {
  const rows = STATUS_SETTINGS.map((id) => {
    const { label, value } = settingShown(id, config);
    const meaning = meaningOf(id, value, config);
    return `  ${`${label}:`.padEnd(STATUS_LABEL_WIDTH)}${value}${meaning ? ` (${meaning})` : ""}`;
  });
  return ["pruner status:", ...rows].join(`
`);
}
var NO_CACHE = { cacheReadTokens: 0, cacheWriteTokens: 0 };
function inputText(stats, cache) {
  const cached = cache.cacheReadTokens + cache.cacheWriteTokens;
  const total = `${formatTokens(stats.totalInputTokens + cached)} tokens`;
  if (cached === 0)
    return total;
  return `${total} (${formatTokens(cache.cacheWriteTokens)} written to its cache, ${formatTokens(cache.cacheReadTokens)} read from it)`;
}
function usageLines(stats, cache = NO_CACHE) {
  return `
  calls:       ${stats.callCount}` + `
  input:       ${inputText(stats, cache)}` + `
  output:      ${formatTokens(stats.totalOutputTokens)} tokens` + `
  cost:        ${formatCost(stats.totalCost)}`;
}
function currentReclaim2(deps, ctx) {
  if (deps.currentConfig.value.enabled)
    return deps.getLiveReclaim();
  return deps.measureContext?.(ctx) ?? deps.getLiveReclaim();
}
function contextBlock(metrics, rearmed, reclaim, pruning) {
  return `
  --- context now (what the provider receives) ---` + `
  context sent:                     ${contextSentText(reclaim, pruning)}` + `
  thinking since the last reply:    ${formatCompactCount(metrics.openCycleThinkingTokens)} tokens` + `
  largest prompt's work:            ${metrics.largestChainSharePct}% of the context` + `
  tool output not yet summarized:   ${formatCompactCount(metrics.frontierGapTokens)} tokens` + (rearmed ? `
  found after reload:               earlier tool output waiting to be summarized` : "");
}
function statusReport2(deps, ctx) {
  const stats = deps.getStats();
  let text = settingsBlock(deps.currentConfig.value);
  const inUse = deps.getFallback?.(ctx);
  if (inUse)
    text += `
  ${"in use now:".padEnd(STATUS_LABEL_WIDTH)}${inUse}`;
  text += stats.callCount > 0 ? `
  --- summarizer use ---${usageLines(stats, deps.getSummarizerCache?.())}` : `
  (no summarizer calls yet)`;
  if (deps.getContextMetrics) {
    text += contextBlock(deps.getContextMetrics(ctx), Boolean(deps.getRearmed?.()), currentReclaim2(deps, ctx), deps.currentConfig.value.enabled);
  }
  if (deps.getPolicyView)
    text += policyStatusBlock(deps.getPolicyView(ctx));
  return text;
}
function statsReport2(stats, reclaim, cache, pruning = true) {
  const chains = stats.chainsCompressed ?? 0;
  const compressed = chains > 0 ? `
  earlier prompts compressed: ${chains}` : "";
  const sent = `
  context sent: ${contextSentText(reclaim, pruning)}`;
  if (stats.callCount === 0 && chains === 0)
    return reclaim && reclaim.beforeChars > 0 ? `pruner stats: no summarizer calls yet.${sent}` : "pruner stats: no summarizer calls yet.";
  const spent = stats.callCount > 0 ? `${usageLines(stats, cache)}
  (calls, tokens and cost are the summarizer's own)` : "";
  return `pruner stats:${spent}${sent}${compressed}`;
}
var statusCommand2 = async (deps, ctx) => {
  showReport(deps.pi, ctx, statusReport2(deps, ctx));
};
var statsCommand2 = async (deps, ctx) => {
  showReport(deps.pi, ctx, statsReport2(deps.getStats(), currentReclaim2(deps, ctx), deps.getSummarizerCache?.(), deps.currentConfig.value.enabled));
};

export { currentReclaim2, statusReport2, statsReport2, statusCommand2, statsCommand2 };
