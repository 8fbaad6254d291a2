/**
 * The copy guard: a model may imitate what it sees, so a `write` or `edit` whose arguments hold a live
 * argument marker (the exact text the render makes for an archived argument of this session) is blocked
 * before it runs, with the way to the original. Marker-shaped text that is not a live marker (another
 * session's, a made-up ref, a changed size) passes: a file about pi-condense may quote one. Pure.
 */
import { markerCandidates, type MarkerCandidate } from "./marker.js";
import { archivedMarker } from "./archived-marker.js";
import type { ArgsIndexer } from "./stub.js";

const GUARDED_TOOLS = new Set(["write", "edit"]);
const MAX_DEPTH = 4;

/** The first live marker in a guarded call's arguments, or undefined. */
export function copiedMarker(toolName: unknown, args: unknown, indexer: ArgsIndexer): MarkerCandidate | undefined {
  if (typeof toolName !== "string" || !GUARDED_TOOLS.has(toolName)) return undefined;
  for (const text of stringsOf(args, 0)) {
    for (const candidate of markerCandidates(text)) if (isLiveMarker(candidate, indexer)) return candidate;
  }
  return undefined;
}

/** Whether this is exactly the text the render makes for the archived argument its ref and name point at (archived-marker.ts). */
export function isLiveMarker(candidate: MarkerCandidate, indexer: ArgsIndexer): boolean {
  const record = indexer.getRecord(candidate.ref);
  return record !== undefined && archivedMarker(record, candidate.field, candidate.ref) === candidate.text;
}

export function copyGuardReason(toolName: string, marker: MarkerCandidate): string {
  return (
    `pi-condense blocked this ${toolName}: its arguments hold the marker that stands for the archived ${marker.field} of ` +
    `${marker.ref}, not the text itself. Call context_tree_query({ toolCallIds: ["${marker.ref}"] }) for the original ` +
    "(its Args line holds it verbatim) and send the real text."
  );
}

/**
 * What the user reads in the chat: pi draws a call's change before the guard runs, so the notice says in plain
 * words that nothing was written. The agent reads `copyGuardReason` instead.
 */
export function copyGuardNotice(toolName: string, args: unknown, marker: MarkerCandidate): string {
  const path = typeof args === "object" && args !== null ? (args as { path?: unknown }).path : undefined;
  const call = typeof path === "string" && path !== "" ? `${toolName === "edit" ? "edit of" : "write to"} ${path}` : toolName;
  return (
    `pi-condense blocked the agent's ${call}: nothing was written (the change shown above was not applied). ` +
    `The call held a placeholder for text archived as ${marker.ref}, not the text itself; ` +
    "the agent was told how to fetch the original and try again."
  );
}

function* stringsOf(value: unknown, depth: number): Generator<string> {
  if (typeof value === "string") {
    yield value;
    return;
  }
  if (depth >= MAX_DEPTH || typeof value !== "object" || value === null) return;
  const items = Array.isArray(value) ? value : Object.values(value);
  for (const item of items) yield* stringsOf(item, depth + 1);
}
