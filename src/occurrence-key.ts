/**
 * Occurrence identity. Provider tool-call ids are reused across a session, so
 * one tool-call occurrence is keyed by `<id>@<resultTimestamp>` (the
 * ToolResultMessage's own timestamp). A bare id is the legacy key shape.
 */

const SEPARATOR = "@";
const DIGITS = /^[0-9]+$/;

export function occKey(toolCallId: string, resultTimestamp?: number): string {
  if (resultTimestamp === undefined) return toolCallId;
  return `${toolCallId}${SEPARATOR}${resultTimestamp}`;
}

export function resultTimestampOf(value: unknown): number | undefined {
  return typeof value === "number" ? value : undefined;
}

export function parseOccKey(key: string): { toolCallId: string; resultTimestamp?: number } {
  // Ids may contain "@" themselves (some providers embed payloads), so split at the last one.
  const at = key.lastIndexOf(SEPARATOR);
  if (at <= 0) return { toolCallId: key };
  const suffix = key.slice(at + 1);
  if (!DIGITS.test(suffix)) return { toolCallId: key };
  return { toolCallId: key.slice(0, at), resultTimestamp: Number(suffix) };
}

export function bareToolCallId(key: string): string {
  return parseOccKey(key).toolCallId;
}
