/**
 * The what-if configuration: the session replayed as if pi-condense had run
 * with the given settings, offline. Tool turns are captured as the flush
 * captures them (protected tools and paths and recoveries left out, grouped by
 * `batchingMode`, batches under `minBatchChars` left whole); with `pruneOn`
 * "agent-message" every final text reply flushes what is pending (2.9.1's
 * timing), and the summary, its length estimated (summary-estimate.ts), is
 * appended after that reply; the turn_end gates (`autoBudgetThreshold`,
 * `frontierGapThresholdTokens`, read from the request as last sent) flush after
 * a tool turn; each request is then rendered by the real render pipeline over
 * an in-memory index, after the chain pass a flush runs (what-if-chains.ts).
 * With `flushPolicy: "cost"` the decisions are the cost policy's, made as the
 * host makes them (what-if-policy.ts) at the session model's prices: at each
 * final reply and after each tool turn, with the bound on waiting; a request
 * that comes after the cache's lifetime first flushes what waits (but for the
 * outputs it is the first to carry), and past `contextPressure` a tool turn
 * flushes all but the latest two. Pure.
 */
import { argumentStubsOn } from "../arguments/fields.js";
import { isAssistant, isCustom, isToolResult, isUser, loose } from "../capture/message-shape.js";
import type { AssistantMessage } from "@earendil-works/pi-ai";
import { ToolCallIndexer } from "../archive/indexer.js";
import { formatSummaryToolCallRefs, makeSummaryDetails, refOccurrenceKeys } from "../archive/summary-refs.js";
import { captureBatch, groupBatchesByMode, serializeBatchForSummarizer } from "../capture/batch-capture.js";
import { isTextOnlyAssistant, toolCallBlocks } from "../capture/message-shape.js";
import { isProtected } from "../capture/protected.js";
import { isRecoveryTool } from "../capture/recovery-call.js";
import { renderMessages, workingSetOf } from "../render/pruner.js";
import { NO_HORIZON } from "../arguments/horizon.js";
import { MAX_BUDGET_WINDOW } from "../summarize/budget.js";
import { isTrivialBatch, withoutSummaryOf } from "../summarize/flush-batches.js";
import { CUSTOM_TYPE_SUMMARY } from "../names.js";
import type { ContextPruneConfig } from "../settings/config-shape.js";
import type { CapturedBatch } from "../capture/records.js";
import type { ReplayRequest } from "./requests.js";
import { StableMessages } from "./cache-sim.js";
import { messageChars } from "./request-blocks.js";
import type { Scenario, SummarizerUse } from "./scenarios.js";
import { estimateSummaryChars, type SummaryEstimate } from "./summary-estimate.js";
import { WhatIfChainPass } from "./what-if-chains.js";
import { type PolicyMoment, WhatIfCostPolicy, type WhatIfPolicy } from "./what-if-policy.js";
import { inRunCandidates } from "../policy/flush-weighing.js";
import { summarySplit } from "../policy/summary-split.js";
import { type ArchiveWrite, sightOfWrite, sightOptions } from "../sight/working-set.js";
import { occKey, parseOccKey } from "../capture/occurrence-key.js";

const NONE: ReadonlySet<string> = new Set();

export type { WhatIfPolicy } from "./what-if-policy.js";

/** The live token estimate (chars / 4), as the host reads the context it has not yet sent. */
const CHARS_PER_TOKEN = 4;
/** Requests the context's growth is read over. */
const RECENT_REQUESTS = 5;

function charsOf(batch: CapturedBatch): number {
  let chars = 0;
  for (const call of batch.toolCalls) chars += call.resultText.length;
  return chars;
}

interface Flushed {
  length: number;
  time: number;
  /** Whether the chain pass runs after it (the cost policy weighs that; 2.9.1 always runs it). */
  chains: boolean;
}

interface OpenTurn {
  message: AssistantMessage;
  results: unknown[];
  turnIndex: number;
  userTurnGroup: number;
  /** Its batch as last captured, and with how many results. */
  captured?: { results: number; batch: CapturedBatch | undefined };
}

