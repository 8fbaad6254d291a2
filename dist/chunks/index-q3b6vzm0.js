import {
  loose,
  isAssistant,
  isToolResult,
  isToolCall,
  contentBlocks,
  extractToolResultText,
  estimateTokens,
  formatCompactCount,
  formatTokens,
  formatCost,
  showReport,
  contextSentText,
  plural,
  sessionModelKey,
  defaultModelWords,
  DEFAULT_THINKING_WORDS,
  settingShown,
  cacheRuleWords,
  cacheRuleMeaning,
  retentionWords,
  pricesAt,
  moreRequestsWords,
  dollars,
  MIN_EDIT_LINE,
  WIDEN_AT_RECOVERIES,
  WIDENED_EXTRA_TURNS
} from "./index-r3w7jg55.js";

// src/ui/policy-status.ts
var STALE_MEANING = "a later read, edit or rerun of the same thing replaced them";
var SUMMARIES_MEANING = {
  auto: "only for outputs that cannot be had again",
  always: "for every output",
  never: "none; stubs keep each output's facts"
};
function archivedLine(summaries, archived) {
  const counts = `${archived.summarized} summarized, ${archived.withoutSummary} archived without a summary, ${archived.stale} retired as out of date (${STALE_MEANING})`;
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
  const meaning = (spare) => `
    (${cacheRuleMeaning(cache.rule, spare)})`;
  if (cache.problem)
    return `${rule} (${cache.problem})`;
  if (cache.rule !== "anthropic-breakpoints")
    return `${rule}${meaning()}`;
  const retention = cache.ttlMs === undefined ? "" : `; ${retentionWords(cache.retention ?? "short", cache.ttlMs)}`;
  return `${rule}, spare breakpoint ${cache.breakpoint ? "on" : "off"}${retention}${meaning(cache.breakpoint === true)}`;
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
  return `  waiting outputs: about ${Math.round(f.removedTokens)} tokens removable, ${per}; over ${moreRequestsWords(f.expectedRequests)} ${net}${reread}`;
}
var WAITING_WORK = { reply: "waiting outputs", chains: "earlier prompts' work left uncompressed" };
function waitingLines(waiting) {
  return waiting.map((w) => `  bound on waiting (${WAITING_WORK[w.kind]}): ${money(w.regret)} paid of the ${money(w.owed)} the rewrite owed; it is made once that is reached`);
}
function lastLine(last) {
  if (!last)
    return "  last decision: none yet";
  const verb = last.verdict === "defer" ? "waited" : last.nothingRewritten ? "nothing rewritten" : "summarized";
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

// src/forgetting/identifiers.ts
var PATH_RUN = /[\w.@+~\/:-]+/g;
var MAX_PATH_RUN = 1024;
var PATH = /(?:\/|\.{1,2}\/)?[\w.@+~-]+(?:\/[\w.@+~-]+)+/g;
var FILE_LINE = /([\w.@+~/-]*\.[A-Za-z]\w*):(\d+)/g;
var SYMBOL = /\b([A-Za-z_]\w+)\(/g;
var EXCEPTION = /\b([A-Z]\w*(?:Error|Exception))\b/g;
var LINE = /\b[Ll]ine (\d+)\b/g;
function pathTails(path) {
  const parts = path.replace(/^(\.{0,2}\/)+/, "").split("/").filter((part) => part !== "" && part !== "." && part !== "..");
  const tails = [];
  if (!path.startsWith("./") && !path.startsWith("../"))
    tails.push(path);
  for (let i = 0;i < parts.length; i++) {
    const tail = parts.slice(i).join("/");
    if (tail !== path && (i < parts.length - 1 || tail.includes(".")))
      tails.push(tail);
  }
  return tails.filter((tail) => /[A-Za-z]/.test(tail));
}
function cleanPath(raw) {
  return raw.replace(/[.-]+$/, "");
}
function identifierCandidates(text) {
  const found = new Map;
  const add = (kind, texts) => {
    if (texts.length > 0 && !found.has(`${kind}\x00${texts[0]}`))
      found.set(`${kind}\x00${texts[0]}`, { kind, texts });
  };
  for (const [token] of text.matchAll(PATH_RUN)) {
    if (token.length > MAX_PATH_RUN)
      continue;
    for (const m of token.matchAll(PATH))
      add("path", pathTails(cleanPath(m[0])));
    for (const m of token.matchAll(FILE_LINE)) {
      add("path", pathTails(cleanPath(m[1])));
      add("line", [m[2]]);
    }
  }
  for (const m of text.matchAll(SYMBOL))
    add("symbol", [m[1]]);
  for (const m of text.matchAll(EXCEPTION))
    add("exception", [m[1]]);
  for (const m of text.matchAll(LINE))
    add("line", [m[1]]);
  return [...found.values()];
}

// src/forgetting/miss-model.ts
var texts = new WeakMap;
function messageText(message) {
  if (typeof message !== "object" || message === null)
    return "";
  let text = texts.get(message);
  if (text === undefined) {
    text = readText(message);
    texts.set(message, text);
  }
  return text;
}
function readText(message) {
  const content = loose(message)?.content;
  if (isToolResult(message))
    return extractToolResultText(message);
  if (typeof content === "string")
    return content;
  if (!Array.isArray(content))
    return "";
  const parts = [];
  for (const block of content) {
    if (block?.type === "text" && typeof block.text === "string")
      parts.push(block.text);
    else if (block?.type === "thinking" && typeof block.thinking === "string")
      parts.push(block.thinking);
    else if (block?.type === "toolCall")
      parts.push(`${String(block.name)} ${argumentText(block.arguments)}`);
  }
  return parts.join(`
`);
}
function argumentText(args) {
  const parts = [];
  const visit = (value, depth) => {
    if (typeof value === "string")
      parts.push(value);
    else if (typeof value === "number" && Number.isFinite(value))
      parts.push(String(value));
    else if (depth < 8 && value !== null && typeof value === "object")
      for (const item of Object.values(value))
        visit(item, depth + 1);
  };
  visit(args, 0);
  return parts.join(`
`);
}
function editOldTexts(block) {
  if (!isToolCall(block) || block.name !== "edit")
    return [];
  const args = block.arguments ?? {};
  const edits = Array.isArray(args.edits) ? args.edits : [args];
  return edits.flatMap((edit) => {
    const oldText = loose(edit)?.oldText;
    return typeof oldText === "string" ? [oldText] : [];
  });
}
function editLines(reply) {
  const blocks = contentBlocks(reply);
  const lines = blocks.flatMap(editOldTexts).flatMap((text) => text.split(`
`).map((line) => line.trim()));
  return [...new Set(lines.filter((line) => line.length >= MIN_EDIT_LINE))];
}
var messageTokens = new WeakMap;

class VisibleTokens {
  sent = new Set;
  counts = new Map;
  system = { text: "", tokens: new Set };
  show(messages, systemText) {
    const next = new Set(messages);
    for (const message of this.sent)
      if (!next.has(message))
        this.count(message, -1);
    for (const message of next)
      if (!this.sent.has(message))
        this.count(message, 1);
    this.sent = next;
    if (systemText !== this.system.text)
      this.system = { text: systemText, tokens: new Set(tokensOf(systemText)) };
  }
  has(kind, text) {
    const key = kind === "path" ? `p\x00${text}` : `w\x00${text}`;
    return (this.counts.get(key) ?? 0) > 0 || this.system.tokens.has(key);
  }
  includesLine(line) {
    if (this.system.text.includes(line))
      return true;
    for (const message of this.sent)
      if (messageText(message).includes(line))
        return true;
    return false;
  }
  count(message, by) {
    if (typeof message !== "object" || message === null)
      return;
    let tokens = messageTokens.get(message);
    if (!tokens) {
      tokens = tokensOf(messageText(message));
      messageTokens.set(message, tokens);
    }
    for (const key of tokens)
      this.counts.set(key, (this.counts.get(key) ?? 0) + by);
  }
}
function dottedNames(run) {
  return run.split(/\.{2,}/).map((part) => part.replace(/^\.+|\.+$/g, "")).filter((part) => part.includes("."));
}
var shown = new WeakMap;
var named = new WeakMap;
function shownIdentifiers(output) {
  let found = shown.get(output);
  if (!found) {
    found = identifierCandidates(messageText(output));
    shown.set(output, found);
  }
  return found;
}
function namedKeys(reply) {
  let keys = named.get(reply);
  if (!keys) {
    keys = [];
    for (const block of contentBlocks(reply)) {
      if (!isToolCall(block))
        continue;
      for (const { kind, texts } of identifierCandidates(argumentText(block.arguments)))
        for (const text of texts)
          keys.push(`${kind}\x00${text}`);
    }
    named.set(reply, keys);
  }
  return keys;
}
function tokensOf(text) {
  const keys = new Set;
  for (const word of text.match(/[A-Za-z0-9_]+/g) ?? [])
    keys.add(`w\x00${word}`);
  for (const run of text.match(/[\w.@+~-]+/g) ?? [])
    for (const name of dottedNames(run))
      keys.add(`p\x00${name}`);
  for (const { kind, texts } of identifierCandidates(text))
    if (kind === "path")
      for (const t of texts)
        keys.add(`p\x00${t}`);
  return [...keys];
}

class MissCounter {
  visible = new VisibleTokens;
  source;
  consumed = 0;
  outputs = [];
  shownBy = new Map;
  named = new Set;
  observe(context, sent, systemText, reply) {
    this.learn(context);
    this.visible.show(sent, systemText);
    const missing = new Map;
    for (const { kind, texts } of identifierCandidates(messageText(reply))) {
      const holders = this.holdersOf(kind, texts);
      if (!holders || texts.some((text) => this.visible.has(kind, text)))
        continue;
      missing.set(texts[0], holders);
    }
    const identifiers = missing.size;
    for (const line of editLines(reply)) {
      const holders = this.outputs.filter((output) => output.text.includes(line)).map((output) => output.id);
      if (holders.length === 0 || this.visible.includesLine(line) || missing.has(line))
        continue;
      missing.set(line, holders);
    }
    if (missing.size === 0)
      return;
    return { items: [...missing.keys()], editLines: missing.size - identifiers, holderChars: this.coverChars([...missing.values()]) };
  }
  holdersOf(kind, texts) {
    let known = false;
    const holders = new Set;
    for (const text of texts) {
      const key = `${kind}\x00${text}`;
      for (const id of this.shownBy.get(key) ?? [])
        holders.add(id);
      if (this.shownBy.has(key) || this.named.has(key))
        known = true;
    }
    return known ? [...holders] : undefined;
  }
  learn(context) {
    if (context.messages !== this.source) {
      this.source = context.messages;
      this.consumed = 0;
    }
    for (;this.consumed < context.length; this.consumed++) {
      const message = context.messages[this.consumed];
      if (isToolResult(message))
        this.learnOutput(message);
      else if (isAssistant(message))
        for (const key of namedKeys(message))
          this.named.add(key);
    }
  }
  learnOutput(message) {
    const id = this.outputs.length;
    this.outputs.push({ id, text: messageText(message) });
    for (const { kind, texts } of shownIdentifiers(message)) {
      for (const t of texts) {
        const key = `${kind}\x00${t}`;
        const list = this.shownBy.get(key);
        if (list)
          list.push(id);
        else
          this.shownBy.set(key, [id]);
      }
    }
  }
  coverChars(holderSets) {
    let open = holderSets.filter((set) => set.length > 0);
    let chars = 0;
    while (open.length > 0) {
      const counts = new Map;
      for (const set of open)
        for (const id of set)
          counts.set(id, (counts.get(id) ?? 0) + 1);
      let best = -1;
      let bestScore = -1;
      for (const [id, n] of counts) {
        const score = n / Math.max(1, this.outputs[id].text.length);
        if (score > bestScore)
          [best, bestScore] = [id, score];
      }
      chars += this.outputs[best].text.length;
      open = open.filter((set) => !set.includes(best));
    }
    return chars;
  }
}
function recoveryCost(contextTokens, holderTokens, prices) {
  return contextTokens * prices.cacheRead + holderTokens * prices.cacheWrite + 100 * prices.output;
}

// src/forgetting/sight-text.ts
var SHOWN_REFS = 8;
function sightFigures(recoveries, cost) {
  const byKind = { query: 0, "re-read": 0, "failed-edit": 0 };
  const refs = new Set;
  const requests = new Map;
  let outputs = 0;
  for (const recovery of recoveries) {
    byKind[recovery.kind]++;
    outputs += Math.max(1, recovery.refs.length);
    for (const ref of recovery.refs)
      refs.add(ref);
    const trip = requests.get(recovery.request) ?? { context: recovery.contextTokens, returned: 0 };
    trip.returned += recovery.returnedChars;
    requests.set(recovery.request, trip);
  }
  let total;
  if (cost?.priced === true) {
    total = 0;
    for (const trip of requests.values())
      total += recoveryCost(trip.context, estimateTokens(trip.returned), pricesAt(cost, trip.context));
  }
  return { outputs, refs: [...refs], extraRequests: requests.size, dollars: total, byKind };
}
function refList(refs) {
  if (refs.length === 0)
    return "";
  const shown = refs.slice(0, SHOWN_REFS).join(", ");
  return refs.length > SHOWN_REFS ? ` (${shown} and ${refs.length - SHOWN_REFS} more)` : ` (${shown})`;
}
var KIND_WORDS = {
  query: ["context_tree_query call", "context_tree_query calls"],
  "re-read": ["read of a file read before", "reads of files read before"],
  "failed-edit": ["failed edit", "failed edits"]
};
function sightLine(figures, where = "this session") {
  if (figures.outputs === 0)
    return `the agent went back for no archived output ${where}`;
  const price = figures.dollars === undefined ? "" : `about ${dollars(figures.dollars)} and `;
  const kinds = Object.keys(KIND_WORDS).filter((kind) => figures.byKind[kind] > 0).map((kind) => plural(figures.byKind[kind], ...KIND_WORDS[kind])).join(", ");
  return `the agent went back for ${plural(figures.outputs, "archived output")} ${where}${refList(figures.refs)}: ${price}${plural(figures.extraRequests, "extra request")} (${kinds})`;
}
function windowLine(widened, rate, rawTurns) {
  const recent = `${plural(rate.recoveries, "request")} of the last ${rate.window} went back (${rate.per100.toFixed(1)} per 100)`;
  if (widened)
    return `raw window: widened, the latest ${rawTurns + WIDENED_EXTRA_TURNS} tool turns stay raw instead of ${rawTurns}; ${recent}`;
  return `raw window: the latest ${rawTurns} tool turns stay raw; ${recent}, it widens at ${WIDEN_AT_RECOVERIES}`;
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
function meaningOf(id, value, box, sessionModel) {
  const config = box.value;
  if (id === "summaries" && config.flushPolicy === "classic" && value !== "always")
    return "always in effect: flushPolicy classic implies it";
  if (id === "enabled" && !config.enabled && box.offReason)
    return `off because ${box.offReason.detail}; fix it there, or /pruner on`;
  if (id === "summarizerModel" && value === "default")
    return defaultModelWords(sessionModel);
  if (id === "summarizerThinking" && value === "default")
    return DEFAULT_THINKING_WORDS;
  return MEANING[id]?.[value];
}
function settingsBlock(box, sessionModel) {
  const rows = STATUS_SETTINGS.map((id) => {
    const { label, value } = settingShown(id, box.value);
    const meaning = meaningOf(id, value, box, sessionModel);
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
  let text = settingsBlock(deps.currentConfig, sessionModelKey(ctx));
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
  const sight = deps.getSight?.(ctx);
  if (sight)
    text += sightBlock(sight, deps.currentConfig.value.flushPolicy !== "classic");
  return text;
}
function sightBlock(sight, inRunWindow) {
  const window = inRunWindow ? `
  ${windowLine(sight.widened, sight.rate, sight.rawTurns)}` : "";
  return `
  --- live sight ---
  ${sightLine(sightFigures(sight.recoveries, sight.cost))}${window}`;
}
function statsReport2(stats, reclaim, cache, pruning = true, sight) {
  const chains = stats.chainsCompressed ?? 0;
  const compressed = chains > 0 ? `
  earlier prompts compressed: ${chains}` : "";
  const sent = `
  context sent: ${contextSentText(reclaim, pruning)}`;
  const went = sight === undefined ? "" : `
  ${sight}`;
  if (stats.callCount === 0 && chains === 0)
    return (reclaim && reclaim.beforeChars > 0 ? `pruner stats: no summarizer calls yet.${sent}` : "pruner stats: no summarizer calls yet.") + went;
  const spent = stats.callCount > 0 ? `${usageLines(stats, cache)}
  (calls, tokens and cost are the summarizer's own)` : "";
  return `pruner stats:${spent}${sent}${compressed}${went}`;
}
var statusCommand2 = async (deps, ctx) => {
  showReport(deps.pi, ctx, statusReport2(deps, ctx));
};
var statsCommand2 = async (deps, ctx) => {
  const sight = deps.getSight?.(ctx);
  const went = sight ? sightLine(sightFigures(sight.recoveries, sight.cost)) : undefined;
  showReport(deps.pi, ctx, statsReport2(deps.getStats(), currentReclaim2(deps, ctx), deps.getSummarizerCache?.(), deps.currentConfig.value.enabled, went));
};

export { MissCounter, recoveryCost, sightFigures, sightLine, currentReclaim2, statusReport2, statsReport2, statusCommand2, statsCommand2 };
