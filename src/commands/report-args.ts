/**
 * The arguments of `/pruner report [path] [--policy cost|classic|2.9.1] [--model provider/id] [key=value ...]`:
 * an optional session path, the catalog model to price at instead of the
 * session's own (for a model the catalog does not price), and the settings the
 * what-if runs with (the current ones, with named overrides of top-level
 * `contextPrune` keys, each checked against the default's type). Pure.
 */
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

function fits(key: string, value: unknown): boolean {
  const fallback = (DEFAULT_CONFIG as unknown as Record<string, unknown>)[key];
  if (fallback === null) return value === null || typeof value === "number";
  if (typeof fallback === "object") return false;
  if (typeof fallback === "number" && (value === null || typeof value === "number")) return true;
  return typeof value === typeof fallback;
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
      const value = parseValue(part.slice(eq + 1));
      if (!Object.hasOwn(DEFAULT_CONFIG, key)) errors.push(`${key}: not a contextPrune setting`);
      else if (!fits(key, value)) errors.push(`${key}=${part.slice(eq + 1)}: not a value this setting takes`);
      else {
        config[key] = value;
        named.push(`${key}=${part.slice(eq + 1)}`);
      }
      continue;
    }
    if (path === undefined) path = part;
    else errors.push(`${part}: only one session path is read`);
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
