/**
 * Session-scoped state of one extension instance. The factory in index.ts
 * creates exactly one of these per call. Only the hook handlers see the whole
 * of it; the layers below take the pieces they use (`FlushState`,
 * `PendingSource`, `StatusSource`), which this state provides.
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { ToolCallIndexer } from "../archive/indexer.js";
import { WriteFaults } from "../archive/write-faults.js";
import { nodeSidecarFiles, type SidecarFiles } from "../capture/spill.js";
import { PruneFrontierTracker } from "../capture/frontier.js";
import { BlockRefIssuer } from "../chains/block-refs.js";
import { DiagnosticSink } from "../render/diagnostics.js";
import { createSupersedeState } from "../render/supersede.js";
import { nextChainToCompress } from "../summarize/chain-pass.js";
import type { FlushState } from "../summarize/flush-state.js";
import { RetryLedger } from "../summarize/retry-ledger.js";
import { StatsAccumulator } from "../summarize/stats.js";
import { FallbackController } from "../summarize/summarizer-fallback.js";
import { CacheTracker } from "../economics/cache-tracker.js";
import { DeferralLedger } from "../economics/deferral-ledger.js";
import { DEFAULT_CONFIG } from "../settings/config-shape.js";
import type { FlushDecisionRecord } from "../economics/flush-decision.js";
import { showReport } from "../ui/report.js";
import { refreshStatus, showStatusText } from "../ui/status-refresh.js";
import { computeMetricsSnapshot } from "./metrics-snapshot.js";
import { measureNextRequest } from "./request-render.js";
import { type BackgroundFlush, SafePoints } from "./safe-points.js";
import { SpareBreakpoint } from "./cache-breakpoint.js";
import { SightState } from "../forgetting/sight-state.js";

export interface ExtensionState extends FlushState {
  /** The final-reply flush while it runs in the background (see final-reply-flush.ts). */
  finalReplyFlush: BackgroundFlush | undefined;
  safePoints: SafePoints;
  previousFraction: number | null;
  /** What the provider's prompt cache did on this branch (cost policy). */
  cache: CacheTracker;
  /** What each rewrite the cost policy waits with has cost so far, against what it owed (the bound on waiting). */
  ledger: DeferralLedger;
  policy: PolicyState;
  /** The previous Anthropic request of each session and model, for the spare cache marker. */
  breakpoint: SpareBreakpoint;
  /** The branch the last render was given, before pruning. */
  renderedBranch: readonly unknown[] | undefined;
  /** Of the outputs the last render's working set kept raw, those the next archive write lets go (src/sight/working-set.ts). */
  releasable: ReadonlySet<string>;
  /** The first tool call of the chain the chain pass compresses next on that branch. */
  nextChainStart: () => string | undefined;
  /** What the agent went back for, and the raw window it widens (forgetting/sight-state.ts). */
  sight: SightState;
}

export interface PolicyState {
  /** The cost policy's last decision, for `/pruner status`. */
  last: FlushDecisionRecord | undefined;
  /** Fallback reasons already told to the user (each is said once). */
  told: Set<string>;
  /** The last request time whose cache expiry was already flushed for (once per expiry). */
  coldFlushedFor: number | undefined;
  /** Fires when the prompt cache expires while the session is idle. */
  expiryTimer: ReturnType<typeof setTimeout> | undefined;
  /** pi's cache-warming refreshes answered "stop" since the session started (the next request rewrote what they kept). */
  warmingStopped: number;
}

export function createExtensionState(pi: ExtensionAPI, files: SidecarFiles = nodeSidecarFiles): ExtensionState {
  const state: ExtensionState = {
    pi,
    config: { value: { ...DEFAULT_CONFIG } },
    indexer: new ToolCallIndexer(),
    blockRefs: new BlockRefIssuer(),
    stats: new StatsAccumulator(),
    fallback: new FallbackController(),
    diagnostics: new DiagnosticSink((customType, data) => pi.appendEntry(customType, data)),
    frontier: new PruneFrontierTracker(),
    retries: new RetryLedger(),
    pending: [],
    isFlushing: false,
    finalReplyFlush: undefined,
    safePoints: new SafePoints(),
    previousFraction: null,
    cache: new CacheTracker(),
    ledger: new DeferralLedger(),
    policy: { last: undefined, told: new Set(), coldFlushedFor: undefined, expiryTimer: undefined, warmingStopped: 0 },
    breakpoint: new SpareBreakpoint(),
    renderedBranch: undefined,
    sight: new SightState(),
    releasable: new Set(),
    nextChainStart: () => (state.renderedBranch ? nextChainToCompress(state, state.renderedBranch) : undefined),
    rearmedPending: false,
    supersede: createSupersedeState(),
    status: {
      refresh: (ctx, closingMessage) => {
        measureNextRequest(state, ctx, closingMessage);
        refreshStatus(state, ctx);
      },
      show: (ctx, text) => showStatusText(state, ctx, text),
      measure: (ctx) => measureNextRequest(state, ctx),
    },
    report: { show: (ctx, text) => showReport(pi, ctx, text) },
    files,
    writeFaults: new WriteFaults(),
    metricsSnapshot: (ctx) => computeMetricsSnapshot(state, ctx),
  };
  return state;
}
