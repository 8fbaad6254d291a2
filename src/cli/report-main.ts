/**
 * `pi-condense-report`: `/pruner report` outside pi. The same pipeline (report/run-report.ts) with the
 * settings of `<agent dir>/settings.json` and pi-ai's built-in model catalog; text as `/pruner report`
 * prints it (the HTML page beside the session), or with `--json` one JSON object (report/report-json.ts).
 * Never throws: output and the exit status go through `io`.
 */
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import type { Api, Model } from "@earendil-works/pi-ai";
import { getBuiltinModel, getBuiltinModels, getBuiltinProviders } from "@earendil-works/pi-ai/providers/all";
import { parseReportArgs, unknownPriceModelText } from "../commands/report-args.js";
import { costModelFor } from "../economics/cost-model.js";
import { reportJson } from "./report-json.js";
import { runReport } from "../report/run-report.js";
import { processCacheEnv } from "../settings/cache-env.js";
import { loadConfigWithWarnings } from "../settings/config.js";
import { DEFAULT_CONFIG, type ContextPruneConfig } from "../settings/config-shape.js";
import { CLI_USAGE, parseCliArgs } from "./report-cli-args.js";

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  cwd: string;
}

function catalogModel(provider: string | undefined, id: string | undefined): Model<Api> | undefined {
  if (!provider || !id) return undefined;
  try {
    return (getBuiltinModel as (p: string, i: string) => Model<Api> | undefined)(provider, id);
  } catch {
    return undefined;
  }
}

/** Every model of pi-ai's built-in catalog as `provider/id`. */
function catalogKeys(): string[] {
  try {
    return getBuiltinProviders().flatMap((provider) => getBuiltinModels(provider).map((model) => `${model.provider}/${model.id}`));
  } catch {
    return [];
  }
}

function sessionPath(arg: string, cwd: string): string {
  if (arg === "~" || arg.startsWith("~/")) return join(homedir(), arg.slice(1));
  return isAbsolute(arg) ? arg : resolve(cwd, arg);
}

async function settings(io: CliIo): Promise<ContextPruneConfig> {
  try {
    const loaded = await loadConfigWithWarnings();
    for (const warning of loaded.warnings) io.err(`pi-condense-report: settings: ${warning}`);
    return loaded.config;
  } catch (err) {
    io.err(`pi-condense-report: the settings could not be read (${err instanceof Error ? err.message : String(err)}); the what-if uses the defaults`);
    return DEFAULT_CONFIG;
  }
}

export async function reportMain(argv: readonly string[], io: CliIo): Promise<number> {
  const cli = parseCliArgs(argv);
  if (cli.help) {
    io.out(CLI_USAGE);
    return 0;
  }
  const parsed = parseReportArgs(cli.report, await settings(io));
  const errors = [...parsed.errors];
  if (parsed.path === undefined) errors.push("give a session file: pi-condense-report <session.jsonl> [--json]");
  if (parsed.priceAs && !catalogModel(parsed.priceAs.provider, parsed.priceAs.id)) {
    errors.push(unknownPriceModelText(parsed.priceAs, catalogKeys()));
  }
  if (errors.length > 0) {
    io.err(`pi-condense-report: ${errors.join("; ")}\n(--help for usage)`);
    return 2;
  }
  const path = sessionPath(parsed.path!, io.cwd);
  const result = await runReport({
    path,
    config: parsed.config,
    overrides: parsed.overrides,
    priceAs: parsed.priceAs,
    cacheEnv: processCacheEnv(),
    writeHtml: !cli.json,
    costModelOf: (provider, id) => {
      const model = catalogModel(provider, id);
      return { cost: costModelFor(model), contextWindow: model?.contextWindow, api: model?.api, ...(model ? { model } : {}) };
    },
  });
  if (!result.report) {
    io.err(result.text);
    return 1;
  }
  const settingsWords = parsed.overrides.length > 0 ? parsed.overrides : ["your current settings"];
  io.out(cli.json ? JSON.stringify(reportJson(result.report, path, settingsWords), null, 2) : result.text);
  return 0;
}
