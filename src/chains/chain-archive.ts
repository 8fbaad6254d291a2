/**
 * The archive step of a chain pass, run before any chain is compressed: a
 * chain may drop its range only when every unprotected result in it has an
 * archive record of its own and a short ref the `<compressed-chain>` block
 * names. Missing records are backfilled deterministically (no LLM) and missing
 * refs are minted; a chain where that is impossible is held back and stays raw.
 */
import { extractChainRecords } from "./chain-compressor.js";
import { resolveRange } from "../render/chain-range-prune.js";
import type { BackfillOptions, ToolCallIndexer } from "../archive/indexer.js";
import { occKey, resultTimestampOf } from "../capture/occurrence-key.js";
import { isToolResult } from "../capture/message-shape.js";
import type { ChainRange } from "./chain-detector.js";

export interface ChainArchiveDeps {
  indexer: Pick<ToolCallIndexer, "getIndex" | "backfillChainRecords" | "ensureShortRefs">;
  /** The exact messages chain detection ran on. */
  messages: readonly unknown[];
  backfill: BackfillOptions;
  /** Told of an archive write that failed (the chain stays raw). */
  onWriteFailed?: (error: unknown) => void;
}

/** Archives the members of the given chains; returns the occurrence keys of the chains that must stay raw. */
export async function archiveChainMembers(chains: ChainRange[], deps: ChainArchiveDeps): Promise<Set<string>> {
  const held = new Set<string>();
  const ambiguous = ambiguousKeys(deps.messages);
  for (const chain of chains) {
    if (await archiveChain(chain, deps, ambiguous)) continue;
    for (const key of chainKeys(chain)) held.add(key);
  }
  return held;
}

async function archiveChain(chain: ChainRange, deps: ChainArchiveDeps, ambiguous: Set<string>): Promise<boolean> {
  const range = resolveRange(chain, deps.messages);
  if (!range) return true;
  const index = deps.indexer.getIndex();
  const protectedIds = new Set(chain.protectedToolCallIds ?? []);
  for (let i = range.startIndex + 1; i < range.endIndex; i++) {
    const msg = deps.messages[i];
    if (!isToolResult(msg) || protectedIds.has(msg.toolCallId)) continue;
    const key = occKey(String(msg.toolCallId), resultTimestampOf(msg.timestamp));
    // Two results under one key cannot both be recovered; a result without a timestamp cannot be keyed.
    if (ambiguous.has(key) || (!index.has(key) && typeof msg.timestamp !== "number")) return false;
  }
  try {
    const fresh = extractChainRecords(deps.messages, chain, (key) => index.has(key));
    if (fresh.length > 0) await deps.indexer.backfillChainRecords(fresh, deps.backfill);
    deps.indexer.ensureShortRefs(chainKeys(chain), deps.backfill.appendEntry);
  } catch (err) {
    console.error("pi-condense: chain archive step failed; the chain stays raw", err);
    deps.onWriteFailed?.(err);
    return false;
  }
  return true;
}

/** Occurrence keys carried by more than one tool result. */
function ambiguousKeys(messages: readonly unknown[]): Set<string> {
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const msg of messages) {
    if (!isToolResult(msg) || typeof msg.toolCallId !== "string") continue;
    const key = occKey(msg.toolCallId, resultTimestampOf(msg.timestamp));
    if (seen.has(key)) twice.add(key);
    else seen.add(key);
  }
  return twice;
}

function chainKeys(chain: ChainRange): string[] {
  const occurrences = chain.middleOccurrenceKeys ?? [];
  return occurrences.length > 0 ? occurrences : chain.middleToolCallIds;
}
