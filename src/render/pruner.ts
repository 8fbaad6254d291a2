/**
 * The render-time pipeline run on every `context` event:
 *   1. stub-replace   summarized tool results become short stubs
 *  1b. supersede      an earlier read of a protected path read again later
 *                     becomes a re-read stub, once the cache allows it
 *                     (supersede.ts); only when the caller passes its state
 *  1c. args-stub      a finished edit's or write's bulky argument strings, whose
 *                     output phase 1 stubbed, become markers naming the ref
 *                     (src/arguments/stub.ts); only with `stubArguments`
 *   2. error-purge    long strings in old failed tool calls' arguments become
 *                     size markers; the argument shape is kept
 *   3. chain-range    persisted chain decisions collapse closed chains
 *   4. orphan-sweep   no toolResult survives without its open toolCall; any
 *                     message that is neither assistant nor toolResult closes
 *                     the open set (barrier)
 *
 * Phase 1's walk also notes what phases 2 and 4 need of the input (an errored
 * result, an orphaned one), so a render where they have nothing to do does not
 * walk the transcript again for them.
 *
 * Pure: the input is never mutated, untouched messages are carried by
 * reference, and a render that changes nothing returns the input array itself
 * without serializing anything, so the provider's prompt cache keeps hitting.
 * A pruning render reports exact before/after sizes (render-size.ts).
 */
import { isToolResult } from "../capture/message-shape.js";
import { createHash } from "node:crypto";
import { compressChainRanges, type DropGuard, NOTHING_CREATED, type ChainRangeResult } from "./chain-range-prune.js";
import type { DiagnosticSink } from "./diagnostics.js";
import { purgeErroredArgs } from "./error-purge.js";
import { OrphanCheck, sweepOrphanToolResults } from "./orphan-sweep.js";
import type { ProtectionConfig } from "../capture/protected.js";
import { lazyInGraceRecoveryToolCallIds } from "./recovery-grace.js";
import { measureRender } from "./render-size.js";
import { elementChars } from "./message-size.js";
import { jsonArrayLength } from "./json-size.js";
import { type ArchiveCheck, replaceSummarizedResults, type StubbedMessages, type StubIndexer } from "./stub-replace.js";
import { applySupersede, type SupersedeState } from "./supersede.js";
import { stubFinishedArguments } from "../arguments/stub.js";
import { type WorkingSet, workingSet, type WorkingSetOptions } from "../sight/working-set.js";
import type { ChainCompressionConfig, ErrorPurgeConfig } from "../settings/config-shape.js";
import type { ChainCompressionEntry } from "../capture/records.js";
import type { LiveReclaim } from "./render-size.js";

type Reporter = Pick<DiagnosticSink, "report">;

/** Everything the render reads of the index (the archive's `ToolCallIndexer`); chain lookups only with chain compression on. */
export interface RenderIndexer extends StubIndexer {
  getChainEntries(): ChainCompressionEntry[];
  getPerBatchSummaryTextForToolCallIds(keys: string[]): string;
  /** Read lazily, only for a `{bN}` placeholder naming another block. */
  findChainEntryByBlockId?(blockId: string): ChainCompressionEntry | undefined;
}

/** What phase 1b needs: the session's supersession state and the live protection predicate. */
export interface SupersedeOptions {
  state: SupersedeState;
  isProtected: (toolName: string, args: unknown) => boolean;
}

export interface PruneResult {
  /** Loose as 2.9.1's callers read it: the input's own messages and the ones the phases made. */
  messages: any[];
  pruned: boolean;
  beforeChars: number;
  afterChars: number;
}

// Beside the result rather than on it: the result's shape is part of the 2.9.1 render contract.
const requestSizes = new WeakMap<PruneResult, LiveReclaim>();

/**
 * The before/after sizes of a pruning render in the request view (what the provider receives; see
 * message-size.ts): the figure users are shown. Undefined for a render that changed nothing.
 */
export function requestSizesOf(result: PruneResult): LiveReclaim | undefined {
  return requestSizes.get(result);
}

/**
 * Length of the JSON text of the array, everything serialized counted (thinking and arguments included),
 * except that each image costs a flat 6,400 chars instead of its base64 length.
 */
