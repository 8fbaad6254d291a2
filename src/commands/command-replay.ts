/**
 * `/pruner report [path] [--policy cost|classic|2.9.1] [--model provider/id] [key=value ...]`: replays a
 * session file (this session's by default) and shows what it cost and what
 * pruning would change (src/report/), with a progress line while it runs and
 * the HTML page's path at the end. The session file is only read.
 */
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import type { ExtensionCommandContext } from "@earendil-works/pi-coding-agent";
import type { Api, Model } from "@earendil-works/pi-ai";
import { costModelFor } from "../economics/cost-model.js";
import { processCacheEnv } from "../settings/cache-env.js";
import { parseReportArgs, unknownPriceModelText } from "./report-args.js";
import { runReport } from "../report/run-report.js";
import { showReport } from "../ui/report.js";
import { contextSentText } from "../ui/status-line.js";
import { currentReclaim } from "./command-report.js";
import type { CommandDeps, SubcommandHandler } from "./command-context.js";
import { safeNotify } from "./command-context.js";

export const REPLAY_WIDGET_ID = "pi-condense-replay";
const PROGRESS_EVERY = 250;

function sessionPathOf(arg: string | undefined, ctx: ExtensionCommandContext): string | undefined {
  if (arg === undefined) return ctx.sessionManager.getSessionFile();
  if (arg === "~" || arg.startsWith("~/")) return join(homedir(), arg.slice(1));
  return isAbsolute(arg) ? arg : resolve(ctx.cwd, arg);
}

function catalogModel(ctx: ExtensionCommandContext, provider: string | undefined, id: string | undefined): Model<Api> | undefined {
  if (!provider || !id) return undefined;
  try {
    return ctx.modelRegistry.find(provider, id);
  } catch {
    return undefined;
  }
}

/** Every model pi knows as `provider/id`, for the refusal of an unknown `--model`; none when the registry cannot list them. */
function knownModels(ctx: ExtensionCommandContext): string[] {
  try {
    return ctx.modelRegistry.getAll().map((model) => `${model.provider}/${model.id}`);
  } catch {
    return [];
  }
}

function progress(ctx: ExtensionCommandContext): ((done: number, total: number) => void) | undefined {
  if (ctx.mode !== "tui") return undefined;
  return (done, total) => {
    try {
      ctx.ui.setWidget(REPLAY_WIDGET_ID, done >= total ? undefined : [`pruner report: replaying ${Math.floor((done / total) * 100)}% (${done}/${total} request renders)`]);
    } catch {
      // A progress line that cannot be drawn must not stop the replay.
    }
  };
}

export const reportCommand: SubcommandHandler = async (deps: CommandDeps, ctx: ExtensionCommandContext, args: string[]) => {
  const parsed = parseReportArgs(args, deps.currentConfig.value);
  // Priced at nothing, the what-if would run unpriced and overwrite the priced page beside the session.
  if (parsed.priceAs && !catalogModel(ctx, parsed.priceAs.provider, parsed.priceAs.id)) parsed.errors.push(unknownPriceModelText(parsed.priceAs, knownModels(ctx)));
  if (parsed.errors.length > 0) {
    safeNotify(ctx, `pruner report: ${parsed.errors.join("; ")}`, "warning");
    return;
  }
  const path = sessionPathOf(parsed.path, ctx);
  if (!path) {
    safeNotify(ctx, "pruner report: this session has no file yet (nothing saved); give a session path: /pruner report <file.jsonl>", "warning");
    return;
  }
  // pi names the file at the start but writes it with the first prompt.
  if (parsed.path === undefined && !existsSync(path)) {
    safeNotify(ctx, "pruner report: nothing is recorded in this session yet (pi writes it with the first prompt); send a prompt first, or give a session file: /pruner report <file.jsonl>", "warning");
    return;
  }
  const onProgress = progress(ctx);
  try {
    const result = await runReport({
      path,
      config: parsed.config,
      overrides: parsed.overrides,
      priceAs: parsed.priceAs,
      yieldEvery: onProgress ? PROGRESS_EVERY : 0,
      ...(parsed.path === undefined ? { contextSent: contextSentText(currentReclaim(deps, ctx), deps.currentConfig.value.enabled) } : {}),
      onProgress,
      cacheEnv: processCacheEnv(),
      costModelOf: (provider, id) => {
        const model = catalogModel(ctx, provider, id);
        return { cost: costModelFor(model), contextWindow: model?.contextWindow, api: model?.api, ...(model ? { model } : {}) };
      },
    });
    showReport(deps.pi, ctx, result.text, result.level);
  } finally {
    onProgress?.(1, 1);
  }
};
