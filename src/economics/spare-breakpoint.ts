/**
 * Where the spare Anthropic breakpoint goes (PRUNING.md "The spare
 * breakpoint"). pi-ai marks the last tool, the system prompt and the last
 * message; Anthropic allows four markers. A request whose rewrite point (the
 * first block that differs from the previous request) lies more than
 * LOOKBACK_BLOCKS blocks before its last marker finds no entry and writes the
 * whole conversation again. One marker on the last block before the rewrite
 * point finds the entry an earlier request wrote there, so only the rewritten
 * suffix is written. The same holds for a turn that adds more than
 * LOOKBACK_BLOCKS blocks with nothing rewritten. When neither applies, the
 * marker goes where the next rewrite will start (the block before the first
 * output still waiting to be summarized, or before the chain the chain pass
 * compresses next, whichever comes first), so an entry with the prefix as it
 * stands now is written and kept alive there for that rewrite to read. Pure.
 */
import { LOOKBACK_BLOCKS, MAX_BREAKPOINTS } from "./prompt-cache.js";

export interface PlacementInput {
  /** Content key of each block of this request, in request order. */
  keys: readonly string[];
  /** Per block: it carries a marker already. */
  marked: readonly boolean[];
  /** Per block: a marker may be added to it (an existing content block that is not thinking). */
  eligible: readonly boolean[];
  /** Block keys of the previous request of the same session and model. */
  previousKeys: readonly string[];
  /** The longest live entry the cache holds for a prefix of this request, in blocks (0: none). */
  bestEntry: number;
}

/** Blocks of the longest prefix two requests share. */
export function sharedBlocks(keys: readonly string[], previousKeys: readonly string[]): number {
  let d = 0;
  while (d < keys.length && d < previousKeys.length && keys[d] === previousKeys[d]) d++;
  return d;
}

/**
 * The index of the block to mark, or undefined when one more marker would read nothing more: four markers
 * already, no live entry, or an existing marker already within reach of the best entry. The marker goes on
 * the last eligible block that still reaches the best entry, and no later than the last block shared with
 * the previous request when the best entry lies within that shared prefix.
 */
export function spareBreakpointIndex(input: PlacementInput): number | undefined {
  const { keys, marked, eligible, bestEntry: best } = input;
  const count = marked.filter(Boolean).length;
  if (count >= MAX_BREAKPOINTS || best <= 0 || best > keys.length) return undefined;
  for (let q = best; q <= Math.min(best + LOOKBACK_BLOCKS, keys.length); q++) if (marked[q - 1]) return undefined;
  const shared = sharedBlocks(keys, input.previousKeys);
  const upper = best <= shared ? Math.min(best + LOOKBACK_BLOCKS, shared) : Math.min(best + LOOKBACK_BLOCKS, keys.length);
  for (let q = upper; q >= best; q--) if (eligible[q - 1] && !marked[q - 1]) return q - 1;
  return undefined;
}

/** Where the next rewrites will start: outputs waiting to be summarized, and the next chain to compress. */
export interface NextRewrites {
  /** Per block: its `tool_result`'s `tool_use_id`. */
  toolUseIds: ReadonlyArray<string | undefined>;
  /** `tool_use_id`s of the outputs waiting to be summarized. */
  pending: ReadonlySet<string>;
  /** Per block: the index of the message holding it (undefined for tools and system blocks). */
  messageOf?: ReadonlyArray<number | undefined>;
  /**
   * The `tool_use_id` of the first output of the chain the chain pass compresses next. Its block replaces
   * everything after the chain's opening prompt, so that rewrite starts at the message holding the call.
   */
  chainStart?: string;
}

/** The first block the next rewrite changes, or -1 when none is known. */
export function nextRewriteBlock(input: NextRewrites): number {
  const { toolUseIds, pending, messageOf, chainStart } = input;
  const waiting = pending.size === 0 ? -1 : toolUseIds.findIndex((id) => id !== undefined && pending.has(id));
  const result = chainStart === undefined || messageOf === undefined ? -1 : toolUseIds.indexOf(chainStart);
  const callMessage = result < 0 ? undefined : messageOf![result];
  const chain = callMessage === undefined || callMessage < 1 ? -1 : messageOf!.indexOf(callMessage - 1);
  if (waiting < 0) return chain;
  return chain < 0 ? waiting : Math.min(waiting, chain);
}

/**
 * The index of the block right before the next rewrite point, for a request that needs no marker to read
 * more now: the last eligible block before the first block the next rewrite changes (`nextRewriteBlock`),
 * and before the request's last marker, so the marker costs no extra write. Undefined when there is no
 * room, no rewrite ahead, or the spot is marked already.
 */
export function anticipatedBreakpointIndex(input: NextRewrites & { marked: readonly boolean[]; eligible: readonly boolean[] }): number | undefined {
  const { marked, eligible } = input;
  if (marked.filter(Boolean).length >= MAX_BREAKPOINTS) return undefined;
  const next = nextRewriteBlock(input);
  const lastMarker = marked.lastIndexOf(true);
  if (next <= 0 || next > lastMarker) return undefined;
  for (let i = next - 1; i >= 0; i--) {
    if (marked[i]) return undefined;
    if (eligible[i]) return i;
  }
  return undefined;
}

/**
 * The spare marker's block for one request: before the rewrite point when that reads more of the cache,
 * else before the next rewrite point. The one rule the host and the report share.
 */
export function spareMarkerIndex(
  input: PlacementInput & Omit<NextRewrites, "pending" | "chainStart"> & { pending: () => ReadonlySet<string>; chainStart?: () => string | undefined },
): number | undefined {
  const now = spareBreakpointIndex(input);
  if (now !== undefined) return now;
  return anticipatedBreakpointIndex({ ...input, pending: input.pending(), chainStart: input.chainStart?.() });
}
