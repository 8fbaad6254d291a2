/**
 * Shared orphan assertions for the test suites. Not a test file and never
 * imported by runtime code.
 *
 * `expectNoOrphanToolResults` restates the sweep's rule on its own instead of
 * calling the sweep, so the sweep's tests are not tautological: an assistant
 * replaces the open set (with nothing when it stopped with `error` or
 * `aborted`, as pi-ai leaves such a turn out of the request), a toolResult
 * must be open and consumes one call of its id, and any other role is a
 * barrier that clears the set.
 */
import { expect } from "bun:test";
import { DiagnosticSink } from "../src/render/diagnostics.js";
import { sweepOrphanToolResults } from "../src/render/orphan-sweep.js";
import { pruneMessages } from "../src/render/pruner.js";

export function expectNoOrphanToolResults(messages: any[]): void {
  // Calls sharing an id in one turn are each open: the open ids are a list, one entry per call.
  let open: unknown[] = [];
  for (const msg of messages) {
    if (msg?.role === "assistant") {
      const dropped = msg.stopReason === "error" || msg.stopReason === "aborted";
      const calls = !dropped && Array.isArray(msg.content) ? msg.content.filter((b: any) => b?.type === "toolCall") : [];
      open = calls.map((b: any) => b.id);
    } else if (msg?.role === "toolResult") {
      const id = msg.toolCallId;
      const at = open.findIndex((opened) => opened === id || (opened !== opened && id !== id));
      expect(at).toBeGreaterThanOrEqual(0);
      open.splice(at, 1);
    } else {
      open = [];
    }
  }
}

export function expectZeroOrphanSweep(messages: any[]): void {
  const result = sweepOrphanToolResults(messages);
  expect(result.sweptIds).toEqual([]);
  expect(result.messages).toBe(messages);
}

export function pruneWithZeroSweepAssertion(
  messages: any[],
  indexer: any,
  chainCompression?: any,
  errorPurge?: any,
  protection?: any,
  recoveryGraceTurns = 0,
): ReturnType<typeof pruneMessages> {
  const sink = new DiagnosticSink(() => {});
  const result = pruneMessages(messages, indexer, chainCompression, errorPurge, protection, recoveryGraceTurns, sink);
  expect(sink.counts()["orphan-sweep"]).toBe(0);
  return result;
}
