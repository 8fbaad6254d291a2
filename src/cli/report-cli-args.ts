/**
 * The arguments of `pi-condense-report` (`npm run report -- <session.jsonl> [--json] ...`): the CLI's own
 * flags (`--json`, `--help`) taken out; everything else is `/pruner report`'s (a session path,
 * `--policy`, `--model`, `key=value`), parsed by its parser. Pure.
 */
export interface CliArgs {
  json: boolean;
  help: boolean;
  /** The arguments `/pruner report` reads. */
  report: string[];
}

export function parseCliArgs(argv: readonly string[]): CliArgs {
  const args: CliArgs = { json: false, help: false, report: [] };
  for (const arg of argv) {
    if (arg === "--json") args.json = true;
    else if (arg === "--help" || arg === "-h") args.help = true;
    else args.report.push(arg);
  }
  return args;
}

export const CLI_USAGE = `usage: pi-condense-report <session.jsonl> [--json] [--policy cost|classic|2.9.1] [--model provider/id] [key=value ...]
  (from a checkout: npm run report -- <session.jsonl> [--json] ...)

Replays a pi session file offline and prints what it cost and what pruning would change, as
/pruner report does: the bill pi recorded, no pruning and the what-if simulated under the
provider's cache rule, with the recording's cold starts. The session file is only read.

  --json              one JSON object on stdout (its shape: doc/usage.md)
  --policy NAME       the what-if's flush policy (default: your settings' flushPolicy)
  --model P/ID        price at this catalog model instead of the session's
  key=value           a contextPrune setting for the what-if, e.g. summaries=always
  --help              this text

The what-if starts from the contextPrune block of <agent dir>/settings.json (PI_CODING_AGENT_DIR),
or the defaults. Exit status: 0 a report was printed, 1 the session could not be read or
replayed, 2 bad arguments.`;