/** A message's own time, or 0 when it has none. */
function timeOf(message: unknown): number {
  const timestamp = loose(message)?.timestamp;
  return typeof timestamp === "number" ? timestamp : 0;
}

class Simulation {
  readonly indexer = new ToolCallIndexer();
  readonly messages: unknown[] = [];
  readonly use: SummarizerUse = { input: 0, output: 0, unit: "chars", calls: 0 };
  /**
   * Chars of the request as last rendered, plus what was added since: the context as the provider sees it,
   * which the budget triggers and the pressure line read (the host reads pi's context usage).
   */
  private sentChars = 0;
  /** The sizes of the last requests sent, in chars: how fast the context grows. */
  private readonly recentSent: number[] = [];
  private pendingChars = 0;
  private source: unknown[] | undefined;
  private consumed = 0;
  private turns: OpenTurn[] = [];
  /** Flushes that processed a batch: the chain pass runs after each, before the next request. */
  private flushed: Flushed[] = [];
  /** As the host reads it off the branch: the newest message when the index last grew. */
  argumentHorizon = NO_HORIZON;
  /** Every archive write in order, as the working set reads them back (src/sight/working-set.ts). */
  readonly writes: ArchiveWrite[] = [];
  private turnIndex = 0;
  private userTurnGroup = 0;
  /** Cost policy bookkeeping: requests and prompts seen, requests of the current run, the last request's time. */
  private requests = 0;
  private prompts = 0;
  private runRequests = 0;
  private lastRequestAt: number | undefined;
  /** The newest assistant message: tool results after it were carried by no request yet. */
  private lastAssistant: unknown;
  readonly chains: WhatIfChainPass;
  readonly costPolicy: WhatIfCostPolicy | undefined;

  constructor(
    private readonly config: ContextPruneConfig,
    private readonly estimate: SummaryEstimate,
    private readonly budgetChars: number | undefined,
    private readonly policy: WhatIfPolicy | undefined,
    private readonly windowChars: number | undefined,
  ) {
    this.chains = new WhatIfChainPass(config, this.indexer, estimate, this.use);
    const sight = (messages: readonly unknown[], keys: readonly string[]) => {
      const options = sightOptions(config, this.writes);
      return options ? sightOfWrite(messages, options, timeOf(messages[messages.length - 1]), keys) : { kept: NONE, released: NONE, hidden: [] };
    };
    this.costPolicy = policy ? new WhatIfCostPolicy(policy, config, this.indexer, (messages) => this.chains.eligibleRanges(messages), sight) : undefined;
  }

  /**
   * Before the request sent at `time`: with the cost policy, an expired cache (or one the recording shows
   * empty, `coldStart`) makes every waiting rewrite free, but for the outputs this request is the first to
   * carry (a tool that ran past the lifetime).
   */
  beforeRequest(time: number, coldStart = false): void {
    const expired = this.policy && this.lastRequestAt !== undefined && (coldStart || time - this.lastRequestAt >= this.policy.main.ttlMs);
    const last = this.messages[this.messages.length - 1];
    if (expired && last) {
      const newest = this.turns[this.turns.length - 1];
      const unseen = newest?.message === this.lastAssistant ? newest : undefined;
      const seen = this.turns.filter((turn) => turn !== unseen);
      if (seen.length > 0) this.forced(seen, last, true);
      // As the host's cold flush: with no output to summarize, the chain pass runs alone.
      else this.flushed.push({ length: this.messages.length, time: timeOf(last), chains: true });
    }
    this.lastRequestAt = time;
  }

  advance(view: { messages: unknown[]; length: number }): void {
    if (view.messages !== this.source) {
      // A compaction or context edit rebuilt the context: what was summarized before is gone with it.
      this.source = view.messages;
      this.consumed = 0;
      this.messages.length = 0;
      this.turns = [];
      this.sentChars = 0;
      this.pendingChars = 0;
    }
    for (; this.consumed < view.length; this.consumed++) this.take(view.messages[this.consumed]);
    this.budgetGate();
  }

