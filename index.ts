/**
 * pi-condense: the extension entry point. It only wires pi's hooks to the
 * modules in src/; every handler is guarded so no failure reaches pi.
 */
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { compactChains } from "./src/summarize/chain-pass.js";
import { registerCommands } from "./src/commands/commands.js";
import { summarizerInUse } from "./src/summarize/summarizer-fallback.js";
import { createExtensionState, type ExtensionState } from "./src/host/extension-state.js";
import type { SidecarFiles } from "./src/capture/spill.js";
import { flushPending } from "./src/summarize/flush.js";
import { computeMetricsSnapshot } from "./src/host/metrics-snapshot.js";
import { policyView, sightView } from "./src/host/flush-policy.js";
import { toggleCostText } from "./src/host/toggle-cost.js";
import { capturePendingBatches } from "./src/capture/pending-batches.js";
import { registerQueryTool } from "./src/archive/query-tool.js";
import { registerReportRenderer } from "./src/ui/report.js";
import { onSessionStart, onSessionTree } from "./src/host/session-lifecycle.js";
import { onCacheKeyChange } from "./src/host/cache-expiry.js";
import { onToolCall } from "./src/host/copy-guard-hook.js";
import { onBeforeProviderRequest } from "./src/host/cache-breakpoint.js";
import { onCacheWarmingDecision } from "./src/host/cache-warming.js";
import { settleRunningFlush } from "./src/host/final-reply-flush.js";
import { onAgentEnd, onBeforeAgentStart, onContext, onMessageEnd, onSessionBeforeTree, onSessionShutdown, onTurnEnd } from "./src/host/turn-handlers.js";
import { EMPTY_METRICS_SNAPSHOT, type FlushOptions } from "./src/summarize/flush-types.js";

/** pi passes only `pi`; the integration tests pass a file layer that fails sidecar writes. */
export default function piCondense(pi: ExtensionAPI, files?: SidecarFiles): void {
  const state = createExtensionState(pi, files);

  pi.on("session_start", guarded("session_start", (event, ctx) => onSessionStart(state, ctx, event)));
  pi.on("session_tree", guarded("session_tree", (_event, ctx) => onSessionTree(state, ctx)));
  pi.on("turn_end", guarded("turn_end", (event, ctx) => onTurnEnd(state, ctx, event)));
  pi.on("message_end", guarded("message_end", (event, ctx) => onMessageEnd(state, ctx, event)));
  pi.on("agent_end", guarded("agent_end", (_event, ctx) => onAgentEnd(state, ctx)));
  pi.on("before_agent_start", guarded("before_agent_start", (_event, ctx) => onBeforeAgentStart(state, ctx)));
  pi.on("tool_call", guarded("tool_call", (event, ctx) => onToolCall(state, event, ctx)));
  pi.on("context", guarded("context", (event, ctx) => onContext(state, ctx, event)));
  pi.on("before_provider_request", guarded("before_provider_request", (event, ctx) => onBeforeProviderRequest(state, ctx, event)));
  pi.on("cache_warming_decision", guarded("cache_warming_decision", (event, ctx) => onCacheWarmingDecision(state, ctx, event)));
  pi.on("session_shutdown", guarded("session_shutdown", () => onSessionShutdown(state)));
  pi.on("session_before_tree", guarded("session_before_tree", () => onSessionBeforeTree(state)));
  pi.on("model_select", guarded("model_select", (_event, ctx) => onCacheKeyChange(state, ctx, "model")));
  pi.on("session_compact", guarded("session_compact", (_event, ctx) => onCacheKeyChange(state, ctx, "compaction")));
  pi.on("thinking_level_select", guarded("thinking_level_select", (_event, ctx) => onCacheKeyChange(state, ctx, "thinking")));

  registerQueryTool(pi, state.indexer);
  registerReportRenderer(pi);
  registerWithCommands(pi, state);
}

function registerWithCommands(pi: ExtensionAPI, state: ExtensionState): void {
  registerCommands(
    commandsAfterRunningFlush(pi, state),
    state.config,
    (ctx: ExtensionContext, options?: FlushOptions) => flushPending(state, ctx, options),
    (ctx: ExtensionContext, opts?: { rethrow?: boolean }) => capturePendingBatches(state, ctx, opts),
    () => state.stats.getStats(),
    () => state.stats.getLiveReclaim(),
    state.indexer,
    (ctx: ExtensionContext) => compactChains(state, ctx),
    () => state.diagnostics.counts(),
    (ctx: ExtensionContext) => computeMetricsSnapshot(state, ctx) ?? EMPTY_METRICS_SNAPSHOT,
    undefined,
    () => state.rearmedPending,
    (ctx: ExtensionContext) => policyView(state, ctx),
    (ctx: ExtensionContext) => summarizerInUse(state.fallback, ctx, state.config.value.summarizerModel),
    {
      getSummarizerCache: () => state.stats.getCacheTokens(),
      measureContext: (ctx: ExtensionContext) => {
        state.status.measure(ctx);
        return state.stats.getLiveReclaim();
      },
      describeToggle: (ctx: ExtensionContext, enabling: boolean) => toggleCostText(state, ctx, enabling),
      resetSummarizerFallback: () => state.fallback.reset(),
      getSight: (ctx: ExtensionContext) => sightView(state, ctx),
    },
  );
}

/** `/pruner` reads and changes state the final-reply flush may still be writing: it lets that flush finish first. */
function commandsAfterRunningFlush(pi: ExtensionAPI, state: ExtensionState): ExtensionAPI {
  const view: ExtensionAPI = Object.create(pi);
  view.registerCommand = (name, options) =>
    pi.registerCommand(name, {
      ...options,
      handler: async (args, ctx) => {
        await settleRunningFlush(state, { abandon: false });
        return options.handler(args, ctx);
      },
    });
  return view;
}

/** Handlers never throw into pi: a failure is logged and the event proceeds without us. */
function guarded<E, R>(
  name: string,
  handler: (event: E, ctx: ExtensionContext) => R | Promise<R>,
): (event: E, ctx: ExtensionContext) => Promise<R | undefined> {
  return async (event, ctx) => {
    try {
      return await handler(event, ctx);
    } catch (err) {
      console.error(`pi-condense: ${name} handler failed`, err);
      return undefined;
    }
  };
}