export function sizeMessages(messages: readonly unknown[]): number {
  let elements = 0;
  for (const msg of messages) elements += elementChars(msg);
  return jsonArrayLength(elements, messages.length);
}

interface RenderPass {
  messages: unknown[];
  stubbed: StubbedMessages;
  /** The output of the index-preserving phases, before chain compression and the sweep. */
  positional: unknown[];
  created: ReadonlySet<unknown>;
}

/** What the later phases need to know of the input, learned during phase 1's walk over it. */
class InputFacts {
  readonly orphans = new OrphanCheck();
  errored = false;

  readonly observe = (msg: unknown): void => {
    this.orphans.observe(msg);
    if (isToolResult(msg) && msg.isError === true) this.errored = true;
  };
}

const NOTHING_SWEPT: { messages: unknown[]; sweptIds: string[] } = { messages: [], sweptIds: [] };

function runPhases(
  messages: unknown[],
  indexer: RenderIndexer,
  chainCompression: ChainCompressionConfig | undefined,
  errorPurge: ErrorPurgeConfig | undefined,
  protection: ProtectionConfig | undefined,
  recoveryGraceTurns: number,
  diagnostics: DiagnosticSink | undefined,
  supersede: SupersedeOptions | undefined,
  archive: ArchiveCheck | undefined,
  stubArguments: boolean,
  argumentHorizon: number | undefined,
  sight: WorkingSetOptions | undefined,
): RenderPass {
  const grace = lazyInGraceRecoveryToolCallIds(messages, recoveryGraceTurns);
  const facts = new InputFacts();
  // The one place the render consults the working set: what it keeps stays raw in phases 1 and 1c.
  const kept = sight ? workingSet(messages, sight) : undefined;
  const stubbed = replaceSummarizedResults(messages, indexer, protection, grace, facts.observe, archive, kept?.outputs);
  let current: unknown[] = stubbed.messages;
  if (supersede) current = applySupersede(current, supersede.state, supersede.isProtected);
  if (stubArguments) current = stubFinishedArguments(current, messages, stubbed.stubRefs, indexer, argumentHorizon, kept?.arguments);
  // Stubs and superseded reads are never errored, so an input without an errored result gives the purge nothing.
  if (errorPurge?.enabled && facts.errored) current = purgeErroredArgs(current, errorPurge);
  // Stub-replace, supersede, args-stub and error-purge keep positions; the size accounting relies on it.
  const positional = current;

  let created: ReadonlySet<unknown> = NOTHING_CREATED;
  if (chainCompression?.enabled) {
    const guard: DropGuard | undefined = archive && {
      stubRefs: (position) => stubbed.stubRefs?.[position] ?? stubbed.keptRefs?.[position],
      miss: archive.miss,
      input: (position) => messages[position],
      givesArguments: (ref, args) => archive.givesArguments(ref, args),
    };
    const chained = compressChains(current, indexer, chainCompression, diagnostics, guard);
    current = chained.messages;
    created = chained.created;
  }

  // The positional phases keep every role, id and stop reason, so the input's verdict holds for their output.
  const swept = current === positional && !facts.orphans.found ? NOTHING_SWEPT : sweepOrphanToolResults(current);
  if (swept.sweptIds.length > 0) {
    reportSweep(swept.sweptIds, diagnostics);
    current = swept.messages;
  }
  if (kept !== undefined) keptBy.set(current, kept);
  return { messages: current, stubbed, positional, created };
}

// What the working set kept in a render, beside its output (the spare breakpoint reads what the next write lets go).
const keptBy = new WeakMap<object, WorkingSet>();

/** The working set a render consulted, by the messages it returned; undefined when it consulted none. */
export function workingSetOf(rendered: readonly unknown[]): WorkingSet | undefined {
  return keptBy.get(rendered);
}