  /**
   * After a tool turn (the context ends with its results) the turn_end gates may flush:
   * the context over `autoBudgetThreshold`, or the unsummarized tail over `frontierGapThresholdTokens`.
   */
  private budgetGate(): void {
    const last = this.messages[this.messages.length - 1];
    if (!isToolResult(last)) return;
    const overBudget = this.budgetChars !== undefined && this.sentChars >= this.budgetChars;
    const gap = this.config.frontierGapThresholdTokens;
    const overGap = typeof gap === "number" && gap > 0 && this.pendingChars / 4 >= gap;
    if (overBudget || overGap) return this.flushTurns(this.turns, last, true);
    if (this.policy !== undefined && this.underPressure()) {
      // As the host does within a run: all but the latest tool turns, whatever prompt they belong to.
      const older = new Set(inRunCandidates(this.batchesOf(this.turns), this.turnIndex - 1, true).map((batch) => batch.turnIndex));
      const turns = this.turns.filter((turn) => older.has(turn.turnIndex));
      return turns.length > 0 ? this.forced(turns, last, false) : undefined;
    }
    const inRun = this.costPolicy?.afterToolTurn(this.moment(last), this.turnIndex - 1);
    if (!inRun) return;
    const taken = new Set(inRun.batches.map((batch) => batch.turnIndex));
    this.flushTurns(this.turns.filter((turn) => taken.has(turn.turnIndex)), last, inRun.chains);
  }

  /** A flush the cost policy makes whatever it costs (an expired cache, the pressure line), kept among its bets. */
  private forced(turns: OpenTurn[], at: unknown, cold: boolean): void {
    this.costPolicy?.forcedRewrite(this.moment(at), this.batchesOf(turns), cold);
    this.flushTurns(turns, at, true);
  }

  private moment(at: unknown): PolicyMoment {
    return {
      messages: this.messages,
      pending: this.batchesOf(this.turns),
      requests: this.requests,
      prompts: this.prompts,
      runRequests: this.runRequests,
      contextFraction: this.contextFraction(),
      time: timeOf(at),
      size: { contextTokens: this.sentChars / CHARS_PER_TOKEN, growthTokens: this.growthChars() / CHARS_PER_TOKEN },
    };
  }

  /** What a request added to the next of late, in chars: the mean growth of the recent requests that grew. */
  private growthChars(): number {
    let grown = 0;
    let count = 0;
    for (let i = 1; i < this.recentSent.length; i++) {
      const growth = this.recentSent[i]! - this.recentSent[i - 1]!;
      if (growth > 0) {
        grown += growth;
        count++;
      }
    }
    return count === 0 ? 0 : grown / count;
  }

  private contextFraction(): number | null {
    return this.windowChars ? this.sentChars / this.windowChars : null;
  }

  private underPressure(): boolean {
    const fraction = this.contextFraction();
    const pressure = this.config.contextPressure;
    return fraction !== null && pressure !== null && fraction >= pressure;
  }

  /** The final reply: 2.9.1 flushes; the cost policy flushes when its decision says so. */
  private atFinalReply(reply: unknown): void {
    if (!this.costPolicy) return this.flushTurns(this.turns, reply, true);
    if (this.turns.length === 0) return;
    const verdict = this.costPolicy.atFinalReply(this.moment(reply));
    if (verdict.flush) this.flushTurns(this.turns, reply, verdict.chains);
  }

  private push(message: unknown): void {
    this.messages.push(message);
    this.sentChars += messageChars(message);
  }

  private take(message: unknown): void {
    this.push(message);
    if (isUser(message) || (isCustom(message) && message.customType !== CUSTOM_TYPE_SUMMARY)) {
      this.userTurnGroup += 1;
      this.prompts += 1;
      this.runRequests = 0;
    }
    if (isToolResult(message)) {
      this.turns[this.turns.length - 1]?.results.push(message);
      this.pendingChars += messageChars(message);
      return;
    }
    if (!isAssistant(message)) return;
    this.lastAssistant = message;
    this.requests += 1;
    this.runRequests += 1;
    this.costPolicy?.charge();
    if (toolCallBlocks(message).length > 0) {
      this.turns.push({ message, results: [], turnIndex: this.turnIndex, userTurnGroup: this.userTurnGroup });
    }
    this.turnIndex += 1;
    if (this.config.pruneOn === "agent-message" && isTextOnlyAssistant(message)) this.atFinalReply(message);
  }

