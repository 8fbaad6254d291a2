/**
 * Reading `context_tree_query`'s arguments as text. pi validates them against the schema, but
 * the tool is also callable by other extensions with anything: every shape yields the text
 * `String()` gives, or a note naming the argument that has none. Nothing here throws.
 */

export interface QueryArgs {
  ids: string[];
  pattern?: string;
  lines?: string;
}

const HELP = {
  toolCallIds: 'short refs as strings, e.g. ["t12"]',
  lines: 'a range as a string, e.g. "2001-4000", "head:N" or "tail:N"',
  pattern: 'text or a /regex/ as a string, e.g. "error" or "/fail(ed)?/i"',
};

function unusable(name: string, help: string): { error: string } {
  return { error: `[${name} is not usable: pass ${help}]` };
}

/** `String(value)`, or undefined for a value with no text (toString and valueOf null or throwing, a throwing proxy). */
function textOf(value: unknown): string | undefined {
  try {
    return String(value);
  } catch {
    return undefined;
  }
}

const NO_VALUE = Symbol("no value");

/** The argument's value, or NO_VALUE when reading it throws (a getter, a proxy, an odd prototype). */
function argOf(params: unknown, name: keyof typeof HELP): unknown {
  try {
    return params === undefined || params === null ? undefined : (params as Record<string, unknown>)[name];
  } catch {
    return NO_VALUE;
  }
}

function idsOf(raw: unknown): string[] | { error: string } {
  const whole = unusable("toolCallIds", HELP.toolCallIds);
  if (raw === NO_VALUE) return whole;
  if (typeof raw === "string") return [raw];
  try {
    if (!Array.isArray(raw)) return [];
    const ids: string[] = [];
    for (let at = 0; at < raw.length; at++) {
      const id = textOf(raw[at]);
      if (id === undefined) return unusable(`toolCallIds[${at}]`, HELP.toolCallIds);
      ids.push(id);
    }
    return ids;
  } catch {
    return whole;
  }
}

/** An optional text argument: undefined and null mean absent. */
function optionalText(params: unknown, name: "lines" | "pattern"): { text?: string } | { error: string } {
  const raw = argOf(params, name);
  if (raw === undefined || raw === null) return {};
  const text = raw === NO_VALUE ? undefined : textOf(raw);
  return text === undefined ? unusable(name, HELP[name]) : { text };
}

export function readQueryArgs(params: unknown): QueryArgs | { error: string } {
  const ids = idsOf(argOf(params, "toolCallIds"));
  if (!Array.isArray(ids)) return ids;
  const lines = optionalText(params, "lines");
  if ("error" in lines) return lines;
  const pattern = optionalText(params, "pattern");
  if ("error" in pattern) return pattern;
  const args: QueryArgs = { ids };
  if (lines.text !== undefined) args.lines = lines.text;
  if (pattern.text !== undefined) args.pattern = pattern.text;
  return args;
}