export function pruneMessages(
  messages: unknown[],
  indexer: RenderIndexer,
  chainCompression?: ChainCompressionConfig,
  errorPurge?: ErrorPurgeConfig,
  protection?: ProtectionConfig,
  recoveryGraceTurns = 0,
  diagnostics?: DiagnosticSink,
  supersede?: SupersedeOptions,
  archive?: ArchiveCheck,
  stubArguments = false,
  argumentHorizon?: number,
  sight?: WorkingSetOptions,
): PruneResult {
  const pass = runPhases(messages, indexer, chainCompression, errorPurge, protection, recoveryGraceTurns, diagnostics, supersede, archive, stubArguments, argumentHorizon, sight);
  const current = pass.messages;
  // Every phase returns its input when it changes nothing, so this is the OR of the phases.
  if (current === messages) return { messages, pruned: false, beforeChars: 0, afterChars: 0 };
  const sizes = measureRender(messages, pass.stubbed, pass.positional, current, pass.created);
  const result = { messages: current, pruned: true, beforeChars: sizes.beforeChars, afterChars: sizes.afterChars };
  requestSizes.set(result, { beforeChars: sizes.requestBeforeChars, afterChars: sizes.requestAfterChars });
  return result;
}

/**
 * The same phases as `pruneMessages` without its size accounting, which walks every message: for an
 * offline replay (src/report/) that renders thousands of requests and measures only what changed.
 */
export function renderMessages(
  messages: unknown[],
  indexer: RenderIndexer,
  chainCompression?: ChainCompressionConfig,
  errorPurge?: ErrorPurgeConfig,
  protection?: ProtectionConfig,
  recoveryGraceTurns = 0,
  archive?: ArchiveCheck,
  stubArguments = false,
  argumentHorizon?: number,
  sight?: WorkingSetOptions,
): unknown[] {
  return runPhases(messages, indexer, chainCompression, errorPurge, protection, recoveryGraceTurns, undefined, undefined, archive, stubArguments, argumentHorizon, sight).messages;
}

function compressChains(
  input: unknown[],
  idx: RenderIndexer,
  chainCompression: ChainCompressionConfig,
  diagnostics: DiagnosticSink | undefined,
  guard: DropGuard | undefined,
): ChainRangeResult {
  const bodyFor = (entry: ChainCompressionEntry): string => chainBody(entry, idx);
  const lookup = (blockId: string): string | undefined => {
    const entry = idx.findChainEntryByBlockId?.(blockId);
    if (!entry) return undefined;
    const body = bodyFor(entry);
    return body === "" ? undefined : body;
  };
  return compressChainRanges(
    input,
    idx.getChainEntries(),
    bodyFor,
    chainCompression.stripFinalAssistantThinking === true,
    lookup,
    diagnostics,
    guard,
  );
}

// ---------------------------------------------------------------------------
// Phase 3 body selection
// ---------------------------------------------------------------------------

function chainBody(entry: ChainCompressionEntry, indexer: Pick<RenderIndexer, "getPerBatchSummaryTextForToolCallIds">): string {
  // Entries are validated at load; the checks stay so a value that slipped through cannot throw here.
  if (typeof entry.rangeSummaryText === "string") return entry.rangeSummaryText;
  const keys = Array.isArray(entry.droppedOccurrenceKeys)
    ? entry.droppedOccurrenceKeys
    : Array.isArray(entry.droppedToolCallIds)
      ? entry.droppedToolCallIds
      : [];
  const text = indexer.getPerBatchSummaryTextForToolCallIds(keys.filter((key) => typeof key === "string"));
  return typeof text === "string" ? text : "";
}

// ---------------------------------------------------------------------------
// Phase 4 reporting
// ---------------------------------------------------------------------------

function reportSweep(sweptIds: unknown[], diagnostics?: Reporter): void {
  // A transcript id that is not a string (hand-edited session) must not make the render throw while sorting.
  const sorted = sweptIds.map((id) => (typeof id === "string" ? id : `<${typeof id}>`)).sort();
  const key = createHash("sha1").update(sorted.join(",")).digest("hex").slice(0, 16);
  const shown = sorted.slice(0, 5).join(", ");
  const more = sorted.length > 5 ? ` ... +${sorted.length - 5} more` : "";
  diagnostics?.report("orphan-sweep", key, `swept ${sorted.length} orphan toolResult(s): ${shown}${more}`);
}
