/**
 * The arguments of `/pruner report [path] [--policy cost|classic|2.9.1] [--model provider/id] [key=value ...]`:
 * an optional session path, the catalog model to price at instead of the
 * session's own (for a model the catalog does not price), and the settings the
 * what-if runs with (the current ones, with named overrides of top-level
 * `contextPrune` keys, each checked as the settings file's value is). Pure.
 */
import { checkSetting } from "../settings/config.js";
import { DEFAULT_CONFIG, type ContextPruneConfig } from "../settings/config-shape.js";
import { closeModelMatches } from "./model-check.js";

export interface ReportArgs {
  path: string | undefined;
  config: ContextPruneConfig;
  /** What the what-if changes from the current settings, in words (empty: nothing). */
  overrides: string[];
  /** `--model provider/id`: price at this catalog model instead of the session's. */
  priceAs: { provider: string; id: string } | undefined;
  errors: string[];
}

/** `--policy` names: the cost policy, or 2.9.1's timing under either name. */
const POLICIES: Record<string, ContextPruneConfig["flushPolicy"]> = { cost: "cost", classic: "classic", "2.9.1": "classic" };

function parseValue(text: string): unknown {
  if (text === "null" || text === "true" || text === "false") return JSON.parse(text);
  const number = Number(text);
  if (text.trim() !== "" && Number.isFinite(number)) return number;
  return text;
}

const QUOTES = new Set(["'", '"']);

/** Where the quote opened at `open` closes, or -1: in double quotes an escaped `"` does not close it. */
function closingQuote(text: string, open: number): number {
  const quote = text[open]!;
  for (let j = open + 1; j < text.length; j++) {
    if (quote === '"' && text[j] === "\\" && (text[j + 1] === '"' || text[j + 1] === "\\")) j++;
    else if (text[j] === quote) return j;
  }
  return -1;
}

/**
 * `/pruner report`'s argument text split into words as a shell would, so a path with spaces can be given
 * quoted (`"~/my sessions/s.jsonl"`, `'...'`) or with each space escaped (`~/my\ sessions/s.jsonl`). A quote
 * opens only when it is closed later (an apostrophe in a name stays one); in double quotes a backslash keeps a
 * `"` or `\` after it, outside quotes a space or a quote: anywhere else it stays, so `C:\Users\me` reads as typed.
 */
export function reportWords(text: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
      continue;
    }
    const close = QUOTES.has(c) ? closingQuote(text, i) : -1;
    if (close > i) {
      const quoted = text.slice(i + 1, close);
      word = (word ?? "") + (c === '"' ? quoted.replace(/\\(["\\])/g, "$1") : quoted);
      i = close;
      continue;
    }
    const next = text[i + 1];
    if (c === "\\" && next !== undefined && (/\s/.test(next) || QUOTES.has(next))) {
      word = (word ?? "") + next;
      i++;
      continue;
    }
    word = (word ?? "") + c;
  }
  if (word !== undefined) words.push(word);
  return words;
}

export function parseReportArgs(parts: string[], current: ContextPruneConfig): ReportArgs {
  const config: Record<string, unknown> = { ...current, enabled: true };
  const errors: string[] = [];
  const named: string[] = [];
  let path: string | undefined;
  let priceAs: ReportArgs["priceAs"];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (part === "") continue;
    if (part === "--policy") {
      const policy = parts[++i] ?? "";
      const flushPolicy = Object.hasOwn(POLICIES, policy) ? POLICIES[policy] : undefined;
      if (flushPolicy) {
        config.flushPolicy = flushPolicy;
        named.push(flushPolicy === "cost" ? "the cost policy" : "the classic policy");
      } else errors.push(`--policy ${policy || "(missing)"}: use cost, classic or 2.9.1`);
      continue;
    }
    if (part === "--model") {
      const model = parts[++i] ?? "";
      const slash = model.indexOf("/");
      if (slash > 0 && slash < model.length - 1) priceAs = { provider: model.slice(0, slash), id: model.slice(slash + 1) };
      else errors.push(`--model ${model || "(missing)"}: give a catalog model as provider/id`);
      continue;
    }
    const eq = part.indexOf("=");
    // `name=value` with a plain setting name; anything else (e.g. `/tmp/a=b/s.jsonl`) is a path.
    if (eq > 0 && /^[A-Za-z][A-Za-z0-9]*$/.test(part.slice(0, eq))) {
      const key = part.slice(0, eq);
      if (!Object.hasOwn(DEFAULT_CONFIG, key)) {
        errors.push(`${key}: not a contextPrune setting`);
        continue;
      }
      // Checked as the settings file's value is, so the refusal names what the setting takes.
      const checked = checkSetting(key as keyof ContextPruneConfig, parseValue(part.slice(eq + 1)));
      if (!checked.ok) errors.push(`${key}=${part.slice(eq + 1)}: not a value this setting takes; it takes ${checked.accepts}`);
      else {
        config[key] = checked.value;
        named.push(`${key}=${part.slice(eq + 1)}`);
      }
      continue;
    }
    if (path === undefined) path = part;
    else errors.push(`${part}: only one session path is read (a path with spaces goes in quotes, "~/my sessions/s.jsonl", or with each space escaped, ~/my\\ sessions/s.jsonl)`);
  }
  return { path, config: config as unknown as ContextPruneConfig, overrides: named, priceAs, errors };
}

/**
 * The refusal of a `--model` the catalog does not have (`known`: its `provider/id` keys): the closest ids it
 * does have, and where to look up the others. Nothing is replayed and nothing written after it.
 */
export function unknownPriceModelText(priceAs: { provider: string; id: string }, known: readonly string[]): string {
  const key = `${priceAs.provider}/${priceAs.id}`;
  const matches = closeModelMatches(key, known);
  const close = matches.length > 0 ? `; close matches: ${matches.join(", ")}` : "";
  return (
    `--model ${key}: pi's model catalog has no such model${close}. ` +
    "Write it as provider/model: `pi --list-models <word>` prints both columns for the models you have a key for"
  );
}
