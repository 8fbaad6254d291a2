/**
 * Protection rules: a tool-name allowlist and `args.path` globs. Protected
 * calls never enter a batch, so their raw output stays verbatim in context.
 */

export interface ProtectionConfig {
  protectedTools: readonly string[];
  protectedPaths: readonly string[];
}

const compiled = new Map<string, RegExp>();
const REGEX_META = /[.+()[\]{}|^$\\]/;

function translate(pattern: string): string {
  let out = "";
  let i = 0;
  while (i < pattern.length) {
    const ch = pattern[i]!;
    if (ch === "*" && pattern[i + 1] === "*") {
      if (pattern[i + 2] === "/") {
        out += "(?:[^/]*/)*";
        i += 3;
      } else {
        out += ".*";
        i += 2;
      }
      continue;
    }
    if (ch === "*") out += "[^/]*";
    else if (ch === "?") out += "[^/]";
    else out += REGEX_META.test(ch) ? `\\${ch}` : ch;
    i += 1;
  }
  return out;
}

export function globToRegExp(pattern: string): RegExp {
  let re = compiled.get(pattern);
  if (!re) {
    re = new RegExp(`^${translate(pattern)}$`);
    compiled.set(pattern, re);
  }
  return re;
}

function pathArg(args: unknown): string | undefined {
  if (typeof args !== "object" || args === null) return undefined;
  const value = (args as { path?: unknown }).path;
  return typeof value === "string" ? value : undefined;
}

// Hand-edited settings may hold non-arrays here; treat them as empty rather than throw.
function listOf(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

/** Windows separators become `/`, so one glob matches both spellings of a path. */
export function normalizePath(p: string): string {
  return p.replace(/\\/g, "/");
}

export function isProtected(toolName: string, args: unknown, config: ProtectionConfig): boolean {
  if (listOf(config?.protectedTools).includes(toolName)) return true;
  // Runs for every summarized result on every render: no per-call allocations beyond the path normalization.
  const patterns = listOf(config?.protectedPaths);
  if (patterns.length === 0) return false;
  const raw = pathArg(args);
  if (raw === undefined) return false;
  const normalized = normalizePath(raw);
  return patterns.some((pattern) => typeof pattern === "string" && globToRegExp(pattern).test(normalized));
}

/** Always reads the live config, so `/pruner` edits apply at once. */
export function protectionPredicate(source: { config: { value: ProtectionConfig } }): (toolName: string, args: unknown) => boolean {
  return (toolName, args) => isProtected(toolName, args, source.config.value);
}