  private excluded(name: unknown, args: unknown): boolean {
    return isRecoveryTool(name) || isProtected(String(name), args, this.config);
  }

  /** Occurrence keys of the outputs the working set keeps raw until the next archive write. */
  releasable: ReadonlySet<string> = NONE;

  /** Tool call ids of the outputs captured and not yet summarized, and of those the next write lets go: where the next rewrite starts. */
  pendingIds(): Set<string> {
    const ids = new Set<string>();
    for (const key of this.releasable) ids.add(parseOccKey(key).toolCallId);
    for (const batch of this.batchesOf(this.turns)) for (const call of batch.toolCalls) ids.add(call.toolCallId);
    return ids;
  }

  private batchesOf(turns: OpenTurn[]): CapturedBatch[] {
    const batches: CapturedBatch[] = [];
    for (const turn of turns) {
      const batch = this.capturedTurn(turn);
      if (batch) batches.push(batch);
    }
    return groupBatchesByMode(batches, this.config.batchingMode);
  }

  /** A turn's batch as captured, once per set of results (a waiting turn is weighed again at every tool turn). */
  private capturedTurn(turn: OpenTurn): CapturedBatch | undefined {
    if (turn.captured?.results === turn.results.length) return turn.captured.batch;
    const timestamp = typeof turn.message.timestamp === "number" ? turn.message.timestamp : 0;
    const batch = captureBatch(turn.message, turn.results, turn.turnIndex, timestamp);
    const answered = new Set(turn.results.map((result) => loose(result)?.toolCallId));
    const kept = batch.toolCalls.filter((call) => answered.has(call.toolCallId) && !this.excluded(call.toolName, call.args));
    const captured = kept.length > 0 ? { ...batch, toolCalls: kept, userTurnGroup: turn.userTurnGroup } : undefined;
    turn.captured = { results: turn.results.length, batch: captured };
    return captured;
  }

  /** Summarizes the outputs of `turns` (taking them off the waiting list); the chain pass follows when `chains`. */
  private flushTurns(turns: OpenTurn[], reply: unknown, chains: boolean): void {
    const batches = this.batchesOf(turns);
    const taken = new Set(turns);
    this.turns = this.turns.filter((turn) => !taken.has(turn));
    this.pendingChars = 0;
    for (const turn of this.turns) for (const result of turn.results) this.pendingChars += messageChars(result);
    const split = summarySplit(this.messages, batches, this.config);
    for (const batch of batches) {
      if (this.config.minBatchChars > 0 && charsOf(batch) < this.config.minBatchChars) {
        if (isTrivialBatch(batch, this.config.minBatchChars, argumentStubsOn(this.config))) continue;
        this.archiveWithoutSummary(withoutSummaryOf(batch));
        continue;
      }
      // As the host's flush: what `summaries` archives without a summary is stubbed with its digest, at no summarizer cost.
      const { summarize, withoutSummary } = split(batch);
      if (summarize.toolCalls.length > 0 || withoutSummary.toolCalls.length === 0) this.summarize(summarize, charsOf(summarize), reply);
      if (withoutSummary.toolCalls.length > 0) this.archiveWithoutSummary(withoutSummary);
    }
    if (batches.length > 0) this.flushed.push({ length: this.messages.length, time: timeOf(reply), chains });
  }

  /** An archive write: the horizon moves to the newest message. */
  private moveHorizon(batch: CapturedBatch): void {
    this.argumentHorizon = timeOf(this.messages[this.messages.length - 1]);
    const keys = batch.toolCalls.map((call) => occKey(call.toolCallId, call.resultTimestamp));
    const last = this.writes[this.writes.length - 1];
    if (last?.at === this.argumentHorizon) this.writes[this.writes.length - 1] = { ...last, keys: [...last.keys, ...keys] };
    else this.writes.push({ at: this.argumentHorizon, keys });
  }

