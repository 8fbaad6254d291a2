/**
 * One-level `{bN}` substitution inside a compressed-chain body: a fused range
 * summary may point at an earlier block. Replacement text is never re-scanned,
 * so a chain of references cannot expand recursively.
 */

const BLOCK_TOKEN = /\{b(\d+)\}/g;

export function substituteBlockRefs(
  text: string,
  blockSummaryLookup: (blockId: string) => string | undefined,
  options?: { selfBlockId?: string },
): string {
  if (typeof text !== "string") return "";
  if (!text.includes("{b")) return text;
  return text.replace(BLOCK_TOKEN, (token, digits: string) => {
    const blockId = `b${digits}`;
    if (blockId === options?.selfBlockId) return token;
    const replacement = blockSummaryLookup(blockId);
    return typeof replacement === "string" ? replacement : token;
  });
}
