/**
 * How sizes are shown to users. Every live surface (footer, `/pruner status` and `stats`, the flush line,
 * `/pruner compact`, the tree, the context metrics) turns characters into tokens here, with one estimate
 * and one format, so two surfaces showing the same thing show the same number. `/pruner report` starts
 * from the same ratio and replaces it with one calibrated on the session's recorded usage when it has any.
 */
export const DEFAULT_CHARS_PER_TOKEN = 4;

export function estimateTokens(chars: number): number {
  return Math.round(chars / DEFAULT_CHARS_PER_TOKEN);
}

export function formatCompactCount(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(1)}M`;
  if (n >= 1_000) return `${(n / 1_000).toFixed(1)}k`;
  return String(n);
}

/** Characters as the compact token figure every surface shows (`12.0k`). */
export function compactTokens(chars: number): string {
  return formatCompactCount(estimateTokens(chars));
}

/** A token count with its unit (`12.0k tokens`, `1 token`). */
export function tokenCountText(tokens: number): string {
  return `${formatCompactCount(tokens)} ${tokens === 1 ? "token" : "tokens"}`;
}

/** Characters as that figure with its unit. */
export function tokensText(chars: number): string {
  return tokenCountText(estimateTokens(chars));
}