  /** As the host's flush persists it: refs and the index line, no summary message. */
  private archiveWithoutSummary(batch: CapturedBatch): void {
    this.moveHorizon(batch);
    const refs = this.indexer.allocateSummaryRefs(batch);
    this.indexer.addBatch(batch, () => {}, refs);
    this.indexer.registerSummaryRefs(refs);
  }

  private summarize(batch: CapturedBatch, raw: number, reply: unknown): void {
    this.moveHorizon(batch);
    const refs = this.indexer.allocateSummaryRefs(batch);
    this.indexer.registerSummaryRefs(refs);
    this.indexer.addBatch(batch, () => {}, refs);
    const footer = formatSummaryToolCallRefs(refs);
    const body = "s".repeat(Math.max(1, estimateSummaryChars(this.estimate, raw) - footer.length));
    this.indexer.registerSummaryBody(refOccurrenceKeys(refs), body);
    this.push({
      role: "custom",
      customType: CUSTOM_TYPE_SUMMARY,
      content: body + footer,
      display: false,
      details: makeSummaryDetails(batch, refs),
      timestamp: timeOf(reply),
    });
    this.use.calls += 1;
    this.use.input += serializeBatchForSummarizer(batch).length;
    this.use.output += body.length + footer.length;
  }

  /** The request as rendered: what the provider was sent, the size the next gates start from. */
  noteSent(messages: readonly unknown[]): void {
    let chars = 0;
    for (const message of messages) chars += messageChars(message);
    this.sentChars = chars;
    this.recentSent.push(chars);
    if (this.recentSent.length > RECENT_REQUESTS) this.recentSent.shift();
  }

  /** The flushes since the last call: the context right after each, and the time of the message that triggered it. */
  takeFlushes(): Flushed[] {
    const flushes = this.flushed;
    this.flushed = [];
    return flushes;
  }
}

/** `autoBudgetThreshold` as chars (chars/4 tokens), against the window capped as the live gate caps it. */
function budgetChars(config: ContextPruneConfig, contextWindow: number | undefined): number | undefined {
  const share = config.autoBudgetThreshold;
  if (typeof share !== "number" || share <= 0 || share > 1 || !contextWindow || contextWindow <= 0) return undefined;
  return Math.min(MAX_BUDGET_WINDOW, share * contextWindow) * 4;
}

export function whatIfScenario(
  config: ContextPruneConfig,
  estimate: SummaryEstimate,
  contextWindow: number | undefined,
  label: string,
  policy?: WhatIfPolicy,
): Scenario {
  const windowChars = contextWindow && contextWindow > 0 ? Math.min(MAX_BUDGET_WINDOW, contextWindow) * 4 : undefined;
  const sim = new Simulation(config, estimate, budgetChars(config, contextWindow), policy, windowChars);
  const stable = new StableMessages();
  return {
    name: "whatif",
    label,
    async messagesAt(request: ReplayRequest, coldStart?: boolean) {
      sim.advance(request.bare);
      sim.beforeRequest(request.time, coldStart);
      for (const flush of sim.takeFlushes()) if (flush.chains) await sim.chains.afterFlush(sim.messages.slice(0, flush.length), flush.time);
      const input = sim.messages.slice();
      const rendered = renderMessages(input, sim.indexer, config.chainCompression, config.purgeErrors, config, config.recoveryGraceTurns, sim.indexer.archiveCheck(), argumentStubsOn(config), sim.argumentHorizon, sightOptions(config, sim.writes));
      sim.noteSent(rendered);
      sim.releasable = workingSetOf(rendered)?.releasable ?? NONE;
      return stable.stable(rendered);
    },
    summarizer: () => ({ ...sim.use }),
    pending: () => sim.pendingIds(),
    ...(sim.costPolicy ? { bets: () => sim.costPolicy!.bets() } : {}),
  };
}
